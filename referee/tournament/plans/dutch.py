"""A round's pairing by the FIDE Dutch system's bracket procedure, without colours: pure.

What it follows (FIDE Handbook C.04.1, section D, "Transposition and Exchange Procedures",
and C.04.3's score brackets and moved-down players):

* The players, ranked (score, then seed), are paired score bracket by score bracket from
  the top. A bracket's players who stay unpaired move down to the next bracket (moved-down
  players, MDPs), where they are paired first: each MDP, in rank order, with a resident of
  the bracket, residents tried in rank order; the residents left form a homogeneous
  remainder.
* A homogeneous bracket of ``n`` players makes as many pairs ``P`` as it can (``n // 2``
  first, fewer only when no pairing of that many works): S1 is its top ``P`` players, S2 the
  rest; S1[i] meets S2[i] (8 players: 1-5, 2-6, 3-7, 4-8). When that repeats a pairing, the
  transpositions of S2 are tried in the order D.1 gives (5-6-8-7, 5-7-6-8, 5-7-8-6, ...: the
  arrangements of S2 in ascending order, :func:`transpositions`), then exchanges between S1
  and S2 (D.2: one player, the difference of the exchanged numbers as small as possible, on
  equal differences the one of the lowest S1 player; then two players: :func:`exchanges`),
  each with all transpositions of the new S2. The S2 players a pairing leaves over move down.
* The last bracket must pair everyone; when it cannot, the brackets above try their next
  pairing (the search backtracks), so no pairing is repeated whenever some pairing avoids it.

What it leaves out, since every pairing here plays colour-reversed couples: colour
preferences (C.04.3's colour criteria) and float history (no player floats twice running).
A search that runs past ``budget`` steps gives up (returns None) and the caller falls back.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence

Pairs = list[tuple[str, str]]


class GaveUp(Exception):
    """The search ran past its budget of steps."""


def transpositions(s2: Sequence[str], count: int) -> Iterator[tuple[str, ...]]:
    """The first ``count`` players of each arrangement of ``s2``, in D.1's order (all the
    arrangements in ascending order of their players' ranks: for 5, 6, 7, 8: 5-6-7-8,
    5-6-8-7, 5-7-6-8, ...); ``s2`` is in rank order. Arrangements that agree on their first
    ``count`` players are given once."""
    return itertools.permutations(s2, count)


def exchanges(s1: Sequence[str], s2: Sequence[str]) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The exchanges between S1 and S2 in D.2's order, as (players leaving S1, players
    leaving S2): one player, then two, and so on; within each size the sum of the numbers
    leaving S2 minus the sum leaving S1 as small as possible, and on equal differences the
    one that moves the lowest S1 players. Numbers are ranks in the bracket (S1 then S2)."""
    rank = {p: k for k, p in enumerate((*s1, *s2), start=1)}
    for size in range(1, min(len(s1), len(s2)) + 1):
        options = [
            (out, into)
            for out in itertools.combinations(s1, size)
            for into in itertools.combinations(s2, size)
        ]

        def key(option: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[object, ...]:
            out, into = option
            lowest_first = tuple(-rank[p] for p in sorted(out, key=rank.__getitem__, reverse=True))
            return (
                sum(rank[p] for p in into) - sum(rank[p] for p in out),
                lowest_first,
                [rank[p] for p in into],
            )

        yield from sorted(options, key=key)


class Dutch:
    """One round's search: ``order`` the players to pair (ranked), ``score`` their points,
    ``met`` the pairings already played."""

    def __init__(
        self, order: Sequence[str], score: Mapping[str, float], met: set[frozenset[str]], budget: int
    ) -> None:
        self.order = list(order)
        self.rank = {p: k for k, p in enumerate(self.order)}
        self.score = score
        self.met = met
        self.budget = budget
        self.steps = 0

    def pairing(self) -> Pairs | None:
        """The pairing of everyone (the first in the Dutch order), None if none avoids a
        repeat or the search gave up."""
        groups: list[list[str]] = []
        for p in self.order:
            if groups and self.score[groups[-1][0]] == self.score[p]:
                groups[-1].append(p)
            else:
                groups.append([p])
        try:
            return next(self._brackets(groups, []), None)
        except GaveUp:
            return None

    def _ok(self, a: str, b: str) -> bool:
        self.steps += 1
        if self.steps > self.budget:
            raise GaveUp
        return frozenset((a, b)) not in self.met

    def _ranked(self, players: Sequence[str]) -> list[str]:
        return sorted(players, key=self.rank.__getitem__)

    def _brackets(self, groups: list[list[str]], moved: list[str]) -> Iterator[Pairs]:
        """Every pairing of ``moved`` (MDPs) and the groups, in the Dutch order."""
        if not groups:
            if not moved:
                yield []
            return
        last = len(groups) == 1
        for pairs, down in self._bracket(moved, groups[0], last):
            for rest in self._brackets(groups[1:], down):
                yield pairs + rest

    def _bracket(
        self, moved: list[str], residents: list[str], last: bool
    ) -> Iterator[tuple[Pairs, list[str]]]:
        """The pairings of one bracket, in order: (its pairs, the players moving down). The
        MDPs are paired first, each with a resident (residents in rank order, then fewer
        MDPs paired); the remainder as a homogeneous bracket."""
        for paired in range(min(len(moved), len(residents)), -1, -1):
            if last and paired < len(moved):
                return  # the last bracket cannot send anyone down
            for partners in transpositions(residents, paired):
                if not all(self._ok(m, r) for m, r in zip(moved, partners, strict=False)):
                    continue
                mdp_pairs = list(zip(moved, partners, strict=False))
                remainder = [r for r in residents if r not in partners]
                for pairs, down in self._homogeneous(remainder, last):
                    yield mdp_pairs + pairs, self._ranked([*moved[paired:], *down])

    def _homogeneous(self, players: list[str], last: bool) -> Iterator[tuple[Pairs, list[str]]]:
        """A homogeneous bracket's pairings: most pairs first; for each number of pairs S1
        against S2 through D.1's transpositions, then D.2's exchanges."""
        n = len(players)
        for count in range(n // 2, -1, -1):
            if last and 2 * count < n:
                return
            s1, s2 = players[:count], players[count:]
            for out, into in itertools.chain([((), ())], exchanges(s1, s2)):
                top = self._ranked([*(p for p in s1 if p not in out), *into])
                bottom = self._ranked([*(p for p in s2 if p not in into), *out])
                for partners in transpositions(bottom, count):
                    if all(self._ok(a, b) for a, b in zip(top, partners, strict=True)):
                        yield list(zip(top, partners, strict=True)), [p for p in bottom if p not in partners]


def dutch_pairing(
    order: Sequence[str], score: Mapping[str, float], met: set[frozenset[str]], budget: int = 200_000
) -> Pairs | None:
    """The Dutch pairing of ``order`` (ranked, an even count) avoiding every pairing in
    ``met`` (see the module docstring); None if there is none, or none found within
    ``budget`` steps."""
    return Dutch(order, score, met, budget).pairing()
