"""Board geometry: sizes, corners, neighbours, names."""

import pytest

from referee.engine import (
    MAX_SIZE,
    MIN_SIZE,
    BadNotation,
    Position,
    geometry,
    parse_point,
    point_count,
    point_name,
)
from referee.engine.geometry import bits


@pytest.mark.parametrize("size", range(MIN_SIZE, MAX_SIZE + 1))
def test_point_count_is_3n_n_minus_1_plus_1(size):
    geo = geometry(size)
    assert geo.point_count == 3 * size * (size - 1) + 1 == point_count(size)
    assert geo.board.bit_count() == geo.point_count
    assert len(Position.new(size).legal_placements()) == geo.point_count


@pytest.mark.parametrize("size", range(MIN_SIZE, MAX_SIZE + 1))
def test_names_round_trip_and_validity(size):
    geo = geometry(size)
    n1 = size - 1
    for p in geo.points:
        name = point_name(size, p)
        assert parse_point(size, name) == p
        assert parse_point(size, name.upper()) == p
        q, r = geo.coords(p)
        assert abs(q - r) <= n1 and 0 <= q <= 2 * n1 and 0 <= r <= 2 * n1
        assert name == "abcdefghijklmnopqrstuvwxyz"[q] + str(r + 1)


@pytest.mark.parametrize("size", range(MIN_SIZE, MAX_SIZE + 1))
def test_neighbours_are_the_six_axial_steps_and_symmetric(size):
    geo = geometry(size)
    steps = {(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)}
    counts = {}
    for p in geo.points:
        q, r = geo.coords(p)
        expected = {geo.index(q + dq, r + dr) for dq, dr in steps} - {None}
        assert set(geo.neighbours[p]) == expected
        assert bits(geo.neighbour_mask[p]) == sorted(expected)
        # dilation by shifts must agree with the table
        assert geo.dilate(1 << p) == geo.neighbour_mask[p] | 1 << p
        for a in geo.neighbours[p]:
            assert p in geo.neighbours[a]
        counts[len(expected)] = counts.get(len(expected), 0) + 1
    # 6 corners with 3 neighbours, 6(N-2) edge points with 4, the rest inner with 6
    assert counts[3] == 6
    assert counts.get(4, 0) == 6 * (size - 2)
    assert counts.get(6, 0) == geo.point_count - 6 - 6 * (size - 2)


def test_size_7_corners_and_centre():
    geo = geometry(7)
    corners = [p for p in geo.points if len(geo.neighbours[p]) == 3]
    assert sorted(point_name(7, p) for p in corners) == sorted(["a1", "g1", "a7", "m13", "g13", "m7"])
    centre = parse_point(7, "g7")
    assert len(geo.neighbours[centre]) == 6
    assert sorted(point_name(7, p) for p in geo.neighbours[centre]) == ["f6", "f7", "g6", "g8", "h7", "h8"]


@pytest.mark.parametrize(
    "name, message",
    [
        ("g1", "point 'g1' is off the size-5 board"),
        ("a6", "point 'a6' is off the size-5 board"),
        ("z166", "no point 'z166' on a size-5 board"),
        ("a07", "not a point name: 'a07'"),
        ("a0", "not a point name: 'a0'"),
        ("", "not a point name: ''"),
        ("7a", "not a point name: '7a'"),
    ],
)
def test_bad_point_names_are_bad_notation(name, message):
    with pytest.raises(BadNotation) as info:
        parse_point(5, name)
    assert str(info.value) == message


@pytest.mark.parametrize("size", [0, 1, 14, "7", True])
def test_bad_board_sizes(size):
    with pytest.raises(ValueError, match="board size must be an integer from 2 to 13"):
        Position.new(size)
