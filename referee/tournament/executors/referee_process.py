"""A referee process: plays the games the run sends it, with a pool of bots of its own.

One Python process referees only as many turns per second as one core allows (about
10,000-20,000 with instant bots); with ``executor: {processes: N}`` the run starts N of
these (``python -m referee.tournament.executors.referee_process``) and spreads its ``concurrency``
games over them, so fast bots use every core. Each keeps its bot processes for their next
game, as the in-process executor does, and plays every game with
:func:`~referee.tournament.executors.batch.play_scheduled`: a game is the same game wherever it runs.

The conversation, in frames (:mod:`referee.tournament.executors.frames`) on stdin and stdout:

* in: ``("settings", GameSettings, log_dir)`` first, then ``("play", ScheduledGame)`` for
  each game to start at once, and ``("stop",)`` (or the end of stdin: the run is gone) to
  abandon the games in progress, close every bot and exit;
* out: ``("ready", pid)`` once the pool exists, then ``("done", Played)`` per finished
  game, or ``("failed", slot, text)`` when playing it raised (a bug of ours: the run stops),
  and ``("alive",)`` every :data:`HEARTBEAT` seconds, so the run can tell a frozen process.

Signals: the terminal's Ctrl-C and hang-up are the run's to handle (it sends ``stop``), so
they are ignored here; SIGTERM is the run's second Ctrl-C: every bot's process group is
killed at once and the process exits.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from referee.tournament.executors.batch import GameSettings, play_scheduled
from referee.tournament.executors.frames import FrameReader, encode
from referee.tournament.executors.pool import BotPool
from referee.tournament.slots import ScheduledGame

HEARTBEAT = 1.0
"""Seconds between two ``("alive",)`` frames."""


async def serve(commands_fd: int, answers_fd: int) -> None:
    """Play what the run asks on ``commands_fd``, answering on ``answers_fd``."""
    reader = FrameReader(trio.lowlevel.FdStream(commands_fd))
    out = trio.lowlevel.FdStream(answers_fd)
    sending = trio.Lock()

    async def send(message: object) -> None:
        async with sending:
            try:
                await out.send_all(encode(message))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # the run is gone: the end of stdin follows, and the bots are closed

    first = await reader.read()
    if first is None:
        return
    assert isinstance(first, tuple) and first[0] == "settings", first
    settings: GameSettings = first[1]
    log_dir = Path(first[2])

    async def play(pool: BotPool, game: ScheduledGame, cpus: frozenset[int] | None) -> None:
        try:
            played = await play_scheduled(pool, settings, game, cpus)
        except Exception:
            await send(("failed", game.slot, traceback.format_exc()))
            return
        await send(("done", played))

    # The SIGTERM watcher outlives the pool's closing: the second Ctrl-C comes while the
    # first one's orderly shutdown is closing the bots.
    async with trio.open_nursery() as watcher:
        async with trio.open_nursery() as bots:
            pool = settings.pool(bots, log_dir)
            await watcher.start(_kill_on_sigterm, pool)
            try:
                async with trio.open_nursery() as games:
                    await send(("ready", os.getpid()))
                    games.start_soon(_heartbeat, send)
                    while True:
                        message = await reader.read()
                        if not isinstance(message, tuple) or message[0] != "play":  # "stop", or the end
                            break
                        games.start_soon(play, pool, message[1], message[2])
                    games.cancel_scope.cancel()  # abandon the games in progress
            finally:
                await pool.aclose()
        watcher.cancel_scope.cancel()


async def _heartbeat(send: Callable[[object], Awaitable[None]]) -> None:
    while True:
        await trio.sleep(HEARTBEAT)
        await send(("alive",))


async def _kill_on_sigterm(
    pool: BotPool, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    """SIGTERM: SIGKILL every bot's process group, then exit at once."""
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            pool.kill_all()
            os._exit(1)


def main() -> None:
    # The frames go on a copy of stdout; fd 1 becomes stderr, so that nothing printed here
    # (a warning, a library's print) can break a frame.
    answers = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    trio.run(serve, os.dup(0), answers)


if __name__ == "__main__":
    main()
