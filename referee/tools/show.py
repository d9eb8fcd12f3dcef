"""``vastuz show``: a recorded game replayed with the rules engine, as text diagrams.

Everything a bot supplied (its name and version, what it answered, hence the reason and
notes) passes through :func:`referee.text.printable` before it reaches the terminal.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.engine import Position
from referee.play.records import GameRecord
from referee.render.sgf import parse_sgf
from referee.text import printable
from referee.tournament.config.reading import MAX_BOOK_BYTES, read_user_text
from referee.tournament.store.results import ResultsFile


@dataclass(frozen=True)
class ShownGame:
    """The record chosen, its number in the file (from 1) and how many the file holds."""

    record: GameRecord
    number: int
    total: int


def check_record_file(path: Path) -> None:
    """``ValueError`` when ``path`` is not a file of records (a folder: which file in it to
    show; nothing there), as :func:`load_game` and ``show --html`` say it."""
    if path.is_dir():
        # A results folder (what `vastuz report` takes): say which file in it to show.
        inside = [name for name in ("results.jsonl", "games.jsonl") if (path / name).is_file()]
        hint = (
            f": try vastuz show {shlex.quote(str(path / inside[0]))} (vastuz report {shlex.quote(str(path))} "
            "gives its standings)"
            if inside
            else " (expected a .jsonl, .json or .sgf record)"
        )
        raise ValueError(f"a folder, not a file{hint}")
    if not path.is_file():
        raise ValueError(
            "no such file" if not path.exists() else "not a file (expected a .jsonl or .json record)"
        )


def load_game(path: Path, game: str | None = None) -> ShownGame:
    """A record from a ``.json`` file or an ``.sgf`` file of ``vastuz export``, or game
    ``game`` (number or id; default the first) of a ``.jsonl`` file. ``ValueError`` says
    what is wrong, without repeating the path (the caller names the file)."""
    check_record_file(path)
    if path.suffix == ".json":
        return ShownGame(
            GameRecord.from_json(read_user_text(path, "game record (.json)", MAX_BOOK_BYTES)), 1, 1
        )
    if path.suffix == ".sgf":
        return ShownGame(parse_sgf(read_user_text(path, "game (.sgf)", MAX_BOOK_BYTES)), 1, 1)
    wanted = "1" if game is None else game
    # One pass that parses only the game wanted: a long run's file is not read into memory.
    picked = ResultsFile(path).pick(wanted, int(wanted) if wanted.isdigit() else None)
    total = picked.total
    if not total:
        raise ValueError("no game records in this file")
    if picked.found:
        number, record = picked.found[0]
        return ShownGame(record, number, total)
    if picked.numbered is not None:
        return ShownGame(picked.numbered, int(wanted), total)
    if wanted.isdigit() and 1 <= int(wanted) <= total:
        raise ValueError(f"game {wanted} of the file is damaged (not a game record)")
    example = "" if picked.first_id is None else f" such as {printable(picked.first_id)!r}"
    raise ValueError(
        f"no game {printable(wanted)!r}: the file holds {total} game(s); give a number from 1 "
        f"to {total} or a game id{example}"
    )


def load_record(path: Path, game: str = "1") -> GameRecord:
    """The record :func:`load_game` finds."""
    return load_game(path, game).record


def time_control_text(tc: Mapping[str, Any]) -> str:
    """A record's ``time_control`` in words: ``1 s per move (margin 0.2 s)`` or
    ``Fischer 60 s + 0.5 s per move (margin 0.2 s)``."""

    def seconds(key: str) -> str:
        value = tc.get(key)
        return f"{value:g} s" if isinstance(value, (int, float)) else "? s"

    margin = f" (margin {seconds('margin')})" if "margin" in tc else ""
    if tc.get("kind") == "per_move" or ("per_move" in tc and "main" not in tc):
        return f"{seconds('per_move')} per move{margin}"
    if tc.get("kind") == "fischer" or "main" in tc:
        increment = f" + {seconds('increment')} per move" if tc.get("increment") else ""
        return f"Fischer {seconds('main')} per game{increment}{margin}"
    return printable(", ".join(f"{k} {v}" for k, v in tc.items())) or "unknown"


def position_after(record: GameRecord, turn: int | None = None) -> tuple[Position, str | None]:
    """The position after ``turn`` turns of ``record`` (its end when None; 0: after the
    setup), and that turn's notation. ``ValueError`` for a turn the game does not have."""
    count = len(record.turns)
    k = count if turn is None else turn
    if not 0 <= k <= count:
        raise ValueError(f"game {record.game_id} has turns 0 to {count}, not {turn}")
    pos = Position.new(record.size)
    if record.setup is not None:
        pos = pos.setup(record.setup.black, record.setup.white)
    for entry in record.turns[:k]:
        pos = pos.play(entry.turn)
    return pos, record.turns[k - 1].turn if k else None


def render_game(record: GameRecord) -> str:
    """The game as text: header, the board after the setup and after each turn, the result."""
    p = printable
    out = [
        f"game {p(record.game_id)}: size {record.size}, opening {p(record.opening)}, "
        f"time {time_control_text(record.time_control)}"
    ]
    for seat, bot in enumerate(record.bots):
        colour = "black" if record.black == seat else "white" if record.white == seat else "-"
        out.append(
            f"  seat {seat} {p(bot.label)} ({colour}): {p(bot.name or '?')} {p(bot.version or '')} "
            f"[{p(bot.command)}]"
        )
    pos = Position.new(record.size)
    if record.setup is not None:
        who = "the referee" if record.setup.by is None else p(record.label_of(record.setup.by))
        out.append(f"setup by {who}: black {p(record.setup.black)}, white {p(record.setup.white)}")
        pos = pos.setup(record.setup.black, record.setup.white)
        out.append(pos.diagram())
    if record.choice is not None:
        out.append(f"{p(record.label_of(record.choice.by))} chose {record.choice.color.value}")
    for turn in record.turns:
        pos = pos.play(turn.turn)
        timing = "opening" if turn.opening else f"{turn.seconds:.3f} s" if turn.seconds is not None else ""
        if turn.left is not None:
            timing += f", {turn.left:.1f} s left"
        out.append(f"{turn.number}. {turn.color.value} {p(turn.turn)} ({timing})")
        out.append(pos.diagram())
    out.append(f"result: {p(record.result)} ({record.termination.value}): {p(record.reason)}")
    if record.score is not None:
        out.append(f"score: black {record.score[0]:g}, white {record.score[1]:g}")
    out.extend(f"note: {p(note)}" for note in record.notes)
    out.extend(forensics_text(record))
    return "\n".join(out)


def forensics_text(record: GameRecord) -> list[str]:
    """The record's failure forensics (see :class:`~referee.play.records.Forensics`) as
    lines: each bot's last protocol lines, then the faulting bot's stderr; nothing for a
    record without them. Every line of the bots' text is made printable on its own."""
    forensics = record.forensics
    if forensics is None:
        return []
    p = printable
    fault_seat = None if record.fault is None else record.fault.seat
    out = ["forensics: what the referee last exchanged with each bot before the fault (> sent, < received)"]
    for seat, lines in enumerate(forensics.lines):
        if seat >= len(record.bots):
            break
        out.append(f"  seat {seat} {p(record.bots[seat].label)}, its last {len(lines)} protocol lines:")
        out.extend(f"    {p(line)}".rstrip() for line in lines)
    if fault_seat is not None and fault_seat < len(record.bots):
        label = p(record.bots[fault_seat].label)
        if forensics.stderr is None:
            out.append(f"  seat {fault_seat} {label} wrote nothing to stderr")
        else:
            out.append(f"  seat {fault_seat} {label}, the end of its stderr:")
            out.extend(f"    {p(line)}" for line in forensics.stderr.splitlines())
    return out
