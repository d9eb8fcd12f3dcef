"""Games on a Dask cluster (``vastuz tournament CONFIG --dask tcp://HOST:8786``).

Dask brings the scheduler, the workers, failure recovery and the ways to start a cluster
(by hand, dask-jobqueue, Kubernetes, SSH); this module only turns a tournament's batches
into Dask tasks and their results back into records:

* a task is a batch of games (:func:`referee.tournament.executors.batch.run_batch`), played in one
  ``trio.run`` in a worker thread with bots started there and reused within the batch; a
  worker runs at most its thread count of batches at once;
* the coordinator (this process) stays the only writer: each batch's records are handed to
  the runner, which appends them to ``results.jsonl`` as they arrive (synced to disk as a
  group commit), and its bots' log files are written under ``OUTPUT/logs`` here. A worker
  that dies mid-batch loses only that batch, which Dask runs again elsewhere; a slot is
  recorded once, whatever arrives;
* a batch a worker refuses (a bot's program missing there) is tried on the other workers,
  and when every worker has refused it the run stops with their messages; a batch that
  keeps killing workers stops it too, so a broken cluster is an error, not an endless retry;
* before the first game, every worker starts each bot once (:func:`~referee.tournament.
  batch.probe`): a worker without a bot refuses the run, naming the worker and the program;
* on Ctrl-C the run's stop event is set: batches abandon their game in progress and close
  their bots, as the local executor does. A batch also stops as soon as its worker hears
  that nobody wants its result any more (its task cancelled, or its client gone: a
  coordinator killed or cut off never sets the event), so an interrupted run leaves no
  batch holding a worker's thread for a resume to wait behind;
* every wait on the cluster is bounded or watched: the probe has a deadline, a batch that
  no worker is running while threads are free is submitted again, and a batch that waits
  long says where it stands (the scheduler's view) in the run's output.

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
PROBE_TIMEOUT = 120.0
"""Seconds a worker has to run the probe, beyond the bots' own start-up deadline: a worker
whose threads stay busy (another client's tasks, a stuck task) refuses the run by name."""
LOOK_SECONDS = 10.0
"""How often the watcher asks the scheduler which tasks its workers run."""
STALL_SECONDS = 60.0
"""Seconds a batch may stay pending while no worker runs it and some worker has a free
thread before it counts as lost by the scheduler and is submitted again."""
LONG_WAIT_SECONDS = 600.0
"""A batch still pending after this long (then as long again) is reported with the
scheduler's view of it: a hang explains itself in the run's output."""
EVENT_GRACE = 10.0
"""Seconds beyond its own timeout a stop-event request to the scheduler may take."""
CLOSE_TIMEOUT = 10.0
"""Seconds for each step of disconnecting from the scheduler at the end of a run."""
MAX_LOST_RUNS = 3
"""Times a batch may lose its worker (Dask's own retries exhausted) or fail to reach one
before the run stops: a batch that kills every worker it lands on is not retried forever."""


class WorkerLost(Exception):
    """The workers a task was pinned to have all left the cluster."""


class TaskTimeout(Exception):
    """A task did not finish by its deadline (see :meth:`DaskExecutor._result`)."""


class TaskStalled(Exception):
    """The scheduler holds a task that no worker runs although threads are free."""


# ------------------------------------------------------------------ on the workers
def batch_task(settings: GameSettings, games: list[ScheduledGame], stop_event: str) -> BatchResult:
    """The task a worker runs: play the batch, watching the run's stop event and whether
    the task is still wanted (a Ctrl-C'd, killed or cut-off coordinator: see
    :func:`_unwanted`)."""
    assert distributed is not None
    worker = distributed.get_worker()
    key = worker.get_current_task()
    event = distributed.Event(stop_event)

    def stopped(timeout: float) -> bool:
        if _unwanted(worker, key):
            return True
        try:
            client = event.client  # the worker's client (the thread's context knows the worker)
            # Bounded here too: a request stuck on a half-dead connection would stop the
            # watch, and with it the check above.
            return bool(
                client.sync(
                    client.scheduler.event_wait,
                    name=stop_event,
                    timeout=timeout,
                    callback_timeout=timeout + EVENT_GRACE,
                )
            )
        except Exception:  # the scheduler is gone for a moment: not a stop
            time.sleep(timeout)
            return _unwanted(worker, key)

    return run_batch(settings, games, worker.address, stopped)


def _unwanted(worker: Any, key: object) -> bool:
    """Whether the worker has been told its task ``key`` is no longer wanted: the client
    that submitted it cancelled it, or left the cluster (the scheduler releases a departed
    client's tasks). Dask cannot stop a running task, so the batch must notice: else it
    would play on, holding one of the worker's threads that the scheduler already counts
    as free, and a resume's tasks would wait behind it."""
    try:
        task = worker.state.tasks.get(key)
        return task is None or task.state in ("cancelled", "released", "forgotten")
    except Exception:  # another Dask's worker state: the stop event alone then
        return False


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
        probe_timeout: float = PROBE_TIMEOUT,
        stall_seconds: float = STALL_SECONDS,
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
        self.probe_timeout = probe_timeout
        self.client: Any = None
        self.workers: dict[str, int] = {}
        self.stop_event = f"vastuz-stop-{uuid.uuid4().hex}"
        self.games_by_worker: Counter[str] = Counter()
        self.dispatch_seconds = 0.0
        self.games_dispatched = 0
        self.batches = 0
        self.log_budgets = {name: LogBudget(settings.log_max_per_bot) for name in settings.commands}
        self._token: trio.lowlevel.TrioToken | None = None
        self.stall_seconds = stall_seconds
        # The watcher's last look at the scheduler (see _look_at_the_scheduler), and when.
        self._run_keys: set[str] = set()
        self._free_threads = 0
        self._looked_at = 0.0

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
        # The client's batched stream logs a traceback (at INFO) when its connection to the
        # scheduler dies, which a run then reports in its own words (see _lost); it says
        # nothing else. Whatever the client sends as the run notices the loss (a released
        # future, say) can trip it before _lost is called, so it is quiet from the start.
        logging.getLogger("distributed.batched").setLevel(logging.CRITICAL)
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
        """Stop the workers' batches (their bots are closed there), disconnect (which drops
        what is queued). Blocking; called once, shielded, whatever ended the run."""
        assert distributed is not None
        client = self.client
        if client is None:
            return
        try:
            # Bounded: the scheduler may be gone or stuck (the batches then stop as their
            # workers hear that this client left: see _unwanted).
            client.sync(client.scheduler.event_set, name=self.stop_event, callback_timeout=CLOSE_TIMEOUT)
        except Exception:  # the scheduler may be gone already; the workers stop with it
            pass
        finally:
            # Closing releases this client's tasks: queued ones are dropped, running ones
            # are cancelled on their workers (see _unwanted).
            try:
                client.close(timeout=CLOSE_TIMEOUT)  # bounded: the scheduler may be gone
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
        problems: list[str] = []
        busy: list[str] = []
        limit = self.probe_timeout + self.settings.startup_timeout
        deadline = time.monotonic() + limit
        for address, future in zip(addresses, futures, strict=True):
            left = max(0.0, deadline - time.monotonic())
            try:
                address, found = await self._result(
                    future, f"the probe on {address}", pinned=[address], timeout=left
                )
            except WorkerLost:  # a worker that cannot even read the task dies of it
                found = [
                    "left the cluster while it ran the probe (is this project installed in the "
                    "worker's Python environment? its log says why)"
                ]
            except TaskTimeout:  # its threads never came free for it
                busy.append(
                    f"worker {address}: did not run the probe within {limit:g} s (its threads are "
                    "busy: another client's tasks, or a task that does not end; its log may say which)"
                )
                continue
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
                + "\n  ".join(problems + busy)
            )
        if busy:
            raise ClusterError(
                "the cluster cannot play this tournament now: " + "; ".join(busy) + ". Nothing was played: "
                "run the same command again once its workers are free, or without that worker"
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
                workers = await _in_thread(self._current_workers)
            except Exception:
                workers = {}
            for gone in sorted(set(self.workers) - set(workers)):
                self.say(
                    f"note: worker {gone} left the cluster (a batch it was playing runs again elsewhere)"
                )
            for new in sorted(set(workers) - set(self.workers)):
                self.say(f"note: worker {new} joined the cluster ({workers[new]} thread(s))")
            self.workers = workers
            if workers and time.monotonic() - self._looked_at >= LOOK_SECONDS:
                try:
                    looked = await _in_thread(self._look_at_the_scheduler)
                except Exception:
                    pass
                else:
                    self._run_keys, self._free_threads = looked
                    self._looked_at = time.monotonic()
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

    async def _result(
        self, future: Any, what: str, pinned: Sequence[str] = (), timeout: float | None = None
    ) -> Any:
        """Wait for ``future`` (``what``: the output's name for it) without a thread per
        waiting task (a cluster may have hundreds of slots): Dask's completion callback wakes
        this task, and its state is looked at every few seconds too, so no wait hangs on a
        lost callback. A task ``pinned`` to some workers waits for them only while one of
        them is in the cluster (Dask would keep it queued forever): then
        :class:`WorkerLost`; past ``timeout`` seconds: :class:`TaskTimeout`. A task no worker
        runs while threads are free, for ``stall_seconds`` of the watcher's looks (see
        :meth:`_look_at_the_scheduler`): :class:`TaskStalled`. Either way it is cancelled."""
        done = trio.Event()
        token = self._token
        assert token is not None

        def wake(_: object) -> None:
            try:
                token.run_sync_soon(done.set)
            except trio.RunFinishedError:
                pass

        future.add_done_callback(wake)
        started = time.monotonic()
        report_at = started + LONG_WAIT_SECONDS
        idle_since: float | None = None  # when the scheduler was first seen with it unrun
        looked = started
        while not (done.is_set() or future.done()):
            with trio.move_on_after(WATCH_SECONDS):
                await done.wait()
            if done.is_set() or future.done():
                break
            now = time.monotonic()
            if timeout is not None and now - started >= timeout:
                await _in_thread(future.cancel)
                raise TaskTimeout(f"{what} did not finish within {timeout:g} s")
            if pinned:
                workers = await _in_thread(self._current_workers)
                if not any(w in workers for w in pinned):
                    await _in_thread(future.cancel)
                    raise WorkerLost(f"worker(s) {', '.join(pinned)} left the cluster")
            elif self._looked_at > looked:  # the watcher has looked at the scheduler again
                looked = self._looked_at
                if future.key in self._run_keys or not self._free_threads:
                    idle_since = None
                else:
                    idle_since = looked if idle_since is None else idle_since
                    if looked - idle_since >= self.stall_seconds:
                        await _in_thread(future.cancel)
                        raise TaskStalled(
                            f"no worker has run its task for {looked - idle_since:.0f} s while "
                            f"{self._free_threads} worker thread(s) were free"
                        )
            if now >= report_at:
                where = (
                    "a worker is running it"
                    if future.key in self._run_keys
                    else f"no worker runs it; {self._free_threads} thread(s) free"
                )
                self.say(
                    f"note: {what} has waited {now - started:.0f} s on the cluster "
                    f"(task {future.key}: {where}, per the scheduler)"
                )
                report_at = now + LONG_WAIT_SECONDS
        return await _in_thread(future.result)

    def _look_at_the_scheduler(self) -> tuple[set[str], int]:
        """The tasks the workers are running or hold ready to run, and the threads free of
        them, per the scheduler (blocking)."""
        processing = dict(self.client.processing())
        running = {str(key) for keys in processing.values() for key in keys}
        free = sum(max(0, n - len(processing.get(w, ()))) for w, n in self.workers.items())
        return running, free

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
            try:
                result: BatchResult = await self._result(future, what, pinned=allowed if refused else ())
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


async def _in_thread(fn: Callable[[], Any]) -> Any:
    """A blocking call to Dask in a thread that a cancelled run leaves behind (a Ctrl-C,
    or the watcher's error, is never held up by a scheduler that does not answer)."""
    return await trio.to_thread.run_sync(fn, abandon_on_cancel=True)


__all__ = ["DaskExecutor", "batch_task", "probe_task"]
