"""A ladder's store: one SQLite file (stdlib ``sqlite3``, WAL), the only writer of its games.

Tables (schema :data:`SCHEMA_VERSION`; ``schema_version`` holds the file's, and
:data:`MIGRATIONS` takes any older file to it, step by step, each step in one transaction):

* ``meta``: the ladder's name and the settings its games were played under (board, clock,
  openings), so a config that would mix incomparable games is refused;
* ``entries``: one row per bot entry (label, the config's name, its program's fingerprint,
  its protocol ``name``/``version``, when registered, when retired): entries are never
  deleted, so a retired one keeps its history. A *remote* entry (``remote`` 1, from v3) is a
  bot that connects (``vastuz connect``): registered by ``vastuz ladder add-bot`` with the
  sha256 of its token (``token_hash``; the token itself is never stored) and an empty
  fingerprint, which its first connection's hello fills in;
* ``presence`` (v3): per remote label, whether it is connected now, since when, and when it
  was last seen; the ladder writes it on each connect and disconnect (and clears it at its
  start: a killed run's connections are gone), ``vastuz serve`` reads it;
* ``rounds`` and ``slots``: every scheduled game, written with its round in one transaction
  before any of its games starts; a slot's key (``r12-a+b-01``) is the game's id, and its
  state ``pending`` until its record is in, then ``done`` (``void``: the referee could not
  run it; ``cancelled``: a bot of it left the ladder before it was played);
* ``games``: each counted game, with the few columns the rating list needs, and in
  ``records`` its record (the tournament's JSON record, zlib-compressed); its ``slot`` is
  unique, so a game can be counted once only, and it is committed (with its record and
  its slot's state, in one transaction, ``synchronous=FULL``) before the game counts
  anywhere. ``void_games``: the void records, kept as history.

A game in flight when the ladder is killed has no record: its slot is still pending and the
next run plays it. Every method is a small synchronous transaction under a lock, so the
trio loop may call them from worker threads (``trio.to_thread.run_sync``) one at a time.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ResultsError
from referee.play.records import GameRecord
from referee.play.spec import Opening, OpeningKind
from referee.tournament.slots import ScheduledGame
from referee.tournament.store.manifest import differences

SCHEMA_VERSION = 3

SCHEMA_V1 = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    protocol_name TEXT,
    version TEXT,
    command TEXT NOT NULL,
    registered TEXT NOT NULL,
    retired TEXT
);
CREATE TABLE rounds (number INTEGER PRIMARY KEY, started TEXT NOT NULL, ended TEXT);
CREATE TABLE slots (
    slot TEXT PRIMARY KEY,
    round INTEGER NOT NULL REFERENCES rounds(number),
    idx INTEGER NOT NULL,
    pair TEXT NOT NULL,
    game INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    pair_key TEXT NOT NULL,
    opening TEXT,
    state TEXT NOT NULL DEFAULT 'pending'
);
CREATE TABLE games (slot TEXT PRIMARY KEY REFERENCES slots(slot), record TEXT NOT NULL);
CREATE TABLE void_games (id INTEGER PRIMARY KEY, slot TEXT NOT NULL, record TEXT NOT NULL);
INSERT INTO schema_version VALUES (1);
"""
"""Version 1, the first: each record as JSON text, nothing else per game."""


def _v1_to_v2(db: sqlite3.Connection) -> None:
    """Records compressed (a record is mostly its turns: zlib keeps about a fifth) in a
    table of their own, and the columns the rating list needs in ``games``, so ``status``
    and each round's pairing read a few bytes per game, never a record."""
    db.execute(
        """CREATE TABLE games2 (
            seq INTEGER PRIMARY KEY,
            slot TEXT NOT NULL UNIQUE REFERENCES slots(slot),
            a TEXT NOT NULL,
            b TEXT NOT NULL,
            winner INTEGER,
            pair_key TEXT,
            ended TEXT NOT NULL
        )"""
    )
    db.execute("CREATE TABLE records (seq INTEGER PRIMARY KEY REFERENCES games2(seq), record BLOB NOT NULL)")
    rows = db.execute("SELECT slot, record FROM games ORDER BY rowid").fetchall()
    for slot, text in rows:
        cursor = db.execute(
            "INSERT INTO games2 (slot, a, b, winner, pair_key, ended) VALUES (?,?,?,?,?,?)",
            (slot, *_columns(GameRecord.from_json(text))),
        )
        db.execute("INSERT INTO records VALUES (?, ?)", (cursor.lastrowid, _pack(text)))
    db.execute("DROP TABLE games")
    db.execute("ALTER TABLE games2 RENAME TO games")
    db.execute("CREATE INDEX slots_round ON slots(round, state)")


def _create_v1(db: sqlite3.Connection) -> None:
    # One statement at a time: executescript would commit the migration's transaction first.
    for statement in SCHEMA_V1.split(";"):
        if statement.strip():
            db.execute(statement)


def _v2_to_v3(db: sqlite3.Connection) -> None:
    """Remote bots: entries that connect, authenticated by a token's hash, and who is
    connected now."""
    db.execute("ALTER TABLE entries ADD COLUMN remote INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE entries ADD COLUMN token_hash TEXT")
    db.execute(
        "CREATE TABLE presence "
        "(label TEXT PRIMARY KEY, connected INTEGER NOT NULL, since TEXT, last_seen TEXT)"
    )


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    0: _create_v1,
    1: _v1_to_v2,
    2: _v2_to_v3,
}
"""``MIGRATIONS[v]`` takes a file of version ``v`` to ``v + 1`` (0: an empty file)."""


def _pack(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def _unpack(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8")


def _columns(record: GameRecord) -> tuple[str, str, int | None, str | None, str]:
    a, b = record.labels
    return a, b, record.winner, record.pair_key, record.ended_at or _now()


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Entry:
    """A bot entry: ``label`` names it in games and ratings (its config ``name``, or
    ``name.vN`` for a later entry of the same name)."""

    id: int
    label: str
    name: str
    fingerprint: str
    protocol_name: str | None
    version: str | None
    command: str
    registered: str
    retired: str | None
    remote: bool = False
    token_hash: str | None = None
    """A remote entry's token's sha256 (hex); None for a local bot."""


@dataclass(frozen=True)
class Result:
    """What the rating list needs of a counted game."""

    a: str
    b: str
    winner: int | None
    pair_key: str | None


class LadderStore:
    """One ladder's SQLite file, opened (and migrated to :data:`SCHEMA_VERSION`)."""

    def __init__(self, path: Path, *, durable: bool = True) -> None:
        """``durable=False`` (bulk imports, benchmarks' synthetic stores): no sync per
        transaction, so a crash of the machine may lose the last ones; never for a ladder."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise ResultsError(f"{path}: not a ladder store ({exc})") from None
        self._lock = threading.Lock()
        self.migrated_from = self._migrate()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ schema
    def version(self) -> int:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_version" not in tables:
            if tables:
                raise ResultsError(
                    f"{self.path}: an SQLite file, but not a ladder store (tables: {sorted(tables)})"
                )
            return 0
        row = self._db.execute("SELECT version FROM schema_version").fetchone()
        return 0 if row is None else int(row[0])

    def _migrate(self) -> int:
        """Bring the file to :data:`SCHEMA_VERSION`; the version it had."""
        with self._lock:
            start = self.version()
            if start > SCHEMA_VERSION:
                raise ResultsError(
                    f"{self.path}: a ladder store of schema version {start}, newer than this arena's "
                    f"({SCHEMA_VERSION}): update the arena"
                )
            for version in range(start, SCHEMA_VERSION):
                with self._transaction():
                    MIGRATIONS[version](self._db)
                    self._db.execute("UPDATE schema_version SET version = ?", (version + 1,))
            return start

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    # ------------------------------------------------------------------ meta
    def check_settings(self, name: str, settings: dict[str, Any]) -> None:
        """Keep the first run's settings; refuse others (their games are not comparable)."""
        text = json.dumps(settings, sort_keys=True)
        with self._lock, self._transaction():
            row = self._db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta VALUES ('name', ?), ('settings', ?), ('created', ?)",
                                 (name, text, _now()))  # fmt: skip
                return
        if row[0] != text:
            diffs = "; ".join(differences(json.loads(row[0]), settings)[:6])
            raise ResultsError(
                f"{self.path}: this ladder's games were played under other settings ({diffs}); games under "
                "these would not be comparable. Restore them, or give the ladder another `output`."
            )

    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # ------------------------------------------------------------------ entries
    def entries(self) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, label, name, fingerprint, protocol_name, version, command, registered, retired, "
                "remote, token_hash FROM entries ORDER BY id"
            ).fetchall()
        return [
            Entry(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], remote=bool(r[9]), token_hash=r[10])
            for r in rows
        ]

    def register(
        self,
        label: str,
        name: str,
        fingerprint: str,
        command: str,
        *,
        retire: int | None = None,
        token_hash: str | None = None,
    ) -> Entry:
        """A new entry (and, in the same transaction, entry ``retire`` retired); with
        ``token_hash``, a remote one."""
        with self._lock, self._transaction():
            now = _now()
            if retire is not None:
                self._db.execute("UPDATE entries SET retired = ? WHERE id = ?", (now, retire))
            cursor = self._db.execute(
                "INSERT INTO entries (label, name, fingerprint, command, registered, remote, token_hash) "
                "VALUES (?,?,?,?,?,?,?)",
                (label, name, fingerprint, command, now, int(token_hash is not None), token_hash),
            )
            entry_id = cursor.lastrowid
        return next(e for e in self.entries() if e.id == entry_id)

    def learn(self, entry: int, protocol_name: str | None, version: str | None) -> None:
        """The protocol answers of an entry, once known."""
        with self._lock, self._transaction():
            self._db.execute(
                "UPDATE entries SET protocol_name = ?, version = ? WHERE id = ?",
                (protocol_name, version, entry),
            )

    def set_token(self, entry: int, token_hash: str) -> None:
        """A remote entry's new token (``add-bot --new-token``): the old one stops working."""
        with self._lock, self._transaction():
            self._db.execute("UPDATE entries SET token_hash = ? WHERE id = ?", (token_hash, entry))

    def set_fingerprint(self, entry: int, fingerprint: str) -> None:
        """A remote entry's fingerprint, from its first connection's hello."""
        with self._lock, self._transaction():
            self._db.execute("UPDATE entries SET fingerprint = ? WHERE id = ?", (fingerprint, entry))

    # ------------------------------------------------------------------ presence
    def set_presence(self, label: str, connected: bool) -> None:
        """A remote label connected (``since`` now) or gone (its ``since`` kept); seen now."""
        now = _now()
        with self._lock, self._transaction():
            if connected:
                self._db.execute(
                    "INSERT INTO presence VALUES (?, 1, ?, ?) ON CONFLICT(label) DO UPDATE SET "
                    "connected = 1, since = excluded.since, last_seen = excluded.last_seen",
                    (label, now, now),
                )
            else:
                self._db.execute(
                    "INSERT INTO presence VALUES (?, 0, NULL, ?) ON CONFLICT(label) DO UPDATE SET "
                    "connected = 0, last_seen = excluded.last_seen",
                    (label, now),
                )

    def clear_presence(self) -> None:
        """Nobody is connected (a ladder starting: a killed run's connections are gone)."""
        with self._lock, self._transaction():
            self._db.execute("UPDATE presence SET connected = 0")

    def presence(self) -> dict[str, tuple[bool, str | None, str | None]]:
        """(connected, since, last seen) per remote label that ever connected."""
        with self._lock:
            rows = self._db.execute("SELECT label, connected, since, last_seen FROM presence").fetchall()
        return {str(label): (bool(c), since, seen) for label, c, since, seen in rows}

    # ------------------------------------------------------------------ rounds
    def last_round(self) -> tuple[int, bool] | None:
        """The latest round's number and whether it has ended; None before the first."""
        with self._lock:
            row = self._db.execute("SELECT number, ended FROM rounds ORDER BY number DESC LIMIT 1").fetchone()
        return None if row is None else (int(row[0]), row[1] is not None)

    def scheduled(self) -> int:
        """Games scheduled so far (the next game's index)."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM slots").fetchone()[0])

    def new_round(self, number: int, games: list[ScheduledGame]) -> None:
        """Round ``number`` with all its games, in one transaction."""
        with self._lock, self._transaction():
            self._db.execute("INSERT INTO rounds (number, started) VALUES (?, ?)", (number, _now()))
            self._db.executemany(
                "INSERT INTO slots (slot, round, idx, pair, game, first, second, pair_key, opening) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                [
                    (g.slot, number, g.index, "+".join(g.pair), g.game, g.first, g.second, g.pair_key,
                     None if g.opening is None else json.dumps([g.opening.black, g.opening.white,
                                                                list(g.opening.turns), g.opening.label]))
                    for g in games
                ],
            )  # fmt: skip

    def pending(self, number: int, mode: OpeningKind) -> list[ScheduledGame]:
        """Round ``number``'s games without a record, in schedule order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT slot, idx, pair, game, first, second, pair_key, opening FROM slots "
                "WHERE round = ? AND state = 'pending' ORDER BY idx",
                (number,),
            ).fetchall()
        out = []
        for slot, idx, pair, game, first, second, pair_key, opening in rows:
            a, b = pair.split("+")
            o = None if opening is None else json.loads(opening)
            out.append(
                ScheduledGame(slot, idx, number, (a, b), game, mode, first, second, pair_key,
                              None if o is None else Opening(o[0], o[1], tuple(o[2]), o[3]))
            )  # fmt: skip
        return out

    def cancel(self, slots: list[str]) -> None:
        with self._lock, self._transaction():
            self._db.executemany(
                "UPDATE slots SET state = 'cancelled' WHERE slot = ? AND state = 'pending'",
                [(s,) for s in slots],
            )

    def end_round(self, number: int) -> bool:
        """Mark round ``number`` ended if none of its games is pending; whether it is."""
        with self._lock, self._transaction():
            left = self._db.execute(
                "SELECT COUNT(*) FROM slots WHERE round = ? AND state = 'pending'", (number,)
            ).fetchone()[0]
            if left:
                return False
            self._db.execute(
                "UPDATE rounds SET ended = ? WHERE number = ? AND ended IS NULL", (_now(), number)
            )
            return True

    # ------------------------------------------------------------------ games
    def commit(self, record: GameRecord) -> bool:
        """Record a finished game of a pending slot, durably, in one transaction with its
        slot's state. False (nothing written) when the slot already has its result: a
        game is counted once."""
        slot = record.slot
        text = record.to_json()
        with self._lock, self._transaction():
            row = self._db.execute("SELECT state FROM slots WHERE slot = ?", (slot,)).fetchone()
            if row is None:
                raise ResultsError(f"{self.path}: no scheduled game {slot!r} to record")
            if row[0] != "pending":
                return False
            if record.is_void:
                self._db.execute("INSERT INTO void_games (slot, record) VALUES (?, ?)", (slot, text))
                self._db.execute("UPDATE slots SET state = 'void' WHERE slot = ?", (slot,))
            else:
                cursor = self._db.execute(
                    "INSERT INTO games (slot, a, b, winner, pair_key, ended) VALUES (?,?,?,?,?,?)",
                    (slot, *_columns(record)),
                )
                self._db.execute("INSERT INTO records VALUES (?, ?)", (cursor.lastrowid, _pack(text)))
                self._db.execute("UPDATE slots SET state = 'done' WHERE slot = ?", (slot,))
        return True

    def results(self) -> list[Result]:
        with self._lock:
            rows = self._db.execute("SELECT a, b, winner, pair_key FROM games ORDER BY seq").fetchall()
        return [Result(*row) for row in rows]

    def tallies(self) -> list[tuple[str, str, float, int]]:
        """(a, b, points of a, games) per ordered pairing: what a rating estimate needs, summed
        by SQLite (a few hundred rows where the games are 100,000)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT a, b, SUM(CASE WHEN winner IS NULL THEN 0.5 WHEN winner = 0 THEN 1.0 ELSE 0.0 END), "
                "COUNT(*) FROM games GROUP BY a, b"
            ).fetchall()
        return [(str(a), str(b), float(points), int(n)) for a, b, points, n in rows]

    def last_played(self) -> dict[str, str]:
        """Each label's last game's end."""
        with self._lock:
            rows = self._db.execute(
                "SELECT label, MAX(ended) FROM (SELECT a AS label, ended FROM games "
                "UNION ALL SELECT b, ended FROM games) GROUP BY label"
            ).fetchall()
        return {str(label): str(ended) for label, ended in rows}

    def counts(self) -> dict[str, int]:
        """Games, rounds, counted, void and pending games."""
        with self._lock:
            states = dict(self._db.execute("SELECT state, COUNT(*) FROM slots GROUP BY state").fetchall())
            rounds = self._db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]
        return {"rounds": int(rounds), **{str(k): int(v) for k, v in states.items()}}

    def records(self) -> Iterator[str]:
        """Every counted game's record as its JSON line, in the order they were committed."""
        last = -1
        while True:  # a thousand at a time: 100,000 records would be hundreds of MB at once
            with self._lock:
                rows = self._db.execute(
                    "SELECT seq, record FROM records WHERE seq > ? ORDER BY seq LIMIT 1000", (last,)
                ).fetchall()
            if not rows:
                return
            for _, blob in rows:
                yield _unpack(blob)
            last = rows[-1][0]

    def slot_keys(self) -> list[str]:
        """The slot of every counted game, in order (a test's check that none repeats)."""
        with self._lock:
            return [str(r[0]) for r in self._db.execute("SELECT slot FROM games ORDER BY seq")]


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on an error (autocommit
    connection: each transaction is explicit)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *exc: object) -> None:
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")


__all__ = ["MIGRATIONS", "SCHEMA_V1", "SCHEMA_VERSION", "Entry", "LadderStore", "Result"]
