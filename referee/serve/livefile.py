"""A run's games in progress in its output folder: ``OUTPUT/live.json``.

``vastuz tournament CONFIG --live`` (or ``--serve``) has its live feed write the games in
progress there, atomically, at most every quarter of a second and only when a turn was
played; ``vastuz serve OUTPUT`` in another process follows the file of every run it serves
that is still running, so a run started without ``--serve`` can be watched too. The file is
small (the games in flight, their turns so far) and the referee writes it from a worker
thread of trio's, never from a game's task.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from referee.engine import Position
from referee.render.svg import board_svg

LIVE_FILE = "live.json"
MAX_LIVE_BYTES = 4 << 20
"""A live file larger than this is not read (a run writes a few kilobytes a game)."""


def write_live(path: Path, games: list[dict[str, Any]]) -> None:
    """Replace ``path`` with the games in progress (a reader sees the old file or the new)."""
    tmp = path.with_name(path.name + ".tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(tmp, flags, 0o644), "w", encoding="utf-8") as fh:
        json.dump({"games": games}, fh, separators=(",", ":"))
    os.replace(tmp, path)


def live_stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of a live file, or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def read_live(path: Path) -> tuple[tuple[int, int], list[dict[str, Any]]] | None:
    """``((mtime_ns, size), games)`` of a live file, or None when there is none to read."""
    try:
        st = os.stat(path)
        if st.st_size > MAX_LIVE_BYTES:
            return None
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(games, list):
        return None
    return (st.st_mtime_ns, st.st_size), [
        g for g in games if isinstance(g, dict) and isinstance(g.get("key"), str)
    ]


def event_of(state: dict[str, Any], *, ended: bool) -> str | None:
    """The server-sent event of a game read from a live file (its board drawn here), or
    None when the state is not one a run writes."""
    try:
        stones = state["stones"]
        position = Position.from_stones(
            int(state["size"]), stones["black"], stones["white"], state["to_move"]
        )
        svg = board_svg(position, last_turn=state.get("last_turn"))
    except (KeyError, TypeError, ValueError):
        return None
    data = {**state, "svg": svg, **({"over": True} if ended else {})}
    return f"event: {'end' if ended else 'game'}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
