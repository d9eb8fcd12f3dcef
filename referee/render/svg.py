"""A Vastuz position as an SVG picture: pure (a position in, SVG text out, no I/O).

The board is drawn as the triangular grid it is: a point on every intersection, a line
between every two neighbours, laid out as :meth:`Position.diagram` lays it out (the step
``(1, 0)`` points right, ``(1, 1)`` up and to the right, ``(0, 1)`` up and to the left;
row 1 at the bottom). As in the diagram, each row's number stands off its left end and
each column's letter off its foot. Everything is vector and sized by the ``viewBox``, so the
picture is crisp at any zoom.

Every element a program may want to read back carries data attributes: a point is
``<circle class="point" data-point="g7">``, a stone ``<circle class="stone"
data-point="g7" data-color="black">``, a rim label ``<text class="coord" data-coord="g">``,
the last turn's placed stone ``<circle class="placed" data-point=...>`` and each of its
steals ``<g class="steal" data-n="1" data-from="f6" data-to="e5">`` (an arrow FROM -> TO,
numbered in order; a steal onto its own point is a ring), a group outline ``<g
class="group" data-color=... data-size=... data-points="...">``.

:func:`layout` and :data:`STYLE` are what :mod:`referee.render.html` hands to the
browser, so that the replay page draws the same picture as this module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from xml.sax.saxutils import escape, quoteattr

from referee.engine import Color, Position, geometry, iter_points, parse_turn

UNIT = 40.0
"""Distance between two neighbouring points, in viewBox units."""
ROW = UNIT * math.sqrt(3) / 2
"""Vertical distance between two rows."""

STYLE: dict[str, float | str] = {
    "unit": UNIT,
    "board_fill": "#e8c887",
    "board_stroke": "#b48a45",
    "line": "#6b5427",
    "line_width": 1.2,
    "point_r": 0.07 * UNIT,
    "coord_fill": "#4a3a1a",
    "coord_size": 0.42 * UNIT,
    "stone_r": 0.44 * UNIT,
    "black_fill": "#161616",
    "black_stroke": "#000000",
    "white_fill": "#f7f5ee",
    "white_stroke": "#3a3a3a",
    "stone_stroke_width": 1.2,
    "placed_r": 0.17 * UNIT,
    "placed_stroke": "#e0302a",
    "placed_width": 3.0,
    "steal": "#e0302a",
    "steal_width": 3.2,
    "head_len": 0.34 * UNIT,
    "head_half": 0.17 * UNIT,
    "badge_r": 0.19 * UNIT,
    "badge_size": 0.26 * UNIT,
    "ghost_stroke": "#7a2a20",
    "group_black": "#3b7de0",
    "group_white": "#e08a1e",
    "group_opacity": 0.42,
    "group_pad": 0.16 * UNIT,
    "group_label_size": 0.36 * UNIT,
    "font": "DejaVu Sans, Verdana, Arial, sans-serif",
}
"""The look of a board, shared with the browser by :mod:`referee.render.html`."""


def _f(v: float) -> str:
    """A coordinate in at most one decimal, without a trailing ``.0``."""
    text = f"{v:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


@dataclass(frozen=True)
class BoardLayout:
    """Where everything of a board of side ``size`` goes. Points are numbered in
    :func:`~referee.engine.iter_points` order (0 is ``a1``)."""

    size: int
    names: tuple[str, ...]
    index: Mapping[str, int]
    xy: tuple[tuple[float, float], ...]
    neighbours: tuple[tuple[int, ...], ...]
    view_box: tuple[float, float, float, float]
    lines: str  # the path of every grid line
    rim: tuple[str, ...]  # the board's outline, for the background polygon
    coords: tuple[tuple[str, float, float], ...]  # (text, x, y) of every rim label

    def to_json(self) -> dict[str, object]:
        """What the browser needs to draw stones on this board (see :mod:`referee.render.html`)."""
        return {
            "names": list(self.names),
            "xy": [[round(x, 1), round(y, 1)] for x, y in self.xy],
            "nb": [list(n) for n in self.neighbours],
        }


def _xy(size: int, q: float, r: float) -> tuple[float, float]:
    n1 = size - 1
    return UNIT * (q - r / 2 - n1 / 2), ROW * (n1 - r)


@cache
def layout(size: int) -> BoardLayout:
    """The (cached) layout of the board of side ``size`` (2..13)."""
    geo = geometry(size)
    n1 = size - 1
    names = tuple(iter_points(size))
    index = {name: i for i, name in enumerate(names)}
    coords_of = [geo.coords(geo.parse(name)) for name in names]
    xy = tuple(_xy(size, q, r) for q, r in coords_of)
    neighbours = tuple(
        tuple(sorted(index[geo.names[p]] for p in geo.neighbours[geo.parse(name)])) for name in names
    )
    # Grid lines: every row, every column (up-left) and every diagonal (up-right), end to end.
    segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    span = range(2 * n1 + 1)
    for r in span:
        segs.append((_xy(size, max(0, r - n1), r), _xy(size, min(2 * n1, r + n1), r)))
    for q in span:
        segs.append((_xy(size, q, max(0, q - n1)), _xy(size, q, min(2 * n1, q + n1))))
    for d in range(-n1, n1 + 1):  # q - r = d
        lo, hi = max(0, -d), min(2 * n1, 2 * n1 - d)
        segs.append((_xy(size, lo + d, lo), _xy(size, hi + d, hi)))
    lines = "".join(f"M{_f(a[0])} {_f(a[1])}L{_f(b[0])} {_f(b[1])}" for a, b in segs)
    # The outline, half a step outside the corner points.
    corners = [(0, 0), (n1, 0), (2 * n1, n1), (2 * n1, 2 * n1), (n1, 2 * n1), (0, n1)]
    cx, cy = _xy(size, n1, n1)
    rim = []
    for q, r in corners:
        x, y = _xy(size, q, r)
        grow = (math.hypot(x - cx, y - cy) + 0.62 * UNIT) / max(math.hypot(x - cx, y - cy), 1e-9)
        rim.append(f"{_f(cx + (x - cx) * grow)},{_f(cy + (y - cy) * grow)}")
    # Rim labels, as in the diagram: each row's number one step beyond its left end, each
    # column's letter one step beyond its foot (its lower end).
    coords: list[tuple[str, float, float]] = []
    letters = "abcdefghijklmnopqrstuvwxyz"
    for r in span:
        coords.append((str(r + 1), *_xy(size, max(0, r - n1) - 1, r)))
    for q in span:
        coords.append((letters[q], *_xy(size, q, max(0, q - n1) - 1)))
    half_w = (n1 + 1) * UNIT + 0.5 * UNIT
    half_h = (n1 + 1) * ROW + 0.5 * UNIT
    return BoardLayout(
        size=size,
        names=names,
        index=index,
        xy=xy,
        neighbours=neighbours,
        view_box=(-half_w, -half_h, 2 * half_w, 2 * half_h),
        lines=lines,
        rim=tuple(rim),
        coords=tuple(coords),
    )


def svg_open(size: int, *, size_px: int | None = None, title: str | None = None) -> str:
    """The opening ``<svg>`` tag (with its ``<title>``) of a board of side ``size``."""
    lay = layout(size)
    x, y, w, h = lay.view_box
    dims = ""
    if size_px is not None:
        if size_px <= 0:
            raise ValueError(f"size_px must be positive, got {size_px}")
        dims = f' width="{size_px}" height="{max(1, round(size_px * h / w))}"'
    label = title if title is not None else f"Vastuz board, size {size}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{_f(x)} {_f(y)} {_f(w)} {_f(h)}"{dims}'
        f' class="vastuz-board" data-size="{size}" role="img" aria-label={quoteattr(label)}'
        f" font-family={quoteattr(str(STYLE['font']))}>"
        f"<title>{escape(label)}</title>"
    )


@cache
def grid_svg(size: int) -> str:
    """The board without stones: background, grid lines, points and rim coordinates."""
    lay = layout(size)
    s = STYLE
    out = [
        f'<polygon class="board" points="{" ".join(lay.rim)}" fill="{s["board_fill"]}"'
        f' stroke="{s["board_stroke"]}" stroke-width="2" stroke-linejoin="round"/>',
        f'<path class="lines" d="{lay.lines}" stroke="{s["line"]}" stroke-width="{s["line_width"]}"'
        ' stroke-linecap="round" fill="none"/>',
        f'<g class="points" fill="{s["line"]}">',
    ]
    r = _f(float(s["point_r"]))
    for name, (x, y) in zip(lay.names, lay.xy, strict=True):
        out.append(f'<circle class="point" data-point="{name}" cx="{_f(x)}" cy="{_f(y)}" r="{r}"/>')
    out.append(
        f'</g><g class="coords" fill="{s["coord_fill"]}" font-size="{_f(float(s["coord_size"]))}"'
        ' text-anchor="middle" dominant-baseline="central">'
    )
    for text, x, y in lay.coords:
        t = escape(text)
        out.append(f'<text class="coord" data-coord="{t}" x="{_f(x)}" y="{_f(y)}">{t}</text>')
    out.append("</g>")
    return "".join(out)


def stones_svg(size: int, stones: Mapping[str, Color]) -> str:
    """The stones (point name -> colour), in point order."""
    lay = layout(size)
    s = STYLE
    width = _f(float(s["stone_stroke_width"]))
    r = _f(float(s["stone_r"]))
    out = ['<g class="stones">']
    for name in sorted(stones, key=lambda n: lay.index[n]):
        color = Color(stones[name])
        x, y = lay.xy[lay.index[name]]
        out.append(
            f'<circle class="stone" data-point="{name}" data-color="{color.value}" cx="{_f(x)}"'
            f' cy="{_f(y)}" r="{r}" fill="{s[color.value + "_fill"]}"'
            f' stroke="{s[color.value + "_stroke"]}" stroke-width="{width}"/>'
        )
    out.append("</g>")
    return "".join(out)


def _label_point(lay: BoardLayout, members: list[int]) -> int:
    """The member nearest the group's centre (the first such in point order)."""
    mx = sum(lay.xy[i][0] for i in members) / len(members)
    my = sum(lay.xy[i][1] for i in members) / len(members)
    return min(members, key=lambda i: ((lay.xy[i][0] - mx) ** 2 + (lay.xy[i][1] - my) ** 2, i))


def groups_svg(size: int, groups: Iterable[tuple[Color, Iterable[str]]]) -> tuple[str, str]:
    """Outlines under the stones and size labels over them, for each ``(colour, points)``."""
    lay = layout(size)
    s = STYLE
    halo = float(s["stone_r"]) + float(s["group_pad"])
    under = ['<g class="groups">']
    over = [
        f'<g class="group-sizes" font-size="{_f(float(s["group_label_size"]))}" font-weight="bold"'
        ' text-anchor="middle" dominant-baseline="central">'
    ]
    for color, points in groups:
        color = Color(color)
        members = sorted(lay.index[p] for p in points)
        if not members:
            continue
        inside = set(members)
        stroke = s["group_" + color.value]
        d = "".join(
            f"M{_f(lay.xy[a][0])} {_f(lay.xy[a][1])}L{_f(lay.xy[b][0])} {_f(lay.xy[b][1])}"
            for a in members
            for b in lay.neighbours[a]
            if b > a and b in inside
        )
        names = " ".join(lay.names[i] for i in members)
        under.append(
            f'<g class="group" data-color="{color.value}" data-size="{len(members)}" data-points="{names}"'
            f' fill="{stroke}" stroke="{stroke}" opacity="{s["group_opacity"]}">'
        )
        if d:
            under.append(f'<path d="{d}" stroke-width="{_f(2 * halo)}" stroke-linecap="round" fill="none"/>')
        for i in members:
            under.append(
                f'<circle cx="{_f(lay.xy[i][0])}" cy="{_f(lay.xy[i][1])}" r="{_f(halo)}" stroke="none"/>'
            )
        under.append("</g>")
        at = _label_point(lay, members)
        ink = s["white_fill"] if color is Color.BLACK else s["black_fill"]
        over.append(
            f'<text class="group-size" data-color="{color.value}" x="{_f(lay.xy[at][0])}"'
            f' y="{_f(lay.xy[at][1])}" fill="{ink}">{len(members)}</text>'
        )
    under.append("</g>")
    over.append("</g>")
    return "".join(under), "".join(over)


def _badge(x: float, y: float, n: int) -> str:
    s = STYLE
    return (
        f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(float(s["badge_r"]))}" fill="{s["steal"]}"'
        ' stroke="#ffffff" stroke-width="1"/>'
        f'<text x="{_f(x)}" y="{_f(y)}" fill="#ffffff" font-size="{_f(float(s["badge_size"]))}"'
        f' font-weight="bold" text-anchor="middle" dominant-baseline="central">{n}</text>'
    )


def last_turn_svg(size: int, placement: str | None, steals: list[tuple[str, str]]) -> str:
    """The marks of a turn: a ring on the placed stone, and each steal as a numbered arrow."""
    lay = layout(size)
    s = STYLE
    stone_r = float(s["stone_r"])
    out = ['<g class="last-turn">']
    if placement is not None:
        x, y = lay.xy[lay.index[placement]]
        out.append(
            f'<circle class="placed" data-point="{placement}" cx="{_f(x)}" cy="{_f(y)}"'
            f' r="{_f(float(s["placed_r"]))}" fill="none" stroke="{s["placed_stroke"]}"'
            f' stroke-width="{s["placed_width"]}"/>'
        )
    for frm in dict.fromkeys(f for f, t in steals if f != t):  # where a stone was taken away
        x, y = lay.xy[lay.index[frm]]
        out.append(
            f'<circle class="taken" data-point="{frm}" cx="{_f(x)}" cy="{_f(y)}" r="{_f(stone_r * 0.8)}"'
            f' fill="none" stroke="{s["ghost_stroke"]}" stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
    head_len, head_half = float(s["head_len"]), float(s["head_half"])
    for n, (frm, to) in enumerate(steals, 1):
        (x1, y1), (x2, y2) = lay.xy[lay.index[frm]], lay.xy[lay.index[to]]
        out.append(
            f'<g class="steal" data-n="{n}" data-from="{frm}" data-to="{to}" stroke="{s["steal"]}"'
            f' fill="{s["steal"]}">'
        )
        length = math.hypot(x2 - x1, y2 - y1)
        if length < 1e-6:  # the stolen stone's own point: a ring round the stone
            out.append(
                f'<circle cx="{_f(x1)}" cy="{_f(y1)}" r="{_f(stone_r + 3)}" fill="none"'
                f' stroke-width="{s["steal_width"]}" stroke-dasharray="7 4"/>'
            )
            out.append(_badge(x1 - stone_r * 0.75, y1 - stone_r * 0.75, n))
        else:
            ux, uy = (x2 - x1) / length, (y2 - y1) / length
            sx, sy = x1 + ux * stone_r * 0.45, y1 + uy * stone_r * 0.45
            tx, ty = x2 - ux * stone_r * 0.55, y2 - uy * stone_r * 0.55  # the arrow's tip
            bx, by = tx - ux * head_len, ty - uy * head_len
            out.append(
                f'<line x1="{_f(sx)}" y1="{_f(sy)}" x2="{_f(bx)}" y2="{_f(by)}"'
                f' stroke-width="{s["steal_width"]}" stroke-linecap="round"/>'
            )
            out.append(
                f'<path d="M{_f(tx)} {_f(ty)}L{_f(bx - uy * head_half)} {_f(by + ux * head_half)}'
                f'L{_f(bx + uy * head_half)} {_f(by - ux * head_half)}Z" stroke="none"/>'
            )
            out.append(_badge((sx + bx) / 2, (sy + by) / 2, n))
        out.append("</g>")
    out.append("</g>")
    return "".join(out)


def read_turn(size: int, turn: str) -> tuple[str | None, list[tuple[str, str]]]:
    """``(placement, [(from, to), ...])`` of a turn in notation (placement None for a pass);
    :class:`~referee.engine.BadNotation` if it cannot be read."""
    geo = geometry(size)
    place, steals = parse_turn(geo, turn)
    names = geo.names
    return (None if place is None else names[place]), [(names[a], names[b]) for a, b in steals]


def board_svg(
    position: Position,
    *,
    last_turn: str | None = None,
    groups: bool = False,
    size_px: int | None = None,
    title: str | None = None,
) -> str:
    """The SVG picture of ``position``: one self-contained ``<svg>`` element.

    ``last_turn`` (the turn that led to ``position``, in notation) marks its placed stone
    and draws its steals as numbered arrows FROM -> TO; ``groups`` outlines every group
    and writes its size on it; ``size_px`` sets the width in pixels (the height follows),
    else the picture fills whatever holds it; ``title`` replaces the default ``<title>``.
    """
    size = position.size
    stones = {p: Color.BLACK for p in position.stones(Color.BLACK)}
    stones.update({p: Color.WHITE for p in position.stones(Color.WHITE)})
    under = over = ""
    if groups:
        under, over = groups_svg(
            size, [(c, g) for c in (Color.BLACK, Color.WHITE) for g in position.groups(c)]
        )
    marks = ""
    if last_turn is not None:
        placement, steals = read_turn(size, last_turn)
        marks = last_turn_svg(size, placement, steals)
    return (
        svg_open(size, size_px=size_px, title=title)
        + grid_svg(size)
        + under
        + stones_svg(size, stones)
        + over
        + marks
        + "</svg>"
    )
