"""Likelihood-ratio intervals for linear contrasts of one group's strengths.

A contrast ``psi = c . theta`` (coefficients summing to zero: a bot against the anchor or
against the mean of some bots, or one bot against another) has the profile deviance

    D(psi) = 2 * (max over all theta of L  -  max over theta with c . theta = psi of L),

the likelihood-ratio statistic of the hypothesis that the contrast is ``psi``. Its 95%
interval is the set of values that test does not reject: ``D(psi) <= phi * z**2``, ``z``
the normal quantile and ``phi`` the units' dispersion (:func:`referee.ratings.units.dispersion`;
the likelihood's curvature is the model's, ``phi`` rescales it to the data's, as
quasi-likelihood does). That set always holds the maximum-likelihood estimate, where
``D = 0``, is asymmetric where the likelihood is (near perfect scores), and needs no
clamping. The likelihood of superiority of a gap is the one-sided version of the same test
at 0: ``Phi(sign(psi_hat) * sqrt(D(0) / phi))``, so a LOS above 97.5% is exactly an interval
that excludes 0.

``D`` is convex (the profile of a concave function over a moving hyperplane is concave),
its slope is ``-2`` times the Lagrange multiplier of the constrained fit
(:func:`referee.ratings.fit.fit_constrained`), and ``sqrt(D)`` is nearly linear, so each
end is found by Newton's method on ``sqrt(D)`` kept inside a bracket, in a few constrained
fits, each warm-started from the last.

An end that does not exist (the data never reject values that far out: the contrast's
maximum-likelihood value is infinite) is not searched for; the caller knows which ends
those are from the structure of the results (:mod:`referee.ratings.groups`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from referee.ratings.fit import PairList, fit_constrained, kernel

__all__ = ["Profile"]

_ROOT_TOLERANCE = 1e-6  # on sqrt(D): far below any difference a table shows
_MAX_EVALUATIONS = 60
_FIT_TOLERANCE = 1e-9


class Profile:
    """The profile deviance of contrasts of one group's strengths ``theta`` (nats, the
    maximum of the likelihood of ``pairs``, last strength at 0)."""

    def __init__(self, size: int, pairs: PairList, theta: Sequence[float]) -> None:
        self.size = size
        self.pairs = pairs
        self.kernel = kernel(size, pairs)  # made once: every end takes several fits
        self.theta = [t - theta[-1] for t in theta]
        self.top = self.kernel.log_likelihood(self.theta)
        self._warm: dict[tuple[float, ...], list[float]] = {}

    def estimate(self, contrast: Sequence[float]) -> float:
        return sum(c * t for c, t in zip(contrast, self.theta, strict=True))

    def deviance(self, contrast: Sequence[float], value: float) -> tuple[float, float]:
        """``D(value)`` and its slope."""
        key = tuple(contrast)
        start = self._warm.get(key, self.theta)
        theta, best, multiplier = fit_constrained(
            self.size, self.kernel, contrast, value, start, _FIT_TOLERANCE
        )
        self._warm[key] = theta
        return max(0.0, 2.0 * (self.top - best)), -2.0 * multiplier

    def end(self, contrast: Sequence[float], side: int, target: float, guess: float) -> float:
        """The value on ``side`` (+1 above the estimate, -1 below) where ``D`` reaches
        ``target``; ``guess`` is a first try (on that side)."""
        centre = self.estimate(contrast)
        root = math.sqrt(target)
        inside, outside = centre, math.nan  # D below / above the target
        value = guess if (guess - centre) * side > 0 else centre + side
        for _ in range(_MAX_EVALUATIONS):
            d, slope = self.deviance(contrast, value)
            gap = math.sqrt(d) - root
            if abs(gap) < _ROOT_TOLERANCE:
                return value
            if gap < 0:
                inside = value
            else:
                outside = value
            step = math.nan
            if d > 0 and slope * side > 0:
                step = value - gap * 2.0 * math.sqrt(d) / slope
            if math.isnan(outside):
                # Nothing beyond the end yet: Newton's step if it goes outwards, else twice as far.
                far = centre + 2.0 * (value - centre)
                value = step if not math.isnan(step) and (step - value) * side > 0 else far
            elif not math.isnan(step) and min(inside, outside) < step < max(inside, outside):
                value = step
            else:
                value = (inside + outside) / 2.0
            if math.isfinite(outside) and abs(outside - inside) < 1e-9:
                return (inside + outside) / 2.0
        return value if math.isnan(outside) else (inside + outside) / 2.0
