"""The schedule kinds, by the name the config's ``schedule.kind`` gives them: the one place
a new kind is registered (its module holds the rest)."""

from __future__ import annotations

from referee.tournament.plans.adaptive import AdaptiveSpec
from referee.tournament.plans.fixed import GauntletSpec, RoundRobinSpec
from referee.tournament.plans.knockout import KnockoutSpec
from referee.tournament.plans.match import MatchSpec
from referee.tournament.plans.plan import Checks
from referee.tournament.plans.sprt import SprtSpec
from referee.tournament.plans.swiss import SwissSpec

ScheduleSpec = RoundRobinSpec | GauntletSpec | SprtSpec | AdaptiveSpec | MatchSpec | SwissSpec | KnockoutSpec
"""A config's ``schedule``: one frozen spec per kind (see :class:`~.plan.ScheduleSpec`)."""

KINDS: dict[str, type[ScheduleSpec]] = {
    spec.kind: spec
    for spec in (RoundRobinSpec, GauntletSpec, SprtSpec, AdaptiveSpec, MatchSpec, SwissSpec, KnockoutSpec)
}


def spec_from_fingerprint(data: object) -> ScheduleSpec:
    """The schedule spec back from a manifest's ``fingerprint.schedule``; TypeError,
    KeyError or ValueError when it is not one."""
    if not isinstance(data, dict):
        raise TypeError("the schedule is not a mapping")
    kind = data.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown schedule kind {kind!r}")
    return KINDS[str(kind)].from_fingerprint(data)


def parse_schedule(checks: Checks, value: object, names: tuple[str, ...]) -> ScheduleSpec:
    """The config's ``schedule`` (a mapping; ``kind`` defaults to ``round_robin``)."""
    kind = value.get("kind") if isinstance(value, dict) else None
    spec = KINDS.get(kind, RoundRobinSpec) if isinstance(kind, str) else RoundRobinSpec
    return spec.parse(checks, value, names)
