"""Connected groups of the pairing graph, each fitted on its own, put on the scale, and
given its intervals.

Ratings are only comparable within a group of bots linked by chains of games, so the fit
runs group by group (:mod:`referee.ratings.fit` does the maths of one group).

The scale. A group holding the anchor is shifted so the anchor has the anchor rating;
every other group so the mean of its *reference* bots is the anchor rating. When the
group's maximum likelihood is finite the reference is the whole group. When it is not (a
bot, or a set of bots, never scored a point against the rest), the group splits into the
strongly connected components of the "scored a point against" links
(:func:`referee.ratings.fit.strong_components`): within a component the differences are
finite, between two components every game went the same way and the gap is infinite by
maximum likelihood. The reference is then the anchor's component, else the largest one
(most bots, then comparable with the most others, then most games among them, then the
lowest, so that a bot that won everything reads "at least X above" the others); its bots
get estimates, and every other
bot a bound relative to it: a lower bound (shown ``> X``) for a bot above it, an upper
bound (``< X``) below. Gaps between two bots of one component stay finite wherever that
component lies. Nothing is shrunk: the estimates of the reference are its own
maximum-likelihood ones, which is what the full likelihood tends to as the infinite gaps
open up.

Intervals (:mod:`referee.ratings.profile`): the likelihood-ratio set of each contrast,
its threshold scaled by the dispersion of the units that move that contrast's estimate
(:func:`referee.ratings.units.weighted_dispersion`: the sandwich variance over the
model's), measured on the pairings inside components (a pairing whose games all went one
way has no residual to measure). Where the maximum likelihood is infinite, the same likelihood is
maximised with a vanishing number of virtual draws per pairing (:data:`_VANISHING`), only
so that the supremum, which lies at infinity, is reached by a finite fit; the deviances it
gives differ from the limit's by far less than any table shows.

Bounds. A contrast whose maximum likelihood is infinite sits on the edge of the parameter
space, where the likelihood-ratio statistic is not chi-square and its usual threshold is
far too lenient: for two bots and a sweep of ``n`` games, ``exp(-D / 2)`` at a gap ``d``
is exactly ``p(d) ** n``, the probability of that sweep, and ``D <= 3.84`` would keep
gaps under which the sweep had a 15% chance. A bound's finite end is instead where
``exp(-D / 2)`` falls to ``(1 - confidence) / 2``: for two bots the exact one-sided
(Clopper-Pearson) bound of a perfect score, and the same reading of the likelihood in a
field. The group's dispersion (:func:`referee.ratings.units.dispersion`) applies there only
above 1 (a sweep shows no draws), and the LOS of a bound gap is ``1 - exp(-D(0) / 2)``: 75%
for 2-0, as a coin would have it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from referee.ratings.fit import (
    PairList,
    dense_wanted,
    fit_strengths,
    inverse_information,
    sigmoid,
    strong_components,
    strongly_connected,
    with_prior,
)
from referee.ratings.profile import Profile
from referee.ratings.units import Influence, Moments, dispersion, moments

__all__ = ["Group", "GroupFit", "Line", "connected_groups"]

_NORMAL = NormalDist()
_VANISHING = 1e-6
"""Virtual games per pairing that make an infinite maximum finite for the profiles: the
infinite gaps open to about ``ln(2 n / 1e-6)``, 15-20 nats, where a game's probability
differs from 1 by less than 1e-6."""


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


@dataclass(frozen=True)
class Line:
    """A contrast on the scale, in nats: the estimate (``inf``/``-inf`` when the maximum
    likelihood is infinite, ``nan`` when it is not even determined in sign), the interval,
    and for a gap the likelihood of superiority (``None`` when not asked for)."""

    estimate: float
    low: float
    high: float
    los: float | None = None


def _reach(labels: Sequence[int], pairs: PairList) -> list[set[int]]:
    """For each component, the components it reaches by "scored a point against" links
    (itself included): those are below it."""
    count = max(labels) + 1
    links: list[set[int]] = [set() for _ in range(count)]
    for i, j, s, n in pairs:
        a, b = labels[i], labels[j]
        if a != b:
            if s > 0:
                links[a].add(b)
            if n - s > 0:
                links[b].add(a)
    reach = []
    for start in range(count):
        seen = {start}
        stack = [start]
        while stack:
            for other in links[stack.pop()]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        reach.append(seen)
    return reach


class GroupFit:
    """One connected group: ratings and intervals in nats on the group's scale.

    ``pairs`` are the group's pairings in local indices ``(i, j, points of i, games)`` with
    ``rows`` their outcome counts (:mod:`referee.ratings.units`); ``anchor`` is a local
    index or ``None``. With ``intervals`` false only the estimates are computed. ``start``
    (a strength per bot, e.g. the last fit's) warm-starts the estimates' fit: the same
    maximum to within its tolerance, in fewer Newton steps.
    """

    def __init__(
        self,
        size: int,
        pairs: PairList,
        rows: Sequence[Sequence[int]],
        anchor: int | None,
        *,
        intervals: bool,
        confidence: float,
        start: Sequence[float] | None = None,
    ) -> None:
        self.size = size
        self.start = start  # strengths to start the estimates' fit from (a warm start)
        self.pairs = pairs
        self.anchor = anchor
        self.finite = strongly_connected(size, pairs)
        self.labels = [0] * size if self.finite else strong_components(size, pairs)
        self.reach = _reach(self.labels, pairs)
        # Exact maximum-likelihood strengths within each component: the estimates.
        self.theta = self._component_fits()
        if self.finite:
            work = list(pairs)
            order = self.theta
        else:
            work = with_prior(pairs, _VANISHING)
            order = fit_strengths(size, work)
        self.order = order  # strengths that order every bot of the group, bounds included
        self.reference = self._reference()
        self.intervals = intervals and size > 1
        self.phi = self._dispersion(rows) if self.intervals else 1.0  # the group's, for bounds
        self.z2 = _NORMAL.inv_cdf(0.5 + confidence / 2.0) ** 2
        # A bound's threshold (module docstring, "Bounds").
        self.sweep = -2.0 * math.log((1.0 - confidence) / 2.0)
        self.profile = Profile(size, work, order) if self.intervals else None
        # The whole group's inverse information, from the profile's kernel (made once): the
        # Wald spread that guesses each end.
        profile = self.profile
        inverse = None if profile is None else inverse_information(order, profile.kernel)
        self.variance = None if inverse is None else influence(inverse, [], [])

    # ----------------------------------------------------------------- structure

    def _reference(self) -> int:
        if self.anchor is not None:
            return self.labels[self.anchor]
        members: dict[int, list[int]] = {}
        for k, label in enumerate(self.labels):
            members.setdefault(label, []).append(k)
        games = dict.fromkeys(members, 0.0)
        for i, j, _, n in self.pairs:
            if self.labels[i] == self.labels[j]:
                games[self.labels[i]] += n
        level = {c: sum(self.order[m] for m in members[c]) / len(members[c]) for c in members}
        # Comparable: the components it reaches or that reach it (the others could only be
        # shown as "anything": a reference that leaves fewer of those says more).
        known = {c: sum(c in self.reach[o] or o in self.reach[c] for o in members) for c in members}
        return min(members, key=lambda c: (-len(members[c]), -known[c], -games[c], level[c], min(members[c])))

    def _component_fits(self) -> list[float]:
        theta = [0.0] * self.size
        for label in set(self.labels):
            members = [k for k in range(self.size) if self.labels[k] == label]
            local = {m: p for p, m in enumerate(members)}
            inner = [
                (local[i], local[j], s, n)
                for i, j, s, n in self.pairs
                if self.labels[i] == label and self.labels[j] == label
            ]
            start = None if self.start is None else [self.start[m] for m in members]
            for m, value in zip(members, fit_strengths(len(members), inner, start), strict=True):
                theta[m] = value
        return theta

    def _dispersion(self, rows: Sequence[Sequence[int]]) -> float:
        """:func:`~referee.ratings.units.dispersion` of the pairings inside components, at
        the components' own fits; keeps each component's inverse information with its
        pairings' :class:`~referee.ratings.units.Moments` for the contrasts' own dispersion."""
        self._phi_of: dict[tuple[float, ...], float] = {}  # contrast -> its dispersion
        # label -> its members and their Influence (V and the pairings' moments)
        self._influence: dict[int, tuple[list[int], Influence]] = {}
        chosen_rows: list[Sequence[int]] = []
        expected: list[float] = []
        resistance: list[float] = []
        for label in set(self.labels):
            members = [k for k in range(self.size) if self.labels[k] == label]
            if len(members) < 2:
                continue
            local = {m: p for p, m in enumerate(members)}
            inner = [
                (index, local[i], local[j], s, n)
                for index, (i, j, s, n) in enumerate(self.pairs)
                if self.labels[i] == label and self.labels[j] == label
            ]
            theta = [self.theta[m] for m in members]
            variance = inverse_information(theta, [(i, j, s, n) for _, i, j, s, n in inner])
            ends: list[tuple[int, int]] = []
            parts: list[Moments] = []
            for index, i, j, _, _ in inner:
                p = sigmoid(theta[i] - theta[j])
                resist = variance[i][i] + variance[j][j] - 2.0 * variance[i][j]
                ends.append((i, j))
                parts.append(moments(rows[index], p, resist))
                chosen_rows.append(rows[index])
                expected.append(p)
                resistance.append(resist)
            self._influence[label] = (members, influence(variance, ends, parts))
        return dispersion(chosen_rows, expected, resistance)

    def _contrast_dispersion(self, contrast: Sequence[float]) -> float:
        """The dispersion of a contrast within one component, from the pairings that move
        its estimate (:func:`~referee.ratings.units.weighted_dispersion`)."""
        key = tuple(contrast)
        if key not in self._phi_of:
            self._phi_of[key] = self._weighted(contrast)
        return self._phi_of[key]

    def _weighted(self, contrast: Sequence[float]) -> float:
        support = [k for k in range(self.size) if contrast[k] != 0.0]
        label = self.labels[support[0]]
        if label not in self._influence:
            return 1.0
        members, component = self._influence[label]
        return component.dispersion([contrast[m] for m in members])

    def side_of(self, k: int, other: int) -> int:
        """+1 if ``k``'s component is above ``other``'s (infinitely, by maximum likelihood),
        -1 if below, 0 if they are one component, 2 if neither reaches the other."""
        a, b = self.labels[k], self.labels[other]
        if a == b:
            return 0
        if b in self.reach[a]:
            return 1
        if a in self.reach[b]:
            return -1
        return 2

    def rank_key(self, k: int) -> tuple[float, float]:
        """Higher is better: the level of ``k``'s component (components above others come
        first), then its estimate within the component."""
        members = [m for m in range(self.size) if self.labels[m] == self.labels[k]]
        return sum(self.order[m] for m in members) / len(members), self.theta[k]

    def scale_members(self) -> list[int]:
        """The local bots whose mean is the scale's centre (the anchor alone, if any)."""
        if self.anchor is not None:
            return [self.anchor]
        return [k for k in range(self.size) if self.labels[k] == self.reference]

    # ----------------------------------------------------------------- lines

    def _contrast_bot(self, k: int) -> list[float]:
        c = [0.0] * self.size
        base = self.scale_members()
        for m in base:
            c[m] -= 1.0 / len(base)
        c[k] += 1.0
        return c

    def rating(self, k: int, ends: bool = True) -> Line:
        """Bot ``k`` on the scale: relative to the anchor or the reference's mean. Without
        ``ends``, the interval of a finite estimate is not computed (it is the estimate)."""
        base = self.scale_members()
        centre = sum(self.theta[m] for m in base) / len(base)
        where = self.side_of(k, base[0])
        if where == 0:
            estimate = self.theta[k] - centre
        else:
            estimate = {1: math.inf, -1: -math.inf}.get(where, math.nan)
        if base == [k] or (not ends and math.isfinite(estimate)):  # a point: the anchor, the
            return Line(estimate, estimate, estimate)  # reference alone, or not asked for
        contrast = self._contrast_bot(k)
        low, high = self._ends(contrast, estimate, where)
        return Line(estimate, low, high)

    def gap(self, i: int, j: int) -> Line:
        """``i`` minus ``j``, with the likelihood that ``i`` is the stronger."""
        where = self.side_of(i, j)
        if where == 0:
            estimate = self.theta[i] - self.theta[j]
        else:
            estimate = {1: math.inf, -1: -math.inf}.get(where, math.nan)
        contrast = [0.0] * self.size
        contrast[i], contrast[j] = 1.0, -1.0
        low, high = self._ends(contrast, estimate, where)
        return Line(estimate, low, high, self._superiority(contrast, estimate))

    def _ends(self, contrast: list[float], estimate: float, where: int) -> tuple[float, float]:
        if not self.intervals:
            return estimate, estimate
        assert self.profile is not None and self.variance is not None
        if where == 2:
            return -math.inf, math.inf
        phi = self._contrast_dispersion(contrast) if where == 0 else max(1.0, self.phi)
        target = self.z2 * phi if where == 0 else self.sweep * phi
        centre = self.profile.estimate(contrast)
        spread = math.sqrt(max(phi * self.variance.quadratic(contrast), 1e-12))
        z = math.sqrt(self.z2)
        low = (
            -math.inf
            if where == -1
            else self.profile.end(contrast, -1, target, _guess(where, centre - z * spread))
        )
        high = (
            math.inf
            if where == 1
            else self.profile.end(contrast, 1, target, _guess(where, centre + z * spread))
        )
        return low, high

    def _superiority(self, contrast: list[float], estimate: float) -> float | None:
        if not self.intervals:
            return None
        assert self.profile is not None
        if math.isnan(estimate) or estimate == 0.0:
            return 0.5
        d, _ = self.profile.deviance(contrast, 0.0)
        if math.isfinite(estimate):
            phi = self._contrast_dispersion(contrast)
            return _NORMAL.cdf(math.copysign(math.sqrt(d / phi), estimate))
        # A bound (module docstring, "Bounds"): exp(-D / 2) reads as the sweep's probability.
        # One won game is as likely between equals: 1/2, never below (the vanishing prior's
        # rounding would be).
        return max(0.5, 1.0 - math.exp(-d / (2.0 * max(1.0, self.phi))))


def influence(
    variance: list[list[float]], ends: Sequence[tuple[int, int]], parts: Sequence[Moments]
) -> Influence:
    """An :class:`~referee.ratings.units.Influence`, numpy's for a large component."""
    if dense_wanted(len(variance)):
        from referee.ratings.dense import DenseInfluence

        return DenseInfluence(variance, ends, parts)
    return Influence(variance, ends, parts)


def _guess(where: int, wald: float) -> float:
    """A first try for an end: the Wald end where the maximum is finite; for the finite end
    of an infinite contrast, 0 (the other bot's level), from where Newton's method walks."""
    return wald if where == 0 else 0.0
