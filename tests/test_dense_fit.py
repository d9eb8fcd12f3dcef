"""A large group's fits in numpy's arrays (referee/ratings/dense.py) against Python's own
numbers: the same kernels' quantities, the same ratings, intervals and LOS on whole fields
(finite, with bounds, anchored, split into groups), numpy imported only for a large group,
and every group rated in Python's numbers when numpy cannot be imported."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fields import field

from referee.ratings import fit
from referee.ratings.dense import DenseInfluence, DenseKernel
from referee.ratings.elo import Ratings, compute_ratings
from referee.ratings.fit import DENSE_SIZE, Kernel, kernel, with_prior
from referee.ratings.model import GameResult
from referee.ratings.units import Influence, Moments

HERE = Path(__file__).resolve().parent


@pytest.fixture
def pure_only() -> Iterator[None]:
    fit._PURE_ONLY = True
    try:
        yield
    finally:
        fit._PURE_ONLY = False


def both(games: list[GameResult], names: list[str], anchor: str | None = None) -> tuple[Ratings, Ratings]:
    dense = compute_ratings(games, names, anchor=anchor)
    fit._PURE_ONLY = True
    try:
        pure = compute_ratings(games, names, anchor=anchor)
    finally:
        fit._PURE_ONLY = False
    return dense, pure


def close(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return a is b
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= tolerance


def assert_same(dense: Ratings, pure: Ratings) -> None:
    """The same table to well within what it shows (0.1 Elo, 0.1% LOS): estimates to the
    fits' tolerance, interval ends to their root search's."""
    assert [r.name for r in dense.ratings] == [r.name for r in pure.ratings]
    assert dense.warnings == pure.warnings
    for x, y in zip(dense.ratings, pure.ratings, strict=True):
        assert x.bound == y.bound and x.group == y.group, x.name
        assert close(x.elo, y.elo, 1e-6), (x.name, x.elo, y.elo)
        assert close(x.low, y.low, 1e-3), (x.name, x.low, y.low)
        assert close(x.high, y.high, 1e-3), (x.name, x.high, y.high)
    assert dense.gaps.keys() == pure.gaps.keys()
    for key, gap in dense.gaps.items():
        other = pure.gaps[key]
        assert close(gap.elo, other.elo, 1e-6), key
        assert close(gap.low, other.low, 1e-3) and close(gap.high, other.high, 1e-3), key
        assert close(gap.los, other.los, 1e-6), key
    assert dense.los.keys() == pure.los.keys()
    for key, value in dense.los.items():
        assert close(value, pure.los[key], 1e-6), key


@pytest.mark.parametrize(
    ("size", "spread", "pairs", "density", "groups"),
    [
        (DENSE_SIZE, 600.0, 2, 1.0, 1),  # finite: every bot an estimate
        (24, 6000.0, 1, 1.0, 1),  # a field so spread that its ends are bounds
        (20, 3000.0, 1, 0.5, 1),  # sparse and very spread: many bounds
        (34, 800.0, 1, 1.0, 2),  # two groups that never meet, each of 17
    ],
)
def test_a_large_field_rates_the_same_in_either_kernel(
    size: int, spread: float, pairs: int, density: float, groups: int
) -> None:
    rng = random.Random(size * 7 + groups)
    games, names = field(rng, size, spread, pairs, density, groups)
    dense, pure = both(games, names)
    assert_same(dense, pure)
    if spread >= 3000.0:  # the case the bounds' vanishing prior makes ill-conditioned
        assert any(r.bound is not None for r in dense.ratings)


def test_an_anchored_large_field_rates_the_same() -> None:
    games, names = field(random.Random(5), 18, 900.0, 1)
    dense, pure = both(games, names, anchor="b03")
    assert_same(dense, pure)
    assert dense.rating("b03").elo == 0.0


def test_the_kernels_agree_on_their_quantities() -> None:
    rng = random.Random(11)
    for trial in range(30):
        size = rng.randrange(2, 30)
        pairs = [
            (i, j, s, n)
            for i in range(size)
            for j in range(i + 1, size)
            if rng.random() < 0.7
            for n in [float(rng.randrange(1, 9))]
            for s in [rng.randrange(0, int(2 * n) + 1) / 2.0]
        ]
        if trial % 3 == 0:
            pairs = with_prior(pairs, 1e-6)
        theta = [rng.uniform(-3, 3) for _ in range(size - 1)] + [0.0]
        pure, dense = Kernel(size, pairs), DenseKernel(size, pairs)
        assert dense.log_likelihood(theta) == pytest.approx(pure.log_likelihood(theta), rel=1e-12, abs=1e-9)
        grad_p, solve_p = pure.newton(theta)
        grad_d, solve_d = dense.newton(theta)
        assert grad_d == pytest.approx(grad_p, rel=1e-9, abs=1e-9)
        rhs = [[rng.uniform(-1, 1) for _ in range(size - 1)] for _ in range(2)]
        if all(k in {i for i, *_ in pairs} | {j for _, j, *_ in pairs} for k in range(size)):
            for x, y in zip(solve_d(*rhs), solve_p(*rhs), strict=True):
                assert x == pytest.approx(y, rel=1e-6, abs=1e-6)


def test_a_matrix_singular_to_lapack_takes_the_pure_step() -> None:
    # Bot 2 met only bot 1, at a gap where p (1 - p) rounds to 0: its row of the
    # information is zero, which LAPACK refuses and the pure factorisation floors.
    pairs = [(0, 1, 3.0, 5.0), (1, 2, 1.0, 1.0)]
    theta = [0.0, 0.0, -800.0]
    size = 3
    fit.DENSE_SIZE, saved = 2, fit.DENSE_SIZE
    try:
        dense = kernel(size, pairs)
    finally:
        fit.DENSE_SIZE = saved
    assert isinstance(dense, DenseKernel)
    with pytest.raises(np.linalg.LinAlgError):
        _, info = dense._information(theta)
        np.linalg.solve(info[:2, :2], np.ones(2))
    _, solve_d = dense.newton(theta)
    _, solve_p = Kernel(size, pairs).newton(theta)
    assert solve_d([1.0, 2.0]) == solve_p([1.0, 2.0])
    assert dense.inverse(theta) == Kernel(size, pairs).inverse(theta)


def test_the_influences_agree() -> None:
    rng = random.Random(3)
    size = 20
    a = [[rng.uniform(-1, 1) for _ in range(size)] for _ in range(size)]
    variance = [[sum(a[r][k] * a[c][k] for k in range(size)) for c in range(size)] for r in range(size)]
    ends = [(i, j) for i in range(size) for j in range(i + 1, size) if rng.random() < 0.5]
    parts = [Moments(rng.uniform(0, 3), rng.uniform(0.1, 2), rng.uniform(0, 1), 1.0) for _ in ends]
    pure, dense = Influence(variance, ends, parts), DenseInfluence(variance, ends, parts)
    for _ in range(20):
        c = [rng.uniform(-1, 1) for _ in range(size)]
        assert dense.quadratic(c) == pytest.approx(pure.quadratic(c), rel=1e-10)
        assert dense.dispersion(c) == pytest.approx(pure.dispersion(c), rel=1e-10)


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=HERE, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_numpy_is_imported_only_for_a_large_group() -> None:
    code = (
        "import sys\n"
        "from fields import field\n"
        "import random\n"
        "from referee.ratings.elo import compute_ratings\n"
        "games, names = field(random.Random(1), {size}, 600.0, 1)\n"
        "compute_ratings(games, names)\n"
        "print('numpy' in sys.modules)\n"
    )
    assert _run(code.format(size=DENSE_SIZE - 1)) == "False"
    assert _run(code.format(size=DENSE_SIZE)) == "True"


def test_without_numpy_every_group_is_rated_in_pure_python(pure_only: None) -> None:
    code = (
        "import sys\n"
        "sys.modules['numpy'] = None  # import numpy now raises ImportError\n"
        "import random\n"
        "from fields import field\n"
        "from referee.ratings.elo import compute_ratings\n"
        "from referee.ratings import fit\n"
        "games, names = field(random.Random(2), 20, 1000.0, 1)\n"
        "r = compute_ratings(games, names)\n"
        "print(type(fit.kernel(20, [(0, 1, 1.0, 2.0)])).__name__)\n"
        "print(repr([(x.name, x.elo, x.low, x.high) for x in r.ratings]))\n"
    )
    name, table = _run(code).splitlines()
    assert name == "Kernel"
    games, names = field(random.Random(2), 20, 1000.0, 1)
    pure = compute_ratings(games, names)  # the fixture: Python's numbers here too
    assert table == repr([(x.name, x.elo, x.low, x.high) for x in pure.ratings])


def test_the_gaps_variances_and_inverse_agree() -> None:
    rng = random.Random(8)
    size = 24
    a = [[rng.uniform(-1, 1) for _ in range(size)] for _ in range(size)]
    matrix = [
        [sum(a[r][k] * a[c][k] for k in range(size)) + (r == c) for c in range(size)] for r in range(size)
    ]
    pairs = [(rng.randrange(size), rng.randrange(size)) for _ in range(40)]
    pairs = [(i, j) for i, j in pairs if i != j]
    dense = fit.gap_variances(matrix, pairs)
    inverse = fit.invert_spd(matrix)
    fit._PURE_ONLY = True
    try:
        assert dense == pytest.approx(fit.gap_variances(matrix, pairs), rel=1e-9)
        pure_inverse = fit.invert_spd(matrix)
    finally:
        fit._PURE_ONLY = False
    for row, other in zip(inverse, pure_inverse, strict=True):
        assert row == pytest.approx(other, rel=1e-9, abs=1e-12)


def test_numpys_blas_runs_one_thread_here_and_the_bots_inherit_nothing() -> None:
    """Once a large field is rated, the process's BLAS runs one thread (its default, a thread
    per core, costs a table a multiple of the CPU, which a run's bots would lose), and a
    process started after it, as a bot is, still gets the library's own default: the limit is
    the process's, not its environment's."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: BLAS runs one thread by default")
    threads = "max(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas')"
    child = f"import numpy\nfrom threadpoolctl import threadpool_info\nprint({threads})\n"
    code = (
        "import random, subprocess, sys\n"
        "import numpy\n"
        "from threadpoolctl import threadpool_info\n"
        "from fields import field\n"
        "from referee.ratings.elo import compute_ratings\n"
        f"before = {threads}\n"
        "games, names = field(random.Random(3), 20, 1000.0, 1)\n"
        "compute_ratings(games, names)\n"
        f"after = {threads}\n"
        f"child = subprocess.run([sys.executable, '-c', {child!r}], capture_output=True, text=True)\n"
        "print(before, after, child.stdout.strip())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    before, after, child = (int(word) for word in done.stdout.split())
    assert before > 1  # the library's default on this machine: the limit below is ours
    assert after == 1
    assert child == before
