"""What to play next: the one interface the runner asks, whatever the schedule's kind.

A schedule kind is two things, both here as protocols: a :class:`ScheduleSpec` (the frozen
value the config's ``schedule`` key becomes: its invariants, its fingerprint, how it is
described, and :meth:`ScheduleSpec.make_plan`) and the :class:`Plan` it makes (the state of
a run: the games to play next, what it heard of each finished game, and what it adds to
the run's output, standings and page). The runner, the store and the CLI talk to these two
only; a new kind is one module in this package plus its line in :mod:`.kinds`.

Where the games run (in this process, referee processes, a cluster) is not a plan's
concern, nor is anything on disk: plans are pure and deterministic.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, NoReturn, Protocol, runtime_checkable

from referee.play.records import GameSummary
from referee.play.spec import Opening, OpeningKind
from referee.ratings.report import Section
from referee.ratings.sprt import Sprt, SprtStatus
from referee.tournament.slots import ScheduledGame

MAX_SCHEDULE_GAMES = 1_000_000
"""Games a schedule may have (a config is written by a person: past this, a mistake)."""


class Checks(Protocol):
    """The config's checks a spec parses its keys with (the config's parser is one): each
    names the key path in its error, which stops the parse."""

    def fail(self, key: str | None, message: str) -> NoReturn: ...

    def mapping(
        self, value: object, path: str, allowed: Sequence[str], *, what: str = "a mapping"
    ) -> dict[str, object]: ...

    def integer(
        self, value: object, path: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int: ...

    def string(self, value: object, path: str) -> str: ...

    def probability(self, value: object, path: str) -> float: ...

    def elo_value(self, value: object, path: str) -> float: ...

    def challengers(self, value: object, names: tuple[str, ...]) -> tuple[str, ...]: ...

    def rated_seeds(self, value: object, key: str, names: Sequence[str]) -> tuple[str, ...]:
        """The bots by their ratings in the standings file ``value`` names, strongest first."""
        ...


def even(checks: Checks, value: object, key: str, why: str, *, minimum: int = 2) -> int:
    """An even integer from ``minimum`` up to :data:`MAX_SCHEDULE_GAMES`."""
    number = checks.integer(value, key, minimum=minimum, maximum=MAX_SCHEDULE_GAMES)
    if number % 2:
        checks.fail(key, f"expected an even number ({why}), got {number}")
    return number


class OpeningPolicy(str, enum.Enum):
    """How a schedule of several pairings deals its openings (``opening.policy``).
    ``round``: one per colour-reversed couple in schedule order, cycling through the list
    (so pairings get different openings). ``encounter``: every pairing gets the same
    openings in the same order (its couple ``k`` plays opening ``k``), so no bot is rated
    on easier openings than another (fastchess and cutechess users ask for this)."""

    ROUND = "round"
    ENCOUNTER = "encounter"


@dataclass(frozen=True)
class Field:
    """What a plan deals out besides its own settings: the bots (in config order, which
    fixes pairings and an SPRT's candidate), the openings and how they are dealt."""

    names: tuple[str, ...]
    mode: OpeningKind
    openings: tuple[Opening, ...] = ()
    policy: OpeningPolicy = OpeningPolicy.ROUND

    def __post_init__(self) -> None:
        if len(self.names) < 2 or len(set(self.names)) != len(self.names):
            raise ValueError("need at least two bots with distinct names")
        if self.fixed and not self.openings:
            raise ValueError(f"a {self.mode.value} schedule needs at least one opening")

    @property
    def fixed(self) -> bool:
        """Whether games start from an opening the referee sets (book, random)."""
        return self.mode in (OpeningKind.BOOK, OpeningKind.RANDOM)

    def opening(self, dealt: int) -> Opening | None:
        """The opening of the ``dealt``-th colour-reversed pair (from 0), dealt in turn."""
        return self.openings[dealt % len(self.openings)] if self.fixed else None


class Pending(Protocol):
    """The games still to play, pulled one at a time by the runner's workers. Unlike a
    generator it may be asked again after it said "nothing now" (an SPRT whose games in
    flight took the test back between its bounds goes on)."""

    @property
    def resumed(self) -> int:
        """Games of the plan already played before this run."""
        ...

    @property
    def remaining(self) -> int | None:
        """Exactly this many games are left, or None: the plan decides as it goes."""
        ...

    def available(self) -> bool:
        """Whether :meth:`__next__` would hand out a game now."""
        ...

    def __iter__(self) -> Iterator[ScheduledGame]: ...

    def __next__(self) -> ScheduledGame: ...


@dataclass(frozen=True)
class TestView:
    """A sequential test a plan runs, as the standings and the page show it: the test,
    its candidate, where it stands and that in words."""

    test: Sprt
    candidate: str
    status: SprtStatus
    words: str
    decided: bool


class Plan(Protocol):
    """A run's schedule state. Everything kind-specific the runner prints or adds."""

    @property
    def total(self) -> int:
        """The most games the plan can ask for (a fixed schedule: exactly this many)."""
        ...

    @property
    def open_ended(self) -> bool:
        """Whether the run usually ends before ``total`` (no "n of total", no ETA)."""
        ...

    @property
    def waits_for_games_in_flight(self) -> bool:
        """Whether a worker that found nothing to play should wait for the games in flight
        before it gives up (their results may ask for more)."""
        ...

    def games(self, done: set[str]) -> Pending:
        """The games still to play, in order, given the slots already played."""
        ...

    def record(self, summary: GameSummary) -> None:
        """A game has finished and is on disk."""
        ...

    def describe(self) -> str:
        """The run header's words for what is played (``20 games``, ``SPRT A vs B ...``)."""
        ...

    def after_game(self, every: int) -> list[str]:
        """Lines to print after a game is recorded (``every``: the standings period)."""
        ...

    def end_lines(self) -> list[str]:
        """Lines to print when the run ends."""
        ...

    def test(self) -> TestView | None:
        """The sequential test this plan runs, if any (for the standings and the page)."""
        ...

    def state(self) -> str | None:
        """Where the plan stands, for the run's progress line (a Swiss's round, a knockout's
        bracket); None when the game counts say it all."""
        ...

    def sections(self, recorded: Sequence[GameSummary]) -> list[Section]:
        """The kind's own parts of the standings of ``recorded`` (the latest record of each
        slot): a Swiss's tie-breaks, a knockout's bracket. Built from ``recorded`` alone, not
        the plan's live state: the runner may ask from a worker thread while games end."""
        ...

    def misfits(self, found: Iterable[GameSummary]) -> list[GameSummary]:
        """The games among ``found`` that cannot be this plan's: not one of its slots, or
        not with the bots in the seats that slot names (pasted from another tournament,
        forged, or found without a manifest by ``--adopt``)."""
        ...


class Quiet:
    """The defaults of a plan that adds nothing of its own to the run's output, standings or
    page (it runs no test)."""

    def after_game(self, every: int) -> list[str]:
        return []

    def end_lines(self) -> list[str]:
        return []

    def test(self) -> TestView | None:
        return None

    def state(self) -> str | None:
        return None

    def sections(self, recorded: Sequence[GameSummary]) -> list[Section]:
        return []


class ScheduleSpec(Protocol):
    """The frozen value of a config's ``schedule`` key, for one kind."""

    kind: ClassVar[str]

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> ScheduleSpec:
        """The spec from the ``schedule`` mapping (its ``kind`` already read), every
        mistake a failed check naming its key."""
        ...

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> ScheduleSpec:
        """The spec back from a manifest's ``fingerprint.schedule`` (``vastuz report``);
        KeyError, TypeError or ValueError when it is not one."""
        ...

    def fingerprint(self) -> dict[str, object]:
        """What decides the games, for the manifest (a resume compares it)."""
        ...

    def extent(self) -> dict[str, object]:
        """What the fingerprint leaves out so that a run may grow (``rounds``, a match's
        ``games``): kept in the manifest beside it, so a report knows every slot."""
        ...

    def describe(self, field: Field) -> str:
        """What the run plays, in words, before anything is played (``--check``)."""
        ...

    def check(self, field: Field) -> None:
        """Raise ValueError if this schedule cannot be played with ``field``'s bots."""
        ...

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        """The sequential test of these recorded games, if the kind runs one (a report
        rebuilds it from the folder without a plan)."""
        ...

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> Plan:
        """The plan, given the games already recorded (the latest record of each slot; a
        plan that reacts to results rebuilds its state from them). Raises ValueError for
        recorded games that cannot belong to it."""
        ...


@runtime_checkable
class SeatedGames(Protocol):
    """Recorded games that give each one's slot and labels themselves, without making its
    summary (a run's summaries kept in columns:
    :class:`~referee.tournament.store.summary_log.SummaryLog`)."""

    def seats(self) -> Iterator[tuple[str, tuple[str, str]]]:
        """Each game's slot and labels, in order."""
        ...

    def __getitem__(self, index: int) -> GameSummary: ...


def unfit(found: Iterable[GameSummary], fits: Callable[[str, tuple[str, ...]], bool]) -> list[GameSummary]:
    """The games of ``found`` whose slot and labels do not ``fit``: a summary is made only
    for those when ``found`` gives its seats itself (:class:`SeatedGames`)."""
    if isinstance(found, SeatedGames):
        return [found[k] for k, (slot, labels) in enumerate(found.seats()) if not fits(slot, tuple(labels))]
    return [r for r in found if not fits(r.slot, tuple(r.labels))]


def misfits_of(games: Iterable[ScheduledGame], found: Iterable[GameSummary]) -> list[GameSummary]:
    """:meth:`Plan.misfits` for a plan that can list every game it may ask for."""
    seats: dict[str, tuple[str, ...]] = {game.slot: (game.first, game.second) for game in games}
    return unfit(found, lambda slot, labels: seats.get(slot) == labels)
