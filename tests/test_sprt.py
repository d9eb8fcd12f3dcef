"""The SPRT's log-likelihood ratio: against the published method's own numbers, against
the normal approximation on large counts, and against its definition (the constrained
maximum likelihood distributions really are the maxima)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from referee.ratings.sprt import (
    PAIR_VALUES,
    Decision,
    Model,
    Sprt,
    bounds,
    llr,
    llr_normal_approximation,
    logistic_score,
    mle_expected,
    mle_t_value,
    pair_estimates,
    regularized,
)

VECTORS = json.loads((Path(__file__).parent / "data" / "sprt-vectors.json").read_text())


def test_the_llr_agrees_with_fishtests_implementation() -> None:
    """500 cases (both models, zero counts, lopsided and large samples) computed by
    fishtest's own code: agreement to 1e-3 relative (in fact to about 1e-6)."""
    assert len(VECTORS["cases"]) == 500
    for case in VECTORS["cases"]:
        value = llr(case["counts"], case["elo0"], case["elo1"], Model(case["model"]))
        assert value == pytest.approx(case["llr"], rel=1e-3, abs=1e-9), case


@pytest.mark.parametrize("counts", [[900, 4100, 10200, 4400, 1300], [3000, 9000, 16000, 9500, 3400]])
@pytest.mark.parametrize(("elo0", "elo1"), [(0, 5), (-2, 3), (0, 2)])
def test_on_large_counts_the_exact_llr_approaches_the_normal_approximation(
    counts: list[int], elo0: float, elo1: float
) -> None:
    exact = llr(counts, elo0, elo1, Model.LOGISTIC)
    approx = llr_normal_approximation(counts, elo0, elo1)
    assert abs(exact - approx) <= 0.01 * abs(approx) + 0.02, (exact, approx)


def _loglik(counts: list[float], probs: list[float]) -> float:
    return sum(c * math.log(p) for c, p in zip(counts, probs, strict=True))


def test_the_constrained_mle_is_the_maximum() -> None:
    """The distribution :func:`mle_expected` returns satisfies its constraint, and no other
    distribution that satisfies it (random feasible perturbations) is more likely."""
    rng = random.Random(7)
    for _ in range(30):
        counts = regularized([rng.randrange(0, 40) for _ in range(5)])
        n = sum(counts)
        probs = [c / n for c in counts]
        s = rng.uniform(0.3, 0.7)
        best = mle_expected(probs, s)
        assert sum(best) == pytest.approx(1) and all(p > 0 for p in best)
        assert sum(p * a for p, a in zip(best, PAIR_VALUES, strict=True)) == pytest.approx(s, abs=1e-12)
        top = _loglik(counts, best)
        # Directions that keep both the total and the mean: orthogonal to (1,...) and a.
        for _ in range(50):
            d = [rng.gauss(0, 1) for _ in range(5)]
            centred = [a - sum(PAIR_VALUES) / 5 for a in PAIR_VALUES]  # orthogonal to (1, ..., 1)
            for basis in ([1.0] * 5, centred):
                dot = sum(x * y for x, y in zip(d, basis, strict=True)) / sum(y * y for y in basis)
                d = [x - dot * y for x, y in zip(d, basis, strict=True)]
            step = 1e-3 * min(best) / max(abs(x) for x in d)
            other = [p + step * x for p, x in zip(best, d, strict=True)]
            assert sum(p * a for p, a in zip(other, PAIR_VALUES, strict=True)) == pytest.approx(s, abs=1e-12)
            assert _loglik(counts, other) <= top + 1e-9


def test_the_t_value_mle_meets_its_constraint() -> None:
    probs = [c / 100 for c in (10, 20, 30, 25, 15)]
    for t in (-0.2, 0.0, 0.05, 0.3):
        q = mle_t_value(probs, 0.5, t)
        mean = sum(p * a for p, a in zip(q, PAIR_VALUES, strict=True))
        sd = math.sqrt(sum(p * (a - mean) ** 2 for p, a in zip(q, PAIR_VALUES, strict=True)))
        assert (mean - 0.5) / sd == pytest.approx(t, abs=1e-9)


def test_small_cases_by_hand() -> None:
    # Symmetric results, symmetric hypotheses: no evidence either way.
    for model in Model:
        assert llr([3, 5, 10, 5, 3], -4, 4, model) == pytest.approx(0, abs=1e-12)
    # No pairs: every count is the regularization, the same under both hypotheses'
    # constraints only when they are symmetric around the uniform mean 1/2.
    assert llr([0, 0, 0, 0, 0], -5, 5, Model.LOGISTIC) == pytest.approx(0, abs=1e-9)
    # One won pair favours the better hypothesis, one lost pair the worse.
    for model in Model:
        assert llr([0, 0, 0, 0, 1], 0, 5, model) > 0 > llr([1, 0, 0, 0, 0], 0, 5, model)
    # More evidence, more LLR: doubling every count roughly doubles it.
    base = [10, 20, 30, 25, 15]
    assert llr([2 * c for c in base], 0, 5) == pytest.approx(2 * llr(base, 0, 5), rel=1e-3)
    # The logistic expected scores.
    assert logistic_score(0) == 0.5 and logistic_score(400) == pytest.approx(10 / 11)


def test_bounds_and_decisions() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    test = Sprt(elo0=0, elo1=10)
    assert test.status([0, 0, 0, 0, 0]).decision is None and test.status([0, 0, 0, 0, 0]).llr == 0
    assert test.status([0, 2, 10, 40, 60]).decision is Decision.H1
    assert test.status([60, 40, 10, 2, 0]).decision is Decision.H0
    middle = test.status([10, 20, 30, 25, 15])
    assert middle.decision is None and 0 < middle.progress < 1
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=5)
    with pytest.raises(ValueError):
        bounds(0.6, 0.5)
    with pytest.raises(ValueError):
        llr([1, 2, 3], 0, 5)


def test_pair_estimates() -> None:
    logistic, normalized = pair_estimates([10, 20, 30, 25, 15])
    # mean pair score (0*10 + .25*20 + .5*30 + .75*25 + 15) / 100 = 0.5375
    assert logistic.elo == pytest.approx(-400 * math.log10(1 / 0.5375 - 1), rel=1e-6)
    assert logistic.low is not None and logistic.high is not None
    assert logistic.low < logistic.elo < logistic.high
    assert normalized.low is not None and normalized.high is not None
    assert normalized.low < normalized.elo < normalized.high and normalized.elo > 0


def test_pair_estimates_make_up_nothing_for_a_perfect_score() -> None:
    logistic, normalized = pair_estimates([0, 0, 0, 0, 15])
    assert math.isnan(logistic.elo) and logistic.low is None and logistic.high is None
    assert math.isnan(normalized.elo) and normalized.low is None and normalized.high is None
    assert "Elo ? [?, ?], nElo ? [?, ?]" in Sprt(0, 20).status([0, 0, 0, 0, 15]).line((30, 0, 0))
