"""How late the referee itself was: a watch on the trio run that plays the games.

A bot's answer is stamped when the referee reads it, so any time the referee could not
look (its loop busy with other work, its process stopped with SIGSTOP or Ctrl-Z, starved
of CPU on a loaded machine, a Dask worker paused) would be charged to the bot, and at a
deadline would forfeit a bot that had answered. No stamp of the bot can be trusted, so
the referee measures itself instead: one task per trio run (:class:`LoopWatch`) wakes
every :data:`TICK` seconds and notes the time. While the loop runs freely, consecutive
ticks are about a tick apart; a gap longer than :data:`TICK` + :data:`SLACK` is a
*stall*: from the tick before it, the last moment the referee was known to be looking,
to the tick after it.

An answer found at the end of a stall may have arrived at any time during it, so the
referee gives the bot the benefit of the doubt: :meth:`LoopWatch.late` is the length of
the stall up to the find (from the later of the stall's start and the start of the bot's
window) and the bot is charged its window less that. The bot can gain at most the length
of the stall (it answered during it), never lose by it. Lateness of less than
:data:`TICK` + :data:`SLACK` is not seen; it is the ordinary wake-up latency of a busy
machine, which the time control's margin is there to absorb.

Under a test clock (trio's ``MockClock``) the watch does nothing: its sleeps would follow
the test clock, and stamps are real time.
"""

from __future__ import annotations

import math
import sys
import time

import trio

__all__ = ["SLACK", "TICK", "LoopWatch"]

TICK = 0.01
"""Seconds between the watch's ticks: cheap (a hundred wake-ups a second per referee
process, whatever the number of games) and fine enough for a margin of tenths of a second."""
SLACK = 0.01
"""How much later than :data:`TICK` a tick may come before the gap counts as a stall: the
scheduler's ordinary delays on a loaded machine stay below it."""
NOTICE = TICK + SLACK
"""The least lateness the watch sees; also the least a record keeps (``late``)."""

_WATCH: trio.lowlevel.RunVar[LoopWatch | None] = trio.lowlevel.RunVar("referee_loop_watch", default=None)


class LoopWatch:
    """The ticks of one trio run and the last stall they saw (see the module docstring).

    Bots :meth:`hold` it while they run (it ticks only then) and :meth:`release` it when
    they close; :meth:`current` gives the run's watch, starting it on first use."""

    def __init__(self) -> None:
        self.last_tick = time.perf_counter()
        self.stall_begin = -math.inf  # the last stall seen by a tick: its two ends
        self.stall_end = -math.inf
        self.stalls = 0  # stalls seen since the watch started
        self.worst = 0.0  # the longest of them, seconds
        self._holders = 0
        self._wanted = trio.Event()

    @classmethod
    def current(cls) -> LoopWatch | None:
        """The watch of the running trio run (started now if need be), or None under a
        test clock."""
        watch = _WATCH.get()
        if watch is None:
            testing = sys.modules.get("trio.testing")  # only a test can have made a MockClock
            if testing is not None and isinstance(trio.lowlevel.current_clock(), testing.MockClock):
                return None
            watch = cls()
            _WATCH.set(watch)
            # A system task: it lives exactly as long as the run, whichever games come and go.
            trio.lowlevel.spawn_system_task(watch._run, name="referee-loop-watch")
        return watch

    def hold(self) -> None:
        self._holders += 1
        if self._holders == 1:
            self.last_tick = time.perf_counter()  # idle time before is no stall
            self._wanted.set()

    def release(self) -> None:
        self._holders -= 1
        if self._holders == 0:
            self._wanted = trio.Event()

    async def _run(self) -> None:
        while True:
            if self._holders == 0:
                await self._wanted.wait()
                self.last_tick = time.perf_counter()
            await trio.sleep(TICK)
            now = time.perf_counter()
            gap = now - self.last_tick
            if gap > NOTICE:
                self.stall_begin, self.stall_end = self.last_tick, now
                self.stalls += 1
                self.worst = max(self.worst, gap)
            self.last_tick = now

    def late(self, found: float, start: float) -> float:
        """Seconds before ``found`` (a read that completed an answer) that the referee is
        known to have been unable to look, back to no earlier than ``start`` (the start of
        the bot's window); 0 when ``found`` was not at the end of a stall."""
        if found - self.last_tick > NOTICE:  # a stall going on that no tick has seen yet
            begin = self.last_tick
        elif found - self.stall_end <= NOTICE:  # just after a stall a tick saw
            begin = self.stall_begin
        else:
            return 0.0
        return max(0.0, found - max(begin, start))
