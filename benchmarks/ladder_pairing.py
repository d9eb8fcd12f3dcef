"""How well each ladder pairing learns the true ratings, by simulation against known truth:
``python benchmarks/ladder_pairing.py [--reps 40] [--rounds 30] [--seed 1]``.

Bots with known Elo ratings play round after round of a ladder, each game won with the
Elo model's probability (``expected_score``), each round paired by
:func:`referee.ladder.pairing.pair_round` from the pairing estimate of every game so far
(:func:`referee.ladder.ratings.pairing_ratings`, the anchor bot held at its true rating),
exactly as ``vastuz ladder`` pairs. Designs: equal bots, fields spread evenly over 1,500
Elo, and the spread field with a newcomer that joins halfway. After the last round, per
design and pairing kind (the same games' seeds for both kinds):

- ``order``: the share of bot pairs at least 50 Elo apart that the estimate orders right;
- ``adjacent``: the same for the neighbours of the true order only (the hard ones);
- ``new rank``: how many places the newcomer's estimated rank is off (its design only);
- ``gap``: the mean true rating gap of the games played (Elo): where the games were spent.

(The pairing estimate is regularised towards the field's middle, by design, so its
absolute errors say more about that prior than about the pairing: the table compares
orders.)
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ladder.config import PairingSpec
from referee.ladder.pairing import pair_round
from referee.ladder.ratings import pairing_ratings
from referee.ratings.elo import expected_score

KINDS = {
    "rating-noise": PairingSpec(kind="rating-noise", noise=100.0, seed=0),
    "information": PairingSpec(kind="information"),
}


def simulate(
    truth: dict[str, float],
    spec: PairingSpec,
    rounds: int,
    seed: int,
    *,
    late: Sequence[str] = (),
    games_per_pairing: int = 2,
) -> tuple[dict[str, float], float]:
    """The final estimates, and the mean true gap of the games played."""
    rng = random.Random(seed)
    tallies: dict[tuple[str, str], list[float]] = {}
    games = dict.fromkeys(truth, 0)
    gap = 0.0
    total = 0
    anchor = min(truth)
    estimate: dict[str, float] = {}
    for number in range(1, rounds + 1):
        playing = [b for b in truth if b not in late or number > rounds // 2]
        rows = [(a, b, s, int(n)) for (a, b), (s, n) in tallies.items()]
        estimate = pairing_ratings(rows, playing, anchor=(anchor, truth[anchor]), prior=truth[anchor])
        pairings = pair_round(
            number, estimate, games, spec, tallies=rows, games_per_pairing=games_per_pairing
        )
        for a, b in pairings.pairs:
            p = expected_score(truth[a] - truth[b])
            won = sum(rng.random() < p for _ in range(games_per_pairing))
            entry = tallies.setdefault((a, b), [0.0, 0.0])
            entry[0] += won
            entry[1] += games_per_pairing
            games[a] += games_per_pairing
            games[b] += games_per_pairing
            total += games_per_pairing
            gap += games_per_pairing * abs(truth[a] - truth[b])
    rows = [(a, b, s, int(n)) for (a, b), (s, n) in tallies.items()]
    estimate = pairing_ratings(rows, list(truth), anchor=(anchor, truth[anchor]), prior=truth[anchor])
    return estimate, gap / max(total, 1)


def scores(truth: dict[str, float], estimate: dict[str, float]) -> tuple[float, float]:
    """The share of pairs at least 50 Elo apart ordered right, and of true neighbours."""
    names = sorted(truth, key=lambda n: truth[n])
    right = pairs = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if abs(truth[a] - truth[b]) >= 50:
                pairs += 1
                right += (estimate[a] - estimate[b]) * (truth[a] - truth[b]) > 0
    adjacent = [(a, b) for a, b in itertools.pairwise(names) if truth[b] - truth[a] >= 50]
    near = sum(estimate[b] > estimate[a] for a, b in adjacent)
    return (right / pairs if pairs else math.nan), (near / len(adjacent) if adjacent else math.nan)


def rank_error(truth: dict[str, float], estimate: dict[str, float], name: str) -> int:
    def rank(values: dict[str, float]) -> int:
        return sorted(values, key=lambda n: (-values[n], n)).index(name)

    return abs(rank(truth) - rank(estimate))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    designs: list[tuple[str, dict[str, float], tuple[str, ...]]] = [
        ("8 equal bots", {f"b{i}": 0.0 for i in range(8)}, ()),
        ("8 bots over 1,500 Elo", {f"b{i}": 1500.0 * i / 7 for i in range(8)}, ()),
        ("16 bots over 1,500 Elo", {f"b{i:02d}": 1500.0 * i / 15 for i in range(16)}, ()),
        (
            "8 over 1,500 + a newcomer at 1,100 (joins halfway)",
            {**{f"b{i}": 1500.0 * i / 7 for i in range(8)}, "new": 1100.0},
            ("new",),
        ),
    ]
    print(f"{args.reps} repetitions of {args.rounds} rounds, 2 games per pairing a round")
    print("| design | pairing | order | adjacent | new rank | gap |\n| --- | --- | --- | --- | --- | --- |")
    for title, truth, late in designs:
        spread = len(set(truth.values())) > 1
        for kind, spec in KINDS.items():
            order_sum = adjacent_sum = new_sum = gap_sum = 0.0
            for rep in range(args.reps):
                estimate, gap = simulate(truth, spec, args.rounds, args.seed * 100_003 + rep, late=late)
                if spread:
                    order, adjacent = scores(truth, estimate)
                    order_sum += order
                    adjacent_sum += adjacent
                gap_sum += gap
                if late:
                    new_sum += rank_error(truth, estimate, late[0])
            reps = args.reps
            order_text = f"{order_sum / reps:.3f} | {adjacent_sum / reps:.3f}" if spread else "- | -"
            new_text = f"{new_sum / reps:.2f}" if late else "-"
            print(f"| {title} | {kind} | {order_text} | {new_text} | {gap_sum / reps:.0f} |")


if __name__ == "__main__":
    main()
