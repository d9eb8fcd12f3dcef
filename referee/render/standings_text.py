"""The standings of a run as text: a terminal's table, markdown (``standings.md``), CSV.

Pure: a :class:`~referee.ratings.report.Standings` in, text out; the only place tabulate is
called. :func:`render` picks a format by name (``vastuz report --format``), JSON included
(:mod:`referee.render.standings_json`); the page is :mod:`referee.render.standings_html`,
which shares the crosstable's cells (:func:`crosstable_rows`).
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

from tabulate import tabulate

from referee.play.records import FORFEITS
from referee.ratings.report import Section, Standings, groups
from referee.render.standings_json import line_json, render_json

FAILURE_KINDS = tuple(t.value for t in FORFEITS)
"""The failure columns of the leaderboard: every kind of forfeit, from the record's enum."""


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


def _section_lines(section: Section, fmt: str, markdown: bool) -> list[str]:
    """A schedule kind's section: its title, its table, its text."""
    out = [f"## {section.title}" if markdown else section.title, ""]
    if section.headers:
        rows = [list(row) for row in section.rows]
        out.append(tabulate(rows, headers=list(section.headers), tablefmt=fmt, disable_numparse=True))
    if section.text:
        text = f"```\n{section.text}\n```" if markdown else section.text
        out.extend(["", text] if section.headers else [text])
    return out


def summary_line(st: Standings) -> str:
    """The leaderboard on one line (``1 mcts > +343, 2 greedy +107, 3 random +0``), what a
    run prints along the way in place of the whole table (``--standings-every`` asks for it)."""
    shown = []
    for line in st.lines:
        elo = _elo_cell(line.elo, line.elo_low, line.elo_high, line.elo_bound) or "no games"
        shown.append(f"{line.rank} {line.name} {elo}")
    return ", ".join(shown)


def render_text(st: Standings, *, title: str = "", markdown: bool = False) -> str:
    fmt = "github" if markdown else "simple"
    out = []
    if title:
        out.append(f"# {title}" if markdown else title)
        out.append("")
    played = st.games - st.void
    out.append(f"{played} games rated" + (f", {st.void} void (not rated)" if st.void else ""))
    out.append("")
    for section in st.sections:  # what the kind leads with (a gauntlet's challengers)
        if section.lead:
            out.extend([*_section_lines(section, fmt, markdown), ""])
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
    if st.sprt is not None:
        out.extend(["", "## SPRT" if markdown else "SPRT", "", st.sprt.words])
    for section in st.sections:  # the schedule kind's own: a Swiss's tie-breaks, a bracket
        if not section.lead:
            out.extend(["", *_section_lines(section, fmt, markdown)])
    if st.warnings:
        out.append("")
        out.extend(f"warning: {w}" for w in st.warnings)
    return "\n".join(out) + "\n"


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
        j = line_json(line)
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
