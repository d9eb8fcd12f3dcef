"""Standings from game records: the leaderboard, the crosstable, pair statistics.

:func:`standings` is pure (records in, numbers out) and renders nothing: the text,
markdown, CSV and JSON forms are :mod:`referee.render.standings_text` and
:mod:`referee.render.standings_json`, the page :mod:`referee.render.standings_html`. A
tournament writes them after every game batch and at the end, and ``vastuz report``
rebuilds the same standings from ``results.jsonl`` alone, also for a run that was stopped
half-way.

Records are the referee's game records (``docs/records.md``): seat 0 and seat 1 bots, the
winning seat, the termination, and the seat at fault for a forfeit. A tournament adds a
``"tournament"`` object with the schedule slot and the opening pair key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.play.lateness import Lateness
from referee.play.records import FORFEITS, GameRecord, GameSummary, Termination
from referee.ratings.elo import GameResult, Gap, Pentanomial, Ratings, RunningCounts
from referee.ratings.forfeits import TimeLosses
from referee.ratings.pentanomial import pentanomial_rows
from referee.ratings.sprt import SprtStatus


@dataclass
class BotLine:
    """One row of the leaderboard (see :class:`referee.ratings.elo.Rating`).

    ``rank`` counts within the bot's ``group`` (bots linked by games; ``None`` and no
    rating for a bot that played no game). ``elo_bound`` is ``"lower"`` for a bot that won
    every game (its rating is only known to be above ``elo_low``), ``"upper"`` for one that
    lost every game. ``gap_next``/``los_next`` compare it with the next line of its group.
    """

    rank: int
    name: str
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    elo_error: float | None
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    los_next: float | None
    failures: dict[Termination, int]
    group: int | None = None
    elo_bound: str | None = None
    gap_next: Gap | None = None

    @property
    def score_percent(self) -> float:
        return 100.0 * self.score / self.games if self.games else 0.0


@dataclass(frozen=True)
class SprtStanding:
    """A run's SPRT as its standings show it: where the test stands (``status``, whose
    ``to_json`` is the ``"sprt"`` object of ``standings.json``), the bot it tests (the other
    is the baseline), and the outcome in ``words`` (:meth:`SprtStatus.words`, which only the
    plan can word: whether the run reached its game cap is the plan's to know)."""

    status: SprtStatus
    candidate: str
    words: str


@dataclass(frozen=True)
class Section:
    """A part of the standings that only some schedule kinds have (a Swiss's tie-breaks, a
    knockout's bracket), made by the run's plan and shown by every renderer the same way:
    a table (``headers``, ``rows``), optional preformatted ``text`` under it, ``data`` as
    ``standings.json``'s ``sections[key]``, and ``bot_fields`` merged into each bot's entry
    of ``standings.json`` (``{"buchholz": 7.5}``). The renderers know no kind."""

    key: str
    title: str
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[object, ...], ...] = ()
    text: str = ""
    data: dict[str, object] = field(default_factory=dict, hash=False)
    bot_fields: dict[str, dict[str, object]] = field(default_factory=dict, hash=False)
    lead: bool = False
    """Shown before the leaderboard: what the kind is about (a gauntlet's challengers
    against each opponent), where the joint leaderboard is the lesser view."""


@dataclass
class Standings:
    """Everything a report shows. ``cross[a][b]`` is ``(points of a against b, games)``."""

    lines: list[BotLine]
    cross: dict[str, dict[str, tuple[float, int]]]
    pairs: list[Pentanomial]
    games: int
    void: int
    warnings: list[str] = field(default_factory=list)
    # Per bot: the referee's own mean time per request (µs), outside the bot's clock, and
    # the number of requests it is averaged over.
    overhead: dict[str, tuple[float, int]] = field(default_factory=dict)
    anchor: str | None = None  # the bot held at the anchor rating (its interval is 0 by definition)
    confidence: float = 0.95  # of every interval
    sprt: SprtStanding | None = None  # the run's SPRT, when it runs one
    lateness: Lateness = field(default_factory=Lateness)  # where the referee looked late
    sections: list[Section] = field(default_factory=list)  # the schedule kind's own (Swiss, knockout)


def game_result(record: GameRecord | GameSummary) -> GameResult | None:
    """The rating view of one record; ``None`` for a void game."""
    if record.is_void:
        return None
    a, b = record.labels
    winner = record.winner
    score_a = 0.5 if winner is None else (1.0 if winner == 0 else 0.0)
    return GameResult(a, b, score_a, record.pair_key)


def standings(
    records: Iterable[GameRecord | GameSummary],
    bots: Sequence[str] | None = None,
    *,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    bootstrap: int = 1000,
    seed: int = 0,
    sprt: SprtStanding | None = None,
    time_losses: list[str] | None = None,
) -> Standings:
    """Compute the leaderboard of ``records`` (``bots`` fixes the set and order of names;
    without it, the bots in the order the records name them); ``sprt`` is the run's SPRT,
    if it runs one, for the standings to carry. The records are counted one at a time
    (:class:`RunningStandings`, fitted cold): a run's million summaries are never all made
    at once. ``time_losses``, when given, is extended with
    :func:`~referee.ratings.forfeits.time_loss_warnings` of the same records (and ``bots``),
    from the same pass. ``seed`` is not used (nothing is sampled)."""
    del seed
    if bots is None:
        if not isinstance(records, Sequence):  # two passes: the names, then the counts
            records = list(records)
        names: list[str] = []
        for r in records:
            for label in r.labels:
                if label not in names:
                    names.append(label)
    else:
        names = list(bots)
    running = RunningStandings(names)
    for r in records:
        running.add(r)
    if time_losses is not None:
        time_losses.extend(running.time_losses.warnings(bots))
    return running.standings(
        anchor=anchor, anchor_rating=anchor_rating, bootstrap=bootstrap, sprt=sprt, warm=False
    )


def _lines(ratings: Ratings, failures: dict[str, dict[Termination, int]]) -> list[BotLine]:
    """The leaderboard's rows, in the ratings' order, ranked within each group."""
    lines = []
    order = [r.name for r in ratings.ratings]
    rank = 0
    for k, rating in enumerate(ratings.ratings):
        rank = rank + 1 if k and rating.group == ratings.ratings[k - 1].group else 1
        key = (rating.name, order[k + 1]) if k + 1 < len(order) else None
        lines.append(
            BotLine(
                rank=rank,
                name=rating.name,
                elo=rating.elo,
                elo_low=rating.low,
                elo_high=rating.high,
                elo_error=rating.error,
                games=rating.games,
                wins=rating.wins,
                draws=rating.draws,
                losses=rating.losses,
                score=rating.score,
                los_next=None if key is None else ratings.los.get(key),
                failures=failures[rating.name],
                group=rating.group,
                elo_bound=rating.bound,
                gap_next=None if key is None else ratings.gaps.get(key),
            )
        )
    return lines


class RunningStandings:
    """The standings of records given one at a time, so that a run's periodic standings
    cost the same at its 100,000th game as at its 100th: what :func:`standings` adds up
    over every record is kept as they arrive (the rating counts in
    :class:`~referee.ratings.elo.RunningCounts`), and each table is a fit of those counts.

    :meth:`standings` is ``standings(records so far, bots, ...)`` with each record's
    numbers summed in the same order, except that the fit is warm-started from the last
    table's ratings (``warm``): equal to within the fit's tolerance, not to the last bit.
    The final standings of a run are :func:`standings` itself. Records are not taken back:
    a caller whose latest record of a slot replaces an earlier one starts a new one.
    The time-loss warnings of the same games are :attr:`time_losses`.
    """

    def __init__(self, bots: Sequence[str]) -> None:
        self.names = list(bots)
        self.records = 0
        self.void = 0
        self.failures = {n: dict.fromkeys(FORFEITS, 0) for n in self.names}
        self.cross: dict[str, dict[str, tuple[float, int]]] = {n: {} for n in self.names}
        self.overhead_sum: dict[str, float] = {}
        self.overhead_n: dict[str, int] = {}
        self.counts = RunningCounts()
        self.paired = False  # a rated game has an opening pair key
        self.time_losses = TimeLosses()
        # Lateness.of's sums, in its order
        self.answers = self.late = self.time_losses_seen = self.time_losses_late = 0
        self.worst = 0.0
        self.last: dict[str, float] = {}  # the last table's finite ratings: the next fit's start

    def add(self, r: GameRecord | GameSummary) -> None:
        """Count one more record (in the order :func:`standings` would be given them)."""
        for label in r.labels:
            if label not in self.cross:
                raise ValueError(f"a game names bot {label!r}, which is not among the rated bots")
        self.records += 1
        for entry in r.bots:
            stats = entry.stats
            n = stats.requests
            if n:
                label = entry.label
                self.overhead_sum[label] = self.overhead_sum.get(label, 0.0) + stats.overhead_us * n
                self.overhead_n[label] = self.overhead_n.get(label, 0) + n
            self.answers += n
            if stats.late:
                self.late += stats.late
                self.worst = max(self.worst, stats.late_max)
        fault = r.fault
        if fault is not None and fault.kind is Termination.TIME and not r.is_void:
            self.answers += 1
            self.time_losses_seen += 1
            if fault.late is not None:
                self.time_losses_late += 1
        self.time_losses.add(r)
        g = game_result(r)
        if g is None:
            self.void += 1
            return
        self.counts.add(g)
        self.paired = self.paired or g.pair is not None
        for me, other, pts in ((g.a, g.b, g.score_a), (g.b, g.a, g.score_b)):
            p, n = self.cross[me].get(other, (0.0, 0))
            self.cross[me][other] = (p + pts, n + 1)
        if fault is not None and fault.kind.is_forfeit:
            self.failures[r.bots[fault.seat].label][fault.kind] += 1

    def standings(
        self,
        *,
        anchor: str | None = None,
        anchor_rating: float = 0.0,
        bootstrap: int = 1000,
        sprt: SprtStanding | None = None,
        warm: bool = True,
        pairs: bool = True,
    ) -> Standings:
        """The standings of the records added so far (see the class docstring); without
        ``pairs``, no pentanomial statistics (``Standings.pairs`` empty: the one-line view
        shows none, and their intervals are most of a small field's cost)."""
        ratings = self.counts.ratings(
            self.names,
            anchor=anchor if anchor in self.names else None,
            anchor_rating=anchor_rating,
            bootstrap=bootstrap,
            start=self.last if warm and self.last else None,
        )
        self.last = {r.name: r.elo for r in ratings.ratings if r.elo is not None and math.isfinite(r.elo)}
        order = [r.name for r in ratings.ratings]
        rows = pentanomial_rows(self.counts.pair_table(), order) if self.paired and pairs else []
        overhead = {
            name: (self.overhead_sum[name] / self.overhead_n[name], self.overhead_n[name])
            for name in self.overhead_n
        }
        return Standings(
            _lines(ratings, {n: dict(f) for n, f in self.failures.items()}),
            {n: dict(row) for n, row in self.cross.items()},
            rows,
            self.records,
            self.void,
            list(ratings.warnings),
            overhead,
            ratings.anchor,
            sprt=sprt,
            lateness=Lateness(
                self.answers, self.late, self.worst, self.time_losses_seen, self.time_losses_late
            ),
        )


def groups(st: Standings) -> list[list[str]]:
    """The bots of each connected group, in leaderboard order (bots without games are in
    none)."""
    out: dict[int, list[str]] = {}
    for line in st.lines:
        if line.group is not None:
            out.setdefault(line.group, []).append(line.name)
    return [out[g] for g in sorted(out)]
