"""A ladder's pages: its rating list, a bot's page (its rating history as an SVG chart
drawn here, its games), in the server's frame (:func:`referee.serve.pages.frame`).

Every label, version and word from the store is escaped here; links name a label or a
slot percent-encoded. The chart is plain SVG (no script): the rating after each sampled
round, the provisional stretch (fewer than ``min_games`` games) dashed, the established
one solid, with labelled axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from referee.serve.pages import frame

WIDTH, HEIGHT = 720, 280
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 40


def _u(text: str) -> str:
    return quote(text, safe="")


def _nice_step(span: float, ticks: int) -> float:
    raw = span / max(1, ticks)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw:
            return float(factor * magnitude)
    return float(10 * magnitude)


def _ticks(low: float, high: float, count: int) -> list[float]:
    step = _nice_step(high - low, count)
    first = math.ceil(low / step) * step
    out = []
    value = first
    while value <= high + 1e-9:
        out.append(round(value, 6))
        value += step
    return out


def rating_chart(points: Sequence[dict[str, Any]], *, label: str) -> str:
    """The SVG chart of ``points`` (``history_json``'s: round, elo, provisional)."""
    if not points:
        return '<p id="no-history">No rating yet: the chart starts with the first game.</p>'
    rounds = [int(p["round"]) for p in points]
    elos = [float(p["elo"]) for p in points]
    x0, x1 = min(rounds), max(rounds)
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    y0, y1 = min(elos), max(elos)
    pad = max(10.0, (y1 - y0) * 0.08)
    y0, y1 = y0 - pad, y1 + pad
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(r: float) -> float:
        return LEFT + (r - x0) / (x1 - x0) * inner_w

    def y(e: float) -> float:
        return TOP + (y1 - e) / (y1 - y0) * inner_h

    parts = [
        f'<svg id="rating-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="rating history of {escape(label)}">',
        f"<title>Rating of {escape(label)} after each round</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{inner_w}" height="{inner_h}" fill="#fafafa" stroke="#bbb"/>',
    ]
    for tick in _ticks(y0, y1, 5):
        ty = y(tick)
        parts.append(
            f'<line class="grid" x1="{LEFT}" y1="{ty:.1f}" x2="{WIDTH - RIGHT}" y2="{ty:.1f}" '
            'stroke="#e4e4e4"/>'
            f'<text class="tick y" x="{LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end" font-size="11">'
            f"{tick:+.0f}</text>"
        )
    for tick in _ticks(float(x0), float(x1), 6):
        if tick != int(tick):
            continue
        tx = x(tick)
        parts.append(
            f'<line x1="{tx:.1f}" y1="{TOP + inner_h}" x2="{tx:.1f}" y2="{TOP + inner_h + 4}" stroke="#888"/>'
            f'<text class="tick x" x="{tx:.1f}" y="{TOP + inner_h + 16}" text-anchor="middle" font-size="11">'
            f"{int(tick)}</text>"
        )
    parts.append(
        f'<text class="axis" x="{LEFT + inner_w / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle" '
        f'font-size="12">round</text>'
        f'<text class="axis" x="14" y="{TOP + inner_h / 2:.0f}" text-anchor="middle" font-size="12" '
        f'transform="rotate(-90 14 {TOP + inner_h / 2:.0f})">Elo</text>'
    )
    xy = [(x(r), y(e)) for r, e in zip(rounds, elos, strict=True)]
    provisional = [bool(p["provisional"]) for p in points]
    # the provisional stretch (dashed) up to the first established point, then solid
    cut = next((k for k, p in enumerate(provisional) if not p), len(points))
    if cut > 0:
        stretch = xy[: min(cut + 1, len(xy))]
        parts.append(
            '<polyline class="provisional" fill="none" stroke="#d08020" stroke-width="2" '
            f'stroke-dasharray="5 4" points="{_pts(stretch)}"/>'
        )
    if cut < len(points):
        parts.append(
            f'<polyline class="established" fill="none" stroke="#2060c0" stroke-width="2" '
            f'points="{_pts(xy[cut:])}"/>'
        )
    last_x, last_y = xy[-1]
    parts.append(f'<circle cx="{last_x:.1f}" cy="{last_y:.1f}" r="3" fill="#2060c0"/>')
    parts.append("</svg>")
    legend = (
        '<p class="legend"><span class="key provisional">- - -</span> provisional '
        '<span class="key established">——</span> established</p>'
    )
    return "".join(parts) + legend


def _pts(xy: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in xy)


def _when(text: str | None) -> str:
    return "" if not text else escape(text[:19].replace("T", " "))


def _connected(row: dict[str, Any]) -> str:
    if not row["remote"]:
        return "local"
    return "connected" if row["connected"] else "not connected"


def _live_list(ladder: str, live: Sequence[dict[str, Any]]) -> str:
    if not live:
        return '<p id="live-games">No game in progress.</p>'
    items = "".join(
        f'<li data-game="{escape(str(g.get("game_id", "")))}">{escape(str(g.get("game_id", "")))}: '
        f"{escape(' – '.join(str(b) for b in g.get('bots', [])))} · turn {len(g.get('turns', []))}</li>"
        for g in live
    )
    return f'<ul id="live-games">{items}</ul><p><a href="/live">watch them on the live page</a></p>'


def ladder_body(data: dict[str, Any]) -> str:
    """The part of the ladder page that its script replaces when the store changes."""
    ladder = data["ladder"]
    rows = []
    for r in data["bots"]:
        rows.append(
            f'<tr data-label="{escape(r["label"])}" data-state="{escape(r["state"])}">'
            f"<td>{r['rank']}</td>"
            f'<td><a href="/ladders/{_u(ladder)}/bots/{_u(r["label"])}">{escape(r["label"])}</a></td>'
            f'<td class="rating">{escape(r["rating"])}</td><td>{escape(r["interval"])}</td>'
            f"<td>{r['games']}</td><td>{r['wins']}-{r['draws']}-{r['losses']}</td>"
            f"<td>{escape((r['version'] or '')[:40])}</td><td>{_when(r['last_game'])}</td>"
            f'<td>{_when(r["last_seen"])}</td><td class="connected">{_connected(r)}</td>'
            f"<td>{escape(r['state'])}</td></tr>"
        )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "rank", "bot", "rating", "95% interval", "games", "W-D-L", "version", "last game",
            "last seen", "connected", "state",
        )
    )  # fmt: skip
    words = [f"{data['games']:,} games in {data['rounds']:,} rounds"]
    if data["round_under_way"] is not None:
        words.append(f"round {data['round_under_way']} under way: {data['pending']} game(s) to play")
    if data["void"]:
        words.append(f"{data['void']} void")
    words.append(f"a rating is provisional (?) until {data['min_games']} games")
    words.append("running" if data["running"] else "not running")
    note = (
        ""
        if data["config_known"]
        else '<p class="note" id="no-config">This ladder has no <code>ladder.json</code> beside its store '
        "(a ladder run writes it): shown with the default minimum of games and no anchor "
        "(the mean rating is 0).</p>"
    )
    return (
        f'<p id="ladder-summary">{escape("; ".join(words))}</p>{note}'
        f'<table id="ratings"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f"<h2>Games in progress</h2>{_live_list(ladder, data['live'])}"
    )


def ladder_page(data: dict[str, Any], stamp: str) -> str:
    title = f"Ladder {data['name'] or data['ladder']}"
    return frame(
        title,
        f'<div id="ladder-body">{ladder_body(data)}</div>',
        page="ladder",
        data={"ladder": data["ladder"], "stamp": stamp},
    )


def bot_page(data: dict[str, Any]) -> str:
    ladder, label = data["ladder"], data["label"]
    r = data["line"]
    summary = (
        f'<p id="bot-summary">rating <span class="rating">{escape(r["rating"])}</span> '
        f"{escape(r['interval'])} · {r['games']} games ({r['wins']}-{r['draws']}-{r['losses']}) · "
        f"{escape(r['state'])} · {_connected(r)}</p>"
    )
    games = "".join(
        f'<tr data-slot="{escape(g["slot"])}"><td>{g["round"]}</td>'
        f'<td><a href="/ladders/{_u(ladder)}/games/{_u(g["slot"])}">{escape(g["slot"])}</a></td>'
        f'<td><a href="/ladders/{_u(ladder)}/bots/{_u(g["opponent"])}">{escape(g["opponent"])}</a></td>'
        f"<td>{'first' if g['seat'] == 0 else 'second'}</td><td>{g['result']}</td>"
        f"<td>{_when(g['ended'])}</td></tr>"
        for g in data["games"]
    )
    table = (
        '<table id="games"><thead><tr><th>round</th><th>game</th><th>opponent</th><th>seat</th>'
        f"<th>result</th><th>ended</th></tr></thead><tbody>{games}</tbody></table>"
        if data["games"]
        else '<p id="games">No game yet.</p>'
    )
    older = (
        ""
        if data["next_before"] is None
        else f'<p><a id="older" href="?before={data["next_before"]}">older games</a></p>'
    )
    body = (
        f'<p><a href="/ladders/{_u(ladder)}/">the rating list</a></p>{summary}'
        f"<h2>Rating history</h2>{rating_chart(data['history'], label=label)}"
        f"<h2>Games (newest first)</h2>{table}{older}"
    )
    return frame(f"{label} on ladder {ladder}", body, page="ladder-bot", data={"ladder": ladder})


__all__ = ["bot_page", "ladder_body", "ladder_page", "rating_chart"]
