"""``vastuz export`` on a real run: a round robin of real bot processes on the short board,
with colour-reversed pairs, forfeits (a bot that crashes), void games (a bot whose program
cannot be executed) and a run stopped by them (the run gives up after three start failures
in a row). Every exported game is checked against its record: PGN tags through python-chess's
PGN reader (and through Ordo, built from its source when one is given), SGF by reading each
file back and replaying it, the BayesElo script's results, the CSV's rows."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import chess.pgn
import pytest
import yaml

from referee.cli.main import main
from referee.engine import Position
from referee.errors import ResultsError
from referee.play.records import GameRecord, Outcome
from referee.render.sgf import game_sgf, parse_sgf
from referee.tools.export import load_games, write_sgf
from referee.tools.show import load_game
from referee.tournament.store.folder import latest_records
from referee.tournament.store.results import ResultsFile

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def _bot(name: str, *args: str) -> dict[str, object]:
    return {"name": name, "command": [sys.executable, str(FAKEBOT), *args], "cwd": str(ROOT)}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output folder of a real run that stopped part-way (exit 1)."""
    tmp = tmp_path_factory.mktemp("export")
    broken = tmp / "broken-bot"
    broken.write_text("#!/nonexistent/interpreter\n")  # passes the up-front check, cannot run
    broken.chmod(0o755)
    config = {
        "name": "export-test",
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "schedule": {"kind": "round_robin", "games_per_pair": 4},
        "output": str(tmp / "out"),
        "concurrency": 1,
        "bots": [
            # In this order the schedule starts a+c, v+b, a+b, v+c: v's third failure stops it.
            _bot("a", "--seed", "1"),
            {"name": "v", "command": str(broken)},
            _bot("b", "--seed", "2"),
            _bot("c", "--seed", "3", "--fault", "crash", "--after", "4"),
        ],
    }
    path = tmp / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(path), "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr  # stopped: v could not start three times in a row
    return tmp / "out"


def _records(folder: Path) -> list[GameRecord]:
    return latest_records(ResultsFile(folder / "results.jsonl").load().records)


def test_the_run_has_pairs_forfeits_void_games_and_scored_games(run: Path) -> None:
    records = _records(run)
    kinds = Counter(r.termination.value for r in records)
    assert kinds["void"] >= 1 and kinds["crash"] >= 1 and kinds["score"] >= 1, kinds
    assert max(Counter(r.pair_key for r in records).values()) == 2


def test_pgn_tags_and_results_equal_the_records(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run.parent / "games.pgn"
    assert main(["export", str(run), "--format", "pgn", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    records = _records(run)
    void = [r for r in records if r.is_void]
    assert f"{len(void)} void game(s) left out: " + ", ".join(r.game_id for r in void) in err
    text = out.read_text(encoding="utf-8")
    assert text.startswith("; Vastuz games exported by vastuz export. White is the bot that moved first")
    by_id = {r.game_id: r for r in records}
    handle = io.StringIO(text)
    headers = []
    while (h := chess.pgn.read_headers(handle)) is not None:
        headers.append(h)
    assert len(headers) == len(records) - len(void)
    rounds: dict[str, list[str]] = {}
    for h in headers:
        r = by_id[h["GameId"]]
        assert not r.is_void
        assert h["Event"] == "export-test"
        assert h["White"] == r.bots[r.black].label and h["Black"] == r.bots[r.white].label  # type: ignore[index]
        expected = {Outcome.BLACK_WINS: "1-0", Outcome.WHITE_WINS: "0-1", Outcome.DRAW: "1/2-1/2"}
        assert h["Result"] == expected[r.outcome]
        assert h["Termination"] == r.termination.value
        assert h["BoardSize"] == "3" and h["TimeControl"] == "1/1"
        assert h["Score"] == ("?" if r.score is None else f"{r.score[0]:g}-{r.score[1]:g}")
        assert h["Date"] == r.started_at[:10].replace("-", ".")
        assert h["PlyCount"] == str(len(r.turns))  # counted when read: the export keeps no turns
        pair, game = h["Round"].split(".")
        rounds.setdefault(pair, []).append(r.pair_key or "")
        assert game in ("1", "2")
    # The games of one round number are the colour-reversed games of one opening pair.
    assert all(len(set(keys)) == 1 for keys in rounds.values())
    pair_sizes = Counter(r.pair_key for r in records if not r.is_void)
    assert sorted(len(v) for v in rounds.values()) == sorted(pair_sizes.values())


def test_bayeselo_script_results_equal_the_records(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(run), "--format", "bayeselo"]) == 0
    lines = capsys.readouterr().out.splitlines()
    players = [line.removeprefix("addplayer ") for line in lines if line.startswith("addplayer ")]
    assert players == ["a", "v", "b", "c"]
    results = [line.split()[1:] for line in lines if line.startswith("addresult ")]
    played = [r for r in _records(run) if not r.is_void]
    got = Counter((players[int(w)], players[int(b)], int(code)) for w, b, code in results)
    code = {Outcome.BLACK_WINS: 2, Outcome.DRAW: 1, Outcome.WHITE_WINS: 0}
    want = Counter((r.bots[r.black].label, r.bots[r.white].label, code[r.outcome]) for r in played)  # type: ignore[index]
    assert got == want
    assert lines[-6:] == ["elo", "mm", "exactdist", "ratings", "x", "x"]


def test_csv_has_a_row_per_record(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(run), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    records = {r.game_id: r for r in _records(run)}
    assert sorted(row["game_id"] for row in rows) == sorted(records)
    for row in rows:
        r = records[row["game_id"]]
        assert (row["first"], row["second"]) == r.labels
        assert row["result"] == r.result and row["termination"] == r.termination.value
        assert int(row["turns"]) == len(r.turns)
        assert row["black"] == ("" if r.black is None else r.bots[r.black].label)


def test_sgf_round_trip_on_every_game(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(run), "--format", "sgf"]) == 0
    assert "void game(s) left out" in capsys.readouterr().err
    played = [r for r in _records(run) if not r.is_void]
    files = sorted((run / "sgf").glob("*.sgf"))
    assert sorted(p.stem for p in files) == sorted(r.game_id for r in played)
    for record in played:
        text = (run / "sgf" / f"{record.game_id}.sgf").read_text(encoding="utf-8")
        assert text.startswith("(;FF[4]CA[UTF-8]AP[vastuz]GM[Vastuz]GN[") and f"SZ[{record.size}]" in text
        back = parse_sgf(text)
        assert back.labels == record.labels
        assert (back.black, back.white) == (record.black, record.white)
        assert back.setup == record.setup
        assert back.choice == record.choice
        assert back.turns == record.turns
        assert (back.result, back.outcome, back.winner, back.termination) == (
            record.result,
            record.outcome,
            record.winner,
            record.termination,
        )
        assert back.score == record.score and back.reason == record.reason
        # The file replays like the record: same final position.
        shown = load_game(run / "sgf" / f"{record.game_id}.sgf").record
        assert _replay(shown) == _replay(record)


def test_an_export_keeps_no_turns_and_sgf_reads_them_again(run: Path, tmp_path: Path) -> None:
    """The records an export holds have no turns (their count kept); SGF reads the file a
    second time for them, in step with the first reading past a damaged line, and refuses
    a file that changed between the two readings rather than write another game's turns."""
    folder = tmp_path / "copy"
    shutil.copytree(run, folder)
    results = folder / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    results.write_text("".join(lines[:2]) + "not a record\n" + "".join(lines[2:]), encoding="utf-8")
    games = load_games(folder)
    whole = _records(folder)
    assert [r.game_id for r in games.records] == [r.game_id for r in whole]
    assert all(r.turns == [] for r in games.records) and games.plies == [len(r.turns) for r in whole]
    written = write_sgf(games, tmp_path / "sgf")
    played = [r for r in whole if not r.is_void]
    assert sorted(p.stem for p in written) == sorted(r.game_id for r in played)
    for record in played:
        text = (tmp_path / "sgf" / f"{record.game_id}.sgf").read_text(encoding="utf-8")
        assert parse_sgf(text).turns == record.turns
    games = load_games(folder)
    results.write_text("".join(reversed(lines)), encoding="utf-8")  # another order: other games' turns
    with pytest.raises(ResultsError, match="changed while it was exported"):
        write_sgf(games, tmp_path / "sgf-2")


def test_sgf_keeps_the_referees_lateness(run: Path) -> None:
    """How late the referee looked (a stalled machine) is part of a turn, the setup and the
    choice: the round trip keeps it, and leaves it out where the record has none."""
    import dataclasses

    record = next(r for r in _records(run) if r.setup is not None and r.choice is not None and r.turns)
    late = dataclasses.replace(
        record,
        setup=dataclasses.replace(record.setup, late=0.125),
        choice=dataclasses.replace(record.choice, late=0.5),
        turns=[
            dataclasses.replace(t, late=0.031 * (k + 1)) if k % 2 else t for k, t in enumerate(record.turns)
        ],
    )
    back = parse_sgf(game_sgf(late))
    assert back.setup == late.setup and back.choice == late.choice and back.turns == late.turns
    assert [t.late for t in back.turns][:4] == [None, 0.062, None, 0.124][: len(back.turns)]
    on_time = parse_sgf(
        game_sgf(dataclasses.replace(late, setup=record.setup, choice=record.choice, turns=record.turns))
    )
    assert "LATE" not in game_sgf(record) or any(t.late for t in record.turns)
    assert on_time.turns == record.turns


def _replay(record: GameRecord) -> Position:
    pos = Position.new(record.size)
    if record.setup is not None:
        pos = pos.setup(record.setup.black, record.setup.white)
    for turn in record.turns:
        pos = pos.play(turn.turn)
    return pos


def test_show_replays_an_exported_sgf(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(run), "--format", "sgf", "--out", str(run.parent / "sgf")]) == 0
    capsys.readouterr()
    record = next(r for r in _records(run) if r.score is not None)
    assert main(["show", str(run.parent / "sgf" / f"{record.game_id}.sgf")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"game {record.game_id}: size 3, opening pie, time 1 s per move (margin 0.5 s)")
    assert f"result: {record.result} (score)" in out


def test_sgf_escapes_survive_and_bad_sgf_is_an_error(run: Path, tmp_path: Path) -> None:
    record = next(r for r in _records(run) if not r.is_void)
    record.reason = "odd ] text \\ with [brackets]"
    assert parse_sgf(game_sgf(record)).reason == record.reason
    for text, why in [
        ("(;FF[4]GM[1]SZ[19])", "not a Vastuz game"),
        ("(;FF[4]GM[Vastuz]SZ[3]", "not a complete SGF game tree"),
        ("(;FF[4]GM[Vastuz]SZ[3](;B[a1])(;B[b1]))", "a variation"),
        ("hello", "unexpected"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_sgf(text)
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;FF[4]GM[1]SZ[19])")
    assert main(["show", str(bad)]) == 2


def test_export_of_a_folder_without_results_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(tmp_path / "nothing"), "--format", "pgn"]) == 2
    assert "no such folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["export", str(tmp_path), "--format", "xml"])
    assert exc.value.code == 2


def test_what_cannot_be_written_exits_1_what_cannot_be_read_2(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input (a folder or record that is not one) is exit 2; output that cannot be
    written once the input was read (no such folder to write in, a full disk) is exit 1."""
    nowhere = tmp_path / "no-such-folder"
    assert main(["export", str(run), "--format", "pgn", "--out", str(nowhere / "games.pgn")]) == 1
    assert "games.pgn" in capsys.readouterr().err
    results = run / "results.jsonl"
    assert main(["show", str(results), "--svg", str(nowhere / "board.svg")]) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "board.svg" in err
    assert main(["show", str(results), "--html", str(nowhere / "games.html")]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert main(["show", str(results), "--svg", str(tmp_path / "board.svg")]) == 0
    assert (tmp_path / "board.svg").read_text().startswith("<svg")
    assert main(["report", str(nowhere)]) == 2


def _ordo_source() -> Path | None:
    """Ordo's source folder (github.com/michiguel/Ordo: never part of this project), from
    ``ORDO_SOURCE``; None when it is not given or not there."""
    given = os.environ.get("ORDO_SOURCE")
    return Path(given) if given and (Path(given) / "pgnget.c").is_file() else None


def test_ordo_reads_the_pgn(run: Path, tmp_path: Path) -> None:
    source = _ordo_source()
    if source is None:
        pytest.skip("no Ordo source on this machine (set ORDO_SOURCE to a checkout of michiguel/Ordo)")
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("no make or C compiler to build Ordo")
    build = tmp_path / "ordo"
    shutil.copytree(source, build, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["make"], cwd=build, check=True, capture_output=True, timeout=600)
    pgn = tmp_path / "games.pgn"
    assert main(["export", str(run), "--format", "pgn", "--out", str(pgn)]) == 0
    table = tmp_path / "ratings.csv"
    subprocess.run(
        [str(build / "ordo"), "-q", "-p", str(pgn), "-c", str(table), "-G"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    rows = list(csv.reader(table.read_text().splitlines()))
    played = [r for r in _records(run) if not r.is_void]
    games = Counter(label for r in played for label in r.labels)
    header = [h.strip().strip('"') for h in rows[0]]
    at_name, at_games, at_points = header.index("PLAYER"), header.index("PLAYED"), header.index("POINTS")
    counted = {row[at_name]: int(row[at_games]) for row in rows[1:] if row}
    assert counted == dict(games)
    points: Counter[str] = Counter()
    for r in played:
        for seat in (0, 1):
            points[r.labels[seat]] += 0.5 if r.winner is None else float(r.winner == seat)
    assert {row[at_name]: float(row[at_points]) for row in rows[1:] if row} == dict(points)
