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
from collections.abc import Sequence
from operator import mul

__all__ = [
    "ELO_PER_NAT",
    "PairList",
    "fit_strengths",
    "log_likelihood",
    "log_sigmoid",
    "sigmoid",
    "solve_spd",
    "strongly_connected",
    "with_prior",
]

# One natural-log strength unit in Elo points: R = theta * 400 / ln(10).
ELO_PER_NAT = 400.0 / math.log(10.0)
# Newton stops when no rating moves by more than this many natural-log units (~4e-8 Elo).
_TOLERANCE = 1e-10
_MAX_NEWTON_STEPS = 200

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


def with_prior(pairs: PairList) -> list[tuple[int, int, float, float]]:
    """Add one virtual draw to every pairing that was played.

    This is the regularisation used when the maximum-likelihood ratings are infinite. It
    depends only on who met whom (not on where the scale is centred), keeps a perfect
    score strictly above every other result, and barely moves well-populated pairings.
    """
    return [(i, j, s + 0.5, n + 1.0) for i, j, s, n in pairs]


def solve_spd(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve a small symmetric positive-definite system by Cholesky decomposition."""
    # sum(map(mul, ...)) over row prefixes: the inner products are the whole cost here.
    size = len(rhs)
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
    y = [0.0] * size
    for r in range(size):
        y[r] = (rhs[r] - sum(map(mul, low[r][:r], y[:r]))) / low[r][r]
    x = [0.0] * size
    for r in reversed(range(size)):
        x[r] = (y[r] - sum(low[k][r] * x[k] for k in range(r + 1, size))) / low[r][r]
    return x


def _newton_system(theta: Sequence[float], pairs: PairList) -> tuple[list[float], list[list[float]]]:
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


def fit_strengths(
    size: int, pairs: PairList, start: Sequence[float] | None = None, tolerance: float = _TOLERANCE
) -> list[float]:
    """Maximum-likelihood strengths of one connected group, mean zero, in nats.

    Damped Newton on the concave log-likelihood with the last bot's strength held at 0
    (the likelihood only sees differences, so the full Hessian is singular); see
    :func:`_newton_system` for the step. Callers guarantee the group is strongly connected
    (see :func:`strongly_connected`), so the maximum is finite and unique and the
    step-halving line search makes convergence global; from a good start (the bootstrap
    warm-starts from the full-data fit) it takes a handful of quadratic steps. It stops
    when no strength moves by more than ``tolerance`` nats.
    """
    if size == 1:
        return [0.0]
    theta = list(start) if start is not None else [0.0] * size
    theta = [t - theta[-1] for t in theta]
    free = size - 1
    current = log_likelihood(theta, pairs)
    for _ in range(_MAX_NEWTON_STEPS):
        grad, info = _newton_system(theta, pairs)
        step = solve_spd(info, grad[:free])
        scale = 1.0
        while True:
            trial = [theta[k] + scale * step[k] for k in range(free)] + [0.0]
            value = log_likelihood(trial, pairs)
            # Accept any non-decrease; past ~50 halvings the step is below rounding anyway.
            if value >= current - 1e-12 * (1.0 + abs(current)) or scale < 1e-15:
                break
            scale *= 0.5
        theta, current = trial, value
        if max(abs(scale * x) for x in step) < tolerance:
            break
    mean = sum(theta) / size
    return [t - mean for t in theta]
