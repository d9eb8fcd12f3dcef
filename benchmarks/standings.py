"""What a run's periodic standings cost as it grows: ``python benchmarks/standings.py
[--games 1000,2000,10000,20000] [--bots 2] [--reps 5] [--tree PATH]``.

The standings process of a run (:mod:`referee.tournament.store.standings_process`) is given
the summaries of made-up games of ``--bots`` bots (colour-reversed opening pairs, a few
draws and losses on time, the referee's own statistics), one at a time as a run sends them,
and at each size of ``--games`` asked for the one-line standings a run prints by default,
then for the whole table (``--standings-every N``), each after ten more games, as a run
asks for them. It prints the CPU milliseconds of each (the median of ``--reps`` asks): a
cost that stays the same as the run grows is what lets every table be printed, however
long the run. ``--tree PATH`` measures another checkout of the project (an older one
re-rates every game for each table), for figures side by side.

``charts`` is what the page's rating chart costs at each size, once, asked for in order
as pages are: the points the process kept as it counted the games and has not fitted yet
(at the first size, every one so far), fitted now; a checkout without them computes the
chart's points from every game, as each page did.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TREE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv else None
sys.path.insert(0, str(TREE or Path(__file__).resolve().parent.parent))

from referee.play.records import BotStats, BotSummary, FaultEntry, GameSummary, Termination  # noqa: E402
from referee.tournament.store.standings_process import Worker  # noqa: E402


def summaries(count: int, names: list[str], seed: int = 1) -> list[GameSummary]:
    rng = random.Random(seed)
    out = []
    pairings = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for k in range(count):
        a, b = pairings[(k // 2) % len(pairings)]
        labels = (a, b) if k % 2 == 0 else (b, a)
        roll = rng.random()
        winner = None if roll < 0.1 else rng.randrange(2)
        fault = None
        kind = Termination.SCORE
        if winner is not None and roll > 0.97:
            kind = Termination.TIME
            fault = FaultEntry(1 - winner, kind, None, None, late=None, overshoot=None)
        bots = tuple(
            BotSummary(label, BotStats(requests=56, overhead_us=rng.uniform(10, 30))) for label in labels
        )
        pair = f"c{k // 2}"
        out.append(GameSummary(f"g{k}", f"g{k}", labels, winner, kind, fault, pair, bots, k))  # type: ignore[arg-type]
    return out


def ask(worker: Worker, count: int, table: bool) -> float:
    started = time.process_time()
    worker.table(count, count, not table, table, None)
    return (time.process_time() - started) * 1e3


def charts(worker: Worker, count: int, names: list[str]) -> float:
    worker.pages.advance(count)  # the page's standings count the games: not the charts' cost
    started = time.process_time()
    trail = getattr(worker.pages, "ratings", None)
    if trail is not None:
        trail.history()
    else:  # a checkout whose page made its chart from every game
        from referee.ratings.history import rating_history
        from referee.tournament.store.folder import latest_records

        rating_history(latest_records(worker.records[:count]), names)
    return (time.process_time() - started) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", default="1000,2000,10000,20000")
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--tree", default=None, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    sizes = sorted(int(x) for x in args.games.split(","))
    names = [f"bot{k}" for k in range(args.bots)]
    records = summaries(max(sizes) + 20 * args.reps + 20, names)
    with tempfile.TemporaryDirectory() as folder:
        settings: dict[str, Any] = {
            "folder": Path(folder), "name": "bench", "names": names, "anchor": None,
            "anchor_rating": 0.0, "bootstrap": 200, "warning": None,
        }  # fmt: skip
        worker = Worker(settings, [])
        add = getattr(worker, "add", worker.records.append)
        for r in records:
            add(r)
        print(f"{args.bots} bots, {TREE or 'this checkout'}; CPU ms per ask, median of {args.reps}")
        print(f"{'games':>8} {'one line':>10} {'table':>10} {'charts':>10}")
        for size in sizes:
            chart = charts(worker, size, names)
            ask(worker, size, False)  # counted up to here (a run's tables come every ten games)
            ask(worker, size, True)
            line, table = [], []
            for rep in range(args.reps):
                line.append(ask(worker, size + 10 + 20 * rep, False))
                table.append(ask(worker, size + 20 + 20 * rep, True))
            print(
                f"{size:>8} {statistics.median(line):>10.1f} {statistics.median(table):>10.1f} {chart:>10.1f}"
            )


if __name__ == "__main__":
    main()
