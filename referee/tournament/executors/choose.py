"""The executor a config asks for: here (in this process, or over several referee
processes), or on a Dask cluster. Only the chosen one's module is imported, so a local run
never imports Dask."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee.errors import RunStopped
from referee.play.cpu import CorePlan
from referee.tournament.config.values import TournamentConfig
from referee.tournament.executors.batch import GameSettings
from referee.tournament.executors.local import Executor, LocalExecutor


def executor_for(
    config: TournamentConfig,
    settings: GameSettings,
    log_dir: Path,
    *,
    say: Callable[[str], None],
    stop: Callable[[RunStopped], None],
) -> Executor:
    """``say`` prints a line of the run; ``stop`` ends it after the games in flight."""
    spec = config.executor
    # Affinity: the core kept for the referee and each game slot's, for games on this machine.
    cores = CorePlan.of(sorted(config.affinity), config.concurrency) if config.affinity else None
    if spec.dask is None and (spec.processes == 1 or config.concurrency == 1):
        return LocalExecutor(settings, log_dir, config.concurrency, cores)
    if spec.dask is None:
        from referee.tournament.executors.processes import ProcessExecutor

        return ProcessExecutor(
            settings, log_dir, config.concurrency, spec.processes, say=say, stop=stop, cores=cores
        )
    from referee.tournament.executors.dask_cluster import DaskExecutor

    return DaskExecutor(settings, spec.dask, log_dir, say=say, stop=stop, batch_size=spec.batch)
