"""Are the rating intervals and LOS honest? Coverage by simulation, and the standings' cost:
``python benchmarks/ratings.py [--reps 300] [--los-reps 1000] [--draws 400] [--seed 1]
[--skip-timing] [--only coverage,los,pentanomial,timing,los-exact]``.

Games are drawn from known ratings: every pairing plays colour-reversed opening pairs
(the first seat gets ``--colour`` Elo of advantage), a game is drawn with probability
``--draw-rate * 4 p (1 - p)`` (``p`` the first bot's expected score), the rest split so the
expected score stays ``p``. For each design, each repetition is rated by
:func:`referee.ratings.elo.compute_ratings` exactly as a report is (``--draws`` posterior
draws), and the table gives how often the 95% interval of each bot holds its true rating
on the same scale (the true ratings centred on their mean, as the fit is), how often the
interval of each neighbour gap holds the true gap, and the mean interval width. The
target is 93-97%.

LOS rows: two equal bots; the share of repetitions in which the leader's "LOS next" is at
least 99% after 10 games, and at least 95% after 40 games, the games counted as lone games
(a match without pair keys) and as opening pairs. A calibrated LOS is a two-sided
error rate here (whichever bot leads): about 2% and 10%. With 1,000 repetitions a row is
good to about half a point (the 10-game lone row reads 3.1% on the default stream, 1.6%
and 2.6% on seeds 2 and 3); ``--only los-exact`` computes that row instead of sampling it:
every win/draw/loss count with its probability, times the share of bootstrap seeds that
put its LOS over 99% (2.08% with 400 seeds per count).

Pentanomial rows: 20 opening pairs at a gap of 0, 400 and 800; coverage of the interval of
:func:`referee.ratings.elo.pentanomial` (the true value is the Elo of the true mean score
over both colours).

Timing rows: :func:`referee.ratings.report.standings` with the default 1000 draws on 4,000
and 100,000 games of a 10-bot round robin (records stand-ins carrying what standings read).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.play.records import Termination
from referee.ratings.elo import GameResult, compute_ratings, elo_from_score, expected_score, pentanomial
from referee.ratings.report import standings


@dataclass(frozen=True)
class Design:
    name: str
    true: dict[str, float]
    pairings: list[tuple[str, str]]
    pairs_per_pairing: int


def round_robin(name: str, ratings: Sequence[float], games: int) -> Design:
    true = {f"b{k}": r for k, r in enumerate(ratings)}
    names = sorted(true)
    pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
    return Design(name, true, pairings, games // 2)


def gauntlet(ratings: Sequence[float], games: int) -> Design:
    true = {"seed": 0.0} | {f"g{k}": r for k, r in enumerate(ratings)}
    pairings = [("seed", f"g{k}") for k in range(len(ratings))]
    return Design(f"gauntlet 1+{len(ratings)} x {games}, non-seeds never meet", true, pairings, games // 2)


DESIGNS = [
    round_robin("5 bots x 40 games per pair", [-200, -100, 0, 100, 200], 40),
    round_robin("3 bots x 400 games per pair", [-100, 0, 150], 400),
    gauntlet([-300, -150, -50, 50, 150, 300], 40),
    round_robin("2 bots 800 apart x 40 games", [0, 800], 40),
]


@dataclass
class Sim:
    colour: float
    draw_rate: float
    rng: random.Random

    def score(self, diff: float) -> float:
        """One game's score for the first seat, ``diff`` Elo above its opponent."""
        p = expected_score(diff + self.colour)
        draw = self.draw_rate * 4.0 * p * (1.0 - p)
        r = self.rng.random()
        return 1.0 if r < p - draw / 2 else 0.5 if r < p + draw / 2 else 0.0

    def games(
        self, true: dict[str, float], pairings: Sequence[tuple[str, str]], pairs: int
    ) -> list[GameResult]:
        out = []
        key = 0
        for x, y in pairings:
            for _ in range(pairs):
                out.append(GameResult(x, y, self.score(true[x] - true[y]), pair=key))
                out.append(GameResult(y, x, self.score(true[y] - true[x]), pair=key))
                key += 1
        return out

    def true_score(self, diff: float) -> float:
        """The true mean score over both colours of a bot ``diff`` Elo above the other."""
        return (expected_score(diff + self.colour) + 1.0 - expected_score(-diff + self.colour)) / 2.0


@dataclass
class Tally:
    hits: int = 0
    trials: int = 0
    widths: list[float] = field(default_factory=list)

    def add(self, low: float, high: float, truth: float) -> None:
        self.trials += 1
        self.hits += low <= truth <= high
        self.widths.append(high - low)

    @property
    def rate(self) -> float:
        return 100.0 * self.hits / self.trials if self.trials else float("nan")


def coverage(design: Design, sim: Sim, reps: int, draws: int) -> tuple[Tally, Tally]:
    bots, gaps = Tally(), Tally()
    mean = sum(design.true.values()) / len(design.true)
    for rep in range(reps):
        games = sim.games(design.true, design.pairings, design.pairs_per_pairing)
        r = compute_ratings(games, sorted(design.true), bootstrap=draws, seed=rep)
        for x in r.ratings:
            assert x.low is not None and x.high is not None
            bots.add(x.low, x.high, design.true[x.name] - mean)
        for (a, b), gap in r.gaps.items():
            gaps.add(gap.low, gap.high, design.true[a] - design.true[b])
    return bots, gaps


def los_rate(sim: Sim, games: int, threshold: float, reps: int, draws: int, paired: bool) -> float:
    hits = 0
    for rep in range(reps):
        played = sim.games({"x": 0.0, "y": 0.0}, [("x", "y")], games // 2)
        if not paired:  # the same games as lone games (a match without pair keys)
            played = [GameResult(g.a, g.b, g.score_a) for g in played]
        r = compute_ratings(played, bootstrap=draws, seed=rep)
        hits += any(v >= threshold for v in r.los.values())
    return 100.0 * hits / reps


def exact_los_rate(sim: Sim, games: int, threshold: float, draws: int, seeds: int) -> float:
    """The false-confidence rate of the lone-games LOS row computed, not sampled: every
    win/draw/loss count of ``games`` games between equal bots (half of them in each seat)
    with its probability under the simulation's model, times the share of ``seeds``
    bootstrap seeds that put that count's LOS at or over ``threshold`` (near the bound a
    count's LOS depends on the seed: 1-1-8 after 10 games has a mean LOS of 0.99)."""
    p = expected_score(sim.colour)
    draw = sim.draw_rate * 4.0 * p * (1.0 - p)
    seats = [{(1, 0, 0): p - draw / 2, (0, 1, 0): draw, (0, 0, 1): 1.0 - p - draw / 2}]
    seats.append({(1, 0, 0): 1.0 - p - draw / 2, (0, 1, 0): draw, (0, 0, 1): p - draw / 2})
    counts: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}
    for game in range(games):
        grown: dict[tuple[int, int, int], float] = {}
        for (w, d, lost), q in counts.items():
            for (dw, dd, dl), r in seats[game % 2].items():
                key = (w + dw, d + dd, lost + dl)
                grown[key] = grown.get(key, 0.0) + q * r
        counts = grown
    rate = 0.0
    for (w, d, lost), q in counts.items():
        played = [GameResult("x", "y", 1.0)] * w + [GameResult("x", "y", 0.5)] * d
        played += [GameResult("x", "y", 0.0)] * lost
        if max(compute_ratings(played, bootstrap=draws, seed=0).los.values(), default=0.0) < threshold - 0.05:
            continue  # far from the bound: no seed gets there
        over = sum(
            max(compute_ratings(played, bootstrap=draws, seed=s).los.values()) >= threshold
            for s in range(seeds)
        )
        rate += q * over / seeds
    return 100.0 * rate


def pentanomial_coverage(sim: Sim, gap: float, pairs: int, reps: int) -> tuple[float, float]:
    truth = elo_from_score(sim.true_score(gap))
    tally = Tally()
    for _ in range(reps):
        p = pentanomial(sim.games({"x": gap, "y": 0.0}, [("x", "y")], pairs), "x", "y")
        assert p is not None
        tally.add(p.low, p.high, truth)
    finite = sorted(w for w in tally.widths if w != float("inf"))
    return tally.rate, finite[len(finite) // 2] if finite else float("inf")


# ------------------------------------------------------------------------------ timing


@dataclass(frozen=True)
class _Stats:
    requests: int = 0
    overhead_us: float = 0.0


@dataclass(frozen=True)
class _Bot:
    label: str
    stats: _Stats = _Stats()


@dataclass(frozen=True)
class _Record:
    """What :func:`standings` reads of a record, nothing else."""

    labels: tuple[str, str]
    winner: int | None
    pair_key: str | None
    bots: tuple[_Bot, _Bot]
    termination: Termination = Termination.SCORE
    fault: None = None

    @property
    def is_void(self) -> bool:
        return False


def standings_seconds(total: int, sim: Sim) -> tuple[float, int]:
    true = {f"b{k}": 40.0 * k for k in range(10)}
    names = sorted(true)
    pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
    games = sim.games(true, pairings, max(1, total // (2 * len(pairings))))
    records = [
        _Record(
            (g.a, g.b),
            None if g.score_a == 0.5 else 0 if g.score_a == 1.0 else 1,
            str(g.pair),
            (_Bot(g.a), _Bot(g.b)),
        )
        for g in games
    ]
    start = time.perf_counter()
    standings(records, names)  # type: ignore[arg-type]  # duck-typed stand-ins
    return time.perf_counter() - start, len(records)


def _section(title: str, run: Callable[[], None]) -> None:
    print(title)
    start = time.perf_counter()
    run()
    print(f"  ({time.perf_counter() - start:.0f} s)\n", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=300, help="repetitions per coverage design")
    parser.add_argument("--los-reps", type=int, default=1000, help="repetitions per LOS row")
    parser.add_argument("--penta-reps", type=int, default=2000, help="repetitions per pentanomial row")
    parser.add_argument("--draws", type=int, default=400, help="posterior draws per rating")
    parser.add_argument("--colour", type=float, default=30.0, help="first seat's advantage in Elo")
    parser.add_argument("--draw-rate", type=float, default=0.2, help="draw probability between equals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--exact-seeds", type=int, default=400, help="bootstrap seeds per outcome (los-exact)"
    )
    parser.add_argument(
        "--only", default="coverage,los,pentanomial,timing", help="also: los-exact (3 minutes)"
    )
    args = parser.parse_args(argv)
    parts = set(args.only.split(","))
    sim = Sim(args.colour, args.draw_rate, random.Random(args.seed))
    print(
        f"games from known ratings: colour-reversed pairs, first seat +{args.colour:g} Elo, "
        f"draw rate {args.draw_rate:g} between equals, {args.draws} posterior draws per rating\n"
    )

    def covers() -> None:
        print(f"  {'design':<45} {'reps':>5} {'bots cover':>10} {'gaps cover':>10} {'mean width':>10}")
        for design in DESIGNS:
            bots, gaps = coverage(design, sim, args.reps, args.draws)
            width = sum(bots.widths) / len(bots.widths)
            print(f"  {design.name:<45} {args.reps:>5} {bots.rate:>9.1f}% {gaps.rate:>9.1f}% {width:>10.0f}")

    def calibration() -> None:
        print(f"  {'two equal bots':<45} {'reps':>5} {'rate':>7} {'calibrated':>10}")
        for games, threshold, right in ((10, 0.99, 2.0), (40, 0.95, 10.0)):
            for paired in (False, True):
                rate = los_rate(sim, games, threshold, args.los_reps, args.draws, paired)
                kind = f"{games // 2} opening pairs" if paired else "lone games"
                label = f"LOS >= {100 * threshold:.0f}% after {games} games ({kind})"
                print(f"  {label:<45} {args.los_reps:>5} {rate:>6.1f}% {right:>9.0f}%")

    def exact() -> None:
        rate = exact_los_rate(sim, 10, 0.99, args.draws, args.exact_seeds)
        label = "LOS >= 99% after 10 games (lone games)"
        print(f"  {'two equal bots, every outcome':<45} {'seeds':>5} {'rate':>7} {'calibrated':>10}")
        print(f"  {label:<45} {args.exact_seeds:>5} {rate:>6.2f}% {2:>9.0f}%")

    def penta() -> None:
        print(f"  {'20 pairs, true gap':<45} {'reps':>5} {'covers':>7} {'median width':>12}")
        for gap in (0.0, 400.0, 800.0):
            rate, width = pentanomial_coverage(sim, gap, 20, args.penta_reps)
            print(f"  {gap:<45.0f} {args.penta_reps:>5} {rate:>6.1f}% {width:>12.0f}")

    def timing() -> None:
        for total in (4_000, 100_000):
            seconds, n = standings_seconds(total, sim)
            print(f"  standings of {n:,} games (10 bots, 1000 draws): {seconds:.2f} s")

    for name, title, run in (
        ("coverage", "95% intervals: coverage of the true ratings and gaps (target 93-97%)", covers),
        ("los", "LOS calibration (false confidence between equal bots)", calibration),
        ("los-exact", "LOS calibration computed over every outcome (not sampled)", exact),
        ("pentanomial", "pentanomial 95% interval coverage", penta),
        ("timing", "standings cost", timing),
    ):
        if name in parts:
            _section(title, run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
