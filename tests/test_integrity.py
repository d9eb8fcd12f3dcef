"""Results no bot can forge or lose (issue 21, items 4 and 5): a real hostile bot deletes,
truncates or appends to ``results.jsonl`` mid-run; records pasted from elsewhere; symlinks
planted in the output folder; ``--adopt`` across clocks; a 2 GiB torn tail."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import runs
import trio
from processes import wait_until_gone
from runs import FAST, ROOT

from referee.errors import ResultsError
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsChanged, ResultsFile

# A bot that plays randomly and, once the run has recorded two games, does one thing to the
# results file (as a bot running as the referee's user can).
HOSTILE = """
import os, sys
from pathlib import Path
from protocol.bot import run
from sample_bots.random_bot import RandomBot

results, what, once = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])

class Hostile(RandomBot):
    def choose_turn(self, position, time_left):
        if not once.exists() and results.exists() and results.read_bytes().count(b"\\n") >= 2:
            once.write_text("done")
            if what == "delete":
                results.unlink()
            elif what == "truncate":
                os.truncate(results, 10)
            elif what == "append":
                with open(results, "ab") as fh:
                    fh.write(b'{"forged": true}\\n')
        return super().choose_turn(position, time_left)

run(Hostile(seed=3))
"""


def config_with(tmp_path: Path, marker: str, hostile: list[str] | None = None, **overrides: object) -> Path:
    bots: list[dict[str, object]] = [
        {
            "name": f"b{i}",
            "command": [sys.executable, str(runs.FAKEBOT), "--seed", str(i)],
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
        for i in range(2)
    ]
    if hostile is not None:
        script = tmp_path / "hostile.py"
        script.write_text(HOSTILE)
        bots.append(
            {
                "name": "hostile",
                "command": [sys.executable, str(script), *hostile],
                "cwd": str(ROOT),
                "env": {"VASTUZ_TEST_MARKER": marker, "PYTHONPATH": str(ROOT)},
            }
        )
    settings = {
        **FAST,
        "schedule": {"kind": "round_robin", "games_per_pair": 4},
        "concurrency": 1,
        **overrides,
    }
    return runs.write_config(tmp_path, bots, name="t", **settings)


@pytest.mark.parametrize(
    ("what", "said"),
    [
        ("delete", "was deleted"),
        ("truncate", "was truncated"),
        ("append", "bytes that the run did not write"),
    ],
)
async def test_a_results_file_changed_under_the_run_stops_it_and_loses_nothing(
    tmp_path: Path, marker: str, what: str, said: str
) -> None:
    results = tmp_path / "out" / "results.jsonl"
    config = load_config(config_with(tmp_path, marker, [str(results), what, str(tmp_path / "once")]))
    with trio.fail_after(120), pytest.raises(ResultsChanged) as info:
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    message = str(info.value)
    assert said in message and "nothing is rated from a file it did not write" in message
    saved = [p for p in (tmp_path / "out").iterdir() if p.name.startswith("results.jsonl.saved-")]
    assert len(saved) == 1 and str(saved[0].name) in message
    kept = ResultsFile(saved[0]).load()
    # Every game the run finished is there, each once, whole, and nothing the bot wrote: the
    # two before the change and the one that found it (of a truncated file, the bytes the
    # bot cut are gone: what is left of them is not a whole line and is not kept).
    ids = [r.game_id for r in kept.records]
    assert len(ids) >= (1 if what == "truncate" else 3) and len(set(ids)) == len(ids)
    assert kept.skipped == [] and kept.torn == 0
    assert b"forged" not in saved[0].read_bytes()
    assert wait_until_gone(marker) == []


async def test_records_pasted_from_elsewhere_are_named_and_not_rated(tmp_path: Path, marker: str) -> None:
    config = load_config(config_with(tmp_path, marker))
    with trio.fail_after(60):
        first = await Tournament(config, out=io.StringIO(), standings_every=0).run()
    assert first.played == 4
    results = config.output / "results.jsonl"
    line = json.loads(results.read_text().splitlines()[0])
    pasted = []
    for change in (
        {"bots": "mcts"},  # a bot this tournament does not have
        {"slot": "r7-b0+b1-01"},  # a slot outside its schedule
        {"name": "another"},  # another tournament's record of one of its slots
    ):
        forged = json.loads(json.dumps(line))
        if "bots" in change:
            forged["bots"][0]["label"] = change["bots"]
        if "slot" in change:
            forged["tournament"]["slot"] = forged["game_id"] = change["slot"]
        if "name" in change:
            forged["tournament"]["name"] = change["name"]
            forged["tournament"]["slot"] = forged["game_id"] = "r2-b0+b1-01"
        pasted.append(json.dumps(forged))
    with open(results, "a") as fh:
        fh.write("\n".join(pasted) + "\n")
    report = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(config.output)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert "4 games rated" in report.stdout and "Traceback" not in report.stderr
    assert "3 record(s) are not this tournament's and are not rated" in report.stdout
    assert "r7-b0+b1-01" in report.stdout and "mcts" in report.stdout
    # A resume with more rounds plays r2's slots itself: the pasted one does not stand in.
    more = load_config(
        config_with(tmp_path, marker, schedule={"kind": "round_robin", "games_per_pair": 4, "rounds": 2})
    )
    out = io.StringIO()
    with trio.fail_after(60):
        again = await Tournament(more, out=out, standings_every=0).run()
    assert "3 record(s) are not this tournament's" in out.getvalue()
    assert again.resumed == 4 and again.played == 4
    assert wait_until_gone(marker) == []


def test_symlinks_in_the_output_folder_are_refused_not_followed(tmp_path: Path, marker: str) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n")
    for name in (".lock", "results.jsonl", "standings.md"):
        case = tmp_path / name.strip(".")
        case.mkdir()
        config = load_config(config_with(case, marker))
        config.output.mkdir()
        (config.output / name).symlink_to(outside)
        missing = case / "missing.jsonl"
        if name == "results.jsonl":  # a link to a path that does not exist: not created
            (config.output / name).unlink()
            (config.output / name).symlink_to(missing)
        with pytest.raises(ResultsError, match="is a symbolic link; the arena does not follow links"):
            trio.run(lambda c=config: Tournament(c, out=io.StringIO(), standings_every=0).run())
        assert outside.read_text() == "keep me\n" and not missing.exists(), name


async def test_a_symlinked_log_file_is_not_written_through(tmp_path: Path, marker: str) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n")
    config = load_config(config_with(tmp_path, marker))
    logs = config.output / "logs"
    logs.mkdir(parents=True)
    (logs / "r1-b0+b1-01-0-b0.stderr.log").symlink_to(outside)
    with trio.fail_after(60):
        result = await Tournament(config, out=io.StringIO(), standings_every=0).run()
    assert result.played == 4 and outside.read_text() == "keep me\n"
    first = ResultsFile(config.output / "results.jsonl").load().records[0]
    assert any("cannot be opened" in note for note in first.notes), first.notes


async def test_adopt_refuses_games_of_another_clock_or_board(tmp_path: Path, marker: str) -> None:
    config = load_config(config_with(tmp_path, marker))
    with trio.fail_after(60):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    (config.output / "tournament.json").unlink()
    slower = load_config(config_with(tmp_path, marker, time_control={"per_move": 2.0, "margin": 0.3}))
    with pytest.raises(
        ResultsError, match=r"4 game\(s\) were played on another board size or at another time"
    ):
        await Tournament(slower, out=io.StringIO(), adopt=True).run()
    bigger = load_config(config_with(tmp_path, marker, board_size=4))
    with pytest.raises(ResultsError, match="another board size"):
        await Tournament(bigger, out=io.StringIO(), adopt=True).run()
    assert not (config.output / "tournament.json").exists()
    with trio.fail_after(60):
        same = await Tournament(config, out=io.StringIO(), adopt=True).run()
    assert same.played == 0 and same.resumed == 4


async def test_a_huge_torn_tail_is_read_in_bounded_memory_and_named(tmp_path: Path, marker: str) -> None:
    config = load_config(config_with(tmp_path, marker))
    with trio.fail_after(60):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    results = config.output / "results.jsonl"
    size = results.stat().st_size
    with open(results, "r+b") as fh:  # 2 GiB without a newline, sparse: no disk, still read
        fh.seek(size + (2 << 30) - 1)
        fh.write(b"x")
    code = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'referee.cli', 'report', sys.argv[1]],"
        " capture_output=True, text=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(done.returncode)\n"
        "print(done.stdout)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(config.output)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    peak_kib, returncode, report = done.stdout.split("\n", 2)
    assert returncode == "0", done.stdout + done.stderr
    assert "4 games rated" in report and "2,147,483,648 bytes are a torn line" in report
    assert int(peak_kib) < 512 * 1024, f"peak memory {int(peak_kib) // 1024} MiB reading a 2 GiB line"
