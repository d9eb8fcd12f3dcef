"""Paired-opening (pentanomial) statistics of one bot against another.

Opening pairs (the same opening played twice, colours swapped) are scored as one sample,
as in engine testing frameworks: the two games of a pair share an opening, so their
results are correlated, and counting the pair rather than the game keeps the error bars
honest. Re-exported by :mod:`referee.ratings.elo`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from referee.ratings.model import GameResult, elo_from_score

__all__ = ["Pentanomial", "pentanomial"]

# Per-game score of the first bot for a pair worth 0, 0.5, 1, 1.5 and 2 points.
_PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Pentanomial:
    """Paired-opening statistics of bot ``a`` against bot ``b``.

    ``counts[k]`` is the number of complete opening pairs in which ``a`` scored ``k / 2``
    points (0, 0.5, 1, 1.5, 2). ``elo`` is :func:`elo_from_score` of the mean per-game score
    of the pairs; ``error`` is half the width of the normal-approximation confidence
    interval of that mean, mapped through :func:`elo_from_score`. Both are infinite when
    the interval reaches a perfect score. ``los`` is the normal-approximation probability
    that ``a`` is stronger than ``b``.
    """

    a: str
    b: str
    counts: tuple[int, int, int, int, int]
    elo: float
    error: float
    los: float

    @property
    def pairs(self) -> int:
        """Number of complete opening pairs counted."""
        return sum(self.counts)


def _pair_counts(games: Sequence[GameResult], a: str, b: str) -> tuple[int, int, int, int, int]:
    """How many complete pairs ``a`` scored 0, 0.5, 1, 1.5 and 2 points in.

    A pair key touched by any game of other bots is spoiled as a whole, rather than
    counted from its remaining games, so a pair always means the same opening twice.
    """
    grouped: dict[Hashable, list[GameResult]] = {}
    spoiled: set[Hashable] = set()
    for game in games:
        if game.pair is None:
            continue
        if {game.a, game.b} == {a, b}:
            grouped.setdefault(game.pair, []).append(game)
        else:
            spoiled.add(game.pair)
    counts = [0, 0, 0, 0, 0]
    for key, members in grouped.items():
        if len(members) != 2 or key in spoiled:
            continue
        points = sum(g.score_a if g.a == a else g.score_b for g in members)
        counts[round(points * 2)] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def pentanomial(
    games: Sequence[GameResult], a: str, b: str, *, confidence: float = 0.95
) -> Pentanomial | None:
    """Per-pair statistics of ``a`` against ``b`` over complete opening pairs.

    A complete pair is a ``pair`` key with exactly two games, both between ``a`` and ``b``
    (in either orientation); other keys, lone games and games of other bots are ignored.
    Returns ``None`` when there is no complete pair.

    With ``x`` the per-game score of ``a`` in each pair (pair points / 2) over ``n`` pairs,
    mean ``m`` and population variance ``v``, the standard error is ``sqrt(v / n)`` and the
    interval ``m +- z * se`` (``z`` = 1.96 at 95%) is mapped through
    :func:`elo_from_score`; ``error`` is half the mapped width. This uses the pair as the
    sample, so the correlation between the two games of a pair (same opening) is counted,
    unlike a trinomial (per-game) estimate. ``los = Phi((m - 0.5) / se)``.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    counts = _pair_counts(games, a, b)
    n = sum(counts)
    if n == 0:
        return None
    mean = sum(c * x for c, x in zip(counts, _PAIR_VALUES, strict=True)) / n
    variance = sum(c * (x - mean) ** 2 for c, x in zip(counts, _PAIR_VALUES, strict=True)) / n
    se = math.sqrt(variance / n)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    elo = elo_from_score(mean)
    upper = elo_from_score(min(1.0, mean + z * se))
    lower = elo_from_score(max(0.0, mean - z * se))
    error = (upper - lower) / 2.0 if math.isfinite(upper) and math.isfinite(lower) else math.inf
    if se > 0:
        superiority = NormalDist().cdf((mean - 0.5) / se)
    else:
        superiority = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return Pentanomial(a=a, b=b, counts=counts, elo=elo, error=error, los=superiority)
