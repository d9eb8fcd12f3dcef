"""Games spread over several referee processes on this machine (``executor: {processes: N}``).

The referee is Python: one process referees at most one core's worth of turns (about
10,000-20,000 a second with instant bots), so at high concurrency fast bots wait for the
referee rather than for each other. This executor starts N
:mod:`~referee.tournament.executors.referee_process` children, keeps ``concurrency`` games in flight
across them (each new game to the process with the fewest), and records what they send
back; the run alone writes results, as with every executor.

Each child keeps its own bot processes for their next game, so a bot is started about once
per child rather than once per game; the logs go straight to the run's logs folder, and
each child's pool has an N-th of each bot's log allowance (``logs.max_per_bot``), so a
bot's logs together stay within it.

Failures: a child that dies (killed, out of memory) loses only its games in progress; a
new child takes its place and those games are played again, at most
:data:`MAX_LOST_RUNS` times each before the run stops (keeping its results). A child that
sends nothing for :data:`FROZEN_AFTER` seconds (it sends a heartbeat every
:data:`~referee.tournament.executors.referee_process.HEARTBEAT`) is frozen (stopped with
SIGSTOP, or hung): it is killed and its games are played again the same way. A child killed
outright cannot close its bots; the run is their child subreaper (see
:mod:`referee.play.containment`), so they become its children and it kills every one of
them, hung or not, with whatever they started. Stopping: the
first Ctrl-C makes every child abandon its games and close its bots; the second sends them
SIGTERM, on which each kills its bots' process groups at once.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import trio

import referee
from referee.errors import RunStopped
from referee.play import containment
from referee.play.cpu import CorePlan
from referee.tournament.executors.batch import GameSettings, Played
from referee.tournament.executors.frames import FrameReader, encode
from referee.tournament.executors.local import Deliver
from referee.tournament.slots import ScheduledGame

MAX_LOST_RUNS = 3
"""How often one game may be lost with its referee process before the run stops."""
START_TIMEOUT = 60.0
"""Seconds for a new referee process to import the project and say it is ready."""
FROZEN_AFTER = 30.0
"""Seconds without a frame (each child sends a heartbeat) after which a child is frozen."""
STOP_TIMEOUT = 30.0
"""Seconds for the referee processes to close their bots at the end of a run (then killed)."""


_NOTHING = object()


class _Lost(Exception):
    """The referee process playing a game exited before sending its result."""


@dataclasses.dataclass(eq=False)
class _Referee:
    """One child: its process, its frames, and the games it is playing."""

    name: str
    process: trio.Process
    reader: FrameReader
    waiting: dict[str, trio.Event] = dataclasses.field(default_factory=dict)
    results: dict[str, Played] = dataclasses.field(default_factory=dict)
    failures: dict[str, str] = dataclasses.field(default_factory=dict)
    alive: bool = True
    frozen: bool = False
    sending: trio.Lock = dataclasses.field(default_factory=trio.Lock)

    async def send(self, message: object) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        async with self.sending:
            await stdin.send_all(encode(message))


class ProcessExecutor:
    """``concurrency`` games at once over ``processes`` referee processes on this machine."""

    batch_size = 1

    def __init__(
        self,
        settings: GameSettings,
        log_dir: Path,
        concurrency: int,
        processes: int,
        *,
        say: Callable[[str], None],
        stop: Callable[[RunStopped], None],
        cores: CorePlan | None = None,
    ) -> None:
        self.concurrency = concurrency
        self.cores = cores  # affinity: as for the local executor, the slots shared by all children
        self._free_slots = list(range(concurrency - 1, -1, -1))
        self.processes = max(1, min(processes, concurrency))
        # Each child keeps a log allowance per bot: an N-th each keeps the bot within its cap.
        share = settings.log_max_per_bot // self.processes
        self.settings = dataclasses.replace(settings, log_max_per_bot=share)
        self.log_dir = log_dir
        self.say = say
        self.stop = stop
        self.referees: list[_Referee] = []
        self.started = 0
        self.games_by_referee: Counter[str] = Counter()
        self._nursery: trio.Nursery | None = None
        self._replacing = trio.Lock()

    @property
    def slots(self) -> int:
        return self.concurrency

    def describe(self) -> str:
        return f"concurrency {self.concurrency} over {self.processes} referee processes"

    def running(self) -> AbstractAsyncContextManager[None]:
        return self._running()

    @asynccontextmanager
    async def _running(self) -> AsyncIterator[None]:
        # The bots of a child that dies are re-parented here, to be killed.
        containment.become_subreaper()
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            try:
                for _ in range(self.processes):
                    await self._start()
                yield
            finally:
                with trio.CancelScope(shield=True):
                    await self._stop_all()
                nursery.cancel_scope.cancel()

    # -- the children ---------------------------------------------------------------------------
    async def _start(self) -> _Referee:
        """A new referee process, ready for games (its reader task started)."""
        assert self._nursery is not None
        self.started += 1
        name = f"p{self.started}"
        env = dict(os.environ)
        # The child imports this very project, installed or not.
        root = str(Path(referee.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "referee.tournament.executors.referee_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert process.stdout is not None
        ref = _Referee(name, process, FrameReader(process.stdout))
        try:
            await ref.send(("settings", self.settings, str(self.log_dir)))
            with trio.move_on_after(START_TIMEOUT):
                ready = await ref.reader.read()
                if isinstance(ready, tuple) and ready and ready[0] == "ready":
                    self.referees.append(ref)
                    self._nursery.start_soon(self._read, ref)
                    return ref
        except (trio.BrokenResourceError, EOFError, ValueError):
            pass
        with trio.CancelScope(shield=True):
            process.kill()
            status = await process.wait()
        raise RunStopped(
            f"referee process {name} did not start ({sys.executable} -m "
            f"referee.tournament.executors.referee_process: exit status {status}); "
            "its error, if any, is above"
        )

    async def _read(self, ref: _Referee) -> None:
        """Take a child's frames until it exits; then its games in progress are lost."""
        try:
            while True:
                message: object = _NOTHING
                with trio.move_on_after(FROZEN_AFTER):
                    message = await ref.reader.read()
                if message is _NOTHING:  # not even a heartbeat: frozen
                    ref.frozen = True
                    ref.process.kill()
                    break
                if message is None:
                    break
                assert isinstance(message, tuple)
                if message[0] == "done":
                    played: Played = message[1]
                    slot = played.game.slot
                    ref.results[slot] = played
                elif message[0] == "failed":
                    slot = message[1]
                    ref.failures[slot] = message[2]
                else:
                    continue
                event = ref.waiting.pop(slot, None)
                if event is not None:
                    event.set()
        except (EOFError, ValueError, trio.BrokenResourceError, trio.ClosedResourceError):
            ref.process.kill()  # a broken stream: nothing it says can be trusted now
        finally:
            ref.alive = False
            with trio.CancelScope(shield=True):
                # Reaped now (its exit status goes in the note); one that closed its
                # output and lives on is broken: killed.
                with trio.move_on_after(STOP_TIMEOUT):
                    await ref.process.wait()
                if ref.process.returncode is None:
                    ref.process.kill()
                    await ref.process.wait()
                containment.kill_strays(ref.process.pid)  # its bots, orphans now
            for event in ref.waiting.values():
                event.set()
            ref.waiting.clear()

    async def _stop_all(self) -> None:
        """Tell every child to stop (abandon its games, close its bots) and wait for it;
        one that does not exit in time is killed, bots first."""
        for ref in self.referees:
            if ref.process.returncode is None:
                with trio.move_on_after(1):
                    try:
                        await ref.send(("stop",))
                        assert ref.process.stdin is not None
                        await ref.process.stdin.aclose()
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        pass
        with trio.move_on_after(STOP_TIMEOUT):
            for ref in self.referees:
                await ref.process.wait()
        for ref in self.referees:
            if ref.process.returncode is None:
                _signal(ref.process, signal.SIGTERM)  # it kills its bots' groups
                with trio.move_on_after(2):
                    await ref.process.wait()
                ref.process.kill()
                await ref.process.wait()

    async def _least_busy(self) -> _Referee:
        """The live child with the fewest games in progress; one that died is replaced
        first (one at a time: several games may find it gone at once)."""
        async with self._replacing:
            alive = [r for r in self.referees if r.alive]
            if len(alive) < self.processes:
                alive.append(await self._start())
        return min(alive, key=lambda r: len(r.waiting))

    # -- games ----------------------------------------------------------------------------------
    async def play(self, games: Sequence[ScheduledGame], deliver: Deliver) -> None:
        # A game slot of its own while it plays (with affinity, the slot's cores), whichever
        # referee process plays it.
        slot = self._free_slots.pop()
        try:
            cpus = None if self.cores is None else self.cores.slots[slot]
            for game in games:
                played = await self._play_one(game, cpus)
                if played is None:
                    return
                await deliver(played, None)
        finally:
            self._free_slots.append(slot)

    async def _play_one(self, game: ScheduledGame, cpus: frozenset[int] | None) -> Played | None:
        for lost in range(1, MAX_LOST_RUNS + 1):
            try:
                ref = await self._least_busy()
            except RunStopped as exc:  # a replacement that would not start
                self.stop(exc)
                return None
            event = trio.Event()
            ref.waiting[game.slot] = event
            try:
                await ref.send(("play", game, cpus))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                ref.waiting.pop(game.slot, None)
                event.set()
            await event.wait()
            played = ref.results.pop(game.slot, None)
            if played is not None:
                self.games_by_referee[ref.name] += 1
                return played
            failure = ref.failures.pop(game.slot, None)
            if failure is not None:
                raise RuntimeError(f"referee process {ref.name} failed playing {game.slot}:\n{failure}")
            status = ref.process.returncode
            what = (
                f"sent nothing for {FROZEN_AFTER:g} s (frozen) and was killed"
                if ref.frozen
                else f"exited (status {status})"
                if status is None or status >= 0
                else f"was killed by signal {-status}"
            )
            if lost == MAX_LOST_RUNS:
                self.stop(RunStopped(f"{game.slot} was lost {lost} times with its referee process"))
                return None
            self.say(f"note: referee process {ref.name} {what} during {game.slot}; playing it again")
        return None

    def kill_all(self) -> None:
        """The second Ctrl-C: each child kills its bots' groups at once (SIGTERM)."""
        for ref in self.referees:
            if ref.process.returncode is None:
                _signal(ref.process, signal.SIGTERM)

    def summary(self) -> list[str]:
        if not self.games_by_referee:
            return []
        per = ", ".join(f"{name} {n}" for name, n in sorted(self.games_by_referee.items()))
        return [f"referee processes: {per} game(s)"]


def _signal(process: trio.Process, sig: signal.Signals) -> None:
    try:
        process.send_signal(sig)
    except ProcessLookupError:
        pass


__all__ = ["FROZEN_AFTER", "MAX_LOST_RUNS", "ProcessExecutor"]
