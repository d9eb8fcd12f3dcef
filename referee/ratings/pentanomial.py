"""Paired-opening (pentanomial) statistics of one bot against another.

Opening pairs (the same opening played twice, colours swapped) are scored as one sample,
as in engine testing frameworks: the two games of a pair share an opening, so their
results are correlated, and counting the pair rather than the game keeps the error bars
honest. Re-exported by :mod:`referee.ratings.elo`.

The interval is the equal-tailed credible interval of the mean per-game score under a
Dirichlet posterior over the five pair outcomes with half a pair of prior on a 0-2 and on
a 2-0 (:func:`posterior_shapes`), mapped to Elo. That Dirichlet's mean score is
approximated by the Beta distribution of the same mean and variance, which is exact when
every pair is 0 or 2 points and close otherwise, so the bounds and the LOS are
closed-form (no sampling, no seed). Unlike the normal approximation ``m +- z * se`` it
replaced, it stays inside (0, 1), is asymmetric near a perfect score, and is not of
width 0 when every pair scored the same: a 20-0 sweep of pairs is "at least so much",
not infinitely sure.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from referee.ratings.model import GameResult, elo_from_score

__all__ = [
    "Counts",
    "Pentanomial",
    "pair_counts",
    "pentanomial",
    "pentanomial_of",
    "pentanomial_rows",
    "pentanomial_table",
]

# Per-game score of the first bot for a pair worth 0, 0.5, 1, 1.5 and 2 points.
_PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Pentanomial:
    """Paired-opening statistics of bot ``a`` against bot ``b``.

    ``counts[k]`` is the number of complete opening pairs in which ``a`` scored ``k / 2``
    points (0, 0.5, 1, 1.5, 2). ``elo`` is :func:`elo_from_score` of the mean per-game score
    of the pairs (infinite for a perfect score); ``low``/``high`` are the posterior interval
    of the Elo difference (module docstring), always finite and often asymmetric around
    ``elo``, and ``error`` is half its width, a compact summary only. ``los`` is the
    posterior probability that ``a`` is stronger than ``b`` (never exactly 0 or 1).
    """

    a: str
    b: str
    counts: tuple[int, int, int, int, int]
    elo: float
    error: float
    los: float
    low: float = -math.inf
    high: float = math.inf

    @property
    def pairs(self) -> int:
        """Number of complete opening pairs counted."""
        return sum(self.counts)


Counts = tuple[int, int, int, int, int]


def pair_counts(games: Sequence[GameResult]) -> dict[tuple[str, str], Counts]:
    """How many complete pairs each two bots played, by points: ``table[(a, b)][k]`` pairs
    in which ``a`` scored ``k / 2`` points, for ``a < b`` (the other orientation is the
    reverse). One pass over ``games``, so a standings table of every pairing is linear.

    A complete pair is a pair key with exactly two games, both between the same two bots;
    a key with any other games is spoiled as a whole, rather than counted from its
    remaining games, so a pair always means the same opening twice.
    """
    grouped: dict[Hashable, list[GameResult]] = {}
    for game in games:
        if game.pair is not None:
            grouped.setdefault(game.pair, []).append(game)
    table: dict[tuple[str, str], list[int]] = {}
    for members in grouped.values():
        if len(members) != 2:
            continue
        first, second = members
        a, b = sorted((first.a, first.b))
        if {second.a, second.b} != {a, b}:
            continue
        points = sum(g.score_a if g.a == a else g.score_b for g in members)
        table.setdefault((a, b), [0, 0, 0, 0, 0])[round(points * 2)] += 1
    return {key: (c[0], c[1], c[2], c[3], c[4]) for key, c in table.items()}


def _oriented(table: dict[tuple[str, str], Counts], a: str, b: str) -> Counts:
    if a < b:
        return table.get((a, b), (0, 0, 0, 0, 0))
    c = table.get((b, a), (0, 0, 0, 0, 0))
    return (c[4], c[3], c[2], c[1], c[0])


def posterior_shapes(counts: Sequence[int]) -> list[float]:
    """The Dirichlet parameters of the five pair outcomes: ``kappa * count`` plus half a
    pair on the worst and on the best outcome (a Jeffreys-like prior: for pairs that are
    all 0-2 or 2-0 it is the Jeffreys posterior of the score). A Dirichlet over ``m``
    observed units understates the variance of their mean by ``(m - 1) / (m + 1)``;
    ``kappa = (m - 1) / m`` (fewer effective units) brings it back to ``s^2 / m``."""
    units = sum(counts)
    kappa = (units - 1) / units if units > 1 else 1.0
    shapes = [kappa * c for c in counts]
    shapes[0] += 0.5
    shapes[-1] += 0.5
    return shapes


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


def beta_cdf(x: float, a: float, b: float) -> float:
    """``P(X <= x)`` for ``X ~ Beta(a, b)``: the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of ``Beta(a, b)``, by bisection on the log-odds (so tails far
    into 1e-12 are found as precisely as the middle)."""
    lo, hi = -60.0, 60.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if beta_cdf(1.0 / (1.0 + math.exp(-mid)), a, b) < q:
            if mid == lo:  # nothing left between them: every further step is this one
                break
            lo = mid
        else:
            if mid == hi:
                break
            hi = mid
    return 1.0 / (1.0 + math.exp(-(lo + hi) / 2.0))


def score_posterior(counts: Sequence[int]) -> tuple[float, float]:
    """The Beta ``(a, b)`` with the mean and variance of the posterior mean score of five
    pair counts (the Dirichlet of :func:`posterior_shapes`)."""
    shapes = posterior_shapes(counts)
    total = sum(shapes)
    mean = sum(s * v for s, v in zip(shapes, _PAIR_VALUES, strict=True)) / total
    second = sum(s * v * v for s, v in zip(shapes, _PAIR_VALUES, strict=True)) / total
    variance = (second - mean * mean) / (total + 1.0)
    size = mean * (1.0 - mean) / variance - 1.0
    return mean * size, (1.0 - mean) * size


def pentanomial(
    games: Sequence[GameResult], a: str, b: str, *, confidence: float = 0.95
) -> Pentanomial | None:
    """Per-pair statistics of ``a`` against ``b`` over complete opening pairs.

    A complete pair is a ``pair`` key with exactly two games, both between ``a`` and ``b``
    (in either orientation); other keys, lone games and games of other bots are ignored.
    Returns ``None`` when there is no complete pair.

    The interval and ``los`` come from the posterior of the module docstring: the pair is
    the sample, so the correlation between the two games of a pair (same opening) is
    counted, unlike a trinomial (per-game) estimate.
    """
    return pentanomial_of(_oriented(pair_counts(games), a, b), a, b, confidence=confidence)


def pentanomial_table(
    games: Sequence[GameResult], order: Sequence[str], *, confidence: float = 0.95
) -> list[Pentanomial]:
    """:func:`pentanomial` of every two bots of ``order`` that played a complete pair, the
    first bot being the earlier in ``order``; one pass over ``games``."""
    return pentanomial_rows(pair_counts(games), order, confidence=confidence)


def pentanomial_rows(
    table: dict[tuple[str, str], Counts], order: Sequence[str], *, confidence: float = 0.95
) -> list[Pentanomial]:
    """:func:`pentanomial_table` from the pair counts of :func:`pair_counts` (or the same
    counts kept as games arrive, :meth:`referee.ratings.elo.RunningCounts.pair_table`)."""
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            p = pentanomial_of(_oriented(table, a, b), a, b, confidence=confidence)
            if p is not None:
                out.append(p)
    return out


def pentanomial_of(counts: Counts, a: str, b: str, *, confidence: float = 0.95) -> Pentanomial | None:
    """The statistics of :func:`pentanomial` from the pair counts of ``a`` against ``b``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    n = sum(counts)
    if n == 0:
        return None
    mean = sum(c * x for c, x in zip(counts, _PAIR_VALUES, strict=True)) / n
    alpha, beta = score_posterior(counts)
    tail = (1.0 - confidence) / 2.0
    elo = elo_from_score(mean)
    low = min(elo_from_score(beta_quantile(tail, alpha, beta)), elo)
    high = max(elo_from_score(beta_quantile(1.0 - tail, alpha, beta)), elo)
    superiority = 1.0 - beta_cdf(0.5, alpha, beta)
    return Pentanomial(
        a=a, b=b, counts=counts, elo=elo, error=(high - low) / 2.0, los=superiority, low=low, high=high
    )
