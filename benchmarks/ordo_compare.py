"""Do our point estimates agree with Ordo's? ``python benchmarks/ordo_compare.py --ordo PATH
[--seed 1] [--cases 6]``.

Ordo (Miguel Ballicora, https://github.com/michiguel/Ordo) is not part of this project:
build it yourself (``make`` in its source folder) and pass the binary. For each case,
games are drawn from known ratings (colour-reversed pairs, some draws; round robins of
several sizes and a gauntlet), written as a minimal PGN file (tags and result only, no
moves), and rated twice: by Ordo in maximum-likelihood mode on the logistic scale (white
advantage 0, pool average 0, ``-z`` set so 76% is the logistic 400-point value), and by
:func:`referee.ratings.elo.compute_ratings` (mean 0, no intervals needed for the estimate).
Prints the largest absolute difference per case and overall; the target is 0.005 Elo.
Cases where the maximum likelihood is infinite (a bot with a perfect score, or any set of
bots that never dropped a point to the rest) are skipped: we report bounds there, and
Ordo has its own treatment of such players.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ratings.elo import GameResult, RunningCounts, compute_ratings, expected_score

_RESULT = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}


def write_pgn(games: Sequence[GameResult], path: Path) -> None:
    """One PGN game per result: ``a`` is White, ``b`` Black; no moves."""
    with path.open("w", encoding="utf-8") as out:
        for k, g in enumerate(games):
            result = _RESULT[g.score_a]
            out.write(
                f'[Event "vastuz"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "{k + 1}"]\n'
                f'[White "{g.a}"]\n[Black "{g.b}"]\n[Result "{result}"]\n\n{result}\n\n'
            )


def simulate(
    true: dict[str, float], pairings: Sequence[tuple[str, str]], pairs: int, rng: random.Random
) -> list[GameResult]:
    games = []
    for x, y in pairings:
        for _ in range(pairs):
            for a, b in ((x, y), (y, x)):
                p = expected_score(true[a] - true[b] + 20.0)  # a small first-seat edge
                draw = 0.2 * 4.0 * p * (1.0 - p)
                r = rng.random()
                games.append(GameResult(a, b, 1.0 if r < p - draw / 2 else 0.5 if r < p + draw / 2 else 0.0))
    return games


def ordo_ratings(ordo: str, games: Sequence[GameResult]) -> dict[str, float]:
    scale = 400.0 * math.log10(0.76 / 0.24)  # Ordo's -z: the rating of a 76% expectancy
    with tempfile.TemporaryDirectory() as tmp:
        pgn, out = Path(tmp) / "games.pgn", Path(tmp) / "ratings.csv"
        write_pgn(games, pgn)
        subprocess.run(
            [ordo, "-q", "-M", "-p", str(pgn), "-c", str(out), "-a", "0", "-w", "0", "-z", f"{scale:.10f}",
             "-N", "6"],
            check=True,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        with out.open(encoding="utf-8") as f:
            rows = list(csv.reader(f))
    header = [h.strip().strip('"') for h in rows[0]]
    name, rating = header.index("PLAYER"), header.index("RATING")
    return {row[name].strip().strip('"'): float(row[rating]) for row in rows[1:] if row}


def cases(rng: random.Random, count: int) -> list[tuple[str, dict[str, float], list[tuple[str, str]], int]]:
    out = []
    for k in range(count):
        size = [3, 5, 8, 12][k % 4]
        true = {f"bot{n:02d}": rng.uniform(-400, 400) for n in range(size)}
        names = sorted(true)
        pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
        pairs = [200, 20, 10, 5][k % 4]
        out.append((f"round robin {size} bots x {2 * pairs} games", true, pairings, pairs))
    seeds = {"seed": 0.0} | {f"g{n}": rng.uniform(-300, 300) for n in range(6)}
    out.append(("gauntlet 1+6 x 100 games", seeds, [("seed", f"g{n}") for n in range(6)], 50))
    # The spread fields of benchmarks/ratings.py: often an infinite maximum likelihood
    # (skipped below), compared whenever it is finite.
    for size, step, pairs in ((5, 200, 10), (5, 400, 10), (8, 100, 1), (8, 100, 5)):
        true = {f"s{n}": float(step * n) for n in range(size)}
        names = sorted(true)
        pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
        label = f"spread {size} bots 0..{step * (size - 1)} x {2 * pairs} games"
        out.append((label, true, pairings, pairs))
    # Fields fitted in numpy's arrays (referee/ratings/dense.py): their own ratings' draws,
    # and their games last, so that the cases above are the games they were before.
    large = random.Random(23)
    for size, pairs in ((24, 5), (40, 3)):
        true = {f"bot{n:02d}": large.uniform(-400, 400) for n in range(size)}
        names = sorted(true)
        pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
        out.append((f"round robin {size} bots x {2 * pairs} games", true, pairings, pairs))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ordo", required=True, help="path of a built Ordo binary")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=8, help="round robins (plus one gauntlet)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    worst = 0.0
    total_games = 0
    for name, true, pairings, pairs in cases(rng, args.cases):
        games = simulate(true, pairings, pairs, rng)
        ours = compute_ratings(games, bootstrap=0)
        if any(x.bound is not None for x in ours.ratings):
            print(f"  {name:<40} skipped: an infinite maximum likelihood (bounds)")
            continue
        theirs = ordo_ratings(args.ordo, games)
        # The standings' own road: the games counted one at a time (RunningCounts), fitted.
        running = RunningCounts()
        for game in games:
            running.add(game)
        counted = running.ratings(bootstrap=0)
        diff = max(
            abs(x.elo - theirs[x.name]) for r in (ours, counted) for x in r.ratings if x.elo is not None
        )
        worst = max(worst, diff)
        total_games += len(games)
        print(f"  {name:<40} {len(games):>6} games  max |ours - Ordo| = {diff:.6f} Elo (fit and counted)")
    print(f"overall: {total_games} games, max |ours - Ordo| = {worst:.6f} Elo (target < 0.005)")
    return 0 if worst < 0.005 else 1


if __name__ == "__main__":
    raise SystemExit(main())
