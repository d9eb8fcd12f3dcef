"""Looking for a fast bot's answer before sleeping for it.

When a bot answers within microseconds, most of the referee's cost of a turn is not the
turn's work but the wait: trio parks the game task, sleeps in ``epoll_wait``, is woken, runs
its loop and resumes the task through its coroutines. Polling the bot's stdout for a few
microseconds first (a ``poll(2)`` of one descriptor, with no timeout) finds the usual answer
there without sleeping; and when the game is the only one this trio run plays, the task
goes on reading it without handing control back to trio at all, as a blocking program would.
Like an adaptive mutex, it gives up for a while when looking does not pay.

Three rules keep it harmless:

- **Only one game.** The task keeps control only while at most two bots (one game) are
  attached to the run: any other game's task may be waiting to run, and must not wait for
  this one's turns. With more, nobody spins (their usual turns are taken from one task
  instead: :mod:`~referee.play.driver`).
- **A budget.** Without a real wait for :data:`BUDGET`, the task yields once: the run's
  other tasks (the loop watch, the stderr drains, the exit watchers, the timers, Ctrl-C) run
  at least that often, far inside what the loop watch notices as the referee's own delay.
- **A backoff.** A look whose window (:data:`SPIN` from the write) ends before the
  exchange's answers are all read costs that much and is not repeated for the bot's next
  exchange; each further miss doubles the pause (to :data:`MAX_BACKOFF` exchanges) and a
  find ends it. A bot that thinks costs one look in that many exchanges, also one that
  acknowledges ``play`` at once and thinks over ``genmove``.

No look is made on a single CPU (the bot could not answer while the referee looks) or under
a test's clock (tests see the plain wait). The answer is stamped when it is read, as on the
plain path, so a bot's clock is charged the same either way, less the referee's wake-up.
"""

from __future__ import annotations

import os
import select
import time

import trio

__all__ = ["BUDGET", "MAX_BACKOFF", "SPIN", "BotSpin", "RunSpin"]

SPIN = 30e-6
"""Seconds a look lasts at most: past the answer times of a bot that answers at once (a
compiled bot's answer usually comes within it), and short of what a sleep and a wake-up
cost the referee, so that a look that finds nothing wastes little."""

BUDGET = 1e-3
"""Seconds a game task may keep control without a real wait (see the module docstring)."""

MAX_BACKOFF = 64
"""The longest pause, in exchanges, after looks that found nothing."""

_RUN: trio.lowlevel.RunVar[RunSpin | None] = trio.lowlevel.RunVar("referee_run_spin", default=None)


class RunSpin:
    """What the looks of one trio run share: how many bots are attached and when a task last
    really waited. :meth:`current` gives the run's (None where no look is ever made)."""

    __slots__ = ("attached", "kept", "last_wait", "looks", "missed")

    def __init__(self) -> None:
        self.attached = 0
        self.last_wait = -float("inf")
        self.looks = 0  # exchanges that looked
        self.missed = 0  # ... whose window ran out before their answers were read
        self.kept = 0  # looks after which the task read without handing control back

    @classmethod
    def current(cls) -> RunSpin | None:
        """The running trio run's, made on first use; None on a single CPU or under a test's
        clock (anything but trio's own)."""
        spin = _RUN.get()
        if spin is None:
            if type(trio.lowlevel.current_clock()).__name__ != "SystemClock" or _cpus() < 2:
                return None
            spin = cls()
            _RUN.set(spin)
        return spin


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


class BotSpin:
    """One bot's looks: attached to the run's :class:`RunSpin` while its pipes are, with its
    own backoff. An exchange that may look (:meth:`begin`) looks (:meth:`look`) after its
    write and again after each read that left its answers incomplete, all within one
    window of :data:`SPIN` from the write, and says at the end whether the window ran out
    first (:meth:`end`): a bot that acknowledges ``play`` at once but thinks over
    ``genmove`` misses like one that is slow to answer anything."""

    __slots__ = ("backoff", "run", "skip")

    def __init__(self, run: RunSpin) -> None:
        self.run = run
        self.skip = 0  # exchanges left to make without a look
        self.backoff = 0  # the last pause (0: the last look did not miss)
        run.attached += 1

    def detach(self) -> None:
        self.run.attached -= 1

    def begin(self) -> bool:
        """Whether this exchange looks: the run plays one game and the bot's looks are not
        paused."""
        if self.run.attached > 2:
            return False
        if self.skip:
            self.skip -= 1
            return False
        self.run.looks += 1
        return True

    def look(self, poll: select.poll, until: float) -> bool | None:
        """Look at stdout (``poll``, registered on it) until ``until`` (``time.perf_counter``):
        None when nothing came by then (wait as usual); True when something is there and
        the task may read it without waiting; False when it is there but the task must
        hand control back first (the budget: trio's wait then returns at once)."""
        clock = time.perf_counter
        while not poll.poll(0):
            if clock() >= until:
                return None
        run = self.run
        if clock() - run.last_wait >= BUDGET:
            return False
        run.kept += 1
        return True

    def end(self, missed: bool) -> None:
        """The exchange that looked is over: ``missed`` when its window ran out before its
        answers were all read (the next looks pause), else a find (they go on)."""
        if missed:
            self.run.missed += 1
            self.backoff = min(2 * self.backoff or 1, MAX_BACKOFF)
            self.skip = self.backoff
        else:
            self.backoff = 0

    def waited(self) -> None:
        """A real wait ended (the run's other tasks had their turn)."""
        self.run.last_wait = time.perf_counter()
