"""The SPRT as a schedule: colour-reversed pairs, a stop the moment the test decides, a
resume that rebuilds the test from what was recorded."""

from __future__ import annotations

import pytest
from games import played

from referee.play.spec import Opening, OpeningKind
from referee.ratings.sprt import Decision, Model, Sprt
from referee.tournament.plans.sprt import SprtPlan, SprtSchedule, pair_number

PLAN = SprtPlan(Sprt(0, 10, model=Model.LOGISTIC), "new", "old", OpeningKind.PIE, max_games=400)


def play_all(schedule: SprtSchedule, result: dict[str, float], done: set[str] | None = None) -> list[str]:
    """Play every game the schedule asks for, one at a time, ``result[bot]`` being what a
    bot scores when it is the first player of a game."""
    slots = []
    for game in schedule.games(done or set()):
        winner = 0 if result[game.first] == 1 else 1 if result[game.first] == 0 else None
        schedule.record(played(game.slot, game.first, game.second, winner))
        slots.append(game.slot)
    return slots


def test_pairs_swap_roles_and_share_an_opening() -> None:
    plan = SprtPlan(PLAN.test, "new", "old", OpeningKind.RANDOM, (Opening("a1", "b2"), Opening("c3", "d4")))
    a, b = plan.pair(2)
    assert (a.slot, b.slot) == ("sprt-00002-1", "sprt-00002-2") and a.pair_key == b.pair_key == "sprt-00002"
    assert (a.first, a.second, b.first, b.second) == ("new", "old", "old", "new")
    assert a.opening == b.opening == Opening("c3", "d4")  # openings dealt in turn, one per pair
    assert plan.pair(3)[0].opening == Opening("a1", "b2")
    assert pair_number(a.pair_key) == 2 and pair_number("r1-a+b-c01") is None


def test_a_clear_winner_is_found_and_nothing_more_is_scheduled() -> None:
    schedule = SprtSchedule(PLAN)
    slots = play_all(schedule, {"new": 1, "old": 0})  # new wins every game, both sides
    assert schedule.decided is Decision.H1
    pairs = len(slots) // 2
    assert len(slots) % 2 == 0 and len(slots) < PLAN.max_games
    assert schedule.counts == [0, 0, 0, 0, pairs]
    # It stopped at the first pair whose result took the LLR over the bound.
    assert PLAN.test.status([0, 0, 0, 0, pairs - 1]).decision is None
    # Asking again schedules nothing: the test is decided on everything recorded.
    assert list(schedule.games(set(slots))) == []


def test_equal_bots_are_stopped_by_h0_or_the_cap() -> None:
    schedule = SprtSchedule(PLAN)
    slots = play_all(schedule, {"new": 1, "old": 1})  # the first player always wins: even pairs
    assert schedule.counts[2] == len(slots) // 2
    assert schedule.decided is Decision.H0 or len(slots) == PLAN.max_games


def test_the_cap_ends_an_undecided_test() -> None:
    plan = SprtPlan(Sprt(0, 1, alpha=0.001, beta=0.001), "new", "old", OpeningKind.PIE, max_games=20)
    schedule = SprtSchedule(plan)
    slots = play_all(schedule, {"new": 1, "old": 1})
    assert len(slots) == 20 and schedule.decided is None and schedule.capped


def test_resume_completes_the_half_pair_then_goes_on_and_a_decided_run_plays_nothing() -> None:
    first = SprtSchedule(PLAN)
    recorded = []
    for n, game in enumerate(first.games(set())):
        if n == 5:  # killed after game 5: pair 3 is half played
            break
        s = played(game.slot, game.first, game.second, 0 if game.first == "new" else 1)
        first.record(s)
        recorded.append(s)
    again = SprtSchedule(PLAN, recorded)
    assert again.counts == [0, 0, 0, 0, 2] and again.games_recorded == 5
    upcoming = again.games({r.slot for r in recorded})
    assert next(upcoming).slot == "sprt-00003-2"  # the missing half first
    assert next(upcoming).slot == "sprt-00004-1"
    # A void game is played again: it counts for nothing.
    voided = SprtSchedule(PLAN, [*recorded[:4], played("sprt-00003-1", "new", "old", None, void=True)])
    assert voided.counts == [0, 0, 0, 0, 2]
    assert next(voided.games({r.slot for r in recorded[:4]})).slot == "sprt-00003-1"
    # Decided: nothing to play.
    decided = SprtSchedule(PLAN)
    slots = play_all(decided, {"new": 1, "old": 0})
    rebuilt = SprtSchedule(
        PLAN,
        [
            played(s, *(("new", "old") if s.endswith("-1") else ("old", "new")), 0 if s.endswith("-1") else 1)
            for s in slots
        ],
    )
    assert rebuilt.decided is Decision.H1 and list(rebuilt.games(set(slots))) == []


def test_plan_validation() -> None:
    with pytest.raises(ValueError):
        SprtPlan(PLAN.test, "x", "x", OpeningKind.PIE)
    with pytest.raises(ValueError):
        SprtPlan(PLAN.test, "x", "y", OpeningKind.PIE, max_games=7)
    with pytest.raises(ValueError):
        SprtPlan(PLAN.test, "x", "y", OpeningKind.BOOK)


def test_a_decision_undone_by_the_games_in_flight_lets_the_test_go_on() -> None:
    """The runner stops asking for new pairs once the LLR crosses a bound, but the games
    in flight are still recorded; if they take the LLR back inside, the iterator that said
    "nothing now" hands out a new pair when asked again."""
    test = Sprt(0, 10, model=Model.LOGISTIC)
    plan = SprtPlan(test, "new", "old", OpeningKind.PIE, max_games=10_000)
    schedule = SprtSchedule(plan)
    games = schedule.games(set())
    # Play won pairs until the test is one pair short of H1, keeping the next pair in flight.
    while True:
        a, b = next(games), next(games)
        schedule.record(played(a.slot, a.first, a.second, 0))
        if test.status([0, 0, 0, 0, schedule.counts[4] + 1]).decision is Decision.H1:
            break
        schedule.record(played(b.slot, b.first, b.second, 1))
    # The next pair's first game is handed out (and stays in flight) ...
    in_flight = next(games)
    # ... then b wins the pair's second game too: the pair before is complete, H1 is reached.
    schedule.record(played(b.slot, b.first, b.second, 1))
    assert schedule.decided is Decision.H1
    assert next(games).slot == in_flight.slot.replace("-1", "-2")  # the half pair is finished
    assert next(games, None) is None  # and nothing new is started
    # The pair in flight is lost both ways: the LLR falls back inside the bounds.
    for slot, first, second in (
        (in_flight.slot, "new", "old"),
        (in_flight.slot.replace("-1", "-2"), "old", "new"),
    ):
        schedule.record(played(slot, first, second, 1 if first == "new" else 0))
    assert schedule.decided is None
    assert next(games).slot.startswith("sprt-") and schedule.started > 1  # the test goes on
