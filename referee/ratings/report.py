"""Standings from game records: the leaderboard, the crosstable, pair statistics.

:func:`standings` is pure (records in, numbers out); the ``render_*`` functions are the only
place tabulate is called. A tournament writes ``standings.md``/``standings.json`` with them
after every game batch and at the end, and ``vastuz report`` rebuilds the same tables from
``results.jsonl`` alone, also for a run that was stopped half-way.

Records are the referee's game records (``docs/records.md``): seat 0 and seat 1 bots, the
winning seat, the termination, and the seat at fault for a forfeit. A tournament adds a
``"tournament"`` object with the schedule slot and the opening pair key.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from referee.play.lateness import Lateness
from referee.play.records import FORFEITS, GameRecord, GameSummary, Termination
from referee.ratings.elo import GameResult, Gap, Pentanomial, Ratings, compute_ratings
from referee.ratings.pentanomial import pentanomial_table

SCHEMA = 2
"""The ``schema`` number of ``standings.json`` (docs/records.md, "standings.json")."""

FAILURE_KINDS = tuple(t.value for t in FORFEITS)
"""The failure columns of the leaderboard: every kind of forfeit, from the record's enum."""


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

    def to_json(self) -> dict[str, Any]:
        gap = self.gap_next
        return {
            "rank": self.rank,
            "group": self.group,
            "name": self.name,
            "elo": _finite(self.elo),
            "elo_error": _finite(self.elo_error),
            "elo_low": _finite(self.elo_low),
            "elo_high": _finite(self.elo_high),
            "elo_bound": self.elo_bound,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "score_percent": round(self.score_percent, 2),
            "los_next": None if self.los_next is None else round(self.los_next, 4),
            "gap_next": None
            if gap is None
            else {"elo": _finite(gap.elo), "elo_low": _finite(gap.low), "elo_high": _finite(gap.high)},
            "failures": {kind.value: n for kind, n in self.failures.items()},
        }


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
    sprt: dict[str, Any] | None = None  # an SPRT's state (SprtStatus.to_json), when the run is one
    sprt_words: str | None = None  # ... and its outcome in words
    lateness: Lateness = field(default_factory=Lateness)  # where the referee looked late


def _finite(x: float | None) -> float | None:
    return round(x, 2) if x is not None and math.isfinite(x) else None


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
) -> Standings:
    """Compute the leaderboard of ``records`` (``bots`` fixes the set and order of names)."""
    records = list(records)
    names: list[str] = list(bots) if bots is not None else []
    for r in records:
        for label in r.labels:
            if label not in names and bots is None:
                names.append(label)
    results: list[GameResult] = []
    failures = {n: dict.fromkeys(FORFEITS, 0) for n in names}
    cross: dict[str, dict[str, tuple[float, int]]] = {n: {} for n in names}
    void = 0
    overhead_sum: dict[str, float] = {}
    overhead_n: dict[str, int] = {}
    for r in records:
        for entry in r.bots:
            n = entry.stats.requests
            if n:
                overhead_sum[entry.label] = overhead_sum.get(entry.label, 0.0) + entry.stats.overhead_us * n
                overhead_n[entry.label] = overhead_n.get(entry.label, 0) + n
        g = game_result(r)
        if g is None:
            void += 1
            continue
        results.append(g)
        for me, other, pts in ((g.a, g.b, g.score_a), (g.b, g.a, g.score_b)):
            p, n = cross[me].get(other, (0.0, 0))
            cross[me][other] = (p + pts, n + 1)
        if r.fault is not None and r.fault.kind.is_forfeit:
            failures[r.bots[r.fault.seat].label][r.fault.kind] += 1
    ratings: Ratings = compute_ratings(
        results,
        names,
        anchor=anchor if anchor in names else None,
        anchor_rating=anchor_rating,
        bootstrap=bootstrap,
        seed=seed,
    )
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
    pairs = pentanomial_table(results, order) if any(g.pair is not None for g in results) else []
    overhead = {name: (overhead_sum[name] / overhead_n[name], overhead_n[name]) for name in overhead_n}
    return Standings(
        lines,
        cross,
        pairs,
        len(records),
        void,
        list(ratings.warnings),
        overhead,
        ratings.anchor,
        lateness=Lateness.of(records),
    )


# ------------------------------------------------------------------------------ rendering
def _num(x: float, digits: int = 0) -> str:
    if math.isnan(x):  # a rating the data do not place above or below the scale's bots
        return "?"
    if not math.isfinite(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if digits == 0 else f"{x:.{digits}f}"


def _interval(low: float, high: float) -> str:
    """``[-12, +85]``: both ends, because the interval need not be symmetric."""
    return f"[{_num(low)}, {_num(high)}]"


def _elo_cell(elo: float | None, low: float | None, high: float | None, bound: str | None) -> str:
    """The estimate, or what is known of it: ``> +X`` / ``< -X`` when the maximum-likelihood
    rating is infinite (a perfect score), nothing when there is no rating."""
    if elo is None or low is None or high is None:
        return ""
    if bound == "lower" or elo == math.inf:
        return f"> {_num(low)}"
    if bound == "upper" or elo == -math.inf:
        return f"< {_num(high)}"
    return _num(elo)


def _confidence_label(st: Standings) -> str:
    return f"{100 * st.confidence:g}% interval"


def leaderboard_rows(st: Standings, group: int | None = None) -> tuple[list[str], list[list[Any]]]:
    """The leaderboard of one connected group (``None``: the bots without games)."""
    headers = ["rank", "bot", "Elo", _confidence_label(st), "games", "W-D-L", "score%", "LOS next"]
    headers += list(FAILURE_KINDS)
    rows = []
    for line in st.lines:
        if line.group != group:
            continue
        if line.elo_low is None or line.elo_high is None:
            interval = ""
        elif line.name == st.anchor:
            interval = "anchor"
        else:
            interval = _interval(line.elo_low, line.elo_high)
        rows.append(
            [
                line.rank if line.group is not None else "",
                line.name,
                _elo_cell(line.elo, line.elo_low, line.elo_high, line.elo_bound),
                interval,
                line.games,
                f"{line.wins}-{line.draws}-{line.losses}",
                f"{line.score_percent:.1f}" if line.games else "",
                "" if line.los_next is None else f"{100 * line.los_next:.1f}%",
                *[line.failures[k] for k in FORFEITS],
            ]
        )
    return headers, rows


def groups(st: Standings) -> list[list[str]]:
    """The bots of each connected group, in leaderboard order (bots without games are in
    none)."""
    out: dict[int, list[str]] = {}
    for line in st.lines:
        if line.group is not None:
            out.setdefault(line.group, []).append(line.name)
    return [out[g] for g in sorted(out)]


def crosstable_rows(st: Standings) -> tuple[list[str], list[list[Any]]]:
    order = [line.name for line in st.lines]
    headers = ["bot", *order]
    rows = []
    for a in order:
        row: list[Any] = [a]
        for b in order:
            if a == b:
                row.append("-")
            else:
                pts, n = st.cross[a].get(b, (0.0, 0))
                row.append(f"{pts:g}/{n}" if n else "")
        rows.append(row)
    return headers, rows


def pair_rows(st: Standings) -> tuple[list[str], list[list[Any]]]:
    headers = ["pairing", "pairs", "0-0.5-1-1.5-2", "Elo", _confidence_label(st), "LOS"]
    rows = [
        [
            f"{p.a} vs {p.b}",
            p.pairs,
            "-".join(str(c) for c in p.counts),
            _elo_cell(p.elo, p.low, p.high, None),
            _interval(p.low, p.high),
            f"{100 * p.los:.1f}%",
        ]
        for p in st.pairs
    ]
    return headers, rows


def head_to_head(st: Standings) -> str | None:
    """One line for a two-bot match: the leader's Elo difference over the other, its
    interval and LOS (as engine-testing tools end a match), e.g. ``A - B: Elo +35
    [-20, +92] (95%), LOS 89.2%, 10 games 6-1-3``; ``None`` unless exactly two bots played
    each other."""
    rated = [line for line in st.lines if line.group is not None]
    if len(rated) != 2 or rated[0].group != rated[1].group:
        return None
    first, second = rated
    gap = first.gap_next
    head = f"{first.name} - {second.name}: "
    record = f"{first.games} games {first.wins}-{first.draws}-{first.losses}"
    if gap is None or first.los_next is None:
        assert first.elo is not None and second.elo is not None
        return head + f"Elo {_num(first.elo - second.elo)}, {record}"
    bound = first.elo_bound == "lower" or second.elo_bound == "upper"
    elo = f"> {_num(gap.low)}" if bound else _num(gap.elo)
    return (
        head + f"Elo {elo} {_interval(gap.low, gap.high)} ({100 * st.confidence:g}%), "
        f"LOS {100 * first.los_next:.1f}%, {record}"
    )


def render_text(st: Standings, *, title: str = "", markdown: bool = False) -> str:
    fmt = "github" if markdown else "simple"
    out = []
    if title:
        out.append(f"# {title}" if markdown else title)
        out.append("")
    played = st.games - st.void
    out.append(f"{played} games rated" + (f", {st.void} void (not rated)" if st.void else ""))
    out.append("")
    bot_groups = groups(st)
    sections: list[tuple[str, tuple[list[str], list[list[Any]]]]] = []
    for g, members in enumerate(bot_groups):
        heading = ""
        if len(bot_groups) > 1:
            heading = (
                f"Group {g + 1} of {len(bot_groups)}: {', '.join(members)} "
                "(never played the other groups: ratings are not comparable across groups)"
            )
        sections.append((heading, leaderboard_rows(st, g)))
    if any(line.group is None for line in st.lines):
        sections.append(("Bots without games (no rating)", leaderboard_rows(st, None)))
    sections.append(("Crosstable (points/games, row against column)", crosstable_rows(st)))
    if st.pairs:
        sections.append(
            ("Opening pairs (pentanomial: pairs scoring 0, 0.5, 1, 1.5, 2 for the first bot)", pair_rows(st))
        )
    for k, (heading, (headers, rows)) in enumerate(sections):
        if heading:
            if k:
                out.append("")
            out.extend([f"## {heading}" if markdown else heading, ""])
        out.append(tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True))
    if st.overhead:
        out.append("")
        parts = [f"{name} {us:.0f} µs" for name, (us, _) in sorted(st.overhead.items())]
        out.append("referee overhead per request (outside the bots' clocks): " + ", ".join(parts))
    late = st.lateness.line()
    if late is not None:
        out.append(late)
    if st.sprt_words is not None:
        out.extend(["", "## SPRT" if markdown else "SPRT", "", st.sprt_words])
    if st.warnings:
        out.append("")
        out.extend(f"warning: {w}" for w in st.warnings)
    return "\n".join(out) + "\n"


def _pair_json(p: Pentanomial) -> dict[str, Any]:
    return {
        "a": p.a,
        "b": p.b,
        "pairs": p.pairs,
        "counts": list(p.counts),
        "elo": _finite(p.elo),
        "elo_low": _finite(p.low),
        "elo_high": _finite(p.high),
        "elo_bound": "lower" if p.elo == math.inf else "upper" if p.elo == -math.inf else None,
        "los": round(p.los, 4),
    }


def standings_json(st: Standings) -> dict[str, Any]:
    """The ``standings.json`` object (schema 2, docs/records.md)."""
    return {
        "schema": SCHEMA,
        "games": st.games,
        "rated": st.games - st.void,
        "void": st.void,
        "anchor": st.anchor,
        "confidence": st.confidence,
        "groups": groups(st),
        "bots": [line.to_json() for line in st.lines],
        "pairs": [_pair_json(p) for p in st.pairs],
        "warnings": list(st.warnings),
        "overhead_us": {name: round(us, 1) for name, (us, _) in sorted(st.overhead.items())},
        "referee_lateness": st.lateness.to_json(),
        **({} if st.sprt is None else {"sprt": st.sprt}),
    }


def render_json(st: Standings) -> str:
    """``standings.json``: :func:`standings_json`, indented."""
    return json.dumps(standings_json(st), indent=2) + "\n"


_CSV_COLUMNS = [
    "rank",
    "group",
    "name",
    "elo",
    "elo_error",
    "elo_low",
    "elo_high",
    "elo_bound",
    "games",
    "wins",
    "draws",
    "losses",
    "score",
    "score_percent",
    "los_next",
]


def render_csv(st: Standings) -> str:
    """One row per bot; empty cells where a value is absent (no rating, a bound)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([*_CSV_COLUMNS, *FAILURE_KINDS])
    for line in st.lines:
        j = line.to_json()
        w.writerow(
            [
                *["" if j[c] is None else j[c] for c in _CSV_COLUMNS],
                *[line.failures[k] for k in FORFEITS],
            ]
        )
    return buf.getvalue()


def render(st: Standings, fmt: str, *, title: str = "") -> str:
    """``fmt``: text, markdown, json or csv."""
    if fmt == "text":
        return render_text(st, title=title)
    if fmt == "markdown":
        return render_text(st, title=title, markdown=True)
    if fmt == "json":
        return render_json(st)
    if fmt == "csv":
        return render_csv(st)
    raise ValueError(f"unknown report format {fmt!r} (expected text, markdown, json or csv)")
