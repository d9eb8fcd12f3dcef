"""A ladder's store read from another process (``vastuz serve``): read-only, never migrated.

The store is opened as ``file:PATH?mode=ro`` (SQLite's read-only URI), so nothing here can
write it, migrate it or take its write lock; a ladder writing it meanwhile (WAL) is read
as of each query's snapshot. A store of schema v2 (no ``presence`` table, no ``remote``
column) reads as one with no remote entries; v1 (records as text) or a file that is not a
store is a :class:`~referee.errors.ResultsError` saying what to do.

What the store does not hold (the config's ``min_games`` and anchor, its bots) the ladder
writes beside it at each start, in ``ladder.json`` (:func:`write_view`); without that file
the defaults are shown and the page says so.

:class:`LadderModel` keeps what a rating list and its history need *incrementally*: the
counts the rating fit reads (:class:`~referee.ratings.elo.RunningCounts`, fed the games
after the last one it saw) and the history's points, one per sampled round: the summed
results when its round is over, fitted once, when a history is first asked for (a page of
the rating list alone fits none); so a store that grew by a game costs that game and a fit
or two, never a pass over all its games.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from referee.errors import ResultsError
from referee.ladder.config import DEFAULT_MIN_GAMES, STORE, LadderConfig
from referee.ladder.ratings import Line
from referee.play.records import GameRecord
from referee.ratings.elo import GameResult, RunningCounts
from referee.ratings.fit import ELO_PER_NAT, fit_strengths, strongly_connected
from referee.tournament.store.files import atomic_write, read_own_text
from referee.tournament.store.results import lock_holder_alive

VIEW = "ladder.json"
"""The file beside the store naming what the store does not hold (see the module)."""
MAX_POINTS = 300
"""Points of a rating history at most: a round in every ``k`` (a power of two) is kept."""
BATCH = 5000
"""Games read at a time when the model catches up."""


# ---------------------------------------------------------------------------------- the view


@dataclass(frozen=True)
class View:
    """What the store does not say: the config's ``min_games``, its anchor (the bot's config
    name and its rating), its bots' names (None: not known, every entry not retired is
    active). ``known``: read from ``ladder.json``, not the defaults."""

    name: str | None = None
    min_games: int = DEFAULT_MIN_GAMES
    anchor: tuple[str, float] | None = None
    bots: tuple[str, ...] | None = None
    known: bool = False


def write_view(config: LadderConfig) -> None:
    """``OUTPUT/ladder.json`` from ``config`` (replaced whole, atomically)."""
    data = {
        "name": config.name,
        "config": str(config.source),
        "min_games": config.min_games,
        "anchor": None
        if not config.anchors
        else {"bot": config.anchors[0].bot, "rating": config.anchors[0].rating},
        "bots": [b.name for b in config.bots],
    }
    config.output.mkdir(parents=True, exist_ok=True)
    atomic_write(config.output / VIEW, json.dumps(data, indent=1) + "\n")


def read_view(folder: Path) -> View:
    """The view written beside the store in ``folder``; the defaults without one (or with
    a file that is not one)."""
    try:
        data = json.loads(read_own_text(folder / VIEW))
        anchor = data.get("anchor")
        bots = data.get("bots")
        return View(
            name=str(data["name"]) if isinstance(data.get("name"), str) else None,
            min_games=int(data.get("min_games", DEFAULT_MIN_GAMES)),
            anchor=None if not isinstance(anchor, dict) else (str(anchor["bot"]), float(anchor["rating"])),
            bots=None if not isinstance(bots, list) else tuple(str(b) for b in bots),
            known=True,
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError, ResultsError):
        return View()


def is_ladder(folder: Path) -> bool:
    return (folder / STORE).is_file()


# ---------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class EntryRow:
    id: int
    label: str
    name: str
    protocol_name: str | None
    version: str | None
    registered: str
    retired: str | None
    remote: bool


@dataclass(frozen=True)
class Presence:
    connected: bool
    since: str | None
    last_seen: str | None


@dataclass(frozen=True)
class GameRow:
    """A counted game as a bot's list shows it; ``a``/``b`` the record's seats 0 and 1,
    ``winner`` the seat that won (None: a draw)."""

    seq: int
    slot: str
    round: int
    a: str
    b: str
    winner: int | None
    ended: str
    pair_key: str | None = None


_GAME_ROWS = (
    "SELECT g.seq, g.slot, s.round, g.a, g.b, g.winner, g.ended, g.pair_key FROM games g "
    "JOIN slots s ON s.slot = g.slot"
)


class StoreReader:
    """One read-only connection to a store (see the module); use it as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.is_file():
            raise ResultsError(f"{path}: no ladder store")
        try:
            self._db = sqlite3.connect(
                f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, timeout=10, check_same_thread=False
            )
            tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise ResultsError(f"{path}: cannot read the ladder store ({exc})") from None
        if "schema_version" not in tables or "games" not in tables:
            self._db.close()
            raise ResultsError(f"{path}: an SQLite file, but not a ladder store")
        self.tables = tables
        if "records" not in tables:
            self._db.close()
            raise ResultsError(
                f"{path}: a ladder store of schema version 1: run the ladder once (it migrates the store)"
            )
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(entries)")}
        self.has_remote = "remote" in columns

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> StoreReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise ResultsError(f"{self.path}: cannot read the ladder store ({exc})") from None

    def meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return None if not rows else str(rows[0][0])

    def entries(self) -> list[EntryRow]:
        remote = "remote" if self.has_remote else "0"
        rows = self._rows(
            f"SELECT id, label, name, protocol_name, version, registered, retired, {remote} FROM entries "
            "ORDER BY id"
        )
        return [
            EntryRow(row[0], row[1], row[2], row[3], row[4], row[5], row[6], bool(row[7])) for row in rows
        ]

    def presence(self) -> dict[str, Presence]:
        """Each remote label's presence (empty before schema v3)."""
        if "presence" not in self.tables:
            return {}
        rows = self._rows("SELECT label, connected, since, last_seen FROM presence")
        return {str(label): Presence(bool(c), since, seen) for label, c, since, seen in rows}

    def stamp(self) -> str:
        """A word that changes whenever what the pages show may have: the last game, the
        slots scheduled, the entries, who is connected."""
        seq = self._rows("SELECT COALESCE(MAX(seq), 0) FROM games")[0][0]
        slots = self._rows("SELECT COALESCE(MAX(rowid), 0) FROM slots")[0][0]
        ended = self._rows("SELECT COUNT(*) FROM rounds WHERE ended IS NOT NULL")[0][0]
        entries = self._rows("SELECT COUNT(*), COUNT(retired), COALESCE(MAX(id), 0) FROM entries")[0]
        people = (
            self._rows("SELECT COUNT(*), COALESCE(SUM(connected), 0), MAX(last_seen) FROM presence")[0]
            if "presence" in self.tables
            else ()
        )
        return "-".join(str(v) for v in (seq, slots, ended, *entries, *people))

    def last_seq(self) -> int:
        return int(self._rows("SELECT COALESCE(MAX(seq), 0) FROM games")[0][0])

    def counts(self) -> dict[str, int]:
        """Rounds, and slots by state (``done``, ``pending``, ``void``, ``cancelled``)."""
        states = dict(self._rows("SELECT state, COUNT(*) FROM slots GROUP BY state"))
        rounds = self._rows("SELECT COUNT(*) FROM rounds")[0][0]
        return {"rounds": int(rounds), **{str(k): int(v) for k, v in states.items()}}

    def last_round(self) -> tuple[int, bool] | None:
        rows = self._rows("SELECT number, ended FROM rounds ORDER BY number DESC LIMIT 1")
        return None if not rows else (int(rows[0][0]), rows[0][1] is not None)

    def games_after(self, seq: int, limit: int = BATCH) -> list[GameRow]:
        """Counted games after ``seq``, in the order they were committed."""
        rows = self._rows(
            f"{_GAME_ROWS} WHERE g.seq > ? ORDER BY g.seq LIMIT ?",
            (seq, limit),
        )
        return [GameRow(*row) for row in rows]

    def bot_games(self, label: str, *, before: int | None, limit: int) -> list[GameRow]:
        """``label``'s counted games, newest first, those before game ``before`` (its seq)."""
        rows = self._rows(
            f"{_GAME_ROWS} WHERE (g.a = ? OR g.b = ?) AND g.seq < ? ORDER BY g.seq DESC LIMIT ?",
            (label, label, (1 << 62) if before is None else before, limit),
        )
        return [GameRow(*row) for row in rows]

    def record(self, slot: str) -> GameRecord | None:
        """The record of the counted game of ``slot``, or None."""
        rows = self._rows(
            "SELECT r.record FROM games g JOIN records r ON r.seq = g.seq WHERE g.slot = ?", (slot,)
        )
        if not rows:
            return None
        try:
            return GameRecord.from_json(zlib.decompress(rows[0][0]).decode("utf-8"))
        except (zlib.error, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise ResultsError(f"{self.path}: the record of {slot} cannot be read ({exc})") from None


@contextmanager
def reading(folder: Path) -> Iterator[StoreReader]:
    """The store of the ladder folder ``folder``, read-only, closed after the block."""
    reader = StoreReader(folder / STORE)
    try:
        yield reader
    finally:
        reader.close()


def running(folder: Path) -> bool:
    """Whether a ladder writes ``folder`` now: the pid its lock file names is alive."""
    return lock_holder_alive(folder)


# ---------------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class Point:
    """The ratings after round ``round`` (``games`` counted then): per label placed by the
    fit, its rating and its games so far (a label whose rating was only a bound then is
    left out: a chart point would claim an estimate there is not)."""

    round: int
    games: int
    ratings: dict[str, tuple[float, int]]


@dataclass(frozen=True)
class _Due:
    """A point to fit when a history is asked for: the summed results of round ``round``
    (``pairs`` over the first ``names`` labels in first-played order), each label's games."""

    round: int
    games: int
    names: int
    pairs: tuple[tuple[int, int, float, float], ...]
    played: tuple[int, ...]


@dataclass(frozen=True)
class Snapshot:
    """Everything the rating list and the charts show, as of game ``seq``."""

    seq: int
    lines: list[Line]
    entries: list[EntryRow]
    last_game: dict[str, str]
    view: View
    anchor: str | None
    step: int
    """Rounds between two points of the history."""


@dataclass
class LadderModel:
    """The incremental state of one ladder's rating list and history (see the module).
    :meth:`update` is blocking (a worker thread's) and runs one at a time."""

    seq: int = 0
    counts: RunningCounts = field(default_factory=RunningCounts)
    points: list[Point | _Due] = field(default_factory=list)
    step: int = 0
    """0 until the first update chooses it from the store's rounds."""
    round: int | None = None
    """The round of the last game counted."""
    last_game: dict[str, str] = field(default_factory=dict)
    games: int = 0
    anchor: tuple[str, float] | None = None
    order: list[str] = field(default_factory=list)
    """Labels in the order they first played (the fit's indices, so a warm start fits)."""
    rank: dict[str, int] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)
    pairs: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    """(first, second) in :attr:`order`'s order: [points of first, games]."""
    theta: list[float] = field(default_factory=list)
    """The last point's strengths (nats), the next fit's start."""
    _history: tuple[int, list[Point]] | None = None
    """The last history made, and the game it was made at."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def update(self, folder: Path, view: View) -> Snapshot:
        """Catch up with the store of ``folder`` and fit the rating list (with intervals)."""
        with self._lock:
            entries = self._catch_up(folder, view)
            return self._snapshot(entries, [e.label for e in entries], view)

    def _catch_up(self, folder: Path, view: View) -> list[EntryRow]:
        """Count the games after the last one counted; the entries."""
        with reading(folder) as reader:
            entries = reader.entries()
            current = {e.name: e for e in entries if e.retired is None}
            anchor = None
            if view.anchor is not None and view.anchor[0] in current:
                anchor = (current[view.anchor[0]].label, view.anchor[1])
            if anchor != self.anchor or reader.last_seq() < self.seq:
                self._reset(anchor)  # another anchor, or another store (fewer games): start again
            if self.step == 0:
                last = reader.last_round()
                rounds = 0 if last is None else last[0]
                self.step = 1
                while rounds / self.step > MAX_POINTS:
                    self.step *= 2
            while True:
                rows = reader.games_after(self.seq)
                for row in rows:
                    self._add(row)
                if len(rows) < BATCH:
                    break
        return entries

    def _reset(self, anchor: tuple[str, float] | None) -> None:
        self.seq, self.counts, self.points, self.step = 0, RunningCounts(), [], 0
        self.round, self.last_game, self.games, self.anchor = None, {}, 0, anchor
        self.order, self.rank, self.played, self.pairs, self.theta = [], {}, {}, {}, []
        self._history = None

    def _add(self, row: GameRow) -> None:
        if self.round is not None and row.round != self.round and self.round % self.step == 0:
            self.points.append(self._due(self.round))  # the round is over: its point is final
            if len(self.points) > MAX_POINTS:
                self.step *= 2
                self.points = [p for p in self.points if p.round % self.step == 0]
        self.round = row.round
        score = 0.5 if row.winner is None else 1.0 if row.winner == 0 else 0.0
        self.counts.add(GameResult(row.a, row.b, score, row.pair_key))
        for label in (row.a, row.b):
            if label not in self.played:
                self.played[label] = 0
                self.rank[label] = len(self.order)
                self.order.append(label)
            self.played[label] += 1
        first, second, mine = (
            (row.a, row.b, score) if self.rank[row.a] < self.rank[row.b] else (row.b, row.a, 1.0 - score)
        )
        tally = self.pairs.setdefault((first, second), [0.0, 0])
        tally[0] += mine
        tally[1] += 1
        self.seq = row.seq
        self.games += 1
        for label in (row.a, row.b):
            if row.ended > self.last_game.get(label, ""):
                self.last_game[label] = row.ended

    def _due(self, number: int) -> Point | _Due:
        """The point of round ``number`` (now): its summed results, to be fitted when a
        history is asked for; where no finite fit exists (a bot that never scored, groups
        that never met) the full fit without intervals, now (it needs the counts as they
        are now), the bots it cannot place left out."""
        pairs = tuple((self.rank[a], self.rank[b], s, n) for (a, b), (s, n) in self.pairs.items())
        if strongly_connected(len(self.order), pairs):
            played = tuple(self.played[name] for name in self.order)
            return _Due(number, self.games, len(self.order), pairs, played)
        names = sorted(self.order)
        fixed = self._fixed(names)
        fit = self.counts.ratings(
            names,
            anchor=None if fixed is None else fixed[0],
            anchor_rating=0.0 if fixed is None else fixed[1],
            bootstrap=0,
        )
        ratings = {}
        for r in fit.ratings:
            if r.elo is not None and math.isfinite(r.elo) and r.bound is None:
                ratings[r.name] = (r.elo, r.games)
        return Point(number, self.games, ratings)

    def _fixed(self, names: Sequence[str]) -> tuple[str, float] | None:
        return self.anchor if self.anchor is not None and self.anchor[0] in names else None

    def _fit(self, due: _Due) -> Point:
        """A due point's maximum-likelihood fit (the rating list's estimate, without its
        intervals), started from the last point fitted."""
        names = self.order[: due.names]
        start = (self.theta + [0.0] * due.names)[: due.names]
        self.theta = fit_strengths(due.names, due.pairs, start)
        fixed = self._fixed(names)
        zero = 0.0 if fixed is None else self.theta[names.index(fixed[0])]
        level = 0.0 if fixed is None else fixed[1]
        ratings = {
            name: ((self.theta[k] - zero) * ELO_PER_NAT + level, due.played[k])
            for k, name in enumerate(names)
        }
        return Point(due.round, due.games, ratings)

    def history(self) -> list[Point]:
        """The ratings after each sampled round and after the latest game (blocking: the
        points not yet fitted are fitted now, once)."""
        with self._lock:
            if self._history is not None and self._history[0] == self.seq:
                return self._history[1]
            out = []
            for k, point in enumerate(self.points):
                if isinstance(point, _Due):
                    point = self.points[k] = self._fit(point)
                out.append(point)
            if self.round is not None and (not out or out[-1].round != self.round):
                latest = self._due(self.round)  # the latest round, so far
                out.append(self._fit(latest) if isinstance(latest, _Due) else latest)
            self._history = (self.seq, out)
            return out

    def _snapshot(self, entries: list[EntryRow], labels: list[str], view: View) -> Snapshot:
        names = list(dict.fromkeys([*labels, *sorted(self.counts.seen)]))
        fixed = self.anchor if self.anchor is not None and self.anchor[0] in names else None
        fit = self.counts.ratings(
            names,
            anchor=None if fixed is None else fixed[0],
            anchor_rating=0.0 if fixed is None else fixed[1],
            bootstrap=1,
        )
        lines = [
            Line(
                label=r.name,
                elo=r.elo,
                low=r.low,
                high=r.high,
                bound=r.bound,
                games=r.games,
                wins=r.wins,
                draws=r.draws,
                losses=r.losses,
                provisional=r.games < view.min_games and (fixed is None or r.name != fixed[0]),
                anchor=fixed is not None and r.name == fixed[0],
            )
            for r in fit.ratings
        ]
        return Snapshot(
            self.seq,
            lines,
            entries,
            dict(self.last_game),
            view,
            None if fixed is None else fixed[0],
            self.step,
        )


__all__ = [
    "BATCH",
    "MAX_POINTS",
    "VIEW",
    "EntryRow",
    "GameRow",
    "LadderModel",
    "Point",
    "Presence",
    "Snapshot",
    "StoreReader",
    "View",
    "is_ladder",
    "read_view",
    "reading",
    "running",
    "write_view",
]
