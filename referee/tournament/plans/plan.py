"""What to play next: the one interface the runner asks, whatever the schedule's kind.

A :class:`Plan` hands out games lazily (:meth:`Plan.games`) and hears about each finished
game (:meth:`Plan.record`), so a schedule that reacts to results (an SPRT that stops when
it has decided) and a fixed list (round robin, gauntlet) run through the same loop. Where
the games run (the runner's local pool, or another executor) is not its concern.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from referee.play.records import GameSummary
from referee.tournament.config.values import ScheduleKind, TournamentConfig
from referee.tournament.plans.adaptive import AdaptivePlan, AdaptiveSchedule
from referee.tournament.plans.fixed import ScheduledGame, build_schedule
from referee.tournament.plans.sprt import SprtPlan, SprtSchedule


class Plan(Protocol):
    @property
    def total(self) -> int:
        """The most games the plan can ask for (a fixed schedule: exactly this many)."""
        ...

    def games(self, done: set[str]) -> Iterator[ScheduledGame]:
        """The games still to play, in order, given the slots already played."""
        ...

    def record(self, summary: GameSummary) -> None:
        """A game has finished and is on disk."""
        ...


class FixedPlan:
    """A schedule known in full before the first game (round robin, gauntlet)."""

    def __init__(self, schedule: list[ScheduledGame]) -> None:
        self.schedule = schedule

    @property
    def total(self) -> int:
        return len(self.schedule)

    def games(self, done: set[str]) -> Iterator[ScheduledGame]:
        return (g for g in self.schedule if g.slot not in done)

    def record(self, summary: GameSummary) -> None:
        return None


def sprt_plan(config: TournamentConfig) -> SprtPlan:
    """The SPRT of a config whose schedule is ``sprt``: the first bot is the candidate."""
    spec = config.schedule
    assert spec.sprt is not None
    return SprtPlan(
        test=spec.sprt,
        candidate=config.bots[0].name,
        baseline=config.bots[1].name,
        mode=config.opening.kind,
        openings=config.opening.openings,
        max_games=spec.max_games,
    )


def adaptive_plan(config: TournamentConfig) -> AdaptivePlan:
    spec = config.schedule
    return AdaptivePlan(
        tuple(b.name for b in config.bots),
        config.opening.kind,
        config.opening.openings,
        games=spec.adaptive_games,
        floor=spec.adaptive_floor,
    )


def make_plan(
    config: TournamentConfig, recorded: Iterable[GameSummary] = ()
) -> FixedPlan | SprtSchedule | AdaptiveSchedule:
    """The plan of a validated config, given the games already recorded (the latest
    record of each slot; an SPRT or an adaptive run rebuilds its state from them)."""
    if config.schedule.kind is ScheduleKind.SPRT:
        return SprtSchedule(sprt_plan(config), recorded)
    if config.schedule.kind is ScheduleKind.ADAPTIVE:
        return AdaptiveSchedule(adaptive_plan(config), recorded)
    return FixedPlan(build_schedule(config))


def every_game(config: TournamentConfig) -> Iterator[ScheduledGame]:
    """Every game the config's plan could ask for (all of a fixed schedule; an SPRT's up
    to its cap), without playing anything."""
    if config.schedule.kind is ScheduleKind.SPRT:
        return SprtSchedule(sprt_plan(config)).all_games()
    return iter(build_schedule(config))
