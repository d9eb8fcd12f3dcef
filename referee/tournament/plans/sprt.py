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

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from referee.play.records import GameSummary
from referee.play.spec import Opening, OpeningKind
from referee.ratings.report import Section
from referee.ratings.sprt import Decision, Model, Sprt, SprtStatus
from referee.tournament.plans.plan import Checks, Field, TestView, even, misfits_of
from referee.tournament.slots import PairKeys, ScheduledGame, colour_reversed

DEFAULT_MAX_GAMES = 100_000

PAIRS = PairKeys("sprt-")
pair_key = PAIRS.key
pair_number = PAIRS.number


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class SprtSpec:
    """``{kind: sprt, elo0, elo1, alpha, beta, model, max_games}``: the test between the
    first bot listed (the candidate) and the second (the baseline), capped at
    ``max_games``."""

    kind: ClassVar[str] = "sprt"
    sprt: Sprt
    max_games: int = DEFAULT_MAX_GAMES

    def __post_init__(self) -> None:
        if self.max_games < 2 or self.max_games % 2:
            raise ValueError("max_games must be a positive even number (games come in pairs)")

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> SprtSpec:
        """With exactly two bots: the first listed is the candidate, the second the baseline."""
        spec = checks.mapping(
            value, "schedule", ("kind", "elo0", "elo1", "alpha", "beta", "model", "max_games")
        )
        if len(names) != 2:
            checks.fail(
                "bots",
                "an SPRT is between exactly two bots (the candidate first, then the baseline), "
                f"got {len(names)}",
            )
        for required in ("elo0", "elo1"):
            if required not in spec:
                checks.fail(f"schedule.{required}", "missing (an SPRT needs elo0 and elo1)")
        elo0, elo1 = (checks.elo_value(spec[k], f"schedule.{k}") for k in ("elo0", "elo1"))
        if not elo0 < elo1:
            checks.fail("schedule.elo1", f"expected elo1 above elo0, got [{elo0:g}, {elo1:g}]")
        alpha, beta = (checks.probability(spec.get(k, 0.05), f"schedule.{k}") for k in ("alpha", "beta"))
        if alpha + beta >= 1:
            checks.fail("schedule.beta", f"expected alpha + beta below 1, got {alpha:g} + {beta:g}")
        model = Model.NORMALIZED
        if "model" in spec:
            text = checks.string(spec["model"], "schedule.model")
            if text not in {m.value for m in Model}:
                shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
                checks.fail("schedule.model", f"expected 'normalized' or 'logistic', got {shown}")
            model = Model(text)
        max_games = DEFAULT_MAX_GAMES
        if "max_games" in spec:
            max_games = even(checks, spec["max_games"], "schedule.max_games", "games come in pairs")
        return SprtSpec(Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model), max_games)

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> SprtSpec:
        """The spec back from a manifest's ``fingerprint.schedule`` (``vastuz report``)."""
        s = data["sprt"]
        if not isinstance(s, dict):
            raise TypeError("its sprt is not a mapping")
        elo0, elo1, alpha, beta = (_number(s[k]) for k in ("elo0", "elo1", "alpha", "beta"))
        max_games = s["max_games"]
        if type(max_games) is not int:
            raise TypeError(f"max_games: expected an integer, got {max_games!r}")
        return SprtSpec(Sprt(elo0, elo1, alpha, beta, Model(s["model"])), max_games)

    def fingerprint(self) -> dict[str, object]:
        t = self.sprt
        return {
            "kind": self.kind,
            "games_per_pair": 2,
            "challengers": [],
            "sprt": {
                "elo0": t.elo0,
                "elo1": t.elo1,
                "alpha": t.alpha,
                "beta": t.beta,
                "model": t.model.value,
                "max_games": self.max_games,
            },
        }

    def extent(self) -> dict[str, object]:
        return {}

    def plan(self, field: Field) -> SprtPlan:
        if len(field.names) != 2:
            raise ValueError(f"an SPRT is between exactly two bots, got {len(field.names)}")
        return SprtPlan(self.sprt, field.names[0], field.names[1], field.mode, field.openings, self.max_games)

    def check(self, field: Field) -> None:
        self.plan(field)

    def describe(self, field: Field) -> str:
        return SprtSchedule(self.plan(field)).describe()

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> SprtSchedule:
        return SprtSchedule(self.plan(field), recorded)

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        return self.make_plan(field, [r for r in recorded if not r.is_void]).test()


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
        key = pair_key(number)
        return colour_reversed(
            self.candidate,
            self.baseline,
            mode=self.mode,
            pair_key=key,
            slot=key + "-{}",
            index=2 * (number - 1),
            opening=Field((self.candidate, self.baseline), self.mode, self.openings).opening(number - 1),
        )


class SprtSchedule:
    """The test's state and the games it asks for next (a :class:`~.plan.Plan`)."""

    open_ended = True
    waits_for_games_in_flight = True

    def __init__(self, plan: SprtPlan, recorded: Iterable[GameSummary] = ()) -> None:
        self.plan = plan
        self._pairs_shown = 0
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

    # ------------------------------------------------------------------ what it says
    def describe(self) -> str:
        s, p = self.plan.test, self.plan
        return (
            f"SPRT {p.candidate} (candidate) vs {p.baseline} (baseline), "
            f"[{s.elo0:g}, {s.elo1:g}] {s.model.value}, alpha {s.alpha:g}, beta {s.beta:g}, "
            f"at most {p.max_games} games"
        )

    def after_game(self, every: int) -> list[str]:
        """The test's line whenever a pair completes (every ``every / 2`` pairs)."""
        status = self.status()
        period = max(1, every // 2)
        if status.pairs == self._pairs_shown or status.pairs % period:
            return []
        self._pairs_shown = status.pairs
        return [f"    SPRT {status.line(self.wdl)}"]

    def end_lines(self) -> list[str]:
        status = self.status()
        return [
            f"SPRT: {status.line(self.wdl)}",
            f"SPRT: {status.words(capped=self.capped)}",
            # Two intervals of one quantity are shown: said which is which, once.
            "note: the SPRT line's Elo and nElo intervals are fastchess's (a normal approximation on "
            "the pair scores); the opening pairs table's pair Elo interval is a posterior one of the "
            "same pairs (it stays finite and asymmetric near a perfect score), so the two differ",
        ]

    def state(self) -> str | None:
        return None  # its own line says where the test stands (after_game)

    def test(self) -> TestView:
        status = self.status()
        return TestView(
            test=self.plan.test,
            candidate=self.plan.candidate,
            status=status,
            words=status.words(capped=self.capped),
            decided=status.decision is not None,
        )

    def sections(self, recorded: Sequence[GameSummary]) -> list[Section]:
        return []  # the test is the standings' own "sprt" part

    def misfits(self, found: Iterable[GameSummary]) -> list[GameSummary]:
        return misfits_of(self.all_games(), found)

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

    remaining = None  # decided as it goes

    def __init__(self, schedule: SprtSchedule, done: set[str]) -> None:
        self.schedule = schedule
        self.resumed = len(done)
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
