"""The compact table of completed pair keys (referee/ratings/pairkeys.py) behaves as the
dict it stands in for, and RunningCounts with it counts as compute_ratings does when
keys come back after they were complete; an LLR history, kept a byte a pair, is thinned
as it was."""

from __future__ import annotations

import math
import random
import tracemalloc
from collections.abc import Hashable, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.play.records import BotStats, BotSummary, GameSummary, Termination
from referee.ratings import pairkeys
from referee.ratings.elo import RunningCounts, compute_ratings
from referee.ratings.history import llr_history, pair_score
from referee.ratings.model import GameResult
from referee.ratings.pairkeys import ClosedPairs
from referee.ratings.pentanomial import pair_counts
from referee.ratings.sprt import Sprt

KEYS = st.one_of(
    st.text(max_size=6),  # the empty key, any code point (lone surrogates too)
    st.sampled_from(["r1c01", "r1c1", "r1c01\x00", "\udcff", "é", "e\u0301"]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), KEYS, st.integers(0, 2**32 - 2), st.integers(0, 2**32 - 2))))
def test_closed_pairs_are_a_dict(ops: list[tuple[bool, str, int, int]]) -> None:
    table, model = ClosedPairs(), dict[str, tuple[int, int]]()
    for put, key, a, b in ops:
        if put and key not in model:
            table.put(key, (a, b))
            model[key] = (a, b)
        elif put:
            with pytest.raises(KeyError):
                table.put(key, (a, b))
        else:
            assert table.pop(key) == model.pop(key, None)
        assert len(table) == len(model)
    for key, members in model.items():
        assert table.pop(key) == members
    assert len(table) == 0


def test_keys_whose_hashes_are_equal_are_told_apart_by_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pairkeys, "_hash", lambda key: len(key) % 3)  # collisions everywhere
    table = ClosedPairs()
    keys = [f"k{n}" for n in range(200)] + ["", "\udcff", "é", "e\u0301"]
    for n, key in enumerate(keys):
        table.put(key, (n, n + 1))
        assert table.pop(f"x{key}") is None
    for n, key in enumerate(reversed(keys)):
        assert table.pop(key) == (len(keys) - 1 - n, len(keys) - n)


def test_many_keys_grow_the_table_and_are_all_found() -> None:
    rng = random.Random(5)
    table, model = ClosedPairs(), {}
    for k in range(20_000):
        key = f"r{k % 97}-b{k}+c{rng.randrange(10**6)}-p{k}"
        members = (rng.randrange(300), rng.randrange(300))
        table.put(key, members)
        model[key] = members
        if k % 7 == 0:  # some taken back out and put back (a dead entry revived)
            assert table.pop(key) == members
            assert table.pop(key) is None
            table.put(key, members)
    assert len(table) == len(model)
    assert all(table.pop(key) == members for key, members in model.items())
    assert all(table.pop(key) is None for key in model)


def nonzero(table: Mapping[tuple[str, str], tuple[int, ...]]) -> dict[tuple[str, str], tuple[int, ...]]:
    return {k: v for k, v in table.items() if any(v)}


def test_a_key_that_comes_back_after_its_pair_counts_as_lone_games() -> None:
    """A completed pair's key that gets a third game (a results file pasted together, a
    plan that shares a key): its games are lone units again, as compute_ratings counts
    them; and a fourth, and a key that was never complete."""
    games = [
        GameResult("a", "b", 1.0, "k"),
        GameResult("b", "a", 0.5, "k"),  # the pair k is complete
        GameResult("a", "c", 1.0, "m"),
        GameResult("a", "b", 0.0, "k"),  # k again
        GameResult("c", "a", 1.0, "m"),
        GameResult("b", "a", 1.0, "k"),
        GameResult("b", "c", 0.5, None),
    ]
    counts = RunningCounts()
    for k, game in enumerate(games, 1):
        counts.add(game)
        assert repr(counts.ratings(["a", "b", "c"])) == repr(compute_ratings(games[:k], ["a", "b", "c"]))
        assert nonzero(counts.pair_table()) == nonzero(pair_counts(games[:k]))


def test_a_runs_pair_keys_cost_a_few_dozen_bytes() -> None:
    """What the compact table is for: a long run's completed pairs, measured (this is
    memory, not time: the same on any machine)."""
    games = []
    for k in range(20_000):
        key = f"r{k // 20}-bot{k % 5}+bot{(k + 1) % 5}-c{k:05d}"
        games += [GameResult("bot1", "bot2", 1.0, key), GameResult("bot2", "bot1", 0.5, key)]
    tracemalloc.start()
    counts = RunningCounts()
    for game in games:
        counts.add(game)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert held / 20_000 < 70  # a dict of the keys and their tuples: about 150
    assert len(counts._closed) == 20_000 and not counts._keyed


def test_an_llr_history_past_its_most_points_is_thinned_evenly() -> None:
    """``llr_history`` of 1,203 pairs: a point every third pair and the last, each the
    LLR of the pairs so far (as an SPRT's status gives it), whatever the order of games."""
    rng = random.Random(9)
    games = []
    for k in range(1203):
        a, b = ("cand", "base") if rng.random() < 0.5 else ("base", "cand")
        for seats, end in (((a, b), "a"), ((b, a), "b")):
            bots = (BotSummary(seats[0], BotStats()), BotSummary(seats[1], BotStats()))
            winner = rng.choice([0, 1, None])
            slot, kind = f"s{k}{end}", Termination.SCORE
            games.append(GameSummary(f"g{k}{end}", slot, seats, winner, kind, None, f"p{k}", bots, 9))
    rng.shuffle(games)
    test = Sprt(0.0, 5.0)
    points = llr_history(games, test, "cand")
    counts, expected = [0] * 5, []
    seen: dict[Hashable, float] = {}
    for g in games:
        key, score = pair_score(g, "cand") or ("", 0.0)
        if key in seen:
            counts[round(2 * (seen.pop(key) + score))] += 1
            expected.append(test.status(counts).llr)
        else:
            seen[key] = score
    assert [n for n, _ in points] == [*range(3, 1203, 3), 1203]
    assert [v for _, v in points] == [expected[n - 1] for n, _ in points]


def same(a: float | None, b: float | None) -> bool:
    return a == b or (a != a and b != b)  # NaN: a bot nothing places


def test_a_history_point_computes_the_intervals_of_its_bounds_alone() -> None:
    """``bounds_only``: each bound's interval (its finite end is a history's point) to the
    last bit as with every interval computed; the other lines' collapse onto their
    estimates, and no gaps are computed."""
    bounds = 0
    for trial in range(150):
        rng = random.Random(trial)
        names = [f"b{k}" for k in range(rng.randrange(2, 10))]
        counts = RunningCounts()
        for k in range(rng.randrange(1, 50)):
            a, b = rng.sample(names, 2)
            score = 1.0 if trial % 3 == 0 and a == names[0] else rng.choice([0.0, 0.5, 1.0])
            counts.add(GameResult(a, b, score, rng.choice([None, f"p{k // 2}"])))
        bots = [n for n in names if n in counts.seen]
        anchor = bots[0] if trial % 2 else None
        full = counts.ratings(bots, anchor=anchor, anchor_rating=5.0)
        lean = counts.ratings(bots, anchor=anchor, anchor_rating=5.0, bounds_only=True)
        assert lean.gaps == {} and lean.los == {}
        for x, y in zip(full.ratings, lean.ratings, strict=True):
            assert x.name == y.name and same(x.elo, y.elo) and x.bound == y.bound
            if x.bound is not None:
                bounds += 1
                assert (x.low, x.high) == (y.low, y.high)
            elif y.elo is not None and math.isfinite(y.elo):
                assert y.low == y.high == y.elo
    assert bounds > 30
