"""A run that plays more games at once in one referee process than its core can drive
with quick bots says so at its start and names the ``--processes`` that spreads them
(issue 23, item 4)."""

from __future__ import annotations

import dataclasses
import io
import os
import sys
from pathlib import Path

import runs
import trio

from referee.play.cpu import available_cpus
from referee.tournament.config.loading import load_config
from referee.tournament.config.values import ExecutorSpec
from referee.tournament.runner import Tournament, processes_note

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"


def cores() -> int:
    cpus = available_cpus()
    return len(cpus) if cpus else os.cpu_count() or 1


def config(tmp_path: Path, concurrency: int, processes: int = 1):  # type: ignore[no-untyped-def]
    bots = [{"name": f"b{i}", "command": [sys.executable, str(FAKEBOT), "--seed", str(i)]} for i in (1, 2)]
    path = runs.write_config(
        tmp_path,
        bots,
        out=f"c{concurrency}-p{processes}",
        name="t",
        schedule={"kind": "round_robin", "games_per_pair": 4},
        concurrency=concurrency,
    )
    c = load_config(path)
    return dataclasses.replace(c, executor=ExecutorSpec(processes=processes))


async def test_a_run_beyond_one_processs_games_names_the_processes_that_spread_them(tmp_path):
    out = io.StringIO()
    wide = config(tmp_path, 4)
    with trio.fail_after(120):
        await Tournament(wide, out=out, standings_every=0).run()
    notes = [line for line in out.getvalue().splitlines() if "--processes" in line]
    if cores() < 2:  # one core: another process would share it
        assert notes == []
        return
    assert notes == [processes_note(wide, cores())]
    assert "4 games at once in one referee process" in notes[0] and "--processes 2 " in notes[0]


def test_no_note_where_it_does_not_apply(tmp_path):
    assert processes_note(config(tmp_path, 2), 8) is None  # one core keeps up with 2 games
    assert processes_note(config(tmp_path, 8, processes=2), 8) is None  # already spread
    assert processes_note(config(tmp_path, 8), 1) is None  # nowhere to spread them
    assert "--processes 4 " in (processes_note(config(tmp_path, 8), 8) or "")
    assert "--processes 2 " in (processes_note(config(tmp_path, 8), 2) or "")
