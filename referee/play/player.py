"""The game loop's view of a bot: the :class:`Player` protocol and one answered request.

:func:`referee.play.game.play_game` talks to players only through this interface, so the
same game logic runs against a real program (:class:`referee.play.process.BotProcess`) and
against the in-memory player of :mod:`referee.play.memory`, which drives the bot SDK's
session directly and can inject a fault into any request. A player raises only the
:mod:`referee.play.faults` tree for anything its bot does wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from protocol.messages import Command, Response

if TYPE_CHECKING:
    import trio


@dataclass(slots=True)
class Exchange:
    """One answered command: the response and the bot's time for it, in seconds (from just
    before the command was written to the arrival of the response's final line, less any
    stall of the referee's it was found at the end of). ``overhead`` is the referee's own
    time inside the request call outside that window. ``late``, when not 0, is how late the
    referee looked: a stall it found the answer at the end of (at least
    :data:`referee.play.watch.NOTICE`), or the time past the deadline of an answer it read
    after its deadline."""

    command: Command
    response: Response
    seconds: float
    overhead: float = 0.0
    late: float = 0.0


class Player(Protocol):
    """A bot as one game sees it.

    ``label`` names it in records and messages, ``command`` says how it was started.
    ``name``/``version``/``commands`` are what the handshake said (set by :meth:`start`);
    ``pid`` and the two log paths are None where there is no process or no log.
    """

    label: str
    command: str
    name: str | None
    version: str | None
    pid: int | None
    stderr_log_path: Path | None
    transcript_path: Path | None

    @property
    def started(self) -> bool:
        """Whether :meth:`start` has run (a player kept from an earlier game has)."""
        ...

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the bot and run the handshake. Raises
        :class:`~referee.play.faults.BotStartError` if it cannot start at all, a
        :class:`~referee.play.faults.BotFault` if it fails the handshake."""
        ...

    def knows(self, command_name: str) -> bool:
        """Whether the bot listed ``command_name`` in ``list_commands``."""
        ...

    async def request(self, command: Command, timeout: float) -> Exchange:
        """Send ``command`` (the player numbers it) and return the complete response
        within ``timeout`` seconds. A ``?`` response is returned, not raised; any
        misbehaviour raises a :class:`~referee.play.faults.BotFault`."""
        ...
