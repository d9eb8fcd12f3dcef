"""An adaptive rating run as a schedule: colour-reversed pairs, each new one put where it
buys the most certainty about the ranking, within a fixed game budget.

Like the SPRT schedule (:mod:`referee.tournament.plans.sprt`) the list of games is not
known in advance: :meth:`AdaptiveSchedule.games` is an iterator the runner's workers pull
from, and the bots of a new pair are chosen when its first game is handed out, from every
result recorded so far. Pair ``k`` (from 1) has the slots ``ad-0000k-1`` (bot ``a`` first:
it makes the pie setup, or plays Black) and ``ad-0000k-2`` (bot ``b`` first), ``a`` being
the one listed first in the config; both share the pair key ``ad-0000k`` and, for book and
random openings, one opening (the openings are dealt in turn by pair number). No pair is
started that would take the run past its budget, so every game belongs to a complete pair.

Choosing the next pair, in two phases.

1. Warm-up (the floor). While some bot has fewer than ``floor`` games (counting pairs in
   flight), or the bots are not yet linked by games into one group (ratings of unlinked
   groups are not comparable), the bot with the fewest games (ties: config order) plays
   the opponent it has met least, preferring one outside its group, then the opponent with
   the fewest games, then config order. The default floor is ``2 * (len(bots) - 1)``: one
   colour-reversed pair against every other bot, which this rule deals like a round robin.
   So every rating rests on games against the whole field, and the first ranking the
   adaptive phase sees is an honest one (a smaller floor leaves a bot misplaced on two or
   three games, and adjacent-rank pairs only move it one place at a time).
2. Adaptive. Fit the maximum-likelihood ratings of the recorded games (the same
   Bradley-Terry fit and perfect-score rule as :func:`referee.ratings.elo.compute_ratings`,
   on per-pairing totals) and rank the bots. For each two neighbours ``a`` above ``b`` with
   gap ``d >= 0``, take ``V``, the variance of ``d`` from the Fisher information of every
   game scheduled so far (recorded or in flight, each pairing weighted ``n * p * (1 - p)``
   at the fitted expected score ``p``; this counts indirect evidence through other bots,
   and is the effective resistance between ``a`` and ``b``). The chance their order is
   wrong is about ``u = Phi(-d / sqrt(V))`` (``min(LOS, 1 - LOS)``); one more pair between
   them (information ``w = 2 p (1 - p)``) shrinks ``V`` to ``V / (1 + w V)``. The next pair
   goes to the neighbours maximising ``u * (V - V / (1 + w V))``: how doubtful the order
   is, times how much a pair would narrow it. For two bots with only direct games this is
   ``min(LOS, 1 - LOS) * (1 / n - 1 / (n + 2))`` up to a constant. The absolute (not
   relative) narrowing keeps a pair of truly equal bots, whose order no budget can settle,
   from swallowing everything: its gain falls like ``1 / n**2``. Counting pairs in flight
   makes concurrent workers spread over different neighbours. Ties go to the pair listed
   first in the config.

Deterministic: the same recorded results (and pairs in flight) give the same next pair; no
randomness, no I/O. A resumed run rebuilds the state from the results file's summaries and
first completes the pairs found half played; a pair number whose games were all lost (void
or torn) is chosen afresh.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from referee.play.records import GameSummary
from referee.play.spec import Opening, OpeningKind
from referee.ratings.fit import (
    add_information,
    fit_strengths,
    gap_variances,
    sigmoid,
    strongly_connected,
    with_prior,
)
from referee.tournament.plans.plan import Checks, Field, Quiet, TestView, even
from referee.tournament.slots import PairKeys, ScheduledGame, colour_reversed

PAIRS = PairKeys("ad-")
pair_key = PAIRS.key
pair_number = PAIRS.number


@dataclass(frozen=True)
class AdaptiveSpec:
    """``{kind: adaptive, games: N, floor: F}``: a budget of ``games`` (even), each next
    pair where it buys the most certainty about the ranking, after ``floor`` games per bot
    (None: one colour-reversed pair against every other bot)."""

    kind: ClassVar[str] = "adaptive"
    games: int
    floor: int | None = None

    def __post_init__(self) -> None:
        if self.games < 2 or self.games % 2:
            raise ValueError("games must be a positive even number (games come in pairs)")
        if self.floor is not None and self.floor < 0:
            raise ValueError("floor must not be negative")

    def fingerprint(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "games_per_pair": 2,
            "challengers": [],
            "games": self.games,
            "floor": self.floor,
        }

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> AdaptiveSpec:
        spec = checks.mapping(value, "schedule", ("kind", "games", "floor"))
        if "games" not in spec:
            checks.fail("schedule.games", "missing (an adaptive run needs its game budget)")
        games = even(checks, spec["games"], "schedule.games", "games come in pairs")
        floor = checks.integer(spec["floor"], "schedule.floor", minimum=0) if "floor" in spec else None
        return AdaptiveSpec(games, floor)

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> AdaptiveSpec:
        games, floor = data["games"], data["floor"]
        if type(games) is not int or not (floor is None or type(floor) is int):
            raise TypeError("its games or floor are not integers")
        return AdaptiveSpec(games, floor)

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        return None

    def extent(self) -> dict[str, object]:
        return {}

    def plan(self, field: Field) -> AdaptivePlan:
        return AdaptivePlan(field.names, field.mode, field.openings, games=self.games, floor=self.floor)

    def check(self, field: Field) -> None:
        self.plan(field)

    def describe(self, field: Field) -> str:
        return AdaptiveSchedule(self.plan(field)).describe()

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> AdaptiveSchedule:
        return AdaptiveSchedule(self.plan(field), recorded)


@dataclass(frozen=True)
class AdaptivePlan:
    """What the run plays: the bots (in config order), the openings, the game budget and
    the floor (games every bot plays before adapting; ``None``: ``2 * (len(bots) - 1)``)."""

    bots: tuple[str, ...]
    mode: OpeningKind
    openings: tuple[Opening, ...] = ()
    games: int = 1000
    floor: int | None = None

    def __post_init__(self) -> None:
        if len(self.bots) < 2 or len(set(self.bots)) != len(self.bots):
            raise ValueError("an adaptive run needs at least two different bots")
        AdaptiveSpec(self.games, self.floor)  # the budget's invariants, checked there
        if self.mode in (OpeningKind.BOOK, OpeningKind.RANDOM) and not self.openings:
            raise ValueError(f"a {self.mode.value} adaptive run needs at least one opening")

    @property
    def floor_games(self) -> int:
        return 2 * (len(self.bots) - 1) if self.floor is None else self.floor

    def pair(self, number: int, a: str, b: str) -> tuple[ScheduledGame, ScheduledGame]:
        """The two games of pair ``number`` (from 1) between ``a`` and ``b``."""
        key = pair_key(number)
        return colour_reversed(
            a,
            b,
            mode=self.mode,
            pair_key=key,
            slot=key + "-{}",
            index=2 * (number - 1),
            opening=Field(self.bots, self.mode, self.openings).opening(number - 1),
        )


class AdaptiveSchedule(Quiet):
    """The run's state (who met whom, with what result) and the pair it asks for next (a
    :class:`~.plan.Plan`)."""

    open_ended = False
    waits_for_games_in_flight = False

    def __init__(self, plan: AdaptivePlan, recorded: Iterable[GameSummary] = ()) -> None:
        self.plan = plan
        self._index = {name: k for k, name in enumerate(plan.bots)}
        size = len(plan.bots)
        self.pairs: dict[int, tuple[str, str]] = {}  # pair number -> (a, b), recorded or handed out
        self._lowest_free = 1  # no pair number below it is free
        self._points: dict[int, dict[int, float]] = {}  # pair -> game (1, 2) -> a's points
        # Per pairing i < j (config indices): games scheduled, games recorded, i's points.
        self._scheduled = [[0] * size for _ in range(size)]
        self._played = [[0] * size for _ in range(size)]
        self._score = [[0.0] * size for _ in range(size)]
        # Kept as pairs are handed out and games come (never recounted: a choice costs no
        # pass over the field's pairings but the fit's): each bot's scheduled games, and
        # who is linked to whom by scheduled and by played games.
        self._per_bot = [0] * size
        self._linked = _Links(size)
        self._met = _Links(size)
        for summary in recorded:
            self.record(summary)

    # ------------------------------------------------------------------ results
    def _assign(self, number: int, a: str, b: str) -> None:
        self.pairs[number] = (a, b)
        i, j = sorted((self._index[a], self._index[b]))
        self._scheduled[i][j] += 2
        self._per_bot[i] += 2
        self._per_bot[j] += 2
        self._linked.join(i, j)

    def record(self, summary: GameSummary) -> None:
        """Take one finished game into the state (a void game counts for nothing: it is
        played again)."""
        number = pair_number(summary.pair_key)
        if number is None or summary.is_void:
            return
        unknown = [name for name in summary.labels if name not in self._index]
        if unknown or summary.labels[0] == summary.labels[1]:
            raise ValueError(f"{summary.slot}: not a game between two bots of this run: {summary.labels}")
        a, b = sorted(summary.labels, key=self._index.__getitem__)
        if number not in self.pairs:
            self._assign(number, a, b)
        elif self.pairs[number] != (a, b):
            raise ValueError(f"{summary.slot}: pair {number} is {self.pairs[number]}, not {(a, b)}")
        game = 1 if summary.slot.endswith("-1") else 2
        games = self._points.setdefault(number, {})
        if game in games:
            return  # a second record of a slot (the runner keeps the first)
        winner = None if summary.winner is None else summary.labels[summary.winner]
        points = 0.5 if winner is None else 1.0 if winner == a else 0.0
        games[game] = points
        i, j = self._index[a], self._index[b]  # i < j: a is listed first
        self._played[i][j] += 1
        self._score[i][j] += points
        self._met.join(i, j)

    @property
    def total(self) -> int:
        """The most games the run asks for (its budget)."""
        return self.plan.games

    @property
    def games_recorded(self) -> int:
        return sum(len(g) for g in self._points.values())

    @property
    def room(self) -> bool:
        """Whether another whole pair fits in the budget."""
        return 2 * (len(self.pairs) + 1) <= self.plan.games

    def is_recorded(self, game: ScheduledGame) -> bool:
        number = pair_number(game.pair_key)
        return number is not None and game.game in self._points.get(number, {})

    # ------------------------------------------------------------------ choosing
    def _count(self, table: list[list[int]], i: int, j: int) -> int:
        return table[min(i, j)][max(i, j)]

    @property
    def warming_up(self) -> bool:
        """Whether the next pair is chosen by the floor rule (some bot is below the floor,
        or the bots are not linked into one group yet), counting pairs in flight."""
        return min(self._per_bot) < self.plan.floor_games or self._linked.count > 1

    def _warm_up_pair(self) -> tuple[int, int]:
        """The bot with the fewest scheduled games, against one outside its group, then the
        one it met least, then the one with the fewest games."""
        size = len(self.plan.bots)
        table = self._scheduled
        played = self._per_bot
        group = self._linked.groups()
        x = min(range(size), key=lambda k: (played[k], k))
        y = min(
            (o for o in range(size) if o != x),
            key=lambda o: (group[o] == group[x], self._count(table, x, o), played[o], o),
        )
        return x, y

    def strengths(self) -> list[float] | None:
        """Maximum-likelihood strengths (nats) of the recorded games, in config order, or
        None while they do not link every bot into one group."""
        size = len(self.plan.bots)
        if self._met.count > 1:
            return None
        pairs = [
            (i, j, self._score[i][j], float(self._played[i][j]))
            for i in range(size)
            for j in range(i + 1, size)
            if self._played[i][j]
        ]
        if not strongly_connected(size, pairs):
            pairs = with_prior(pairs)
        return fit_strengths(size, pairs)

    def scores(self) -> dict[tuple[str, str], float]:
        """The adaptive score of each two neighbours in the current ranking (better first):
        ``Phi(-d / sqrt(V)) * (V - V / (1 + w V))``, see the module docstring. Empty while
        the recorded games do not link every bot."""
        theta = self.strengths()
        if theta is None:
            return {}
        size = len(theta)
        # Fisher information of every scheduled game, plus 1/size on every entry (a rank-one
        # term along the all-ones direction, which differences do not see) to make it regular.
        info = [[1.0 / size] * size for _ in range(size)]
        for i in range(size):
            for j in range(i + 1, size):
                if self._scheduled[i][j]:
                    add_information(info, i, j, self._scheduled[i][j], theta)
        order = sorted(range(size), key=lambda k: (-theta[k], k))
        neighbours = list(itertools.pairwise(order))
        result: dict[tuple[str, str], float] = {}
        for (a, b), variance in zip(neighbours, gap_variances(info, neighbours), strict=True):
            score = pair_score(theta[a] - theta[b], max(variance, 1e-300), 2)
            result[(self.plan.bots[a], self.plan.bots[b])] = score
        return result

    def choose(self) -> tuple[str, str]:
        """The bots of the next pair, listed in config order (see the module docstring)."""
        bots = self.plan.bots
        if self.warming_up:
            x, y = self._warm_up_pair()
        else:
            scores = self.scores()
            if not scores:  # linked only through games still in flight
                x, y = self._warm_up_pair()
            else:
                best = max(
                    scores.items(),
                    key=lambda kv: (
                        kv[1],
                        -min(self._index[n] for n in kv[0]),
                        -max(self._index[n] for n in kv[0]),
                    ),
                )
                x, y = self._index[best[0][0]], self._index[best[0][1]]
        return (bots[min(x, y)], bots[max(x, y)])

    def start_pair(self) -> tuple[ScheduledGame, ScheduledGame]:
        """Choose and hand out a new pair under the lowest free pair number."""
        if not self.room:
            raise ValueError("the game budget is spent")
        number = self._lowest_free  # numbers are only ever taken: the lowest free one only rises
        while number in self.pairs:
            number += 1
        self._lowest_free = number
        a, b = self.choose()
        self._assign(number, a, b)
        return self.plan.pair(number, a, b)

    # ------------------------------------------------------------------ what it says
    def describe(self) -> str:
        return f"{self.total} games, adaptive (each pair where the ranking is least certain)"

    def misfits(self, found: Iterable[GameSummary]) -> list[GameSummary]:
        """Its slots' bots are chosen as it goes: a found game fits if the state takes it."""
        fresh = AdaptiveSchedule(self.plan)
        wrong = []
        for summary in found:
            try:
                if pair_number(summary.pair_key) is None or summary.slot[-2:] not in ("-1", "-2"):
                    raise ValueError(summary.slot)
                fresh.record(summary)
            except ValueError:
                wrong.append(summary)
        return wrong

    # ------------------------------------------------------------------ what to play
    def games(self, done: set[str]) -> AdaptiveGames:
        """The games still to play (see :class:`AdaptiveGames`): first the missing games of
        pairs already begun (a resumed run), then new pairs while the budget lasts.
        ``done`` holds the slots already played."""
        return AdaptiveGames(self, done)


class AdaptiveGames:
    """The iterator the runner's workers pull games from (re-askable like
    :class:`~referee.tournament.plans.sprt.SprtGames`)."""

    remaining = None  # decided as it goes

    def __init__(self, schedule: AdaptiveSchedule, done: set[str]) -> None:
        self.schedule = schedule
        self.resumed = len(done)
        self.pending = [
            game
            for number in sorted(schedule.pairs)
            for game in schedule.plan.pair(number, *schedule.pairs[number])
            if game.slot not in done and not schedule.is_recorded(game)
        ]

    def __iter__(self) -> AdaptiveGames:
        return self

    def available(self) -> bool:
        """Whether :meth:`__next__` would hand out a game now."""
        return bool(self.pending) or self.schedule.room

    def __next__(self) -> ScheduledGame:
        if self.pending:
            return self.pending.pop(0)
        if not self.schedule.room:
            raise StopIteration
        first, second = self.schedule.start_pair()
        self.pending.append(second)
        return first


def pair_score(gap: float, variance: float, games: int) -> float:
    """``Phi(-|d| / sqrt(V)) * (V - V / (1 + w V))`` (the module docstring): how doubtful
    the order of two bots ``gap`` nats apart is, whose gap has the variance ``variance``,
    times how much ``games`` more games between them (information ``w``) would narrow it.
    The ladder's information pairing scores its pairings with it too."""
    gap = abs(gap)
    p = sigmoid(gap)
    w = games * p * (1.0 - p)
    doubt = 0.5 * math.erfc(gap / math.sqrt(2.0 * variance))
    return doubt * (variance - variance / (1.0 + w * variance))


class _Links:
    """Who is linked to whom (union-find, joined by the lower index, so each group is
    named by its lowest member), and how many groups there are."""

    __slots__ = ("_parent", "count")

    def __init__(self, size: int) -> None:
        self._parent = list(range(size))
        self.count = size

    def root(self, k: int) -> int:
        parent = self._parent
        while parent[k] != k:
            parent[k] = parent[parent[k]]  # halve the path: later finds are shorter
            k = parent[k]
        return k

    def join(self, i: int, j: int) -> None:
        ri, rj = self.root(i), self.root(j)
        if ri != rj:
            self._parent[max(ri, rj)] = min(ri, rj)
            self.count -= 1

    def groups(self) -> list[int]:
        """Each bot's group: its lowest member's index."""
        return [self.root(k) for k in range(len(self._parent))]
