"""The server's own pages: the list of runs, the live games, a game against a bot.

Plain HTML with one stylesheet and one script served from ``/static/`` (the pages'
Content Security Policy allows only those: no inline script, no other origin). Everything
shown that a bot or a person chose (names, reasons) is escaped here or set as text by the
script; boards are the SVG of :mod:`referee.render.svg`, with a layer of click targets
(``<circle class="hit" data-point="c3">``) over the points for the game page.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from referee.render.svg import STYLE, layout
from referee.serve.assets import CSS, JS

__all__ = ["CSP", "CSS", "JS", "clickable", "frame", "index_page", "live_page", "play_form", "play_page"]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:;"
    " base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The Content Security Policy of the server's own pages."""


def clickable(svg: str, size: int) -> str:
    """``svg`` (a board of side ``size``) with a transparent click target over each point."""
    lay = layout(size)
    r = round(float(STYLE["stone_r"]), 1)
    hits = "".join(
        f'<circle class="hit" data-point="{name}" cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="transparent"/>'
        for name, (x, y) in zip(lay.names, lay.xy, strict=True)
    )
    return svg.replace("</svg>", f'<g class="hits">{hits}</g></svg>')


def frame(title: str, body: str, *, page: str, data: dict[str, str] | None = None) -> str:
    """A page of the server's own: ``body`` (trusted markup, already escaped) under ``title``."""
    attrs = "".join(f' data-{k}="{escape(v)}"' for k, v in (data or {}).items())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="stylesheet" href="/static/serve.css">
</head>
<body data-page="{page}"{attrs}>
<nav><a href="/">Runs</a> <a href="/live">Live games</a> <a href="/play">Play a bot</a></nav>
<h1>{escape(title)}</h1>
{body}
<script src="/static/serve.js"></script>
</body>
</html>
"""


_page = frame


def _ladder_table(ladders: Sequence[dict[str, Any]]) -> str:
    if not ladders:
        return ""
    rows = "".join(
        f'<tr data-ladder="{escape(r["ladder"])}">'
        f'<td><a href="/ladders/{escape(r["ladder"])}/">{escape(r["ladder"])}</a></td>'
        f"<td>{r.get('games', '')}</td><td>{r.get('entries', '')}</td>"
        f"<td>{'running' if r['running'] else escape(r.get('error', ''))}</td>"
        f'<td class="folder">{escape(r["folder"])}</td></tr>'
        for r in ladders
    )
    return (
        '<h2>Ladders</h2><table id="ladders"><thead><tr><th>ladder</th><th>games</th><th>entries</th>'
        f"<th></th><th>folder</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def index_page(runs: Sequence[dict[str, Any]], live: int, ladders: Sequence[dict[str, Any]] = ()) -> str:
    rows = "".join(
        f'<tr data-run="{escape(r["run"])}">'
        f'<td><a href="/runs/{escape(r["run"])}/">{escape(r["run"])}</a></td>'
        f"<td>{r['games']}</td><td>{'running' if r['running'] else ''}</td>"
        f'<td class="folder">{escape(r["folder"])}</td></tr>'
        for r in runs
    )
    table = (
        f'<table id="runs"><thead><tr><th>run</th><th>games</th><th></th><th>folder</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        if runs
        else f'<p id="runs">{"No runs here." if ladders else "No results folders here yet."}</p>'
    )
    return _page(
        "Vastuz arena",
        f'{table}{_ladder_table(ladders)}<p><a href="/live">{live} game(s) in progress</a> · '
        '<a href="/play">play a bot</a></p>',
        page="index",
    )


def live_page() -> str:
    return _page(
        "Live games",
        '<p id="live-status">connecting…</p><div id="live"></div>',
        page="live",
    )


def play_form(bots: Sequence[str], token: bool) -> str:
    if not bots:
        return _page(
            "Play a bot",
            '<p id="no-bots">No bot is configured: start the server with <code>--bots FILE</code> '
            "(a bots file such as configs/bots.yaml).</p>",
            page="play-new",
        )
    options = "".join(f'<option value="{escape(b)}">{escape(b)}</option>' for b in bots)
    sizes = "".join(f'<option value="{n}"{" selected" if n == 5 else ""}>{n}</option>' for n in range(3, 14))
    token_field = (
        '<label>Token <input id="token" type="password" autocomplete="off"></label>' if token else ""
    )
    body = f"""<div id="new-game" class="form">
<label>Bot <select id="bot">{options}</select></label>
<label>Board size <select id="size">{sizes}</select></label>
<label>Clock <select id="clock">
<option value="per_move:30">30 s a move</option><option value="per_move:60" selected>60 s a move</option>
<option value="per_move:300">5 min a move</option><option value="main:300:5">5 min + 5 s a move</option>
<option value="main:900:10">15 min + 10 s a move</option></select></label>
<label>You play <select id="side"><option value="black">Black (you start)</option>
<option value="white">White</option><option value="pie">the pie rule (the bot sets up, you choose)</option>
<option value="pie-setup">the pie rule (you set up, the bot chooses)</option>
</select></label>
<label>Your name <input id="name" value="person" maxlength="32"></label>
{token_field}
<button data-action="start">Start the game</button>
<p id="error" class="error"></p>
</div>"""
    return _page("Play a bot", body, page="play-new", data={"token": "1" if token else ""})


def play_page(game_id: str, token: bool) -> str:
    body = """<div id="play">
<div id="board-pane"><div id="board"></div></div>
<div id="side-pane">
<p id="players"></p>
<p id="status">starting…</p>
<p id="clocks"><span id="your-clock"></span> <span id="bot-clock"></span></p>
<p id="turn-so-far"></p>
<p id="error" class="error"></p>
<div id="buttons">
<button data-action="black" hidden>Play Black</button>
<button data-action="white" hidden>Play White</button>
<button data-action="pass" hidden>Pass</button>
<button data-action="cancel" hidden>Start the turn again</button>
<button data-action="resign">Resign</button>
</div>
<ol id="turns"></ol>
<p><a href="/play">another game</a></p>
</div></div>"""
    return _page(
        "Game against a bot", body, page="play-game", data={"game": game_id, "token": "1" if token else ""}
    )
