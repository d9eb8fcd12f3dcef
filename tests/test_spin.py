"""The look for a fast answer before waiting (``referee.play.spin``): its rules on a real
pipe, whose answer is there or not as the test decides, and Ctrl-C in a run of bots that
answer at once (compiled C). How an exchange reads what a look found is tested with real
bots in ``test_fast_exchange.py``."""

from __future__ import annotations

import os
import random
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from processes import wait_until_gone
from runs import ROOT, reaped, recorded, vastuz, wait_for, write_config
from trio.testing import MockClock

from referee.engine import Position
from referee.play.records import Termination
from referee.play.spin import BUDGET, MAX_BACKOFF, SPIN, BotSpin, RunSpin
from referee.tournament.store.results import ResultsFile


@pytest.fixture
def stdout() -> Iterator[tuple[int, int, select.poll]]:
    """A pipe standing for a bot's stdout: its two ends, and a poll of its read end."""
    read, write = os.pipe()
    poll = select.poll()
    poll.register(read, select.POLLIN)
    try:
        yield read, write, poll
    finally:
        os.close(read)
        os.close(write)


def looks_expected(exchanges: int) -> int:
    """The looks made in ``exchanges`` exchanges that all miss: after the n-th miss, the next
    min(2**(n-1), MAX_BACKOFF) exchanges make none."""
    looks, at, pause = 0, 0, 1
    while at < exchanges:
        looks += 1
        at += 1 + pause
        pause = min(2 * pause, MAX_BACKOFF)
    return looks


def _exchange(spin: BotSpin, poll: select.poll, read: int | None = None) -> bool | None:
    """One exchange's looks, as BotPipes.exchange makes them: a look after the write and,
    when ``read`` is given, the answer read and a look for the next one, in the one window.
    Returns the last look (None: none was made, or the window ran out)."""
    if not spin.begin():
        return None
    until = time.perf_counter() + SPIN
    found = spin.look(poll, until)
    if found is not None and read is not None:
        os.read(read, 100)
        found = spin.look(poll, until)
    spin.end(found is None)
    return found


def test_looks_that_miss_pause(stdout: tuple[int, int, select.poll]) -> None:
    _, write, poll = stdout
    run = RunSpin()
    spin = BotSpin(run)
    for _ in range(300):
        assert _exchange(spin, poll) is None
    assert run.looks == run.missed == looks_expected(300) == 10 and run.kept == 0
    # An answer found ends the pause: the next exchange looks again.
    os.write(write, b"=1 g7\n\n")
    while _exchange(spin, poll) is None:
        pass
    looks = run.looks
    assert _exchange(spin, poll) is not None and run.looks == looks + 1


def test_a_bot_that_acknowledges_at_once_but_thinks_misses(stdout: tuple[int, int, select.poll]) -> None:
    # "=1" to play comes at once, the genmove's answer not within the window: a miss.
    read, write, poll = stdout
    run = RunSpin()
    spin = BotSpin(run)
    spin.waited()
    os.write(write, b"=1\n\n")
    assert _exchange(spin, poll, read) is None
    assert (run.looks, run.missed, run.kept) == (1, 1, 1)
    assert not spin.begin()  # the next exchange does not look
    assert spin.begin()


def test_an_answer_found_is_read_at_once_only_within_the_budget(stdout: tuple[int, int, select.poll]) -> None:
    _, write, poll = stdout
    run = RunSpin()
    spin = BotSpin(run)
    os.write(write, b"=1 g7\n\n")
    until = time.perf_counter() + 1.0
    # No real wait yet in this run: the task must hand control back before reading.
    assert spin.look(poll, until) is False
    spin.waited()
    assert spin.look(poll, until) is True
    assert spin.look(poll, until) is True
    time.sleep(BUDGET * 2)  # no real wait for longer than the budget: hand control back
    assert spin.look(poll, until) is False
    assert run.kept == 2


def test_no_look_while_another_game_is_attached(stdout: tuple[int, int, select.poll]) -> None:
    _, write, poll = stdout
    os.write(write, b"=1 g7\n\n")
    run = RunSpin()
    spins = [BotSpin(run) for _ in range(3)]
    spins[0].waited()
    assert run.attached == 3
    assert _exchange(spins[0], poll) is None and run.looks == 0
    spins[2].detach()  # the other game's bot is gone: one game left
    assert _exchange(spins[0], poll) is True
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


def _instant_bots(tmp_path: Path, marker: str) -> list[dict[str, object]]:
    """Two copies of benchmarks/replay_bot.c (compiled here), which answer at once with the
    turns of one legal size-5 game: the bots a look finds answers from."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    binary = tmp_path / "replay_bot"
    subprocess.run([cc, "-O2", "-o", str(binary), str(ROOT / "benchmarks" / "replay_bot.c")], check=True)
    rng = random.Random(5)
    position, turns = Position.new(5), []
    while not position.is_over:
        turn = position.random_turn(rng)
        turns.append(turn)
        position = position.play(turn)
    script = tmp_path / "game.txt"
    script.write_text("".join(f"{turn}\n" for turn in turns))
    return [
        {"name": name, "command": [str(binary), str(script)], "env": {"VASTUZ_TEST_MARKER": marker}}
        for name in ("a", "b")
    ]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_ctrl_c_stops_a_run_whose_answers_are_read_without_waiting(
    tmp_path: Path, marker: str, concurrency: int
) -> None:
    # Bots that answer at once: with one game at a time the referee keeps control from turn
    # to turn (the look), with three one task drives all their turns (referee/play/driver.py);
    # either way it must still see Ctrl-C, stop, and leave the results whole.
    path = write_config(
        tmp_path,
        _instant_bots(tmp_path, marker),
        board_size=5,
        opening="empty",
        concurrency=concurrency,
        schedule={"kind": "round_robin", "games_per_pair": 100_000},
    )
    output = tmp_path / "out"
    with reaped(vastuz("tournament", str(path), "--quiet")) as proc:
        wait_for(lambda: recorded(output) >= 20, "20 games", proc)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "run the same command to resume" in stdout
    assert wait_until_gone(marker) == []
    records = ResultsFile(output / "results.jsonl").load().records
    assert 20 <= len(records) < 100_000
    assert all(record.termination is Termination.SCORE for record in records)
