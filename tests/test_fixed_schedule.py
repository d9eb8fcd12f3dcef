"""A fixed schedule made one game at a time (:class:`FixedSchedule`, and a match's,
:class:`MatchSchedule`) is the list it replaced, game for game; its slots are found from
their text, and nothing else is; a plan over it counts, lists and refuses the same games as
over the list; and a schedule of a million games takes no memory until it is played."""

from __future__ import annotations

import gc
import itertools
import random
import tracemalloc

import pytest

from referee.play.records import BotStats, BotSummary, GameSummary, Termination
from referee.play.spec import Opening, OpeningKind
from referee.tournament.plans.fixed import FixedGames, FixedPlan, FixedSchedule, GauntletSpec, RoundRobinSpec
from referee.tournament.plans.match import MatchSpec
from referee.tournament.plans.plan import Field, OpeningPolicy, misfits_of
from referee.tournament.slots import ScheduledGame, colour_reversed

NAMES = ("alpha", "b-2", "gam.ma", "d-1-", "z9")  # "-" in names: the slot is still read right
OPENINGS = tuple(
    Opening(b, w, (), f"o{i}") for i, (b, w) in enumerate([("g7", "d4"), ("d4", "j10"), ("a1", "m13")])
)


def listed(spec: RoundRobinSpec | GauntletSpec, field: Field) -> list[ScheduledGame]:
    """The schedule as it was built before, a list of every game (the reference)."""
    pairs = spec.pairings(field.names)
    couples = spec.games_per_pair // 2
    games: list[ScheduledGame] = []
    dealt = 0
    for round_ in range(1, spec.rounds + 1):
        for j in range(couples):
            for x, y in pairs:
                lead, other = (x, y) if round_ % 2 else (y, x)
                games.extend(
                    colour_reversed(
                        lead,
                        other,
                        mode=field.mode,
                        pair_key=f"r{round_}-{x}+{y}-c{j + 1:02d}",
                        slot=f"r{round_}-{x}+{y}-{{:02d}}",
                        index=len(games),
                        round_=round_,
                        pair=(x, y),
                        game=2 * j + 1,
                        opening=field.opening(
                            dealt if field.policy is OpeningPolicy.ROUND else (round_ - 1) * couples + j
                        ),
                    )
                )
                dealt += 1
    return games


def _fields() -> list[Field]:
    out = []
    for n, mode, policy in itertools.product((2, 3, 5), OpeningKind, OpeningPolicy):
        openings = OPENINGS if mode in (OpeningKind.BOOK, OpeningKind.RANDOM) else ()
        out.append(Field(NAMES[:n], mode, openings, policy))
    return out


SPECS = [
    RoundRobinSpec(2, 1),
    RoundRobinSpec(4, 3),
    RoundRobinSpec(12, 2),
    GauntletSpec(2, 2, ("alpha",)),
    GauntletSpec(6, 3, ("b-2",)),
]


@pytest.mark.parametrize("spec", SPECS, ids=repr)
def test_every_game_is_the_listed_one(spec: RoundRobinSpec | GauntletSpec) -> None:
    for field in _fields():
        if (
            isinstance(spec, GauntletSpec)
            and len(field.names) == 2
            and spec.challengers[0] not in field.names
        ):
            continue
        expected = listed(spec, field)
        schedule = FixedSchedule(spec, field)
        assert len(schedule) == len(expected)
        assert list(schedule) == expected
        assert [schedule[k] for k in range(-len(expected), 0)] == expected
        assert schedule[3:9:2] == expected[3:9:2]
        for game in expected:
            assert schedule.find(game.slot) == game
        with pytest.raises(IndexError):
            schedule[len(expected)]


def test_only_the_schedules_slots_are_found() -> None:
    schedule = FixedSchedule(RoundRobinSpec(4, 2), Field(NAMES[:3], OpeningKind.EMPTY))
    slots = {g.slot for g in schedule}
    assert "r1-alpha+b-2-01" in slots and "r2-b-2+gam.ma-04" in slots
    for slot in [
        "r01-alpha+b-2-01",  # not how it is written
        "r1-alpha+b-2-1",
        "r1-alpha+b-2-001",
        "r3-alpha+b-2-01",  # a round it does not have
        "r0-alpha+b-2-01",
        "r1-alpha+b-2-05",  # a game it does not have
        "r1-alpha+b-2-00",
        "r1-b-2+alpha-01",  # the pair the other way round
        "r1-alpha+zeta-01",
        "r1-alpha+b-2-01\n",
        "x",
        "",
        "r1--01",
        "r1-+-01",
        "g0001",
    ]:
        assert slot not in slots and schedule.find(slot) is None, slot


def _summary(slot: str, labels: tuple[str, str]) -> GameSummary:
    bots = (BotSummary(labels[0], BotStats()), BotSummary(labels[1], BotStats()))
    return GameSummary(slot, slot, labels, 0, Termination.SCORE, None, None, bots, 0)


def listed_games(games: list[ScheduledGame], done: set[str]) -> FixedGames:
    """FixedPlan.games over a list of the schedule, as it was (the reference)."""
    played = sum(1 for g in games if g.slot in done)
    pending = (g for g in games if g.slot not in done) if done else iter(games)
    return FixedGames(pending, len(games) - played, len(games))


def _same_plan(plan: FixedPlan, games: list[ScheduledGame], rng: random.Random, others: set[str]) -> None:
    """``plan`` counts and lists the games left as over the list ``games``, with a share of
    them done and ``others`` (slots it does not have) recorded too."""
    assert plan.total == len(games)
    for share in (0.0, 0.3, 1.0):
        done = {g.slot for g in games if rng.random() < share} | others
        a, b = plan.games(done), listed_games(games, done)
        assert (a.remaining, a.resumed, a.available()) == (b.remaining, b.resumed, b.available())
        assert list(a) == list(b) == [g for g in games if g.slot not in done]


def test_a_plan_over_it_counts_lists_and_refuses_as_over_the_list() -> None:
    rng = random.Random(3)
    for spec in SPECS:
        field = Field(NAMES[:3], OpeningKind.PIE)
        if isinstance(spec, GauntletSpec) and spec.challengers[0] not in field.names:
            continue
        games = listed(spec, field)
        lazy = FixedPlan(FixedSchedule(spec, field))
        _same_plan(lazy, games, rng, {"r1-not+ours-01", "elsewhere"})
        found = [_summary(g.slot, (g.first, g.second)) for g in rng.sample(games, min(len(games), 12))]
        found += [
            _summary(games[0].slot, (games[0].second, games[0].first)),  # its bots the other way round
            _summary("r1-alpha+b-2-99", ("alpha", "b-2")),  # a slot it does not have
            _summary("free text", ("alpha", "b-2")),
        ]
        assert lazy.misfits(found) == misfits_of(games, found) == found[-3:]


def test_a_schedule_of_a_million_games_takes_no_memory_until_played() -> None:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        plan = RoundRobinSpec(100_000, 1).make_plan(Field(NAMES, OpeningKind.EMPTY))
        pending = plan.games(set())
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert plan.total == 1_000_000 and pending.remaining == 1_000_000
    assert next(iter(pending)) == listed(RoundRobinSpec(2, 1), Field(NAMES, OpeningKind.EMPTY))[0]
    assert held < 100_000, held  # as a list of its games: about 370 MB


def test_a_gauntlets_matches_are_the_standings_of_each_ones_games() -> None:
    """challenger_section counts every match in one pass over the run: each row is the
    standings of that match's games alone, as when each was computed from its own list."""
    from referee.ratings.report import standings
    from referee.tournament.plans.fixed import _elo_text, challenger_section
    from tests.test_standings_off_path import summaries as made_up

    recorded = made_up(11, 300, ["c1", "c2", "o1", "o2", "o3"])
    section = challenger_section(recorded, ["c1", "c2"], ["o1", "o2", "o3"])
    expected = []
    for c in ("c1", "c2"):
        for o in ("o1", "o2", "o3"):
            games = [r for r in recorded if not r.is_void and set(r.labels) == {c, o}]
            line = next(x for x in standings(games, [c, o], anchor=o).lines if x.name == c)
            assert line.elo is not None and line.elo_low is not None and line.elo_high is not None
            elo, interval = _elo_text(line.elo, line.elo_low, line.elo_high, line.elo_bound)
            wdl = f"{line.wins}-{line.draws}-{line.losses}"
            expected.append((c, o, line.games, wdl, f"{line.score_percent:.1f}", elo, interval))
    assert list(section.rows) == expected
    assert sum(row[2] for row in expected) > 0
    for row, match in zip(section.rows, section.data["matches"], strict=True):  # type: ignore[arg-type]
        assert (match["challenger"], match["opponent"], match["games"]) == row[:3]


# ---------------------------------------------------------------------- a match


def listed_match(games: int, field: Field) -> list[ScheduledGame]:
    """A match's schedule as it was built before, a list of every game (the reference)."""
    a, b = field.names
    out: list[ScheduledGame] = []
    for k in range((games + 1) // 2):
        pair = colour_reversed(
            a,
            b,
            mode=field.mode,
            pair_key=f"{a}+{b}-c{k + 1:04d}",
            slot="g{:04d}",
            index=2 * k,
            game=2 * k + 1,
            opening=field.opening(k),
        )
        out.extend(pair[: games - 2 * k])
    return out


def test_a_match_is_its_listed_games_and_found_by_their_slots_only() -> None:
    rng = random.Random(5)
    for field in (f for f in _fields() if len(f.names) == 2):
        for games in (1, 2, 3, 10, 11, 120):
            expected = listed_match(games, field)
            schedule = MatchSpec(games).games_of(field)
            assert len(schedule) == games and list(schedule) == expected
            assert [schedule[k] for k in range(-games, 0)] == expected
            assert schedule[1:9:3] == expected[1:9:3]
            for game in expected:
                assert schedule.find(game.slot) == game
            for slot in (f"g{games + 1:04d}", "g0000", "g00001", "g1", "g0001\n", "x", "", "r1-a+b-01"):
                assert schedule.find(slot) is None, slot
            plan = MatchSpec(games).make_plan(field)
            _same_plan(plan, expected, rng, {f"g{games + 1:04d}", "elsewhere"})
            a, b = field.names
            found = [_summary(g.slot, (g.first, g.second)) for g in expected[:5]]
            found += [_summary("g0001", (b, a)), _summary(f"g{games + 1:04d}", (a, b))]
            found += [_summary("g01", (a, b))]
            assert plan.misfits(found) == misfits_of(expected, found) == found[-3:]
    slots = [g.slot for g in MatchSpec(10_001).games_of(Field(NAMES[:2], OpeningKind.PIE))]
    assert slots[9_998:] == ["g9999", "g10000", "g10001"]


def test_a_match_of_a_million_games_takes_no_memory_until_played() -> None:
    field = Field(NAMES[:2], OpeningKind.RANDOM, OPENINGS)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        plan = MatchSpec(1_000_000).make_plan(field)
        pending = plan.games({"g0001"})
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert plan.total == 1_000_000 and pending.remaining == 999_999
    assert next(iter(pending)) == listed_match(2, field)[1]
    assert held < 100_000, held  # as a list of its games: about 370 MB
