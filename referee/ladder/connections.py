"""The ladder's side of remote bots: a websocket server in the ladder's process whose
connections are players of the ladder's games (:class:`~.remote.RemotePlayer`).

A connection: at most ``max_connections`` at once, pending hellos included (4429); a hello
within ``hello_timeout`` (4408) naming a registered remote entry with its token (4401,
compared by hash); no other connection of that bot (4409: the first keeps playing); the
handshake, then the bot's identity (its client's fingerprint, its protocol ``name`` and
``version``) judged by the entries' rules (:func:`~.entries.decide`: 4403 when refused,
a new entry ``NAME.v2`` with the same token under ``on_change: new-entry``); then
``{"welcome": LABEL}`` and it is *connected* (the ``presence`` table says so) until it
closes. A message over ``max_message`` bytes closes the connection (1009, the websocket's
own limit). A reason longer than a close frame holds goes first in ``{"error": ...}``.

The hub is the pool's :class:`~referee.tournament.executors.pool.PlayerSource` for every
remote label: the ladder reserves a connected, free bot for a game (:meth:`reserve`), the
pool takes its player and gives it back, and a bot that faulted has its connection closed
(its client restarts the bot and connects again).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, serve_websocket

from referee.errors import ResultsError
from referee.ladder.config import LadderBot, LadderConfig
from referee.ladder.entries import current_entries, decide
from referee.ladder.identity import Identity
from referee.ladder.remote import RemotePlayer, describe_close
from referee.ladder.store import Entry, LadderStore
from referee.ladder.wire import (
    ALREADY_CONNECTED,
    BAD_HELLO,
    GOING_AWAY,
    NO_HELLO,
    REFUSED_IDENTITY,
    TOO_MANY,
    WRONG_TOKEN,
    Hello,
    WireError,
    parse_hello,
    short_reason,
    token_matches,
)
from referee.play.faults import BotFault
from referee.play.player import Player
from referee.text import printable
from referee.tournament.executors.pool import PlayerSource

REMOTE_FILE = "remote.json"
"""In the ladder's output folder: ``{"url": ...}`` of its server while it runs."""
CLOSE_WAIT = 2.0
"""Seconds a closing handshake may take before the connection is dropped."""


class RemoteHub:
    """Every remote bot's connection; ``changed`` wakes whoever waits for a bot to connect,
    leave or come free."""

    def __init__(
        self,
        config: LadderConfig,
        store: LadderStore,
        *,
        say: Callable[[str], None],
        startup_timeout: float,
        max_line: int,
    ) -> None:
        assert config.remote is not None
        self.config = config
        self.spec = config.remote
        self.store = store
        self.say = say
        self.startup_timeout = startup_timeout
        self.max_line = max_line
        self.players: dict[str, RemotePlayer] = {}
        """Connected bots by label."""
        self.sources: dict[str, PlayerSource] = {}
        """The pool's sources (every label that ever connected in this run: this hub)."""
        self.reserved: dict[str, RemotePlayer] = {}
        self.url: str | None = None
        self._open = 0
        self._naming: set[str] = set()  # names whose hello was accepted, handshake under way
        self._changed = trio.Event()

    # ------------------------------------------------------------------ for the ladder
    def connected(self) -> set[str]:
        """Labels connected now and fit to play."""
        return {label for label, p in self.players.items() if p.reusable or p.busy}

    def free(self, label: str) -> bool:
        player = self.players.get(label)
        return player is not None and player.reusable and not player.busy

    def reserve(self, label: str) -> None:
        player = self.players[label]
        player.busy = True
        self.reserved[label] = player

    def unreserve(self, label: str) -> None:
        """The end of a reservation (idempotent): after the game, or a game not played."""
        player = self.reserved.pop(label, None)
        if player is not None:
            player.busy = False
            self._poke()

    async def wait_change(self) -> None:
        await self._changed.wait()

    def _poke(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # ------------------------------------------------------------------ PlayerSource
    def take(self, label: str, game_id: str, seat: int) -> Player:
        return self.reserved[label]

    async def give_back(self, player: Player, keep: bool) -> None:
        assert isinstance(player, RemotePlayer)
        if not keep or not player.reusable:
            player.broken = True
            reason = "a fault in a game: the bot is started afresh"
            if player.replies.fault is not None:
                reason = f"a fault in a game ({player.replies.fault}); the bot is started afresh"
            await close(player.ws, BAD_HELLO, reason)
        self.unreserve(player.label)

    # ------------------------------------------------------------------ the server
    async def run(self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen until cancelled; ``task_status`` gets the URL (also written to
        ``OUTPUT/remote.json``). Every connection is closed (1001) when it ends."""
        spec = self.spec
        await trio.to_thread.run_sync(self.store.clear_presence)
        async with trio.open_nursery() as handlers:
            try:
                server = await handlers.start(
                    lambda task_status: serve_websocket(
                        self._handle,
                        spec.host,
                        spec.port,
                        None,
                        handler_nursery=handlers,
                        max_message_size=spec.max_message,
                        task_status=task_status,
                    )
                )
            except OSError as exc:
                where = f"{spec.host}:{spec.port}"
                raise ResultsError(f"remote.listen: cannot listen on {where}: {exc}") from None
            host = spec.host if ":" not in spec.host else f"[{spec.host}]"
            self.url = f"ws://{host}:{server.port}/"
            _write_url(self.config.output / REMOTE_FILE, self.url)
            self.say(f"remote bots connect to {self.url} (vastuz connect)")
            task_status.started(self.url)
            try:
                await trio.sleep_forever()
            finally:
                with trio.CancelScope(shield=True):
                    with trio.move_on_after(CLOSE_WAIT):
                        async with trio.open_nursery() as closing:
                            for player in list(self.players.values()):
                                closing.start_soon(close, player.ws, GOING_AWAY, "the ladder stops")
                    (self.config.output / REMOTE_FILE).unlink(missing_ok=True)

    async def _handle(self, request: WebSocketRequest) -> None:
        ws = await request.accept()
        self._open += 1
        try:
            await self._connection(ws)
        except ConnectionClosed:
            pass
        finally:
            self._open -= 1
            await close(ws, GOING_AWAY, "")

    async def _connection(self, ws: WebSocketConnection) -> None:
        spec = self.spec
        if self._open > spec.max_connections:
            await close(ws, TOO_MANY, f"too many connections (at most {spec.max_connections}): try later")
            return
        message: str | bytes | None = None
        with trio.move_on_after(spec.hello_timeout):
            message = await ws.get_message()
        if message is None:
            await close(ws, NO_HELLO, f"no hello within {spec.hello_timeout:g} s")
            return
        try:
            hello = parse_hello(message)
        except WireError as exc:
            await close(ws, BAD_HELLO, str(exc))
            return
        entry = await trio.to_thread.run_sync(self._authenticate, hello)
        if entry is None:
            await close(ws, WRONG_TOKEN, f"unknown bot {hello.name!r} or a wrong token")
            return
        if entry.name in self._naming or any(p.label == entry.label for p in self.players.values()):
            why = f"bot {entry.label} is connected already (one connection a bot)"
            await close(ws, ALREADY_CONNECTED, why)
            return
        self._naming.add(entry.name)
        try:
            player = RemotePlayer(entry.label, ws, margin=spec.network_margin, max_line=self.max_line)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read, ws, player)
                label = await self._admit(ws, player, entry, hello)
                if label is None:
                    nursery.cancel_scope.cancel()
                    return
                await self._connected(ws, player, label)
        finally:
            self._naming.discard(entry.name)

    async def _admit(
        self, ws: WebSocketConnection, player: RemotePlayer, entry: Entry, hello: Hello
    ) -> str | None:
        """The handshake and the identity: the label it plays as, or None (closed)."""
        try:
            await player.handshake(self.startup_timeout, self.config.games.board_size)
        except BotFault as fault:
            await close(ws, BAD_HELLO, f"the handshake failed: {fault}")
            return None
        identity = Identity(hello.fingerprint, player.name, player.version)
        try:
            label = await trio.to_thread.run_sync(self._identify, entry, identity)
        except ResultsError as exc:
            await close(ws, REFUSED_IDENTITY, str(exc))
            return None
        player.relabel(label)
        return label

    async def _connected(self, ws: WebSocketConnection, player: RemotePlayer, label: str) -> None:
        self.players[label] = player
        self.sources[label] = self
        try:
            await trio.to_thread.run_sync(self.store.set_presence, label, True)
            await ws.send_message(json.dumps({"welcome": label}))
            answers = " ".join(printable(a) for a in (player.name, player.version) if a)
            self.say(f"remote bot {label} connected ({answers})")
            self._poke()
            await player.gone.wait()
        finally:
            if self.players.get(label) is player:
                del self.players[label]
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self.store.set_presence, label, False)
            self.say(f"remote bot {label} disconnected ({player.lost or 'closed'})")
            self._poke()

    async def _read(self, ws: WebSocketConnection, player: RemotePlayer) -> None:
        while True:
            try:
                message = await ws.get_message()
            except ConnectionClosed as exc:
                player.lose(describe_close(exc))
                return
            player.feed(message)

    # ------------------------------------------------------------------ the store's side
    def _authenticate(self, hello: Hello) -> Entry | None:
        entry = current_entries([e for e in self.store.entries() if e.remote]).get(hello.name)
        stored = None if entry is None else entry.token_hash
        ok = token_matches(hello.token, stored)  # compared even for an unknown name
        return entry if ok and entry is not None else None

    def _identify(self, entry: Entry, identity: Identity) -> str:
        """The label the connection plays as, by the entries' rules; ResultsError if refused."""
        store = self.store
        if not entry.fingerprint:  # its first connection: what it is now is what it stays
            store.set_fingerprint(entry.id, identity.fingerprint)
            store.learn(entry.id, identity.protocol_name, identity.version)
            return entry.label
        one = dataclasses.replace(self.config, bots=(LadderBot(entry.name, None, self.config.on_change),))
        (action,) = decide(one, store.entries(), {entry.name: identity})
        if action.entry is not None:
            return action.entry.label
        assert action.retire is not None
        new = store.register(
            action.label,
            entry.name,
            identity.fingerprint,
            entry.command,
            retire=action.retire.id,
            token_hash=entry.token_hash,
        )
        store.learn(new.id, identity.protocol_name, identity.version)
        if action.words is not None:
            self.say(action.words)
        return new.label


async def close(ws: WebSocketConnection, code: int, reason: str) -> None:
    """Close ``ws`` with ``code``, the whole reason in an error message first when it does
    not fit the close frame; bounded and shielded (a close must finish)."""
    with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_WAIT):
        try:
            if reason and short_reason(reason) != reason:
                await ws.send_message(json.dumps({"error": reason, "code": code}))
            await ws.aclose(code, short_reason(reason))
        except ConnectionClosed:
            pass


def _write_url(path: Path, url: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"url": url}) + "\n", encoding="utf-8")
    os.replace(tmp, path)


__all__ = ["REMOTE_FILE", "RemoteHub", "close"]
