"""Several games' turns driven from one task, without a trip through trio per turn.

Each game runs in a task of its own, and waiting for a bot's answer parks that task: trio
sleeps, wakes, runs its loop and resumes the task through its coroutines. With one game the
look (:mod:`~referee.play.spin`) saves most of that; with several, each turn still hands
control from one game's task to another's through trio, which costs a bot that answers at
once more than the turn's own work. So while a trio run plays more than one game, the games'
usual turns are driven by one of their tasks, the *leader*: it waits for any of their bots
at once (an ``epoll`` of their stdouts, whose own descriptor is what it sleeps on in trio)
and, for each answer there, finishes that game's turn and starts its next one (the engine's
check, the records, the next write) as plain calls, then looks again before sleeping. The
other games' tasks stay parked until their game needs them.

A game leaves the driver, its task woken to go on as before, at anything but the usual
turn: the game's end, a fast exchange handed to the general path (a fault, a timeout, a
``?``, anything unexpected: :meth:`~referee.play.pipes.BotPipes.exchange`), a turn the fast
path does not take, a fault of the bot's turn (an illegal turn, a resignation), or the run
playing one game again. So every fault is judged by the same code as before, in the game's
own task. When the leader's own game leaves, it hands the lead to a parked game's task.

The rules of the look hold here too: without a real wait for :data:`~referee.play.spin.BUDGET`
the leader yields once, so the run's other tasks (timers, watches, drains, games starting,
Ctrl-C) run at least that often; the deadline timers and the exit and limit watches wake
the leader as they would wake a game's own wait; a cancelled task (its game's guard, a
shutdown) leaves the driver with its exchange abandoned, as a cancelled wait would, and a
cancelled leader hands the lead on first.
"""

from __future__ import annotations

import select
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import outcome
import trio

from referee.play.spin import BUDGET

if TYPE_CHECKING:
    from referee.play.pipes import Answered, BotPipes

__all__ = ["Driven", "RunDriver"]

_RUN: trio.lowlevel.RunVar[RunDriver | None] = trio.lowlevel.RunVar("referee_run_driver", default=None)

# Edge-triggered, registered once for the game's stay: a bot's answer is an edge (its pipe
# drained by each read that finds an answer incomplete), and no re-arming call per turn. An
# edge of a descriptor nobody waits on now is ignored; one that finds nothing is a read
# that finds nothing. The end of output that comes with the last bytes comes in the same
# edge (as a hang-up): it is read at once (see _step).
_WATCHED = select.EPOLLIN | select.EPOLLET
_HUNG_UP = select.EPOLLHUP  # reported with the edge when the bot's end of its stdout is closed
_LEAD = "lead"  # what a parked task is woken with when it is to lead


class Driven(Protocol):
    """A game as the driver sees it."""

    def drive_next(self) -> BotPipes | None:
        """Start the game's next turn: the pipes whose answers it waits for, or None when
        the game leaves the driver (its task then goes on by itself)."""

    def drive_answered(self, answered: Answered, go_on: bool) -> BotPipes | None:
        """The exchange in flight ended (``answered``, as
        :meth:`~referee.play.pipes.BotPipes.exchange_read` gave it): finish the turn and,
        with ``go_on``, start the next, as :meth:`drive_next`. May raise: the game's task
        raises it."""


class _Entry:
    """A game in the driver: its task, the pipes waited on, the descriptors it has in the
    epoll, how a timer or a watch wakes it, and how it left."""

    __slots__ = ("error", "fd", "fds", "game", "pipes", "task", "wake")

    def __init__(self, game: Driven, task: trio.lowlevel.Task, wake: Callable[[_Entry], None]) -> None:
        self.game = game
        self.task = task
        self.pipes: BotPipes | None = None
        self.fd = -1  # the stdout of pipes
        self.fds: list[int] = []
        self.error: BaseException | None = None  # what the game's task is to raise on leaving
        self.wake = lambda: wake(self)  # made once: set as the pipes' on_wake at every turn


class RunDriver:
    """The driver of one trio run (:meth:`current`): the games in it, their stdouts in one
    ``epoll``, the leader and the parked tasks."""

    __slots__ = (
        "_by_fd",
        "_epoll",
        "_leader",
        "_parked",
        "_sleeping",
        "_woken",
        "ignored",
        "last_wait",
        "playing",
        "turns",
        "wakeups",
    )

    def __init__(self) -> None:
        # Made when a game first waits here, closed once no game plays (see end_play).
        self._epoll: select.epoll | None = None
        self._by_fd: dict[int, _Entry] = {}  # the stdout waited on, by descriptor
        self._parked: deque[_Entry] = deque()  # games whose task waits to be woken
        self._leader: _Entry | None = None
        self._woken: list[_Entry] = []  # games whose wait a timer or a watch woke
        self._sleeping = False  # the leader is in trio's wait on the epoll
        self.playing = 0  # games of this run between their first decision and their end
        self.last_wait = -float("inf")
        self.turns = 0  # turns the driver finished (for tests and benchmarks)
        self.wakeups = 0  # real waits of the leader
        self.ignored = 0  # edges of a stdout no exchange in the driver waited on

    @classmethod
    def current(cls) -> RunDriver:
        """The running trio run's, made on first use."""
        driver = _RUN.get()
        if driver is None:
            driver = cls()
            _RUN.set(driver)
        return driver

    @property
    def wanted(self) -> bool:
        """Whether a game's turns go through the driver: the run plays more than one game."""
        return self.playing > 1

    def begin_play(self) -> None:
        """A game of the run begins its turns (it may be driven from now on)."""
        self.playing += 1

    def end_play(self) -> None:
        """A game of the run is done with its turns (and with the driver). The epoll is
        closed once no game plays, so that a trio run leaves no descriptor behind."""
        self.playing -= 1
        epoll = self._epoll
        if self.playing == 0 and epoll is not None:
            trio.lowlevel.notify_closing(epoll.fileno())
            epoll.close()
            self._epoll = None

    # ------------------------------------------------------------------ a game's task
    async def drive(self, game: Driven) -> None:
        """Drive ``game``'s turns until it leaves the driver (see the module docstring);
        raises what its turn raised, if anything. Called by the game's own task."""
        entry = _Entry(game, trio.lowlevel.current_task(), self._wake)
        try:
            if self.wanted and self._start(entry, game.drive_next, ()):
                lead = self._leader is None
                if lead:
                    self._leader = entry
                else:
                    self._parked.append(entry)
                    lead = await trio.lowlevel.wait_task_rescheduled(lambda _: self._abort(entry)) is _LEAD
                if lead:
                    await self._lead(entry)
        finally:
            self._release(entry)
        error = entry.error
        if error is not None:
            entry.error = None
            raise error

    def _release(self, entry: _Entry) -> None:
        """The game's task goes on by itself: its descriptors out of the epoll."""
        epoll = self._epoll
        if epoll is None:  # never waited here: nothing registered
            return
        for fd in entry.fds:
            try:
                epoll.unregister(fd)
            except (OSError, ValueError):  # closed under us: gone from the epoll already
                pass
        entry.fds = []

    def _abort(self, entry: _Entry) -> trio.lowlevel.Abort:
        """A parked task is cancelled: its game leaves, its exchange abandoned."""
        self._parked.remove(entry)
        self._drop(entry)
        return trio.lowlevel.Abort.SUCCEEDED

    # ------------------------------------------------------------------ the leader
    async def _lead(self, mine: _Entry) -> None:
        """Drive every game in the driver until ``mine`` leaves it; then hand the lead on."""
        self._leader = mine
        epoll = self._epoll
        assert epoll is not None  # mine waits here
        clock = time.perf_counter
        try:
            while mine.pipes is not None:
                if clock() - self.last_wait >= BUDGET:  # the run's other tasks first
                    await trio.lowlevel.checkpoint()
                    self.last_wait = clock()
                ready = epoll.poll(0)  # edges: each is reported once, so read now
                woken = self._woken
                if not ready and not woken:
                    self._sleeping = True
                    try:
                        await trio.lowlevel.wait_readable(epoll.fileno())
                    except trio.ClosedResourceError:
                        pass  # a timer or a watch woke a wait (see wake)
                    finally:
                        self._sleeping = False
                    self.wakeups += 1
                    self.last_wait = clock()
                    continue
                if woken:
                    self._woken = []
                    for entry in woken:
                        if entry.pipes is not None:
                            self._step(entry, 0)
                by_fd = self._by_fd
                for fd, events in ready:
                    found = by_fd.get(fd)
                    if found is not None:
                        self._step(found, events & _HUNG_UP)
                    else:  # output of a bot nobody waits on now: its next request sees it
                        self.ignored += 1
        except BaseException:
            if mine.pipes is not None:
                self._drop(mine)
            raise
        finally:
            # The next parked game's task leads from here (games that come meanwhile park).
            self._leader = self._parked.popleft() if self._parked else None
            if self._leader is not None:
                trio.lowlevel.reschedule(self._leader.task, outcome.Value(_LEAD))
            else:
                self._woken = []

    def _step(self, entry: _Entry, hung_up: int) -> None:
        """Read a game's answers after a wake-up (``hung_up``: its bot's stdout has ended);
        on the end of its exchange, go on with its game (the next turn, or the game leaves)."""
        pipes = entry.pipes
        assert pipes is not None
        try:
            answered = pipes.exchange_read()
            if answered is None and hung_up:
                # The read stopped at the last bytes; the end after them is one more read
                # (no edge will come for it: it came with them).
                answered = pipes.exchange_read()
        except Exception as exc:  # our bug: the game's task raises it (and voids the game)
            self._drop(entry)
            self._leave(entry, exc)
            return
        if answered is None:  # not complete yet: the next edge brings the rest
            return
        self._unwatch(entry)
        self.turns += 1
        # self.wanted, read without a call (each turn)
        if not self._start(entry, entry.game.drive_answered, (answered, self.playing > 1)):
            self._leave(entry, None)

    def _leave(self, entry: _Entry, error: BaseException | None) -> None:
        """A game leaves: wake its task (the leader's own game ends the lead)."""
        if error is not None:
            entry.error = error
        if entry is not self._leader:
            self._parked.remove(entry)
            trio.lowlevel.reschedule(entry.task)

    def _start(self, entry: _Entry, start: Callable[..., BotPipes | None], args: tuple[object, ...]) -> bool:
        """Start a game's next exchange (``start(*args)``) and watch its stdout; False when
        the game leaves (what it raised kept for its task)."""
        try:
            pipes = start(*args)
        except Exception as exc:  # the game's task raises it (a bot's fault, or our bug)
            entry.error = exc
            pipes = None
        if pipes is None:
            entry.pipes = None
            return False
        entry.pipes = pipes
        pipes.on_wake = entry.wake
        fd = entry.fd = pipes.stdout_fd
        self._by_fd[fd] = entry
        if fd not in entry.fds:  # its first wait in this stay: in the epoll until it leaves
            epoll = self._epoll
            if epoll is None:
                epoll = self._epoll = select.epoll()
            epoll.register(fd, _WATCHED)
            entry.fds.append(fd)
        return True

    def _unwatch(self, entry: _Entry) -> None:
        pipes = entry.pipes
        if pipes is None:
            return
        pipes.on_wake = None
        if self._by_fd.get(entry.fd) is entry:
            del self._by_fd[entry.fd]
        entry.pipes = None

    def _drop(self, entry: _Entry) -> None:
        """A game's task was cancelled while its exchange was in flight."""
        pipes = entry.pipes
        self._unwatch(entry)
        if pipes is not None:
            pipes.exchange_abandon()

    def _wake(self, entry: _Entry) -> None:
        """A deadline timer or a watch woke a game's wait: the leader looks at it."""
        self._woken.append(entry)
        if self._sleeping and self._epoll is not None:
            trio.lowlevel.notify_closing(self._epoll.fileno())
