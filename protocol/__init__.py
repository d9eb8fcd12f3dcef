"""The Vastuz bot protocol (GTP 2 framing), sans-I/O.

Layers, lowest first: :mod:`protocol.framing` (bytes to lines, the error tree),
:mod:`protocol.messages` (commands and responses as values, the strict response parser),
:mod:`protocol.commands` (the vocabulary: builders and reply parsers),
:mod:`protocol.session` (a GTP answerer's dispatch and loop), :mod:`protocol.bot` (the SDK a
Python bot is written with) and :mod:`protocol.rules` (the rules helper). None of them does
I/O except :func:`protocol.session.serve`, which reads stdin and writes stdout of the bot or
helper process.

Framing and messages need nothing else: importing them (or this package) loads neither
the rules engine nor the referee. The SDK names (``Bot``, ``BotSession``, ``run``) are
still importable from here; they load :mod:`protocol.bot`, and with it the engine, only
when first used.

The reference for bot authors is ``PROTOCOL.md`` in this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.framing import (
    DEFAULT_MAX_LINE,
    BadCommand,
    BadEncoding,
    BadReply,
    LineBuffer,
    LineTooLong,
    MalformedResponse,
    ProtocolError,
    preprocess_command_line,
)
from protocol.messages import Command, Response, ResponseParser, check_idle_line, parse_command

if TYPE_CHECKING:
    from protocol.bot import Bot, BotSession, run

_SDK = ("Bot", "BotSession", "run")


def __getattr__(name: str) -> Any:
    if name in _SDK:
        from protocol import bot

        return getattr(bot, name)
    raise AttributeError(f"module 'protocol' has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAX_LINE",
    "BadCommand",
    "BadEncoding",
    "BadReply",
    "Bot",
    "BotSession",
    "Command",
    "LineBuffer",
    "LineTooLong",
    "MalformedResponse",
    "ProtocolError",
    "Response",
    "ResponseParser",
    "check_idle_line",
    "parse_command",
    "preprocess_command_line",
    "run",
]
