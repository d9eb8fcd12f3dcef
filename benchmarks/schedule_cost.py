"""What the adaptive schedule's choices cost as the field grows: ``python
benchmarks/schedule_cost.py [--bots 10,40,80] [--tree PATH]``.

The schedule runs in the referee's own process and is asked for a pair each time one
starts, so its cost is paid on the game path. For each field size, bots spread evenly over
1,500 Elo are fed results drawn from their ratings (the first seat wins with the logistic
expected score) with a budget of one pair a pairing and ``8 * bots`` games more; printed:
the CPU milliseconds a game of the warm-up (every pair chosen
by the floor rule) and of the adaptive part (every pair from a fit of the results and the
information matrix). ``--tree PATH`` measures another checkout of the project, for figures
side by side.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

TREE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv else None
sys.path.insert(0, str(TREE or Path(__file__).resolve().parent.parent))

from referee.play.records import BotStats, BotSummary, GameSummary, Termination  # noqa: E402
from referee.play.spec import OpeningKind  # noqa: E402
from referee.tournament.plans.adaptive import AdaptivePlan, AdaptiveSchedule  # noqa: E402


def summary(slot: str, first: str, second: str, winner: int) -> GameSummary:
    key = slot.rsplit("-", 1)[0]
    bots = (BotSummary(first, BotStats()), BotSummary(second, BotStats()))
    return GameSummary(slot, slot, (first, second), winner, Termination.SCORE, None, key, bots, 0)


def cost(size: int, seed: int) -> tuple[int, float, int, float]:
    """(warm-up games, CPU ms a game; adaptive games, CPU ms a game)."""
    bots = tuple(f"b{k:03d}" for k in range(size))
    strength = {b: 1500.0 * k / (size - 1) for k, b in enumerate(bots)}
    rng = random.Random(seed)
    plan = AdaptivePlan(bots, OpeningKind.PIE, games=2 * (size * (size - 1) // 2) + 8 * size)
    schedule = AdaptiveSchedule(plan)
    spent = {True: 0.0, False: 0.0}
    count = {True: 0, False: 0}
    games = schedule.games(set())
    while True:
        warm = schedule.warming_up
        began = time.process_time()
        game = next(games, None)
        spent[warm] += time.process_time() - began
        if game is None:
            break
        count[warm] += 1
        p = 1.0 / (1.0 + 10.0 ** ((strength[game.second] - strength[game.first]) / 400.0))
        began = time.process_time()
        schedule.record(summary(game.slot, game.first, game.second, 0 if rng.random() < p else 1))
        spent[warm] += time.process_time() - began
    per = {w: spent[w] / max(1, count[w]) * 1e3 for w in (True, False)}
    return count[True], per[True], count[False], per[False]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", default="10,40,80")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tree", default=None, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    print(f"the adaptive schedule, {TREE or 'this checkout'}; CPU ms a game (choosing and recording)")
    print(f"{'bots':>6} {'warm-up games':>14} {'ms a game':>10} {'adaptive games':>15} {'ms a game':>10}")
    for size in (int(x) for x in args.bots.split(",")):
        warm, warm_ms, adapt, adapt_ms = cost(size, args.seed)
        print(f"{size:>6} {warm:>14} {warm_ms:>10.2f} {adapt:>15} {adapt_ms:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
