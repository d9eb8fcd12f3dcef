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

from referee.play.records import FORFEITS, GameRecord, Termination
from referee.ratings.elo import GameResult, Pentanomial, Ratings, compute_ratings, pentanomial

FAILURE_KINDS = tuple(t.value for t in FORFEITS)
"""The failure columns of the leaderboard: every kind of forfeit, from the record's enum."""


@dataclass
class BotLine:
    """One row of the leaderboard."""

    rank: int
    name: str
    elo: float
    elo_low: float
    elo_high: float
    elo_error: float
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    los_next: float | None
    failures: dict[Termination, int]

    @property
    def score_percent(self) -> float:
        return 100.0 * self.score / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "name": self.name,
            "elo": _finite(self.elo),
            "elo_error": _finite(self.elo_error),
            "elo_low": _finite(self.elo_low),
            "elo_high": _finite(self.elo_high),
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "score_percent": round(self.score_percent, 2),
            "los_next": None if self.los_next is None else round(self.los_next, 4),
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


def _finite(x: float) -> float | None:
    return round(x, 2) if math.isfinite(x) else None


def game_result(record: GameRecord) -> GameResult | None:
    """The rating view of one record; ``None`` for a void game."""
    if record.is_void:
        return None
    a, b = record.labels
    winner = record.winner
    score_a = 0.5 if winner is None else (1.0 if winner == 0 else 0.0)
    return GameResult(a, b, score_a, record.pair_key)


def standings(
    records: Iterable[GameRecord],
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
    for rank, rating in enumerate(ratings.ratings, 1):
        nxt = order[rank] if rank < len(order) else None
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
                los_next=None if nxt is None else ratings.los.get((rating.name, nxt)),
                failures=failures[rating.name],
            )
        )
    pairs: list[Pentanomial] = []
    if any(g.pair is not None for g in results):
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                penta = pentanomial(results, a, b)
                if penta is not None:
                    pairs.append(penta)
    overhead = {name: (overhead_sum[name] / overhead_n[name], overhead_n[name]) for name in overhead_n}
    return Standings(
        lines, cross, pairs, len(records), void, list(ratings.warnings), overhead, ratings.anchor
    )


# ------------------------------------------------------------------------------ rendering
def _num(x: float, digits: int = 0) -> str:
    if not math.isfinite(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if digits == 0 else f"{x:.{digits}f}"


def leaderboard_rows(st: Standings) -> tuple[list[str], list[list[Any]]]:
    headers = ["rank", "bot", "Elo", "±95%", "games", "W-D-L", "score%", "LOS next", *FAILURE_KINDS]
    rows = []
    for line in st.lines:
        rows.append(
            [
                line.rank,
                line.name,
                _num(line.elo),
                "anchor"
                if line.name == st.anchor
                else "inf"
                if not math.isfinite(line.elo_error)
                else f"{line.elo_error:.0f}",
                line.games,
                f"{line.wins}-{line.draws}-{line.losses}",
                f"{line.score_percent:.1f}",
                "" if line.los_next is None else f"{100 * line.los_next:.1f}%",
                *[line.failures[k] for k in FORFEITS],
            ]
        )
    return headers, rows


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
    headers = ["pairing", "pairs", "0-0.5-1-1.5-2", "Elo", "±95%", "LOS"]
    rows = [
        [
            f"{p.a} vs {p.b}",
            p.pairs,
            "-".join(str(c) for c in p.counts),
            _num(p.elo),
            "inf" if not math.isfinite(p.error) else f"{p.error:.0f}",
            f"{100 * p.los:.1f}%",
        ]
        for p in st.pairs
    ]
    return headers, rows


def render_text(st: Standings, *, title: str = "", markdown: bool = False) -> str:
    fmt = "github" if markdown else "simple"
    out = []
    if title:
        out.append(f"# {title}" if markdown else title)
        out.append("")
    played = st.games - st.void
    out.append(f"{played} games rated" + (f", {st.void} void (not rated)" if st.void else ""))
    out.append("")
    sections = [
        ("", leaderboard_rows(st)),
        ("Crosstable (points/games, row against column)", crosstable_rows(st)),
    ]
    if st.pairs:
        sections.append(
            ("Opening pairs (pentanomial: pairs scoring 0, 0.5, 1, 1.5, 2 for the first bot)", pair_rows(st))
        )
    for heading, (headers, rows) in sections:
        if heading:
            out.extend(["", f"## {heading}" if markdown else heading, ""])
        out.append(tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True))
    if st.overhead:
        out.append("")
        parts = [f"{name} {us:.0f} µs" for name, (us, _) in sorted(st.overhead.items())]
        out.append("referee overhead per request (outside the bots' clocks): " + ", ".join(parts))
    if st.warnings:
        out.append("")
        out.extend(f"warning: {w}" for w in st.warnings)
    return "\n".join(out) + "\n"


def render_json(st: Standings) -> str:
    """``standings.json``: the list of bot lines, best first."""
    return json.dumps([line.to_json() for line in st.lines], indent=2) + "\n"


def render_csv(st: Standings) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        [
            "rank",
            "name",
            "elo",
            "elo_error",
            "elo_low",
            "elo_high",
            "games",
            "wins",
            "draws",
            "losses",
            "score",
            "score_percent",
            "los_next",
            *FAILURE_KINDS,
        ]
    )
    for line in st.lines:
        j = line.to_json()
        w.writerow(
            [
                j["rank"],
                j["name"],
                j["elo"],
                j["elo_error"],
                j["elo_low"],
                j["elo_high"],
                j["games"],
                j["wins"],
                j["draws"],
                j["losses"],
                j["score"],
                j["score_percent"],
                j["los_next"],
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
