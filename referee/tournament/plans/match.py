"""A match as a schedule: ``games`` games between the two bots of the config, for
``vastuz match`` (which writes a tournament config of this kind and runs the one runner).

Game ``i`` (from 1) has the slot ``g000i`` and the first bot listed as its first bot (the
setup maker, or Black) when ``i`` is odd, the second when it is even, so the two alternate.
Games ``2k - 1`` and ``2k`` are a colour-reversed pair: they share the pair key
``A+B-c000k`` and, for book and random openings, the ``k``-th opening. Unlike a round
robin, the number of games may be odd (the last game then has no partner). These are the
slots and keys the match folders of earlier versions used, so their records read the same.

``games`` is not part of the fingerprint, so a finished match can be extended with more
games (with random openings the opening list, which is, grows with it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from referee.play.records import GameSummary
from referee.tournament.plans.fixed import FixedPlan, Schedule
from referee.tournament.plans.plan import MAX_SCHEDULE_GAMES, Checks, Field, TestView
from referee.tournament.slots import ScheduledGame, colour_reversed


@dataclass(frozen=True)
class MatchSpec:
    """``{kind: match, games: N}`` between exactly two bots."""

    kind: ClassVar[str] = "match"
    games: int

    def __post_init__(self) -> None:
        if not 1 <= self.games <= MAX_SCHEDULE_GAMES:
            raise ValueError(f"a match has 1 to {MAX_SCHEDULE_GAMES:,} games")

    @classmethod
    def parse(cls, checks: Checks, value: object, names: tuple[str, ...]) -> MatchSpec:
        spec = checks.mapping(value, "schedule", ("kind", "games"))
        if len(names) != 2:
            checks.fail("bots", f"a match is between exactly two bots, got {len(names)}")
        if "games" not in spec:
            checks.fail("schedule.games", "missing (a match needs its number of games)")
        games = checks.integer(spec["games"], "schedule.games", minimum=1, maximum=MAX_SCHEDULE_GAMES)
        return MatchSpec(games)

    @staticmethod
    def from_fingerprint(data: dict[str, object]) -> MatchSpec:
        games = data.get("games", 1)  # in the manifest's extent, not the fingerprint
        if type(games) is not int:
            raise TypeError(f"games: expected an integer, got {games!r}")
        return MatchSpec(games)

    def extent(self) -> dict[str, object]:
        return {"games": self.games}

    def fingerprint(self) -> dict[str, object]:
        return {"kind": self.kind}

    def games_of(self, field: Field) -> MatchSchedule:
        if len(field.names) != 2:
            raise ValueError(f"a match is between exactly two bots, got {len(field.names)}")
        return MatchSchedule(self.games, field)

    def check(self, field: Field) -> None:
        self.games_of(field)

    def describe(self, field: Field) -> str:
        return f"a match of {self.games} games"

    def test(self, field: Field, recorded: Iterable[GameSummary]) -> TestView | None:
        return None

    def make_plan(self, field: Field, recorded: Iterable[GameSummary] = ()) -> FixedPlan:
        return FixedPlan(self.games_of(field))


class MatchSchedule(Schedule):
    """A match's games (see the module docstring), each made from its index when asked for."""

    def __init__(self, games: int, field: Field) -> None:
        self.games = games
        self.field = field
        self.a, self.b = field.names

    def __len__(self) -> int:
        return self.games

    def game(self, k: int) -> ScheduledGame:
        a, b = self.a, self.b
        couple, again = divmod(k, 2)
        return colour_reversed(
            a,
            b,
            mode=self.field.mode,
            pair_key=f"{a}+{b}-c{couple + 1:04d}",
            slot="g{:04d}",
            index=k - again,
            game=k - again + 1,
            opening=self.field.opening(couple),
        )[again]

    def find(self, slot: str) -> ScheduledGame | None:
        found = _SLOT.fullmatch(slot)
        if found is None:
            return None
        k = int(found[1]) - 1
        if not 0 <= k < self.games:
            return None
        game = self.game(k)
        return game if game.slot == slot else None  # "g00001": not how it is written


_SLOT = re.compile(r"g(\d+)", re.ASCII)
