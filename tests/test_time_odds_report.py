"""A run with time odds says so wherever its ratings are shown (issue 25): at its own end,
in ``vastuz report`` of its folder, and ``standings.json`` says which bot played at which
control. Real bots, the report as a user runs it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import runs
import trio

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile
from referee.tournament.store.standings_process import Worker

ROOT = Path(__file__).resolve().parent.parent
NOTE = (
    "time odds: quick at 0.2 s per move (margin 0.5 s), the others at 1 s per move (margin 0.5 s): "
    "ratings not comparable with those of even games"
)


bot = runs.fake_bot


def report(folder: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(folder), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_run_and_its_report_say_time_odds_and_each_bots_clock(tmp_path, marker):
    bots = [
        bot("quick", "--seed", "1", marker=marker, time_control={"per_move": 0.2}),
        bot("even", "--seed", "2", marker=marker),
        bot("other", "--seed", "3", marker=marker),
    ]
    schedule = {"kind": "round_robin", "games_per_pair": 2}
    config = load_config(runs.write_config(tmp_path, bots, schedule=schedule, concurrency=2))
    out = io.StringIO()
    with trio.fail_after(120):
        await Tournament(config, out=out, standings_every=0).run()
    assert NOTE in (config.output / "standings.md").read_text()  # what the run's end prints
    standings = json.loads((config.output / "standings.json").read_text())
    clocks = {b["name"]: (b["time_control"], b["time_odds"]) for b in standings["bots"]}
    assert clocks == {
        "quick": ({"kind": "per_move", "per_move": 0.2, "margin": 0.5}, True),
        "even": ({"kind": "per_move", "per_move": 1.0, "margin": 0.5}, False),
        "other": ({"kind": "per_move", "per_move": 1.0, "margin": 0.5}, False),
    }
    assert any(w.startswith(NOTE) for w in standings["warnings"])
    # The periodic standings (their own process) say the same, from the folder's manifest.
    worker = Worker(
        {
            "folder": config.output,
            "name": config.name,
            "names": config.bot_names,
            "anchor": None,
            "anchor_rating": 0.0,
            "bootstrap": 0,
            "warning": "the runner's words",
        },
        ResultsFile(config.output / "results.jsonl").summaries().records,
    )
    periodic = worker.standings(6, None)
    assert (
        any(w.startswith(NOTE) for w in periodic.warnings) and "the runner's words" not in periodic.warnings
    )
    assert [s.key for s in periodic.sections] == ["time_controls"]
    # The report of the folder, from its files alone, says the same.
    text = report(config.output)
    assert NOTE in text and "Time controls (time odds: ratings not comparable" in text
    assert json.loads(report(config.output, "--format", "json"))["bots"] == standings["bots"]


async def test_even_games_have_no_note_and_no_clock_section(tmp_path, marker):
    bots = [bot("a", "--seed", "1", marker=marker), bot("b", "--seed", "2", marker=marker)]
    config = load_config(
        runs.write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2})
    )
    with trio.fail_after(120):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    text = report(config.output)
    assert "time odds" not in text and "Time controls" not in text
    assert "time_control" not in json.loads(report(config.output, "--format", "json"))["bots"][0]
