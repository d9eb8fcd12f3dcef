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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from functools import cache
from html import escape
from typing import Any

from referee.engine import Color, Position, TurnError, geometry, parse_turn
from referee.play.records import GameRecord, TurnEntry, parse_line
from referee.render.assets import CSS as _CSS
from referee.render.assets import JS as _JS
from referee.render.svg import STYLE, grid_svg, layout, svg_open

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
"""Digits of the change codes: a change is ``3 * point + state`` (state 0 empty, 1 Black,
2 White) in two base-64 digits, most significant first (469 points * 3 < 64 ** 2)."""


def _code(point: int, state: int) -> str:
    v = 3 * point + state
    return ALPHABET[v >> 6] + ALPHABET[v & 63]


def _seconds(x: float | None) -> str:
    return "-" if x is None else str(round(x * 1000))


@cache
def _point_codes(size: int) -> tuple[tuple[str, str, str], ...]:
    """Per engine point index, its change codes (empty, Black, White) on the page's board
    of side ``size``. The engine's indices and the layout's numbers run in the same order
    (both row by row from ``a1``), so a bitset's points, lowest first, are in the page's
    order."""
    geo = geometry(size)
    index = layout(size).index
    codes: list[tuple[str, str, str]] = [("", "", "")] * (max(geo.names) + 1)
    for p, name in geo.names.items():
        codes[p] = (_code(index[name], 0), _code(index[name], 1), _code(index[name], 2))
    order = [index[geo.names[p]] for p in sorted(geo.names)]
    assert order == sorted(order), "the engine's points and the layout's run in different orders"
    return tuple(codes)


def _changes(codes: tuple[tuple[str, str, str], ...], black: int, white: int, changed: int) -> str:
    """The change codes of the points of ``changed``, lowest first, as they stand in
    ``black`` and ``white``."""
    out = []
    while changed:
        low = changed & -changed
        changed ^= low
        out.append(codes[low.bit_length() - 1][1 if black & low else 2 if white & low else 0])
    return "".join(out)


def score_breakdown(position: Position) -> list[dict[str, Any]]:
    """Per colour (Black first): every group's size, the distinct sizes that score, their
    sum, their count, the half point for the strictly largest group, and the total."""
    sizes = [position.group_sizes(c) for c in (Color.BLACK, Color.WHITE)]
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
    turns = record.turns
    opening = 0
    while opening < len(turns) and turns[opening].opening:
        opening += 1
    return _game_data(
        record,
        [t.turn for t in turns],
        [t.seconds for t in turns],
        "".join([t.color.letter for t in turns]),
        opening,
        lambda k: turns[k].number,
    )


def _game_data(
    record: GameRecord,
    texts: list[str],
    seconds: list[float | None],
    colors: str,
    opening: int,
    number: Callable[[int], int],
    known: bool = False,
) -> dict[str, Any]:
    """:func:`game_data` of ``record`` but for its turns, given apart: their notation,
    times and colours' letters, how many the opening gave, and the number of the ``k``-th.
    ``known``: the engine has played these turns from this setup already (see
    :func:`line_entry`), so they are replayed from their notation alone."""
    pos = Position.new(record.size)
    codes = _point_codes(record.size)
    tokens: list[str] = []
    replay_error = None
    if record.setup is not None:
        try:
            pos = pos.setup(record.setup.black, record.setup.white)
        except TurnError as exc:
            replay_error = f"setup {record.setup.black} {record.setup.white}: {exc}"
    # The stones as bitsets (not names): the replay compares them after every turn, and
    # stones/stone_at would name and sort every point.
    black, white = pos.stone_masks
    tokens.append(_changes(codes, black, white, black | white))
    if replay_error is None and known:
        try:
            pos = _known_replay(pos, texts, codes, tokens)
        except (TurnError, ValueError):  # not the engine's turns after all: the engine says why
            del tokens[1:]
            known = False
    if replay_error is None and not known:
        for k, text in enumerate(texts):
            try:
                pos = pos.play(text)
            except TurnError as exc:
                replay_error = f"turn {number(k)} {text}: {exc}"
                break
            # The points whose stone the turn changed: its placement and each steal's two
            # points (the engine's stones, not the notation's: the same points).
            b, w = pos.stone_masks
            changed = (b ^ black) | (w ^ white)
            if changed & (changed - 1):
                tokens.append(_changes(codes, b, w, changed))
            else:  # one point (a placement without steals, most turns)
                tokens.append(codes[changed.bit_length() - 1][1 if b & changed else 2] if changed else "")
            black, white = b, w
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
        "t": " ".join(texts),
        "s": " ".join([_seconds(x) for x in seconds]),
        "d": " ".join(tokens),
    }
    if colors != ("bw" * len(colors))[: len(colors)]:  # only when the colours do not simply alternate
        data["tc"] = colors
    if replay_error is not None:
        data["err"] = replay_error
    if record.forensics is not None:  # only games that ended in a fault have them
        data["fx"] = {"lines": record.forensics.lines, "stderr": record.forensics.stderr}
    return data


def _known_replay(
    pos: Position, texts: list[str], codes: tuple[tuple[str, str, str], ...], tokens: list[str]
) -> Position:
    """The replay of turns the engine has played from ``pos`` already, without its check:
    each turn's stones from its notation (the mover's stone on the placement; each steal
    takes the opponent's stone off its first point and puts one of the mover's on its
    second; a pass changes nothing; the mover alternates, as the engine has it), its
    tokens appended to ``tokens`` as :func:`_game_data` makes them. Returns the last
    position. For any turns the engine did not play, this is not their replay."""
    geo = pos.geo
    index_of = geo.index_of
    stones = list(pos.stone_masks)
    mover = 0 if pos.to_move is Color.BLACK else 1
    for text in texts:
        place = index_of.get(text)
        if place is None:
            place, steals = parse_turn(geo, text)
            if place is None:  # a pass
                tokens.append("")
                mover ^= 1
                continue
        else:
            steals = []
        placed = 1 << place
        if not steals:  # a placement alone (most turns)
            stones[mover] |= placed
            tokens.append(codes[place][1 + mover])
        else:
            black, white = stones
            own, other = stones[mover] | placed, stones[1 - mover]
            for x, y in steals:
                other &= ~(1 << x)
                own |= 1 << y
            stones[mover], stones[1 - mover] = own, other
            b, w = stones
            tokens.append(_changes(codes, b, w, (b ^ black) | (w ^ white)))
        mover ^= 1
    return Position.from_masks(geo.size, stones[0], stones[1], Color.BLACK if mover == 0 else Color.WHITE)


_TURN_FIELDS = frozenset(f.name for f in fields(TurnEntry))
_TURN_NEEDS = frozenset({"number", "color", "turn"})  # the fields without a default
_LETTER = {c.value: c.letter for c in Color}


def line_entry(line: bytes | str, known: bool = False) -> tuple[GameRecord, str]:
    """The record of a results line and its :func:`game_json`, or ``ValueError`` just when
    :func:`~referee.play.records.parse_line` would raise it. The record has no turns: they
    are read off the line's JSON as they are (a :class:`~referee.play.records.TurnEntry`
    each was about half of ``parse_line``'s time), when every one is a plain turn object
    as the referee writes it; any other line goes through ``parse_line``.

    ``known``: this line is one the referee wrote after its engine played every turn in it
    (a run's standings process knows its lines by their digests,
    :class:`~referee.tournament.store.replays.Vouched`). Its replay then reads the stones
    off the notation: the engine's check, most of a replay's cost, was made when the game
    was played. The entry is the same; a turn the engine would refuse is not caught."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    turns = data.get("turns") if type(data) is dict else None
    if type(turns) is list:
        try:
            # What GameRecord.from_dict needs of a turn to read it: an object of its fields
            # only, the three without a default among them, and a colour's name.
            colors = "".join([_LETTER[t["color"]] for t in turns])
            plain = all([type(t) is dict and _TURN_NEEDS <= t.keys() <= _TURN_FIELDS for t in turns])
        except (KeyError, TypeError):
            plain = False
        if plain:
            record = GameRecord.from_dict({**data, "turns": []})
            opening = 0
            while opening < len(turns) and turns[opening].get("opening", False):
                opening += 1
            entry = _game_data(
                record,
                [t["turn"] for t in turns],
                [t.get("seconds") for t in turns],
                colors,
                opening,
                lambda k: turns[k]["number"],
                known,
            )
            return record, _script_json(entry)
    record = parse_line(line)
    return record, game_json(record)


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
