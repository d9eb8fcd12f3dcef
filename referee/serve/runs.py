"""The results folders a server shows: found under the paths given, read on request.

Blocking file reads (the app calls them in trio's worker threads, one at a time, so a big
results file never stalls the event loop or a referee sharing it). A run is named in URLs
by its folder's name (``demo``, ``demo-2`` for a second folder of that name); the names are
recomputed on each listing, so a run that starts later appears.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ResultsError
from referee.ladder.config import STORE as LADDER_STORE
from referee.play.records import GameRecord
from referee.render.standings_text import render
from referee.tournament.store.files import OLD_MATCH_RESULTS, RESULTS
from referee.tournament.store.folder import latest_records, load_standings
from referee.tournament.store.pages import standings_html
from referee.tournament.store.results import ResultsFile, lock_holder_alive

MAX_DEPTH = 3
"""How deep under a given folder results folders are looked for."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Run:
    name: str
    folder: Path

    @property
    def results(self) -> Path:
        return self.folder / RESULTS if (self.folder / RESULTS).exists() else self.folder / OLD_MATCH_RESULTS

    @property
    def running(self) -> bool:
        """Whether a run is writing the folder now: the pid its lock file names is alive."""
        return lock_holder_alive(self.folder)


def _is_run(folder: Path) -> bool:
    return (folder / RESULTS).is_file() or (folder / OLD_MATCH_RESULTS).is_file()


def _is_ladder(folder: Path) -> bool:
    return (folder / LADDER_STORE).is_file()


def _found(root: Path, depth: int, wanted: Callable[[Path], bool] = _is_run) -> list[Path]:
    """The folders at or under ``root`` that are ``wanted`` (not looking inside one)."""
    if wanted(root):
        return [root]
    if depth >= MAX_DEPTH:
        return []
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    return [f for child in children if child.name != "logs" for f in _found(child, depth + 1, wanted)]


def run_name(folder: Path) -> str:
    """The name of a results folder in URLs (the first of its name; others get -2, -3)."""
    return _UNSAFE.sub("-", folder.resolve().name).strip("-.") or "run"


def _named(roots: list[Path], wanted: Callable[[Path], bool]) -> list[tuple[str, Path]]:
    seen: set[Path] = set()
    found: list[tuple[str, Path]] = []
    names: set[str] = set()
    for root in roots:
        for folder in _found(root, 0, wanted):
            real = folder.resolve()
            if real in seen:
                continue
            seen.add(real)
            base = run_name(folder)
            name, k = base, 2
            while name in names:
                name, k = f"{base}-{k}", k + 1
            names.add(name)
            found.append((name, folder))
    return found


def find_runs(roots: list[Path]) -> list[Run]:
    """Every results folder at or under ``roots`` (at most :data:`MAX_DEPTH` deep), each
    once, named uniquely."""
    return [Run(name, folder) for name, folder in _named(roots, _is_run)]


def find_ladders(roots: list[Path]) -> list[Run]:
    """Every ladder folder (holding a ladder's store) at or under ``roots``, as runs are
    found, named uniquely among ladders (``/ladders/{name}/``)."""
    return [Run(name, folder) for name, folder in _named(roots, _is_ladder)]


def run_summary(run: Run) -> dict[str, Any]:
    """A run as ``GET /api/runs`` lists it."""
    games = 0
    try:
        games = len(latest_records(ResultsFile(run.results).summaries().records))
    except (OSError, ResultsError):
        pass
    return {"run": run.name, "folder": str(run.folder), "games": games, "running": run.running}


def run_stamp(run: Run) -> tuple[str, bool]:
    """What changes when the run's standings may have: its results file's size and time,
    and whether it is going on; and that last."""
    running = run.running
    try:
        st = run.results.stat()
        seen = f"{st.st_size}-{st.st_mtime_ns}"
    except OSError:
        seen = "none"
    return f"{seen}-{'running' if running else 'stopped'}", running


def standings_json(run: Run) -> dict[str, Any]:
    """The run's standings, the ``standings.json`` schema."""
    st, _ = load_standings(run.folder, bootstrap=0)
    data: dict[str, Any] = json.loads(render(st, "json"))
    return data


def standings_page(run: Run) -> str:
    """The run's standings page: what ``standings.html`` holds (the same renderer), reloading
    itself while the run goes on."""
    st, title = load_standings(run.folder, bootstrap=0)
    names = [line.name for line in st.lines]
    sprt = None if st.sprt is None else (st.sprt.status.test, st.sprt.candidate)
    return standings_html(
        run.results, st, title=title, names=names, anchor=st.anchor, sprt=sprt, running=run.running
    )


def game_record(run: Run, game_id: str) -> GameRecord | None:
    """The record of ``game_id`` in the run (the one its standings count), or None."""
    found = [r for r in ResultsFile(run.results).load().records if r.game_id == game_id]
    if not found:
        return None
    return latest_records(found)[0]
