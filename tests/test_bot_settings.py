"""Settings cutechess and fastchess users expect (issue 25, item 1; issue 24 asks for the
timeouts): ``startup_timeout`` and ``command_timeout`` in the config, with real bots."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import pytest
import runs
import trio

from referee.errors import ConfigError, RunStopped
from referee.play.records import Termination
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_STARTUP_TIMEOUT
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def bot(name, *args, marker, warm_up: float = 0.0):
    """A fake bot; with ``warm_up`` it sleeps that long before it reads its first command."""
    words = [sys.executable, str(FAKEBOT), *args]
    command = ["sh", "-c", f"sleep {warm_up}; exec {shlex.join(words)}"] if warm_up else words
    return {"name": name, "command": command, "cwd": str(ROOT), "env": {"VASTUZ_TEST_MARKER": marker}}


def test_the_timeouts_default_as_before_and_a_set_command_timeout_is_fingerprinted(tmp_path):
    bots = [{"name": n, "command": [sys.executable, str(FAKEBOT)]} for n in "ab"]
    plain = load_config(runs.write_config(tmp_path, bots))
    assert (plain.startup_timeout, plain.command_timeout) == (
        DEFAULT_STARTUP_TIMEOUT,
        DEFAULT_COMMAND_TIMEOUT,
    )
    assert "command_timeout" not in plain.fingerprint()  # earlier folders still resume
    set_ = load_config(runs.write_config(tmp_path, bots, startup_timeout=30, command_timeout=2.5))
    assert (set_.startup_timeout, set_.command_timeout) == (30, 2.5)
    assert set_.fingerprint()["command_timeout"] == 2.5
    with pytest.raises(ConfigError, match="startup_timeout: expected a number > 0, got 0"):
        load_config(runs.write_config(tmp_path, bots, startup_timeout=0))


async def test_a_bot_that_warms_up_longer_than_startup_timeout_does_not_start(tmp_path, marker):
    bots = [
        bot("slow", "--seed", "1", marker=marker, warm_up=1.5),
        bot("quick", "--seed", "2", marker=marker),
    ]
    schedule = {"kind": "round_robin", "games_per_pair": 2}
    short = load_config(
        runs.write_config(tmp_path, bots, out="short", **runs.FAST, schedule=schedule, startup_timeout=0.3)
    )
    with trio.fail_after(60):
        try:
            await Tournament(short, out=io.StringIO(), start_failure_limit=2).run()
        except RunStopped:
            pass
    recs = ResultsFile(short.output / "results.jsonl").load().records
    assert recs and all(r.termination is not Termination.SCORE for r in recs)
    long = load_config(
        runs.write_config(tmp_path, bots, out="long", **runs.FAST, schedule=schedule, startup_timeout=10)
    )
    with trio.fail_after(60):
        result = await Tournament(long, out=io.StringIO()).run()
    recs = ResultsFile(long.output / "results.jsonl").load().records
    assert result.played == 2 and all(r.termination is Termination.SCORE for r in recs)
