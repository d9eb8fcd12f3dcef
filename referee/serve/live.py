"""The live feed: games in progress, as the game loop's observer sees them, to browsers.

:meth:`LiveFeed.watch` makes the :class:`~referee.play.game.GameObserver` of one game: on
each accepted turn it only keeps a reference to the record and the position and marks the
game changed (a dict write and an event: the referee pays nothing more). :meth:`LiveFeed.publish`,
a task of the server, wakes at most every ``cadence`` seconds, turns the changed games into
JSON (and their boards into SVG) and hands each event to every subscriber without waiting: a
client too slow to keep up is dropped, never waited for. Subscribers are bounded.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from referee.engine import Color, Position
from referee.play.records import GameRecord
from referee.play.spec import GameSpec
from referee.render.svg import board_svg, read_turn
from referee.serve.livefile import LIVE_FILE, event_of, live_stamp, read_live, write_live

CLIENT_BUFFER = 64
"""Events a subscriber may fall behind by before it is dropped."""
RECENT = 20
"""Finished games the feed remembers (shown as just ended)."""


class TooManyClients(Exception):
    """The feed has as many subscribers as it allows."""


def clocks(record: GameRecord) -> list[float | None]:
    """Each seat's time left after its last turn (Fischer), its budget per move (per move)."""
    out: list[float | None] = []
    for seat in (0, 1):
        tc = record.bots[seat].time_control or record.time_control
        per_move = tc.get("per_move")
        if per_move is not None:
            out.append(float(per_move))
            continue
        left: float | None = tc.get("main")
        color = Color.BLACK if record.black == seat else Color.WHITE if record.white == seat else None
        for turn in reversed(record.turns):
            if turn.color is color and turn.left is not None:
                left = turn.left
                break
        out.append(left)
    return out


def game_state(record: GameRecord, position: Position) -> dict[str, Any]:
    """A game in progress (or just ended) as plain JSON: who plays, the turns so far, the
    stones, the clocks, the last turn's steals and the score so far."""
    last = record.turns[-1].turn if record.turns else None
    steals: list[tuple[str, str]] = []
    if last is not None:
        steals = read_turn(record.size, last)[1]
    black, white = position.score()
    return {
        "game_id": record.game_id,
        "size": record.size,
        "bots": [b.label for b in record.bots],
        "black": record.black,
        "white": record.white,
        "setup": None if record.setup is None else [record.setup.black, record.setup.white],
        "turns": [t.turn for t in record.turns],
        "to_move": position.to_move.value,
        "over": position.is_over or bool(record.ended_at),
        "result": record.result if record.ended_at else None,
        "reason": record.reason if record.ended_at else None,
        "clocks": clocks(record),
        "last_turn": last,
        "last_steals": [list(s) for s in steals],
        "score": [black, white],
        "stones": {"black": position.stones(Color.BLACK), "white": position.stones(Color.WHITE)},
    }


@dataclass
class LiveGame:
    key: str
    run: str
    record: GameRecord
    position: Position
    ended: bool = False

    def state(self) -> dict[str, Any]:
        return {"key": self.key, "run": self.run, **game_state(self.record, self.position)}


class _Watch:
    """The observer of one game (see :meth:`LiveFeed.watch`)."""

    def __init__(self, feed: LiveFeed, key: str, run: str) -> None:
        self.feed = feed
        self.key = key
        self.run = run

    def on_turn(self, record: GameRecord, position: Position) -> None:
        game = self.feed.games.get(self.key)
        if game is None:
            self.feed.games[self.key] = LiveGame(self.key, self.run, record, position)
        else:
            game.position = position
        self.feed.touch(self.key)

    def on_end(self, record: GameRecord) -> None:
        game = self.feed.games.pop(self.key, None)
        if game is not None:
            game.ended = True
            self.feed.recent.append(game)
            self.feed.touch(self.key)


@dataclass
class LiveFeed:
    """Games in progress and the browsers that follow them."""

    max_clients: int = 32
    cadence: float = 0.25
    games: dict[str, LiveGame] = field(default_factory=dict)
    recent: deque[LiveGame] = field(default_factory=lambda: deque(maxlen=RECENT))
    _dirty: set[str] = field(default_factory=set)
    _changed: trio.Event = field(default_factory=trio.Event)
    file: Path | None = None
    """Where the games in progress are also written (``OUTPUT/live.json``), if anywhere."""
    remote: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Games read from the live files of runs in other processes, by key."""
    _clients: set[trio.MemorySendChannel[str]] = field(default_factory=set)
    _count: int = 0

    def watch(self, run: str, game_id: str) -> _Watch:
        """The observer of one game of ``run`` (its key: ``run/game_id#n``)."""
        self._count += 1
        return _Watch(self, f"{run}/{game_id}#{self._count}", run)

    def watcher(self, run: str) -> Callable[[GameSpec], _Watch]:
        """A factory for :data:`referee.play.game.WATCH`: every game of ``run``."""

        def make(spec: GameSpec) -> _Watch:
            return self.watch(run, spec.game_id)

        return make

    def touch(self, key: str) -> None:
        self._dirty.add(key)
        if not self._changed.is_set():
            self._changed.set()

    def snapshot(self) -> list[dict[str, Any]]:
        """The games in progress (``GET /api/live``)."""
        return [g.state() for g in self.games.values()] + list(self.remote.values())

    def event(self, game: LiveGame) -> str:
        """One server-sent event: the game's state and its board."""
        state = game.state()
        state["svg"] = board_svg(game.position, last_turn=state["last_turn"])
        kind = "end" if game.ended else "game"
        return f"event: {kind}\ndata: {json.dumps(state, separators=(',', ':'))}\n\n"

    async def publish(self) -> None:
        """Forever: send the changed games to every subscriber, at most every ``cadence``."""
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            dirty, self._dirty = self._dirty, set()
            if self.file is not None:
                games = [g.state() for g in self.games.values()]
                await trio.to_thread.run_sync(write_live, self.file, games)
            if self._clients:  # else nothing is built: nobody follows
                by_key = {g.key: g for g in (*self.games.values(), *self.recent)}
                self.send([self.event(by_key[k]) for k in sorted(dirty) if k in by_key])
            await trio.sleep(self.cadence)

    def send(self, events: list[str]) -> None:
        """Hand ``events`` to every subscriber without waiting."""
        for channel in list(self._clients):
            for text in events:
                try:
                    channel.send_nowait(text)
                except trio.WouldBlock:  # too slow: dropped, its stream ends
                    self._clients.discard(channel)
                    channel.close()
                    break
                except trio.BrokenResourceError:
                    self._clients.discard(channel)
                    break

    async def follow(self, folders: Callable[[], Awaitable[list[tuple[str, Path]]]]) -> None:
        """Forever: read the live files of the runs ``folders()`` names (``(run, folder)``
        pairs of the runs going on), each only when it changed, and send what changed."""
        cache: dict[Path, tuple[tuple[int, int], list[dict[str, Any]]]] = {}
        while True:
            found: dict[str, dict[str, Any]] = {}
            for run, folder in await folders():
                path = folder / LIVE_FILE
                stamp = await trio.to_thread.run_sync(live_stamp, path)
                if stamp is None:
                    continue
                if path not in cache or cache[path][0] != stamp:
                    read = await trio.to_thread.run_sync(read_live, path)
                    if read is None:
                        continue
                    cache[path] = read
                for state in cache[path][1]:
                    found[str(state["key"])] = {**state, "run": run}
            events = [
                event_of(state, ended=False) for key, state in found.items() if self.remote.get(key) != state
            ]
            events += [event_of(state, ended=True) for key, state in self.remote.items() if key not in found]
            self.remote = found
            if self._clients:
                self.send([e for e in events if e is not None])
            await trio.sleep(self.cadence)

    def full(self) -> bool:
        """Whether the feed has as many subscribers as it allows."""
        return len(self._clients) >= self.max_clients

    @contextmanager
    def subscribe(self) -> Iterator[trio.MemoryReceiveChannel[str]]:
        """A stream of events, starting with every game in progress. Raises
        :class:`TooManyClients` past ``max_clients``."""
        if self.full():
            raise TooManyClients(f"the live feed has its {self.max_clients} clients already")
        send, receive = trio.open_memory_channel[str](CLIENT_BUFFER)
        for game in list(self.games.values())[: CLIENT_BUFFER // 2]:
            send.send_nowait(self.event(game))
        for state in list(self.remote.values())[: CLIENT_BUFFER // 4]:
            text = event_of(state, ended=False)
            if text is not None:
                send.send_nowait(text)
        self._clients.add(send)
        try:
            yield receive
        finally:
            self._clients.discard(send)
            send.close()
            receive.close()
