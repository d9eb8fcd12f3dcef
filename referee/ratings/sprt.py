"""The sequential probability ratio test on game pairs: "is the candidate better?".

A test is ``H0: elo = elo0`` against ``H1: elo = elo1`` on colour-reversed game pairs,
scored from the candidate's side as 0, 1/4, 1/2, 3/4 or 1 (the pair's points over two):
the pentanomial counts LL, LD, DD+WL, WD, WW. The statistic is the *generalized* log
likelihood ratio: under each hypothesis the pair-score distribution is the maximum
likelihood one among those that satisfy the hypothesis (an expected score for the
logistic model, a t-value for normalized Elo), and the LLR is the log of the ratio of the
two likelihoods of the observed counts. This is the method of fishtest and fastchess (M.
Van den Bergh, "Normalized Elo", and the notes on the multinomial MLE it cites); it is
implemented here from those definitions in pure Python.

* Zero counts are replaced by 1e-3 before anything is computed, as the published method
  does, so the MLE exists from the first pair on.
* The constrained MLE of a distribution ``p`` with expectation ``s`` is
  ``p_i / (1 + x (a_i - s))`` where ``x`` solves the secular equation
  ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0``; for a t-value the constraint is not
  linear, and the same form is iterated to a fixed point.
* Bounds: accept H0 when ``LLR <= ln(beta / (1 - alpha))``, H1 when
  ``LLR >= ln((1 - beta) / alpha)``.

No I/O, no randomness: the same counts always give the same LLR, so a resumed run
recomputes the test from its results file and reaches the same decision.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of t-value (per game): 347.4..."""
REGULARIZATION = 1e-3
PAIR_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)
GAME_VALUES = (0.0, 0.5, 1.0)
"""A single game's scores (L, D, W): the trinomial test of :func:`llr_games`."""
_ROOT_TOLERANCE = 1e-15


class Model(str, enum.Enum):
    """``normalized``: elo0/elo1 in normalized Elo (the t-value of the pair score, scaled),
    which makes the test's length depend little on the draw rate; ``logistic``: the
    ordinary logistic Elo of the expected score."""

    NORMALIZED = "normalized"
    LOGISTIC = "logistic"


class Decision(str, enum.Enum):
    H0 = "H0"
    H1 = "H1"


# ------------------------------------------------------------------------ distributions


def regularized(counts: Sequence[float], size: int = 5) -> list[float]:
    """The counts with every zero replaced by :data:`REGULARIZATION`."""
    if len(counts) != size or any(c < 0 for c in counts):
        what = "pentanomial" if size == 5 else "L, D, W"
        raise ValueError(f"expected {size} non-negative {what} counts, got {list(counts)}")
    return [float(c) if c > 0 else REGULARIZATION for c in counts]


def _mean_var(probs: Sequence[float], values: Sequence[float] = PAIR_VALUES) -> tuple[float, float]:
    mean = sum(p * a for p, a in zip(probs, values, strict=True))
    var = sum(p * (a - mean) ** 2 for p, a in zip(probs, values, strict=True))
    return mean, var


def _secular_root(shifts: Sequence[float], probs: Sequence[float]) -> float:
    """The ``x`` with ``sum p_i c_i / (1 + x c_i) = 0``, in the interval where every
    ``1 + x c_i`` is positive. The left side falls strictly with ``x`` there, so
    bisection finds the one root; it needs shifts of both signs."""
    low_shift, high_shift = min(shifts), max(shifts)
    if not low_shift < 0 < high_shift:
        raise ValueError("the constraint lies outside the range of the pair scores")
    lo, hi = -1 / high_shift, -1 / low_shift

    def f(x: float) -> float:
        return sum(p * c / (1 + x * c) for p, c in zip(probs, shifts, strict=True))

    # Stay strictly inside the interval, where f is finite.
    span = hi - lo
    lo, hi = lo + span * 1e-12, hi - span * 1e-12
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= _ROOT_TOLERANCE * max(1.0, abs(mid)):
            break
    return (lo + hi) / 2


def mle_expected(probs: Sequence[float], score: float, values: Sequence[float] = PAIR_VALUES) -> list[float]:
    """The distribution on the pair scores (or ``values``) nearest to ``probs`` (maximum
    likelihood) among those whose expectation is ``score``."""
    shifts = [a - score for a in values]
    x = _secular_root(shifts, probs)
    out = [p / (1 + x * c) for p, c in zip(probs, shifts, strict=True)]
    total = sum(out)
    return [p / total for p in out]


def mle_t_value(
    probs: Sequence[float], ref: float, t: float, values: Sequence[float] = PAIR_VALUES
) -> list[float]:
    """The maximum likelihood distribution among those with ``(mean - ref) / sd == t``.

    The stationarity condition has the form of :func:`mle_expected` with shifts that
    depend on the solution's own mean and deviation, so it is iterated from the uniform
    distribution until it stops moving (a handful of steps)."""
    current = [1 / len(probs)] * len(probs)
    for _ in range(100):
        mean, var = _mean_var(current, values)
        sd = math.sqrt(var)
        shifts = [a - ref - t * sd * (1 + ((mean - a) / sd) ** 2) / 2 for a in values]
        x = _secular_root(shifts, probs)
        new = [p / (1 + x * c) for p, c in zip(probs, shifts, strict=True)]
        total = sum(new)
        new = [p / total for p in new]
        moved = max(abs(a - b) for a, b in zip(new, current, strict=True))
        current = new
        if moved < 1e-13:
            break
    return current


# ------------------------------------------------------------------------ the LLR


def logistic_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _llr(counts: Sequence[float], h0: list[float], h1: list[float]) -> float:
    return sum(c * (math.log(b) - math.log(a)) for c, a, b in zip(counts, h0, h1, strict=True))


def llr(counts: Sequence[float], elo0: float, elo1: float, model: Model = Model.NORMALIZED) -> float:
    """The generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for the
    pentanomial ``counts`` (LL, LD, DD+WL, WD, WW from the candidate's side)."""
    reg = regularized(counts)
    n = sum(reg)
    probs = [c / n for c in reg]
    if model is Model.LOGISTIC:
        h0, h1 = (mle_expected(probs, logistic_score(e)) for e in (elo0, elo1))
    else:
        # A pair's score has twice the variance of one game's over two: per-pair
        # t-values are sqrt(2) times the per-game ones the Elo is defined by.
        t0, t1 = (e / NELO_PER_T * math.sqrt(2) for e in (elo0, elo1))
        h0, h1 = (mle_t_value(probs, 0.5, t) for t in (t0, t1))
    return _llr(reg, h0, h1)


def llr_games(wdl: Sequence[float], elo0: float, elo1: float, model: Model = Model.NORMALIZED) -> float:
    """The generalized LLR of the same test on single games (trinomial: ``wdl`` the
    candidate's wins, draws and losses), for counts that were not kept by pairs. It treats
    games as independent, which colour-reversed pairs are not: from the same games the
    pentanomial LLR (:func:`llr`) is the one a run computes."""
    w, d, lo = wdl
    reg = regularized([lo, d, w], 3)
    n = sum(reg)
    probs = [c / n for c in reg]
    if model is Model.LOGISTIC:
        h0, h1 = (mle_expected(probs, logistic_score(e), GAME_VALUES) for e in (elo0, elo1))
    else:
        h0, h1 = (mle_t_value(probs, 0.5, e / NELO_PER_T, GAME_VALUES) for e in (elo0, elo1))
    return _llr(reg, h0, h1)


def game_estimates(wdl: Sequence[int], confidence: float = 0.95) -> tuple[EloEstimate, EloEstimate]:
    """Logistic Elo and normalized Elo of the candidate from its single games' W, D, L,
    each with its interval (normal approximation; ``None`` where the data hold none, as in
    :func:`pair_estimates`)."""
    w, d, lo = wdl
    n = w + d + lo
    if n == 0:
        return EloEstimate(math.nan, None, None), EloEstimate(math.nan, None, None)
    mean, var = _mean_var([lo / n, d / n, w / n], GAME_VALUES)
    elo = _elo_of_score(mean)
    if var <= 0 or n < 2:
        return EloEstimate(elo if elo is not None else math.nan, None, None), EloEstimate(
            math.nan, None, None
        )
    half = NormalDist().inv_cdf(0.5 + confidence / 2) * math.sqrt(var / n)
    logistic = EloEstimate(
        elo if elo is not None else math.nan, _elo_of_score(mean - half), _elo_of_score(mean + half)
    )
    scale = NELO_PER_T / math.sqrt(var)
    normalized = EloEstimate((mean - 0.5) * scale, (mean - half - 0.5) * scale, (mean + half - 0.5) * scale)
    return logistic, normalized


def llr_normal_approximation(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The LLR of the logistic model as a Brownian motion would have it:
    ``N (s1 - s0) (2 s - s0 - s1) / (2 var)`` with the observed mean ``s`` and variance.
    Close to :func:`llr` for many pairs and small Elo; the tests use it as an
    independent check of the exact computation."""
    reg = regularized(counts)
    n = sum(reg)
    mean, var = _mean_var([c / n for c in reg])
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """``(lower, upper)``: accept H0 at or below ``lower``, H1 at or above ``upper``."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


# ------------------------------------------------------------------------ the state of a test


@dataclass(frozen=True)
class Sprt:
    """The test's parameters (from the config)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = Model.NORMALIZED

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got [{self.elo0}, {self.elo1}]")
        bounds(self.alpha, self.beta)

    @property
    def bounds(self) -> tuple[float, float]:
        return bounds(self.alpha, self.beta)

    def status(self, counts: Sequence[int]) -> SprtStatus:
        lower, upper = self.bounds
        value = llr(counts, self.elo0, self.elo1, self.model) if sum(counts) else 0.0
        decision = Decision.H1 if value >= upper else Decision.H0 if value <= lower else None
        return SprtStatus(self, tuple(counts), value, lower, upper, decision)

    def status_of_games(self, wdl: tuple[int, int, int]) -> SprtStatus:
        """Where the test stands on single games (see :func:`llr_games`); its ``counts``
        are empty (no pairs) and :meth:`SprtStatus.line` shows the games' W-D-L."""
        lower, upper = self.bounds
        value = llr_games(wdl, self.elo0, self.elo1, self.model) if sum(wdl) else 0.0
        decision = Decision.H1 if value >= upper else Decision.H0 if value <= lower else None
        return SprtStatus(self, (), value, lower, upper, decision, games=wdl)


@dataclass(frozen=True)
class SprtStatus:
    """Where a test stands after the pairs in ``counts``."""

    test: Sprt
    counts: tuple[int, ...]
    llr: float
    lower: float
    upper: float
    decision: Decision | None
    games: tuple[int, int, int] | None = None
    """Set (W, D, L) for a test on single games (:meth:`Sprt.status_of_games`)."""

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def progress(self) -> float:
        """The LLR's way to the bound it is heading for, as a fraction (negative LLRs
        towards the lower bound)."""
        return self.llr / self.upper if self.llr >= 0 else self.llr / self.lower

    def to_json(self) -> dict[str, object]:
        """The ``"sprt"`` object of ``standings.json`` (docs/records.md)."""
        return {
            "model": self.test.model.value,
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "llr": round(self.llr, 4),
            "pentanomial": list(self.counts),
            "pairs": self.pairs,
            "games": 2 * self.pairs,
            "decision": None if self.decision is None else self.decision.value,
        }

    def line(self, wdl: tuple[int, int, int] | None) -> str:
        """One line of live output, as fastchess prints it: games, the candidate's W-D-L
        (``wdl``: the pentanomial counts cannot tell DD from WL; None: not known, shown
        ``?``), the pentanomial counts, Elo and nElo with their intervals, the LLR, how far
        it has gone, the bounds. A test on single games shows its games instead of pairs."""
        if self.games is not None:
            w, d, lo = self.games
            logistic, normalized = game_estimates(self.games)
            head = f"games {w + d + lo} (single games, no pairs), W-D-L {w}-{d}-{lo}; "
        else:
            ll, ld, mid, wd, ww = self.counts
            logistic, normalized = pair_estimates(self.counts)
            shown = "?" if wdl is None else f"{wdl[0]}-{wdl[1]}-{wdl[2]}"
            head = (
                f"games {2 * self.pairs} ({self.pairs} pairs), W-D-L {shown}, "
                f"penta [{ll}, {ld}, {mid}, {wd}, {ww}]; "
            )
        return (
            head + f"Elo {_signed(logistic.elo)} [{_signed(logistic.low)}, {_signed(logistic.high)}], "
            f"nElo {_signed(normalized.elo)} [{_signed(normalized.low)}, {_signed(normalized.high)}]; "
            f"LLR {self.llr:.2f} ({100 * self.progress:.1f}%), bounds [{self.lower:.2f}, {self.upper:.2f}], "
            f"[elo0, elo1] = [{self.test.elo0:g}, {self.test.elo1:g}] ({self.test.model.value})"
        )

    def words(self, capped: bool = False) -> str:
        """The outcome in words."""
        t = self.test
        unit = "normalized Elo" if t.model is Model.NORMALIZED else "Elo"
        if self.decision is Decision.H1:
            return (
                f"H1 accepted: the candidate is stronger by at least {t.elo0:g} {unit} "
                f"(LLR {self.llr:.2f} >= {self.upper:.2f}; error rates alpha {t.alpha:g}, beta {t.beta:g})"
            )
        if self.decision is Decision.H0:
            return (
                f"H0 accepted: the candidate is not stronger by {t.elo1:g} {unit} or more "
                f"(LLR {self.llr:.2f} <= {self.lower:.2f}; error rates alpha {t.alpha:g}, beta {t.beta:g})"
            )
        if capped:
            return (
                f"inconclusive: the game limit was reached with LLR {self.llr:.2f} "
                f"inside ({self.lower:.2f}, {self.upper:.2f})"
            )
        return f"undecided so far: LLR {self.llr:.2f} inside ({self.lower:.2f}, {self.upper:.2f})"


def _signed(x: float | None) -> str:
    return "?" if x is None or not math.isfinite(x) else f"{x:+.1f}"


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% interval from the pair statistics (asymmetric on
    the Elo scale; ``None`` ends when the interval's score leaves (0, 1))."""

    elo: float
    low: float | None
    high: float | None


def _elo_of_score(score: float) -> float | None:
    if not 0 < score < 1:
        return None
    return -400 * math.log10(1 / score - 1)


def pair_estimates(counts: Sequence[int], confidence: float = 0.95) -> tuple[EloEstimate, EloEstimate]:
    """Logistic Elo and normalized Elo of the candidate, each with its interval (normal
    approximation on the pair scores), from the observed pentanomial counts.

    No figure is made up where the data hold none: with fewer than two different pair
    scores observed (every pair won, say) the deviation is unknown, so normalized Elo and
    both intervals are ``None`` (shown ``?``), and a perfect score has no finite Elo
    (``nan``) either. The SPRT itself handles such counts by its regularization; these are
    only what a reader is shown."""
    n = sum(counts)
    if n == 0:
        return EloEstimate(math.nan, None, None), EloEstimate(math.nan, None, None)
    mean, var = _mean_var([c / n for c in counts])
    elo = _elo_of_score(mean)
    if var <= 0 or n < 2:
        point = elo if elo is not None else math.nan
        return EloEstimate(point, None, None), EloEstimate(math.nan, None, None)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * math.sqrt(var / n)
    logistic = EloEstimate(
        elo if elo is not None else math.nan, _elo_of_score(mean - half), _elo_of_score(mean + half)
    )
    scale = NELO_PER_T / math.sqrt(
        2 * var
    )  # one game's deviation: a pair's score over two has half the variance
    normalized = EloEstimate((mean - 0.5) * scale, (mean - half - 0.5) * scale, (mean + half - 0.5) * scale)
    return logistic, normalized
