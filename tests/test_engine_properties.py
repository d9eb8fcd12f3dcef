"""Properties over random games (hypothesis drives the seeds and sizes)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import IllegalTurn, Position, TurnError, point_count, score_of
from referee.engine.geometry import geometry

sizes = st.sampled_from([2, 3, 4, 5])
seeds = st.integers(0, 2**32 - 1)


def random_game(size, seed, setup=True):
    rng = random.Random(seed)
    pos = Position.new(size)
    if setup:
        names = [geometry(size).names[p] for p in geometry(size).points]
        b, w = rng.sample(names, 2)
        pos = pos.setup(b, w)
    positions = [pos]
    while not pos.is_over:
        pos = pos.play(pos.random_turn(rng))
        positions.append(pos)
    return positions


@settings(max_examples=60, deadline=None)
@given(sizes, seeds, st.booleans())
def test_random_games_end_within_2_points_plus_1_turns(size, seed, setup):
    positions = random_game(size, seed, setup)
    assert len(positions) - 1 <= 2 * point_count(size) + 1
    assert positions[-1].is_over and positions[-1].legal_turns() == []


@settings(max_examples=25, deadline=None)
@given(sizes, seeds)
def test_every_listed_turn_is_accepted_and_random_turns_are_listed(size, seed):
    rng = random.Random(seed ^ 0x5EED)
    for pos in random_game(size, seed)[::3]:
        turns = pos.legal_turns()
        assert turns == sorted(set(turns))
        for t in turns:
            after = Position.from_stones(size, pos.stones("black"), pos.stones("white"), pos.to_move).play(t)
            assert after.to_move is pos.to_move.opponent
            if t != "pass":  # each non-pass turn adds exactly one stone to the board
                total = len(after.stones("black")) + len(after.stones("white"))
                assert total == len(pos.stones("black")) + len(pos.stones("white")) + 1
        if turns:
            assert pos.random_turn(rng) in turns


@settings(max_examples=25, deadline=None)
@given(sizes, seeds)
def test_mutated_turns_outside_the_legal_set_are_rejected(size, seed):
    rng = random.Random(seed)
    names = [geometry(size).names[p] for p in geometry(size).points]
    for pos in random_game(size, seed)[::2]:
        legal = set(pos.legal_turns())
        fresh = Position.from_stones(size, pos.stones("black"), pos.stones("white"), pos.to_move)
        candidates = set()
        for t in list(legal)[:20]:
            parts = t.split(",")
            if t == "pass":
                candidates.add(rng.choice(names))
                continue
            candidates.add(",".join(parts[:-1]))  # drop the last steal
            candidates.add(t + f",{rng.choice(names)}>{rng.choice(names)}")  # add one
            candidates.add(",".join([rng.choice(names)] + parts[1:]))  # another placement
            if len(parts) > 1:
                i = rng.randrange(1, len(parts))
                frm, to = parts[i].split(">")
                parts2 = parts[:]
                parts2[i] = f"{frm}>{rng.choice(names)}"
                candidates.add(",".join(parts2))
                parts3 = parts[:]
                parts3[i] = f"{rng.choice(names)}>{to}"
                candidates.add(",".join(parts3))
        candidates.add("pass")
        for c in candidates:
            if c in legal or c == "":
                continue
            try:
                fresh.play(c)
            except TurnError:
                continue
            raise AssertionError(f"{c!r} accepted but not in legal_turns() of {pos!r}")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 30), max_size=12), st.lists(st.integers(1, 30), max_size=12))
def test_score_formula_invariants(a, b):
    sa, sb = score_of(a, b), score_of(b, a)
    distinct = set(a)
    assert sa == sum(distinct) + len(distinct) + (0.5 if max(a, default=0) > max(b, default=0) else 0)
    assert not (sa % 1 == 0.5 and sb % 1 == 0.5)  # at most one side gets the half point
    assert score_of(a + a, b) == sa  # repeated sizes count once
    if a and b and max(a) == max(b):
        assert sa % 1 == 0 and sb % 1 == 0


@settings(max_examples=30, deadline=None)
@given(sizes, seeds)
def test_score_of_positions_matches_group_sizes(size, seed):
    for pos in random_game(size, seed)[::4]:
        gb = [len(g) for g in pos.groups("black")]
        gw = [len(g) for g in pos.groups("white")]
        assert pos.score() == (score_of(gb, gw), score_of(gw, gb))
        b, w = pos.score()
        assert pos.result() == ("0" if b == w else ("B+" if b > w else "W+") + f"{abs(b - w):g}")


def test_play_after_game_over_and_random_turn_agree_with_play():
    rng = random.Random(7)
    pos = Position.new(4)
    while not pos.is_over:
        turn = pos.random_turn(rng)
        # a fresh copy of the position validates the same turn to the same result
        fresh = Position.from_stones(4, pos.stones("black"), pos.stones("white"), pos.to_move)
        assert fresh.play(turn) == pos.play(turn)
        pos = pos.play(turn)
    try:
        pos.play("a1")
    except IllegalTurn as e:
        assert "game is over" in str(e)
    else:
        raise AssertionError("a turn was accepted after the end")


@settings(max_examples=40, deadline=None)
@given(sizes, seeds)
def test_incremental_bookkeeping_matches_a_fresh_position(size, seed):
    """Groups and placement masks carried from turn to turn equal those computed from scratch."""
    for pos in random_game(size, seed):
        fresh = Position.from_stones(size, pos.stones("black"), pos.stones("white"), pos.to_move)
        for color in ("black", "white"):
            assert sorted(pos.groups(color)) == sorted(fresh.groups(color))
        assert pos.placement_mask() == fresh.placement_mask()
        assert pos.is_over == fresh.is_over and pos.must_pass == fresh.must_pass
