"""Pure rating maths for tournament leaderboards: no I/O, no rendering.

The model is Bradley-Terry on the Elo (logistic, base-10, 400 points) scale: bot ``i``
with rating ``R_i`` is expected to score ``p_ij = 1 / (1 + 10 ** (-(R_i - R_j) / 400))``
against bot ``j``, a draw counting half a point to each side. :func:`compute_ratings`
maximises the joint log-likelihood of all games at once,

    L(R) = sum over games g of  s_g * log(p_g) + (1 - s_g) * log(1 - p_g),

rather than chaining head-to-head results, so every game informs every rating of its
connected group. Ratings are only defined up to a common shift; we fix it with an anchor
bot or by making the mean zero. Uncertainty comes from the same joint likelihood: each
interval is the set of values a likelihood-ratio test does not reject, with the
likelihood's curvature rescaled to the variance the data's units show (opening pairs and
lone games, so draws and the correlation of the two games of a pair count): see
:mod:`referee.ratings.groups`, :mod:`referee.ratings.profile` and
:mod:`referee.ratings.units`. When the maximum likelihood is infinite (a bot won or lost
everything against part of the field) the affected ratings are bounds, not estimates.
:func:`pentanomial` gives the per-pair view used for paired-opening matches (as in engine
testing frameworks).

Everything here is deterministic for a given input order, and never raises for
degenerate but legal data (no games, one bot, a bot that won everything, groups of bots
that never met): such cases are reported in :attr:`Ratings.warnings`.

This module is the package's entry point: it holds the leaderboard and the steps of
:func:`compute_ratings`, and re-exports the rest of the public names. The work is done
below it, each module importing only those further down:

- :mod:`referee.ratings.fit`: the maximum-likelihood maths of one group of bots;
- :mod:`referee.ratings.model`: :class:`GameResult` and the Elo scale helpers;
- :mod:`referee.ratings.units`: outcome counts of opening pairs and lone games, dispersion;
- :mod:`referee.ratings.profile`: likelihood-ratio intervals of contrasts;
- :mod:`referee.ratings.groups`: connected groups, their scale, bounds and intervals;
- :mod:`referee.ratings.pentanomial`: paired-opening statistics.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from referee.ratings.fit import ELO_PER_NAT
from referee.ratings.groups import Group, GroupFit, Line, connected_groups
from referee.ratings.model import GameResult, elo_from_score, expected_score, los
from referee.ratings.pairkeys import ClosedPairs
from referee.ratings.pentanomial import Counts, Pentanomial, pentanomial
from referee.ratings.units import CLASS_POINTS, OutcomeCounts, outcome_counts, totals

__all__ = [
    "GameResult",
    "Gap",
    "Pentanomial",
    "Rating",
    "Ratings",
    "RunningCounts",
    "compute_ratings",
    "elo_from_score",
    "expected_score",
    "los",
    "pentanomial",
]


# --------------------------------------------------------------------------- value objects


@dataclass(frozen=True)
class Rating:
    """One bot's line in the leaderboard.

    ``elo`` is the maximum-likelihood rating on the scale fixed by the anchor (or mean
    ``anchor_rating`` over the reference bots of its connected group, see
    :attr:`Ratings.scale`). ``low``/``high`` bound the interval at the requested confidence
    (the values a likelihood-ratio test does not reject, :mod:`referee.ratings.groups`);
    it always holds ``elo`` without being stretched to, need not be symmetric around it,
    and ``error`` (half its width) is only a compact summary.

    ``bound`` is ``"lower"`` when the maximum-likelihood rating is infinite upwards (the
    bot, with the bots of its component, never dropped a point to the reference bots or to
    bots below them; e.g. it won every game): ``elo`` and ``high`` are then ``inf`` and
    ``low`` is what the data say, "at least ``low``". ``"upper"`` is the mirror image
    (``-inf``, "at most ``high``"). Else ``None``; a bot whose component neither dominates
    nor is dominated by the reference has ``elo`` NaN and the interval ``(-inf, inf)``.
    A bot that played no game has no rating: ``elo``, ``low``, ``high``, ``error`` and
    ``group`` are ``None``. ``group`` numbers the connected groups of bots linked by games
    (0 first, in leaderboard order); ratings of different groups are not comparable.
    ``score`` is in points (a draw is half a point); ``wins + draws + losses == games``.
    """

    name: str
    elo: float | None
    low: float | None
    high: float | None
    error: float | None
    games: int
    score: float
    wins: int
    draws: int
    losses: int
    group: int | None = None
    bound: str | None = None

    @property
    def score_fraction(self) -> float:
        """Points per game, 0.5 when the bot played no games."""
        return self.score / self.games if self.games else 0.5


@dataclass(frozen=True)
class Gap:
    """The rating difference ``better - next`` of two neighbours of the leaderboard: the
    estimate (``inf`` when the maximum likelihood puts ``better`` infinitely above), its
    interval (``high`` is then ``inf``: a lower bound) and the likelihood of superiority,
    the confidence that ``better`` is truly stronger (the one-sided likelihood-ratio test
    of a gap of 0)."""

    elo: float
    low: float
    high: float
    los: float


@dataclass(frozen=True)
class Ratings:
    """The whole leaderboard.

    ``ratings`` is sorted group by group (``Rating.group``: the anchor's group first, then
    larger groups first), best first within a group (by the maximum-likelihood order,
    bounds included; ties by name), bots without games last (by name). ``los`` maps
    ``(better, next)`` for neighbours in that order to the likelihood that ``better`` is
    truly stronger; ``gaps`` holds the same pairs' rating differences with their
    intervals. Neighbours that are not comparable (different groups, or a bot without
    games) have no entry, nor does anything when no intervals were asked for. ``anchor``
    is the bot held at the anchor rating, if any. ``scale`` maps each group number to the
    bots whose mean is ``anchor_rating`` (or to the anchor alone): every bot of the group
    when its maximum likelihood is finite, the reference component otherwise.
    """

    ratings: list[Rating]
    los: dict[tuple[str, str], float]
    warnings: list[str]
    anchor: str | None
    gaps: dict[tuple[str, str], Gap] = field(default_factory=dict)
    scale: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def rating(self, name: str) -> Rating:
        """The rating of bot ``name``; ``KeyError`` if it is not in the leaderboard."""
        for rating in self.ratings:
            if rating.name == name:
                return rating
        raise KeyError(name)


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
    """Joint maximum-likelihood Elo ratings of all bots, with their intervals.

    ``bots`` fixes the set of bots (so a bot without games still gets a line); by default
    it is every bot named in ``games``. A game naming a bot outside ``bots`` is a
    ``ValueError``, as is an ``anchor`` outside it.

    Scale. Ratings maximise the Bradley-Terry likelihood (module docstring). Each connected
    group of the pairing graph is fitted on its own: ratings of bots that are not linked by
    any chain of games are not comparable, and a warning says so. The group holding
    ``anchor`` is shifted so the anchor has exactly ``anchor_rating``; every other group
    (all of them without an anchor) is shifted so the mean of its reference bots is
    ``anchor_rating`` (all its bots, when its maximum likelihood is finite). A bot that
    played no games is a group of its own, with no rating and a warning.

    Perfect scores. When a group has no finite maximum (a bot won or lost every game, or
    more generally some set of bots never scored a point against the rest), nothing is
    added to the data: the bots of the reference component get their maximum-likelihood
    estimates, and the others bounds with the value the data support (``Rating.bound``),
    as :mod:`referee.ratings.groups` describes; warnings say which. Groups with a finite
    maximum are fitted as they are, so e.g. two bots with score fraction ``s`` are exactly
    ``400 * log10(s / (1 - s))`` apart.

    Intervals. At ``confidence``, each bot's relative to the anchor or the reference mean
    (the anchor's own is a single point), each neighbour gap's, and the LOS, from the
    likelihood-ratio test scaled by the dispersion of the units (opening pairs, lone
    games); closed-form given the data, so the same input gives the same intervals.
    ``bootstrap`` is kept from the sampled method this replaced: 0 asks for no intervals
    (they collapse onto the estimate and ``los`` and ``gaps`` are empty, for quick fits),
    any other value for the intervals; ``seed`` is not used.
    """
    del seed  # nothing is sampled
    _check(bootstrap, confidence)
    names = _bot_names(games, bots)
    index = {name: k for k, name in enumerate(names)}
    tally = _Tally.of(games, index)
    counts = outcome_counts(games, index, tally.pairing_index)
    return _rate(names, tally, counts, anchor, anchor_rating, bootstrap, confidence)


class RunningCounts:
    """The counts :func:`compute_ratings` fits, kept as games arrive, so the ratings after
    every game so far cost the fit alone, not a pass over the games: :meth:`ratings` is
    ``compute_ratings(games so far, ...)`` exactly (the same counts, summed in the same
    order, fitted by the same code). A rating history at many points of a long run is then
    one pass over its games (:func:`referee.ratings.history.rating_history`)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self._wins: dict[str, int] = {}
        self._draws: dict[str, int] = {}
        self._losses: dict[str, int] = {}
        self._points: dict[str, float] = {}
        # Pairings in first-played order, each as (u, v) in the order first seen; their
        # units' counts by class, as points of u (turned round for the fit when v comes first).
        self._pairings: dict[frozenset[str], tuple[str, str]] = {}
        self._counts: dict[tuple[str, str], list[int]] = {}
        # Each pair key's games so far, for its units (they change with each of its games:
        # units.py). A game is one small int, 3 x its pairing's number + u's half-points: a
        # long run keeps this for every key, so not its GameResults; and a text key whose
        # two games are one unit (almost every key of a run) in a compact table.
        self._keyed: dict[Hashable, tuple[int, ...]] = {}
        self._closed = ClosedPairs()
        self._numbered: list[tuple[str, str]] = []  # the pairings by number
        self._number: dict[tuple[str, str], int] = {}

    def add(self, game: GameResult) -> None:
        """Count one more game (in the order they were played)."""
        a, b = game.a, game.b
        for name in (a, b):
            if name not in self.seen:
                self.seen.add(name)
                self._wins[name] = self._draws[name] = self._losses[name] = 0
                self._points[name] = 0.0
        self._points[a] += game.score_a
        self._points[b] += game.score_b
        if game.score_a == 0.5:
            self._draws[a] += 1
            self._draws[b] += 1
        else:
            winner, loser = (a, b) if game.score_a == 1.0 else (b, a)
            self._wins[winner] += 1
            self._losses[loser] += 1
        pairing = self._pairings.setdefault(frozenset((a, b)), (a, b))
        row = self._counts.setdefault(pairing, [0] * len(CLASS_POINTS))
        half = round(2 * (game.score_a if a == pairing[0] else game.score_b))  # u's points, doubled
        if game.pair is None:
            row[half] += 1
            return
        number = self._number.get(pairing)
        if number is None:
            number = self._number[pairing] = len(self._numbered)
            self._numbered.append(pairing)
        key = game.pair
        members = self._keyed.get(key)
        if members is None:
            members = (self._closed.pop(key) if type(key) is str and self._closed else None) or ()
        self._units(members, -1)
        members += (3 * number + half,)
        if len(members) == 2 and members[0] // 3 == number and type(key) is str:
            self._closed.put(key, (members[0], members[1]))
            self._keyed.pop(key, None)
        else:
            self._keyed[key] = members
        self._units(members, 1)

    def _units(self, members: tuple[int, ...], sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) the units of one pair key's games (as
        :meth:`add` keeps them): two games of one pairing are one pentanomial unit (u's
        points over both), any other key's games a unit each."""
        if len(members) == 2 and members[0] // 3 == members[1] // 3:
            self._counts[self._numbered[members[0] // 3]][3 + members[0] % 3 + members[1] % 3] += sign
            return
        for m in members:
            self._counts[self._numbered[m // 3]][m % 3] += sign

    def frozen(self) -> RunningCounts:
        """A copy of what :meth:`ratings` reads, which later games do not change: a point of
        a rating history, to be fitted later if it is still wanted (no pair keys: nothing
        can be added to it)."""
        out = RunningCounts.__new__(RunningCounts)
        out.seen = set(self.seen)
        out._wins, out._draws, out._losses = dict(self._wins), dict(self._draws), dict(self._losses)
        out._points = dict(self._points)
        out._pairings = dict(self._pairings)
        out._counts = {pairing: list(row) for pairing, row in self._counts.items()}
        return out

    def ratings(
        self,
        bots: Sequence[str] | None = None,
        *,
        anchor: str | None = None,
        anchor_rating: float = 0.0,
        bootstrap: int = 1000,
        confidence: float = 0.95,
        start: Mapping[str, float] | None = None,
        bounds_only: bool = False,
    ) -> Ratings:
        """``compute_ratings`` of the games so far with these arguments. ``start`` (bot ->
        rating, e.g. the last table's) warm-starts the fit of each group whose bots all have
        a finite one: the same maximum to within the fit's tolerance (not to the last bit),
        reached in fewer steps; without it, the cold fit exactly. ``bounds_only``: of the
        intervals, only those of the bots whose rating is a bound (what a point of a rating
        history draws); the others' collapse onto their estimates, and no gaps."""
        if bots is None:
            names = sorted(self.seen)
        else:
            names = _bot_names([], bots)
            unknown = sorted(self.seen - set(names))
            if unknown:
                raise ValueError(f"a game names bot {unknown[0]!r}, which is not among the rated bots")
        index = {name: k for k, name in enumerate(names)}
        tally = _Tally(
            [self._wins.get(n, 0) for n in names],
            [self._draws.get(n, 0) for n in names],
            [self._losses.get(n, 0) for n in names],
            [self._points.get(n, 0.0) for n in names],
            [],
            {},
        )
        counts: OutcomeCounts = []
        for u, v in self._pairings.values():
            iu, iv = index[u], index[v]
            tally.pairing_index[(min(iu, iv), max(iu, iv))] = len(tally.pairings)
            tally.pairings.append((min(iu, iv), max(iu, iv)))
            row = self._counts[(u, v)]
            # Classes as points of the lower-indexed bot: v's are u's turned round.
            counts.append(list(row) if iu < iv else [*reversed(row[:3]), *reversed(row[3:])])
        return _rate(names, tally, counts, anchor, anchor_rating, bootstrap, confidence, start, bounds_only)

    def pair_table(self) -> dict[tuple[str, str], Counts]:
        """:func:`~referee.ratings.pentanomial.pair_counts` of the games so far, from the
        same counts: a key's two games between the same two bots are its complete pair."""
        table: dict[tuple[str, str], Counts] = {}
        for (u, v), row in self._counts.items():
            c = row[3:]
            if u > v:
                u, v, c = v, u, c[::-1]
            table[(u, v)] = (c[0], c[1], c[2], c[3], c[4])
        return table


def _check(bootstrap: int, confidence: float) -> None:
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be 0 or more, got {bootstrap}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def _rate(
    names: list[str],
    tally: _Tally,
    counts: OutcomeCounts,
    anchor: str | None,
    anchor_rating: float,
    bootstrap: int,
    confidence: float,
    start: Mapping[str, float] | None = None,
    bounds_only: bool = False,
) -> Ratings:
    """The leaderboard of the counted games (the steps of :func:`compute_ratings`), each
    group's fit warm-started from ``start`` (see :meth:`RunningCounts.ratings`, and for
    ``bounds_only``)."""
    _check(bootstrap, confidence)
    index = {name: k for k, name in enumerate(names)}
    if anchor is not None and anchor not in index:
        raise ValueError(f"anchor bot {anchor!r} is not among the rated bots")
    anchor_index = index[anchor] if anchor is not None else None
    points, played = totals(counts)
    components = [c for c in connected_groups(len(names), tally.pairings) if c.pairings]
    fits = []
    for component in components:
        local = {m: p for p, m in enumerate(component.members)}
        pairs = [
            (local[tally.pairings[k][0]], local[tally.pairings[k][1]], points[k], played[k])
            for k in component.pairings
        ]
        guess = None
        if start is not None:
            guess = [start.get(names[m], math.nan) / ELO_PER_NAT for m in component.members]
            if not all(math.isfinite(x) for x in guess):
                guess = None
        fits.append(
            GroupFit(
                len(component.members),
                pairs,
                [counts[k] for k in component.pairings],
                local.get(anchor_index) if anchor_index is not None else None,
                intervals=bootstrap > 0,
                confidence=confidence,
                start=guess,
            )
        )
    board = _Board(names, tally, components, fits, anchor_rating, bounds_only)
    ratings = board.leaderboard()
    gaps = {} if bounds_only else board.neighbour_gaps(ratings, index)
    superiority = {key: gap.los for key, gap in gaps.items()}
    return Ratings(
        ratings=ratings,
        los=superiority,
        warnings=board.warnings(anchor_index),
        anchor=anchor,
        gaps=gaps,
        scale=board.scale(ratings),
    )


# --------------------------------------------------------------------------- the steps


def _bot_names(games: Sequence[GameResult], bots: Sequence[str] | None) -> list[str]:
    """The rated bots, whose positions are the bot indices used everywhere below:
    ``bots`` as given (checked), or every bot named in ``games`` sorted by name, so the
    indices (and with them the fit) never depend on set ordering."""
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


@dataclass
class _Tally:
    """Per-bot counts (index = bot) and the pairings (i < j) that were played.

    ``pairings`` is in first-played order and ``pairing_index`` is its inverse; the fit
    addresses pairings by that index.
    """

    wins: list[int]
    draws: list[int]
    losses: list[int]
    points: list[float]
    pairings: list[tuple[int, int]]
    pairing_index: dict[tuple[int, int], int]

    @classmethod
    def of(cls, games: Sequence[GameResult], index: dict[str, int]) -> _Tally:
        """Count every game once, in input order."""
        size = len(index)
        tally = cls([0] * size, [0] * size, [0] * size, [0.0] * size, [], {})
        for game in games:
            ia, ib = index[game.a], index[game.b]
            tally.points[ia] += game.score_a
            tally.points[ib] += game.score_b
            if game.score_a == 0.5:
                tally.draws[ia] += 1
                tally.draws[ib] += 1
            else:
                winner, loser = (ia, ib) if game.score_a == 1.0 else (ib, ia)
                tally.wins[winner] += 1
                tally.losses[loser] += 1
            key = (min(ia, ib), max(ia, ib))
            if key not in tally.pairing_index:
                tally.pairing_index[key] = len(tally.pairings)
                tally.pairings.append(key)
        return tally

    def games(self, k: int) -> int:
        """Games played by bot ``k``."""
        return self.wins[k] + self.draws[k] + self.losses[k]


def _elo(x: float, shift: float) -> float:
    return x * ELO_PER_NAT + shift


def _fmt_group(names: Sequence[str]) -> str:
    return "{" + ", ".join(names) + "}"


@dataclass
class _Board:
    """The fitted groups, read out as leaderboard lines, gaps and warnings."""

    names: Sequence[str]
    tally: _Tally
    components: list[Group]
    fits: list[GroupFit]
    anchor_rating: float
    bounds_only: bool = False  # intervals of the bounds alone (RunningCounts.ratings)

    def __post_init__(self) -> None:
        # bot index -> (its component's position in self.components, its local index)
        self.where = {m: (g, p) for g, c in enumerate(self.components) for p, m in enumerate(c.members)}
        self.number = self._group_order()

    def _group_order(self) -> dict[int, int]:
        """Leaderboard number of each component: the anchor's group first, then larger
        groups first (more bots, then more games), then by their first name."""

        def key(g: int) -> tuple[bool, int, int, str]:
            component, fit = self.components[g], self.fits[g]
            games = sum(self.tally.games(m) for m in component.members)
            return (
                fit.anchor is None,
                -len(component.members),
                -games,
                min(self.names[m] for m in component.members),
            )

        ordered = sorted(range(len(self.components)), key=key)
        return {g: number for number, g in enumerate(ordered)}

    def _rating(self, k: int, line: Line | None, group: int | None) -> Rating:
        tally = self.tally
        if line is None:
            elo = low = high = error = None
            bound = None
        else:
            elo, low, high = (_elo(x, self.anchor_rating) for x in (line.estimate, line.low, line.high))
            error = (high - low) / 2.0
            bound = "lower" if elo == math.inf else "upper" if elo == -math.inf else None
        return Rating(
            name=self.names[k],
            elo=elo,
            low=low,
            high=high,
            error=error,
            games=tally.games(k),
            score=tally.points[k],
            wins=tally.wins[k],
            draws=tally.draws[k],
            losses=tally.losses[k],
            group=group,
            bound=bound,
        )

    def leaderboard(self) -> list[Rating]:
        """One :class:`Rating` per bot, group by group and best first within a group (ties
        by name, so the order is total); bots without games last, unrated."""
        keyed: list[tuple[tuple[int, float, float, str], Rating]] = []
        for k, name in enumerate(self.names):
            if k not in self.where:
                keyed.append(((len(self.components), 0.0, 0.0, name), self._rating(k, None, None)))
                continue
            g, p = self.where[k]
            fit = self.fits[g]
            level, estimate = fit.rank_key(p)
            rating = self._rating(k, fit.rating(p, ends=not self.bounds_only), self.number[g])
            # Rounded far below what a table shows: bots level in exact arithmetic (the same
            # score against the same field) are ordered by name, not by the fit's rounding.
            keyed.append(((self.number[g], -round(level, 8), -round(estimate, 8), name), rating))
        keyed.sort(key=lambda item: item[0])
        return [rating for _, rating in keyed]

    def neighbour_gaps(self, ratings: Sequence[Rating], index: dict[str, int]) -> dict[tuple[str, str], Gap]:
        """Rating difference and likelihood of superiority of each leaderboard line over the
        next, for neighbours a reader would compare and that are comparable: both in the
        same connected group (a bot without games is in none), with intervals asked for."""
        gaps: dict[tuple[str, str], Gap] = {}
        for better, nxt in itertools.pairwise(ratings):
            if better.group is None or better.group != nxt.group:
                continue
            g, i = self.where[index[better.name]]
            _, j = self.where[index[nxt.name]]
            fit = self.fits[g]
            if not fit.intervals:
                continue
            line = fit.gap(i, j)
            assert line.los is not None
            gaps[(better.name, nxt.name)] = Gap(
                _elo(line.estimate, 0.0), _elo(line.low, 0.0), _elo(line.high, 0.0), line.los
            )
        return gaps

    def scale(self, ratings: Sequence[Rating]) -> dict[int, tuple[str, ...]]:
        """Group number -> the bots whose mean is the anchor rating (or the anchor)."""
        out = {}
        for g, (component, fit) in enumerate(zip(self.components, self.fits, strict=True)):
            out[self.number[g]] = tuple(sorted(self.names[component.members[p]] for p in fit.scale_members()))
        return dict(sorted(out.items()))

    def warnings(self, anchor: int | None) -> list[str]:
        """Everything a reader must know to not over-read the table, in a stable order:
        incomparable groups, bots without games, then groups whose ratings are partly
        bounds."""
        names, tally = self.names, self.tally
        warnings: list[str] = []
        if len(self.components) > 1:
            groups = sorted(sorted(names[m] for m in c.members) for c in self.components)
            warnings.append(
                "some bots were never connected by games: ratings of "
                + " and ".join(_fmt_group(g) for g in groups)
                + " are not comparable (each group is centred on its own)"
            )
        for k, name in enumerate(names):
            if tally.games(k) == 0:
                warnings.append(f"bot {name} played no games: it has no rating")
        wins, draws, losses = tally.wins, tally.draws, tally.losses
        for component, fit in zip(self.components, self.fits, strict=True):
            if fit.finite:
                continue
            base = fit.scale_members()[0]
            side = {m: fit.side_of(p, base) for p, m in enumerate(component.members)}
            perfect = False
            for k in sorted(component.members, key=lambda m: names[m]):
                if side[k] == 1 and wins[k] and not draws[k] and not losses[k]:
                    warnings.append(f"bot {names[k]} won every game: its rating is a lower bound")
                    perfect = True
                elif side[k] == -1 and losses[k] and not draws[k] and not wins[k]:
                    warnings.append(f"bot {names[k]} lost every game: its rating is an upper bound")
                    perfect = True
            members = _fmt_group(sorted(names[m] for m in component.members))
            detail = "" if perfect else " (some of them never scored a point against the others)"
            chosen = sorted(names[m] for m in component.members if side[m] == 0)
            if anchor is not None and anchor in component.members:
                scale = "on the anchor's scale"
            else:
                scale = "which sets the scale" if len(chosen) == 1 else "centred on them"
            verb = "has an estimate" if len(chosen) == 1 else "have estimates"
            unknown = sorted(names[m] for m in component.members if side[m] == 2)
            unplaced = ""
            if unknown:
                unplaced = (
                    f"; {_fmt_group(unknown)} are neither above nor below {_fmt_group(chosen)} by the "
                    "games played: their ratings are unknown (?)"
                )
            warnings.append(
                f"the ratings of {members} are infinite by maximum likelihood{detail}: only "
                f"{_fmt_group(chosen)} {verb} ({scale}), the others are bounds "
                f"(> X: at least X, < X: at most X){unplaced}"
            )
        return warnings
