"""The SVG board (referee.render.svg): well-formed, every point, the stones, the rim, the
last turn's marks and the group outlines, on every board size; the layout is the diagram's."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET

import pytest

from referee.engine import MAX_SIZE, MIN_SIZE, Color, Position, iter_points, point_count
from referee.render.svg import UNIT, board_svg, layout

NS = "{http://www.w3.org/2000/svg}"
SIZES = list(range(MIN_SIZE, MAX_SIZE + 1))


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == cls]


def played(size: int, turns: int, seed: int) -> tuple[Position, str | None]:
    rng = random.Random(seed)
    pos, last = Position.new(size), None
    for _ in range(turns):
        if pos.is_over:
            break
        last = pos.random_turn(rng)
        pos = pos.play(last)
    return pos, last


def with_steals(size: int, least: int) -> tuple[Position, str]:
    """A position reached by a turn with at least ``least`` steals (random games, seeded)."""
    for seed in range(500):
        rng = random.Random(seed)
        pos = Position.new(size)
        while not pos.is_over:
            turn = pos.random_turn(rng)
            pos = pos.play(turn)
            if turn.count(">") >= least:
                return pos, turn
    raise AssertionError(f"no turn with {least} steals on size {size}")  # pragma: no cover


@pytest.mark.parametrize("size", SIZES)
def test_every_point_every_stone_and_the_rim(size: int) -> None:
    pos, last = played(size, 3 * size, seed=size)
    root = parse(board_svg(pos, last_turn=last, groups=True))
    points = by_class(root, "point")
    assert len(points) == point_count(size)
    assert [p.get("data-point") for p in points] == list(iter_points(size))
    stones = {s.get("data-point"): s.get("data-color") for s in by_class(root, "stone")}
    assert stones == {
        **{p: "black" for p in pos.stones(Color.BLACK)},
        **{p: "white" for p in pos.stones(Color.WHITE)},
    }
    # Each stone is drawn on its point.
    xy = {p.get("data-point", ""): (float(p.get("cx", "")), float(p.get("cy", ""))) for p in points}
    for s in by_class(root, "stone"):
        assert (float(s.get("cx", "")), float(s.get("cy", ""))) == xy[s.get("data-point", "")]
    # The rim: every row number and column letter once, each one step off the board.
    coords = by_class(root, "coord")
    rows = [str(r) for r in range(1, 2 * size)]
    letters = [chr(ord("a") + q) for q in range(2 * size - 1)]
    assert sorted(c.text or "" for c in coords) == sorted(rows + letters)
    assert all(c.get("data-coord") == c.text for c in coords)
    for c in coords:
        x, y = float(c.get("x", "")), float(c.get("y", ""))
        nearest = min(math.hypot(x - px, y - py) for px, py in xy.values())
        assert nearest == pytest.approx(UNIT, abs=0.2), (c.text, nearest)
    # A row's number is left of the row; a column's letter is below its foot.
    for c in coords:
        x, y = float(c.get("x", "")), float(c.get("y", ""))
        if c.text in rows:
            row = [xy[p] for p in xy if p[1:] == c.text]
            assert all(py == pytest.approx(y, abs=0.1) and px > x for px, py in row)
        else:
            column = [xy[p] for p in xy if p[:1] == c.text]
            assert all(py < y for _, py in column)
    # The picture scales: a viewBox always, pixel dimensions only when asked for.
    assert len((root.get("viewBox") or "").split()) == 4 and root.get("width") is None
    assert parse(board_svg(pos, size_px=300)).get("width") == "300"


@pytest.mark.parametrize("size", [2, 3, 5, 7, 13])
def test_the_layout_is_the_diagrams(size: int) -> None:
    """Each stone sits where ``Position.diagram()`` prints it: the diagram's character
    column is ``2 x / UNIT`` plus a constant and its line is the SVG's row."""
    pos, _ = played(size, 4 * size, seed=100 + size)
    root = parse(board_svg(pos))
    drawn = {
        (round(2 * float(s.get("cx", "")) / UNIT), round(float(s.get("cy", "")), 1)): s.get("data-color")
        for s in by_class(root, "stone")
    }
    lines = pos.diagram().splitlines()[: 2 * size - 1]
    printed = {}
    ys = sorted({y for _, y in drawn} | {round(float(p.get("cy", "")), 1) for p in by_class(root, "point")})
    for line_no, line in enumerate(lines):
        for col, ch in enumerate(line):
            if ch in "XO" and col >= 4:
                printed[(col, ys[line_no])] = "black" if ch == "X" else "white"
    assert len(printed) == len(drawn) == len(pos.stones("black")) + len(pos.stones("white"))
    shifts = {c - x for (x, _), (c, _) in zip(sorted(drawn), sorted(printed), strict=True)}
    assert len(shifts) == 1
    shift = shifts.pop()
    assert {(x + shift, y): color for (x, y), color in drawn.items()} == printed


@pytest.mark.parametrize("size", [3, 5, 7, 9, 13])
def test_the_last_turn_the_placed_stone_and_one_arrow_per_steal_in_order(size: int) -> None:
    pos, turn = with_steals(size, 2 if size >= 5 else 1)
    place, *steals = turn.split(",")
    root = parse(board_svg(pos, last_turn=turn))
    assert [p.get("data-point") for p in by_class(root, "placed")] == [place]
    arrows = by_class(root, "steal")
    assert [(a.get("data-n"), a.get("data-from"), a.get("data-to")) for a in arrows] == [
        (str(n), *s.split(">")) for n, s in enumerate(steals, 1)
    ]
    for arrow in arrows:  # the number is written on it
        assert [t.text for t in arrow.iter(NS + "text")] == [arrow.get("data-n")]
    # no last turn, no marks; a pass marks nothing
    assert not by_class(parse(board_svg(pos)), "steal")
    passed = parse(board_svg(pos, last_turn="pass"))
    assert not by_class(passed, "steal") and not by_class(passed, "placed")


def test_a_steal_onto_its_own_point_is_marked_too() -> None:
    pos = Position.new(5).setup("c3", "g7").play("f6,g7>g7")
    arrows = by_class(parse(board_svg(pos, last_turn="f6,g7>g7")), "steal")
    assert [(a.get("data-from"), a.get("data-to")) for a in arrows] == [("g7", "g7")]


@pytest.mark.parametrize("size", [2, 4, 7, 11])
def test_group_outlines_carry_their_points_and_sizes(size: int) -> None:
    pos, _ = played(size, 5 * size, seed=7 * size)
    root = parse(board_svg(pos, groups=True))
    drawn = sorted(
        (g.get("data-color"), sorted((g.get("data-points") or "").split())) for g in by_class(root, "group")
    )
    expected = sorted((c.value, sorted(g)) for c in (Color.BLACK, Color.WHITE) for g in pos.groups(c))
    assert drawn == expected
    assert all(
        g.get("data-size") == str(len((g.get("data-points") or "").split())) for g in by_class(root, "group")
    )
    labels = sorted((t.get("data-color"), t.text) for t in by_class(root, "group-size"))
    assert labels == sorted((c, str(len(g))) for c, g in expected)
    assert not by_class(parse(board_svg(pos)), "group")


def test_text_is_escaped_and_sizes_are_checked() -> None:
    title = 'a <b> & "c"'
    root = parse(board_svg(Position.new(3), title=title))
    assert root.find(NS + "title") is not None and root.findtext(NS + "title") == title
    assert root.get("aria-label") == title
    with pytest.raises(ValueError, match="size_px"):
        board_svg(Position.new(3), size_px=0)


def test_layout_is_cached_and_serialisable() -> None:
    lay = layout(7)
    assert layout(7) is lay and len(lay.names) == len(lay.xy) == len(lay.neighbours) == 127
    data = lay.to_json()
    assert data["names"] == list(iter_points(7))
    assert all(len(n) in (3, 4, 6) for n in lay.neighbours)
