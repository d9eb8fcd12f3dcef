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

Standings the server makes itself (a run that publishes none: ``--standings-every 0``, or
not yet; a stopped run) are kept (:class:`Made`): sent again while the run's results are
unchanged, and while it goes on, for a rest after each making that keeps their cost a small
share of the time (:data:`MADE_SHARE`), the run's stamp staying that page's meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from referee.errors import ResultsError
from referee.ladder.config import STORE as LADDER_STORE
from referee.play.records import GameRecord
from referee.render.standings_text import render
from referee.tournament.store.files import LOCK, OLD_MATCH_RESULTS, RESULTS, STANDINGS_JSON, read_own_text
from referee.tournament.store.folder import latest_records, load_standings
from referee.tournament.store.pages import PAGE, standings_html
from referee.tournament.store.publish import Cadence
from referee.tournament.store.results import ResultsFile, lock_holder_alive

MAX_DEPTH = 3
"""How deep under a given folder results folders are looked for."""
MADE_SHARE = 0.05
"""At most this share of the time goes to making a running run's standings here (see
:class:`Made`): after a page that took ``t`` seconds the next waits ``t * 19`` seconds, and
at least :data:`MADE_EVERY`."""
MADE_EVERY = 2.0
"""The least rest between two makings (``vastuz serve --pages-every``)."""
MADE_RUNS = 8
"""The runs whose made standings a server keeps (the latest asked)..."""
MADE_BYTES = 64 << 20
"""... as long as their pages hold at most this many characters in all (the latest run's
are kept whatever their size)."""
COUNTED_RUNS = 4096
"""The runs whose game counts a server keeps (a number each: every run a listing shows)."""
_T = TypeVar("_T")
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


def run_summary(run: Run, made: Made | None = None) -> dict[str, Any]:
    """A run as ``GET /api/runs`` lists it. Its games are counted in a pass over its
    results, kept in ``made`` (the server's :attr:`~referee.serve.app.Server.counts`) as its
    standings are: a listing of long runs would otherwise read every one at every request."""
    running = run.running

    def count() -> int:
        try:
            return len(latest_records(ResultsFile(run.results).summaries().records))
        except (OSError, ResultsError):
            return 0

    games = count() if made is None else made.get(run, "games", running, count)
    return {"run": run.name, "folder": str(run.folder), "games": games, "running": running}


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


def _stamp(watched: Path, running: bool) -> str:
    try:
        st = watched.stat()
        seen = f"{watched.name}-{st.st_size}-{st.st_mtime_ns}"
    except OSError:
        seen = "none"
    return f"{seen}-{'running' if running else 'stopped'}"


@dataclass
class _Kept:
    stamp: str  # the run's stamp when it was made
    value: Any
    pace: Cadence
    running: bool  # made while the run went on: only such a one rests


class Made:
    """The standings a server made itself, for the latest :data:`MADE_RUNS` runs asked: a
    page or a table is made again only when the run's stamp has changed since, and, while
    the run goes on, only once the rest after the last making is over (:data:`MADE_SHARE`).
    Without it, a followed page of a run that publishes none asked for a new page at every
    game, each a pass over the results and the replays of the latest games. Used from the
    server's worker threads (hence the lock). ``every``: the least rest (``vastuz serve
    --pages-every``); ``clock``: the rest's (a test's own); ``keep``: how many runs."""

    def __init__(
        self, every: float = MADE_EVERY, clock: Callable[[], float] = time.monotonic, keep: int = MADE_RUNS
    ) -> None:
        self.every = every
        self.keep = keep
        self._runs: OrderedDict[Path, dict[str, _Kept]] = OrderedDict()
        self._lock = threading.Lock()
        self.clock = clock
        self.made = 0  # pages and tables made (for tests and benchmarks)

    def _rests(self, kept: _Kept | None, running: bool) -> bool:
        return kept is not None and running and kept.running and self.clock() < kept.pace.next

    def resting(self, run: Run, kind: str, running: bool) -> str | None:
        """The stamp of the run's ``kind`` made last, while the run goes on and the rest
        after it is not over; else None."""
        with self._lock:
            kept = self._runs.get(run.folder.resolve(), {}).get(kind)
        return kept.stamp if kept is not None and self._rests(kept, running) else None

    def get(self, run: Run, kind: str, running: bool, make: Callable[[], _T]) -> _T:
        """The run's ``kind``: the one kept, if the run's stamp is unchanged or it rests;
        else ``make()``, kept."""
        folder = run.folder.resolve()
        stamp = _stamp(run.results, running)
        with self._lock:
            kept = self._runs.get(folder, {}).get(kind)
            if kept is not None and (kept.stamp == stamp or self._rests(kept, running)):
                self._runs.move_to_end(folder)
                value: _T = kept.value
                return value
        started = self.clock()
        value = make()
        pace = Cadence(every=self.every, share=MADE_SHARE)
        pace.spent(started, self.clock())
        with self._lock:
            self.made += 1
            self._runs.setdefault(folder, {})[kind] = _Kept(stamp, value, pace, running)
            self._runs.move_to_end(folder)
            # The latest run asked always stays; older ones go past the count or the bytes.
            while len(self._runs) > 1 and (len(self._runs) > self.keep or self._bytes() > MADE_BYTES):
                self._runs.popitem(last=False)
        return value

    def _bytes(self) -> int:
        """The text kept (a long run's page is megabytes: its latest games' replays)."""
        kept = (k.value for kinds in self._runs.values() for k in kinds.values())
        return sum(len(value) for value in kept if isinstance(value, str))


def run_stamp(run: Run, made: Made | None = None) -> tuple[str, bool]:
    """What changes when the run's standings may have, and whether it is going on; and
    that last. While it goes on, its published page's size and time, once there is one
    (it changes on the run's cadence, not at every game); else its results file's, or while
    the page made here last rests (``made``), the stamp it was made at."""
    running = run.running
    page = published(run, PAGE, running)
    if page is not None:
        return _stamp(page, running), running
    resting = None if made is None else made.resting(run, PAGE, running)
    return resting or _stamp(run.results, running), running


def standings_json(run: Run, made: Made | None = None) -> dict[str, Any]:
    """The run's standings, the ``standings.json`` schema: the run's own while it goes on
    (:func:`published`); else made here (kept in ``made``)."""
    path = published(run, STANDINGS_JSON)
    if path is not None:
        with contextlib.suppress(OSError, ValueError, ResultsError):  # gone or replaced: made here
            data: dict[str, Any] = json.loads(read_own_text(path))
            return data

    def make() -> dict[str, Any]:
        st, _ = load_standings(run.folder, bootstrap=0)
        table: dict[str, Any] = json.loads(render(st, "json"))
        return table

    return make() if made is None else made.get(run, STANDINGS_JSON, run.running, make)


def standings_page(run: Run, made: Made | None = None) -> str:
    """The run's standings page: what ``standings.html`` holds (the same renderer), reloading
    itself while the run goes on; the run's own page then (:func:`published`); else made
    here (kept in ``made``)."""
    path = published(run, PAGE)
    if path is not None:
        with contextlib.suppress(OSError, ValueError, ResultsError):  # not a page of the run's: made here
            return read_own_text(path)
    running = run.running

    def make() -> str:
        st, title = load_standings(run.folder, bootstrap=0)
        names = [line.name for line in st.lines]
        sprt = None if st.sprt is None else (st.sprt.status.test, st.sprt.candidate)
        return standings_html(
            run.results, st, title=title, names=names, anchor=st.anchor, sprt=sprt, running=running
        )

    return make() if made is None else made.get(run, PAGE, running, make)


def game_record(run: Run, game_id: str) -> GameRecord | None:
    """The record of ``game_id`` in the run (the one its standings count), or None."""
    # Only the lines of that game are parsed: a long run's records are not all read.
    found = [record for _, record in ResultsFile(run.results).pick(game_id).found]
    if not found:
        return None
    return latest_records(found)[0]
