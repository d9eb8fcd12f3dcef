"""Running ``vastuz tournament`` the way a user does, as a process, for the tests of the
executors: a config written to a temporary folder, slow bots that keep games in flight,
and waits that end when a condition holds (a bound on the wait, never a timing check)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from processes import processes_with

from referee.play.records import GameRecord
from referee.tournament.config.values import TournamentConfig
from referee.tournament.slots import ScheduledGame
from referee.tournament.store.results import ResultsFile

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def build_schedule(config: TournamentConfig) -> list[ScheduledGame]:
    """Every game of a config's fixed schedule, in order."""
    return list(config.make_plan().games(set()))


def write_config(
    tmp_path: Path, bots: list[dict[str, object]], *, out: str = "out", name: str = "c", **overrides: object
) -> Path:
    """The one config writer of the tests: ``tmp_path/<out>.yaml`` playing into
    ``tmp_path/<out>``, small and fast by default (board 3, pie, a round robin of 4 games
    per pair); ``overrides`` replace top-level keys."""
    data: dict[str, object] = {
        "name": name,
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "schedule": {"kind": "round_robin", "games_per_pair": 4},
        "output": str(tmp_path / out),
        "bots": bots,
    }
    data.update(overrides)
    path = tmp_path / f"{out}.yaml" if out != "out" else tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


FAST = {"time_control": {"per_move": 0.5, "margin": 0.3}, "concurrency": 2}
"""The settings of the in-process tests: a shorter clock, two games at once."""


def fake_bot(name: str, *args: str, marker: str, **settings: object) -> dict[str, object]:
    """A config's entry for ``tests/fake_bots/fakebot.py ARGS`` named ``name``, marked for
    the ``marker`` fixture's clean-up, with any other bot keys in ``settings``."""
    return {
        "name": name,
        "command": [sys.executable, str(FAKEBOT), *args],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
        **settings,
    }


def slow_bots(marker: str, n: int = 3) -> list[dict[str, object]]:
    """Each genmove waits 40 ms: a game lasts about a second, so batches are in flight."""
    return [
        {
            "name": f"s{i}",
            "command": [sys.executable, str(FAKEBOT), "--seed", str(i), "--fault", "slow", "--delay", "0.04"],
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
        for i in range(n)
    ]


def vastuz(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def children_of(pid: int, marker: str) -> list[int]:
    """Marked (bot) processes whose parent is ``pid``."""
    found = []
    for child in processes_with(marker):
        try:
            with open(f"/proc/{child}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if parent == pid:
            found.append(child)
    return found


def wait_for(condition, what: str, proc: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def recorded(folder: Path) -> int:
    path = folder / "results.jsonl"
    return len(ResultsFile(path).load().records) if path.exists() else 0


@contextmanager
def reaped(proc: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """``proc``, killed and reaped if the test leaves while it still runs (a failed wait)."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def on_fsync(monkeypatch: Any, path: Path, before: Callable[[], None]) -> None:
    """Call ``before`` at each ``os.fsync`` of ``path`` (any descriptor open on it), then the
    real fsync, which ``before`` may stop by raising; every other fsync is left alone."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}") == str(path):
            before()
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def stopped_in_the_write(records: list[GameRecord], stop: float) -> bool:
    """Whether a bot's SIGSTOP of the referee (``stop`` seconds, the fakebot's
    ``stop-referee``, with instant bots) landed outside the bot's clock: before the
    referee stamped its write of the genmove (on a loaded machine the write wakes the bot,
    and the referee can be preempted before its stamp). The bot's clock then starts after
    the stop (fair: it is not charged), the referee's own time holds it, and no look is
    late by the stop (a look a few ms late, from the load, may be): such a try proves
    nothing about lateness, and a test plays it again."""
    late = any(t.late is not None and t.late >= stop / 2 for r in records for t in r.turns)
    charged = any(t.seconds is not None and t.seconds >= stop / 2 for r in records for t in r.turns)
    own = sum(
        (r.referee_overhead_us or 0.0) * sum(b.stats.requests for b in r.bots if b.stats) for r in records
    )
    return not late and not charged and own >= stop / 2 * 1e6
