"""The remote bots' wire, both ends' part of it: the hello, the server's control messages,
the close codes, a token's hash, and how the client cuts a bot's output into messages.

Pure (no I/O): the ladder's connections (:mod:`.connections`) and ``vastuz connect``
(:mod:`referee.cli.connect`) read and write these. The protocol is in PROTOCOL.md's
section on remote bots: a JSON hello, then GTP command lines one way and the bot's
complete responses the other, over one websocket.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

HELLO_VERSION = 1

# Close codes (the 4000s are ours; 1009 is the websocket's own "message too big").
WRONG_TOKEN = 4401
"""An unknown bot, or a wrong token: final (the client does not retry)."""
REFUSED_IDENTITY = 4403
"""Its program or version changed under a name whose rule is ``refuse``: final."""
ALREADY_CONNECTED = 4409
"""Another connection plays as this bot now: final."""
TOO_MANY = 4429
"""The ladder's ``max_connections`` are open: the client retries later."""
NO_HELLO = 4408
"""No hello within ``hello_timeout``."""
BAD_HELLO = 4400
"""Not a hello, a failed handshake, or a fault in a game (the client restarts its bot)."""
GOING_AWAY = 1001
"""The ladder stops (the client reconnects: a ladder restarts)."""
TOO_BIG = 1009

FINAL = frozenset({WRONG_TOKEN, REFUSED_IDENTITY, ALREADY_CONNECTED})
"""Codes after which ``vastuz connect`` exits (2) instead of reconnecting."""

MAX_REASON = 120
"""Bytes of a close frame's reason (the websocket allows 123); a longer reason is sent
whole in an ``{"error": ...}`` message just before the close."""


class WireError(ValueError):
    """A message that is not what the wire says comes next."""


@dataclass(frozen=True)
class Hello:
    name: str
    token: str
    fingerprint: str

    def message(self) -> str:
        return json.dumps(
            {"hello": HELLO_VERSION, "name": self.name, "token": self.token, "fingerprint": self.fingerprint}
        )


def parse_hello(message: str | bytes) -> Hello:
    """The client's first message; :class:`WireError` saying what is wrong with it."""
    if isinstance(message, bytes):
        try:
            message = message.decode("utf-8")
        except UnicodeDecodeError:
            raise WireError("the hello is not UTF-8 text") from None
    try:
        data = json.loads(message)
    except ValueError:
        raise WireError("the first message must be a JSON hello") from None
    if not isinstance(data, dict) or data.get("hello") != HELLO_VERSION:
        raise WireError(f'the first message must be {{"hello": {HELLO_VERSION}, ...}}')
    fields = []
    for key in ("name", "token", "fingerprint"):
        value = data.get(key)
        if not isinstance(value, str) or not value or len(value) > 256:
            raise WireError(f"the hello's {key!r} must be a string of 1 to 256 characters")
        fields.append(value)
    return Hello(*fields)


def control(message: str | bytes) -> dict[str, object] | None:
    """A server message that is a control message (``{"welcome": ...}``, ``{"error": ...}``),
    or None for GTP command lines (which never start with ``{``)."""
    if isinstance(message, bytes) or not message.startswith("{"):
        return None
    try:
        data = json.loads(message)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The sha256 the store keeps (tokens are random: no salt or slow hash needed)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, stored: str | None) -> bool:
    """Whether ``token`` is the one whose hash is ``stored``, in constant time."""
    return hmac.compare_digest(token_hash(token), stored or "0" * 64)


def short_reason(text: str) -> str:
    """``text`` cut to fit a close frame (whole characters, at most :data:`MAX_REASON` bytes)."""
    data = text.encode("utf-8")
    if len(data) <= MAX_REASON:
        return text
    return data[: MAX_REASON - 3].decode("utf-8", "ignore") + "..."


class Responses:
    """The client's cut of a bot's stdout into messages: bytes in, each complete response
    (its lines up to and including the blank line that ends it) out as one message. A bot
    that writes ``limit`` bytes without ending a response has its output sent as it is, so
    the client's memory stays bounded: the ladder's own framing then judges it (a line over
    the referee's limit is the bot's protocol fault, as for a local bot)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no response's end
        self._line_start = 0

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        buffer = self._buffer
        buffer += data
        out: list[bytes] = []
        cut = 0
        start = self._line_start
        at = buffer.find(b"\n", self._scanned)
        while at >= 0:
            line = buffer[start:at]
            if (
                len(line) <= 1 and line in (bytearray(), bytearray(b"\r")) and at + 1 - cut > len(line) + 1
            ):  # a blank line ends it
                out.append(bytes(buffer[cut : at + 1]))
                cut = at + 1
            start = at + 1
            at = buffer.find(b"\n", start)
        if cut:
            del buffer[:cut]
            start -= cut
        if len(buffer) >= self.limit:
            out.append(bytes(buffer))
            buffer.clear()
            start = 0
        self._line_start = start
        self._scanned = len(buffer)
        return out


__all__ = [
    "ALREADY_CONNECTED",
    "BAD_HELLO",
    "FINAL",
    "GOING_AWAY",
    "NO_HELLO",
    "REFUSED_IDENTITY",
    "TOO_BIG",
    "TOO_MANY",
    "WRONG_TOKEN",
    "Hello",
    "Responses",
    "WireError",
    "control",
    "new_token",
    "parse_hello",
    "short_reason",
    "token_hash",
    "token_matches",
]
