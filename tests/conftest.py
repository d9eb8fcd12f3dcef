"""Shared fixtures for the referee tests: the fake bot's command, and a check that a bot's
process (and its whole process group) is gone and was reaped."""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from processes import processes_with

from referee.play.command import BotCommand

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"


def fakebot_argv(*args: str) -> tuple[str, ...]:
    return (sys.executable, str(FAKEBOT), *args)


@pytest.fixture
def fakebot() -> Callable[..., BotCommand]:
    """``fakebot("--fault", "hang", label="B")``: a :class:`BotCommand` for the fake bot."""

    def make(*args: str, label: str = "bot") -> BotCommand:
        return BotCommand(fakebot_argv(*args), label)

    return make


def _group_members(pgid: int) -> list[tuple[int, str]]:
    """(pid, state) of every process in group ``pgid``, read from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid:
            members.append((int(entry), fields[0]))
    return members


def check_gone(pid: int | None) -> None:
    assert pid is not None
    # The leader was waited for: no zombie of ours is left.
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    # SIGKILL is delivered at once but a grandchild dies when it is next scheduled, so
    # allow it a moment (a bound on a wait, not a timing assertion).
    deadline = time.monotonic() + 5
    while True:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        # Some sandboxes run a PID 1 that never reaps orphans, so a killed grandchild
        # lingers there as a zombie in the group; a zombie runs nothing.
        live = [(p, state) for p, state in _group_members(pid) if state != "Z"]
        if not live:
            return
        assert time.monotonic() < deadline, f"processes left in group {pid}: {live}"
        time.sleep(0.02)


@pytest.fixture
def assert_gone() -> Callable[[int | None], None]:
    """Assert that the process ``pid`` was reaped and its process group is empty."""
    return check_gone


@pytest.fixture
def marker():
    """A unique ``VASTUZ_TEST_MARKER`` value for a test's bots (see ``tests/processes.py``);
    any marked process still alive at the end is killed, even when the test fails."""
    m = uuid.uuid4().hex
    yield m
    for pid in processes_with(m):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
