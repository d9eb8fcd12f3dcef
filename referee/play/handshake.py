"""The start of a player's life, one sequence for every kind of player:
``protocol_version``, ``name``, ``version``, ``list_commands``, then ``boardsize`` when the
size is known (a bot that cannot play it fails at start-up) and the bot's own start-up
commands, all within one deadline. A bot process
(:class:`~referee.play.process.BotProcess`) and a remote bot
(:class:`~referee.ladder.remote.RemotePlayer`) run it over their own transports."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import trio

from protocol import commands
from protocol.framing import ProtocolError
from protocol.messages import Command
from referee.play.faults import BotProtocolError

Call = Callable[[Command, float], Awaitable[str]]
"""Send a command the bot must answer with ``=``, within the seconds given; its answer's text."""
Refusal = Callable[[Command, ProtocolError, str], BotProtocolError]
"""The fault for an answer of ``command`` (its text) that its parser refused."""

NAME_LIMIT = 200
"""Characters kept of a bot's ``name`` and ``version`` answers."""


@dataclass(frozen=True)
class Introduced:
    name: str
    version: str
    commands: set[str]


async def handshake(
    call: Call,
    refusal: Refusal,
    timeout: float,
    board_size: int | None,
    startup_commands: Sequence[str] = (),
) -> Introduced:
    """Run the handshake within ``timeout`` seconds in all; a
    :class:`~referee.play.faults.BotFault` if the bot fails it."""
    deadline = trio.current_time() + timeout

    def left() -> float:
        return max(0.0, deadline - trio.current_time())

    text = await call(commands.protocol_version(), left())
    try:
        commands.parse_protocol_version(text)
    except ProtocolError as exc:
        raise refusal(commands.protocol_version(), exc, text) from None
    name = (await call(commands.name(), left())).strip().split("\n")[0][:NAME_LIMIT]
    version = (await call(commands.version(), left())).strip().split("\n")[0][:NAME_LIMIT]
    listed = await call(commands.list_commands(), left())
    try:
        known = commands.parse_list_commands(listed)
    except ProtocolError as exc:
        raise refusal(commands.list_commands(), exc, listed) from None
    if board_size is not None:
        await call(commands.boardsize(board_size), left())
    for line in startup_commands:  # the bot's own settings, in order
        command, *args = line.split()
        await call(Command(None, command, tuple(args)), left())
    return Introduced(name, version, known)


__all__ = ["Call", "Introduced", "Refusal", "handshake"]
