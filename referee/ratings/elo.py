"""Pure rating maths for tournament leaderboards: no I/O, no rendering.

The model is Bradley-Terry on the Elo (logistic, base-10, 400 points) scale: bot ``i``
with rating ``R_i`` is expected to score ``p_ij = 1 / (1 + 10 ** (-(R_i - R_j) / 400))``
against bot ``j``, a draw counting half a point to each side. :func:`compute_ratings`
maximises the joint log-likelihood of all games at once,

    L(R) = sum over games g of  s_g * log(p_g) + (1 - s_g) * log(1 - p_g),

rather than chaining head-to-head results, so every game informs every rating of its
connected group. Ratings are only defined up to a common shift; we fix it with an anchor
bot or by making the mean zero. Uncertainty comes from a seeded bootstrap; opening
*pairs* (two games on the same opening, colours swapped) are resampled as one unit
because their two results are correlated. :func:`pentanomial` gives the per-pair view
used for paired-opening matches (as in engine testing frameworks).

Everything here is deterministic for a given input order and seed, and never raises for
degenerate but legal data (no games, one bot, a bot that won everything, groups of bots
that never met): such cases are reported in :attr:`Ratings.warnings`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from operator import mul
from statistics import NormalDist

__all__ = [
    "GameResult",
    "Pentanomial",
    "Rating",
    "Ratings",
    "compute_ratings",
    "elo_from_score",
    "expected_score",
    "los",
    "pentanomial",
]

# One natural-log strength unit in Elo points: R = theta * 400 / ln(10).
_ELO_PER_NAT = 400.0 / math.log(10.0)
_VALID_SCORES = (0.0, 0.5, 1.0)
# Newton stops when no rating moves by more than this many natural-log units (~4e-8 Elo).
_TOLERANCE = 1e-10
_MAX_NEWTON_STEPS = 200


# --------------------------------------------------------------------------- value objects


@dataclass(frozen=True)
class GameResult:
    """One finished game between bots ``a`` and ``b`` as the rating maths sees it.

    ``score_a`` is 1 (a won), 0.5 (draw) or 0 (b won); forfeits are ordinary wins here.
    Games sharing a non-``None`` ``pair`` key are one opening pair (the same opening played
    twice with colours swapped); the bootstrap resamples such pairs as a whole, and
    :func:`pentanomial` scores them together. Colours are deliberately not recorded: the
    model has no colour advantage term, pairing the openings is what cancels it.
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


@dataclass(frozen=True)
class Rating:
    """One bot's line in the leaderboard.

    ``elo`` is the maximum-likelihood rating on the scale fixed by the anchor (or mean
    ``anchor_rating`` within its connected group). ``low``/``high`` are the bounds of the bootstrap percentile
    interval at the requested confidence, clamped so ``low <= elo <= high``; ``error`` is
    half its width, a symmetric summary for compact tables. ``score`` is in points (a draw
    is half a point); ``wins + draws + losses == games``.
    """

    name: str
    elo: float
    low: float
    high: float
    error: float
    games: int
    score: float
    wins: int
    draws: int
    losses: int

    @property
    def score_fraction(self) -> float:
        """Points per game, 0.5 when the bot played no games."""
        return self.score / self.games if self.games else 0.5


@dataclass(frozen=True)
class Ratings:
    """The whole leaderboard.

    ``ratings`` is sorted best first (by ``elo`` descending, ties by name). ``los`` maps
    ``(better, next)`` for neighbours in that order to the likelihood that ``better`` is
    truly stronger, estimated as the share of bootstrap resamples in which it is rated
    above ``next`` (ties count half). Neighbours that are not comparable (different
    connected groups, or a bot without games) have no entry, nor does anything when the
    bootstrap is disabled. ``anchor`` is the bot held at the anchor rating, if any.
    """

    ratings: list[Rating]
    los: dict[tuple[str, str], float]
    warnings: list[str]
    anchor: str | None

    def rating(self, name: str) -> Rating:
        """The rating of bot ``name``; ``KeyError`` if it is not in the leaderboard."""
        for rating in self.ratings:
            if rating.name == name:
                return rating
        raise KeyError(name)


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


# --------------------------------------------------------------------------- scalar helpers


def expected_score(diff_elo: float) -> float:
    """Expected score of a bot rated ``diff_elo`` points above its opponent.

    ``1 / (1 + 10 ** (-diff / 400))``: 0.5 at 0, about 0.64 at +100, 10/11 at +400.
    Computed without overflow for any finite difference.
    """
    return _sigmoid(diff_elo / _ELO_PER_NAT)


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
    return _ELO_PER_NAT * math.log(p / (1.0 - p))


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


# --------------------------------------------------------------------------- fitting core
#
# A "pair list" is the sufficient statistic of a group of games for Bradley-Terry: for each
# two bots (i < j, local indices) that met, the points i scored against j and the number of
# games. Fitting works in natural-log strengths theta (R = theta * 400 / ln 10).


def _log_sigmoid(x: float) -> float:
    """``log(1 / (1 + exp(-x)))`` without overflow."""
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_likelihood(theta: Sequence[float], pairs: Sequence[tuple[int, int, float, float]]) -> float:
    total = 0.0
    for i, j, s, n in pairs:
        d = theta[i] - theta[j]
        total += s * _log_sigmoid(d) + (n - s) * _log_sigmoid(-d)
    return total


def _strongly_connected(size: int, pairs: Sequence[tuple[int, int, float, float]]) -> bool:
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


def _with_prior(pairs: Sequence[tuple[int, int, float, float]]) -> list[tuple[int, int, float, float]]:
    """Add one virtual draw to every pairing that was played.

    This is the regularisation used when the maximum-likelihood ratings are infinite. It
    depends only on who met whom (not on where the scale is centred), keeps a perfect
    score strictly above every other result, and barely moves well-populated pairings.
    """
    return [(i, j, s + 0.5, n + 1.0) for i, j, s, n in pairs]


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
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


def _fit(size: int, pairs: Sequence[tuple[int, int, float, float]], start: Sequence[float] | None = None) -> list[float]:
    """Maximum-likelihood strengths of one connected group, mean zero, in nats.

    Damped Newton on the concave log-likelihood with the last bot's strength held at 0
    (the likelihood only sees differences, so the full Hessian is singular). The gradient
    for bot i is ``sum_j (s_ij - n_ij p_ij)`` and the negated Hessian is the weighted graph
    Laplacian with weights ``n_ij p_ij (1 - p_ij)``. Callers guarantee the group is strongly
    connected (see :func:`_strongly_connected`), so the maximum is finite and unique and
    the step-halving line search makes convergence global; from a good start (the bootstrap
    warm-starts from the full-data fit) it takes a handful of quadratic steps.
    """
    if size == 1:
        return [0.0]
    theta = list(start) if start is not None else [0.0] * size
    theta = [t - theta[-1] for t in theta]
    free = size - 1
    current = _log_likelihood(theta, pairs)
    for _ in range(_MAX_NEWTON_STEPS):
        grad = [0.0] * size
        info = [[0.0] * free for _ in range(free)]
        for i, j, s, n in pairs:
            p = _sigmoid(theta[i] - theta[j])
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
        step = _solve(info, grad[:free])
        scale = 1.0
        while True:
            trial = [theta[k] + scale * step[k] for k in range(free)] + [0.0]
            value = _log_likelihood(trial, pairs)
            # Accept any non-decrease; past ~50 halvings the step is below rounding anyway.
            if value >= current - 1e-12 * (1.0 + abs(current)) or scale < 1e-15:
                break
            scale *= 0.5
        theta, current = trial, value
        if max(abs(scale * x) for x in step) < _TOLERANCE:
            break
    mean = sum(theta) / size
    return [t - mean for t in theta]


# --------------------------------------------------------------------------- the data model


@dataclass
class _Component:
    """A connected group of bots: global indices and the pairing indices among them."""

    members: list[int]
    pairings: list[int]  # indices into the global pairing list


def _components(size: int, pairings: Sequence[tuple[int, int]]) -> list[_Component]:
    parent = list(range(size))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in pairings:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, _Component] = {}
    for k in range(size):
        groups.setdefault(root(k), _Component([], [])).members.append(k)
    for index, (i, _) in enumerate(pairings):
        groups[root(i)].pairings.append(index)
    return list(groups.values())


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (the common "type 7" definition)."""
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    fraction = position - below
    return sorted_values[below] + fraction * (sorted_values[above] - sorted_values[below])


def _fmt_group(names: Sequence[str]) -> str:
    return "{" + ", ".join(names) + "}"


class _Fitter:
    """Holds the fixed structure (components, pairings) so each bootstrap resample only
    has to supply new per-pairing totals."""

    def __init__(self, size: int, pairings: list[tuple[int, int]], anchor: int | None, anchor_rating: float) -> None:
        self.components = [c for c in _components(size, pairings) if c.pairings]
        self.pairings = pairings
        self.anchor = anchor
        self.anchor_rating = anchor_rating
        self.size = size
        # Local index of each member inside its component.
        self.local: dict[int, int] = {}
        for component in self.components:
            for position, member in enumerate(component.members):
                self.local[member] = position

    def fit(
        self, points: Sequence[float], games: Sequence[float], start: Sequence[float] | None = None
    ) -> tuple[list[float], list[float], list[bool]]:
        """Ratings in Elo (index = bot), strengths in nats (for warm starts), and for each
        component whether the prior had to be added. Bots without games get the centre."""
        elo = [self.anchor_rating] * self.size  # the centre of the scale
        theta = [0.0] * self.size
        used_prior: list[bool] = []
        for component in self.components:
            local = [
                (self.local[self.pairings[k][0]], self.local[self.pairings[k][1]], points[k], games[k])
                for k in component.pairings
            ]
            size = len(component.members)
            needs_prior = not _strongly_connected(size, local)
            if needs_prior:
                local = _with_prior(local)
            used_prior.append(needs_prior)
            guess = [start[m] for m in component.members] if start is not None else None
            fitted = _fit(size, local, guess)
            shift = self.anchor_rating  # a group without the anchor is centred on it
            if self.anchor is not None and self.anchor in component.members:
                shift = self.anchor_rating - fitted[self.local[self.anchor]] * _ELO_PER_NAT
            for member, value in zip(component.members, fitted):
                theta[member] = value
                elo[member] = value * _ELO_PER_NAT + shift
        if self.anchor is not None and self.anchor not in self.local:
            elo[self.anchor] = self.anchor_rating
        return elo, theta, used_prior


# --------------------------------------------------------------------------- public entry


def compute_ratings(
    games: Sequence[GameResult],
    bots: Sequence[str] | None = None,
    *,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Ratings:
    """Joint maximum-likelihood Elo ratings of all bots, with bootstrap intervals.

    ``bots`` fixes the set of bots (so a bot without games still gets a line); by default
    it is every bot named in ``games``. A game naming a bot outside ``bots`` is a
    ``ValueError``, as is an ``anchor`` outside it.

    Scale. Ratings maximise the Bradley-Terry likelihood (module docstring). Each connected
    group of the pairing graph is fitted on its own: ratings of bots that are not linked by
    any chain of games are not comparable, and a warning says so. The group holding
    ``anchor`` is shifted so the anchor has exactly ``anchor_rating``; every other group
    (all of them without an anchor) is shifted so its mean is ``anchor_rating``. A bot that
    played no games is a group of its own, rated ``anchor_rating``, with a warning.

    Perfect scores. When a group has no finite maximum (a bot won or lost every game, or
    more generally some set of bots never scored a point against the rest), one virtual
    draw is added to every pairing of that group that was played, which keeps the ratings
    finite, in the right order, and independent of where the scale is centred. The
    affected ratings are then only bounds, and a warning names them. Groups with a finite
    maximum are not regularised, so e.g. two bots with score fraction ``s`` are exactly
    ``400 * log10(s / (1 - s))`` apart.

    Intervals. ``bootstrap`` resamples are drawn with ``random.Random(seed)``: the games of
    each pairing (each set of bots that met) are resampled with replacement, an opening
    pair (games sharing a ``pair`` key) being one unit. Keeping the pairings fixed mirrors a
    tournament whose schedule is fixed and whose results are random, and it keeps every
    resample connected like the data. Each resample is refitted (with the virtual draws
    exactly when that resample has no finite maximum) and put on the same scale
    (anchor, or mean ``anchor_rating``), and ``low``/``high`` are the percentile bounds at ``confidence``, so
    they describe each bot *relative to the anchor or the group mean* (the anchor's own
    interval is a single point). With ``bootstrap=0`` the intervals collapse onto the
    estimate and ``los`` is empty.
    """
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be 0 or more, got {bootstrap}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    names = _bot_names(games, bots)
    index = {name: k for k, name in enumerate(names)}
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor bot {anchor!r} is not among the rated bots")
    anchor_index = index[anchor] if anchor is not None else None
    size = len(names)

    # Per-bot tallies and the sufficient statistics per pairing (i < j).
    wins = [0] * size
    draws = [0] * size
    losses = [0] * size
    points = [0.0] * size
    pairing_index: dict[tuple[int, int], int] = {}
    pairings: list[tuple[int, int]] = []
    for game in games:
        ia, ib = index[game.a], index[game.b]
        points[ia] += game.score_a
        points[ib] += game.score_b
        if game.score_a == 0.5:
            draws[ia] += 1
            draws[ib] += 1
        else:
            winner, loser = (ia, ib) if game.score_a == 1.0 else (ib, ia)
            wins[winner] += 1
            losses[loser] += 1
        key = (min(ia, ib), max(ia, ib))
        if key not in pairing_index:
            pairing_index[key] = len(pairings)
            pairings.append(key)

    units = _resampling_units(games, index, pairing_index)
    pairing_points = [0.0] * len(pairings)
    pairing_games = [0.0] * len(pairings)
    for stratum_units in units.values():
        for unit in stratum_units:
            for k, s, n in unit:
                pairing_points[k] += s
                pairing_games[k] += n

    fitter = _Fitter(size, pairings, anchor_index, anchor_rating)
    elo, theta, used_prior = fitter.fit(pairing_points, pairing_games)
    warnings = _warnings(names, fitter, used_prior, wins, draws, losses)

    samples: list[list[float]] = [[] for _ in range(size)]
    rng = random.Random(seed)
    strata = [units[key] for key in sorted(units)]
    for _ in range(bootstrap if fitter.components else 0):
        sample_points = [0.0] * len(pairings)
        sample_games = [0.0] * len(pairings)
        for stratum_units in strata:
            for unit in rng.choices(stratum_units, k=len(stratum_units)):
                for k, s, n in unit:
                    sample_points[k] += s
                    sample_games[k] += n
        sample_elo, _, _ = fitter.fit(sample_points, sample_games, theta)
        for k in range(size):
            samples[k].append(sample_elo[k])

    ratings = []
    tail = (1.0 - confidence) / 2.0
    for k, name in enumerate(names):
        low = high = elo[k]
        if samples[k]:
            ordered = sorted(samples[k])
            low = min(_quantile(ordered, tail), elo[k])
            high = max(_quantile(ordered, 1.0 - tail), elo[k])
        games_played = wins[k] + draws[k] + losses[k]
        ratings.append(
            Rating(
                name=name,
                elo=elo[k],
                low=low,
                high=high,
                error=(high - low) / 2.0,
                games=games_played,
                score=points[k],
                wins=wins[k],
                draws=draws[k],
                losses=losses[k],
            )
        )
    ratings.sort(key=lambda r: (-r.elo, r.name))

    group_of = {m: g for g, c in enumerate(fitter.components) for m in c.members}
    superiority: dict[tuple[str, str], float] = {}
    for better, nxt in zip(ratings, ratings[1:]):
        i, j = index[better.name], index[nxt.name]
        if i not in group_of or group_of.get(i) != group_of.get(j) or not samples[i]:
            continue
        ahead = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(samples[i], samples[j]))
        superiority[(better.name, nxt.name)] = ahead / len(samples[i])
    return Ratings(ratings=ratings, los=superiority, warnings=warnings, anchor=anchor)


def _bot_names(games: Sequence[GameResult], bots: Sequence[str] | None) -> list[str]:
    if bots is None:
        return sorted({name for game in games for name in (game.a, game.b)})
    names = list(bots)
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"bot names must be unique, repeated: {', '.join(duplicates)}")
    known = set(names)
    for game in games:
        for name in (game.a, game.b):
            if name not in known:
                raise ValueError(f"a game names bot {name!r}, which is not among the rated bots")
    return names


# A resampling unit: its contribution (pairing index, points of the lower-indexed bot,
# games) to each pairing it touches; normally a single game or pair of games of one pairing.
_Unit = tuple[tuple[int, float, float], ...]


def _resampling_units(
    games: Sequence[GameResult], index: dict[str, int], pairing_index: dict[tuple[int, int], int]
) -> dict[tuple[int, ...], list[_Unit]]:
    """Group games into bootstrap units (an opening pair, or a lone game), then units into
    strata by the pairings they touch. Grouping follows input order, so it is deterministic
    even though pair keys need not be sortable."""
    grouped: dict[Hashable, list[GameResult]] = {}
    lone: list[list[GameResult]] = []
    for game in games:
        if game.pair is None:
            lone.append([game])
        else:
            grouped.setdefault(game.pair, []).append(game)
    strata: dict[tuple[int, ...], list[_Unit]] = {}
    for members in [*grouped.values(), *lone]:
        totals: dict[int, list[float]] = {}
        for game in members:
            ia, ib = index[game.a], index[game.b]
            k = pairing_index[(min(ia, ib), max(ia, ib))]
            low_points = game.score_a if ia < ib else game.score_b
            entry = totals.setdefault(k, [0.0, 0.0])
            entry[0] += low_points
            entry[1] += 1.0
        unit = tuple((k, s, n) for k, (s, n) in sorted(totals.items()))
        strata.setdefault(tuple(k for k, _, _ in unit), []).append(unit)
    return strata


def _warnings(
    names: Sequence[str],
    fitter: _Fitter,
    used_prior: Sequence[bool],
    wins: Sequence[int],
    draws: Sequence[int],
    losses: Sequence[int],
) -> list[str]:
    warnings: list[str] = []
    if len(fitter.components) > 1:
        groups = sorted(sorted(names[m] for m in c.members) for c in fitter.components)
        warnings.append(
            "some bots were never connected by games: ratings of "
            + " and ".join(_fmt_group(g) for g in groups)
            + " are not comparable (each group is centred on its own)"
        )
    for k, name in enumerate(names):
        if wins[k] + draws[k] + losses[k] == 0:
            warnings.append(f"bot {name} played no games: its rating means nothing")
    for component, prior in zip(fitter.components, used_prior):
        if not prior:
            continue
        perfect = False
        for k in sorted(component.members, key=lambda m: names[m]):
            if wins[k] and not draws[k] and not losses[k]:
                warnings.append(f"bot {names[k]} won every game: its rating is a lower bound")
                perfect = True
            elif losses[k] and not draws[k] and not wins[k]:
                warnings.append(f"bot {names[k]} lost every game: its rating is an upper bound")
                perfect = True
        members = _fmt_group(sorted(names[m] for m in component.members))
        detail = "" if perfect else " (some of them never scored a point against the others)"
        warnings.append(
            f"the ratings of {members} are infinite by maximum likelihood{detail}: one virtual "
            "draw per pairing was added, so their gaps are underestimated"
        )
    return warnings


# --------------------------------------------------------------------------- pentanomial


def pentanomial(games: Sequence[GameResult], a: str, b: str, *, confidence: float = 0.95) -> Pentanomial | None:
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
    n = sum(counts)
    if n == 0:
        return None
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    mean = sum(c * x for c, x in zip(counts, values)) / n
    variance = sum(c * (x - mean) ** 2 for c, x in zip(counts, values)) / n
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
    return Pentanomial(a=a, b=b, counts=(counts[0], counts[1], counts[2], counts[3], counts[4]),
                       elo=elo, error=error, los=superiority)
