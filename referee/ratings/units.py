"""The units of a pairing's data and what they say about the variance of its scores.

The data of a pairing (two bots that met) are its *units*: complete opening pairs (two
games, colours swapped, worth 0, 0.5, 1, 1.5 or 2 points) and lone games (0, 0.5 or 1).
Units are independent of each other; the two games of an opening pair are not (they share
an opening, and the colours are reversed), and a draw is not half a win and half a loss
(it carries less variance). The Bradley-Terry likelihood treats every game as an
independent Bernoulli trial of variance ``p (1 - p)``: right for the point estimate (its
score equations are what any unbiased rating method solves), not for the error bars.
:func:`dispersion` and :func:`weighted_dispersion` measure, from the units themselves,
how far their real variance is from that model's, so the intervals can be put right
(:mod:`referee.ratings.groups`).

Only the count of units in each of eight outcome classes is kept per pairing, so the cost
of everything downstream depends on the number of pairings, not of games.

Units. A pair key counts as an opening pair only if it has exactly two games, both between
the same two bots (the rule of :mod:`referee.ratings.pentanomial`); the games of any other
key are counted as lone games.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from referee.ratings.model import GameResult

__all__ = [
    "CLASS_GAMES",
    "CLASS_POINTS",
    "DISPERSION_PRIOR",
    "Moments",
    "OutcomeCounts",
    "dispersion",
    "moments",
    "outcome_counts",
    "totals",
    "weighted_dispersion",
]

# The eight outcome classes of a pairing, as points of its lower-indexed bot and games:
# lone games scoring 0, 0.5, 1, then opening pairs scoring 0, 0.5, 1, 1.5, 2.
CLASS_POINTS = (0.0, 0.5, 1.0, 0.0, 0.5, 1.0, 1.5, 2.0)
CLASS_GAMES = (1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0)

DISPERSION_PRIOR = 4.0
"""How many units' worth of belief :func:`dispersion` puts on the model's own variance (a
dispersion of 1) before the data speak. A few units cannot say much about a variance (a
2-0 match none at all, four opening pairs all split 1-1 would say "no variance"), so with
little data the intervals are the model's; with a few dozen units they are the data's."""

# For each pairing (by index), how many units fell in each class.
OutcomeCounts = list[list[int]]


def outcome_counts(
    games: Sequence[GameResult], index: Mapping[str, int], pairing_index: Mapping[tuple[int, int], int]
) -> OutcomeCounts:
    """Count each pairing's units by outcome class (see the module docstring)."""
    counts = [[0] * len(CLASS_POINTS) for _ in pairing_index]
    keyed: dict[Hashable, list[GameResult]] = {}
    lone: list[GameResult] = []
    for game in games:
        if game.pair is None:
            lone.append(game)
        else:
            keyed.setdefault(game.pair, []).append(game)

    def side(game: GameResult) -> tuple[int, float]:
        ia, ib = index[game.a], index[game.b]
        return pairing_index[(min(ia, ib), max(ia, ib))], game.score_a if ia < ib else game.score_b

    for members in keyed.values():
        if len(members) == 2 and {members[0].a, members[0].b} == {members[1].a, members[1].b}:
            (k, first), (_, second) = side(members[0]), side(members[1])
            counts[k][3 + round(2 * (first + second))] += 1
        else:
            lone.extend(members)
    for game in lone:
        k, points = side(game)
        counts[k][round(2 * points)] += 1
    return counts


def totals(counts: OutcomeCounts) -> tuple[list[float], list[float]]:
    """Points (of the lower-indexed bot) and games per pairing over all the data."""
    points = [float(sum(c * p for c, p in zip(row, CLASS_POINTS, strict=True))) for row in counts]
    games = [float(sum(c * g for c, g in zip(row, CLASS_GAMES, strict=True))) for row in counts]
    return points, games


@dataclass(frozen=True)
class Moments:
    """What one pairing's units say about their variance (see :func:`dispersion`):
    ``squares``, the sum of their leverage-corrected squared residuals ``r^2 / (1 - h)``;
    ``variance``, the sum of the model's variances ``v``; ``spread``, the sum of ``v^2``
    (for an effective number of units); ``freedom``, the sum of ``1 - h``."""

    squares: float = 0.0
    variance: float = 0.0
    spread: float = 0.0
    freedom: float = 0.0


def moments(row: Sequence[int], p: float, resistance: float) -> Moments:
    """The :class:`Moments` of one pairing: its outcome counts ``row``, the fitted per-game
    score ``p`` of its lower-indexed bot, and ``resistance``, the model variance of its
    fitted rating difference in nats (``e^T A^-1 e`` for its two bots, ``A`` the Fisher
    information), from which each unit's leverage follows.

    A unit of ``g`` games scoring ``x`` has residual ``r = x - g p`` and model variance
    ``v = g p (1 - p)``. Fitting uses up some of the residuals' spread: a unit's expected
    squared residual is ``phi v (1 - h)``, with ``h = v e^T A^-1 e`` its leverage (the
    leverages of a group add up to its number of free ratings), so ``r^2 / (1 - h)``
    estimates ``phi v`` without bias. A unit whose leverage is 1 (the only unit of a
    pairing that alone fixes a rating) has no residual to show and is left out.
    """
    squares = variance = spread = freedom = 0.0
    for count, points, games in zip(row, CLASS_POINTS, CLASS_GAMES, strict=True):
        if not count:
            continue
        v = games * p * (1.0 - p)
        h = v * resistance
        if v <= 0.0 or h >= 1.0 - 1e-9:
            continue
        squares += count * (points - games * p) ** 2 / (1.0 - h)
        variance += count * v
        spread += count * v * v
        freedom += count * (1.0 - h)
    return Moments(squares, variance, spread, freedom)


def dispersion(
    rows: Sequence[Sequence[int]], expected: Sequence[float], resistance: Sequence[float]
) -> float:
    """The ratio of the units' real score variance to the model's over the pairings given
    (their counts, fitted scores and resistances, as :func:`moments` takes them).

    ``sum(r^2 / (1 - h)) / sum(v)`` over the units, combined with :data:`DISPERSION_PRIOR`
    units at ``phi = 1``, weighted by the residual degrees of freedom ``sum(1 - h)``. The
    prior errs on the safe side for game results: a draw has less variance than half a win
    and half a loss, so with draws the variance is below the model's, and a small
    sample's estimate is pulled up towards it, which also makes up for its noise.
    """
    total = [moments(row, p, r) for row, p, r in zip(rows, expected, resistance, strict=True)]
    squares = sum(m.squares for m in total)
    variance = sum(m.variance for m in total)
    freedom = sum(m.freedom for m in total)
    if variance <= 0.0:
        return 1.0
    return (freedom * squares / variance + DISPERSION_PRIOR) / (freedom + DISPERSION_PRIOR)


def weighted_dispersion(parts: Sequence[Moments], weights: Sequence[float]) -> float:
    """The dispersion of one contrast: the pairings' :class:`Moments` weighted by how much
    each moves the contrast's estimate (``weights``, the squared influence ``(c^T A^-1 e)^2``
    of a unit of score in that pairing), combined with :data:`DISPERSION_PRIOR` units at
    ``phi = 1`` as in :func:`dispersion`.

    With these weights ``sum(w v)`` is the model's variance of the estimate and
    ``sum(w r^2 / (1 - h))`` the robust (sandwich) one, so their ratio is what the data say
    of this contrast: a gap between two bots that draw a lot gets their small variance, one
    between decisive bots theirs, where one figure for the group would give both the
    average. The data weigh as many units as Kish's effective number of them,
    ``(sum w v)^2 / sum (w v)^2``.
    """
    squares = sum(w * m.squares for w, m in zip(weights, parts, strict=True))
    variance = sum(w * m.variance for w, m in zip(weights, parts, strict=True))
    spread = sum(w * w * m.spread for w, m in zip(weights, parts, strict=True))
    return weighted_ratio(squares, variance, spread)


def weighted_ratio(squares: float, variance: float, spread: float) -> float:
    """:func:`weighted_dispersion` from its three weighted sums."""
    if variance <= 0.0 or spread <= 0.0:
        return 1.0
    count = variance * variance / spread
    return (count * squares / variance + DISPERSION_PRIOR) / (count + DISPERSION_PRIOR)


class Influence:
    """One component's inverse information ``V`` (local indices) with its pairings (each
    one's two bots and :class:`Moments`), for the spread and the dispersion of many
    contrasts. A large component's is numpy's
    (:class:`referee.ratings.dense.DenseInfluence`): the same sums from whole arrays."""

    def __init__(
        self, variance: list[list[float]], ends: Sequence[tuple[int, int]], parts: Sequence[Moments]
    ) -> None:
        self.variance = variance
        self.ends = ends
        self.parts = parts

    def quadratic(self, c: Sequence[float]) -> float:
        """``c^T V c``: the model's variance of the contrast's estimate."""
        return sum(
            c[r] * sum(x * y for x, y in zip(row, c, strict=True)) for r, row in enumerate(self.variance)
        )

    def dispersion(self, c: Sequence[float]) -> float:
        """:func:`weighted_dispersion` of the contrast ``c`` over the pairings."""
        # V c: how a unit of score in each pairing moves the contrast's estimate.
        reach = [sum(row[q] * c[q] for q in range(len(c))) for row in self.variance]
        weights = [(reach[i] - reach[j]) ** 2 for i, j in self.ends]
        return weighted_dispersion(self.parts, weights)
