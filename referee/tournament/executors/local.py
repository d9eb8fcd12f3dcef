"""Where games run: the seam between the runner (what to play next, what to record) and the
machines that play.

An :class:`Executor` takes a *batch* of scheduled games and hands each finished game back
through the runner's ``deliver`` callback; the runner alone writes results, talks to the
plan and prints. Two executors exist:

* :class:`LocalExecutor` (the default): this process's trio pool, ``concurrency`` games at
  once, each bot process reused for its next game. Batches of one game: a worker task asks
  the plan for the next game as soon as it is free.
* :class:`~referee.tournament.executors.dask_cluster.DaskExecutor` (``--dask ADDRESS``): batches
  (by default a colour-reversed pair) played on a Dask cluster's workers. Imported only
  when asked for, so a local run never imports Dask.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Protocol

import trio

from referee.play.cpu import CorePlan
from referee.tournament.executors.batch import GameSettings, Played, play_scheduled
from referee.tournament.executors.pool import BotPool
from referee.tournament.slots import ScheduledGame

Deliver = Callable[[Played, str | None], Awaitable[None]]
"""The runner's callback for a finished game: the game with its record, and the name of
the worker that played it (None for the local executor)."""


class Executor(Protocol):
    @property
    def slots(self) -> int:
        """How many batches may run at once (the runner keeps that many in flight)."""
        ...

    @property
    def batch_size(self) -> int:
        """Games per batch (the runner asks the plan for this many at a time)."""
        ...

    @property
    def cores(self) -> CorePlan | None:
        """The affinity plan its games on this machine follow (None: not pinned)."""
        ...

    def describe(self) -> str:
        """Where the games run, for the run's header."""
        ...

    def running(self) -> AbstractAsyncContextManager[None]:
        """Open the executor for a run (start a pool, connect to a cluster and check its
        workers); on exit, every bot it started is closed, whatever happened."""
        ...

    async def play(self, games: Sequence[ScheduledGame], deliver: Deliver) -> None:
        """Play a batch; ``deliver`` each finished game (in the order played). A game not
        delivered (cancelled, its worker lost for good) is not recorded and is played again
        by the next run."""
        ...

    def kill_all(self) -> None:
        """SIGKILL every bot this process started, now (the second Ctrl-C)."""
        ...

    def summary(self) -> list[str]:
        """Lines for the end of the run (games per worker, dispatch overhead)."""
        ...


class LocalExecutor:
    """The games on this machine, in this process's nursery, ``concurrency`` at once."""

    batch_size = 1

    def __init__(
        self, settings: GameSettings, log_dir: Path, concurrency: int, cores: CorePlan | None = None
    ) -> None:
        self.settings = settings
        self.log_dir = log_dir
        self.concurrency = concurrency
        self.cores = cores  # affinity: the core kept for the referee, and each game slot's
        self.pool: BotPool | None = None
        self._free_slots = list(range(concurrency - 1, -1, -1))  # game slots not playing now

    @property
    def slots(self) -> int:
        return self.concurrency

    def describe(self) -> str:
        return f"concurrency {self.concurrency}"

    def running(self) -> AbstractAsyncContextManager[None]:
        return self._running()

    @asynccontextmanager
    async def _running(self) -> AsyncIterator[None]:
        async with trio.open_nursery() as bots_nursery:
            self.pool = self.settings.pool(bots_nursery, self.log_dir)
            try:
                yield
            finally:
                await self.pool.aclose()

    async def play(self, games: Sequence[ScheduledGame], deliver: Deliver) -> None:
        assert self.pool is not None, "play() outside running()"
        # A game slot of its own while it plays: with affinity, the slot's cores.
        slot = self._free_slots.pop()
        try:
            cpus = None if self.cores is None else self.cores.slots[slot]
            for game in games:
                await deliver(await play_scheduled(self.pool, self.settings, game, cpus), None)
        finally:
            self._free_slots.append(slot)

    def kill_all(self) -> None:
        if self.pool is not None:
            self.pool.kill_all()

    def summary(self) -> list[str]:
        return []


__all__ = ["Deliver", "Executor", "LocalExecutor"]
