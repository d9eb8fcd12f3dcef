"""Games on a Dask cluster (``vastuz tournament CONFIG --dask tcp://HOST:8786``).

Dask brings the scheduler, the workers, failure recovery and the ways to start a cluster
(by hand, dask-jobqueue, Kubernetes, SSH); this module only turns a tournament's batches
into Dask tasks and their results back into records:

* a task is a batch of games (:func:`referee.tournament.executors.batch.run_batch`), played in one
  ``trio.run`` in a worker thread with bots started there and reused within the batch; a
  worker runs at most its thread count of batches at once;
* the coordinator (this process) stays the only writer: each batch's records are handed to
  the runner, which appends them to ``results.jsonl`` (fsync) as they arrive, and its bots'
  log files are written under ``OUTPUT/logs`` here. A worker that dies mid-batch loses only
  that batch, which Dask runs again elsewhere; a slot is recorded once, whatever arrives;
* a batch a worker refuses (a bot's program missing there) is tried on the other workers,
  and when every worker has refused it the run stops with their messages; a batch that
  keeps killing workers stops it too, so a broken cluster is an error, not an endless retry;
* before the first game, every worker starts each bot once (:func:`~referee.tournament.
  batch.probe`): a worker without a bot refuses the run, naming the worker and the program;
* on Ctrl-C the run's stop event is set: batches abandon their game in progress and close
  their bots, as the local executor does.

Importing this module imports Dask; the runner imports it only for a ``--dask`` run.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from referee.errors import ClusterError, RunStopped
from referee.play.logs import CappedLog, LogBudget
from referee.tournament.config.values import DEFAULT_BATCH
from referee.tournament.executors.batch import BatchRefused, BatchResult, GameSettings, run_batch, run_probe
from referee.tournament.executors.local import Deliver
from referee.tournament.slots import ScheduledGame

try:
    import distributed
except ImportError:  # pragma: no cover - the message is tested by hiding the module
    distributed = None  # type: ignore[assignment]

INSTALL_HINT = (
    "--dask needs Dask distributed, an optional extra: pip install 'vastuz-arena[cluster]' "
    "(from a checkout: pip install -e '.[cluster]')"
)
CONNECT_TIMEOUT = 30.0
"""Seconds to reach the scheduler, and then for a first worker to join it."""
SCHEDULER_GRACE = 10.0
"""Seconds the client may be disconnected from the scheduler before the run gives it up."""
NO_WORKER_TIMEOUT = 120.0
"""Seconds without any worker after which a run stops (its games in flight cannot finish)."""
WATCH_SECONDS = 2.0
MAX_LOST_RUNS = 3
"""Times a batch may lose its worker (Dask's own retries exhausted) or fail to reach one
before the run stops: a batch that kills every worker it lands on is not retried forever."""


class WorkerLost(Exception):
    """The workers a task was pinned to have all left the cluster."""


# ------------------------------------------------------------------ on the workers
def batch_task(settings: GameSettings, games: list[ScheduledGame], stop_event: str) -> BatchResult:
    """The task a worker runs: play the batch, watching the run's stop event."""
    assert distributed is not None
    worker = distributed.get_worker().address
    event = distributed.Event(stop_event)

    def stopped(timeout: float) -> bool:
        try:
            return bool(event.wait(timeout))
        except Exception:  # the scheduler is gone for a moment: not a stop
            time.sleep(timeout)
            return False

    return run_batch(settings, games, worker, stopped)


def probe_task(settings: GameSettings) -> tuple[str, list[str]]:
    """The probe a worker runs before the first game: its address and the bots that
    cannot start there."""
    assert distributed is not None
    return distributed.get_worker().address, run_probe(settings)


# ------------------------------------------------------------------ the coordinator
class DaskExecutor:
    """Batches of a run on the cluster whose scheduler is at ``address``.

    ``stop`` is the runner's "no new game, finish the games in flight" (a batch every
    worker refused); ``say`` its output.
    """

    def __init__(
        self,
        settings: GameSettings,
        address: str,
        log_dir: Path,
        *,
        say: Callable[[str], None],
        stop: Callable[[RunStopped], None],
        batch_size: int = DEFAULT_BATCH,
        connect_timeout: float = CONNECT_TIMEOUT,
        no_worker_timeout: float = NO_WORKER_TIMEOUT,
    ) -> None:
        if distributed is None:
            raise ClusterError(INSTALL_HINT)
        self.settings = settings
        self.address = address
        self.log_dir = log_dir
        self.say = say
        self.stop = stop
        self.batch_size = batch_size
        self.connect_timeout = connect_timeout
        self.no_worker_timeout = no_worker_timeout
        self.client: Any = None
        self.workers: dict[str, int] = {}
        self.stop_event = f"vastuz-stop-{uuid.uuid4().hex}"
        self.games_by_worker: Counter[str] = Counter()
        self.dispatch_seconds = 0.0
        self.games_dispatched = 0
        self.batches = 0
        self.log_budgets = {name: LogBudget(settings.log_max_per_bot) for name in settings.commands}
        self._futures: set[Any] = set()
        self._token: trio.lowlevel.TrioToken | None = None

    @property
    def slots(self) -> int:
        return max(1, sum(self.workers.values()))

    cores = None  # games on a cluster's workers are not pinned

    def describe(self) -> str:
        if not self.workers:  # before it connects (the header of ``--check``)
            return f"on the Dask cluster at {self.address} (batches of {self.batch_size})"
        return (
            f"Dask {self.address}: {len(self.workers)} worker(s), {sum(self.workers.values())} thread(s), "
            f"batches of {self.batch_size} game(s)"
        )

    # -- lifecycle ---------------------------------------------------------------------------
    def running(self) -> AbstractAsyncContextManager[None]:
        return self._running()

    @asynccontextmanager
    async def _running(self) -> AsyncIterator[None]:
        self._token = trio.lowlevel.current_trio_token()
        self.client = await trio.to_thread.run_sync(self._connect, abandon_on_cancel=True)
        try:
            await self._probe()
            self.say(f"cluster: {self.describe()}")
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._watch_workers)
                try:
                    yield
                finally:
                    nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self._close)

    def _connect(self) -> Any:
        assert distributed is not None
        try:
            client = distributed.Client(self.address, timeout=self.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None
        try:
            client.wait_for_workers(1, timeout=self.connect_timeout)
        except (OSError, TimeoutError) as exc:
            client.close()
            raise ClusterError(
                f"no Dask worker joined the scheduler at {self.address} within {self.connect_timeout:g} s "
                f"({type(exc).__name__}); start workers with: dask worker {self.address}"
            ) from None
        self.workers = dict(client.nthreads())
        return client

    def _close(self) -> None:
        """Stop the workers' batches (their bots are closed there), drop what is queued,
        disconnect. Blocking; called once, shielded, whatever ended the run."""
        assert distributed is not None
        client = self.client
        if client is None:
            return
        try:
            distributed.Event(self.stop_event, client=client).set()
            if self._futures:
                client.cancel(list(self._futures))
        except Exception:  # the scheduler may be gone already; the workers stop with it
            pass
        finally:
            self._futures.clear()
            try:
                client.close(timeout=10)  # bounded: the scheduler may be gone
            except Exception:
                pass
            self.client = None

    async def _probe(self) -> None:
        """Every worker starts every bot once; any worker that cannot refuses the run."""
        self.say(f"checking {len(self.workers)} worker(s): every bot must start on each")
        addresses = list(self.workers)
        futures = [
            self.client.submit(
                probe_task,
                self.settings,
                workers=[address],
                allow_other_workers=False,
                pure=False,
                key=f"vastuz-probe-{uuid.uuid4().hex[:12]}",
            )
            for address in addresses
        ]
        self._futures.update(futures)
        problems: list[str] = []
        for address, future in zip(addresses, futures, strict=True):
            try:
                address, found = await self._result(future, pinned=[address])
            except WorkerLost:  # a worker that cannot even read the task dies of it
                found = [
                    "left the cluster while it ran the probe (is this project installed in the "
                    "worker's Python environment? its log says why)"
                ]
            except Exception as exc:  # the task could not run there
                found = [
                    f"the probe failed: {type(exc).__name__}: {exc} (is this project installed "
                    "in the worker's Python environment?)"
                ]
            problems.extend(f"worker {address}: {p}" for p in found)
        if problems:
            raise ClusterError(
                "the cluster cannot play this tournament, bots are missing on its workers "
                "(bots must be reachable on every worker: a shared file system or the same image):\n  "
                + "\n  ".join(problems)
            )

    async def _watch_workers(self) -> None:
        """Stop the run when the cluster has had no worker for ``no_worker_timeout``: its
        games in flight could never finish (a run never hangs on a cluster that is gone)."""
        alone_since: float | None = None
        lost_since: float | None = None
        while True:
            await trio.sleep(WATCH_SECONDS)
            if self.client is not None and self.client.status != "running":
                # Dask reconnects for a while; past SCHEDULER_GRACE the scheduler is lost.
                lost_since = time.monotonic() if lost_since is None else lost_since
                if self._scheduler_gone() or time.monotonic() - lost_since >= SCHEDULER_GRACE:
                    raise self._lost()
                continue
            lost_since = None
            try:
                workers = await trio.to_thread.run_sync(self._current_workers, abandon_on_cancel=True)
            except Exception:
                workers = {}
            for gone in sorted(set(self.workers) - set(workers)):
                self.say(
                    f"note: worker {gone} left the cluster (a batch it was playing runs again elsewhere)"
                )
            for new in sorted(set(workers) - set(self.workers)):
                self.say(f"note: worker {new} joined the cluster ({workers[new]} thread(s))")
            self.workers = workers
            if workers:
                alone_since = None
                continue
            now = time.monotonic()
            alone_since = now if alone_since is None else alone_since
            if now - alone_since >= self.no_worker_timeout:
                raise ClusterError(
                    f"no Dask worker has been connected to {self.address} for {self.no_worker_timeout:g} s; "
                    "the games in flight cannot finish. Every finished game is kept: run the same "
                    "command again once workers are back"
                )

    def _current_workers(self) -> dict[str, int]:
        return dict(self.client.nthreads())

    def _lost(self) -> ClusterError:
        # Dask's client logs its own tracebacks while it gives up reconnecting: the user
        # gets this one message instead.
        for name in ("distributed.client", "distributed.core", "distributed.comm"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        return ClusterError(
            f"lost the Dask scheduler at {self.address} (it stopped, or the network to it is gone); "
            "the run stops here and every finished game is kept. Run the same command again to "
            "resume: on a new scheduler (--dask tcp://HOST:8786), or on this machine (without --dask "
            "or executor.dask)"
        )

    def _scheduler_gone(self) -> bool:
        client = self.client
        return client is None or client.status not in ("running", "connecting", "newly-created")

    async def _result(self, future: Any, pinned: Sequence[str] = ()) -> Any:
        """Wait for ``future`` without a thread per waiting task (a cluster may have
        hundreds of slots): Dask's completion callback wakes this task. A task ``pinned``
        to some workers waits for them only while one of them is in the cluster (Dask
        would keep it queued forever): then :class:`WorkerLost`."""
        done = trio.Event()
        token = self._token
        assert token is not None

        def wake(_: object) -> None:
            try:
                token.run_sync_soon(done.set)
            except trio.RunFinishedError:
                pass

        future.add_done_callback(wake)
        try:
            while True:
                with trio.move_on_after(WATCH_SECONDS):
                    await done.wait()
                if done.is_set():
                    break
                if pinned:
                    workers = await trio.to_thread.run_sync(self._current_workers)
                    if not any(w in workers for w in pinned):
                        await trio.to_thread.run_sync(future.cancel)
                        raise WorkerLost(f"worker(s) {', '.join(pinned)} left the cluster")
            return await trio.to_thread.run_sync(future.result)
        finally:
            self._futures.discard(future)

    # -- batches -------------------------------------------------------------------------------
    async def play(self, games: Sequence[ScheduledGame], deliver: Deliver) -> None:
        assert distributed is not None
        refused: dict[str, str] = {}  # worker -> why it refused this batch
        lost = 0
        what = games[0].slot if len(games) == 1 else f"{games[0].slot} and {len(games) - 1} more"
        while True:
            allowed = [w for w in self.workers if w not in refused]
            if refused and not allowed:
                reasons = "; ".join(f"{w}: {m}" for w, m in refused.items())
                self.stop(RunStopped(f"no worker could play {what}: {reasons}"))
                return
            started = time.monotonic()
            if self._scheduler_gone():
                raise self._lost()
            future = self.client.submit(
                batch_task,
                self.settings,
                list(games),
                self.stop_event,
                workers=allowed if refused else None,
                allow_other_workers=False,
                pure=False,
                key=f"vastuz-batch-{games[0].slot}-{uuid.uuid4().hex[:8]}",
            )
            self._futures.add(future)
            try:
                result: BatchResult = await self._result(future, pinned=allowed if refused else ())
            except BatchRefused as exc:
                refused[exc.worker] = exc.message
                self.say(f"note: worker {exc.worker} cannot play {what}: {exc.message}")
                continue
            except Exception as exc:  # the worker died (and Dask's retries with it), or worse
                if self.client is None or self.client.status != "running":
                    raise self._lost() from None
                lost += 1
                if lost >= MAX_LOST_RUNS:
                    self.stop(
                        RunStopped(
                            f"{what} failed {lost} times on the cluster (last: {type(exc).__name__}: {exc})"
                        )
                    )
                    return
                self.say(f"note: {what} failed on the cluster ({type(exc).__name__}: {exc}); trying again")
                continue
            break
        elapsed = time.monotonic() - started
        if result.abandoned:
            return
        played = result.played(games)
        await trio.to_thread.run_sync(self._write_logs, result)
        self.batches += 1
        self.games_dispatched += len(played)
        self.dispatch_seconds += max(0.0, elapsed - result.seconds)
        self.games_by_worker[result.worker] += len(played)
        for game in played:
            await deliver(game, result.worker)

    def _write_logs(self, result: BatchResult) -> None:
        """The batch's log files, under the run's logs folder (each bot's total capped as
        in a local run)."""
        for name, bot, data in result.logs:
            log = CappedLog(self.log_dir / name, len(data), self.log_budgets.get(bot))
            log.write(data)
            log.close()

    def kill_all(self) -> None:
        """The second Ctrl-C: the workers' bots are not ours to kill from here; the stop
        event (set on the way out) makes every batch close them."""
        return None

    def summary(self) -> list[str]:
        if not self.games_dispatched:
            return []
        per_worker = ", ".join(f"{w} {n}" for w, n in sorted(self.games_by_worker.items()))
        overhead = self.dispatch_seconds / self.games_dispatched * 1000
        return [
            f"cluster: {self.games_dispatched} game(s) in {self.batches} batch(es) on "
            f"{len(self.games_by_worker)} worker(s): {per_worker}",
            f"cluster: dispatch overhead {overhead:.1f} ms per game "
            "(a batch's time from submit to result, less its time on the worker)",
        ]


__all__ = ["DaskExecutor", "batch_task", "probe_task"]
