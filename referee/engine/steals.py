"""The steal rounds of one turn, as a state machine on bitsets.

This is the single implementation of rules.md "A turn", step 2: :meth:`Position.play`
(the validator), :meth:`Position.legal_turns` (the enumerator), :meth:`Position.random_turn`
and the public :class:`~referee.engine.position.TurnBuilder` all drive this machine, so
they cannot disagree about what a legal turn is.

State between steals: ``group`` is G (the mover's group holding the placed stone) and
``reach`` its dilation (G plus its neighbours); ``pending`` the groups of T not yet stolen
from in this round; ``blocked`` the points next to any *other* group of the mover, where a
stolen stone may never go (stealing never merges). ``blocked`` is fixed for the whole turn:
steals only add to G, so the mover's other groups never change.
"""

from __future__ import annotations

from .geometry import Geometry, bits
from .shapes import shape_of_mask


def components(mask: int, geo: Geometry) -> list[int]:
    """Split a set of stones into its connected groups."""
    out = []
    dilate = geo.dilate
    while mask:
        grp = mask & -mask
        while True:
            nxt = dilate(grp) & mask
            if nxt == grp:
                break
            grp = nxt
        out.append(grp)
        mask ^= grp
    return out


def same_shape_targets(
    group: int, reach: int, enemy_groups: list[int] | tuple[int, ...], width: int
) -> list[int]:
    """T: the enemy groups that touch ``group`` and have its shape."""
    size = group.bit_count()
    out = []
    shape = None
    for eg in enemy_groups:
        if eg & reach and eg.bit_count() == size:
            if shape is None:
                shape = shape_of_mask(group, width)
            if shape_of_mask(eg, width) == shape:
                out.append(eg)
    return out


class StealMachine:
    """One turn after its placement: which steals are open, and making them one at a time."""

    __slots__ = (
        "blocked",
        "done",
        "enemy_groups",
        "enemy_stones",
        "geo",
        "group",
        "mover_stones",
        "pending",
        "reach",
        "round_steals",
        "rounds",
        "steals",
    )

    def __init__(
        self,
        geo: Geometry,
        mover_stones: int,
        enemy_stones: int,
        group: int,
        reach: int,
        blocked: int,
        enemy_groups: list[int],
        targets: list[int],
    ) -> None:
        self.geo = geo
        self.mover_stones = mover_stones
        self.enemy_stones = enemy_stones
        self.group = group
        self.reach = reach
        self.blocked = blocked
        self.enemy_groups = enemy_groups
        self.pending = targets
        self.round_steals = 0
        self.rounds = 1
        self.steals: list[tuple[int, int]] = []
        self.done = False
        self._advance()

    def copy(self) -> StealMachine:
        new = StealMachine.__new__(StealMachine)
        new.geo = self.geo
        new.mover_stones = self.mover_stones
        new.enemy_stones = self.enemy_stones
        new.group = self.group
        new.reach = self.reach
        new.blocked = self.blocked
        new.enemy_groups = list(self.enemy_groups)
        new.pending = list(self.pending)
        new.round_steals = self.round_steals
        new.rounds = self.rounds
        new.steals = list(self.steals)
        new.done = self.done
        return new

    # -- the rules ---------------------------------------------------------------------
    def _open_targets(self) -> int:
        """Empty points next to G where a stolen stone may go (the freed point aside)."""
        return self.reach & ~(self.mover_stones | self.enemy_stones | self.blocked) & self.geo.board

    def _advance(self) -> None:
        """Close finished rounds; start new ones; set ``done`` when no steal is left."""
        while True:
            open_targets = self._open_targets()
            for eg in self.pending:
                # Any stone of eg can go to an open target; failing that, a stone next to G
                # may be stolen onto its own (freed) point if that point touches no other group.
                if open_targets or eg & self.reach & ~self.blocked:
                    return
            if not self.round_steals:
                self.done = True
                self.pending = []
                return
            self.round_steals = 0
            self.rounds += 1
            self.pending = same_shape_targets(self.group, self.reach, self.enemy_groups, self.geo.width)

    def options(self) -> list[tuple[int, int]]:
        """Every legal next steal ``(x, y)``, in point order."""
        if self.done:
            return []
        out = []
        open_targets = self._open_targets()
        ys_open = bits(open_targets)
        freeable = self.reach & ~self.blocked
        for eg in self.pending:
            for x in bits(eg):
                if freeable >> x & 1:
                    ys = sorted(ys_open + [x])
                else:
                    ys = ys_open
                for y in ys:
                    out.append((x, y))
        out.sort()
        return out

    def check(self, x: int, y: int) -> str | None:
        """Why steal ``(x, y)`` is not legal now, or ``None`` if it is."""
        names = self.geo.names
        xn, yn = names[x], names[y]
        if self.done:
            return "the turn was already complete"
        xb = 1 << x
        if not any(eg & xb for eg in self.pending):
            return f"{xn} is not a stone of a group that must be stolen from now"
        yb = 1 << y
        if y != x and (self.mover_stones | self.enemy_stones) & yb:
            return f"{yn} is occupied"
        if not self.reach & yb or self.group & yb:
            return f"{yn} is not next to the stealing group"
        if self.blocked & yb:
            return f"{yn} touches another group of the mover (stealing never merges)"
        return None

    def apply(self, x: int, y: int) -> None:
        """Make steal ``(x, y)``; the caller has checked it (see :meth:`check`)."""
        xb = 1 << x
        yb = 1 << y
        geo = self.geo
        for i, eg in enumerate(self.pending):
            if eg & xb:
                del self.pending[i]
                break
        else:  # pragma: no cover - guarded by check()
            raise AssertionError("steal from a group outside T")
        groups = self.enemy_groups
        groups.remove(eg)
        rest = eg ^ xb
        if rest:
            # Removing one stone may split the group; a single neighbour-free check
            # (rest still connected?) is the common case, so try that first.
            parts = components(rest, geo)
            groups.extend(parts)
        self.enemy_stones ^= xb
        self.mover_stones |= yb
        self.group |= yb
        self.reach |= geo.neighbour_mask[y] | yb
        self.round_steals += 1
        self.steals.append((x, y))
        self._advance()
