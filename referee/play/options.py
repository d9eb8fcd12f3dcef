"""How every process of a bot is run: :class:`BotOptions`, one frozen value.

A tournament, a match, ``vastuz check`` and the tests start many processes with the same
settings; they build one ``BotOptions`` and hand it down (through
:class:`~referee.tournament.executors.pool.BotPool` to
:class:`~referee.play.process.BotProcess`), so a misspelt or mistyped setting fails where it
is written, not in the constructor of a process started later. What differs per process
(its label, log files, log budget, cores) is given to the process itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.framing import DEFAULT_MAX_LINE
from referee.play.spec import DEFAULT_STARTUP_TIMEOUT

DEFAULT_QUIT_GRACE = 0.5
"""Seconds a bot has to exit after ``quit`` before it is sent SIGTERM."""
DEFAULT_KILL_GRACE = 0.5
"""Seconds a bot has to exit after SIGTERM before it is sent SIGKILL."""
DEFAULT_LOG_CAP = 1 << 20
"""Bytes of stderr (and of transcript) kept per log file."""


@dataclass(frozen=True)
class BotOptions:
    """The settings of a bot process: ``startup_timeout`` for the spawn and handshake,
    ``quit_grace`` and ``kill_grace`` for the close (``quit`` -> SIGTERM -> SIGKILL),
    ``log_cap`` bytes per log file, ``max_line`` bytes per protocol line (longer is a
    protocol fault), and ``board_size``: when known, ``boardsize`` is part of the
    handshake, so a bot that cannot play it fails at start-up; ``startup_commands`` follow."""

    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    quit_grace: float = DEFAULT_QUIT_GRACE
    kill_grace: float = DEFAULT_KILL_GRACE
    log_cap: int = DEFAULT_LOG_CAP
    max_line: int = DEFAULT_MAX_LINE
    board_size: int | None = None
    startup_commands: tuple[str, ...] = ()
    """Protocol commands sent in order after the handshake of every process start (a bot's
    own settings, ``set_strength 3``: gomill's ``startup_gtp_commands``); a ``?`` answer is
    a start failure naming the command and the answer. A reused process keeps them."""


DEFAULT_OPTIONS = BotOptions()
