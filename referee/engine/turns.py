"""Turn notation and turns built step by step: what a turn *says*, apart from the position.

:func:`parse_turn` reads the text of a turn (``d4,e5>f6``, ``pass``) into point indices and
checks only syntax; whether the turn is legal is :meth:`Position.play`'s business. The
:class:`TurnBuilder` makes a turn one steal at a time (for search bots), and ``_expand``
enumerates every way to finish a turn's steals (for :meth:`Position.legal_turns`). They
drive the position's steal machine but hold no state of their own between turns, so they
live apart from :mod:`~referee.engine.position`, which is the position and its successors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import BadNotation, IllegalTurn
from .geometry import Geometry
from .steals import StealMachine

if TYPE_CHECKING:  # a TurnBuilder holds a Position; position.py imports this module
    from .position import Position


def _expand(m: StealMachine, prefix: str, names: dict[int, str], out: list[str]) -> None:
    """Depth-first: every way to finish the steals of ``m``, appended to ``out``."""
    for x, y in m.options():
        child = m.copy()
        child.apply(x, y)
        text = f"{prefix},{names[x]}>{names[y]}"
        if child.done:
            out.append(text)
        else:
            _expand(child, text, names, out)


def parse_turn(geo: Geometry, turn: str) -> tuple[int | None, list[tuple[int, int]]]:
    """Read a turn: ``(placement, [(from, to), ...])``; placement ``None`` for ``pass``.

    Only syntax is checked here (and that every point exists on this board).
    """
    if not isinstance(turn, str):
        raise BadNotation(f"a turn is a string, not {type(turn).__name__}")
    text = turn.strip().lower()
    if text == "pass":
        return None, []
    if not text:
        raise BadNotation("empty turn")
    index_of = geo.index_of
    parts = text.split(",")
    try:
        place = index_of[parts[0]]
        steals = []
        for part in parts[1:]:
            frm, to = part.split(">")
            steals.append((index_of[frm], index_of[to]))
        return place, steals
    except (KeyError, ValueError):
        pass
    # The slow path: say exactly what is wrong.
    if len(text.split()) > 1:
        raise BadNotation(f"a turn contains no spaces: {turn!r}")
    geo.parse(parts[0])
    for part in parts[1:]:
        halves = part.split(">")
        if len(halves) != 2:
            raise BadNotation(f"steal {part!r} is not FROM>TO")
        geo.parse(halves[0])
        geo.parse(halves[1])
    raise BadNotation(f"not a turn: {turn!r}")  # pragma: no cover - every case is caught above


class TurnBuilder:
    """A turn under construction: the placement is made, steals are added one at a time.

    This drives the same steal machine as :meth:`Position.play`, so a search bot can walk
    the steal rounds step by step instead of enumerating whole turns::

        tb = pos.begin_turn("d4")
        while not tb.is_complete:
            tb.steal(*tb.legal_steals()[0])
        pos = tb.position()
    """

    __slots__ = ("_gidx", "_group", "_m", "_place", "_pos", "_reach")

    def __init__(self, pos: Position, placement: int) -> None:
        self._pos = pos
        self._place = placement
        self._m, self._gidx, self._group, self._reach = pos._machine(placement)

    @property
    def is_complete(self) -> bool:
        """No steal is open: the turn may (and must) end here."""
        return self._m is None or self._m.done

    @property
    def steals(self) -> list[tuple[str, str]]:
        names = self._pos.geo.names
        return [] if self._m is None else [(names[x], names[y]) for x, y in self._m.steals]

    @property
    def round(self) -> int:
        """The steal round in progress (1 for the first)."""
        return 1 if self._m is None else self._m.rounds

    def legal_steals(self) -> list[tuple[str, str]]:
        """Every steal ``(from, to)`` that may come next (empty when complete)."""
        if self._m is None:
            return []
        names = self._pos.geo.names
        return [(names[x], names[y]) for x, y in self._m.options()]

    def steal(self, frm: str, to: str) -> None:
        """Make one steal; :class:`IllegalTurn` (nothing changes) if it is not legal now."""
        geo = self._pos.geo
        x, y = geo.parse(frm), geo.parse(to)
        n = len(self.steals) + 1
        if self._m is None:
            raise IllegalTurn(
                f"extra steal #{n} {geo.names[x]}>{geo.names[y]}: the turn was already complete"
            )
        why = self._m.check(x, y)
        if why is not None:
            raise IllegalTurn(f"steal #{n} {geo.names[x]}>{geo.names[y]}: {why}")
        self._m.apply(x, y)

    def copy(self) -> TurnBuilder:
        new = TurnBuilder.__new__(TurnBuilder)
        new._pos, new._place = self._pos, self._place
        new._gidx, new._group, new._reach = self._gidx, self._group, self._reach
        new._m = None if self._m is None else self._m.copy()
        return new

    @property
    def turn(self) -> str:
        """The turn so far in canonical notation."""
        names = self._pos.geo.names
        return ",".join([names[self._place]] + [f"{a}>{b}" for a, b in self.steals])

    def position(self) -> Position:
        """The position after the finished turn; :class:`IllegalTurn` if a steal is still owed."""
        if not self.is_complete:
            raise IllegalTurn(f"the turn {self.turn} is not complete: a compulsory steal remains")
        return self._pos._after(self._gidx, self._group, self._reach, self._m, self._place)
