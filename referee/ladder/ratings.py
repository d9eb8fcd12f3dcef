"""A ladder's rating list: every counted game through
:func:`~referee.ratings.elo.compute_ratings`, the anchor held at its rating, and a
provisional mark (``?``) on every rating of fewer than ``min_games`` games. Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from referee.ladder.store import Result
from referee.ratings.elo import GameResult, compute_ratings
from referee.ratings.fit import ELO_PER_NAT, fit_strengths, with_prior

PRIOR_GAMES = 1.0
"""Virtual draws of each bot against a bot at the prior rating, in the pairing's estimate."""


@dataclass(frozen=True)
class Line:
    """One entry's line. ``elo`` None: no game yet; ``bound`` as in
    :class:`~referee.ratings.elo.Rating` (``lower``: at least ``low``)."""

    label: str
    elo: float | None
    low: float | None
    high: float | None
    bound: str | None
    games: int
    wins: int
    draws: int
    losses: int
    provisional: bool
    anchor: bool

    def shown(self) -> str:
        """``+123``, ``+123?`` while provisional, ``> +40`` for a bound, ``?`` without games."""
        if self.elo is None or (math.isnan(self.elo) and self.bound is None):
            return "?"
        if self.bound == "lower":
            text = f"> {self.low:+.0f}"
        elif self.bound == "upper":
            text = f"< {self.high:+.0f}"
        else:
            text = f"{self.elo:+.0f}"
        return text + ("?" if self.provisional else "")

    def interval(self) -> str:
        """The 95% interval as the rating list shows it (``anchor`` for the anchor, empty
        without one)."""
        if self.anchor:
            return "anchor"
        if self.low is None or self.high is None or self.elo is None or math.isnan(self.elo):
            return ""
        low = "-inf" if math.isinf(self.low) and self.low < 0 else f"{self.low:+.0f}"
        high = "inf" if math.isinf(self.high) else f"{self.high:+.0f}"
        return f"[{low}, {high}]"

    def for_pairing(self, default: float) -> float:
        """A finite rating to pair by: the estimate, a bound's value, else ``default``."""
        for value in (self.elo, self.low if self.bound == "lower" else self.high):
            if value is not None and math.isfinite(value):
                return value
        return default


def rating_list(
    results: Sequence[Result],
    labels: Sequence[str],
    *,
    anchor: tuple[str, float] | None,
    min_games: int,
    intervals: bool = True,
) -> list[Line]:
    """The lines of ``labels`` (every entry), best first; ``anchor`` (label, rating) is
    held fixed when it is an entry. ``intervals=False`` is the quick fit pairing needs."""
    games = [
        GameResult(r.a, r.b, 0.5 if r.winner is None else (1.0 if r.winner == 0 else 0.0), r.pair_key)
        for r in results
    ]
    names = list(dict.fromkeys([*labels, *(n for g in games for n in (g.a, g.b))]))
    fixed = anchor if anchor is not None and anchor[0] in names else None
    ratings = compute_ratings(
        games,
        names,
        anchor=None if fixed is None else fixed[0],
        anchor_rating=0.0 if fixed is None else fixed[1],
        bootstrap=1 if intervals else 0,
    )
    return [
        Line(
            label=r.name,
            elo=r.elo,
            low=r.low if intervals else None,
            high=r.high if intervals else None,
            bound=r.bound,
            games=r.games,
            wins=r.wins,
            draws=r.draws,
            losses=r.losses,
            provisional=r.games < min_games and (fixed is None or r.name != fixed[0]),
            anchor=fixed is not None and r.name == fixed[0],
        )
        for r in ratings.ratings
    ]


def pairing_ratings(
    tallies: Sequence[tuple[str, str, float, int]],
    labels: Sequence[str],
    *,
    anchor: tuple[str, float] | None,
    prior: float,
) -> dict[str, float]:
    """Finite Elo ratings of ``labels`` to pair by, from the summed results alone (so a
    round's pairing costs the same at 100 games as at 100,000): the maximum likelihood of
    the games with one virtual draw between the two bots of each pairing played and one
    between each bot and a virtual bot, so a sweep, a new bot or a group that never met
    the others still get a finite rating (a bot without games: the virtual bot's, the
    field's middle); shifted so that ``anchor`` has its rating (without one, the virtual
    bot is rated ``prior``). An estimate for pairing only: the rating list is
    :func:`rating_list`'s."""
    names = list(dict.fromkeys([*labels, *(n for a, b, _, _ in tallies for n in (a, b))]))
    index = {name: k for k, name in enumerate(names)}
    summed: dict[tuple[int, int], list[float]] = {}
    for a, b, points, games in tallies:
        i, j = index[a], index[b]
        key, mine = ((i, j), points) if i < j else ((j, i), games - points)
        entry = summed.setdefault(key, [0.0, 0.0])
        entry[0] += mine
        entry[1] += games
    virtual = len(names)
    pairs = with_prior([(i, j, s, n) for (i, j), (s, n) in summed.items()], PRIOR_GAMES)
    pairs += [(k, virtual, PRIOR_GAMES / 2, PRIOR_GAMES) for k in range(len(names))]
    theta = fit_strengths(len(names) + 1, pairs)
    if anchor is not None and anchor[0] in index:
        zero, level = theta[index[anchor[0]]], anchor[1]
    else:
        zero, level = theta[virtual], prior
    return {name: (theta[index[name]] - zero) * ELO_PER_NAT + level for name in labels}


__all__ = ["Line", "pairing_ratings", "rating_list"]
