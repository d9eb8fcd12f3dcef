"""The adaptive schedule: a floor of games first, then colour-reversed pairs where the
ranking is least certain, within the budget, resumable from the recorded games."""

from __future__ import annotations

from collections import Counter

import pytest
from games import played

from referee.play.records import GameSummary
from referee.play.spec import Opening, OpeningKind
from referee.ratings import fit
from referee.tournament.plans.adaptive import AdaptivePlan, AdaptiveSchedule, pair_number
from referee.tournament.slots import ScheduledGame

BOTS = ("a", "b", "c", "d", "e")


def outcome(game: ScheduledGame, strength: dict[str, int]) -> GameSummary:
    """Deterministic results: the stronger bot wins; equal bots: the first player wins."""
    diff = strength[game.first] - strength[game.second]
    return played(game.slot, game.first, game.second, 0 if diff >= 0 else 1)


def play(schedule: AdaptiveSchedule, strength: dict[str, int], limit: int | None = None) -> list[GameSummary]:
    out: list[GameSummary] = []
    for game in schedule.games(set()):
        summary = outcome(game, strength)
        schedule.record(summary)
        out.append(summary)
        if limit is not None and len(out) == limit:
            break
    return out


def test_pairs_swap_roles_and_share_an_opening() -> None:
    plan = AdaptivePlan(BOTS, OpeningKind.BOOK, (Opening("a1", "b2"), Opening("c3", "d4")), games=40)
    schedule = AdaptiveSchedule(plan)
    games = list(schedule.games(set()))[:4]
    one, two = games[0], games[1]
    assert (one.slot, two.slot) == ("ad-00001-1", "ad-00001-2") and one.pair_key == two.pair_key == "ad-00001"
    assert (one.first, one.second) == (two.second, two.first)
    assert one.opening == two.opening == Opening("a1", "b2") and games[2].opening == Opening("c3", "d4")
    assert pair_number("ad-00012") == 12 and pair_number("sprt-00001") is None


def test_the_floor_is_met_before_adapting() -> None:
    plan = AdaptivePlan(BOTS, OpeningKind.PIE, games=200)
    assert plan.floor_games == 8
    schedule = AdaptiveSchedule(plan)
    seen: list[tuple[str, str]] = []
    games = schedule.games(set())
    while schedule.warming_up:
        first = next(games)
        seen.append(first.pair)
        schedule.record(outcome(first, {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}))
        schedule.record(outcome(next(games), {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}))
    # The warm-up is a round robin: every two bots meet once (one pair), so each has 8 games.
    assert len(seen) == len(set(seen)) == 10
    per_bot = Counter(name for pair in seen for name in pair)
    assert all(2 * per_bot[name] >= plan.floor_games for name in BOTS)


def test_the_budget_is_never_exceeded_and_pairs_are_complete() -> None:
    schedule = AdaptiveSchedule(AdaptivePlan(BOTS, OpeningKind.PIE, games=34))
    summaries = play(schedule, {"a": 0, "b": 1, "c": 1, "d": 3, "e": 9})
    assert len(summaries) == 34 == schedule.total
    keys = Counter(s.pair_key for s in summaries)
    assert all(n == 2 for n in keys.values())
    assert list(schedule.games({s.slot for s in summaries})) == []
    assert not schedule.games(set()).available()


def test_resume_completes_the_half_pair_then_picks_the_same_next_pair() -> None:
    strength = {"a": 0, "b": 1, "c": 1, "d": 3, "e": 9}
    plan = AdaptivePlan(BOTS, OpeningKind.PIE, games=100)
    live = AdaptiveSchedule(plan)
    summaries = play(live, strength, limit=2 * 16)
    nxt = live.games({s.slot for s in summaries})
    expected = [next(nxt), next(nxt)]

    kept = summaries[:-1] + [played("ad-00099-1", "a", "b", 0, void=True)]  # a torn half pair
    resumed = AdaptiveSchedule(plan, kept)
    games = resumed.games({s.slot for s in kept})
    assert games.available()
    missing = next(games)
    assert missing.slot == summaries[-1].slot and missing.bots == tuple(summaries[-1].labels)
    resumed.record(outcome(missing, strength))
    assert [next(games), next(games)] == expected


def test_close_bots_get_most_adaptive_pairs() -> None:
    # x is far below, y and z are close: ratings from results with some upsets.
    plan = AdaptivePlan(("x", "y", "z"), OpeningKind.PIE, games=80)
    schedule = AdaptiveSchedule(plan)
    pairs: list[tuple[str, str]] = []
    wins = {("x", "y"): 0.1, ("x", "z"): 0.1, ("y", "z"): 0.5}  # first bot's share of wins
    tally: Counter[tuple[str, str]] = Counter()
    for game in schedule.games(set()):
        a, b = game.pair
        adaptive = not schedule.warming_up and game.game == 1
        if adaptive:
            pairs.append((a, b))
        k = tally[(a, b)]
        tally[(a, b)] += 1
        # Deterministic pattern with the given win share for a.
        a_wins = (k * wins[(a, b)]) % 1 + wins[(a, b)] >= 1
        winner_name = a if a_wins else b
        schedule.record(
            played(game.slot, game.first, game.second, (game.first, game.second).index(winner_name))
        )
    count = Counter(pairs)
    assert count[("y", "z")] > 0.7 * len(pairs)


def test_bad_plans_are_refused() -> None:
    with pytest.raises(ValueError):
        AdaptivePlan(("a",), OpeningKind.PIE)
    with pytest.raises(ValueError):
        AdaptivePlan(BOTS, OpeningKind.PIE, games=11)
    with pytest.raises(ValueError):
        AdaptivePlan(BOTS, OpeningKind.RANDOM)


def test_a_resumed_run_numbers_new_pairs_from_the_lowest_free_number() -> None:
    strength = {"a": 0, "b": 1, "c": 1, "d": 3, "e": 9}
    plan = AdaptivePlan(BOTS, OpeningKind.PIE, games=100)
    summaries = play(AdaptiveSchedule(plan), strength, limit=2 * 6)
    kept = [s for s in summaries if s.pair_key != "ad-00003"]  # pair 3 lost with its folder's tail
    resumed = AdaptiveSchedule(plan, kept)
    numbers = [pair_number(resumed.start_pair()[0].pair_key) for _ in range(3)]
    assert numbers == [3, 7, 8]


def test_a_large_field_keeps_its_counts_and_scores_alike_in_either_kernel() -> None:
    # 20 bots: the strengths' fit and the gaps' variances run in numpy's arrays (from
    # DENSE_SIZE bots), and the counts and links are kept as pairs come, never recounted.
    bots = tuple(f"b{k:02d}" for k in range(20))
    strength = {b: 100 * (k % 7) + 10 * k for k, b in enumerate(bots)}
    schedule = AdaptiveSchedule(AdaptivePlan(bots, OpeningKind.PIE, games=600))
    compared = 0
    for n, game in enumerate(schedule.games(set()), start=1):
        schedule.record(outcome(game, strength))
        if n % 50 or schedule.warming_up:
            continue
        dense = schedule.scores()
        fit._PURE_ONLY = True
        try:
            pure = schedule.scores()
        finally:
            fit._PURE_ONLY = False
        assert dense.keys() == pure.keys()
        for key, value in dense.items():
            assert value == pytest.approx(pure[key], rel=1e-6, abs=1e-12), (n, key)
        compared += 1
    assert compared >= 3
    size = len(bots)
    table = schedule._scheduled
    assert schedule._per_bot == [
        sum(table[min(k, o)][max(k, o)] for o in range(size) if o != k) for k in range(size)
    ]
    assert schedule._linked.count == 1 and schedule._met.count == 1
    assert schedule.games_recorded == 600
