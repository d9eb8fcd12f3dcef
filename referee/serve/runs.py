"""The results folders a server shows: found under the paths given, read on request.

Blocking file reads (the app calls them in trio's worker threads, one at a time, so a big
results file never stalls the event loop). A run is named in URLs by its folder's name
(``demo``, ``demo-2`` for a second folder of that name); the names are recomputed on each
listing, so a run that starts later appears.

The standings of a run going on are the ones it publishes (:func:`published`), not made
here: a page made here costs a pass over the results and a replay of the latest games
(seconds for a long run), and a followed page asks again at every change of the results,
that is at every game. In a referee's own process (``vastuz tournament --serve``) that work
would hold the interpreter the games' loop needs; in another process it would take a core
from the bots. The run's standings process writes them on a cadence that keeps their cost
a small share of the run.
"""

from __future__ import annotations

import contextlib
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
from referee.tournament.store.files import LOCK, OLD_MATCH_RESULTS, RESULTS, STANDINGS_JSON
from referee.tournament.store.folder import latest_records, load_standings
from referee.tournament.store.pages import PAGE, standings_html
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


def published(run: Run, name: str, running: bool | None = None) -> Path | None:
    """The run's file ``name`` (its page or ``standings.json``) while the run goes on, if
    it has written it since it began (a file from before a resume is not the run's now);
    else None, and the caller makes its own. ``running``: :attr:`Run.running`, if known."""
    if not (run.running if running is None else running):
        return None
    path = run.folder / name
    try:
        began = (run.folder / LOCK).stat().st_mtime_ns
        written = path.stat().st_mtime_ns
    except OSError:
        return None
    return path if written >= began else None


def run_stamp(run: Run) -> tuple[str, bool]:
    """What changes when the run's standings may have, and whether it is going on; and
    that last. While it goes on, its published page's size and time, once there is one
    (it changes on the run's cadence, not at every game); else its results file's."""
    running = run.running
    watched = published(run, PAGE, running) or run.results
    try:
        st = watched.stat()
        seen = f"{watched.name}-{st.st_size}-{st.st_mtime_ns}"
    except OSError:
        seen = "none"
    return f"{seen}-{'running' if running else 'stopped'}", running


def standings_json(run: Run) -> dict[str, Any]:
    """The run's standings, the ``standings.json`` schema: the run's own while it goes on
    (:func:`published`)."""
    path = published(run, STANDINGS_JSON)
    if path is not None:
        with contextlib.suppress(OSError, ValueError):  # gone or replaced under us: made here
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data
    st, _ = load_standings(run.folder, bootstrap=0)
    made: dict[str, Any] = json.loads(render(st, "json"))
    return made


def standings_page(run: Run) -> str:
    """The run's standings page: what ``standings.html`` holds (the same renderer), reloading
    itself while the run goes on; the run's own page then (:func:`published`)."""
    path = published(run, PAGE)
    if path is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            return path.read_text(encoding="utf-8")
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
