"""Positions: the public face of the rules engine.

A :class:`Position` is immutable: :meth:`Position.play` returns a new one. Stones are kept
as two bitsets and, per colour, a tuple of group bitsets with their dilations (the group
plus its neighbours), updated incrementally turn by turn, so that legal placements are a
few big-int operations per group and a turn without steals touches one group.

The notation of turns and the step-by-step :class:`~referee.engine.turns.TurnBuilder` are
in :mod:`~referee.engine.turns`, the score formula in :mod:`~referee.engine.score`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .color import Color
from .errors import IllegalTurn
from .geometry import Geometry, _kth_bit, bits, geometry
from .score import _fmt_points, score_of
from .steals import StealMachine, components, same_shape_targets
from .turns import TurnBuilder, _expand, parse_turn

_COLORS = (Color.BLACK, Color.WHITE)


def _color_index(color: str | Color) -> int:
    """0 for Black, 1 for White (the index into per-colour tuples); accepts b/black/w/white."""
    return 0 if Color.parse(color) is Color.BLACK else 1


class Position:
    """A Vastuz position: stones, side to move, and everything derived from them.

    Build one with :meth:`new` or :meth:`from_stones`; get successors with :meth:`setup`
    (the pie-rule stones) and :meth:`play` (a whole turn in canonical notation).
    """

    __slots__ = ("_adj", "_groups", "_mover", "_next", "_pm", "_reach", "_stones", "geo")

    geo: Geometry
    _stones: tuple[int, int]
    _groups: tuple[tuple[int, ...], tuple[int, ...]]
    _reach: tuple[tuple[int, ...], tuple[int, ...]]
    _mover: int
    # Per colour, ``(once, twice)``: the points next to at least one / at least two of that
    # colour's groups (``None`` until needed). Kept incrementally from turn to turn, so the
    # legal placements are ``empty & ~twice`` whatever the number of groups.
    _adj: list[tuple[int, int] | None]
    # The mover's legal placements (``None`` until needed): asked for by ``is_over`` and
    # again by ``play`` / ``random_turn`` on the same position, so computed once.
    _pm: int | None
    _next: tuple[str, Position] | None

    # -- construction ------------------------------------------------------------------
    @classmethod
    def _make(
        cls,
        geo: Geometry,
        stones: tuple[int, int],
        groups: tuple[tuple[int, ...], tuple[int, ...]],
        reach: tuple[tuple[int, ...], tuple[int, ...]],
        mover: int,
        adj: list[tuple[int, int] | None] | None = None,
        pm: int | None = None,
    ) -> Position:
        pos = object.__new__(cls)
        pos.geo = geo
        pos._stones = stones
        pos._groups = groups
        pos._reach = reach
        pos._mover = mover
        pos._adj = [None, None] if adj is None else adj
        pos._pm = pm
        pos._next = None
        return pos

    @classmethod
    def _from_masks(cls, geo: Geometry, black: int, white: int, mover: int) -> Position:
        gb = tuple(components(black, geo))
        gw = tuple(components(white, geo))
        rb = tuple(geo.dilate(g) for g in gb)
        rw = tuple(geo.dilate(g) for g in gw)
        return cls._make(geo, (black, white), (gb, gw), (rb, rw), mover)

    @classmethod
    def new(cls, size: int = 7) -> Position:
        """The empty board of side ``size`` (2..13), Black to move."""
        return cls._make(geometry(size), (0, 0), ((), ()), ((), ()), 0)

    @classmethod
    def from_stones(
        cls,
        size: int,
        black: Iterable[str],
        white: Iterable[str],
        to_move: str | Color = Color.BLACK,
    ) -> Position:
        """A position from point names. Groups are whatever the stones form; ``to_move``
        is ``"black"``/``"white"`` (or ``b``/``w``, or a :class:`Color`)."""
        geo = geometry(size)
        masks = []
        for label, names in (("black", black), ("white", white)):
            m = 0
            for name in names:
                p = geo.parse(name)
                if m >> p & 1:
                    raise ValueError(f"{label} stone {geo.names[p]} is listed twice")
                m |= 1 << p
            masks.append(m)
        both = masks[0] & masks[1]
        if both:
            raise ValueError(f"point {geo.names[bits(both)[0]]} holds both a black and a white stone")
        mover = _color_index(to_move)
        return cls._from_masks(geo, masks[0], masks[1], mover)

    @classmethod
    def from_masks(cls, size: int, black: int, white: int, to_move: str | Color = Color.BLACK) -> Position:
        """A position from stone bitsets, as :attr:`stone_masks` gives them (bit ``p`` for
        the point of index ``p``): :meth:`from_stones` without naming every point, for a
        replay that already has the stones as bits."""
        geo = geometry(size)
        if black < 0 or white < 0 or (black | white) & ~geo.board:
            raise ValueError(f"a stone off the board of size {size}")
        if black & white:
            raise ValueError(
                f"point {geo.names[bits(black & white)[0]]} holds both a black and a white stone"
            )
        return cls._from_masks(geo, black, white, _color_index(to_move))

    # -- plain facts -------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.geo.size

    @property
    def to_move(self) -> Color:
        return _COLORS[self._mover]

    @property
    def is_empty(self) -> bool:
        return not (self._stones[0] | self._stones[1])

    def stones(self, color: Color | str) -> list[str]:
        """The points of ``color``'s stones, sorted as plain strings."""
        c = _color_index(color)
        names = self.geo.names
        return sorted(names[p] for p in bits(self._stones[c]))

    def groups(self, color: Color | str) -> list[list[str]]:
        """``color``'s groups, each a sorted list of point names (largest first)."""
        c = _color_index(color)
        names = self.geo.names
        out = [sorted(names[p] for p in bits(g)) for g in self._groups[c]]
        out.sort(key=lambda g: (-len(g), g))
        return out

    @property
    def stone_masks(self) -> tuple[int, int]:
        """``(black, white)``: the stones as bitsets of point indices (bit ``p`` is the
        geometry's point ``p``), for code that compares positions wholesale (a replay's
        changed points) without naming every point."""
        return self._stones

    def group_sizes(self, color: Color | str) -> list[int]:
        """The sizes of ``color``'s groups, largest first (as :meth:`groups` lists them)."""
        return sorted((g.bit_count() for g in self._groups[_color_index(color)]), reverse=True)

    def stone_at(self, point: str) -> Color | None:
        p = self.geo.parse(point)
        if self._stones[0] >> p & 1:
            return Color.BLACK
        if self._stones[1] >> p & 1:
            return Color.WHITE
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.geo is other.geo and self._stones == other._stones and self._mover == other._mover

    def __hash__(self) -> int:
        return hash((self.geo.size, self._stones, self._mover))

    def __repr__(self) -> str:
        return (
            f"Position.from_stones({self.size}, {self.stones('black')!r}, "
            f"{self.stones('white')!r}, {self.to_move.value!r})"
        )

    # -- placements and the end ----------------------------------------------------------
    def _adjacency(self, c: int) -> tuple[int, int]:
        """``(once, twice)`` for colour ``c`` (see ``_adj``), computed on first use."""
        adj = self._adj[c]
        if adj is None:
            once = twice = 0
            for r in self._reach[c]:
                twice |= once & r
                once |= r
            adj = self._adj[c] = (once, twice)
        return adj

    def _placements(self, c: int) -> int:
        """Bitset of ``c``'s legal placements: empty and next to at most one own group."""
        if c == self._mover:
            pm = self._pm
            if pm is not None:
                return pm
        adj = self._adj[c]
        twice = adj[1] if adj is not None else self._adjacency(c)[1]
        mask = self.geo.board & ~(self._stones[0] | self._stones[1] | twice)
        if c == self._mover:
            self._pm = mask
        return mask

    @property
    def is_over(self) -> bool:
        """True when neither player has a legal placement (rules.md "End check")."""
        pm = self._pm
        if pm is None:
            pm = self._placements(self._mover)
        return not pm and not self._placements(1 - self._mover)

    @property
    def must_pass(self) -> bool:
        """True when the side to move has no placement but the game goes on."""
        return not self._placements(self._mover) and bool(self._placements(1 - self._mover))

    def legal_placements(self) -> list[str]:
        """Points where the side to move may place, sorted as plain strings."""
        if self.is_over:
            return []
        names = self.geo.names
        return sorted(names[p] for p in bits(self._placements(self._mover)))

    def placement_mask(self) -> int:
        """The legal placements as a bitset of point indices (for fast search code)."""
        return self._placements(self._mover)

    # -- score -------------------------------------------------------------------------
    def score(self) -> tuple[float, float]:
        """``(black, white)`` by the score formula, applied to the position as it stands."""
        sb = [g.bit_count() for g in self._groups[0]]
        sw = [g.bit_count() for g in self._groups[1]]
        return float(score_of(sb, sw)), float(score_of(sw, sb))

    def result(self) -> str:
        """The score as GTP ``final_score`` writes it: ``B+4.5``, ``W+1`` or ``0``."""
        b, w = self.score()
        if b > w:
            return "B+" + _fmt_points(b - w)
        if w > b:
            return "W+" + _fmt_points(w - b)
        return "0"

    @property
    def winner(self) -> Color | None:
        """The side ahead on score (the winner once the game is over); ``None`` if level."""
        b, w = self.score()
        return Color.BLACK if b > w else Color.WHITE if w > b else None

    # -- the pie rule --------------------------------------------------------------------
    def setup(self, black_point: str, white_point: str) -> Position:
        """The pie-rule opening: one Black and one White stone on an empty board; Black to move."""
        geo = self.geo
        b = geo.parse(black_point)
        w = geo.parse(white_point)
        if not self.is_empty:
            raise IllegalTurn("setup is only allowed on an empty board")
        if b == w:
            raise IllegalTurn(f"setup puts both stones on {geo.names[b]}: the two points must differ")
        return Position._from_masks(geo, 1 << b, 1 << w, 0)

    # -- turns ---------------------------------------------------------------------------
    def _machine(self, p: int) -> tuple[StealMachine | None, int | None, int, int]:
        """Place on ``p`` (assumed legal). Returns the steal machine (``None`` when no steal
        is possible at all, the common case), the index of the grown group (or ``None`` for
        a new one), and G with its reach."""
        c = self._mover
        bit = 1 << p
        geo = self.geo
        reach = self._reach[c]
        adj = self._adj[c]
        if adj is None:
            adj = self._adjacency(c)
        once = adj[0]
        gidx: int | None
        if once & bit:
            # The placement is legal, so exactly one group's reach holds it.
            gidx = 0
            for old_reach in reach:
                if old_reach & bit:
                    break
                gidx += 1
            group = self._groups[c][gidx] | bit
            greach = old_reach | geo.neighbour_mask[p]
        else:
            gidx = None
            old_reach = 0
            group = bit
            greach = geo.neighbour_mask[p] | bit
        stones = self._stones
        enemy = stones[1 - c]
        touching = enemy & greach
        if not touching:
            return None, gidx, group, greach
        enemy_groups = self._groups[1 - c]
        if gidx is None:
            # G is the new stone alone, so T is the touching enemy stones that are groups of
            # one (no enemy neighbour): no group to look up, no shape to compare. (T's order
            # is immaterial: the machine sorts the steals it lists and otherwise only asks
            # which group of T holds a stone.)
            neighbour_mask = geo.neighbour_mask
            targets = []
            while touching:
                low = touching & -touching
                if not neighbour_mask[low.bit_length() - 1] & enemy:
                    targets.append(low)
                touching ^= low
        else:
            targets = same_shape_targets(group, touching, enemy_groups, geo.width)
        if not targets:
            return None, gidx, group, greach
        # The points next to another own group: outside G's old reach, those next to any
        # own group; inside it (G counts once there), those next to two.
        blocked = once & ~(old_reach & ~adj[1])
        m = StealMachine(
            geo,
            stones[c] | bit,
            enemy,
            group,
            greach,
            blocked,
            list(enemy_groups),
            list(self._reach[1 - c]),
            targets,
        )
        return m, gidx, group, greach

    def _after(
        self, gidx: int | None, group: int, greach: int, m: StealMachine | None, placed: int
    ) -> Position:
        c = self._mover
        geo = self.geo
        if m is not None:
            group, greach = m.group, m.reach
        own = self._groups[c]
        own_r = self._reach[c]
        if gidx is None:
            old_reach = 0
            new_own = (*own, group)
            new_r = (*own_r, greach)
        else:
            old_reach = own_r[gidx]
            grown = list(own)
            grown[gidx] = group
            new_own = tuple(grown)
            grown = list(own_r)
            grown[gidx] = greach
            new_r = tuple(grown)
        # Carry the adjacency masks over: the mover's group only grew (from old_reach to
        # greach), so a point newly next to it is next to two groups iff it was already
        # next to one; the enemy's groups are untouched unless something was stolen.
        adj = self._adj[c]
        own_adj = None if adj is None else (adj[0] | greach, adj[1] | (greach & ~old_reach & adj[0]))
        pm = None
        if m is None:
            b, w = self._stones
            if c:
                w |= 1 << placed
            else:
                b |= 1 << placed
            enemy = self._groups[1 - c]
            enemy_r = self._reach[1 - c]
            enemy_adj = self._adj[1 - c]
            if enemy_adj is not None:
                # The next mover's placements, wanted at once by is_over (and then by play).
                pm = geo.board & ~(b | w | enemy_adj[1])
        else:
            b, w = (m.mover_stones, m.enemy_stones) if c == 0 else (m.enemy_stones, m.mover_stones)
            # The untouched groups keep their reach; only the parts left by steals are dilated.
            enemy = tuple(m.enemy_groups)
            kept = m.kept_reach
            enemy_r = (*kept, *map(geo.dilate, enemy[len(kept) :]))
            enemy_adj = None
        if c == 0:
            return Position._make(
                geo, (b, w), (new_own, enemy), (new_r, enemy_r), 1, [own_adj, enemy_adj], pm
            )
        return Position._make(geo, (b, w), (enemy, new_own), (enemy_r, new_r), 0, [enemy_adj, own_adj], pm)

    def _passed(self) -> Position:
        # Same stones, so the same adjacency masks (a copy: each position fills its own lazily).
        return Position._make(
            self.geo, self._stones, self._groups, self._reach, 1 - self._mover, list(self._adj)
        )

    def _placement_error(self, p: int) -> IllegalTurn:
        """Why placing on ``p`` is illegal (``p`` is not a legal placement; the game is not over)."""
        bit = 1 << p
        name = self.geo.names[p]
        if (self._stones[0] | self._stones[1]) & bit:
            return IllegalTurn(f"placement {name} is occupied")
        n = sum(1 for r in self._reach[self._mover] if r & bit)
        return IllegalTurn(
            f"placement {name} touches {n} groups of {self.to_move.value} (it would merge them)"
        )

    def _check_placement(self, p: int) -> None:
        if not self._placements(self._mover) >> p & 1:
            raise self._placement_error(p)

    def play(self, turn: str) -> Position:
        """The position after ``turn`` (canonical notation, any case).

        Raises :class:`BadNotation` for text that is not a turn and :class:`IllegalTurn`,
        with the rule that is broken, for a turn the rules forbid here.
        """
        cached = self._next
        if cached is not None and cached[0] == turn:
            # The successor random_turn() built with the same machine: hand it over and
            # forget it, so a game played this way holds no chain of positions alive.
            self._next = None
            return cached[1]
        geo = self.geo
        # A bare placement in canonical form (most turns) is one dict hit; anything else
        # goes through parse_turn, which says what is wrong with bad text.
        place = geo.index_of.get(turn) if type(turn) is str else None
        steals: list[tuple[int, int]] | tuple[()]
        if place is None:
            place, steals = parse_turn(geo, turn)
        else:
            steals = ()
        pm = self._pm
        if pm is None:
            pm = self._placements(self._mover)
        # The game is over iff neither side can place: with a placement for the mover
        # (known here), it is not, so the other side is looked at only when needed.
        if place is None:
            if pm:
                raise IllegalTurn("pass while a legal placement exists")
            if not self._placements(1 - self._mover):
                raise IllegalTurn("the game is over: no turn may be played")
            return self._passed()
        if not pm >> place & 1:
            if not pm and not self._placements(1 - self._mover):
                raise IllegalTurn("the game is over: no turn may be played")
            raise self._placement_error(place)
        m, gidx, group, greach = self._machine(place)
        names = geo.names
        if m is None:
            if steals:
                x, y = steals[0]
                raise IllegalTurn(f"extra steal #1 {names[x]}>{names[y]}: the turn was already complete")
            return self._after(gidx, group, greach, None, place)
        for i, (x, y) in enumerate(steals, 1):
            why = m.check(x, y)
            if why is not None:
                kind = "extra steal" if m.done else "steal"
                raise IllegalTurn(f"{kind} #{i} {names[x]}>{names[y]}: {why}")
            m.apply(x, y)
        if not m.done:
            opts = m.options()
            x, y = opts[0]
            raise IllegalTurn(
                f"missing compulsory steal after {len(steals)} steal(s), e.g. {names[x]}>{names[y]}"
                f" ({len(opts)} legal steal{'s' if len(opts) != 1 else ''} open)"
            )
        return self._after(gidx, group, greach, m, place)

    def legal_turns(self) -> list[str]:
        """Every complete legal turn, canonical and sorted as plain strings.

        ``["pass"]`` when the mover has no placement but the game goes on; ``[]`` when it is over.
        """
        if self.is_over:
            return []
        mask = self._placements(self._mover)
        if not mask:
            return ["pass"]
        names = self.geo.names
        out: list[str] = []
        for p in bits(mask):
            m, _, _, _ = self._machine(p)
            head = names[p]
            if m is None or m.done:
                out.append(head)
            else:
                _expand(m, head, names, out)
        out.sort()
        return out

    def random_turn(self, rng: random.Random) -> str:
        """A legal turn: a uniformly random placement, then a uniformly random legal steal at
        each step; ``"pass"`` when forced. Raises :class:`IllegalTurn` if the game is over."""
        mask = self._placements(self._mover)
        if not mask:
            if self.is_over:
                raise IllegalTurn("the game is over: there is no turn to make")
            return "pass"
        n = mask.bit_count()
        points = self.geo.points
        if 3 * n >= len(points):
            # Dense: rejection sampling over all points is uniform on the legal ones and
            # cheaper than locating the k-th set bit of a wide int.
            rand = rng.random
            total = len(points)
            while True:
                p = points[int(rand() * total)]
                if mask >> p & 1:
                    break
        else:
            p = _kth_bit(mask, rng.randrange(n))
        m, gidx, group, greach = self._machine(p)
        names = self.geo.names
        turn = names[p]
        if m is not None:
            parts = [turn]
            while not m.done:
                x, y = rng.choice(m.options())
                m.apply(x, y)
                parts.append(f"{names[x]}>{names[y]}")
            turn = ",".join(parts)
        self._next = (turn, self._after(gidx, group, greach, m, p))
        return turn

    def begin_turn(self, placement: str) -> TurnBuilder:
        """Start a turn with ``placement`` and make its steals one at a time (see :class:`TurnBuilder`)."""
        p = self.geo.parse(placement)
        if self.is_over:
            raise IllegalTurn("the game is over: no turn may be played")
        self._check_placement(p)
        return TurnBuilder(self, p)

    # -- display -------------------------------------------------------------------------
    def diagram(self) -> str:
        """The board as text: ``X`` Black, ``O`` White, ``.`` empty; rows numbered on the
        left, column letters under the lower edges (columns run up and to the left)."""
        geo = self.geo
        n1 = geo.size - 1
        b, w = self._stones
        lines = []
        for r in range(2 * n1, -1, -1):
            cells = []
            qmin, qmax = max(0, r - n1), min(2 * n1, r + n1)
            for q in range(qmin, qmax + 1):
                p = r * geo.width + q
                cells.append("X" if b >> p & 1 else "O" if w >> p & 1 else ".")
            indent = " " * abs(r - n1)
            lines.append(f"{r + 1:>3} {indent}{' '.join(cells)}")
        # Column q's lowest point is at x = 2q - r_low; the letter line sits one row below
        # row 1, where column q lands at x = 2q + 1 (relative to the leftmost point).
        letters = [" "] * (4 * n1 + 4)
        for q in range(2 * n1 + 1):
            letters[2 * q + 1] = "abcdefghijklmnopqrstuvwxyz"[q]
        lines.append("    " + " " * (n1 - 1) + "".join(letters).rstrip() if n1 >= 1 else "")
        mover = self.to_move.value.capitalize()
        status = "game over" if self.is_over else f"{mover} to move"
        sb, sw = self.score()
        lines.append(f"    {status}; score Black {_fmt_points(sb)}, White {_fmt_points(sw)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.diagram()
