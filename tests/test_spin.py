"""The look for a fast answer before waiting (``referee.play.spin``): its rules on a real
pipe, whose answer is there or not as the test decides. How an exchange reads what a look
found is tested with real bots in ``test_fast_exchange.py``."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Iterator

import pytest
import trio
from trio.testing import MockClock

from referee.play.spin import BUDGET, MAX_BACKOFF, BotSpin, RunSpin


@pytest.fixture
def stdout() -> Iterator[tuple[int, select.poll]]:
    """A pipe standing for a bot's stdout: its write end, and a poll of its read end."""
    read, write = os.pipe()
    poll = select.poll()
    poll.register(read, select.POLLIN)
    try:
        yield write, poll
    finally:
        os.close(read)
        os.close(write)


def _looks_expected(exchanges: int) -> int:
    """The looks made in ``exchanges`` exchanges none of which finds anything: after the n-th
    miss, the next min(2**(n-1), MAX_BACKOFF) exchanges make none."""
    looks, at, pause = 0, 0, 1
    while at < exchanges:
        looks += 1
        at += 1 + pause
        pause = min(2 * pause, MAX_BACKOFF)
    return looks


def test_a_look_that_finds_nothing_backs_off(stdout: tuple[int, select.poll]) -> None:
    write, poll = stdout
    run = RunSpin()
    spin = BotSpin(run)
    for _ in range(300):
        assert not spin.keep(poll, time.perf_counter())
    assert run.looks == _looks_expected(300) == 10 and run.found == run.kept == 0
    # An answer found ends the pause: the next exchange looks again.
    os.write(write, b"=1 g7\n\n")
    while not run.found:
        spin.keep(poll, time.perf_counter())
    looks = run.looks
    spin.keep(poll, time.perf_counter())
    assert run.looks == looks + 1 and run.found == 2


def test_an_answer_found_is_read_at_once_only_within_the_budget(stdout: tuple[int, select.poll]) -> None:
    write, poll = stdout
    run = RunSpin()
    spin = BotSpin(run)
    os.write(write, b"=1 g7\n\n")
    # No real wait yet in this run: the task must hand control back before reading.
    assert not spin.keep(poll, time.perf_counter())
    spin.waited()
    assert spin.keep(poll, time.perf_counter())
    assert spin.keep(poll, time.perf_counter())
    time.sleep(BUDGET * 2)  # no real wait for longer than the budget: hand control back
    assert not spin.keep(poll, time.perf_counter())
    assert (run.looks, run.found, run.kept) == (4, 4, 2)


def test_no_look_while_another_game_is_attached(stdout: tuple[int, select.poll]) -> None:
    write, poll = stdout
    os.write(write, b"=1 g7\n\n")
    run = RunSpin()
    spins = [BotSpin(run) for _ in range(3)]
    spins[0].waited()
    assert run.attached == 3
    assert not spins[0].keep(poll, time.perf_counter())
    assert run.looks == 0
    spins[2].detach()  # the other game's bot is gone: one game left
    assert spins[0].keep(poll, time.perf_counter())
    assert (run.attached, run.looks, run.kept) == (2, 1, 1)


def test_a_run_looks_only_with_two_cpus_and_its_own_clock() -> None:
    async def spin_of_run() -> tuple[RunSpin | None, RunSpin | None]:
        return RunSpin.current(), RunSpin.current()

    assert trio.run(spin_of_run, clock=MockClock()) == (None, None)
    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2:
        assert trio.run(spin_of_run) == (None, None)
        return
    first, again = trio.run(spin_of_run)
    assert first is not None and again is first  # one per run
    other, _ = trio.run(spin_of_run)
    assert other is not first
    os.sched_setaffinity(0, {min(cpus)})  # this thread, which runs trio
    try:
        assert trio.run(spin_of_run) == (None, None)
    finally:
        os.sched_setaffinity(0, cpus)
