"""The hex-hex board: axial coordinates, point names, neighbour tables and bitsets.

Points are small ints: the bit index ``r * W + q`` with ``W = 2N`` (one padding column).
With that padding the six neighbours of every point are the bit shifts ``±1``, ``±W`` and
``±(W+1)``, and a shift that walks off the board lands on a padding bit or outside the
board mask, never on another real point. So a set of points is a Python ``int`` and
"all neighbours of a set" is six shifts and a mask: the engine's hot operations are a
handful of big-int instructions instead of loops over points.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from .errors import BadNotation

MIN_SIZE = 2
MAX_SIZE = 13
LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, eq=False)
class Geometry:
    """Everything about a board of side ``size`` that never changes. Get it from :func:`geometry`."""

    size: int
    width: int  # W: bits per row, 2N (2N-1 columns plus one padding column)
    board: int  # mask of the real points
    points: tuple[int, ...]  # every point index, in (r, q) order
    names: dict[int, str] = field(repr=False)
    index_of: dict[str, int] = field(repr=False)
    neighbours: dict[int, tuple[int, ...]] = field(repr=False)
    neighbour_mask: dict[int, int] = field(repr=False)

    @property
    def point_count(self) -> int:
        return len(self.points)

    def coords(self, p: int) -> tuple[int, int]:
        """Axial ``(q, r)`` of point index ``p``."""
        return p % self.width, p // self.width

    def index(self, q: int, r: int) -> int | None:
        """Point index of ``(q, r)``, or ``None`` if it is not on the board."""
        n1 = self.size - 1
        if 0 <= q <= 2 * n1 and 0 <= r <= 2 * n1 and abs(q - r) <= n1:
            return r * self.width + q
        return None

    def dilate(self, mask: int) -> int:
        """The points of ``mask`` plus all their neighbours (on the board)."""
        w = self.width
        return (
            mask | mask << 1 | mask >> 1 | mask << w | mask >> w | mask << (w + 1) | mask >> (w + 1)
        ) & self.board

    def parse(self, name: str) -> int:
        """Point index of a name such as ``g7`` (any case); :class:`BadNotation` if there is none."""
        p = self.index_of.get(name)
        if p is not None:
            return p
        p = self.index_of.get(name.strip().lower())
        if p is not None:
            return p
        raise BadNotation(self._why_not_a_point(name))

    def _why_not_a_point(self, name: str) -> str:
        text = name.strip().lower()
        if len(text) >= 2 and text[0] in LETTERS and text[1:].isdigit() and text[1] != "0":
            q, r = LETTERS.index(text[0]), int(text[1:]) - 1
            n1 = self.size - 1
            if q <= 2 * n1 and r <= 2 * n1:
                return f"point {name!r} is off the size-{self.size} board"
            return f"no point {name!r} on a size-{self.size} board"
        return f"not a point name: {name!r}"


def bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _kth_bit(mask: int, k: int) -> int:
    """Index of the ``k``-th (0-based, from the lowest) set bit of ``mask``, by bisection."""
    lo, hi = 0, mask.bit_length()
    # invariant: the answer is in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if (mask & ((1 << mid) - 1)).bit_count() > k:
            hi = mid
        else:
            lo = mid
    return lo


@cache
def geometry(size: int) -> Geometry:
    """The (shared, immutable) geometry of the board of side ``size`` (2..13)."""
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
    n1 = size - 1
    width = 2 * size
    points = []
    names: dict[int, str] = {}
    for r in range(2 * n1 + 1):
        for q in range(2 * n1 + 1):
            if abs(q - r) <= n1:
                p = r * width + q
                points.append(p)
                names[p] = f"{LETTERS[q]}{r + 1}"
    board = 0
    for p in points:
        board |= 1 << p
    neighbours: dict[int, tuple[int, ...]] = {}
    neighbour_mask: dict[int, int] = {}
    for p in points:
        q, r = p % width, p // width
        adj = []
        for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)):
            qq, rr = q + dq, r + dr
            if 0 <= qq <= 2 * n1 and 0 <= rr <= 2 * n1 and abs(qq - rr) <= n1:
                adj.append(rr * width + qq)
        neighbours[p] = tuple(sorted(adj))
        m = 0
        for a in adj:
            m |= 1 << a
        neighbour_mask[p] = m
    index_of = {name: p for p, name in names.items()}
    return Geometry(
        size=size,
        width=width,
        board=board,
        points=tuple(points),
        names=names,
        index_of=index_of,
        neighbours=neighbours,
        neighbour_mask=neighbour_mask,
    )


def parse_point(size: int, name: str) -> int:
    """Point index of ``name`` on a board of side ``size``; :class:`BadNotation` if none."""
    return geometry(size).parse(name)


def point_name(size: int, p: int) -> str:
    """Canonical (lowercase) name of point index ``p`` on a board of side ``size``."""
    try:
        return geometry(size).names[p]
    except KeyError:
        raise ValueError(f"{p} is not a point index on a size-{size} board") from None


def point_count(size: int) -> int:
    """``3N(N-1)+1``: the number of points on a board of side ``N``."""
    return 3 * size * (size - 1) + 1


def iter_points(size: int) -> Iterator[str]:
    """Every point name of the board of side ``size``, in row order."""
    geo = geometry(size)
    return (geo.names[p] for p in geo.points)


@cache
def board_symmetries(size: int) -> tuple[dict[str, str], ...]:
    """The 12 symmetries of the board of side ``size`` (6 rotations about the centre, each
    with and without a reflection; the identity first), each as a map from a point's name
    to its image's. The same 12 maps as :mod:`.shapes` uses for group shapes, centred on the
    middle point, where they carry the board onto itself."""
    geo = geometry(size)
    n1 = size - 1
    cells = [(p % geo.width - n1, p // geo.width - n1) for p in geo.points]
    out = []
    for turn in range(6):
        for mirror in (False, True):
            image = {}
            for p, (x, y) in zip(geo.points, cells, strict=True):
                for _ in range(turn):
                    x, y = x - y, x
                if mirror:
                    x, y = y, x
                target = geo.index(x + n1, y + n1)
                assert target is not None  # a symmetry of the hexagon keeps every point on it
                image[geo.names[p]] = geo.names[target]
            out.append(image)
    return tuple(out)
