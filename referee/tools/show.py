"""``vastuz show``: a recorded game replayed with the rules engine, as text diagrams."""

from __future__ import annotations

from pathlib import Path

from referee.engine import Position
from referee.play.records import GameRecord
from referee.tournament.results import ResultsFile


def load_record(path: Path, game: str) -> GameRecord:
    """A record from a ``.json`` file, or game ``game`` (number or id) of a ``.jsonl`` file."""
    if not path.is_file():
        raise ValueError("no such file")
    if path.suffix == ".json":
        return GameRecord.from_json(path.read_text(encoding="utf-8"))
    records = ResultsFile(path).load().records
    for record in records:
        if record.game_id == game:
            return record
    if game.isdigit() and 1 <= int(game) <= len(records):
        return records[int(game) - 1]
    raise ValueError(f"{path}: no game {game!r} (the file holds {len(records)} game(s))")


def render_game(record: GameRecord) -> str:
    """The game as text: header, the board after the setup and after each turn, the result."""
    out = [f"game {record.game_id}: size {record.size}, opening {record.opening}, time {record.time_control}"]
    for seat, bot in enumerate(record.bots):
        colour = "black" if record.black == seat else "white" if record.white == seat else "-"
        out.append(
            f"  seat {seat} {bot.label} ({colour}): {bot.name or '?'} {bot.version or ''} [{bot.command}]"
        )
    pos = Position.new(record.size)
    if record.setup is not None:
        who = "the referee" if record.setup.by is None else record.label_of(record.setup.by)
        out.append(f"setup by {who}: black {record.setup.black}, white {record.setup.white}")
        pos = pos.setup(record.setup.black, record.setup.white)
        out.append(pos.diagram())
    if record.choice is not None:
        out.append(f"{record.label_of(record.choice.by)} chose {record.choice.color.value}")
    for turn in record.turns:
        pos = pos.play(turn.turn)
        timing = "opening" if turn.opening else f"{turn.seconds:.3f} s" if turn.seconds is not None else ""
        if turn.left is not None:
            timing += f", {turn.left:.1f} s left"
        out.append(f"{turn.number}. {turn.color.value} {turn.turn} ({timing})")
        out.append(pos.diagram())
    out.append(f"result: {record.result} ({record.termination.value}): {record.reason}")
    if record.score is not None:
        out.append(f"score: black {record.score[0]:g}, white {record.score[1]:g}")
    out.extend(f"note: {note}" for note in record.notes)
    return "\n".join(out)
