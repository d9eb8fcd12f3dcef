"""``vastuz export``: a results folder's games in the formats other tools read.

The games are the ones ``vastuz report`` rates: one record per schedule slot
(:func:`~referee.tournament.store.folder.latest_records`), read from the results file alone,
so a run stopped half-way exports what it finished. The formats are rendered by
:mod:`referee.render.exports` and :mod:`referee.render.sgf`; this module finds the folder's
files and writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.errors import ResultsError
from referee.play.records import GameRecord
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
    (one per slot) and the void ones among them (which PGN, SGF and BayesElo leave out)."""

    event: str
    bots: tuple[str, ...]
    records: list[GameRecord]
    warnings: list[str]

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
    records = latest_records(ResultsFile(path).load().records, warnings)
    event = manifest.name if manifest is not None else folder.name
    return Games(event, manifest.bots if manifest is not None else (), records, warnings)


def render(games: Games, fmt: str) -> str:
    """``pgn``, ``bayeselo`` or ``csv`` as one text."""
    if fmt == "pgn":
        return render_pgn(games.records, games.event)
    if fmt == "bayeselo":
        return render_bayeselo(games.records, games.bots)
    if fmt == "csv":
        return render_csv(games.records)
    raise ValueError(f"unknown export format {fmt!r} (expected {', '.join(FORMATS)})")


def write_sgf(games: Games, folder: Path) -> list[Path]:
    """One ``<game_id>.sgf`` per non-void game in ``folder`` (created), in schedule order."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for item in numbered([r for r in games.records if not r.is_void]):
        path = folder / f"{_file_name(item.record.game_id)}.sgf"
        path.write_text(game_sgf(item.record, event=games.event, round_=item.round), encoding="utf-8")
        written.append(path)
    return written


def _file_name(game_id: str) -> str:
    """A game id as a file name: ids are ours (``r1-a+b-01``), but an id from a file edited
    by hand must not reach another folder."""
    safe = "".join(c if c.isalnum() or c in "+-_." else "_" for c in game_id)
    return safe.lstrip(".") or "game"
