"""Local executor against a Dask cluster on the same machine: ``python benchmarks/cluster.py
[--games 60] [--size 5] [--runs 2] [--batch 2 10] [--per-move 0.05] [--thinking]``.

One round robin of three sample bots (random, greedy, and greedy with another seed: bots
that answer at once, so the harness's own costs show; with ``--thinking`` three MCTS bots
that use their whole time per move, as real games do), played to completion from an empty
folder by

* the local executor, concurrency 2 (the default on this 2-core machine), and
* a ``distributed.LocalCluster`` of 2 worker processes x 1 thread, for each ``--batch``
  size (games per task),

interleaved run by run (the machine is noisy). Printed per run and as medians: games per
second over the whole run (start-up, probe and standings included), and, for the cluster,
the dispatch overhead per game the runner reports: a batch's time from submit to result
at the coordinator, less the batch's own time on its worker (serialization, scheduling,
the result's transfer and the records' parsing).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament

ROOT = Path(__file__).resolve().parent.parent


FAST = [("random", "random_bot", 1), ("greedy", "greedy_bot", 2), ("greedy2", "greedy_bot", 3)]
THINKING = [("mcts1", "mcts_bot", 1), ("mcts2", "mcts_bot", 2), ("mcts3", "mcts_bot", 3)]


def write_config(
    folder: Path,
    games: int,
    size: int,
    per_move: float,
    executor: dict[str, object] | None,
    bots: list[tuple[str, str, int]],
) -> Path:
    per_pair = max(2, 2 * round(games / 3 / 2))
    data: dict[str, object] = {
        "name": "bench",
        "board_size": size,
        "opening": "pie",
        "time_control": {"per_move": per_move, "margin": 0.5},
        "schedule": {"kind": "round_robin", "games_per_pair": per_pair},
        "concurrency": 2,
        "output": str(folder / "out"),
        "bots": [
            {
                "name": n,
                "command": [sys.executable, "-m", f"sample_bots.{m}", "--seed", str(s)],
                "cwd": str(ROOT),
            }
            for n, m, s in bots
        ],
    }
    if executor is not None:
        data["executor"] = executor
    path = folder / "bench.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def one_run(
    games: int,
    size: int,
    per_move: float,
    executor: dict[str, object] | None,
    bots: list[tuple[str, str, int]],
) -> tuple[float, float | None]:
    """(games per second, dispatch ms per game or None) of one complete run."""
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(write_config(Path(tmp), games, size, per_move, executor, bots))
        tournament = Tournament(config, out=io.StringIO(), standings_every=0, bootstrap=0)
        started = time.monotonic()
        result = trio.run(tournament.run)
        elapsed = time.monotonic() - started
        assert result.played == result.total and not result.void, result
        stats = tournament.executor
        dispatch = None
        if executor is not None:
            dispatch = stats.dispatch_seconds / stats.games_dispatched * 1000  # type: ignore[attr-defined]
        return result.played / elapsed, dispatch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--batch", type=int, nargs="+", default=[2, 10])
    parser.add_argument("--per-move", type=float, default=0.05)
    parser.add_argument("--thinking", action="store_true", help="MCTS bots that use their time")
    args = parser.parse_args()
    import distributed

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        setups: list[tuple[str, dict[str, object] | None]] = [("local executor, concurrency 2", None)]
        for batch in args.batch:
            setups.append(
                (
                    f"Dask, 2 workers x 1 thread, batch {batch}",
                    {"dask": cluster.scheduler_address, "batch": batch},
                )
            )
        figures: dict[str, list[tuple[float, float | None]]] = {name: [] for name, _ in setups}
        for run in range(args.runs):
            for name, executor in setups:
                rate, dispatch = one_run(
                    args.games, args.size, args.per_move, executor, THINKING if args.thinking else FAST
                )
                figures[name].append((rate, dispatch))
                shown = "" if dispatch is None else f", dispatch {dispatch:.1f} ms/game"
                print(f"run {run + 1}: {name}: {rate:.2f} games/s{shown}", flush=True)
    games = 3 * max(2, 2 * round(args.games / 3 / 2))
    kind = "MCTS bots using their time" if args.thinking else "instant bots"
    print(
        f"\n{games} games per run, {kind}, board {args.size}, {args.per_move:g} s per move, "
        f"{args.runs} run(s) each, interleaved; medians (range)\n"
    )
    print("| executor | games/s | dispatch ms per game |")
    print("| --- | --- | --- |")
    for name, rows in figures.items():
        rates = [r for r, _ in rows]
        rate = f"{statistics.median(rates):.2f} ({min(rates):.2f}-{max(rates):.2f})"
        ds = [d for _, d in rows if d is not None]
        dispatch = f"{statistics.median(ds):.1f} ({min(ds):.1f}-{max(ds):.1f})" if ds else "-"
        print(f"| {name} | {rate} | {dispatch} |")


if __name__ == "__main__":
    main()
