"""Pure scheduling: which bots meet, who starts, on which opening, in which order.

No I/O and no randomness: the same config always gives the same list, so a resumed run can
match its recorded games to slots by their ids.

How a game is described (:class:`~referee.tournament.slots.ScheduledGame`): ``first`` and
``second`` are the two bots. Their meaning depends on the opening mode:

* ``pie``: ``first`` makes the two-stone setup, ``second`` chooses a colour. Colours are
  not known before the game.
* ``empty``, ``book``, ``random``: ``first`` plays Black, ``second`` plays White (Black
  moves first); ``book`` and ``random`` games also carry the ``opening`` to set up.

Balance: games come in *couples* of two adjacent games between the same bots with the
roles swapped (same opening, when there is one). Both games of a couple share a
``pair_key``, so a report can score them together (pentanomial statistics). Every pair
plays ``games_per_pair / 2`` couples per round, so each bot plays each side of each
opening against each opponent equally.

Order: round by round; inside a round, couple ``j`` of every pair before couple ``j + 1``
of any pair, so a tournament stopped early still has every pair at (almost) the same
number of games. Round-robin pairs are listed in circle-method order (each bot at most once
per sweep), so early games also spread over all bots. Openings are dealt in schedule order,
one per couple, cycling through the list; under ``opening.policy: encounter`` each pairing's
couples are dealt the list from its start instead (every pairing the same openings).
Nothing in round ``r`` depends on the number of rounds: adding rounds appends games and
leaves existing slots unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, overload

from referee.play.records import GameSummary
from referee.play.spec import Opening, OpeningKind
from referee.ratings.report import RunningStandings, Section
from referee.tournament.plans.plan import (
    MAX_SCHEDULE_GAMES,
    Checks,
    Field,
    OpeningPolicy,
    Quiet,
    TestView,
    unfit,
)
from referee.tournament.slots import ScheduledGame

DEFAULT_GAMES_PER_PAIR = 2


def _check_games_per_pair(games_per_pair: int, rounds: int) -> None:
    if games_per_pair < 2 or games_per_pair % 2:
        raise ValueError("games_per_pair must be a positive even number")
    if rounds < 1:
        raise ValueError("rounds must be at least 1")


class _Fixed:
    """What the fixed kinds share: their keys' parse, and a plan that is their whole list."""

    games_per_pair: int
    rounds: int

    def pairings(self, names: Sequence[str]) -> list[tuple[str, str]]:
        raise NotImplementedError

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> FixedSpec:
        return _parse(checks, value, names)

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        return None

    def extent(self) -> dict[str, object]:
        return {"rounds": self.rounds}

    def check(self, field: Field) -> None:
        self.pairings(field.names)

    def games_of(self, field: Field) -> FixedSchedule:
        return FixedSchedule(self, field)

    def describe(self, field: Field) -> str:
        return f"{len(self.games_of(field))} games"

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> FixedPlan:
        return FixedPlan(self.games_of(field))


@dataclass(frozen=True)
class RoundRobinSpec(_Fixed):
    """``{kind: round_robin}``: every pair of bots meets, ``games_per_pair`` games (even, so
    colours and setups balance) per round."""

    kind: ClassVar[str] = "round_robin"
    games_per_pair: int = DEFAULT_GAMES_PER_PAIR
    rounds: int = 1

    def __post_init__(self) -> None:
        _check_games_per_pair(self.games_per_pair, self.rounds)

    def pairings(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """All pairs, in config order within each, circle-method order between them."""
        return _circle_pairs(list(names))

    def fingerprint(self) -> dict[str, object]:
        # ``rounds`` is left out on purpose: a finished tournament may be extended.
        return {"kind": self.kind, "games_per_pair": self.games_per_pair, "challengers": []}

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> RoundRobinSpec:
        return RoundRobinSpec(_int(data["games_per_pair"]), _int(data.get("rounds", 1)))


@dataclass(frozen=True)
class GauntletSpec(_Fixed):
    """``{kind: gauntlet, challengers: [...]}``: each challenger meets every bot that is
    not a challenger (challengers do not meet each other)."""

    kind: ClassVar[str] = "gauntlet"
    games_per_pair: int = DEFAULT_GAMES_PER_PAIR
    rounds: int = 1
    challengers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_games_per_pair(self.games_per_pair, self.rounds)
        if not self.challengers or len(set(self.challengers)) != len(self.challengers):
            raise ValueError("a gauntlet needs distinct challengers")

    def pairings(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """``(challenger, opponent)`` pairs, opponent-major: after each sweep every
        challenger has met the same opponents."""
        unknown = [c for c in self.challengers if c not in names]
        if unknown:
            raise ValueError(f"challengers not among the bots: {unknown}")
        opponents = [n for n in names if n not in self.challengers]
        if not opponents:
            raise ValueError("a gauntlet needs at least one bot that is not a challenger")
        return [(c, o) for o in opponents for c in self.challengers]

    def fingerprint(self) -> dict[str, object]:
        challengers = list(self.challengers)
        return {"kind": self.kind, "games_per_pair": self.games_per_pair, "challengers": challengers}

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> FixedPlan:
        return GauntletPlan(self.games_of(field), self.challengers, field.names)

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> GauntletSpec:
        challengers = data["challengers"]
        if not isinstance(challengers, list):
            raise TypeError("its challengers are not a list")
        games, rounds = _int(data["games_per_pair"]), _int(data.get("rounds", 1))
        return GauntletSpec(games, rounds, tuple(str(c) for c in challengers))


FixedSpec = RoundRobinSpec | GauntletSpec

_KEYS = ("kind", "games_per_pair", "rounds", "challengers")


def _parse(checks: Checks, value: object, names: tuple[str, ...]) -> FixedSpec:
    """``{kind, games_per_pair, rounds, challengers}``: a round robin (the default kind) or
    a gauntlet; any other kind is named as a mistake here (the plans' kinds are listed)."""
    from referee.tournament.plans.kinds import KINDS  # the list of kinds, for the message

    spec = checks.mapping(value, "schedule", _KEYS)
    gauntlet = False
    if "kind" in spec:
        text = checks.string(spec["kind"], "schedule.kind")
        if text not in KINDS:
            kinds = [repr(k) for k in KINDS]
            shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
            checks.fail("schedule.kind", f"expected {', '.join(kinds[:-1])} or {kinds[-1]}, got {shown}")
        gauntlet = text == GauntletSpec.kind
    games = DEFAULT_GAMES_PER_PAIR
    if "games_per_pair" in spec:
        games = checks.integer(spec["games_per_pair"], "schedule.games_per_pair", minimum=1)
        if games % 2:
            checks.fail(
                "schedule.games_per_pair",
                f"expected an even number (each pair plays both sides of every start), got {games}",
            )
    rounds = checks.integer(spec["rounds"], "schedule.rounds", minimum=1) if "rounds" in spec else 1
    challengers: tuple[str, ...] = ()
    if gauntlet:
        challengers = checks.challengers(spec.get("challengers"), names)
        pairs = len(challengers) * (len(names) - len(challengers))
    else:
        if "challengers" in spec:
            checks.fail("schedule.challengers", "only allowed with kind: gauntlet")
        pairs = len(names) * (len(names) - 1) // 2
    total = pairs * games * rounds
    if total > MAX_SCHEDULE_GAMES:
        checks.fail(
            "schedule.rounds" if rounds >= games else "schedule.games_per_pair",
            f"the schedule would have {total:,} games ({pairs:,} pairings x {games:,} games per pair "
            f"x {rounds:,} rounds); the most a tournament can have is {MAX_SCHEDULE_GAMES:,}",
        )
    return GauntletSpec(games, rounds, challengers) if gauntlet else RoundRobinSpec(games, rounds)


def _int(value: object) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def pairings(names: Sequence[str], spec: FixedSpec) -> list[tuple[str, str]]:
    """The pairs that meet, in schedule order. A round-robin pair is written in config
    order; a gauntlet pair is ``(challenger, opponent)``."""
    return spec.pairings(names)


def _circle_pairs(names: list[str]) -> list[tuple[str, str]]:
    """All pairs, sweep by sweep (the circle method): within a sweep no bot appears twice."""
    rank = {name: i for i, name in enumerate(names)}
    ring: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    size = len(ring)
    pairs: list[tuple[str, str]] = []
    for _ in range(size - 1):
        for i in range(size // 2):
            a, b = ring[i], ring[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if rank[a] < rank[b] else (b, a))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return pairs


def schedule_games(
    names: Sequence[str],
    spec: FixedSpec,
    mode: OpeningKind,
    openings: Sequence[Opening] = (),
) -> list[ScheduledGame]:
    """The schedule from its pieces (see the module docstring for the guarantees)."""
    return list(FixedSchedule(spec, Field(tuple(names), mode, tuple(openings))))


class Schedule(Sequence[ScheduledGame]):
    """A schedule known in full before the first game, each game made from its index when
    asked for (:meth:`game`) and found from its slot's text (:meth:`find`): a schedule of a
    million games takes no memory until it is played (as a list, about 370 bytes a game),
    and a plan counts and checks recorded games without a table of the whole schedule."""

    def __len__(self) -> int:
        raise NotImplementedError

    def game(self, k: int) -> ScheduledGame:
        """Game ``k`` (``0 <= k < len(self)``)."""
        raise NotImplementedError

    def find(self, slot: str) -> ScheduledGame | None:
        """The game whose slot is ``slot``, None if none is: the index read from the slot,
        without a pass over the schedule."""
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> ScheduledGame: ...

    @overload
    def __getitem__(self, index: slice) -> list[ScheduledGame]: ...

    def __getitem__(self, index: int | slice) -> ScheduledGame | list[ScheduledGame]:
        if isinstance(index, slice):
            return [self.game(k) for k in range(len(self))[index]]
        return self.game(range(len(self))[index])  # a range's index: negative ones, IndexError

    def __iter__(self) -> Iterator[ScheduledGame]:
        return map(self.game, range(len(self)))


class _NoGames(Schedule):
    def __len__(self) -> int:
        return 0

    def find(self, slot: str) -> ScheduledGame | None:
        return None


NO_GAMES: Schedule = _NoGames()
"""The schedule of a run before its plan is made."""


class FixedSchedule(Schedule):
    """A round robin's or a gauntlet's games in schedule order (see :class:`Schedule`).
    Round ``r`` holds couple ``j`` of every pair before couple ``j + 1``; a couple is two
    games with the roles swapped (see the module docstring)."""

    def __init__(self, spec: _Fixed, field: Field) -> None:
        self.pairs = spec.pairings(field.names)
        self.couples = spec.games_per_pair // 2
        self.rounds = spec.rounds
        self.field = field
        self.per_round = 2 * self.couples * len(self.pairs)
        self._slots = {pair: f"-{pair[0]}+{pair[1]}-" for pair in self.pairs}
        self._pair_of = {text: k for k, text in enumerate(self._slots.values())}

    def __len__(self) -> int:
        return self.rounds * self.per_round

    def game(self, k: int) -> ScheduledGame:
        field = self.field
        round_, rest = divmod(k, self.per_round)
        round_ += 1
        couple, again = divmod(rest, 2)
        j, p = divmod(couple, len(self.pairs))
        x, y = pair = self.pairs[p]
        # Alternate which bot leads a couple from round to round, so even a tournament
        # stopped in the middle of a couple is not biased one way.
        lead, other = (x, y) if round_ % 2 else (y, x)
        if again:
            lead, other = other, lead
        number = 2 * j + 1 + again
        middle = self._slots[pair]
        dealt = k // 2 if field.policy is OpeningPolicy.ROUND else (round_ - 1) * self.couples + j
        return ScheduledGame(
            slot=f"r{round_}{middle}{number:02d}",
            index=k,
            round=round_,
            pair=pair,
            game=number,
            mode=field.mode,
            first=lead,
            second=other,
            pair_key=f"r{round_}{middle}c{j + 1:02d}",
            opening=field.opening(dealt),
        )

    def find(self, slot: str) -> ScheduledGame | None:
        # r{round}-{x}+{y}-{game:02d}
        found = _SLOT.fullmatch(slot)
        if found is None:
            return None
        round_, middle, number = int(found[1]), found[2], int(found[3])
        p = self._pair_of.get(middle)
        if p is None or not 1 <= round_ <= self.rounds or not 1 <= number <= 2 * self.couples:
            return None
        couple = (number - 1) // 2
        game = self.game(
            (round_ - 1) * self.per_round + 2 * (couple * len(self.pairs) + p) + (number - 1) % 2
        )
        return game if game.slot == slot else None  # "r01-...", "-003": not how it is written


_SLOT = re.compile(r"r(\d+)(-.*\+.*-)(\d+)", re.ASCII | re.DOTALL)


class FixedPlan(Quiet):
    """A schedule known in full before the first game (round robin, gauntlet)."""

    open_ended = False
    waits_for_games_in_flight = False

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule

    @property
    def total(self) -> int:
        return len(self.schedule)

    def games(self, done: set[str]) -> FixedGames:
        schedule = self.schedule
        played = sum(1 for slot in done if schedule.find(slot) is not None)  # no pass over it
        pending = (g for g in schedule if g.slot not in done) if done else iter(schedule)
        return FixedGames(pending, len(schedule) - played, len(schedule))

    def record(self, summary: GameSummary) -> None:
        return None

    def describe(self) -> str:
        return f"{self.total} games"

    def misfits(self, found: Iterable[GameSummary]) -> list[GameSummary]:
        find = self.schedule.find  # each found by its slot, not a table of the whole schedule

        def fits(slot: str, labels: tuple[str, ...]) -> bool:
            game = find(slot)
            return game is not None and (game.first, game.second) == labels

        return unfit(found, fits)


class GauntletPlan(FixedPlan):
    """A gauntlet's schedule, whose standings lead with each challenger's result against
    each opponent (what cutechess and fastchess print): the opponents never meet, so the
    joint leaderboard's order among them says little."""

    def __init__(self, schedule: Schedule, challengers: Sequence[str], names: Sequence[str]) -> None:
        super().__init__(schedule)
        self.challengers = tuple(challengers)
        self.opponents = tuple(n for n in names if n not in self.challengers)

    def sections(self, recorded: Sequence[GameSummary]) -> list[Section]:
        return [challenger_section(recorded, self.challengers, self.opponents)]


def _elo_text(elo: float, low: float, high: float, bound: str | None) -> tuple[str, str]:
    """An Elo difference and its interval as the leaderboard shows them (a bound as ``> X``)."""

    def num(x: float) -> str:
        return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.0f}"

    if bound == "lower" or elo == math.inf:
        shown = f"> {num(low)}"
    elif bound == "upper" or elo == -math.inf:
        shown = f"< {num(high)}"
    else:
        shown = num(elo)
    return shown, f"[{num(low)}, {num(high)}]"


def _finite(x: float) -> float | None:
    return round(x, 1) if math.isfinite(x) else None


def challenger_section(
    recorded: Sequence[GameSummary], challengers: Sequence[str], opponents: Sequence[str]
) -> Section:
    """Each challenger against each opponent, from their games alone: W-D-L, score, and the
    Elo difference (challenger minus opponent) with its 95% interval, by the same
    likelihood as the leaderboard's. With more than one opponent, a word on why the
    leaderboard's order among the opponents is not a result."""
    rows: list[tuple[object, ...]] = []
    data: list[dict[str, object]] = []
    # Each match's games counted in one pass over the run (standings() of them, as they come).
    matches = {frozenset((c, o)): RunningStandings([c, o]) for c in challengers for o in opponents}
    for r in recorded:
        match = None if r.is_void else matches.get(frozenset(r.labels))
        if match is not None:
            match.add(r)
    for challenger in challengers:
        for opponent in opponents:
            match = matches[frozenset((challenger, opponent))]
            if not match.records:
                rows.append((challenger, opponent, 0, "0-0-0", "", "", ""))
                continue
            st = match.standings(anchor=opponent, warm=False)  # bootstrap > 0: intervals
            line = next(x for x in st.lines if x.name == challenger)
            if line.elo is None or line.elo_low is None or line.elo_high is None:  # pragma: no cover
                continue  # it has games, so it has a rating
            elo, interval = _elo_text(line.elo, line.elo_low, line.elo_high, line.elo_bound)
            wdl = f"{line.wins}-{line.draws}-{line.losses}"
            rows.append((challenger, opponent, line.games, wdl, f"{line.score_percent:.1f}", elo, interval))
            data.append(
                {"challenger": challenger, "opponent": opponent, "games": line.games,
                 "wins": line.wins, "draws": line.draws, "losses": line.losses,
                 "elo": _finite(line.elo), "elo_low": _finite(line.elo_low),
                 "elo_high": _finite(line.elo_high)}
            )  # fmt: skip
    text = ""
    if len(opponents) > 1:
        text = (
            f"The opponents ({', '.join(opponents)}) never met each other: their places in the "
            "leaderboard below are not comparable with each other, only each one's result against "
            f"the challenger{'s' if len(challengers) > 1 else ''} above."
        )
    return Section(
        key="gauntlet",
        title=f"{' and '.join(challengers)} against each opponent",
        headers=("challenger", "opponent", "games", "W-D-L", "score%", "Elo diff", "95% interval"),
        rows=tuple(rows),
        text=text,
        data={"matches": data},
        lead=True,
    )


class FixedGames:
    """The games of a fixed schedule still to play, in order."""

    def __init__(self, pending: Iterator[ScheduledGame], count: int, total: int) -> None:
        self._games = pending
        self.remaining: int | None = count
        self.resumed = total - count
        self._left = count

    def available(self) -> bool:
        return self._left > 0

    def __iter__(self) -> Iterator[ScheduledGame]:
        return self

    def __next__(self) -> ScheduledGame:
        game = next(self._games)
        self._left -= 1
        return game
