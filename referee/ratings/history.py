"""How the numbers moved during a run: ratings after the first N games, an SPRT's LLR after
each pair. Pure, for the charts of ``standings.html``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Generic, Protocol, TypeVar, runtime_checkable

from referee.play.records import GameSummary
from referee.ratings.elo import RunningCounts
from referee.ratings.model import GameResult
from referee.ratings.report import game_result
from referee.ratings.sprt import Sprt

CHECKPOINTS = 24
"""Points of a rating history: a fit each (point estimates, no resampling)."""
MAX_LLR_POINTS = 400

P = TypeVar("P")

Histories = tuple[list[tuple[int, dict[str, float]]], list[tuple[int, float]]]
"""A page's charts: its rating history's points and its LLR history's."""


@runtime_checkable
class RatedGames(Protocol):
    """Games that give their rating view themselves, without making each record (a run's
    summaries kept in columns: :class:`~referee.tournament.store.summary_log.SummaryLog`)."""

    def results(self) -> Iterator[GameResult]:
        """``game_result`` of each game, the void ones left out, in order."""
        ...

    def rated_count(self) -> int:
        """How many :meth:`results` gives."""
        ...


@runtime_checkable
class PairedGames(Protocol):
    """Games that give a bot's score in each of its paired games themselves (a run's
    summaries kept in columns), for :func:`llr_history`."""

    def pair_scores(self, candidate: str) -> Iterator[tuple[Hashable, float]]:
        """:func:`pair_score` of each game, those it gives None left out, in order."""
        ...


def pair_score(game: GameSummary, candidate: str) -> tuple[Hashable, float] | None:
    """``(pair key, candidate's points)`` of a rated game of ``candidate``'s with a pair
    key, else None: what an SPRT's pentanomial counts are made of."""
    if game.is_void or game.pair_key is None or candidate not in game.labels:
        return None
    seat = game.labels.index(candidate)
    return game.pair_key, 0.5 if game.winner is None else 1.0 if game.winner == seat else 0.0


def rating_history(
    games: Sequence[GameSummary],
    names: Sequence[str],
    *,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    checkpoints: int = CHECKPOINTS,
) -> list[tuple[int, dict[str, float]]]:
    """``(games so far, {bot: Elo})`` at about ``checkpoints`` evenly spaced points of the
    run, in the order the games were recorded: the maximum-likelihood fit of each prefix
    (no tables: about 0.1 s a point at 100,000 games). Where a rating is only a bound (its
    maximum likelihood is infinite: the bot has not yet dropped a point to the bots below
    it, or they to it) the point is the bound's finite end, what the data say it is at
    least (or at most), which takes the intervals of that prefix; a line then rises as the
    evidence grows and meets the estimate once the bot drops a point. A bot is left out of
    a point where it has no rating yet, or where nothing places it (a NaN rating)."""
    results: Iterator[GameResult]
    if isinstance(games, RatedGames):  # one at a time, from a run's columns
        total, results = games.rated_count(), games.results()
    else:
        listed = [r for r in (game_result(g) for g in games) if r is not None]
        total, results = len(listed), iter(listed)
    if not total:
        return []
    out = []
    counts = RunningCounts()  # each prefix's fit without a pass over it
    done = 0
    for end in _spaced(total, checkpoints):
        for game in itertools.islice(results, end - done):
            counts.add(game)
        done = end
        out.append((end, rating_point(counts, names, anchor, anchor_rating)))
    return out


def _spaced(total: int, most: int) -> list[int]:
    """Every ``total // most``-th of ``total`` events (each one, if fewer), and the last:
    where a finished run's history has its points."""
    step = max(1, total // most)
    return sorted({*range(step, total + 1, step), total}) if total else []


class _Pairs:
    """The games of a candidate's opening pairs as they come: :meth:`complete` gives a
    pair's class (the candidate's points over both, doubled: 0-4) when its second game
    comes; only the pairs not yet complete are held."""

    def __init__(self) -> None:
        self.open: dict[Hashable, float] = {}

    def complete(self, key: Hashable, score: float) -> int | None:
        first = self.open.pop(key, None)
        if first is None:
            self.open[key] = score
            return None
        return round(2 * (first + score))


def rating_point(
    counts: RunningCounts, names: Sequence[str], anchor: str | None, anchor_rating: float
) -> dict[str, float]:
    """One point of a rating history: ``{bot: Elo}`` of the games ``counts`` holds (see
    :func:`rating_history`: a bound is drawn at its finite end, an unplaced bot left out)."""
    fixed = anchor if anchor in counts.seen else None
    bots = [n for n in names if n in counts.seen]
    fit = counts.ratings(bots, anchor=fixed, anchor_rating=anchor_rating, bootstrap=0)
    if any(r.bound is not None for r in fit.ratings):  # their finite ends: their intervals
        fit = counts.ratings(bots, anchor=fixed, anchor_rating=anchor_rating, bounds_only=True)
    point = {}
    for r in fit.ratings:
        value = r.low if r.bound == "lower" else r.high if r.bound == "upper" else r.elo
        if value is not None and math.isfinite(value):
            point[r.name] = value
    return point


class Trail(Generic[P]):
    """Points of a growing run, one at every ``step``-th event, kept as the events come:
    past ``2 * points`` of them, ``step`` doubles and every other point goes. A long run's
    page then draws its history from between ``points`` and ``2 * points`` points (and the
    latest) made along the way, with no pass over its games: what a page of a running
    run costs stays the same, however long it grows. A finished run's page draws
    :func:`rating_history`'s (or :func:`llr_history`'s) evenly spaced points instead."""

    def __init__(self, points: int) -> None:
        self.most = 2 * points
        self.step = 1
        self.points: list[tuple[int, P]] = []

    def due(self, event: int) -> bool:
        """Whether the ``event``-th event (from 1) makes a point."""
        return event % self.step == 0

    def add(self, event: int, point: P) -> None:
        self.points.append((event, point))
        if len(self.points) > self.most:
            self.step *= 2
            self.points = [p for p in self.points if p[0] % self.step == 0]

    def upto(self, event: int, latest: Callable[[], P]) -> list[tuple[int, P]]:
        """The points, and one at ``event`` (from ``latest()``) if the last is older."""
        if not event or (self.points and self.points[-1][0] == event):
            return list(self.points)
        return [*self.points, (event, latest())]


class RatingTrail:
    """A run's rating history (:func:`rating_history`'s points, spaced by a :class:`Trail`)
    kept as its rated games are counted into ``counts`` (shared with whoever counts them:
    the standings process's page counts): call :meth:`counted` after each game. A point is
    the counts as they were (:meth:`RunningCounts.frozen`), fitted when a history is asked
    for, once: a point dropped before that (the step doubled) is never fitted, which with
    a large field and its intervals is most of the cost."""

    def __init__(
        self,
        counts: RunningCounts,
        names: Sequence[str],
        *,
        anchor: str | None = None,
        anchor_rating: float = 0.0,
        checkpoints: int = CHECKPOINTS,
    ) -> None:
        self.counts = counts
        self.names = list(names)
        self.anchor = anchor
        self.anchor_rating = anchor_rating
        self.games = 0
        self.trail: Trail[dict[str, float] | RunningCounts] = Trail(checkpoints)

    def _point(self, counts: RunningCounts) -> dict[str, float]:
        return rating_point(counts, self.names, self.anchor, self.anchor_rating)

    def counted(self) -> None:
        """One more rated game is in ``counts``."""
        self.games += 1
        if self.trail.due(self.games):
            self.trail.add(self.games, self.counts.frozen())

    def history(self) -> list[tuple[int, dict[str, float]]]:
        """``(games so far, {bot: Elo})`` at each point kept, and at the latest game."""
        points = self.trail.points
        for k, (games, point) in enumerate(points):
            if isinstance(point, RunningCounts):
                points[k] = (games, self._point(point))
        return [
            (games, point)
            for games, point in self.trail.upto(self.games, lambda: self._point(self.counts))
            if isinstance(point, dict)
        ]


class LlrTrail:
    """An SPRT's LLR history (:func:`llr_history`'s points, spaced by a :class:`Trail`)
    kept as the run's games come: :meth:`add` each record, in order. Only the pairs not
    yet complete are held."""

    def __init__(self, test: Sprt, candidate: str, most: int = MAX_LLR_POINTS) -> None:
        self.test = test
        self.candidate = candidate
        self.open = _Pairs()
        self.counts = [0, 0, 0, 0, 0]
        self.pairs = 0
        self.trail: Trail[float] = Trail(most // 2)

    def _llr(self) -> float:
        return self.test.status(self.counts).llr

    def add(self, game: GameSummary) -> None:
        found = pair_score(game, self.candidate)
        if found is None:
            return
        k = self.open.complete(*found)
        if k is None:
            return
        self.counts[k] += 1
        self.pairs += 1
        if self.trail.due(self.pairs):
            self.trail.add(self.pairs, self._llr())

    def history(self) -> list[tuple[int, float]]:
        """``(pairs, LLR)`` at each point kept, and at the latest pair."""
        return self.trail.upto(self.pairs, self._llr)


def llr_history(games: Sequence[GameSummary], test: Sprt, candidate: str) -> list[tuple[int, float]]:
    """``(pairs, LLR)`` each time a pair completed (thinned to at most
    :data:`MAX_LLR_POINTS`), in the order the games were recorded."""
    scores: Iterable[tuple[Hashable, float] | None]
    if isinstance(games, PairedGames):
        scores = games.pair_scores(candidate)
    else:
        scores = (pair_score(g, candidate) for g in games)
    pairs = _Pairs()
    # The class of each completed pair, in order (a byte each): the counts after any of
    # them are summed for the points chosen, which are known only at the end.
    completed = bytearray()
    for found in scores:
        if found is not None and (k := pairs.complete(*found)) is not None:
            completed.append(k)
    out = []
    counts = [0, 0, 0, 0, 0]
    done = 0
    for end in _spaced(len(completed), MAX_LLR_POINTS):
        for k in completed[done:end]:
            counts[k] += 1
        done = end
        out.append((end, test.status(counts).llr))
    return out
