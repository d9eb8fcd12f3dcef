"""Pure rating maths for tournament leaderboards: no I/O, no rendering.

The model is Bradley-Terry on the Elo (logistic, base-10, 400 points) scale: bot ``i``
with rating ``R_i`` is expected to score ``p_ij = 1 / (1 + 10 ** (-(R_i - R_j) / 400))``
against bot ``j``, a draw counting half a point to each side. :func:`compute_ratings`
maximises the joint log-likelihood of all games at once,

    L(R) = sum over games g of  s_g * log(p_g) + (1 - s_g) * log(1 - p_g),

rather than chaining head-to-head results, so every game informs every rating of its
connected group. Ratings are only defined up to a common shift; we fix it with an anchor
bot or by making the mean zero. Uncertainty comes from seeded posterior draws of each
pairing's outcome counts (a Bayesian bootstrap with a Jeffreys-like prior, see
:mod:`referee.ratings.bootstrap`); opening *pairs* (two games on the same opening,
colours swapped) are one unit because their two results are correlated.
:func:`pentanomial` gives the per-pair view used for paired-opening matches (as in
engine testing frameworks).

Everything here is deterministic for a given input order and seed, and never raises for
degenerate but legal data (no games, one bot, a bot that won everything, groups of bots
that never met): such cases are reported in :attr:`Ratings.warnings`.

This module is the package's entry point: it holds the leaderboard and the steps of
:func:`compute_ratings`, and re-exports the rest of the public names. The work is done
below it, each module importing only those further down:

- :mod:`referee.ratings.fit`: the maximum-likelihood maths of one group of bots;
- :mod:`referee.ratings.model`: :class:`GameResult` and the Elo scale helpers;
- :mod:`referee.ratings.groups`: connected groups, fitted and put on the anchor scale;
- :mod:`referee.ratings.bootstrap`: outcome counts, posterior draws and percentile bounds;
- :mod:`referee.ratings.pentanomial`: paired-opening statistics.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.ratings.bootstrap import outcome_counts, percentile_interval, posterior_samples, totals
from referee.ratings.groups import Group, GroupFitter
from referee.ratings.model import GameResult, elo_from_score, expected_score, los
from referee.ratings.pentanomial import Pentanomial, pentanomial

__all__ = [
    "GameResult",
    "Gap",
    "Pentanomial",
    "Rating",
    "Ratings",
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
    ``anchor_rating`` within its connected group). ``low``/``high`` are the equal-tailed
    posterior bounds at the requested confidence (:mod:`referee.ratings.bootstrap`),
    clamped so ``low <= elo <= high``; they need not be symmetric around ``elo``, and
    ``error`` (half their width) is only a compact summary. ``bound`` is ``"lower"`` when
    the bot won every game (its maximum-likelihood rating is infinite: ``elo`` is then the
    regularised value and only ``low`` means something on its own), ``"upper"`` when it
    lost every game, else ``None``. A bot that played no game has no rating: ``elo``,
    ``low``, ``high``, ``error`` and ``group`` are ``None``. ``group`` numbers the connected
    groups of bots linked by games (0 first, in leaderboard order); ratings of different
    groups are not comparable. ``score`` is in points (a draw is half a point);
    ``wins + draws + losses == games``.
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
    estimate, its equal-tailed posterior interval and the likelihood of superiority (the
    posterior probability that ``better`` is truly stronger)."""

    elo: float
    low: float
    high: float
    los: float


@dataclass(frozen=True)
class Ratings:
    """The whole leaderboard.

    ``ratings`` is sorted group by group (``Rating.group``: the anchor's group first, then
    larger groups first), best first within a group (by ``elo`` descending, ties by name),
    bots without games last (by name). ``los`` maps ``(better, next)`` for neighbours in
    that order to the likelihood that ``better`` is truly stronger: the share of posterior
    draws in which it is rated above ``next``; ``gaps`` holds the same pairs' rating
    differences with their intervals. Neighbours that are not comparable (different
    groups, or a bot without games) have no entry, nor does anything when no draws were
    asked for. ``anchor`` is the bot held at the anchor rating, if any.
    """

    ratings: list[Rating]
    los: dict[tuple[str, str], float]
    warnings: list[str]
    anchor: str | None
    gaps: dict[tuple[str, str], Gap] = field(default_factory=dict)

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

    Intervals. ``bootstrap`` posterior draws are made with ``random.Random(seed)``
    (:mod:`referee.ratings.bootstrap`): each pairing's outcome counts (opening pairs and
    lone games by result) get Dirichlet weights with half a unit of prior on its worst and
    best outcome, the draw's per-pairing scores are refitted with the pairings' real game
    numbers and put on the same scale (anchor, or mean ``anchor_rating``), and
    ``low``/``high`` are the equal-tailed bounds at ``confidence``. They describe each bot
    *relative to the anchor or the group mean* (the anchor's own interval is a single
    point), are never of width 0 for a bot that played (the prior sees to it, also for a
    perfect score), and may be asymmetric. ``los`` and ``gaps`` compare neighbours draw by
    draw, so the correlation of their ratings is kept. With ``bootstrap=0`` the intervals
    collapse onto the estimate and ``los`` and ``gaps`` are empty.
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

    tally = _Tally.of(games, index)
    counts = outcome_counts(games, index, tally.pairing_index)
    fitter = GroupFitter(len(names), tally.pairings, anchor_index, anchor_rating)
    elo, theta, used_prior = fitter.fit(*totals(counts))
    warnings = _warnings(names, fitter, used_prior, tally)
    samples = posterior_samples(fitter, counts, theta, bootstrap, seed)
    ratings = _leaderboard(names, tally, fitter, elo, samples, confidence)
    gaps = _neighbour_gaps(ratings, index, samples, confidence)
    superiority = {key: gap.los for key, gap in gaps.items()}
    return Ratings(ratings=ratings, los=superiority, warnings=warnings, anchor=anchor, gaps=gaps)


# --------------------------------------------------------------------------- the steps


def _bot_names(games: Sequence[GameResult], bots: Sequence[str] | None) -> list[str]:
    """The rated bots, whose positions are the bot indices used everywhere below:
    ``bots`` as given (checked), or every bot named in ``games`` sorted by name, so the
    indices (and with them the fit and the bootstrap) never depend on set ordering."""
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

    ``pairings`` is in first-played order and ``pairing_index`` is its inverse; the fit and
    the bootstrap address pairings by that index.
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


def _group_order(names: Sequence[str], fitter: GroupFitter, tally: _Tally) -> dict[int, int]:
    """Leaderboard number of each bot's connected group: the anchor's group first, then
    larger groups first (more bots, then more games), then by their first name."""

    def key(component: Group) -> tuple[bool, int, int, str]:
        games = sum(tally.games(m) for m in component.members)
        return (
            fitter.anchor not in component.members,
            -len(component.members),
            -games,
            min(names[m] for m in component.members),
        )

    ordered = sorted(fitter.components, key=key)
    return {m: g for g, component in enumerate(ordered) for m in component.members}


def _rating(
    name: str,
    k: int,
    tally: _Tally,
    elo: float | None,
    low: float | None,
    high: float | None,
    group: int | None,
    bound: str | None,
) -> Rating:
    return Rating(
        name=name,
        elo=elo,
        low=low,
        high=high,
        error=None if low is None or high is None else (high - low) / 2.0,
        games=tally.games(k),
        score=tally.points[k],
        wins=tally.wins[k],
        draws=tally.draws[k],
        losses=tally.losses[k],
        group=group,
        bound=bound,
    )


def _leaderboard(
    names: Sequence[str],
    tally: _Tally,
    fitter: GroupFitter,
    elo: Sequence[float],
    samples: Sequence[Sequence[float]],
    confidence: float,
) -> list[Rating]:
    """One :class:`Rating` per bot, group by group and best first within a group (ties by
    name, so the order is total); bots without games last, unrated."""
    group_of = _group_order(names, fitter, tally)
    ratings = []
    for k, name in enumerate(names):
        if k not in group_of:
            ratings.append(_rating(name, k, tally, None, None, None, None, None))
            continue
        low, high = percentile_interval(samples[k], elo[k], confidence)
        bound = None
        if tally.wins[k] == tally.games(k):
            bound = "lower"
        elif tally.losses[k] == tally.games(k):
            bound = "upper"
        ratings.append(_rating(name, k, tally, elo[k], low, high, group_of[k], bound))

    def order(r: Rating) -> tuple[int, float, str]:
        if r.group is None or r.elo is None:
            return (len(fitter.components), 0.0, r.name)
        return (r.group, -r.elo, r.name)

    ratings.sort(key=order)
    return ratings


def _neighbour_gaps(
    ratings: Sequence[Rating], index: dict[str, int], samples: Sequence[Sequence[float]], confidence: float
) -> dict[tuple[str, str], Gap]:
    """Rating difference and likelihood of superiority of each leaderboard line over the
    next, from the posterior draws.

    Only neighbours a reader would compare get an entry, and only when they are comparable:
    both in the same connected group (a bot without games is in none), with draws. The two
    bots' values come from the same draws, so comparing them draw by draw keeps the
    correlation between their ratings. Draws are continuous, so exact ties (counted half)
    only happen when both bots are pinned (an anchor and a bot that is tied to it).
    """
    gaps: dict[tuple[str, str], Gap] = {}
    for better, nxt in itertools.pairwise(ratings):
        i, j = index[better.name], index[nxt.name]
        if better.group is None or better.group != nxt.group or not samples[i]:
            continue
        assert better.elo is not None and nxt.elo is not None
        diffs = [x - y for x, y in zip(samples[i], samples[j], strict=True)]
        ahead = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs)
        estimate = better.elo - nxt.elo
        low, high = percentile_interval(diffs, estimate, confidence)
        gaps[(better.name, nxt.name)] = Gap(estimate, low, high, ahead / len(diffs))
    return gaps


def _fmt_group(names: Sequence[str]) -> str:
    return "{" + ", ".join(names) + "}"


def _warnings(
    names: Sequence[str], fitter: GroupFitter, used_prior: Sequence[bool], tally: _Tally
) -> list[str]:
    """Everything a reader must know to not over-read the table, in a stable order:
    incomparable groups, bots without games, then groups whose ratings are only bounds."""
    warnings: list[str] = []
    if len(fitter.components) > 1:
        groups = sorted(sorted(names[m] for m in c.members) for c in fitter.components)
        warnings.append(
            "some bots were never connected by games: ratings of "
            + " and ".join(_fmt_group(g) for g in groups)
            + " are not comparable (each group is centred on its own)"
        )
    for k, name in enumerate(names):
        if tally.games(k) == 0:
            warnings.append(f"bot {name} played no games: it has no rating")
    wins, draws, losses = tally.wins, tally.draws, tally.losses
    for component, prior in zip(fitter.components, used_prior, strict=True):
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
