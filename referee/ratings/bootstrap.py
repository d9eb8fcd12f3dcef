"""The seeded bootstrap behind the rating intervals and the likelihood of superiority.

Games are grouped into resampling *units* (an opening pair, whose two results are
correlated, or a lone game) and units into *strata* by the pairings they touch. Each
resample draws, stratum by stratum, as many units as the stratum holds, with replacement:
the schedule (who met whom, how often) stays fixed and only the results vary, so every
resample is connected like the data. See :func:`referee.ratings.elo.compute_ratings`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence

from referee.ratings.groups import GroupFitter
from referee.ratings.model import GameResult

__all__ = ["Strata", "Unit", "bootstrap_samples", "percentile_interval", "resampling_units", "unit_totals"]

# A resampling unit: its contribution (pairing index, points of the lower-indexed bot,
# games) to each pairing it touches; normally a single game or pair of games of one pairing.
Unit = tuple[tuple[int, float, float], ...]
# Units keyed by the pairing indices they touch, in first-seen order.
Strata = dict[tuple[int, ...], list[Unit]]


def resampling_units(
    games: Sequence[GameResult], index: Mapping[str, int], pairing_index: Mapping[tuple[int, int], int]
) -> Strata:
    """Group games into bootstrap units (an opening pair, or a lone game), then units into
    strata by the pairings they touch. Grouping follows input order, so it is deterministic
    even though pair keys need not be sortable."""
    grouped: dict[Hashable, list[GameResult]] = {}
    lone: list[list[GameResult]] = []
    for game in games:
        if game.pair is None:
            lone.append([game])
        else:
            grouped.setdefault(game.pair, []).append(game)
    strata: Strata = {}
    for members in [*grouped.values(), *lone]:
        totals: dict[int, list[float]] = {}
        for game in members:
            ia, ib = index[game.a], index[game.b]
            k = pairing_index[(min(ia, ib), max(ia, ib))]
            low_points = game.score_a if ia < ib else game.score_b
            entry = totals.setdefault(k, [0.0, 0.0])
            entry[0] += low_points
            entry[1] += 1.0
        unit = tuple((k, s, n) for k, (s, n) in sorted(totals.items()))
        strata.setdefault(tuple(k for k, _, _ in unit), []).append(unit)
    return strata


def _add_units(units: Sequence[Unit], points: list[float], games: list[float]) -> None:
    """Add the contribution of each of ``units`` to the per-pairing totals, in place."""
    for unit in units:
        for k, s, n in unit:
            points[k] += s
            games[k] += n


def unit_totals(strata: Strata, pairing_count: int) -> tuple[list[float], list[float]]:
    """Points (of the lower-indexed bot) and games per pairing over all the data.

    Summed from the units rather than from the games so the full-data fit sees exactly
    the statistic a resample that drew every unit once would see.
    """
    points = [0.0] * pairing_count
    games = [0.0] * pairing_count
    for units in strata.values():
        _add_units(units, points, games)
    return points, games


def bootstrap_samples(
    fitter: GroupFitter, strata: Strata, start: Sequence[float], resamples: int, seed: int
) -> list[list[float]]:
    """The Elo of every bot (outer index) in each of ``resamples`` resamples (inner index).

    Strata are drawn in sorted order with one ``random.Random(seed)``, so the samples
    depend only on the data, its order and the seed. Each resample is refitted
    warm-started from ``start`` (the full-data strengths in nats) and put on the same scale
    as the full-data fit. Nothing is drawn when no bot played a game.
    """
    samples: list[list[float]] = [[] for _ in range(fitter.size)]
    rng = random.Random(seed)
    ordered = [strata[key] for key in sorted(strata)]
    pairing_count = len(fitter.pairings)
    for _ in range(resamples if fitter.components else 0):
        points = [0.0] * pairing_count
        games = [0.0] * pairing_count
        for units in ordered:
            _add_units(rng.choices(units, k=len(units)), points, games)
        elo, _, _ = fitter.fit(points, games, start)
        for k in range(fitter.size):
            samples[k].append(elo[k])
    return samples


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (the common "type 7" definition)."""
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    fraction = position - below
    return sorted_values[below] + fraction * (sorted_values[above] - sorted_values[below])


def percentile_interval(samples: Sequence[float], estimate: float, confidence: float) -> tuple[float, float]:
    """Bootstrap percentile bounds at ``confidence``, widened to contain ``estimate``.

    The clamp keeps ``low <= estimate <= high`` (a skewed bootstrap distribution can put
    the point estimate outside its own percentiles, which would read as nonsense in a
    table); without samples the interval is the estimate itself.
    """
    if not samples:
        return estimate, estimate
    tail = (1.0 - confidence) / 2.0
    ordered = sorted(samples)
    return min(_quantile(ordered, tail), estimate), max(_quantile(ordered, 1.0 - tail), estimate)
