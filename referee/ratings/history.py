"""How the numbers moved during a run: ratings after the first N games, an SPRT's LLR after
each pair. Pure, for the charts of ``standings.html``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable

from referee.play.records import GameSummary
from referee.ratings.elo import RunningCounts
from referee.ratings.model import GameResult
from referee.ratings.report import game_result
from referee.ratings.sprt import Sprt

CHECKPOINTS = 24
"""Points of a rating history: a fit each (point estimates, no resampling)."""
MAX_LLR_POINTS = 400


@runtime_checkable
class RatedGames(Protocol):
    """Games that give their rating view themselves, without making each record (a run's
    summaries kept in columns: :class:`~referee.tournament.store.summary_log.SummaryLog`)."""

    def results(self) -> list[GameResult]:
        """``game_result`` of each game, the void ones left out, in order."""
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
    if isinstance(games, RatedGames):
        results = games.results()
    else:
        results = [r for r in (game_result(g) for g in games) if r is not None]
    if not results:
        return []
    step = max(1, len(results) // checkpoints)
    ends = sorted({*range(step, len(results) + 1, step), len(results)})
    out = []
    counts = RunningCounts()  # each prefix's fit without a pass over it
    done = 0
    for end in ends:
        for game in results[done:end]:
            counts.add(game)
        done = end
        fixed = anchor if anchor in counts.seen else None
        bots = [n for n in names if n in counts.seen]
        fit = counts.ratings(bots, anchor=fixed, anchor_rating=anchor_rating, bootstrap=0)
        if any(r.bound is not None for r in fit.ratings):
            fit = counts.ratings(bots, anchor=fixed, anchor_rating=anchor_rating)
        point = {}
        for r in fit.ratings:
            value = r.low if r.bound == "lower" else r.high if r.bound == "upper" else r.elo
            if value is not None and math.isfinite(value):
                point[r.name] = value
        out.append((end, point))
    return out


def llr_history(games: Sequence[GameSummary], test: Sprt, candidate: str) -> list[tuple[int, float]]:
    """``(pairs, LLR)`` each time a pair completed (thinned to at most
    :data:`MAX_LLR_POINTS`), in the order the games were recorded."""
    scores: Iterable[tuple[Hashable, float] | None]
    if isinstance(games, PairedGames):
        scores = games.pair_scores(candidate)
    else:
        scores = (pair_score(g, candidate) for g in games)
    points: dict[Hashable, float] = {}
    counts = [0, 0, 0, 0, 0]
    completed: list[tuple[int, ...]] = []
    for found in scores:
        if found is None:
            continue
        key, score = found
        if key in points:
            counts[round(2 * (points.pop(key) + score))] += 1
            completed.append(tuple(counts))
        else:
            points[key] = score
    step = max(1, len(completed) // MAX_LLR_POINTS)
    chosen = [*completed[step - 1 :: step]]
    if completed and chosen[-1] != completed[-1]:
        chosen.append(completed[-1])
    return [(sum(c), test.status(c).llr) for c in chosen]
