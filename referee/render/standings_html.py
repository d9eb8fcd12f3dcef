"""``standings.html``: the standings of a run as one self-contained page, above the replay of
every game (:func:`referee.render.html.game_page`).

Pure: standings, records and the histories in, HTML text out. The charts are static SVG
drawn here (no script needed to read them): every bot's Elo with its interval as a bar,
the crosstable as a heat map, the pentanomial table, each bot's rating over the games
played, and an SPRT's LLR over pairs with its bounds. While a run is going the page says
so ("in progress: N of M games") and reloads itself every few seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from referee.play.records import FORFEITS, GameRecord
from referee.ratings.report import Standings
from referee.render.html import game_json, page_frame
from referee.render.standings_text import crosstable_rows

REFRESH_SECONDS = 5
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f")

CSS = """
section.standings { padding: 0.5em 1em; }
section.standings table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
section.standings th, section.standings td {
  padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right;
}
section.standings th:nth-child(2), section.standings td.name { text-align: left; }
section.standings svg.bar { vertical-align: middle; }
.progress { background: #fff3cd; border: 1px solid #e0c060; padding: 4px 10px; display: inline-block; }
td.heat { color: #000; }
td.heat-0 { background: #d73027; } td.heat-1 { background: #f46d43; } td.heat-2 { background: #fdae61; }
td.heat-3 { background: #fee08b; } td.heat-4 { background: #ffffbf; } td.heat-5 { background: #d9ef8b; }
td.heat-6 { background: #a6d96a; } td.heat-7 { background: #66bd63; } td.heat-8 { background: #1a9850; }
td.self { background: #eee; }
.chart text { font: 11px sans-serif; }
.wide { max-width: 100%; overflow-x: auto; }
section.standings td, section.standings th { white-space: nowrap; }
section.standings svg.chart { max-width: 100%; height: auto; }
#legend { font-size: 0.85em; color: #333; max-width: 60em; }
#legend dt { font-weight: bold; float: left; clear: left; margin-right: 0.5em; }
#legend dd { margin: 0 0 0.2em 0; }
.warnings li { color: #8a4b00; }
"""


@dataclass(frozen=True)
class RatingPoint:
    """Every bot's rating after the first ``games`` games of the run."""

    games: int
    elo: dict[str, float]


def _f(x: float | None, signed: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return ""
    return f"{x:+.0f}" if signed else f"{x:.0f}"


def _end(x: float) -> str:
    """An interval's end; an infinite one (a bound's open side) as the infinity sign."""
    return _f(x) or ("&infin;" if x > 0 else "-&infin;")


def _interval_bar(low: float | None, high: float | None, elo: float | None, lo: float, hi: float) -> str:
    """A 160-pixel bar: the interval as a band, the estimate as a tick, on the scale of
    every bot's intervals together (an infinite end or estimate at the edge)."""
    width = 160
    if low is None or high is None or elo is None or math.isnan(elo) or hi <= lo:
        return ""

    def x(v: float) -> float:
        return 4 + (width - 8) * (min(max(v, lo), hi) - lo) / (hi - lo)

    return (
        f'<svg class="bar" width="{width}" height="14" viewBox="0 0 {width} 14" role="img" '
        f'aria-label="{escape(_f(low))} to {escape(_f(high))}">'
        f'<rect x="{x(low):.1f}" y="3" width="{max(1.0, x(high) - x(low)):.1f}" height="8" fill="#9ecae1"/>'
        f'<rect x="{x(elo) - 1:.1f}" y="1" width="2" height="12" fill="#08519c"/></svg>'
    )


def leaderboard_html(st: Standings) -> str:
    rated = [line for line in st.lines if line.elo is not None]
    ends = [
        v
        for line in rated
        for v in (line.elo_low, line.elo_high, line.elo)
        if v is not None and math.isfinite(v)
    ]
    lo, hi = (min(ends), max(ends)) if ends else (0.0, 0.0)
    pct = f"{round(100 * st.confidence)}%"
    head = (
        f"<tr><th>rank</th><th>bot</th><th>Elo</th><th>{pct} interval</th>"
        f'<th class="bars">{_bar_scale(lo, hi)}</th>'
        "<th>games</th><th>W-D-L</th>"
        "<th>score</th><th>LOS next</th>" + "".join(f"<th>{k.value}</th>" for k in FORFEITS) + "</tr>"
    )
    rows = []
    for line in st.lines:
        elo = _f(line.elo)
        if line.elo_bound == "lower":
            elo = f"&gt; {_f(line.elo_low)}"
        elif line.elo_bound == "upper":
            elo = f"&lt; {_f(line.elo_high)}"
        interval = ""
        if line.elo_low is not None and line.elo_high is not None:
            interval = f"[{_end(line.elo_low)}, {_end(line.elo_high)}]"
        if line.name == st.anchor:
            elo, interval = _f(line.elo), "anchor"  # held at the anchor rating: a point
        los = "" if line.los_next is None else f"{100 * line.los_next:.1f}%"
        rows.append(
            f'<tr data-bot="{escape(line.name)}"><td>{"" if line.rank is None else line.rank}</td>'
            f'<td class="name">{escape(line.name)}</td><td class="elo">{elo}</td><td>{interval}</td>'
            f"<td>{_interval_bar(line.elo_low, line.elo_high, line.elo, lo, hi)}</td>"
            f'<td>{line.games}</td><td class="wdl">{line.wins}-{line.draws}-{line.losses}</td>'
            f"<td>{line.score_percent:.1f}%</td><td>{los}</td>"
            + "".join(f"<td>{line.failures.get(k, 0)}</td>" for k in FORFEITS)
            + "</tr>"
        )
    table = f'<table id="leaderboard"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
    return f'<div class="wide">{table}</div>'


def _bar_scale(lo: float, hi: float) -> str:
    """The head of the bars' column: the Elo at its two ends (every bar shares them)."""
    if hi <= lo:
        return ""
    return f"Elo {_f(lo)} &hellip; {_f(hi)}"


LEGEND = (
    ("Elo", "the rating, in Elo points (400 points: 10 to 1 odds), relative to the anchor "
     "(its rating is fixed); &gt; X / &lt; X: a bound, where a bot won or lost everything"),
    ("interval", "the 95% interval of the rating; the bar draws it (the tick: the estimate) on the "
     "scale written in the column's head, the same for every bot"),
    ("LOS next", "likelihood of superiority: the chance that this bot is stronger than the next one down"),
    ("W-D-L, score", "wins, draws and losses; score: points per game in percent (a draw is half)"),
    ("time, illegal, crash, ...", "games lost by that forfeit: out of time, an illegal turn, a crash, "
     "a protocol error, resigning, over a memory or process limit"),
    ("crosstable", "points/games of the row's bot against the column's; the colour: its score, from "
     "red (0%) through yellow (50%) to green (100%)"),
    ("0-0.5-1-1.5-2", "opening pairs (one opening played twice, colours swapped) in which the first bot "
     "scored 0, 0.5, 1, 1.5 and 2 points"),
    ("board", "in the replay: the last turn's placed stone has a red ring, each of its steals a "
     "numbered red arrow from the stone taken to where it went (a ring when it stays)"),
)  # fmt: skip
"""What the page's columns and marks mean (the ``#legend`` under the leaderboard)."""


def legend_html() -> str:
    items = "".join(f"<dt>{term}</dt><dd>{text}</dd>" for term, text in LEGEND)
    return f'<details open><summary>What the columns mean</summary><dl id="legend">{items}</dl></details>'


def crosstable_html(st: Standings) -> str:
    headers, rows = crosstable_rows(st)
    out = [
        '<table id="crosstable"><thead><tr>',
        *(f"<th>{escape(str(h))}</th>" for h in headers),
        "</tr></thead><tbody>",
    ]
    for row in rows:
        me = str(row[0])
        out.append(f'<tr><td class="name">{escape(me)}</td>')
        for other, cell in zip(headers[1:], row[1:], strict=True):
            text = str(cell)
            if other == me:
                out.append('<td class="self">-</td>')
                continue
            points, n = st.cross.get(me, {}).get(str(other), (0.0, 0))
            heat = f" heat heat-{min(8, int(points / n * 9))}" if n else ""
            out.append(f'<td class="cross{heat}" title="{escape(text)}">{escape(text)}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _pair_elo(elo: float, low: float, high: float) -> str:
    """The estimate, or for a perfect pairing the bound that is all the data say."""
    if math.isfinite(elo):
        return _f(elo)
    return f"&gt; {_f(low)}" if elo > 0 else f"&lt; {_f(high)}"


def pairs_html(st: Standings) -> str:
    if not st.pairs:
        return ""
    rows = "".join(
        f'<tr><td class="name">{escape(p.a)} vs {escape(p.b)}</td><td>{p.pairs}</td>'
        f"<td>{'-'.join(str(c) for c in p.counts)}</td><td>{_pair_elo(p.elo, p.low, p.high)}</td>"
        f"<td>[{_f(p.low) or '-&infin;'}, {_f(p.high) or '&infin;'}]</td><td>{100 * p.los:.1f}%</td></tr>"
        for p in st.pairs
    )
    return (
        '<table id="pairs"><thead><tr><th>pairing</th><th>pairs</th><th>0-0.5-1-1.5-2</th><th>Elo</th>'
        f"<th>interval</th><th>LOS</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _chart(
    series: dict[str, list[tuple[float, float]]],
    *,
    x_label: str,
    y_label: str,
    guides: Sequence[float] = (),
    ident: str,
) -> str:
    """A line chart of ``series`` (name -> points), with horizontal ``guides``."""
    points = [p for line in series.values() for p in line]
    if not points:
        return ""
    width, height, left, bottom = 640, 260, 50, 30
    xs = [p[0] for p in points]
    ys = [p[1] for p in points] + list(guides)
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y0, y1 = y0 - 1, y1 + 1

    def sx(x: float) -> float:
        return left + (width - left - 10) * (x - x0) / (x1 - x0)

    def sy(y: float) -> float:
        return 10 + (height - bottom - 10) * (y1 - y) / (y1 - y0)

    parts = [
        f'<svg id="{ident}" class="chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="#999"/>',
        f'<line x1="{left}" y1="10" x2="{left}" y2="{height - bottom}" stroke="#999"/>',
        f'<text class="axis" x="{width / 2:.0f}" y="{height - 2}" text-anchor="middle">'
        f"{escape(x_label)}</text>",
        f'<text class="axis" x="12" y="{height / 2:.0f}" transform="rotate(-90 12 {height / 2:.0f})" '
        f'text-anchor="middle">{escape(y_label)}</text>',
    ]
    for y in _ticks(y0, y1):
        parts.append(
            f'<line x1="{left - 3}" y1="{sy(y):.1f}" x2="{left}" y2="{sy(y):.1f}" stroke="#999"/>'
            f'<text class="tick-y" x="{left - 5}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:g}</text>'
        )
    for x in _ticks(x0, x1, whole=True):
        parts.append(
            f'<line x1="{sx(x):.1f}" y1="{height - bottom}" x2="{sx(x):.1f}" y2="{height - bottom + 3}" '
            f'stroke="#999"/><text class="tick-x" x="{sx(x):.1f}" y="{height - bottom + 14}" '
            f'text-anchor="middle">{x:g}</text>'
        )
    for g in guides:
        parts.append(
            f'<line class="guide" x1="{left}" y1="{sy(g):.1f}" x2="{width - 10}" y2="{sy(g):.1f}" '
            'stroke="#c00" stroke-dasharray="4 3"/>'
        )
    for i, (name, line) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in line)
        parts.append(
            f'<polyline class="series" data-name="{escape(name)}" points="{path}" fill="none" '
            f'stroke="{colour}" stroke-width="1.5"/>'
        )
        if line:
            x, y = line[-1]
            parts.append(
                f'<text x="{min(sx(x) + 3, width - 60):.1f}" y="{sy(y):.1f}" '
                f'fill="{colour}">{escape(name)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: float, hi: float, *, whole: bool = False, most: int = 6) -> list[float]:
    """Round values from ``lo`` to ``hi`` for an axis: steps of 1, 2, 2.5 or 5 times a power
    of ten, at least three of them and at most about ``most`` (``whole``: no step below 1,
    for counts)."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / (most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    while True:
        if whole:
            step = max(1.0, round(step))
        first = math.ceil(lo / step) * step
        count = math.floor((hi - first) / step + 1e-9) + 1
        if count >= 3 or (whole and step == 1.0):
            return [round(first + k * step, 10) for k in range(count)]
        step /= 2


def rating_chart(history: Sequence[RatingPoint]) -> str:
    series: dict[str, list[tuple[float, float]]] = {}
    for point in history:
        for name, elo in point.elo.items():
            if math.isfinite(elo):
                series.setdefault(name, []).append((point.games, elo))
    return _chart(series, x_label="games played", y_label="Elo", ident="rating-chart")


def llr_chart(llr: Sequence[tuple[int, float]], lower: float, upper: float) -> str:
    return _chart(
        {"LLR": [(float(p), v) for p, v in llr]},
        x_label="pairs",
        y_label="LLR",
        guides=(lower, upper),
        ident="llr-chart",
    )


def sections_html(st: Standings, *, lead: bool = False) -> str:
    """The schedule kind's own sections (a Swiss's tie-breaks, a knockout's bracket): those
    that lead the page (``lead``: a gauntlet's challengers), or the others."""
    parts: list[str] = []
    for section in st.sections:
        if section.lead != lead:
            continue
        parts.append(f"<h2>{escape(section.title)}</h2>")
        if section.headers:
            head = "".join(f"<th>{escape(h)}</th>" for h in section.headers)
            body = "".join(
                "<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>"
                for row in section.rows
            )
            key = escape(section.key)
            parts.append(
                f'<table id="section-{key}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            )
        if section.text:
            key = escape(section.key)
            parts.append(f'<pre class="section-text" id="section-{key}-text">{escape(section.text)}</pre>')
    return "".join(parts)


def standings_page(
    st: Standings,
    records: Sequence[GameRecord],
    *,
    title: str,
    history: Sequence[RatingPoint] = (),
    llr: Sequence[tuple[int, float]] = (),
    progress: tuple[int, int] | None = None,
    running: bool = False,
    replay_note: str | None = None,
) -> str:
    """The whole page. ``progress`` is ``(done, total)`` games; while the run is
    ``running`` the page says "in progress" and reloads itself every
    :data:`REFRESH_SECONDS` seconds."""
    head, tail = standings_frame(
        st,
        (r.size for r in records),
        title=title,
        history=history,
        llr=llr,
        progress=progress,
        running=running,
        replay_note=replay_note,
    )
    return head + ",".join(game_json(r) for r in records) + tail


def standings_frame(
    st: Standings,
    sizes: Iterable[int],
    *,
    title: str,
    history: Sequence[RatingPoint] = (),
    llr: Sequence[tuple[int, float]] = (),
    progress: tuple[int, int] | None = None,
    running: bool = False,
    replay_note: str | None = None,
) -> tuple[str, str]:
    """The page of :func:`standings_page` around its games' entries
    (:func:`~referee.render.html.game_json`, joined by commas) of boards of ``sizes``, so
    that a page of many games can be written a game at a time."""
    parts = ['<section class="standings">']
    if progress is not None:
        done, total = progress
        state = "in progress" if running else "finished" if done >= total else "stopped"
        parts.append(f'<p class="progress" id="progress">{state}: {done} of {total} games</p>')
    played = st.games - st.void
    parts.append(f"<p>{played} games rated" + (f", {st.void} void (not rated)" if st.void else "") + "</p>")
    parts.append(sections_html(st, lead=True))
    parts += ["<h2>Leaderboard</h2>", leaderboard_html(st), legend_html()]
    parts += ["<h2>Crosstable</h2>", f'<div class="wide">{crosstable_html(st)}</div>']
    parts.append(sections_html(st))
    if st.pairs:
        parts += ["<h2>Opening pairs</h2>", f'<div class="wide">{pairs_html(st)}</div>']
    if history:
        parts += ["<h2>Ratings over the games</h2>", rating_chart(history)]
    if st.sprt is not None:
        status = st.sprt.status
        parts += ["<h2>SPRT</h2>", f'<p id="sprt">{escape(st.sprt.words)}</p>']
        if llr:  # the bounds as standings.json has them
            parts.append(llr_chart(llr, round(status.lower, 4), round(status.upper, 4)))
    if st.warnings:
        parts.append(
            '<ul class="warnings">' + "".join(f"<li>{escape(w)}</li>" for w in st.warnings) + "</ul>"
        )
    parts.append("<h2>Games</h2>")
    if replay_note is not None:
        parts.append(f'<p id="replay-note">{escape(replay_note)}</p>')
    parts.append("</section>")
    return page_frame(
        sizes,
        title=title,
        before="".join(parts),
        refresh_seconds=REFRESH_SECONDS if running else None,
        extra_css=CSS,
    )
