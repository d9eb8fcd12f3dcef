"""The seeded posterior behind the rating intervals and the likelihood of superiority.

Method: a Bayesian bootstrap (Rubin 1981) of each pairing's outcomes with a Jeffreys-like
prior, pushed through the same Bradley-Terry fit as the point estimate.

The data of a pairing (two bots that met) are its *units*: complete opening pairs (two
games, colours swapped, worth 0, 0.5, 1, 1.5 or 2 points) and lone games (0, 0.5 or 1).
Only the count of units in each of those eight outcome classes matters, so that is all
that is kept: resampling costs the same for 40 games or 100,000. One posterior draw gives
every class a weight from ``Dirichlet(kappa * count + prior)`` and the pairing a
per-game score (weighted points over weighted games); the ratings of the draw are the
Bradley-Terry fit of those scores with each pairing's real number of games. Percentiles
of the draws are the intervals; the share of draws in which one bot is above another is
the LOS.

Why this and not the alternatives:

- The old bootstrap resampled the games of each pairing, so a pairing won 40-0 resampled to
  40-0 every time (intervals of width 0, LOS 100% from two games), and exact ties between
  resamples were broken by rounding leftovers of the fit. Here the prior puts half a unit
  on each extreme class (the pairing's worst and best outcome), so every draw has a score
  strictly between 0 and 1, the fit is always finite, and draws are continuous (no ties).
  For win/loss data this is exactly the Jeffreys posterior ``Beta(w + 1/2, l + 1/2)`` of the
  score, whose credible intervals are known to have close to nominal frequentist coverage
  even for small samples and perfect scores (Brown, Cai and DasGupta 2001). It is also what
  one virtual draw per pairing (BayesElo's idea) does to a logistic likelihood.
- A parametric posterior of the Bradley-Terry model (MCMC or Laplace) treats a draw as half a
  win and half a loss and the two games of an opening pair as independent; real draws
  carry less variance and paired games are correlated, so its intervals would be too wide
  or too narrow depending on the draw rate and the openings. The Bayesian bootstrap reads
  both from the data, like the game bootstrap did, and needs no sampler tuning.
- A Dirichlet over ``m`` observed units understates the variance of a mean by the factor
  ``(m - 1) / (m + 1)`` (the plug-in variance times ``1 / (m + 1)``), which matters for a
  pairing of a few units. ``kappa = (m - 1) / m`` (fewer effective units) brings the
  posterior variance of the mean back to the unbiased ``s^2 / m``; it is 1 in the limit.

Orientation. A pairing's classes are drawn in a canonical orientation (the one whose count
vector reads larger), so swapping the bots' names mirrors every draw exactly: the same 3-1
gives the same LOS whichever name won.

Units. A pair key counts as an opening pair only if it has exactly two games, both between
the same two bots (the rule of :mod:`referee.ratings.pentanomial`); the games of any other
key are counted as lone games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence

from referee.ratings.groups import GroupFitter
from referee.ratings.model import GameResult

__all__ = [
    "CLASS_GAMES",
    "CLASS_POINTS",
    "OutcomeCounts",
    "outcome_counts",
    "percentile_interval",
    "posterior_samples",
    "score_draw",
    "totals",
]

# The eight outcome classes of a pairing, as points of its lower-indexed bot and games:
# lone games scoring 0, 0.5, 1, then opening pairs scoring 0, 0.5, 1, 1.5, 2.
CLASS_POINTS = (0.0, 0.5, 1.0, 0.0, 0.5, 1.0, 1.5, 2.0)
CLASS_GAMES = (1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0)
_MIRROR = (2, 1, 0, 7, 6, 5, 4, 3)  # the class of the same unit seen from the other bot
# A draw's per-game score is kept this far from 0 and 1 (a gamma variate of shape 1/2 can
# underflow), which bounds a drawn gap at about 3,600 Elo.
_EDGE = 1e-9

# Newton's stopping rule for a draw, in nats (about 2e-5 Elo): far below the spread of draws.
_DRAW_TOLERANCE = 1e-7

# For each pairing (by index), how many units fell in each class.
OutcomeCounts = list[list[int]]


def outcome_counts(
    games: Sequence[GameResult], index: Mapping[str, int], pairing_index: Mapping[tuple[int, int], int]
) -> OutcomeCounts:
    """Count each pairing's units by outcome class (see the module docstring).

    Only counts are kept, so the cost of everything downstream depends on the number of
    pairings, not of games.
    """
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


def _prior(row: Sequence[int]) -> list[float]:
    """Half a unit on the worst and on the best outcome of the pairing's main unit kind."""
    prior = [0.0] * len(row)
    if sum(row[3:]) >= sum(row[:3]):
        prior[3] = prior[7] = 0.5
    else:
        prior[0] = prior[2] = 0.5
    return prior


def posterior_shapes(row: Sequence[int]) -> list[float]:
    """The Dirichlet parameters of one pairing: ``kappa * count + prior`` per class."""
    units = sum(row)
    kappa = (units - 1) / units if units > 1 else 1.0
    return [kappa * c + a for c, a in zip(row, _prior(row), strict=True)]


def score_draw(row: Sequence[int], rng: random.Random) -> float:
    """One posterior draw of the per-game score of the pairing's lower-indexed bot.

    Drawn in the canonical orientation (module docstring) and mirrored back, so the draw
    does not depend on which bot has the lower index.
    """
    mirrored = [row[m] for m in _MIRROR]
    flip = mirrored > list(row)
    shapes = posterior_shapes(mirrored if flip else row)
    points = weight = 0.0
    for shape, p, g in zip(shapes, CLASS_POINTS, CLASS_GAMES, strict=True):
        if shape > 0:
            x = rng.gammavariate(shape, 1.0)
            points += x * p
            weight += x * g
    score = min(max(points / weight if weight > 0 else 0.5, _EDGE), 1.0 - _EDGE)
    return 1.0 - score if flip else score


def posterior_samples(
    fitter: GroupFitter, counts: OutcomeCounts, start: Sequence[float], draws: int, seed: int
) -> list[list[float]]:
    """The Elo of every bot (outer index) in each of ``draws`` posterior draws (inner index).

    One ``random.Random(seed)`` draws the pairings in index order (first played first), so
    the samples depend only on the data, its order and the seed. Each draw is refitted
    warm-started from ``start`` (the full-data strengths in nats) and put on the same scale
    as the full-data fit. Nothing is drawn when no bot played a game.
    """
    samples: list[list[float]] = [[] for _ in range(fitter.size)]
    rng = random.Random(seed)
    _, games = totals(counts)
    for _ in range(draws if fitter.components else 0):
        points = [score_draw(row, rng) * n for row, n in zip(counts, games, strict=True)]
        elo, _, _ = fitter.fit(points, games, start, _DRAW_TOLERANCE)
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
    """Equal-tailed posterior bounds at ``confidence``, widened to contain ``estimate``.

    The clamp keeps ``low <= estimate <= high`` (the posterior is skewed near perfect scores,
    and a point estimate outside its own interval would read as nonsense in a table);
    without samples the interval is the estimate itself.
    """
    if not samples:
        return estimate, estimate
    tail = (1.0 - confidence) / 2.0
    ordered = sorted(samples)
    return min(_quantile(ordered, tail), estimate), max(_quantile(ordered, 1.0 - tail), estimate)
