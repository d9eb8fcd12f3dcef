"""Shapes: the counts of polyhexes from rules.md, by enumeration of connected point sets."""

import itertools

import pytest

from referee.engine import geometry
from referee.engine.shapes import canonical, same_shape, shape_of_mask, translated

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))

FREE = [1, 1, 3, 7, 22, 82, 333]  # A000228
ONE_SIDED = [1, 1, 3, 10, 33, 147, 620]  # A006535 (rotations only)
FIXED = [1, 3, 11, 44, 186, 814, 3652]  # A001207 (translations only)


def connected_sets(max_n):
    """All connected cell sets up to size max_n, up to translation, grown cell by cell."""
    level = {((0, 0),)}
    out = {1: level}
    for n in range(2, max_n + 1):
        nxt = set()
        for cells in level:
            have = set(cells)
            for q, r in cells:
                for dq, dr in STEPS:
                    c = (q + dq, r + dr)
                    if c not in have:
                        nxt.add(translated(have | {c}))
        out[n] = nxt
        level = nxt
    return out


@pytest.fixture(scope="module")
def polyhexes():
    return connected_sets(7)


@pytest.mark.parametrize("n", range(1, 8))
def test_shape_counts_match_rules_md(polyhexes, n):
    sets = polyhexes[n]
    assert len(sets) == FIXED[n - 1]
    assert len({canonical(s, reflections=False) for s in sets}) == ONE_SIDED[n - 1]
    assert len({canonical(s) for s in sets}) == FREE[n - 1]


def test_every_placement_on_a_board_agrees_with_the_coordinate_form():
    """The bitset path (cache keyed by shifted masks) and the coordinate path agree for
    every connected 4-set at every position on a size-7 board."""
    geo = geometry(7)
    seen = {}
    for cells in connected_sets(4)[4]:
        for origin in geo.points:
            oq, orr = geo.coords(origin)
            idx = [geo.index(oq + q, orr + r) for q, r in cells]
            if None in idx:
                continue
            mask = sum(1 << p for p in idx)
            assert shape_of_mask(mask, geo.width) == canonical(cells)
            seen.setdefault(canonical(cells), mask)
    assert len(seen) == FREE[3]
    masks = list(seen.values())
    for a, b in itertools.combinations(masks, 2):
        assert not same_shape(a, b, geo.width)


def test_rotations_and_reflections_are_the_same_shape():
    geo = geometry(7)
    width = geo.width
    # an L-ish tetrahex and all its 12 images placed around the centre
    base = [(0, 0), (1, 0), (2, 0), (2, 1)]
    images = []
    cur = base
    for _ in range(6):
        images.append(cur)
        images.append([(r, q) for q, r in cur])
        cur = [(q - r, q) for q, r in cur]
    masks = []
    for img in images:
        mask = sum(1 << geo.index(6 + q, 6 + r) for q, r in img)
        masks.append(mask)
    for m in masks:
        assert same_shape(masks[0], m, width)
    # a different tetrahex of the same size is not the same shape
    line = sum(1 << geo.index(3 + q, 6) for q in range(4))
    assert not same_shape(masks[0], line, width)
