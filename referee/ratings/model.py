"""What every rating module shares: one game's result and the Elo scale.

:class:`GameResult` is the input of both the joint fit (:mod:`referee.ratings.elo`) and the
paired-opening statistics (:mod:`referee.ratings.pentanomial`); the scalar helpers convert
between rating differences and expected scores on the logistic, base-10, 400-point scale.
They live here, below both, so neither of those modules has to import the other. The
public names are re-exported by :mod:`referee.ratings.elo`, the package's entry point.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from referee.ratings.fit import ELO_PER_NAT, sigmoid

__all__ = ["GameResult", "elo_from_score", "expected_score", "los"]

_VALID_SCORES = (0.0, 0.5, 1.0)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game between bots ``a`` and ``b`` as the rating maths sees it.

    ``score_a`` is 1 (a won), 0.5 (draw) or 0 (b won); forfeits are ordinary wins here.
    Games sharing a non-``None`` ``pair`` key are one opening pair (the same opening played
    twice with colours swapped); the intervals count such pairs as one unit, and
    :func:`~referee.ratings.pentanomial.pentanomial` scores them together. Colours are
    deliberately not recorded: the model has no colour advantage term, pairing the openings
    is what cancels it.
    """

    a: str
    b: str
    score_a: float
    pair: Hashable | None = None

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ValueError(f"a game needs two different bots, got {self.a!r} twice")
        if self.score_a not in _VALID_SCORES:
            raise ValueError(f"score_a must be 1, 0.5 or 0, got {self.score_a!r}")

    @property
    def score_b(self) -> float:
        """Points of bot ``b``: the two scores of a game always add up to one."""
        return 1.0 - self.score_a


def expected_score(diff_elo: float) -> float:
    """Expected score of a bot rated ``diff_elo`` points above its opponent.

    ``1 / (1 + 10 ** (-diff / 400))``: 0.5 at 0, about 0.64 at +100, 10/11 at +400.
    Computed without overflow for any finite difference.
    """
    return sigmoid(diff_elo / ELO_PER_NAT)


def elo_from_score(p: float) -> float:
    """The Elo difference whose expected score is ``p``: ``-400 * log10(1/p - 1)``.

    The inverse of :func:`expected_score`. A perfect score has no finite rating
    difference, so ``p == 1`` gives ``inf`` and ``p == 0`` gives ``-inf``; values outside
    ``[0, 1]`` are a ``ValueError``.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a score fraction must be within [0, 1], got {p!r}")
    if p == 1.0:
        return math.inf
    if p == 0.0:
        return -math.inf
    return ELO_PER_NAT * math.log(p / (1.0 - p))


def los(wins: float, losses: float) -> float:
    """Likelihood of superiority from decisive games only (draws carry no information).

    The usual normal approximation ``0.5 * (1 + erf((w - l) / sqrt(2 * (w + l))))``; 0.5
    when there is no decisive game. ``los(w, l) + los(l, w) == 1``.
    """
    if wins < 0 or losses < 0:
        raise ValueError(f"wins and losses must not be negative, got {wins!r} and {losses!r}")
    decisive = wins + losses
    if decisive == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive)))
