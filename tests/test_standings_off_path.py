"""The run's standings off the games' path, and a page that grows (issue 23, items 1-2):
games finish while a slow standings page is being written; a finished run's page is the
page of its records as it always was; the replays are made once a game, reused when right
and made again when not; the ratings of a prefix kept as games arrive are the cold fit's."""

from __future__ import annotations

import dataclasses
import io
import random
import sys
from datetime import datetime
from pathlib import Path

import runs
import trio

from referee.play.records import GameRecord
from referee.ratings.elo import RunningCounts, compute_ratings
from referee.ratings.history import rating_history
from referee.ratings.model import GameResult
from referee.render.standings_html import RatingPoint, standings_page
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.folder import latest_records, load_standings
from referee.tournament.store.pages import PAGE, report_page
from referee.tournament.store.replays import MAX_REPLAYS, REPLAYS, ReplayWindow
from referee.tournament.store.results import ResultsFile

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def bots(marker: str, n: int = 2, *slow: str) -> list[dict[str, object]]:
    return [
        {
            "name": f"b{i}",
            "command": [sys.executable, str(FAKEBOT), "--seed", str(i), *slow],
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
        for i in range(1, n + 1)
    ]


def config_of(tmp_path: Path, marker: str, games: int, out: str = "out", *slow: str):  # type: ignore[no-untyped-def]
    path = runs.write_config(
        tmp_path,
        bots(marker, 2, *slow),
        out=out,
        name="t",
        opening="empty",
        time_control={"per_move": 2.0, "margin": 0.5},
        schedule={"kind": "round_robin", "games_per_pair": games},
        concurrency=1,
    )
    return load_config(path)


def the_page_as_it_was(folder: Path, st, title: str, names, progress) -> str:  # type: ignore[no-untyped-def]
    """The page as pages.py made it before it grew: every replayed record parsed whole and
    replayed now, over the latest record of each slot."""
    rf = ResultsFile(folder / "results.jsonl")
    summaries = latest_records(rf.summaries().records)
    records = latest_records(rf.last_records(MAX_REPLAYS))
    history = [RatingPoint(g, elo) for g, elo in rating_history(summaries, names)]
    return standings_page(st, records, title=title, history=history, progress=progress, running=False)


async def test_a_finished_runs_page_is_the_page_of_its_records_and_the_replays_are_made_once(
    tmp_path, marker
):
    config = config_of(tmp_path, marker, 6)
    with trio.fail_after(120):
        result = await Tournament(config, out=io.StringIO(), standings_every=2).run()
    assert result.played == 6
    folder = config.output
    page = (folder / PAGE).read_text(encoding="utf-8")
    assert page == the_page_as_it_was(folder, result.standings, "t: standings", config.bot_names, (6, 6))
    # Every game's replay is in the run's cache, tied to its record: a report makes none.
    st, title = load_standings(folder)
    with ReplayWindow(folder / "results.jsonl", cache=folder / REPLAYS) as window:
        window.update()
        assert window.made == 0 and len(window.kept()) == 6
    report = report_page(folder, st, title)
    # A wrong entry (a byte changed) is made again from its record, never shown as it is.
    cache = folder / REPLAYS
    lines = cache.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"id":"', b'"id":"X', 1)
    cache.write_bytes(b"".join(lines))
    with ReplayWindow(folder / "results.jsonl", cache=cache) as window:
        window.update()
        assert window.made == 1
    assert report_page(folder, st, title) == report
    cache.unlink()  # and without the cache, the same page from the results alone
    assert report_page(folder, st, title) == report
    assert report == the_page_as_it_was(folder, st, title, [line.name for line in st.lines], None)


async def test_a_window_holds_where_its_lines_are_not_their_records(tmp_path, marker):
    """The replays of a page are the latest lines' (of each slot), each made once, from
    one record read at a time; lines past the window are never parsed."""
    config = config_of(tmp_path, marker, 6)
    with trio.fail_after(120):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    results = config.output / "results.jsonl"
    with ReplayWindow(results, window=4) as window:
        assert window.update() == 4  # the last 4 of 6 lines
        assert window.made == 4 and all(not isinstance(x, GameRecord) for x in vars(window).values())
        kept = window.kept()
        expected = [r.slot for r in latest_records(ResultsFile(results).last_records(4))]
        assert [line.slot for line in kept] == expected
        assert len(list(window.entries(kept))) == 4
        assert window.update() == 0  # nothing new: nothing read again


def clone(record: GameRecord, slot) -> GameRecord:  # type: ignore[no-untyped-def]
    assert record.tournament is not None
    tournament = dataclasses.replace(
        record.tournament, slot=slot.slot, index=slot.index, round=slot.round, pair_key=slot.pair_key
    )
    return dataclasses.replace(record, game_id=slot.slot, tournament=tournament)


async def test_games_finish_while_a_slow_standings_page_is_written(tmp_path, marker):
    """The standings of a run that resumes 1,500 games must replay them all for its first
    page (seconds of engine work, no mock): games go on finishing while it is written."""
    slow = ("--fault", "slow", "--delay", "0.02")  # games of about a third of a second
    small = config_of(tmp_path, marker, 2, "small", *slow)
    with trio.fail_after(120):
        await Tournament(small, out=io.StringIO(), standings_every=0).run()
    seeds = {r.labels: r for r in ResultsFile(small.output / "results.jsonl").load().records}
    big = config_of(tmp_path, marker, 1520, "out", *slow)
    schedule = runs.build_schedule(big)
    big.output.mkdir()
    rf = ResultsFile(big.output / "results.jsonl")
    with rf.appender() as appender:
        for game in schedule[:1500]:
            appender.append(clone(seeds[(game.first, game.second)], game))
    run = Tournament(big, out=io.StringIO(), standings_every=10, adopt=True)
    with trio.fail_after(600):
        result = await run.run()
    assert result.resumed == 1500 and result.played == 20
    new = rf.load().records[1500:]
    ended = [datetime.fromisoformat(r.ended_at).timestamp() for r in new]
    writes = run.publisher.writes
    assert writes, "no page was written while the run went on"
    start, end, covered = writes[0]
    during = [t for t in ended if start < t < end]
    # Games were recorded while the first page was being written, and it covered only the
    # games recorded before it started: nobody waited for it.
    assert during, (writes, ended)
    assert covered < 1520
    assert (big.output / PAGE).read_text(encoding="utf-8") == the_page_as_it_was(
        big.output, result.standings, "t: standings", big.bot_names, (1520, 1520)
    )


def test_running_counts_are_the_cold_fit_of_every_prefix() -> None:
    """RunningCounts.ratings after each game is compute_ratings of the games so far, to
    the last bit: opening pairs, lone games, keys of one and of three games, bots that
    arrive late, draws, a bot that wins everything."""
    rng = random.Random(23)
    names = ["p", "q", "r", "s", "t"]
    for trial in range(25):
        field = names[: rng.randrange(2, 6)]
        counts = RunningCounts()
        games: list[GameResult] = []
        for _ in range(rng.randrange(1, 60)):
            a, b = rng.sample(field, 2)
            key = None if rng.random() < 0.3 else f"k{rng.randrange(20)}"
            score = 1.0 if trial % 5 == 0 and a == field[0] else rng.choice([0.0, 0.5, 1.0])
            game = GameResult(a, b, score, key)
            games.append(game)
            counts.add(game)
            bots = [n for n in field if n in counts.seen]
            anchor = bots[0] if trial % 2 else None
            for intervals in (0, 1000):
                cold = compute_ratings(games, bots, anchor=anchor, anchor_rating=7.0, bootstrap=intervals)
                warm = counts.ratings(bots, anchor=anchor, anchor_rating=7.0, bootstrap=intervals)
                assert repr(warm) == repr(cold)
        assert repr(counts.ratings()) == repr(compute_ratings(games))
