"""Adaptive schedule against round robin by simulation: ``python benchmarks/adaptive.py
[--runs 300] [--games 224] [--draws 0.3] [--bootstrap 200]``.

Eight bots with known logistic Elo (0 to 350, two pairs of close neighbours); games come in
colour-reversed pairs (a per-opening bias the pair cancels, a draw share). Both schedules
get the same budget: round robin plays every two bots equally (``--games`` / 28 per
pairing), adaptive is :class:`~referee.tournament.plans.adaptive.AdaptiveSchedule` fed
the simulated results game by game. At the end of each run :func:`compute_ratings` (with
a modest bootstrap) ranks the bots; printed per schedule: how often the ranking is exactly
right, how many neighbours are misordered on average, and the mean width of the
adjacent-rank gap intervals (Elo).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

from referee.play.records import BotStats, BotSummary, GameSummary, Termination
from referee.play.spec import OpeningKind
from referee.ratings.elo import GameResult, compute_ratings, expected_score
from referee.tournament.plans.adaptive import AdaptivePlan, AdaptiveSchedule

TRUE = {"b0": 0, "b1": 60, "b2": 80, "b3": 150, "b4": 200, "b5": 260, "b6": 280, "b7": 350}
BOTS = tuple(TRUE)


def game(rng: random.Random, a: str, b: str, bias: float, draws: float) -> float:
    """a's points against b: logistic expected score shifted by the opening's bias."""
    score = min(max(expected_score(TRUE[a] - TRUE[b]) + bias, 0.01), 0.99)
    d = min(draws, 2 * min(score, 1 - score))
    r = rng.random()
    win = score - d / 2
    return 1.0 if r < win else 0.5 if r < win + d else 0.0


def round_robin(rng: random.Random, games: int, draws: float) -> list[GameResult]:
    pairings = [(a, b) for i, a in enumerate(BOTS) for b in BOTS[i + 1 :]]
    out = []
    for k in range(games // (2 * len(pairings))):
        for a, b in pairings:
            bias = rng.uniform(-0.15, 0.15)
            key = (a, b, k)
            out += [GameResult(a, b, game(rng, a, b, bias, draws), key)]
            out += [GameResult(b, a, game(rng, b, a, -bias, draws), key)]
    return out


def summary(slot: str, first: str, second: str, points: float) -> GameSummary:
    stats = BotStats()
    return GameSummary(
        game_id=slot,
        slot=slot,
        labels=(first, second),
        winner=None if points == 0.5 else 0 if points == 1 else 1,
        termination=Termination.SCORE,
        fault=None,
        pair_key=slot.rsplit("-", 1)[0],
        bots=(BotSummary(first, stats), BotSummary(second, stats)),
        moves=0,
    )


def adaptive(rng: random.Random, games: int, draws: float) -> list[GameResult]:
    schedule = AdaptiveSchedule(AdaptivePlan(BOTS, OpeningKind.PIE, games=games))
    out = []
    bias = 0.0
    for g in schedule.games(set()):
        if g.game == 1:
            bias = rng.uniform(-0.15, 0.15)
        points = game(rng, g.first, g.second, bias if g.game == 1 else -bias, draws)
        schedule.record(summary(g.slot, g.first, g.second, points))
        out.append(GameResult(g.first, g.second, points, g.pair_key))
    return out


def judge(results: list[GameResult], bootstrap: int, seed: int) -> tuple[bool, int, float]:
    ratings = compute_ratings(results, BOTS, bootstrap=bootstrap, seed=seed)
    order = [r.name for r in ratings.ratings]
    truth = sorted(BOTS, key=lambda n: -TRUE[n])
    wrong = sum(TRUE[x] < TRUE[y] for x, y in itertools.pairwise(order))
    widths = [g.high - g.low for g in ratings.gaps.values()]
    return order == truth, wrong, sum(widths) / max(len(widths), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--games", type=int, default=8 * 7 * 4)
    parser.add_argument("--draws", type=float, default=0.3)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"true Elo: {TRUE}; {args.games} games per run, draw share {args.draws}, {args.runs} runs")
    print(f"{'schedule':<12} {'exact ranking':>14} {'misordered':>11} {'gap CI width':>13}")
    for name, run in (("round robin", round_robin), ("adaptive", adaptive)):
        rng = random.Random(args.seed)
        exact = wrong = 0
        width = 0.0
        for k in range(args.runs):
            ok, bad, w = judge(run(rng, args.games, args.draws), args.bootstrap, k)
            exact += ok
            wrong += bad
            width += w
        n = args.runs
        print(f"{name:<12} {exact / n:>13.1%} {wrong / n:>11.2f} {width / n:>13.1f}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
