"""SPRT error rates by simulation: ``python benchmarks/sprt.py [--runs 300] [--elo0 0]
[--elo1 20] [--alpha 0.05] [--beta 0.05] [--model normalized|logistic] [--every 4]``.

Game pairs are drawn from a pentanomial model with a known logistic Elo difference and a
draw rate (each game of a pair: win/draw/loss from the logistic expected score with the
given draw share, plus a per-opening bias that the colour-reversed pair cancels, which is
what makes pairs correlated); the test of :mod:`referee.ratings.sprt` is run on them pair
by pair (the LLR is looked at every ``--every`` pairs, like a runner that checks after each
batch of results) until it decides or reaches ``--max-pairs``. Printed per true Elo: how
often H1 was accepted (must be at most about alpha at elo0 and at least 1 - beta at
elo1), how often nothing was decided, and the mean and 90th percentile number of pairs.

``--games``: the single-game test instead (``vastuz sprt --wdl`` without pair counts,
:func:`referee.ratings.sprt.llr_games`), on independent games (no opening bias: the case
it assumes), looked at every ``2 * --every`` games; lengths are then in games / 2.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ratings.sprt import Decision, Model, Sprt, logistic_score


def game(rng: random.Random, score: float, draws: float) -> float:
    """One game's points for the candidate: expected value ``score``, draw share ``draws``
    (capped so that win and loss probabilities stay non-negative)."""
    d = min(draws, 2 * min(score, 1 - score))
    win = score - d / 2
    r = rng.random()
    return 1.0 if r < win else 0.5 if r < win + d else 0.0


def simulate(
    rng: random.Random, test: Sprt, true_elo: float, draws: float, every: int, max_pairs: int
) -> tuple[Decision | None, int]:
    counts = [0, 0, 0, 0, 0]
    base = logistic_score(true_elo)
    for pairs in range(1, max_pairs + 1):
        # An opening favours one colour by a random amount; the pair plays it both ways.
        bias = rng.uniform(-0.15, 0.15)
        first = game(rng, min(max(base + bias, 0.01), 0.99), draws)
        second = game(rng, min(max(base - bias, 0.01), 0.99), draws)
        counts[round((first + second) * 2)] += 1
        if pairs % every == 0:
            decision = test.status(counts).decision
            if decision is not None:
                return decision, pairs
    return None, max_pairs


def simulate_games(
    rng: random.Random, test: Sprt, true_elo: float, draws: float, every: int, max_pairs: int
) -> tuple[Decision | None, int]:
    wdl = [0, 0, 0]
    score = logistic_score(true_elo)
    for games in range(1, 2 * max_pairs + 1):
        points = game(rng, score, draws)
        wdl[0 if points == 1 else 1 if points == 0.5 else 2] += 1
        if games % (2 * every) == 0:
            decision = test.status_of_games((wdl[0], wdl[1], wdl[2])).decision
            if decision is not None:
                return decision, games // 2
    return None, max_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=20.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--model", choices=[m.value for m in Model], default="logistic")
    parser.add_argument("--draws", type=float, default=0.3, help="share of drawn games")
    parser.add_argument("--every", type=int, default=4, help="pairs between two looks at the LLR")
    parser.add_argument("--max-pairs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", action="store_true", help="the single-game (W-D-L) test")
    args = parser.parse_args()
    run = simulate_games if args.games else simulate
    test = Sprt(args.elo0, args.elo1, args.alpha, args.beta, Model(args.model))
    rng = random.Random(args.seed)
    print(
        f"SPRT [{args.elo0:g}, {args.elo1:g}] ({args.model} Elo; the simulation's true Elo is logistic), "
        f"alpha {args.alpha:g}, beta {args.beta:g}, {args.runs} runs per row, draws {args.draws:.0%}, "
        f"LLR looked at every {args.every} pairs" + (" (single games: the W-D-L test)" if args.games else "")
    )
    print(
        f"{'true Elo':>9} {'H1 accepted':>12} {'undecided':>10} {'mean pairs':>11} {'p90 pairs':>10} {'s':>6}"
    )
    for true_elo in (args.elo0 - (args.elo1 - args.elo0), args.elo0, (args.elo0 + args.elo1) / 2, args.elo1):
        started = time.perf_counter()
        h1 = undecided = 0
        lengths = []
        for _ in range(args.runs):
            decision, pairs = run(rng, test, true_elo, args.draws, args.every, args.max_pairs)
            h1 += decision is Decision.H1
            undecided += decision is None
            lengths.append(pairs)
        lengths.sort()
        p90 = lengths[math.ceil(0.9 * len(lengths)) - 1]
        print(
            f"{true_elo:>9g} {h1 / args.runs:>12.1%} {undecided / args.runs:>10.1%} "
            f"{sum(lengths) / len(lengths):>11.0f} {p90:>10} {time.perf_counter() - started:>6.0f}"
        )


if __name__ == "__main__":
    main()
