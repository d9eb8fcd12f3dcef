"""The rating fit's arithmetic for a large group, in numpy's arrays.

:mod:`referee.ratings.fit` runs Newton's method on a group's strengths; each step needs the
log-likelihood, the gradient and the information matrix over every pairing, and solves a
system in that matrix. In Python's own numbers that is a loop over the pairings and a
Cholesky factorisation of cubic cost, the whole cost of a table's intervals for a field of
a few dozen bots (each interval end is a few constrained fits, each a few steps). Here the
same quantities come from whole-array operations and LAPACK's solver; the fit's steps, its
line search and its stopping rule are :mod:`referee.ratings.fit`'s, unchanged, so the two
kernels reach the same maximum to within the fit's tolerance (``tests/test_dense_fit.py``
holds them to it on random fields).

numpy is imported only when a group reaches :data:`referee.ratings.fit.DENSE_SIZE` bots: a
run of a few bots never pays for its import. Without numpy every group uses the pure kernel.

Importing this module holds numpy's BLAS to one thread in the process (:func:`one_blas_thread`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from referee.ratings.fit import Kernel, PairList, Solver, cholesky, cholesky_inverse, solve_factored
from referee.ratings.units import Influence, Moments, weighted_ratio

if TYPE_CHECKING:
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]

__all__ = ["DenseInfluence", "DenseKernel", "dense_gap_variances", "dense_inverse", "one_blas_thread"]


def one_blas_thread() -> None:
    """Hold the BLAS numpy calls to one thread in this process (threadpoolctl); this
    module's import does.

    Its default, a thread per core, makes a large field's table no faster and costs it a
    multiple of the CPU (``benchmarks/ratings.py --only blas``); in a run, the referee's
    process and its standings process would take that second core from the bots, whose
    clocks run. The limit is set in the process, not through the environment
    (``OPENBLAS_NUM_THREADS``), which every bot started after would inherit."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # installed without its dependencies: numpy's own default
        return
    threadpool_limits(limits=1, user_api="blas")  # called, not entered: for the process's life


one_blas_thread()


def _sigmoid(x: Floats) -> Floats:
    """``1 / (1 + exp(-x))`` element-wise without overflow."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _sums(index: npt.NDArray[np.intp], weights: Floats, length: int) -> Floats:
    """``weights`` summed by ``index`` into ``length`` places (numpy's weighted bincount)."""
    return np.bincount(index, weights, length).astype(np.float64, copy=False)


class DenseKernel(Kernel):
    """A pair list as arrays: each pairing's two bots, the first one's points and the games."""

    def __init__(self, size: int, pairs: PairList) -> None:
        super().__init__(size, pairs)  # the pure kernel's, for a matrix LAPACK refuses
        rows = np.asarray(pairs, dtype=np.float64).reshape(-1, 4)
        self._i = rows[:, 0].astype(np.intp)
        self._j = rows[:, 1].astype(np.intp)
        self._s = rows[:, 2]
        self._n = rows[:, 3]
        self._f = self._n - self._s  # the second one's points
        # Each pairing's two off-diagonal places in the flattened information matrix.
        self._ij = self._i * size + self._j
        self._ji = self._j * size + self._i
        self._diagonal = np.arange(size) * (size + 1)

    def _gaps(self, theta: Sequence[float]) -> Floats:
        strengths = np.asarray(theta, dtype=np.float64)
        gaps: Floats = strengths[self._i] - strengths[self._j]
        return gaps

    def log_likelihood(self, theta: Sequence[float]) -> float:
        d = self._gaps(theta)
        # log_sigmoid(d) = -log(1 + exp(-d)) = -logaddexp(0, -d), stable at both ends.
        return -float(self._s @ np.logaddexp(0.0, -d) + self._f @ np.logaddexp(0.0, d))

    def _information(self, theta: Sequence[float]) -> tuple[Floats, Floats]:
        """The gradient (every bot) and the whole negated Hessian (the graph Laplacian)."""
        size = self.size
        p = _sigmoid(self._gaps(theta))
        g = self._s - self._n * p
        grad = _sums(self._i, g, size) - _sums(self._j, g, size)
        w = self._n * p * (1.0 - p)
        info = -(_sums(self._ij, w, size * size) + _sums(self._ji, w, size * size))
        info[self._diagonal] = _sums(self._i, w, size) + _sums(self._j, w, size)
        return grad, info.reshape(size, size)

    def newton(self, theta: Sequence[float]) -> tuple[list[float], Solver]:
        grad, info = self._information(theta)
        free = self.size - 1
        matrix = info[:free, :free]

        def solve(*rhs: Sequence[float]) -> list[list[float]]:
            try:
                columns = np.linalg.solve(matrix, np.array(rhs, dtype=np.float64).T)
            except np.linalg.LinAlgError:
                # Singular to LAPACK (a pairing's weight rounded to nothing): the pure
                # factorisation's floor on its pivots gives the step the pure kernel takes.
                low = cholesky(matrix.tolist())
                return [solve_factored(low, r) for r in rhs]
            return [list(map(float, column)) for column in columns.T]

        return list(map(float, grad)), solve

    def inverse(self, theta: Sequence[float]) -> list[list[float]]:
        _, info = self._information(theta)
        free = self.size - 1
        padded = np.zeros((self.size, self.size))
        try:
            padded[:free, :free] = np.linalg.inv(info[:free, :free])
        except np.linalg.LinAlgError:
            return super().inverse(theta)
        return [list(map(float, row)) for row in padded]


class DenseInfluence(Influence):
    """:class:`~referee.ratings.units.Influence` in arrays: ``V`` as a matrix and the
    pairings' ends and moments as columns, so a contrast costs a product and three sums."""

    def __init__(
        self, variance: list[list[float]], ends: Sequence[tuple[int, int]], parts: Sequence[Moments]
    ) -> None:
        super().__init__(variance, ends, parts)
        self._matrix = np.asarray(variance, dtype=np.float64)
        pairs = np.asarray(ends, dtype=np.intp).reshape(-1, 2)
        self._i, self._j = pairs[:, 0], pairs[:, 1]
        self._squares = np.array([m.squares for m in parts], dtype=np.float64)
        self._variance = np.array([m.variance for m in parts], dtype=np.float64)
        self._spread = np.array([m.spread for m in parts], dtype=np.float64)

    def quadratic(self, c: Sequence[float]) -> float:
        vector = np.asarray(c, dtype=np.float64)
        return float(vector @ self._matrix @ vector)

    def dispersion(self, c: Sequence[float]) -> float:
        reach = self._matrix @ np.asarray(c, dtype=np.float64)
        w = (reach[self._i] - reach[self._j]) ** 2
        return weighted_ratio(
            float(w @ self._squares), float(w @ self._variance), float((w * w) @ self._spread)
        )


def _inverse(matrix: list[list[float]]) -> Floats | None:
    try:
        inverse: Floats = np.linalg.inv(np.asarray(matrix, dtype=np.float64))
    except np.linalg.LinAlgError:
        return None
    return inverse


def dense_inverse(matrix: list[list[float]]) -> list[list[float]]:
    """:func:`referee.ratings.fit.invert_spd` by LAPACK (the pure one where it refuses)."""
    inverse = _inverse(matrix)
    if inverse is None:
        return cholesky_inverse(matrix)
    return [list(map(float, row)) for row in inverse]


def dense_gap_variances(matrix: list[list[float]], pairs: Sequence[tuple[int, int]]) -> list[float]:
    """:func:`referee.ratings.fit.gap_variances` from one inverse by LAPACK."""
    inverse = _inverse(matrix)
    if inverse is None:  # refused by LAPACK: the pure one (not LAPACK again)
        inverse = np.asarray(cholesky_inverse(matrix), dtype=np.float64)
    ends = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    a, b = ends[:, 0], ends[:, 1]
    return list(map(float, inverse[a, a] + inverse[b, b] - inverse[a, b] - inverse[b, a]))
