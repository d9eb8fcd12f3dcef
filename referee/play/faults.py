"""Everything a bot can do wrong in a game, as one exception tree.

Each :class:`BotFault` names the bot, the command it was answering and (truncated) what it
sent; :mod:`referee.play.game` turns each into a forfeit of that bot, with the fault's
:attr:`BotFault.termination` as the kind of loss. These exceptions never escape a game.
:class:`BotStartError` is not the bot's fault in play but a setup problem (a program that
cannot be executed): it voids the game instead.

Every :class:`~referee.play.player.Player` raises these and only these, whether it is a
real process or the in-memory player of the tests.
"""

from __future__ import annotations

from typing import ClassVar

from protocol.framing import clip
from referee.play.records import Termination

EXCERPT = 200
"""Characters of a bot's answer kept in a fault (and in the record)."""


class BotStartError(Exception):
    """The bot program could not be started at all (not found, not executable, bad cwd):
    a setup problem on the referee's side, so the game is void rather than forfeited."""


class BotFault(Exception):
    """A bot did something that loses it the game. ``termination`` says which kind of loss.

    ``bot`` is the bot's label, ``command`` the command line it was answering (None when it
    failed outside any command), ``received`` a truncated excerpt of what it sent.
    ``stderr`` is the quoted end of what it wrote to stderr, set for a crash or a failed
    start-up (where it usually says why: a missing module, a traceback), else None.
    """

    termination: ClassVar[Termination]

    def __init__(self, bot: str, command: str | None, detail: str, received: str | None = None) -> None:
        self.bot = bot
        self.command = command
        self.detail = detail
        self.received = None if received is None else clip(received, EXCERPT)
        self.stderr: str | None = None
        super().__init__(bot, command, detail)

    def __str__(self) -> str:
        where = f"bot {self.bot}" + (f", command {self.command!r}" if self.command else "")
        text = f"{where}: {self.detail}"
        if self.received is not None:
            text += f"; received {self.received}"
        if self.stderr is not None:
            text += f"; its stderr ends {self.stderr}"
        return text


class BotTimeout(BotFault):
    """No complete answer at the referee's first look at or after the deadline. ``late``
    is how long after the deadline that look came (seconds): the referee's own lateness."""

    termination = Termination.TIME

    def __init__(
        self, bot: str, command: str | None, detail: str, received: str | None = None, *, late: float = 0.0
    ) -> None:
        super().__init__(bot, command, detail, received)
        self.late = late


class BotCrashed(BotFault):
    """The process exited, or closed its stdout or stdin, while it was still needed."""

    termination = Termination.CRASH


class BotProtocolError(BotFault):
    """The answer broke the framing, was ``?`` to a command the bot must answer, or did not
    mean what the command asks (e.g. ``protocol_version`` other than 2)."""

    termination = Termination.PROTOCOL


class BotIllegal(BotFault):
    """A well-formed answer that the rules reject: an illegal turn, a bad setup or colour."""

    termination = Termination.ILLEGAL


class BotResigned(BotFault):
    """The bot answered ``resign``. Not a misbehaviour, but a loss handled the same way."""

    termination = Termination.RESIGN


class BotOverMemory(BotFault):
    """The bot's processes together held more memory than its limit (``limits.memory``)."""

    termination = Termination.MEMORY


class BotOverProcesses(BotFault):
    """The bot ran more processes at once than its limit (``limits.processes``)."""

    termination = Termination.PROCESSES
