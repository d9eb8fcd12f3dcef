"""Shapes of groups: equality up to translation, rotation and reflection.

In axial coordinates the six neighbour steps are, in turning order, (1,0), (1,1), (0,1),
(-1,0), (-1,-1), (0,-1). A 60-degree rotation is the linear map ``(q, r) -> (q - r, q)``
and swapping ``q`` and ``r`` is a reflection; their 12 combinations are the symmetries of
the lattice. A shape's canonical form is the smallest sorted, translated-to-origin tuple
of cells over those 12 images, so two groups have the same shape iff their canonical
forms are equal.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import add

Cells = tuple[tuple[int, int], ...]

# Canonical forms of groups seen so far, keyed by (row width, mask shifted to bit 0).
# A group's bitset shifted down to its lowest bit is invariant under translation on the
# board (see geometry: a connected set cannot wrap through the padding column), so the key
# identifies the group up to translation and most lookups are one dict hit.
_CACHE: dict[tuple[int, int], Cells] = {}
_CACHE_LIMIT = 200_000


def _images(cells: list[tuple[int, int]]) -> Iterable[list[tuple[int, int]]]:
    cur = cells
    for _ in range(6):
        yield cur
        yield [(r, q) for q, r in cur]
        cur = [(q - r, q) for q, r in cur]


def canonical(cells: Iterable[tuple[int, int]], *, reflections: bool = True) -> Cells:
    """The canonical form of a set of ``(q, r)`` cells: equal iff the same free shape
    (``reflections=False``: up to rotations and translations only)."""
    best: Cells | None = None
    for i, img in enumerate(_images(list(cells))):
        if not reflections and i % 2:
            continue
        mq = min(q for q, _ in img)
        mr = min(r for _, r in img)
        form = tuple(sorted((q - mq, r - mr) for q, r in img))
        if best is None or form < best:
            best = form
    return best if best is not None else ()


def translated(cells: Iterable[tuple[int, int]]) -> Cells:
    """Canonical form up to translation only."""
    c = list(cells)
    mq = min(q for q, _ in c)
    mr = min(r for _, r in c)
    return tuple(sorted((q - mq, r - mr) for q, r in c))


# The 12 images of _images as pairs of linear forms, indices into (q, r, q - r, -q, -r, r - q):
# rotation k, then its mirror, for k = 0..5.
_FORMS = ((0, 1), (1, 0), (2, 0), (0, 2), (4, 2), (2, 4), (3, 4), (4, 3), (5, 3), (3, 5), (1, 5), (5, 1))


def _canonical_fast(cells: list[tuple[int, int]]) -> Cells:
    """``canonical(cells)`` (with reflections) for a non-empty list, by integer keys.

    Each image's cells, translated to the origin, become ``u * M + v`` with ``M`` larger than
    any coordinate range, so sorting the keys sorts the cells and comparing key lists
    compares the forms exactly as :func:`canonical` compares its tuples.
    """
    qs = [q for q, _ in cells]
    rs = [r for _, r in cells]
    ds = [q - r for q, r in cells]
    qmin, qmax, rmin, rmax, dmin, dmax = min(qs), max(qs), min(rs), max(rs), min(ds), max(ds)
    m = qmax - qmin + rmax - rmin + 1  # > the range of every form (q - r's included)
    forms = (
        [q - qmin for q in qs],
        [r - rmin for r in rs],
        [d - dmin for d in ds],
        [qmax - q for q in qs],
        [rmax - r for r in rs],
        [dmax - d for d in ds],
    )
    scaled = [[m * x for x in f] for f in forms]
    best = min(sorted(map(add, scaled[u], forms[v])) for u, v in _FORMS)
    return tuple(divmod(k, m) for k in best)


def shape_of_mask(mask: int, width: int) -> Cells:
    """Canonical shape of the group ``mask`` on a board whose rows are ``width`` bits."""
    low = (mask & -mask).bit_length() - 1
    key = (width, mask >> low)
    form = _CACHE.get(key)
    if form is None:
        cells = []
        m = mask
        while m:
            b = m & -m
            p = b.bit_length() - 1
            cells.append((p % width, p // width))
            m ^= b
        form = _canonical_fast(cells)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        _CACHE[key] = form
    return form


def same_shape(a: int, b: int, width: int) -> bool:
    """Whether groups ``a`` and ``b`` (bitsets on the same board) have the same shape."""
    if a.bit_count() != b.bit_count():
        return False
    return shape_of_mask(a, width) == shape_of_mask(b, width)
