"""Connected groups of the pairing graph, each fitted on its own and put on the scale.

Ratings are only comparable within a group of bots linked by chains of games, so the fit
runs group by group (:mod:`referee.ratings.fit` does the maths of one group) and each
group is shifted onto the rating scale: the group holding the anchor so the anchor has
the anchor rating, every other group so its mean is the anchor rating. The structure
(who met whom) is fixed once in :class:`GroupFitter`; the bootstrap then refits many
resamples that only change the per-pairing totals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.ratings.fit import ELO_PER_NAT, fit_strengths, strongly_connected, with_prior

__all__ = ["Group", "GroupFitter", "connected_groups"]


@dataclass
class Group:
    """A connected group of bots: global indices and the pairing indices among them."""

    members: list[int]
    pairings: list[int]  # indices into the global pairing list


def connected_groups(size: int, pairings: Sequence[tuple[int, int]]) -> list[Group]:
    """The connected groups of bots ``0 .. size - 1`` linked by ``pairings`` (union-find).

    Groups come in order of their lowest member, members and pairings in ascending order,
    so the fit (and the warnings naming groups) does not depend on hashing.
    """
    parent = list(range(size))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in pairings:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, Group] = {}
    for k in range(size):
        groups.setdefault(root(k), Group([], [])).members.append(k)
    for index, (i, _) in enumerate(pairings):
        groups[root(i)].pairings.append(index)
    return list(groups.values())


class GroupFitter:
    """Holds the fixed structure (groups, pairings) so each bootstrap resample only
    has to supply new per-pairing totals.

    ``components`` are the groups that played at least one game; a bot without games is
    in none of them.
    """

    def __init__(
        self, size: int, pairings: list[tuple[int, int]], anchor: int | None, anchor_rating: float
    ) -> None:
        self.components = [c for c in connected_groups(size, pairings) if c.pairings]
        self.pairings = pairings
        self.anchor = anchor
        self.anchor_rating = anchor_rating
        self.size = size
        # Local index of each member inside its component.
        self.local: dict[int, int] = {}
        for component in self.components:
            for position, member in enumerate(component.members):
                self.local[member] = position

    def fit(
        self,
        points: Sequence[float],
        games: Sequence[float],
        start: Sequence[float] | None = None,
        tolerance: float = 1e-10,
    ) -> tuple[list[float], list[float], list[bool]]:
        """Ratings in Elo (index = bot), strengths in nats (for warm starts), and for each
        component whether the prior had to be added. Bots without games get the centre.
        ``tolerance`` is the Newton stopping rule of :func:`fit_strengths`, in nats."""
        elo = [self.anchor_rating] * self.size  # the centre of the scale
        theta = [0.0] * self.size
        used_prior: list[bool] = []
        for component in self.components:
            local = [
                (self.local[self.pairings[k][0]], self.local[self.pairings[k][1]], points[k], games[k])
                for k in component.pairings
            ]
            size = len(component.members)
            needs_prior = not strongly_connected(size, local)
            if needs_prior:
                local = with_prior(local)
            used_prior.append(needs_prior)
            guess = [start[m] for m in component.members] if start is not None else None
            fitted = fit_strengths(size, local, guess, tolerance)
            shift = self.anchor_rating  # a group without the anchor is centred on it
            if self.anchor is not None and self.anchor in component.members:
                shift = self.anchor_rating - fitted[self.local[self.anchor]] * ELO_PER_NAT
            for member, value in zip(component.members, fitted, strict=True):
                theta[member] = value
                elo[member] = value * ELO_PER_NAT + shift
        if self.anchor is not None and self.anchor not in self.local:
            elo[self.anchor] = self.anchor_rating
        return elo, theta, used_prior
