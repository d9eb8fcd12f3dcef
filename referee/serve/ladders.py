"""The ladders a server shows: their rating lists, histories, games and records, as JSON.

A ladder folder (holding ``ladder.sqlite``) is found like a run's
(:func:`referee.serve.runs.find_ladders`) and read only through
:mod:`referee.ladder.reading` (read-only SQLite, never migrated). Its rating list with
intervals is a fit over every game, so it is kept: each ladder has one
:class:`~referee.ladder.reading.LadderModel`, brought up to date in a worker thread when
the store changed (one update at a time per ladder; a request arriving meanwhile waits for
that update and takes its result), so a page view of an unchanged store costs no fit. The
fits have their own worker limiter, so a long one never delays the runs' pages, whose
reads share the server's. Every other read (a bot's games, a record, who is connected) is
a small query through the server's ``blocking()``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from referee.ladder.ratings import Line
from referee.ladder.reading import (
    EntryRow,
    GameRow,
    LadderModel,
    Point,
    Presence,
    Snapshot,
    View,
    read_view,
    reading,
    running,
)
from referee.play.records import GameRecord
from referee.serve.human import PlayError
from referee.serve.runs import Run, find_ladders

if TYPE_CHECKING:
    from referee.serve.app import Server

PAGE_GAMES = 100
"""A bot's games per page."""


FIT_SHARE = 0.2
"""At most this share of the time goes to a ladder's fits: after a fit of ``t`` seconds the
next waits until ``t * (1 / FIT_SHARE - 1)`` have passed, the pages showing the last one
meanwhile (a ladder served in its own process, ``--serve``, keeps its CPU for its games)."""


@dataclass
class _Kept:
    model: LadderModel = field(default_factory=LadderModel)
    snapshot: Snapshot | None = None
    key: tuple[int, int, int] | None = None
    lock: trio.Lock = field(default_factory=trio.Lock)
    ended: float = -math.inf
    """When the last fit ended (trio's clock) and how long it took."""
    took: float = 0.0


@dataclass(frozen=True)
class State:
    """What a ladder's pages show: the fitted snapshot and what changes without a game
    (who is connected, the rounds, whether it runs)."""

    ladder: Run
    snapshot: Snapshot
    presence: dict[str, Presence]
    counts: dict[str, int]
    last_round: tuple[int, bool] | None
    running: bool
    behind: bool = False
    """The store has changed since the fit shown (made again shortly: see :data:`FIT_SHARE`)."""


def _key(folder: Path) -> tuple[tuple[int, int, int], dict[str, Presence], dict[str, int], Any]:
    with reading(folder) as reader:
        entries = reader.entries()
        key = (reader.last_seq(), len(entries), sum(e.retired is not None for e in entries))
        return key, reader.presence(), reader.counts(), reader.last_round()


class Ladders:
    """The ladders of one server and their kept models."""

    def __init__(self) -> None:
        self.kept: dict[Path, _Kept] = {}
        self.fits = trio.CapacityLimiter(1)

    async def all(self, server: Server) -> list[Run]:
        found: list[Run] = await server.blocking(find_ladders, server.roots)
        return found

    async def get(self, server: Server, name: str) -> Run:
        for ladder in await self.all(server):
            if ladder.name == name:
                return ladder
        raise PlayError(404, f"no ladder {name[:60]!r}")

    async def state(self, server: Server, ladder: Run) -> State:
        """The ladder's state; its fit made again only when the store changed."""
        key, presence, counts, last_round = await server.blocking(_key, ladder.folder)
        view: View = await server.blocking(read_view, ladder.folder)
        kept = self.kept.setdefault(ladder.folder.resolve(), _Kept())
        if kept.key is not None and key[0] < kept.key[0] and not kept.lock.locked():
            kept = self.kept[ladder.folder.resolve()] = _Kept()  # another store: fewer games

        def fresh() -> bool:
            snap = kept.snapshot
            return (
                snap is not None
                and kept.key is not None
                and all(k >= n for k, n in zip(kept.key, key, strict=True))
                and snap.view == view
            )

        def resting() -> bool:
            waited = trio.current_time() - kept.ended
            return (
                kept.snapshot is not None
                and kept.snapshot.view == view
                and waited < kept.took * (1 / FIT_SHARE - 1)
            )

        if not fresh() and not resting():
            async with kept.lock:  # one update at a time: who waited takes its result
                if not fresh() and not resting():
                    started = trio.current_time()
                    # abandoned when cancelled (a server stopping): the thread ends its fit, unseen
                    kept.snapshot = await trio.to_thread.run_sync(
                        kept.model.update, ladder.folder, view, limiter=self.fits, abandon_on_cancel=True
                    )
                    kept.key = (kept.snapshot.seq, len(kept.snapshot.entries), _retired(kept.snapshot))
                    kept.ended = trio.current_time()
                    kept.took = kept.ended - started
        assert kept.snapshot is not None
        return State(
            ladder, kept.snapshot, presence, counts, last_round, running(ladder.folder), behind=not fresh()
        )

    async def history(self, ladder: Run) -> list[Point]:
        """The ladder's rating history as of its last update (:meth:`state` first): the
        points not fitted yet are fitted now, in the fits' worker thread."""
        kept = self.kept[ladder.folder.resolve()]
        points: list[Point] = await trio.to_thread.run_sync(
            kept.model.history, limiter=self.fits, abandon_on_cancel=True
        )
        return points


def _retired(snapshot: Snapshot) -> int:
    return sum(e.retired is not None for e in snapshot.entries)


# ------------------------------------------------------------------------------ the rows


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 1)


def entry_state(line: Line, entry: EntryRow | None, view: View) -> str:
    """``anchor``, ``active`` or ``retired`` (replaced, or a local bot the config no longer has)."""
    if line.anchor:
        return "anchor"
    if entry is None or entry.retired is not None:
        return "retired"
    if view.bots is not None and not entry.remote and entry.name not in view.bots:
        return "retired"
    return "active"


def bot_rows(state: State) -> list[dict[str, Any]]:
    """The rating list, best first, each line as ``GET /api/ladders/{ladder}`` gives it."""
    snap = state.snapshot
    by_label = {e.label: e for e in snap.entries}
    rows = []
    for rank, line in enumerate(snap.lines, 1):
        entry = by_label.get(line.label)
        presence = state.presence.get(line.label)
        remote = entry is not None and entry.remote
        rows.append(
            {
                "rank": rank,
                "label": line.label,
                "rating": line.shown(),
                "elo": _finite(line.elo),
                "low": _finite(line.low),
                "high": _finite(line.high),
                "bound": line.bound,
                "interval": line.interval(),
                "provisional": line.provisional,
                "anchor": line.anchor,
                "games": line.games,
                "wins": line.wins,
                "draws": line.draws,
                "losses": line.losses,
                "version": None
                if entry is None
                else " ".join(p for p in (entry.protocol_name, entry.version) if p) or None,
                "last_game": snap.last_game.get(line.label),
                "remote": remote,
                "connected": (presence is not None and presence.connected) if remote else None,
                "last_seen": None if presence is None else presence.last_seen,
                "state": entry_state(line, entry, snap.view),
            }
        )
    return rows


def ladder_json(state: State, live: list[dict[str, Any]]) -> dict[str, Any]:
    """``GET /api/ladders/{ladder}``."""
    snap, counts = state.snapshot, state.counts
    under_way = state.last_round is not None and not state.last_round[1]
    return {
        "ladder": state.ladder.name,
        "name": snap.view.name,
        "folder": str(state.ladder.folder),
        "running": state.running,
        "games": counts.get("done", 0),
        "rounds": counts.get("rounds", 0),
        "void": counts.get("void", 0),
        "round_under_way": state.last_round[0] if under_way and state.last_round else None,
        "pending": counts.get("pending", 0),
        "min_games": snap.view.min_games,
        "anchor": None
        if snap.anchor is None or snap.view.anchor is None
        else {"label": snap.anchor, "rating": snap.view.anchor[1]},
        "config_known": snap.view.known,
        "as_of_game": snap.seq,
        "behind": state.behind,
        "bots": bot_rows(state),
        "live": live,
    }


def history_json(history: list[Point], snapshot: Snapshot, label: str) -> list[dict[str, Any]]:
    """``label``'s rating after each sampled round it had a rating at."""
    out = []
    for point in history:
        found = point.ratings.get(label)
        if found is None:
            continue
        elo, games = found
        out.append(
            {
                "round": point.round,
                "games": point.games,
                "elo": round(elo, 1),
                "bot_games": games,
                "provisional": games < snapshot.view.min_games and label != snapshot.anchor,
            }
        )
    return out


def game_rows(label: str, rows: list[GameRow]) -> list[dict[str, Any]]:
    """``label``'s games as its page lists them: the opponent, its seat, its result."""
    out = []
    for row in rows:
        seat = 0 if row.a == label else 1
        result = "draw" if row.winner is None else "win" if row.winner == seat else "loss"
        out.append(
            {
                "seq": row.seq,
                "slot": row.slot,
                "round": row.round,
                "opponent": row.b if seat == 0 else row.a,
                "seat": seat,
                "result": result,
                "ended": row.ended,
            }
        )
    return out


def bot_games(folder: Path, label: str, before: int | None) -> tuple[list[GameRow], bool]:
    """A page of ``label``'s games (newest first) and whether older ones remain."""
    with reading(folder) as reader:
        rows = reader.bot_games(label, before=before, limit=PAGE_GAMES + 1)
    return rows[:PAGE_GAMES], len(rows) > PAGE_GAMES


def game_record(folder: Path, slot: str) -> GameRecord | None:
    with reading(folder) as reader:
        return reader.record(slot)


def stamp(folder: Path) -> str:
    with reading(folder) as reader:
        return reader.stamp() + ("-running" if running(folder) else "-stopped")


def summary(ladder: Run) -> dict[str, Any]:
    """A ladder as ``GET /api/ladders`` lists it (blocking)."""
    from referee.errors import ResultsError

    try:
        with reading(ladder.folder) as reader:
            counts = reader.counts()
            entries = len(reader.entries())
    except ResultsError as exc:
        return {"ladder": ladder.name, "folder": str(ladder.folder), "error": str(exc), "running": False}
    return {
        "ladder": ladder.name,
        "folder": str(ladder.folder),
        "games": counts.get("done", 0),
        "rounds": counts.get("rounds", 0),
        "entries": entries,
        "running": running(ladder.folder),
    }


__all__ = [
    "PAGE_GAMES",
    "Ladders",
    "State",
    "bot_games",
    "bot_rows",
    "entry_state",
    "game_record",
    "game_rows",
    "history_json",
    "ladder_json",
    "stamp",
    "summary",
]
