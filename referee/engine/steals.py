"""The steal rounds of one turn, as a state machine on bitsets.

This is the single implementation of rules.md "A turn", step 2: :meth:`Position.play`
(the validator), :meth:`Position.legal_turns` (the enumerator), :meth:`Position.random_turn`
and the public :class:`~referee.engine.turns.TurnBuilder` all drive this machine, so
they cannot disagree about what a legal turn is.

State between steals: ``group`` is G (the mover's group holding the placed stone) and
``reach`` its dilation (G plus its neighbours); ``pending`` the groups of T not yet stolen
from in this round; ``blocked`` the points next to any *other* group of the mover, where a
stolen stone may never go (stealing never merges). ``blocked`` is fixed for the whole turn:
steals only add to G, so the mover's other groups never change.

``enemy_groups`` starts as the enemy's groups in the position's order; a steal removes the
group it takes from and appends what is left of it (one or more parts) at the end, so the
list is always the untouched groups, in their old order, then the parts. ``kept_reach``
holds the old reaches of that untouched head, so the next position re-dilates only the parts.
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
    group: int, touching: int, enemy_groups: list[int] | tuple[int, ...], width: int
) -> list[int]:
    """T: the enemy groups that touch ``group`` and have its shape (in ``enemy_groups`` order).

    ``touching`` is the set of enemy stones next to the group (its reach and the enemy's
    stones); ``enemy_groups`` are the enemy's groups, which partition the enemy's stones.
    """
    size = group.bit_count()
    out = []
    key = shape = None
    for eg in enemy_groups:
        if eg & touching:
            if eg.bit_count() == size:
                if size <= 2:
                    # One shape of one stone and one of two (a connected pair): no test needed.
                    out.append(eg)
                else:
                    # Equal masks shifted down to bit 0 are translates (the key shapes.py
                    # caches forms under), so the canonical forms are compared only otherwise.
                    if key is None:
                        key = group >> ((group & -group).bit_length() - 1)
                    if eg >> ((eg & -eg).bit_length() - 1) == key:
                        out.append(eg)
                    else:
                        if shape is None:
                            shape = shape_of_mask(group, width)
                        if shape_of_mask(eg, width) == shape:
                            out.append(eg)
            touching &= ~eg
            if not touching:
                break  # every touching group seen
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
        "kept_reach",
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
        enemy_reach: list[int],
        targets: list[int],
    ) -> None:
        self.geo = geo
        self.mover_stones = mover_stones
        self.enemy_stones = enemy_stones
        self.group = group
        self.reach = reach
        self.blocked = blocked
        self.enemy_groups = enemy_groups
        self.kept_reach = enemy_reach
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
        new.kept_reach = list(self.kept_reach)
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
        reach = self.reach
        while True:
            pending = self.pending
            if pending:
                # Any stone of a pending group can go to an open target; failing that, a
                # stone next to G may be stolen onto its own (freed) point if that point
                # touches no other group.
                if reach & ~(self.mover_stones | self.enemy_stones | self.blocked) & self.geo.board:
                    return
                freeable = reach & ~self.blocked
                for eg in pending:
                    if eg & freeable:
                        return
            if not self.round_steals:
                self.done = True
                self.pending = []
                return
            self.round_steals = 0
            self.rounds += 1
            self.pending = same_shape_targets(
                self.group, self.enemy_stones & reach, self.enemy_groups, self.geo.width
            )

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
        if self.done:
            return "the turn was already complete"
        xb = 1 << x
        for eg in self.pending:
            if eg & xb:
                break
        else:
            return f"{self.geo.names[x]} is not a stone of a group that must be stolen from now"
        yb = 1 << y
        if y != x and (self.mover_stones | self.enemy_stones) & yb:
            return f"{self.geo.names[y]} is occupied"
        if not self.reach & yb or self.group & yb:
            return f"{self.geo.names[y]} is not next to the stealing group"
        if self.blocked & yb:
            return f"{self.geo.names[y]} touches another group of the mover (stealing never merges)"
        return None

    def apply(self, x: int, y: int) -> None:
        """Make steal ``(x, y)``; the caller has checked it (see :meth:`check`)."""
        xb = 1 << x
        yb = 1 << y
        geo = self.geo
        pending = self.pending
        for i, eg in enumerate(pending):
            if eg & xb:
                del pending[i]
                break
        else:  # pragma: no cover - guarded by check()
            raise AssertionError("steal from a group outside T")
        groups = self.enemy_groups
        j = groups.index(eg)
        del groups[j]
        if j < len(self.kept_reach):
            del self.kept_reach[j]
        rest = eg ^ xb
        if rest:
            if rest & (rest - 1):
                # Removing one stone may split the group.
                groups.extend(components(rest, geo))
            else:
                groups.append(rest)  # one stone left: one group
        self.enemy_stones ^= xb
        self.mover_stones |= yb
        self.group |= yb
        self.reach |= geo.neighbour_mask[y] | yb
        self.round_steals += 1
        self.steals.append((x, y))
        self._advance()
