"""The engine's fast paths against the plain computations they stand for.

Shapes: the integer-key canonical form that ``shape_of_mask`` uses equals :func:`canonical`.

Bookkeeping: a position carries, per colour, its groups with their reaches (group plus
neighbours), the adjacency masks (points next to at least one / two groups) and the mover's
placement mask from turn to turn, through the steal machine too. Every carried value must
equal what a fresh computation from the stones gives, both along games played through
``random_turn``'s cached successors and when the turn text is validated by a position that
did not build it (the referee's path).
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Position
from referee.engine.shapes import _canonical_fast, _images, canonical
from referee.engine.steals import components

sizes = st.sampled_from([2, 3, 4, 5, 7])
seeds = st.integers(0, 2**32 - 1)
cell_sets = st.sets(st.tuples(st.integers(-30, 30), st.integers(-30, 30)), min_size=1, max_size=10)


@settings(max_examples=300, deadline=None)
@given(cell_sets, st.randoms(use_true_random=False))
def test_fast_canonical_form_equals_canonical(cells, rng):
    cells = list(cells)
    rng.shuffle(cells)
    assert _canonical_fast(cells) == canonical(cells)
    for image in _images(cells):  # the same shape seen any way round
        assert _canonical_fast(image) == canonical(cells)


def assert_consistent(pos: Position) -> None:
    geo = pos.geo
    for c in (0, 1):
        groups, reach = pos._groups[c], pos._reach[c]
        assert sorted(groups) == sorted(components(pos._stones[c], geo))
        assert list(reach) == [geo.dilate(g) for g in groups]
        adj = pos._adj[c]
        if adj is not None:
            once = twice = 0
            for p in geo.points:
                n = sum(1 for r in reach if r >> p & 1)
                once |= (n >= 1) << p
                twice |= (n >= 2) << p
            assert adj == (once, twice)
    if pos._pm is not None:
        fresh = Position.from_stones(geo.size, pos.stones("black"), pos.stones("white"), pos.to_move)
        assert pos._pm == fresh.placement_mask()


@settings(max_examples=30, deadline=None)
@given(sizes, seeds)
def test_carried_state_matches_a_rebuild(size, seed):
    rng = random.Random(seed)
    gen = Position.new(size)
    names = [gen.geo.names[p] for p in gen.geo.points]
    gen = gen.setup(*rng.sample(names, 2))
    # ``gen`` makes the turns and takes its cached successors; ``val`` never builds a
    # successor itself and validates the text, as the referee does.
    val = Position.from_stones(size, gen.stones("black"), gen.stones("white"), gen.to_move)
    while not gen.is_over:
        assert not val.is_over
        turn = gen.random_turn(rng)
        gen, val = gen.play(turn), val.play(turn)
        assert gen == val
        assert_consistent(gen)
        assert_consistent(val)
    assert val.is_over


@settings(max_examples=50, deadline=None)
@given(sizes, seeds)
def test_bitset_views_name_the_same_stones_and_groups(size, seed):
    """``stone_masks`` and ``group_sizes`` (what a replay page reads after every turn) say
    what ``stones`` and ``groups`` say, along a random game."""
    rng = random.Random(seed)
    pos = Position.new(size)
    while True:
        names = pos.geo.names
        for c, mask in zip(("b", "w"), pos.stone_masks, strict=True):
            assert sorted(names[p] for p in range(mask.bit_length()) if mask >> p & 1) == pos.stones(c)
            assert pos.group_sizes(c) == [len(g) for g in pos.groups(c)]
        if pos.is_over:
            break
        pos = pos.play(pos.random_turn(rng))
