"""A remote bot as the game loop sees it: a :class:`~referee.play.player.Player` whose
commands go over a websocket to ``vastuz connect`` on its author's machine.

The referee's own framing judges what comes back (:class:`~referee.play.replies.Replies`,
the same parser a bot process's stdout goes through), so a malformed reply, a stray line or
an overlong line is the same fault from a remote bot as from a local one. The connection
is the bot's process here: a lost connection during a request is the bot's crash
("connection lost"), and a bot that faulted is not kept (its connection is closed and
``vastuz connect`` starts the bot afresh), as a faulty process is replaced.

Its clock: each request's deadline is the command's plus ``network_margin``, and the time
charged is the whole round trip (the network is inside the bot's clock). The handshake
(``protocol_version``, ``name``, ``version``, ``list_commands``, ``boardsize``) runs once per
connection; each game resets the board as for any player (``boardsize``, ``clear_board``).
"""

from __future__ import annotations

import time
from pathlib import Path

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection

from protocol.framing import ProtocolError
from protocol.messages import Command
from referee.play.faults import BotCrashed, BotFault, BotProtocolError, BotTimeout
from referee.play.handshake import handshake
from referee.play.logs import Transcript
from referee.play.player import Exchange
from referee.play.replies import Replies


class RemotePlayer:
    """One connection's bot. ``feed`` and ``lose`` are called by the connection's reader
    task; ``request`` by the game (one at a time: a remote bot plays one game at once)."""

    def __init__(self, label: str, ws: WebSocketConnection, *, margin: float, max_line: int) -> None:
        self.label = label
        self.command = "remote (vastuz connect)"
        self.name: str | None = None
        self.version: str | None = None
        self.commands: set[str] = set()
        self.pid: int | None = None
        self.stderr_log_path: Path | None = None
        self.transcript_path: Path | None = None
        self.margin = margin
        self.ws = ws
        self.replies = Replies(label, Transcript(None, 0), max_line)
        self.lost: str | None = None
        """Why the connection ended (None while it is open)."""
        self.broken = False
        """A timeout or a fault: out of step, never given another game."""
        self.busy = False
        """Reserved for a game (the ladder's), so it plays one at a time."""
        self.gone = trio.Event()
        """Set when the connection ends."""
        self._changed = trio.Event()
        self._next_id = 0
        self._in_flight = False

    def relabel(self, label: str) -> None:
        self.label = label
        self.replies.label = label

    # ------------------------------------------------------------------ Player
    @property
    def started(self) -> bool:
        return True  # the handshake ran when it connected

    async def start(self, nursery: trio.Nursery) -> None:
        return None

    def knows(self, command_name: str) -> bool:
        return command_name in self.commands

    @property
    def reusable(self) -> bool:
        return self.lost is None and not self.broken and not self._in_flight and self.replies.fault is None

    async def request(self, command: Command, timeout: float) -> Exchange:
        """Send ``command`` (numbered) and wait for its response within ``timeout`` plus the
        network margin; a lost connection is :class:`BotCrashed`, silence :class:`BotTimeout`."""
        replies = self.replies
        if replies.fault is not None:
            self.broken = True
            raise replies.fault
        self._next_id += 1
        numbered, line = command.numbered(self._next_id)
        text = line[:-1]
        if self.lost is not None:
            raise BotCrashed(self.label, text, f"connection lost ({self.lost})")
        window = timeout + self.margin
        pending = replies.expect(numbered, window, text)
        self._in_flight = True
        began = time.perf_counter()
        with trio.move_on_after(window):
            try:
                await self.ws.send_message(line)
            except ConnectionClosed as exc:
                self.lose(describe_close(exc))
            while pending.response is None and replies.fault is None and self.lost is None:
                self._changed = trio.Event()
                await self._changed.wait()
        response = pending.response
        if response is not None:
            self._in_flight = bool(replies.queue)
            return Exchange(numbered, response, pending.done_at - began)
        self.broken = True
        if replies.fault is not None:
            raise replies.fault
        received = pending.excerpt() if pending.received else None
        if self.lost is not None:
            raise BotCrashed(self.label, text, f"connection lost ({self.lost})", received)
        raise BotTimeout(
            self.label,
            text,
            f"no complete answer within {window:.3g} s ({timeout:.3g} s and the network margin of "
            f"{self.margin:g} s)",
            received,
        )

    # ------------------------------------------------------------------ the reader's side
    def feed(self, message: str | bytes) -> None:
        """A message from the client: bytes of the bot's stdout."""
        at = time.perf_counter()
        data = message.encode("utf-8") if isinstance(message, str) else message
        self.replies.feed(data, at)
        self._changed.set()

    def lose(self, why: str) -> None:
        if self.lost is None:
            self.lost = why
        self._changed.set()
        self.gone.set()

    # ------------------------------------------------------------------ the handshake
    async def handshake(self, timeout: float, board_size: int) -> None:
        """What a bot process's start does after the spawn, within ``timeout`` (plus the
        margin per command); a :class:`BotFault` if it fails."""

        def refusal(command: Command, exc: ProtocolError, text: str) -> BotProtocolError:
            return BotProtocolError(self.label, str(command), str(exc), text)

        introduced = await handshake(self._call, refusal, timeout, board_size)
        self.name, self.version, self.commands = introduced.name, introduced.version, introduced.commands

    async def _call(self, command: Command, timeout: float) -> str:
        exchange = await self.request(command, timeout)
        if not exchange.response.ok:
            raise BotProtocolError(
                self.label, str(exchange.command), "answered '?' to a command it must answer",
                exchange.response.text,
            )  # fmt: skip
        return exchange.response.text


def describe_close(exc: ConnectionClosed) -> str:
    """A closed connection in words (its code and reason)."""
    reason = exc.reason
    if reason is None:
        return "closed"
    words = f"code {reason.code}"
    if reason.reason:
        words += f": {reason.reason}"
    return words


__all__ = ["BotFault", "RemotePlayer", "describe_close"]
