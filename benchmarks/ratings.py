"""Are the rating intervals and LOS honest? Coverage by simulation, and the standings' cost:
``python benchmarks/ratings.py [--reps 300] [--los-reps 1000] [--draws 400] [--seed 1]
[--designs SUBSTRING] [--only coverage,exact,design-los,los,pentanomial,timing,kernels,blas,los-exact]``.

Games are drawn from known ratings: every pairing plays colour-reversed opening pairs
(the first seat gets ``--colour`` Elo of advantage, or the design's own), a game is drawn
with probability ``--draw-rate * 4 p (1 - p)`` (``p`` the first seat's expected score), the
rest split so the expected score stays ``p``. A design marked "lone games" plays the same
games (colours still alternating) without pair keys. For each design, each repetition is
rated by :func:`referee.ratings.elo.compute_ratings` exactly as a report is (``--draws``
is passed on as ``bootstrap``), and the table gives:

- ``bots cover``: how often the 95% interval of a bot holds its true rating on the report's
  own scale: relative to the anchor, or to the mean of the bots the report centres the
  group on (``Ratings.scale`` where the report has it, else every bot of the group), with
  the lowest and highest rate of a single bot in brackets. The anchor's line (and any line
  that is a single point by construction) is not counted: it holds the truth by definition.
  The true rating is what the estimates converge to with ever more games of the design
  (:func:`estimand`): the model has no colour term, so a colour advantage, which the
  colour-reversed pairs cancel from the mean score, still pulls that score towards 1/2;
  ``shift`` is the largest difference between that and the ratings the games were drawn
  from (negligible but for the designs with a large colour advantage).
- ``gaps cover``: the same for the interval of each neighbour gap of the leaderboard.
- ``at end``: the share of lines (bots and gaps) whose estimate is an end of its own
  interval and which are not bounds. An interval that has to be stretched to reach its
  estimate shows up here; the target is 0.
- ``bounds``: the share of lines that are bounds (see below).
- ``width``: the mean width of the bots' finite intervals.
- ``estimates``: ``bots cover`` over the lines that are not bounds only.
- ``every gap``: the coverage of the interval of every pair of bots' gap (each connected
  group's, by the same fit), pairs fixed before the games rather than chosen by the
  leaderboard: the contrast a 95% interval is a statement about.

How a bound is judged. When the maximum-likelihood rating is infinite (a bot, or a set of
bots, won or lost everything against part of the field), the report's line is a bound: its
interval is one-sided, ``[low, inf)`` shown ``> low`` (or ``(-inf, high]``, ``< high``), the
set of values the data do not reject. It is judged by the same rule as any interval: it
covers when it holds the truth, i.e. when the true rating (or gap) is at least ``low``. A
bound set too high is a miss; a bound can never miss on its open side, so a design where
most lines are bounds reaches its coverage partly by construction, which is why the share
of bound lines is printed beside it. A bound's estimate is infinite, so it is at an end of
its interval by definition and is not counted in ``at end``.

The target for both coverage columns is 92-98% in every design; with 300 repetitions a rate
is good to about 1.3 points either way, so ``exact`` computes the smallest design's over
every outcome of its games instead. Two designs sit above the window by construction, not
by wide intervals, and the two last columns show it: the neighbour gaps of equal bots
(neighbours are the pairs the estimates put closest, so their gap is nearer 0 than a random
pair's; ``every gap`` is at 95%) and two bots far apart (about half the matches are sweeps,
and a sweep's bound, honest at the 2.5% level for a gap near it, holds a much larger true
gap every time, as any bound the data allow would; ``estimates`` is at 95%).

LOS on the designs: for every neighbour gap of every repetition, the report's LOS (the
likelihood that the upper bot is truly stronger) against the truth: ``LOS>=95%`` and
``LOS>=99%`` give how many claims were made and the share of them that were wrong (a truly
equal pair counts half wrong); calibrated or conservative means at most about 5% and 1%.
``mean LOS`` against ``right`` compares the average LOS with the share of neighbours truly in
that order (a calibrated LOS has them equal, a conservative one below).

LOS rows: two equal bots; the share of repetitions in which the leader's "LOS next" is at
least 99% after 10 games, and at least 95% after 40 games, the games counted as lone games
(a match without pair keys) and as opening pairs. A calibrated LOS is a two-sided error
rate here (whichever bot leads): about 2% and 10%. ``--only los-exact`` computes the
10-game lone row instead of sampling it: every win/draw/loss count with its probability,
times the share of ``--exact-seeds`` seeds that put its LOS over 99% (a method without
randomness gives the same answer for every seed).

Pentanomial rows: 20 opening pairs at a gap of 0, 400 and 800, with the default colour
advantage and with +150; coverage of the interval of
:func:`referee.ratings.elo.pentanomial` (the true value is the Elo of the true mean score
over both colours), and how often its estimate is an end of its own interval without being
a perfect score.

Timing rows: :func:`referee.ratings.report.standings` (``bootstrap=1000``, the report's
default) on 4,000 and 100,000 games of a 10-bot round robin (records stand-ins carrying
what standings read), and :func:`compute_ratings` alone on the same games.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.play.records import Termination
from referee.ratings import fit
from referee.ratings.elo import GameResult, compute_ratings, elo_from_score, expected_score, pentanomial
from referee.ratings.fit import ELO_PER_NAT, fit_strengths
from referee.ratings.groups import GroupFit, connected_groups
from referee.ratings.report import standings
from referee.ratings.units import outcome_counts, totals


@dataclass(frozen=True)
class Design:
    name: str
    true: dict[str, float]
    pairings: list[tuple[str, str]]
    pairs_per_pairing: int
    anchor: str | None = None
    colour: float | None = None  # first seat's advantage; None: the command line's
    paired: bool = True  # False: the same games as lone games (no pair keys)


def round_robin(name: str, ratings: Sequence[float], games: int, **options: Any) -> Design:
    true = {f"b{k}": r for k, r in enumerate(ratings)}
    names = sorted(true)
    pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
    return Design(name, true, pairings, games // 2, **options)


def gauntlet(ratings: Sequence[float], games: int) -> Design:
    true = {"seed": 0.0} | {f"g{k}": r for k, r in enumerate(ratings)}
    pairings = [("seed", f"g{k}") for k in range(len(ratings))]
    return Design(f"gauntlet 1+{len(ratings)} x {games}, non-seeds never meet", true, pairings, games // 2)


_SPREAD_8 = [100.0 * k for k in range(8)]


def _spread(size: int, elo: float) -> list[float]:
    return [elo * k / (size - 1) for k in range(size)]


DESIGNS = [
    round_robin("5 bots x 40 games per pair", [-200, -100, 0, 100, 200], 40),
    round_robin("3 bots x 400 games per pair", [-100, 0, 150], 400),
    round_robin("4 equal bots x 10 games per pair", [0, 0, 0, 0], 10),
    gauntlet([-300, -150, -50, 50, 150, 300], 40),
    round_robin("2 bots 100 apart x 6 games", [0, 100], 6),
    round_robin("2 bots 800 apart x 40 games", [0, 800], 40),
    round_robin("8 bots 0..700 by 100, 1 pair per pairing", _SPREAD_8, 2),
    round_robin("same, anchored on the weakest", _SPREAD_8, 2, anchor="b0"),
    round_robin("same, anchored on the strongest", _SPREAD_8, 2, anchor="b7"),
    round_robin("5 bots 0..1600 by 400 x 20 games", [0, 400, 800, 1200, 1600], 20),
    round_robin("5 bots 0..800 by 200 x 20 games", [0, 200, 400, 600, 800], 20),
    round_robin("5 bots 0..400 x 20, first seat +150", [0, 100, 200, 300, 400], 20, colour=150.0),
    round_robin("same as lone games (no pair keys)", [0, 100, 200, 300, 400], 20, colour=150.0, paired=False),
    # Fields large enough to be fitted in numpy's arrays (referee/ratings/dense.py).
    round_robin("16 equal bots, 1 pair per pairing", [0.0] * 16, 2),
    round_robin("24 bots 0..1500, 1 pair per pairing", _spread(24, 1500.0), 2),
    round_robin("40 bots 0..1500, 1 pair per pairing", _spread(40, 1500.0), 2),
]


@dataclass
class Sim:
    colour: float
    draw_rate: float
    rng: random.Random

    def score(self, diff: float, colour: float | None = None) -> float:
        """One game's score for the first seat, ``diff`` Elo above its opponent."""
        p = expected_score(diff + (self.colour if colour is None else colour))
        draw = self.draw_rate * 4.0 * p * (1.0 - p)
        r = self.rng.random()
        return 1.0 if r < p - draw / 2 else 0.5 if r < p + draw / 2 else 0.0

    def games(
        self,
        true: dict[str, float],
        pairings: Sequence[tuple[str, str]],
        pairs: int,
        colour: float | None = None,
        paired: bool = True,
    ) -> list[GameResult]:
        out = []
        key = 0
        for x, y in pairings:
            for _ in range(pairs):
                pair = key if paired else None
                out.append(GameResult(x, y, self.score(true[x] - true[y], colour), pair=pair))
                out.append(GameResult(y, x, self.score(true[y] - true[x], colour), pair=pair))
                key += 1
        return out

    def true_score(self, diff: float, colour: float | None = None) -> float:
        """The true mean score over both colours of a bot ``diff`` Elo above the other."""
        c = self.colour if colour is None else colour
        return (expected_score(diff + c) + 1.0 - expected_score(-diff + c)) / 2.0


@dataclass
class Tally:
    hits: int = 0
    trials: int = 0
    widths: list[float] = field(default_factory=list)

    def add(self, low: float, high: float, truth: float) -> None:
        self.trials += 1
        self.hits += low <= truth <= high
        if math.isfinite(high - low):
            self.widths.append(high - low)

    @property
    def rate(self) -> float:
        return 100.0 * self.hits / self.trials if self.trials else float("nan")


@dataclass
class DesignResult:
    bots: Tally = field(default_factory=Tally)
    estimated: Tally = field(default_factory=Tally)  # the bots' lines that are not bounds
    gaps: Tally = field(default_factory=Tally)
    every_gap: Tally = field(default_factory=Tally)  # every pair of bots, chosen before the games
    per_bot: dict[str, Tally] = field(default_factory=dict)
    lines: int = 0
    at_end: int = 0
    bounds: int = 0
    los: list[tuple[float, float]] = field(default_factory=list)  # (LOS, 1 right / 0.5 tie / 0 wrong)


def _at_end(elo: float, low: float, high: float) -> bool:
    return elo in (low, high)


def _scale_members(r: Any, group: int | None, members: list[str]) -> list[str]:
    """The bots whose mean the report fixes for ``group`` (all of them for a report that does
    not say: the method before intervals were judged on spread fields)."""
    scale = getattr(r, "scale", None)
    if scale is not None and group in scale:
        return list(scale[group])
    return members


def estimand(design: Design, sim: Sim) -> dict[str, float]:
    """What the ratings converge to with ever more games of the design: the Bradley-Terry
    fit of each pairing's true mean score over both colours (the model has no colour term;
    a colour advantage cancels from a pair's mean score but pulls it towards 1/2, by very
    little at a small advantage). Centred on the mean; only differences are used."""
    names = sorted(design.true)
    index = {name: k for k, name in enumerate(names)}
    games = 2.0 * design.pairs_per_pairing
    pairs = []
    for x, y in design.pairings:
        i, j = sorted((index[x], index[y]))
        score = sim.true_score(design.true[names[i]] - design.true[names[j]], design.colour)
        pairs.append((i, j, games * score, games))
    theta = fit_strengths(len(names), pairs)
    return {name: theta[index[name]] * ELO_PER_NAT for name in names}


def coverage(design: Design, sim: Sim, reps: int, draws: int) -> DesignResult:
    out = DesignResult(per_bot={name: Tally() for name in design.true})
    truth_of = estimand(design, sim)
    for rep in range(reps):
        games = sim.games(
            design.true, design.pairings, design.pairs_per_pairing, design.colour, design.paired
        )
        r = compute_ratings(games, sorted(design.true), anchor=design.anchor, bootstrap=draws, seed=rep)
        by_group: dict[int | None, list[str]] = {}
        for x in r.ratings:
            by_group.setdefault(x.group, []).append(x.name)
        centre: dict[int | None, float] = {}
        for group, members in by_group.items():
            if design.anchor is not None and design.anchor in members:
                centre[group] = truth_of[design.anchor]
            else:
                chosen = _scale_members(r, group, members)
                centre[group] = sum(truth_of[m] for m in chosen) / len(chosen)
        bound_of = {x.name: x.bound for x in r.ratings}
        for x in r.ratings:
            assert x.low is not None and x.high is not None and x.elo is not None
            if x.low == x.high:  # the anchor, or a point by construction
                continue
            truth = truth_of[x.name] - centre[x.group]
            out.bots.add(x.low, x.high, truth)
            out.per_bot[x.name].add(x.low, x.high, truth)
            out.lines += 1
            if x.bound is None:
                out.estimated.add(x.low, x.high, truth)
            if x.bound is not None:
                out.bounds += 1
            elif _at_end(x.elo, x.low, x.high):
                out.at_end += 1
        for (a, b), gap in r.gaps.items():
            truth = truth_of[a] - truth_of[b]
            out.gaps.add(gap.low, gap.high, truth)
            out.lines += 1
            bound = not math.isfinite(gap.elo) or bound_of[a] == "lower" or bound_of[b] == "upper"
            if bound:
                out.bounds += 1
            elif _at_end(gap.elo, gap.low, gap.high):
                out.at_end += 1
            out.los.append((gap.los, 1.0 if truth > 0 else 0.5 if truth == 0 else 0.0))
        for (a, b), (low, high) in every_gap(games, sorted(design.true)).items():
            out.every_gap.add(low, high, truth_of[a] - truth_of[b])
    return out


def every_gap(games: Sequence[GameResult], names: list[str]) -> dict[tuple[str, str], tuple[float, float]]:
    """The 95% interval of every pair of bots' gap (``a`` minus ``b``, ``a`` before ``b`` by
    name) in each connected group, by the fit :func:`compute_ratings` uses. The leaderboard
    shows only neighbour gaps, which the estimates choose (for equal bots, the pairs drawn
    closest); a pair fixed before the games is the contrast a 95% interval is about."""
    index = {name: k for k, name in enumerate(names)}
    pairing_index: dict[tuple[int, int], int] = {}
    for g in games:
        i, j = sorted((index[g.a], index[g.b]))
        pairing_index.setdefault((i, j), len(pairing_index))
    pairings = list(pairing_index)
    counts = outcome_counts(games, index, pairing_index)
    points, played = totals(counts)
    out = {}
    for component in connected_groups(len(names), pairings):
        if not component.pairings:
            continue
        local = {m: p for p, m in enumerate(component.members)}
        pairs = [
            (local[pairings[k][0]], local[pairings[k][1]], points[k], played[k]) for k in component.pairings
        ]
        fit = GroupFit(
            len(local), pairs, [counts[k] for k in component.pairings], None, intervals=True, confidence=0.95
        )
        for a, b in itertools.combinations(component.members, 2):
            line = fit.gap(local[a], local[b])
            out[(names[a], names[b])] = (line.low * ELO_PER_NAT, line.high * ELO_PER_NAT)
    return out


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
    seeds that put that count's LOS at or over ``threshold`` (a method that samples may
    put a count near the threshold on either side, depending on the seed)."""
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
            continue  # far from the threshold: no seed gets there
        over = sum(
            max(compute_ratings(played, bootstrap=draws, seed=s).los.values()) >= threshold
            for s in range(seeds)
        )
        rate += q * over / seeds
    return 100.0 * rate


def exact_coverage(design: Design, sim: Sim, draws: int) -> tuple[float, float]:
    """Per-bot and gap coverage of a two-bot design computed, not sampled: every outcome
    of its opening pairs with its probability (a few thousand for three pairs)."""
    ((x, y),) = design.pairings
    colour = sim.colour if design.colour is None else design.colour
    truth_of = estimand(design, sim)

    def seat(diff: float) -> dict[float, float]:
        p = expected_score(diff + colour)
        draw = sim.draw_rate * 4.0 * p * (1.0 - p)
        return {1.0: p - draw / 2, 0.5: draw, 0.0: 1.0 - p - draw / 2}

    first, second = seat(design.true[x] - design.true[y]), seat(design.true[y] - design.true[x])
    outcomes = [(a, b, pa * pb) for a, pa in first.items() for b, pb in second.items()]
    # A result is a multiset of pair outcomes: its probability is multinomial.
    hits = lines = gaps = 0.0
    pairs = design.pairs_per_pairing
    for combo in itertools.combinations_with_replacement(range(len(outcomes)), pairs):
        counts = [combo.count(k) for k in set(combo)]
        weight = math.factorial(pairs) / math.prod(math.factorial(c) for c in counts)
        q = weight * math.prod(outcomes[k][2] for k in combo)
        games = []
        for key, k in enumerate(combo):
            games += [GameResult(x, y, outcomes[k][0], pair=key), GameResult(y, x, outcomes[k][1], pair=key)]
        r = compute_ratings(games, [x, y], anchor=design.anchor, bootstrap=draws, seed=0)
        chosen = _scale_members(r, 0, [x, y])
        centre = sum(truth_of[m] for m in chosen) / len(chosen)
        for z in r.ratings:
            assert z.low is not None and z.high is not None
            if z.low != z.high:  # as coverage() counts: lines that are not points
                lines += q
                hits += q * (z.low <= truth_of[z.name] - centre <= z.high)
        (((a, b), gap),) = r.gaps.items()
        gaps += q * (gap.low <= truth_of[a] - truth_of[b] <= gap.high)
    return 100.0 * hits / lines, 100.0 * gaps


def pentanomial_coverage(
    sim: Sim, gap: float, pairs: int, reps: int, colour: float
) -> tuple[float, float, float]:
    """Coverage, median finite width, and the share of intervals with the estimate at an end
    while the score is not perfect."""
    truth = elo_from_score(sim.true_score(gap, colour))
    tally = Tally()
    ends = 0
    for _ in range(reps):
        p = pentanomial(sim.games({"x": gap, "y": 0.0}, [("x", "y")], pairs, colour), "x", "y")
        assert p is not None
        tally.add(p.low, p.high, truth)
        ends += math.isfinite(p.elo) and _at_end(p.elo, p.low, p.high)
    finite = sorted(tally.widths)
    return tally.rate, finite[len(finite) // 2] if finite else float("inf"), 100.0 * ends / reps


# ------------------------------------------------------------------------------ timing


@dataclass(frozen=True)
class _Stats:
    requests: int = 0
    overhead_us: float = 0.0
    late: int = 0
    late_max: float = 0.0


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


def standings_seconds(total: int, sim: Sim) -> tuple[float, float, int]:
    """Seconds for the standings of about ``total`` games of a 10-bot round robin, and for
    their ratings alone (:func:`compute_ratings`, what this benchmark is about)."""
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
    middle = time.perf_counter()
    compute_ratings(games, names, bootstrap=1000)
    return middle - start, time.perf_counter() - middle, len(records)


def _section(title: str, run: Callable[[], None]) -> None:
    print(title)
    start = time.perf_counter()
    run()
    print(f"  ({time.perf_counter() - start:.0f} s)\n", flush=True)


def _range(tallies: dict[str, Tally]) -> str:
    rates = [t.rate for t in tallies.values() if t.trials]
    return f"({min(rates):.0f}-{max(rates):.0f})" if rates else ""


def kernel_seconds(size: int, sim: Sim, repeat: bool = True) -> tuple[float | None, float]:
    """CPU seconds of one table with intervals of a ``size``-bot round robin (bots 0..800,
    2 opening pairs a pairing), in Python's numbers (None when not ``repeat``ed: minutes)
    and in numpy's, interleaved, the best of three each."""
    true = {f"b{k:02d}": 800.0 * k / (size - 1) for k in range(size)}
    names = sorted(true)
    games = sim.games(true, [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]], 2)
    best = {True: math.inf, False: math.inf}
    for _ in range(3 if repeat else 1):
        for pure in (True, False) if repeat else (False,):
            fit._PURE_ONLY, fit.DENSE_SIZE, saved = pure, 2, fit.DENSE_SIZE
            try:
                started = time.process_time()
                compute_ratings(games, names)
                best[pure] = min(best[pure], time.process_time() - started)
            finally:
                fit._PURE_ONLY, fit.DENSE_SIZE = False, saved
    return (best[True] if repeat else None), best[False]


def numpy_import_seconds() -> float:
    code = (
        "import resource, numpy; u = resource.getrusage(resource.RUSAGE_SELF); print(u.ru_utime + u.ru_stime)"
    )
    bare = "import resource; u = resource.getrusage(resource.RUSAGE_SELF); print(u.ru_utime + u.ru_stime)"
    runs = [
        float(subprocess.run([sys.executable, "-c", c], capture_output=True, text=True, check=True).stdout)
        for c in (code, bare, code, bare, code, bare)
    ]
    return min(runs[0::2]) - min(runs[1::2])


_BLAS_RUN = """
import os, random, resource, sys, time
sys.path.insert(0, {root!r})
from threadpoolctl import threadpool_limits
from benchmarks.ratings import Sim
from referee.ratings.elo import compute_ratings
import referee.ratings.dense  # holds numpy's BLAS to one thread, as every run of ours does
if {default!r}:
    threadpool_limits(limits=os.cpu_count(), user_api="blas")  # the library's own default
size = {size!r}
true = {{f"b{{k:03d}}": 1500.0 * k / (size - 1) for k in range(size)}}
names = sorted(true)
pairings = [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
games = Sim(30.0, 0.2, random.Random(1)).games(true, pairings, 1)
used = resource.getrusage(resource.RUSAGE_SELF)
began = time.perf_counter()
compute_ratings(games, names)
wall = time.perf_counter() - began
done = resource.getrusage(resource.RUSAGE_SELF)
print(wall, done.ru_utime + done.ru_stime - used.ru_utime - used.ru_stime)
"""


def blas_seconds(size: int, default: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of one table with intervals of a ``size``-bot round robin (bots
    0..1500, one opening pair a pairing), in a fresh process: with numpy's BLAS held to one
    thread as the project holds it, or (``default``) with the library's default, a thread
    per core."""
    code = _BLAS_RUN.format(root=str(Path(__file__).resolve().parent.parent), default=default, size=size)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=300, help="repetitions per coverage design")
    parser.add_argument("--los-reps", type=int, default=1000, help="repetitions per LOS row")
    parser.add_argument("--penta-reps", type=int, default=2000, help="repetitions per pentanomial row")
    parser.add_argument("--draws", type=int, default=400, help="passed on as compute_ratings(bootstrap=...)")
    parser.add_argument("--colour", type=float, default=30.0, help="first seat's advantage in Elo")
    parser.add_argument("--draw-rate", type=float, default=0.2, help="draw probability between equals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--designs", default="", help="only the designs whose name contains this")
    parser.add_argument("--exact-seeds", type=int, default=400, help="seeds per outcome (los-exact)")
    parser.add_argument(
        "--only", default="coverage,exact,design-los,los,pentanomial,timing", help="also: los-exact (minutes)"
    )
    args = parser.parse_args(argv)
    parts = set(args.only.split(","))
    sim = Sim(args.colour, args.draw_rate, random.Random(args.seed))
    print(
        f"games from known ratings: colour-reversed pairs, first seat +{args.colour:g} Elo unless the "
        f"design says, draw rate {args.draw_rate:g} between equals, bootstrap={args.draws}\n"
    )
    designs = [d for d in DESIGNS if args.designs in d.name]
    results: dict[str, DesignResult] = {}

    def result(design: Design) -> DesignResult:
        if design.name not in results:
            results[design.name] = coverage(design, sim, args.reps, args.draws)
        return results[design.name]

    def covers() -> None:
        print(
            f"  {'design':<45} {'reps':>5} {'bots cover':>17} {'gaps cover':>10} {'at end':>7} "
            f"{'bounds':>7} {'width':>6} {'shift':>6} {'estimates':>9} {'every gap':>9}"
        )
        for design in designs:
            res = result(design)
            target = estimand(design, sim)
            mean = sum(design.true.values()) / len(design.true)
            shift = max(abs(target[name] - (design.true[name] - mean)) for name in target)
            width = sum(res.bots.widths) / len(res.bots.widths) if res.bots.widths else float("nan")
            lines = max(1, res.lines)
            print(
                f"  {design.name:<45} {args.reps:>5} {res.bots.rate:>6.1f}% {_range(res.per_bot):>9} "
                f"{res.gaps.rate:>9.1f}% {100 * res.at_end / lines:>6.1f}% {100 * res.bounds / lines:>6.1f}% "
                f"{width:>6.0f} {shift:>6.1f} {res.estimated.rate:>8.1f}% {res.every_gap.rate:>8.1f}%",
                flush=True,
            )

    def exact_small() -> None:
        print(f"  {'design':<45} {'bots cover':>10} {'gaps cover':>10}")
        for design in designs:
            if len(design.true) == 2 and design.pairs_per_pairing <= 4:
                bots, gaps = exact_coverage(design, sim, args.draws)
                print(f"  {design.name:<45} {bots:>9.1f}% {gaps:>9.1f}%", flush=True)

    def design_los() -> None:
        print(
            f"  {'design':<45} {'LOS>=95%':>8} {'wrong':>6} {'LOS>=99%':>8} {'wrong':>6} "
            f"{'mean LOS':>8} {'right':>6}"
        )
        for design in designs:
            los = result(design).los
            if not los:
                continue
            row = f"  {design.name:<45}"
            for threshold in (0.95, 0.99):
                claims = [right for v, right in los if v >= threshold]
                wrong = 100.0 * sum(1.0 - right for right in claims) / len(claims) if claims else 0.0
                row += f" {len(claims):>8} {wrong:>5.1f}%"
            mean = 100.0 * sum(v for v, _ in los) / len(los)
            right = 100.0 * sum(r for _, r in los) / len(los)
            print(row + f" {mean:>7.1f}% {right:>5.1f}%", flush=True)

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
        print(
            f"  {'20 pairs, true gap, first seat':<45} {'reps':>5} {'covers':>7} "
            f"{'median width':>12} {'at end':>7}"
        )
        for colour in (args.colour, 150.0):
            for gap in (0.0, 400.0, 800.0):
                rate, width, ends = pentanomial_coverage(sim, gap, 20, args.penta_reps, colour)
                label = f"{gap:.0f}, +{colour:g}"
                print(f"  {label:<45} {args.penta_reps:>5} {rate:>6.1f}% {width:>12.0f} {ends:>6.1f}%")

    def kernels() -> None:
        print(f"  {'round robin, 2 pairs a pairing':<32} {'Python':>10} {'numpy':>10} {'ratio':>6}")
        for size in (4, 8, 12, 16, 24, 40, 80):
            pure, dense = kernel_seconds(size, sim, repeat=size <= 40)
            shown = f"{pure * 1e3:>8.1f} ms" if pure is not None else f"{'-':>11}"
            ratio = f"{pure / dense:>6.1f}" if pure is not None else f"{'-':>6}"
            print(f"  {f'{size} bots':<32} {shown} {dense * 1e3:>8.1f} ms {ratio}", flush=True)
        print(f"  importing numpy (a fresh process): {numpy_import_seconds() * 1e3:.0f} ms of CPU")

    def blas() -> None:
        print(f"  {'round robin, 1 pair a pairing':<32} {'one BLAS thread':>22} {'a thread per core':>22}")
        for size in (60, 120, 200):
            one = blas_seconds(size, False)
            default = blas_seconds(size, True)
            cells = [f"{wall:.2f} s, {cpu:.2f} s CPU" for wall, cpu in (one, default)]
            print(f"  {f'{size} bots':<32} {cells[0]:>22} {cells[1]:>22}", flush=True)

    def timing() -> None:
        for total in (4_000, 100_000):
            seconds, alone, n = standings_seconds(total, sim)
            print(
                f"  standings of {n:,} games (10 bots, bootstrap=1000): {seconds:.2f} s "
                f"(their ratings alone: {alone:.2f} s)"
            )

    for name, title, run in (
        ("coverage", "95% intervals: coverage of the true ratings and gaps (target 92-98%)", covers),
        ("exact", "the same coverage computed over every outcome, for the smallest design", exact_small),
        ("design-los", "LOS on the same repetitions: claims and how often they were wrong", design_los),
        ("los", "LOS calibration (false confidence between equal bots)", calibration),
        ("los-exact", "LOS calibration computed over every outcome (not sampled)", exact),
        ("pentanomial", "pentanomial 95% interval coverage", penta),
        ("timing", "standings cost", timing),
        ("kernels", "a table with intervals, fitted in Python's numbers and in numpy's (CPU)", kernels),
        ("blas", "a large field's table, numpy's BLAS on one thread (ours) and on a thread per core", blas),
    ):
        if name in parts:
            _section(title, run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
