"""The numeric core of the rating fit: Bradley-Terry maximum likelihood on plain numbers.

Nothing here knows about bot names, anchors or games: a group of bots is ``size`` local
indices and a *pair list*, the sufficient statistic of its games for Bradley-Terry: for
each two bots ``i < j`` that met, ``(i, j, s, n)`` with ``s`` the points ``i`` scored
against ``j`` and ``n`` the number of games. Fitting works in natural-log strengths
``theta``; :data:`ELO_PER_NAT` converts them to Elo points (``R = theta * 400 / ln 10``).

Kept apart from the bookkeeping in :mod:`referee.ratings.groups` and
:mod:`referee.ratings.elo` so the maths can be read (and checked against the formulas in
the docstrings) on its own; every function is pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import mul

__all__ = [
    "DENSE_SIZE",
    "ELO_PER_NAT",
    "Kernel",
    "PairList",
    "Solver",
    "add_information",
    "cholesky",
    "cholesky_inverse",
    "dense_wanted",
    "fit_constrained",
    "fit_strengths",
    "gap_variances",
    "inverse_information",
    "invert_spd",
    "kernel",
    "log_likelihood",
    "log_sigmoid",
    "newton_system",
    "sigmoid",
    "solve_factored",
    "solve_spd",
    "strong_components",
    "strongly_connected",
    "with_prior",
]

# One natural-log strength unit in Elo points: R = theta * 400 / ln(10).
ELO_PER_NAT = 400.0 / math.log(10.0)
# Newton stops when no rating moves by more than this many natural-log units (~4e-8 Elo).
_TOLERANCE = 1e-10
_MAX_NEWTON_STEPS = 200
# The longest constrained Newton step, in nats: beyond any gap the data can show.
_MAX_STEP = 10.0

# (i, j, points of i against j, games) for each two bots i < j of a group that met.
PairList = Sequence[tuple[int, int, float, float]]


def log_sigmoid(x: float) -> float:
    """``log(1 / (1 + exp(-x)))`` without overflow."""
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def sigmoid(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def log_likelihood(theta: Sequence[float], pairs: PairList) -> float:
    """The Bradley-Terry log-likelihood of strengths ``theta`` (nats) given a pair list."""
    total = 0.0
    for i, j, s, n in pairs:
        d = theta[i] - theta[j]
        total += s * log_sigmoid(d) + (n - s) * log_sigmoid(-d)
    return total


def strongly_connected(size: int, pairs: PairList) -> bool:
    """Whether every bot can be reached from every other by "scored a point against" links.

    For a connected group this is exactly the condition for a finite maximum-likelihood
    estimate (Zermelo 1929; Ford 1957): if some set of bots never scored against the rest,
    the likelihood keeps growing as that set's ratings fall without bound.
    """
    if size <= 1:
        return True
    forward: list[list[int]] = [[] for _ in range(size)]
    backward: list[list[int]] = [[] for _ in range(size)]
    for i, j, s, n in pairs:
        if s > 0:  # i scored against j
            forward[i].append(j)
            backward[j].append(i)
        if n - s > 0:  # j scored against i
            forward[j].append(i)
            backward[i].append(j)
    for links in (forward, backward):
        seen = [False] * size
        seen[0] = True
        stack = [0]
        while stack:
            for k in links[stack.pop()]:
                if not seen[k]:
                    seen[k] = True
                    stack.append(k)
        if not all(seen):
            return False
    return True


def with_prior(pairs: PairList, weight: float = 1.0) -> list[tuple[int, int, float, float]]:
    """Add ``weight`` virtual draws (one by default) to every pairing that was played.

    It depends only on who met whom (not on where the scale is centred) and keeps every
    maximum finite. The adaptive schedule uses one draw to rank bots whose ratings are
    infinite; the rating intervals use a vanishing weight only as a numerical device, to
    reach the supremum of a likelihood that has none (see :mod:`referee.ratings.groups`).
    """
    return [(i, j, s + weight / 2.0, n + weight) for i, j, s, n in pairs]


def strong_components(size: int, pairs: PairList) -> list[int]:
    """The strongly connected components of the "scored a point against" links.

    Returns a component number per bot, numbered in order of their lowest member. Within a
    component the maximum-likelihood differences are finite; between two components every
    game was won by the same side, so their gap is infinite by maximum likelihood (the
    condensation is a directed acyclic graph; see :func:`strongly_connected`).
    """
    links: list[list[int]] = [[] for _ in range(size)]
    for i, j, s, n in pairs:
        if s > 0:
            links[i].append(j)
        if n - s > 0:
            links[j].append(i)
    # Tarjan's algorithm, iterative (a group may be larger than the recursion limit allows).
    order = [-1] * size
    low = [0] * size
    on_stack = [False] * size
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in range(size):
        if order[root] >= 0:
            continue
        work = [(root, 0)]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, next_link = work[-1]
            if next_link < len(links[node]):
                work[-1] = (node, next_link + 1)
                other = links[node][next_link]
                if order[other] < 0:
                    order[other] = low[other] = counter
                    counter += 1
                    stack.append(other)
                    on_stack[other] = True
                    work.append((other, 0))
                elif on_stack[other]:
                    low[node] = min(low[node], order[other])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    members.append(member)
                    if member == node:
                        break
                found.append(members)
    found.sort(key=min)
    label = [0] * size
    for number, members in enumerate(found):
        for member in members:
            label[member] = number
    return label


def add_information(info: list[list[float]], i: int, j: int, games: float, theta: Sequence[float]) -> None:
    """Add the Fisher information of ``games`` between bots ``i`` and ``j`` at strengths
    ``theta`` (nats) to ``info``: each game weighs ``p (1 - p)`` on the gap ``i - j``."""
    p = sigmoid(theta[i] - theta[j])
    w = games * p * (1.0 - p)
    info[i][i] += w
    info[j][j] += w
    info[i][j] -= w
    info[j][i] -= w


def cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The lower-triangular factor ``L`` of a small symmetric positive-definite matrix."""
    # sum(map(mul, ...)) over row prefixes: the inner products are the whole cost here.
    size = len(matrix)
    low = [[0.0] * size for _ in range(size)]
    for r in range(size):
        row = low[r]
        for c in range(r + 1):
            acc = matrix[r][c] - sum(map(mul, row[:c], low[c][:c]))
            if r == c:
                # Tiny negative pivots only come from rounding on a nearly singular system.
                row[r] = math.sqrt(max(acc, 1e-300))
            else:
                row[c] = acc / low[c][c]
    return low


def solve_factored(low: Sequence[Sequence[float]], rhs: Sequence[float]) -> list[float]:
    """Solve ``L L^T x = rhs`` given the factor of :func:`cholesky`."""
    size = len(rhs)
    y = [0.0] * size
    for r in range(size):
        y[r] = (rhs[r] - sum(map(mul, low[r][:r], y[:r]))) / low[r][r]
    x = [0.0] * size
    for r in reversed(range(size)):
        x[r] = (y[r] - sum(low[k][r] * x[k] for k in range(r + 1, size))) / low[r][r]
    return x


def gap_variances(matrix: list[list[float]], pairs: Sequence[tuple[int, int]]) -> list[float]:
    """``c^T M^-1 c`` for ``c = e_a - e_b``, each ``(a, b)`` of ``pairs``, ``M`` a symmetric
    positive-definite ``matrix`` (an information matrix made regular): the variances of the
    gaps. A large matrix is inverted by numpy's LAPACK (:func:`dense_wanted`)."""
    if dense_wanted(len(matrix)):
        from referee.ratings.dense import dense_gap_variances

        return dense_gap_variances(matrix, pairs)
    low = cholesky(matrix)
    out = []
    for a, b in pairs:
        c = [0.0] * len(matrix)
        c[a], c[b] = 1.0, -1.0
        x = solve_factored(low, c)
        out.append(x[a] - x[b])
    return out


def invert_spd(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive-definite ``matrix``; numpy's for a large one."""
    if dense_wanted(len(matrix)):
        from referee.ratings.dense import dense_inverse

        return dense_inverse(matrix)
    return cholesky_inverse(matrix)


def cholesky_inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive-definite ``matrix`` in Python's numbers: its
    Cholesky factor, then one solve a column."""
    low = cholesky(matrix)
    size = len(matrix)
    return [solve_factored(low, [1.0 if r == k else 0.0 for r in range(size)]) for k in range(size)]


def solve_spd(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve a small symmetric positive-definite system by Cholesky decomposition."""
    return solve_factored(cholesky(matrix), rhs)


def newton_system(theta: Sequence[float], pairs: PairList) -> tuple[list[float], list[list[float]]]:
    """Gradient (every bot) and negated Hessian (all bots but the last) at ``theta``.

    The gradient for bot i is ``sum_j (s_ij - n_ij p_ij)`` and the negated Hessian is the
    weighted graph Laplacian with weights ``n_ij p_ij (1 - p_ij)``; the last bot's row and
    column are dropped because its strength is held at 0 (only differences are seen).
    """
    size = len(theta)
    free = size - 1
    grad = [0.0] * size
    info = [[0.0] * free for _ in range(free)]
    for i, j, s, n in pairs:
        p = sigmoid(theta[i] - theta[j])
        g = s - n * p
        grad[i] += g
        grad[j] -= g
        w = n * p * (1.0 - p)
        if i < free:
            info[i][i] += w
        if j < free:
            info[j][j] += w
        if i < free and j < free:
            info[i][j] -= w
            info[j][i] -= w
    return grad, info


class Kernel:
    """The arithmetic a fit's Newton steps need over one group's pair list: its
    log-likelihood, and the gradient with a solver of the information matrix (all bots but
    the last). This one is Python's own numbers (:func:`log_likelihood`,
    :func:`newton_system`, :func:`cholesky`); a large group's is numpy's
    (:class:`referee.ratings.dense.DenseKernel`), the same quantities from whole arrays.
    :func:`kernel` picks one; the fits take either a pair list or a kernel, so a caller
    that fits the same group many times (:class:`referee.ratings.profile.Profile`) makes
    its kernel once."""

    def __init__(self, size: int, pairs: PairList) -> None:
        self.size = size
        self.pairs = pairs

    def log_likelihood(self, theta: Sequence[float]) -> float:
        return log_likelihood(theta, self.pairs)

    def newton(self, theta: Sequence[float]) -> tuple[list[float], Solver]:
        """The gradient at ``theta`` (every bot) and a solver of ``A x = rhs`` for each
        ``rhs`` given, ``A`` the negated Hessian there (see :func:`newton_system`)."""
        grad, info = newton_system(theta, self.pairs)
        low = cholesky(info)

        def solve(*rhs: Sequence[float]) -> list[list[float]]:
            return [solve_factored(low, r) for r in rhs]

        return grad, solve

    def inverse(self, theta: Sequence[float]) -> list[list[float]]:
        """See :func:`inverse_information`."""
        size = len(theta)
        free = size - 1
        _, info = newton_system(theta, self.pairs)
        columns = cholesky_inverse(info)
        return [[*(columns[k][r] for k in range(free)), 0.0] for r in range(free)] + [[0.0] * size]


# The negated Hessian's solver: each right-hand side's solution.
Solver = Callable[..., list[list[float]]]

DENSE_SIZE = 16
"""The fewest bots of a group whose fits use numpy's arrays (when numpy is there). Numpy's
calls cost less than Python's loops from a handful of bots, but a process that rates once
(``vastuz report``) also pays for importing numpy, which a field this small repays
(``benchmarks/ratings.py --only kernels``)."""


def dense_wanted(size: int) -> bool:
    """Whether a group of ``size`` bots is fitted in numpy's arrays: large enough, and
    numpy there (imported now, the first time)."""
    global _numpy
    if size < DENSE_SIZE or _PURE_ONLY:
        return False
    if _numpy is None:
        try:
            import numpy  # noqa: F401
        except ImportError:  # the same fits, in Python's numbers
            _numpy = False
        else:
            _numpy = True
    return _numpy


def kernel(size: int, pairs: PairList | Kernel) -> Kernel:
    """The kernel of a group of ``size`` bots: ``pairs`` itself if it is one."""
    if isinstance(pairs, Kernel):
        return pairs
    if dense_wanted(size):
        from referee.ratings.dense import DenseKernel

        return DenseKernel(size, pairs)
    return Kernel(size, pairs)


_numpy: bool | None = None  # whether numpy imports, once asked
_PURE_ONLY = False  # tests set it to compare the two kernels on the same groups


def fit_strengths(
    size: int, pairs: PairList | Kernel, start: Sequence[float] | None = None, tolerance: float = _TOLERANCE
) -> list[float]:
    """Maximum-likelihood strengths of one connected group, mean zero, in nats.

    Damped Newton on the concave log-likelihood with the last bot's strength held at 0
    (the likelihood only sees differences, so the full Hessian is singular); see
    :func:`newton_system` for the step. Callers guarantee the group is strongly connected
    (see :func:`strongly_connected`) or regularised (:func:`with_prior`), so the maximum
    is finite and unique and the step-halving line search makes convergence global; from a
    good start it takes a handful of quadratic steps. It stops when no strength moves by
    more than ``tolerance`` nats.
    """
    if size == 1:
        return [0.0]
    work = kernel(size, pairs)
    theta = list(start) if start is not None else [0.0] * size
    theta = [t - theta[-1] for t in theta]
    free = size - 1
    current = work.log_likelihood(theta)
    for _ in range(_MAX_NEWTON_STEPS):
        grad, solve = work.newton(theta)
        (step,) = solve(grad[:free])
        theta, current, scale = _backtrack(theta, step, current, work)
        if max(abs(scale * x) for x in step) < tolerance:
            break
    mean = sum(theta) / size
    return [t - mean for t in theta]


def _backtrack(
    theta: Sequence[float], step: Sequence[float], current: float, work: Kernel
) -> tuple[list[float], float, float]:
    """A Newton step from ``theta`` (the last strength held at 0), halved until the
    log-likelihood does not decrease (past ~50 halvings the step is below rounding anyway):
    the new point, its log-likelihood and the share of the step taken."""
    free = len(step)
    scale = 1.0
    while True:
        trial = [theta[k] + scale * step[k] for k in range(free)] + [0.0]
        value = work.log_likelihood(trial)
        if value >= current - 1e-12 * (1.0 + abs(current)) or scale < 1e-15:
            return trial, value, scale
        scale *= 0.5


def _dot(x: Sequence[float], y: Sequence[float]) -> float:
    return float(sum(map(mul, x, y)))


def inverse_information(theta: Sequence[float], pairs: PairList | Kernel) -> list[list[float]]:
    """The inverse of the Fisher information at ``theta`` with the last strength held at 0,
    padded with a zero last row and column, so that ``c^T V c`` is the model's variance of
    any contrast ``c`` (coefficients summing to zero) of the maximum-likelihood strengths."""
    return kernel(len(theta), pairs).inverse(theta)


def fit_constrained(
    size: int,
    pairs: PairList | Kernel,
    contrast: Sequence[float],
    value: float,
    start: Sequence[float],
    tolerance: float = _TOLERANCE,
) -> tuple[list[float], float, float]:
    """Maximise the log-likelihood over strengths whose ``contrast`` (coefficients summing
    to zero) equals ``value``; returns the strengths (last one at 0), the maximum and the
    Lagrange multiplier, which is the slope of that maximum as a function of ``value``.

    Newton's method on the constraint's subspace: the start is first moved to satisfy it,
    then every step ``A^-1 g - m A^-1 c`` (``A`` the information,
    ``g`` the gradient, ``m`` chosen so the step keeps the contrast) stays feasible, so the
    step-halving line search of :func:`fit_strengths` applies unchanged.
    """
    work = kernel(size, pairs)
    free = size - 1
    c = list(contrast[:free])
    theta = [t - start[-1] for t in start]
    # Move to the constraint along A^-1 c, the direction in which the other strengths
    # follow the contrast (moving it alone can strand a bot far out where the likelihood
    # is flat and Newton's steps are unbounded).
    _, solve = work.newton(theta)
    (along,) = solve(c)
    shift = (value - _dot(contrast, theta)) / _dot(c, along)
    theta = [theta[k] + shift * along[k] for k in range(free)] + [0.0]
    current = work.log_likelihood(theta)
    multiplier = 0.0
    for _ in range(_MAX_NEWTON_STEPS):
        grad, solve = work.newton(theta)
        x, y = solve(grad[:free], c)
        multiplier = _dot(c, x) / _dot(c, y)
        step = [x[k] - multiplier * y[k] for k in range(free)]
        longest = max((abs(v) for v in step), default=0.0)
        if longest > _MAX_STEP:  # a flat direction: no step beyond where the data reach
            step = [v * _MAX_STEP / longest for v in step]
        theta, current, scale = _backtrack(theta, step, current, work)
        if max((abs(scale * x) for x in step), default=0.0) < tolerance:
            break
    return theta, current, multiplier
