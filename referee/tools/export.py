"""``vastuz export``: a results folder's games in the formats other tools read.

The games are the ones ``vastuz report`` rates: one record per schedule slot
(:func:`~referee.tournament.store.folder.latest_records`), read from the results file alone,
so a run stopped half-way exports what it finished. The formats are rendered by
:mod:`referee.render.exports` and :mod:`referee.render.sgf`; this module finds the folder's
files and writes.

Memory: a record's turns are most of it (tens of kilobytes a game), and only SGF shows them.
So the records are read one at a time and kept without their turns (their count kept
instead); SGF reads the file a second time and writes each game's file as its record is read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from referee.errors import ResultsError
from referee.play.records import GameRecord, parse_line
from referee.render.exports import numbered, render_bayeselo, render_csv, render_pgn
from referee.render.sgf import game_sgf
from referee.tournament.store.files import OLD_MATCH_RESULTS, RESULTS
from referee.tournament.store.folder import latest_records
from referee.tournament.store.manifest import Manifest
from referee.tournament.store.results import ResultsFile

FORMATS = ("pgn", "sgf", "bayeselo", "csv")


@dataclass(frozen=True)
class Games:
    """A folder's games to export: the event's name, its bots in config order, the records
    (one per slot, without their turns) and the void ones among them (which PGN, SGF and
    BayesElo leave out); each record's number of turns (``plies``) and its place among
    the file's records (``places``, from 0, for SGF's second reading); the file."""

    event: str
    bots: tuple[str, ...]
    records: list[GameRecord]
    warnings: list[str]
    plies: list[int]
    places: list[int]
    path: Path

    @property
    def void(self) -> list[GameRecord]:
        return [r for r in self.records if r.is_void]


def load_games(folder: Path) -> Games:
    """The games of a tournament or match folder; ``ResultsError`` when it is not one."""
    if not folder.is_dir():
        raise ResultsError(
            f"{folder}: {'no such folder' if not folder.exists() else 'not a folder'}; expected a "
            f"tournament's output folder (holding {RESULTS})"
        )
    path = next((folder / n for n in (RESULTS, OLD_MATCH_RESULTS) if (folder / n).exists()), None)
    if path is None:
        raise ResultsError(f"{folder}: no results here (expected {RESULTS})")
    manifest = Manifest.load(folder)
    warnings: list[str] = []
    read: list[_Read] = []

    def keep(record: GameRecord) -> None:
        read.append(_Read(dataclasses.replace(record, turns=[]), len(record.turns), len(read)))

    ResultsFile(path).each(parse_line, keep)
    chosen = latest_records(read, warnings)
    event = manifest.name if manifest is not None else folder.name
    return Games(
        event,
        manifest.bots if manifest is not None else (),
        [c.record for c in chosen],
        warnings,
        [c.plies for c in chosen],
        [c.place for c in chosen],
        path,
    )


@dataclass(frozen=True, slots=True)
class _Read:
    """A record read for an export, without its turns: what latest_records chooses among."""

    record: GameRecord
    plies: int
    place: int

    @property
    def slot(self) -> str:
        return self.record.slot

    @property
    def is_void(self) -> bool:
        return self.record.is_void


def render(games: Games, fmt: str) -> str:
    """``pgn``, ``bayeselo`` or ``csv`` as one text."""
    if fmt == "pgn":
        return render_pgn(games.records, games.event, games.plies)
    if fmt == "bayeselo":
        return render_bayeselo(games.records, games.bots)
    if fmt == "csv":
        return render_csv(games.records, games.plies)
    raise ValueError(f"unknown export format {fmt!r} (expected {', '.join(FORMATS)})")


def write_sgf(games: Games, folder: Path) -> list[Path]:
    """One ``<game_id>.sgf`` per non-void game in ``folder`` (created), listed in schedule
    order. The games' turns are read again from the results file, a record at a time, each
    file written as its record is read."""
    folder.mkdir(parents=True, exist_ok=True)
    played = [k for k, r in enumerate(games.records) if not r.is_void]
    items = numbered([games.records[k] for k in played], [games.plies[k] for k in played])
    paths = [folder / f"{_file_name(item.record.game_id)}.sgf" for item in items]
    # Which item each of the file's records is, by its place among them: numbered() sorts
    # the records, so each item's record is found by identity.
    index = {id(games.records[k]): k for k in played}
    place_of = {games.places[index[id(item.record)]]: k for k, item in enumerate(items)}
    seen, written = [0], [0]

    def each(record: GameRecord) -> None:
        k = place_of.get(seen[0])
        seen[0] += 1
        if k is not None:
            if record.game_id != items[k].record.game_id:
                raise ResultsError(f"{games.path}: the results file changed while it was exported")
            paths[k].write_text(game_sgf(record, event=games.event, round_=items[k].round), encoding="utf-8")
            written[0] += 1

    ResultsFile(games.path).each(parse_line, each)
    if written[0] != len(items):
        raise ResultsError(f"{games.path}: the results file changed while it was exported")
    return paths


def _file_name(game_id: str) -> str:
    """A game id as a file name: ids are ours (``r1-a+b-01``), but an id from a file edited
    by hand must not reach another folder."""
    safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in game_id)
    return safe.lstrip(".") or "game"
