"""A run's own results lines replayed for its page without the engine's check (issue 23):
the referee's engine played every turn of a line it wrote, so its standings process, told
the line's digest, reads the stones off the notation. The entry is the engine's, byte for
byte; a line changed by one byte after it was written is replayed by the engine, its
illegal turn shown; a line of the run's whose digest has not come waits for the next look."""

from __future__ import annotations

import io
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from test_replay_entries import played, varied
from test_standings_off_path import _reply, config_of, standings_process, the_page_as_it_was

import referee.tournament.runner as runner_module
from referee.engine import Color, Position, geometry
from referee.play.records import GameRecord
from referee.render.html import line_entry
from referee.tournament.runner import Tournament
from referee.tournament.store.pages import PAGE
from referee.tournament.store.replays import REPLAYS, ReplayWindow, Vouched, line_digest
from referee.tournament.store.results import ResultsFile
from referee.tournament.store.standings_process import frame
from referee.tournament.store.summary_log import SummaryLog


def _line(record: GameRecord) -> bytes:
    return (record.to_json() + "\n").encode()


def _legal(records: list[GameRecord]) -> list[GameRecord]:
    return [r for r in records if "err" not in json.loads(line_entry(_line(r))[1])]


def _many() -> list[GameRecord]:
    return varied() + [
        played(size, 1000 + k, pie=k % 2 == 0) for size in (2, 3, 4, 5, 6, 7, 8, 9, 11, 13) for k in range(12)
    ]


def test_known_turns_give_the_engines_entry() -> None:
    """Every legal record (setups, openings, passes, steals, any case, every board size):
    the same entry from the notation as from the engine."""
    legal = _legal(_many())
    assert len(legal) > 150
    steals = passes = 0
    for record in legal:
        line = _line(record)
        assert line_entry(line, True) == line_entry(line), record.game_id
        steals += any(">" in t.turn for t in record.turns)
        passes += any(t.turn == "pass" for t in record.turns)
    assert steals > 50 and passes > 5  # the replay's two harder cases are covered


def test_known_turns_that_are_not_turns_go_to_the_engine() -> None:
    """Told wrongly that a line's turns are the engine's: a text that is no turn is found
    out (the engine's replay says where); a legal-looking but illegal turn is not (that is
    what a digest of the referee's own line rules out)."""
    illegal = [r for r in _many() if r not in _legal([r])]
    assert len(illegal) >= 6
    unreadable = [r for r in illegal if any(t.turn == "not a turn" for t in r.turns)]
    assert unreadable
    for record in unreadable:
        line = _line(record)
        assert line_entry(line, True) == line_entry(line)
        assert "not a turn" in json.loads(line_entry(line, True)[1])["err"]


def test_a_position_from_masks_is_the_position_from_stones() -> None:
    rng = random.Random(5)
    for size in (2, 3, 5, 7, 13):
        pos = Position.new(size)
        for _ in range(rng.randrange(40)):
            if pos.is_over:
                break
            pos = pos.play(pos.random_turn(rng))
            black, white = pos.stone_masks
            made = Position.from_masks(size, black, white, pos.to_move)
            named = Position.from_stones(size, pos.stones(Color.BLACK), pos.stones(Color.WHITE), pos.to_move)
            for c in Color:
                assert made.group_sizes(c) == named.group_sizes(c) == pos.group_sizes(c)
                assert made.groups(c) == named.groups(c)
            assert made.stone_masks == (black, white) and made.to_move is pos.to_move
            assert made.score() == pos.score() and made.is_over == pos.is_over
    board = geometry(3).board
    with pytest.raises(ValueError, match="holds both"):
        Position.from_masks(3, 1, 1)
    with pytest.raises(ValueError, match="off the board"):
        Position.from_masks(3, 0, ~board & (board << 1))
    with pytest.raises(ValueError, match="off the board"):
        Position.from_masks(3, -1, 0)


def test_vouched_digests_are_taken_once_and_the_oldest_forgotten() -> None:
    vouched = Vouched(since=100, limit=3)
    vouched.add(["a", "b", "c", "d"])  # past the limit: "a" forgotten
    assert len(vouched) == 3
    assert not vouched.take("a") and vouched.take("b") and not vouched.take("b")
    assert vouched.taken == 1
    assert vouched.awaited(100, "x") and not vouched.awaited(99, "x") and not vouched.awaited(100, "c")


def _results(tmp_path: Path, records: list[GameRecord]) -> tuple[Path, list[bytes]]:
    path = tmp_path / "results.jsonl"
    lines = [_line(r) for r in records]
    path.write_bytes(b"".join(lines))
    return path, lines


def _entries(path: Path, vouched: Vouched | None = None) -> list[str]:
    with ReplayWindow(path, vouched=vouched) as window:
        window.update()
        return list(window.entries(window.kept()))


def _illegal_turn(record: GameRecord, at: int) -> GameRecord:
    """``record`` with its turn ``at`` replaced by a legal-looking one the engine refuses
    there (the placement of turn 0: its point is taken)."""
    turns = list(record.turns)
    turns[at] = replace(turns[at], turn=turns[0].turn)
    return replace(record, turns=turns)


def test_a_window_replays_the_vouched_lines_without_the_engine(tmp_path: Path) -> None:
    """The same page entries; one changed line (an illegal turn in place of a legal one,
    after its digest was sent) is replayed by the engine, and its error shown."""
    records = [played(7, 300 + k) for k in range(6)]
    path, lines = _results(tmp_path, records)
    engine = _entries(path)
    vouched = Vouched(since=0)
    vouched.add(line_digest(line) for line in lines)
    assert _entries(path, vouched) == engine
    assert vouched.taken == 6 and len(vouched) == 0
    # A line changed after its digest was sent: the engine replays it.
    vouched.add(line_digest(line) for line in lines)
    changed = _illegal_turn(records[2], 10)
    path.write_bytes(b"".join([*lines[:2], _line(changed), *lines[3:]]))
    entries = _entries(path, vouched)
    assert vouched.taken == 6 + 5
    assert "err" in json.loads(entries[2]) and "turn 11" in json.loads(entries[2])["err"]
    assert entries[:2] + entries[3:] == engine[:2] + engine[3:]
    # Vouched for (as if the referee had played it), the same line's replay trusts it.
    trusting = Vouched(since=0)
    trusting.add([line_digest(_line(changed))])
    assert "err" not in json.loads(_entries(path, trusting)[2])


def test_a_look_waits_for_the_digest_of_a_line_of_the_run(tmp_path: Path) -> None:
    """Lines before ``since`` are replayed at once (by the engine); from there, a look with
    time to spare stops at the first line whose digest has not come and reads it again at
    the next; a page (no wait) replays it with the engine."""
    records = [played(5, 400 + k) for k in range(5)]
    path, lines = _results(tmp_path, records)
    since = len(lines[0]) + len(lines[1])
    vouched = Vouched(since=since)
    vouched.add([line_digest(lines[2])])  # line 3's digest; not yet 4's and 5's
    window = ReplayWindow(path, keep=tmp_path / REPLAYS, vouched=vouched)
    with window:
        assert window.update(wait=True) == 3
        assert window.made == 3 and vouched.taken == 1
        assert window.read_to == since + len(lines[2])
        assert window.update(wait=True) == 0  # still waiting
        vouched.add([line_digest(lines[3])])
        assert window.update(wait=True) == 1 and vouched.taken == 2
        assert window.update() == 1 and window.made == 5  # a page: the engine, no wait
        assert vouched.taken == 2
        kept = list(window.entries(window.kept()))
    assert kept == _entries(path)
    assert len((tmp_path / REPLAYS).read_bytes().splitlines()) == 5  # one entry a line


def test_the_standings_process_trusts_only_the_lines_it_was_told_of(tmp_path: Path) -> None:
    """The real standings process, given games with their lines' digests: a line changed
    after its digest was sent is replayed by the engine (its error on the page's entry);
    an illegal line whose digest was sent (only the referee's engine could have sent it)
    is not checked again: the digest is the only thing trusted."""
    records = [played(7, 500 + k) for k in range(4)]
    folder = tmp_path / "out"
    folder.mkdir()
    lines = [_line(r) for r in records]
    changed = _line(_illegal_turn(records[1], 20))  # written over line 2 after its digest went
    trusted = _line(_illegal_turn(records[3], 30))
    digests = [line_digest(lines[0]), line_digest(lines[1]), line_digest(lines[2]), line_digest(trusted)]
    (folder / "results.jsonl").write_bytes(lines[0] + changed + lines[2] + trusted)
    summaries = ResultsFile(folder / "results.jsonl").summaries().records
    settings = {
        "folder": folder, "name": "t", "names": ["alpha", "beta"], "anchor": None,
        "anchor_rating": 0.0, "bootstrap": 0, "warning": None, "vouched_from": 0,
    }  # fmt: skip
    with standings_process() as proc:
        assert proc.stdin is not None
        proc.stdin.write(frame(("init", settings, [])) + frame(("games", SummaryLog(summaries), digests)))
        proc.stdin.write(frame(("files", 4, 4, 4, None)))
        proc.stdin.flush()
        assert _reply(proc)[0] == "wrote"  # type: ignore[index]
    cached = [json.loads(line.split(b"\t", 1)[1]) for line in (folder / REPLAYS).read_bytes().splitlines()]
    assert [e["id"] for e in cached] == [r.game_id for r in records]
    assert "err" in cached[1] and "turn 21" in cached[1]["err"]
    assert "err" not in cached[3]  # trusted: its digest came from "the referee"
    assert "err" not in cached[0] and "err" not in cached[2]
    assert json.dumps(cached[0]) == json.dumps(json.loads(line_entry(lines[0])[1]))


async def test_a_run_sends_the_digest_of_every_line_it_writes(tmp_path, marker, monkeypatch):  # type: ignore[no-untyped-def]
    """The runner sends its standings process the digest of each results line it wrote,
    with the line's game (every game of the run, none other); the run's page is the
    engine's."""
    sent: list[str] = []
    real = runner_module._frames

    def spy(games, message):  # type: ignore[no-untyped-def]
        sent.extend(digest for _, digest in games)
        return real(games, message)

    monkeypatch.setattr(runner_module, "_frames", spy)
    config = config_of(tmp_path, marker, 6)
    with trio.fail_after(120):
        result = await Tournament(config, out=io.StringIO(), standings_every=1).run()
    assert result.played == 6
    written = (config.output / "results.jsonl").read_bytes().splitlines(keepends=True)
    assert len(written) == 6
    assert sorted(sent) == sorted(line_digest(line) for line in written)
    cached = (config.output / REPLAYS).read_bytes().splitlines()
    for line, entry in zip(written, cached, strict=True):
        assert entry.split(b"\t", 1)[1].decode() == line_entry(line)[1]


async def test_a_runs_last_page_replays_its_own_lines_without_the_engine(tmp_path, marker):  # type: ignore[no-untyped-def]
    """The run's own last page (here the only one: no periodic standings) replays the lines
    it wrote from their notation, the page the same; a resumed run's earlier lines (before
    where it began to write) by the engine."""
    config = config_of(tmp_path, marker, 4)
    first = Tournament(config, out=io.StringIO(), standings_every=0)
    with trio.fail_after(120):
        result = await first.run()
    assert first.publisher.vouched is not None and first.publisher.vouched.taken == 4
    folder = config.output
    page = (folder / PAGE).read_text(encoding="utf-8")
    # The page of the engine's replays, as pages were made before they grew: the same.
    assert page == the_page_as_it_was(folder, result.standings, "t: standings", config.bot_names, (4, 4))
    # Two games lost: a resume plays them again, and replays them alone without the engine.
    (folder / REPLAYS).unlink()
    results = folder / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:2]))
    second = Tournament(config, out=io.StringIO(), standings_every=0)
    with trio.fail_after(120):
        result = await second.run()
    assert result.played == 2 and second.publisher.vouched is not None
    assert second.publisher.vouched.taken == 2 and second.publisher.vouched.since == len(b"".join(lines[:2]))
    page = (folder / PAGE).read_text(encoding="utf-8")
    assert page == the_page_as_it_was(folder, result.standings, "t: standings", config.bot_names, (4, 4))
