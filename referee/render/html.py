"""A self-contained HTML page that replays games: one file, inline CSS and JS, no network.

:func:`game_page` turns game records into one page that opens from ``file://`` offline: a
game list (filterable by bot, result and termination; virtualised, so 10,000 games scroll
as fast as ten) and, for the selected game, a board that steps through the turns with
buttons, the arrow keys and a slider, the turn list (click a turn to jump there), the
final score with the groups that earned it, and a forfeit shown as what it was (the
command, the bot's answer, the reason, and the record's failure forensics: each bot's last
protocol lines and the end of the faulting bot's stderr, folded until opened).

The browser has no rules code. Python replays every game with the engine and embeds, per
turn, the points whose stone changed (two characters a change); the page expands only the
selected game's positions and draws them with the layout and look of
:mod:`referee.render.svg` (the empty board of each size is drawn by that module, and its
:data:`~referee.render.svg.STYLE` is handed over as data). The page's Content Security
Policy is ``default-src 'none'`` with the hashes of its own script and style: the page
cannot load anything, even by mistake.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from referee.engine import Color, Position, TurnError
from referee.play.records import GameRecord
from referee.render.assets import CSS as _CSS
from referee.render.assets import JS as _JS
from referee.render.svg import STYLE, grid_svg, layout, read_turn, svg_open

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
"""Digits of the change codes: a change is ``3 * point + state`` (state 0 empty, 1 Black,
2 White) in two base-64 digits, most significant first (469 points * 3 < 64 ** 2)."""

_STATE = {None: 0, Color.BLACK: 1, Color.WHITE: 2}


def _code(point: int, state: int) -> str:
    v = 3 * point + state
    return ALPHABET[v >> 6] + ALPHABET[v & 63]


def _seconds(x: float | None) -> str:
    return "-" if x is None else str(round(x * 1000))


def _stones(position: Position) -> dict[str, Color]:
    out = {p: Color.BLACK for p in position.stones(Color.BLACK)}
    out.update({p: Color.WHITE for p in position.stones(Color.WHITE)})
    return out


def score_breakdown(position: Position) -> list[dict[str, Any]]:
    """Per colour (Black first): every group's size, the distinct sizes that score, their
    sum, their count, the half point for the strictly largest group, and the total."""
    sizes = [[len(g) for g in position.groups(c)] for c in (Color.BLACK, Color.WHITE)]
    totals = position.score()
    out = []
    for me in range(2):
        distinct = sorted(set(sizes[me]), reverse=True)
        half = max(sizes[me], default=0) > max(sizes[1 - me], default=0)
        out.append(
            {
                "groups": sizes[me],
                "sizes": distinct,
                "sum": sum(distinct),
                "count": len(distinct),
                "half": half,
                "total": totals[me],
            }
        )
    return out


def game_data(record: GameRecord) -> dict[str, Any]:
    """One game as the page's data: the record's facts plus, from the engine, the stones
    that change with the setup and with each turn (``d``: one space-separated token per
    position change, the setup's first) and the final position's score breakdown."""
    lay = layout(record.size)
    index = lay.index
    pos = Position.new(record.size)
    state: dict[str, Color] = {}
    tokens: list[str] = []
    replay_error = None
    if record.setup is not None:
        try:
            pos = pos.setup(record.setup.black, record.setup.white)
        except TurnError as exc:
            replay_error = f"setup {record.setup.black} {record.setup.white}: {exc}"
    state = _stones(pos)
    tokens.append(
        "".join(_code(index[p], _STATE[c]) for p, c in sorted(state.items(), key=lambda x: index[x[0]]))
    )
    if replay_error is None:
        for turn in record.turns:
            try:
                nxt = pos.play(turn.turn)
                placement, steals = read_turn(record.size, turn.turn)
            except TurnError as exc:
                replay_error = f"turn {turn.number} {turn.turn}: {exc}"
                break
            # A turn changes only the points its notation names; the engine says what
            # each of them holds afterwards (checked against the whole board at the end).
            touched = ([placement] if placement is not None else []) + [p for s in steals for p in s]
            changes = []
            for p in sorted(set(touched), key=index.__getitem__):
                after = nxt.stone_at(p)
                if after is not state.get(p):
                    changes.append(_code(index[p], _STATE[after]))
                    if after is None:
                        state.pop(p, None)
                    else:
                        state[p] = after
            tokens.append("".join(changes))
            pos = nxt
        if replay_error is None and state != _stones(
            pos
        ):  # pragma: no cover - a turn changed a point it does not name
            replay_error = "the replay's stones differ from the engine's"
    opening = 0
    while opening < len(record.turns) and record.turns[opening].opening:
        opening += 1
    fault = record.fault
    data: dict[str, Any] = {
        "id": record.game_id,
        "n": record.size,
        "b": [b.label for b in record.bots],
        "bn": [" ".join(x for x in (b.name, b.version) if x) for b in record.bots],
        "k": record.black,
        "st": None
        if record.setup is None
        else [record.setup.black, record.setup.white, record.setup.by, record.setup.seconds],
        "ch": None
        if record.choice is None
        else [record.choice.by, record.choice.color.value, record.choice.seconds],
        "op": opening,
        "r": record.result,
        "o": record.outcome.value,
        "m": record.termination.value,
        "w": record.winner,
        "re": record.reason,
        "f": None
        if fault is None
        else {
            "seat": fault.seat,
            "kind": fault.kind.value,
            "command": fault.command,
            "received": fault.received,
            "seconds": getattr(fault, "seconds", None),
        },
        "sc": None if record.score is None else list(record.score),
        "fs": score_breakdown(pos),
        "no": list(record.notes),
        "t": " ".join(t.turn for t in record.turns),
        "s": " ".join(_seconds(t.seconds) for t in record.turns),
        "d": " ".join(tokens),
    }
    colors = "".join(t.color.letter for t in record.turns)
    if colors != ("bw" * len(colors))[: len(colors)]:  # only when the colours do not simply alternate
        data["tc"] = colors
    if replay_error is not None:
        data["err"] = replay_error
    if record.forensics is not None:  # only games that ended in a fault have them
        data["fx"] = {"lines": record.forensics.lines, "stderr": record.forensics.stderr}
    return data


def _script_json(value: object) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<`` at all."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def game_json(record: GameRecord) -> str:
    """One game's entry of the page's ``games`` list, as the page embeds it: the page's
    data is its style and boards around these entries, so a page can be written one game
    at a time (and an entry computed once, when its game ends)."""
    return _script_json(game_data(record))


def page_frame(
    sizes: Iterable[int],
    *,
    title: str,
    before: str = "",
    refresh_seconds: int | None = None,
    extra_css: str = "",
) -> tuple[str, str]:
    """The page around its games' entries (:func:`game_json`, joined by commas), for games
    on boards of ``sizes``: ``head + ",".join(entries) + tail`` is :func:`game_page`."""
    css = _CSS + extra_css
    boards = {
        str(n): {**layout(n).to_json(), "open": svg_open(n), "grid": grid_svg(n)} for n in sorted(set(sizes))
    }
    data = _script_json({"style": STYLE, "boards": boards, "games": []})
    assert data.endswith("[]}")
    csp = (
        f"default-src 'none'; script-src '{_sha256(_JS)}'; style-src '{_sha256(css)}';"
        " img-src data:; base-uri 'none'; form-action 'none'"
    )
    refresh = (
        "" if refresh_seconds is None else f'<meta http-equiv="refresh" content="{int(refresh_seconds)}">'
    )
    head = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
{refresh}<title>{escape(title)}</title>
<style>{css}</style>
</head>
<body>
<header><h1>{escape(title)}</h1><span id="summary"></span></header>
{before}
<main id="replay">
<aside id="list-pane">
<div id="filters">
<label>Bot <select id="f-bot"><option value="">any</option></select></label>
<label>Result <select id="f-result"><option value="">any</option></select></label>
<label>Ending <select id="f-term"><option value="">any</option></select></label>
<label>Game <input id="f-text" type="search" placeholder="id contains" size="10"></label>
</div>
<div id="count"></div>
<div id="list" tabindex="0"><div id="list-inner"></div></div>
</aside>
<section id="game">
<h2 id="g-title">No game</h2>
<div id="g-meta"></div>
<div id="board-wrap"><div id="board"></div>
<div id="controls">
<button id="b-first" title="first (Home)">&#xAB;</button>
<button id="b-prev" title="back (&#x2190;)">&#x25C0;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="turn">
<button id="b-next" title="forward (&#x2192;)">&#x25B6;</button>
<button id="b-last" title="last (End)">&#xBB;</button>
<span id="turn-label"></span>
<label><input id="c-groups" type="checkbox"> groups</label>
</div>
<div id="fault" hidden></div>
<div id="score"></div>
</div>
<ol id="turns" start="0"></ol>
</section>
</main>
<script type="application/json" id="vastuz-data">{data[:-2]}"""
    tail = f"""]}}</script>
<script>{_JS}</script>
</body>
</html>
"""
    return head, tail


def game_page(
    records: Sequence[GameRecord],
    *,
    title: str,
    before: str = "",
    refresh_seconds: int | None = None,
    extra_css: str = "",
) -> str:
    """The replay page of ``records`` (one game or a whole results file) as HTML text.

    ``before`` is trusted markup (the caller's own, already escaped) shown above the
    replay, e.g. a standings table; ``refresh_seconds`` makes the page reload itself that
    often (for a run in progress); ``extra_css`` styles ``before`` (it goes into the page's
    one style block, which the page's content security policy names by its hash).
    """
    head, tail = page_frame(
        (r.size for r in records),
        title=title,
        before=before,
        refresh_seconds=refresh_seconds,
        extra_css=extra_css,
    )
    return head + ",".join(game_json(r) for r in records) + tail
