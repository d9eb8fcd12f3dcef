"""An SPRT as a schedule: colour-reversed game pairs, candidate against baseline, until the
test decides.

Unlike a round robin, the list of games is not known in advance: :meth:`SprtSchedule.games`
is an iterator the runner's workers pull from, and before it hands out the first game of
a new pair it looks at the test on everything recorded so far. Once the LLR has crossed a
bound (or ``max_games`` is reached) it starts no new pair; games of pairs already begun
are still handed out and played, so every recorded game belongs to a complete pair and
the decision is taken on all of them.

Pair ``k`` (from 1) has the slots ``sprt-0000k-1`` (the candidate first: it makes the pie
setup, or plays Black) and ``sprt-0000k-2`` (the baseline first), sharing the pair key
``sprt-0000k`` and, for book and random openings, one opening. A resumed run rebuilds the
test from the results file's summaries: a decided test plays nothing, a half-played pair
is completed first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from referee.play.records import GameSummary
from referee.play.spec import Opening, OpeningKind
from referee.ratings.sprt import Decision, Sprt, SprtStatus
from referee.tournament.plans.fixed import PairKeys, ScheduledGame

PAIRS = PairKeys("sprt-")
pair_key = PAIRS.key
pair_number = PAIRS.number


@dataclass(frozen=True)
class SprtPlan:
    """What the test plays: the two bots, the openings, the test and its cap."""

    test: Sprt
    candidate: str
    baseline: str
    mode: OpeningKind
    openings: tuple[Opening, ...] = ()
    max_games: int = 100_000

    def __post_init__(self) -> None:
        if self.candidate == self.baseline:
            raise ValueError("an SPRT needs two different bots")
        if self.max_games < 2 or self.max_games % 2:
            raise ValueError("max_games must be a positive even number (games come in pairs)")
        if self.mode in (OpeningKind.BOOK, OpeningKind.RANDOM) and not self.openings:
            raise ValueError(f"a {self.mode.value} SPRT needs at least one opening")

    def pair(self, number: int) -> tuple[ScheduledGame, ScheduledGame]:
        """The two games of pair ``number`` (from 1)."""
        fixed = self.mode in (OpeningKind.BOOK, OpeningKind.RANDOM)
        opening = self.openings[(number - 1) % len(self.openings)] if fixed else None
        key = pair_key(number)
        bots = ((self.candidate, self.baseline), (self.baseline, self.candidate))
        return tuple(  # type: ignore[return-value]
            ScheduledGame(
                slot=f"{key}-{k + 1}",
                index=2 * (number - 1) + k,
                round=1,
                pair=(self.candidate, self.baseline),
                game=k + 1,
                mode=self.mode,
                first=first,
                second=second,
                pair_key=key,
                opening=opening,
            )
            for k, (first, second) in enumerate(bots)
        )


class SprtSchedule:
    """The test's state and the games it asks for next."""

    def __init__(self, plan: SprtPlan, recorded: Iterable[GameSummary] = ()) -> None:
        self.plan = plan
        self.counts = [0, 0, 0, 0, 0]
        self._wdl = [0, 0, 0]
        self._points: dict[int, dict[int, float]] = {}  # pair -> game (1, 2) -> candidate's points
        self.started = 0  # pairs handed out or found in the results
        for summary in recorded:
            self.record(summary)

    # ------------------------------------------------------------------ results
    def record(self, summary: GameSummary) -> None:
        """Take one finished game into the test (a void game counts for nothing: it is
        played again)."""
        number = pair_number(summary.pair_key)
        if number is None or summary.is_void:
            return
        self.started = max(self.started, number)
        game = 1 if summary.slot.endswith("-1") else 2
        candidate_seat = summary.labels.index(self.plan.candidate)
        points = 0.5 if summary.winner is None else 1.0 if summary.winner == candidate_seat else 0.0
        games = self._points.setdefault(number, {})
        if game in games:
            return  # a second record of a slot (the runner keeps the first)
        games[game] = points
        self._wdl[0 if points == 1 else 1 if points == 0.5 else 2] += 1
        if len(games) == 2:
            self.counts[round(2 * (games[1] + games[2]))] += 1

    def status(self) -> SprtStatus:
        return self.plan.test.status(self.counts)

    @property
    def wdl(self) -> tuple[int, int, int]:
        """The candidate's wins, draws and losses over every recorded game."""
        return (self._wdl[0], self._wdl[1], self._wdl[2])

    @property
    def total(self) -> int:
        """The most games the test can ask for (its cap)."""
        return self.plan.max_games

    def all_games(self) -> Iterator[ScheduledGame]:
        """Every game the test could ever ask for, up to its cap (to check adopted results)."""
        for number in range(1, self.plan.max_games // 2 + 1):
            yield from self.plan.pair(number)

    @property
    def games_recorded(self) -> int:
        return sum(len(g) for g in self._points.values())

    @property
    def decided(self) -> Decision | None:
        return self.status().decision

    @property
    def capped(self) -> bool:
        """``max_games`` reached (or every further pair would pass it)."""
        return 2 * self.started >= self.plan.max_games

    # ------------------------------------------------------------------ what to play
    def games(self, done: set[str]) -> SprtGames:
        """The games still to play (see :class:`SprtGames`): first the missing games of
        pairs already begun (a resumed run), then new pairs while the test is undecided
        and under its cap. ``done`` holds the slots already played."""
        return SprtGames(self, done)


class SprtGames:
    """The iterator the runner's workers pull games from.

    Unlike a generator it is asked again after it has said "nothing now": a worker that
    found nothing waits for the games in flight, and if their results took the LLR back
    between the bounds the test goes on, so the next call hands out a new pair.
    """

    def __init__(self, schedule: SprtSchedule, done: set[str]) -> None:
        self.schedule = schedule
        self.pending = [
            game
            for number in range(1, schedule.started + 1)
            for game in schedule.plan.pair(number)
            if game.slot not in done
        ]

    def __iter__(self) -> SprtGames:
        return self

    def available(self) -> bool:
        """Whether :meth:`__next__` would hand out a game now."""
        s = self.schedule
        return bool(self.pending) or (s.decided is None and not s.capped)

    def __next__(self) -> ScheduledGame:
        if self.pending:
            return self.pending.pop(0)
        s = self.schedule
        if s.decided is not None or s.capped:
            raise StopIteration
        s.started += 1
        first, second = s.plan.pair(s.started)
        self.pending.append(second)
        return first
