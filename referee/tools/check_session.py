"""What the checks of ``vastuz check`` share: their options and results, and the session
that owns every bot process they use.

A check is an ``async`` function ``(name, session) -> CheckResult`` (the checks themselves
are in :mod:`~referee.tools.check_protocol`, :mod:`~referee.tools.check_positions` and
:mod:`~referee.tools.check_games`; the table and the runner in :mod:`~referee.tools.check`).
It never starts a process on its own: it asks :meth:`Session.bot` for the bot under test,
or :meth:`Session.process` for another one, so that every process of a run is a
:class:`~referee.play.process.BotProcess` that the session closes and reaps.

Statuses: ``FAIL`` is something that loses games or breaks the protocol contract; ``WARN``
is legal but worth fixing (a missing optional command, a bot that needs a signal to stop);
``SKIP`` a check that cannot run (the bot never started, or does not list the command).
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from protocol import commands
from protocol.framing import clip
from protocol.messages import Response
from referee.play.faults import BotFault, BotStartError
from referee.play.options import DEFAULT_QUIT_GRACE, BotOptions
from referee.play.process import BotProcess
from referee.play.records import GameRecord
from referee.play.sandbox import Sandbox
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_MARGIN, DEFAULT_STARTUP_TIMEOUT

REQUIRED_COMMANDS = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "setup", "play", "genmove", "gensetup", "choose_color",
)  # fmt: skip
"""Every command PROTOCOL.md section 2 says every bot must answer."""

OPTIONAL_COMMANDS = {
    "time_settings": "the bot is not told the time control",
    "time_left": "the bot is not told its time before each move",
    "showboard": "no board diagrams in the logs",
    "final_score": "no cross-check of the bot's own count",
}
"""The optional commands, each with what a bot that lacks it misses."""

MADE_UP_COMMAND = "vastuz_check_no_such_command"
"""A command name no bot can know: ``known_command`` must say false, a request '?'."""

OUT_OF_RANGE_SIZES = (1, 14)
"""Board sizes outside 2..13, which a bot should refuse (the referee never sends them)."""

DEFAULT_SIZES = (7, 5)
"""The sizes a bot must accept when the command line names none; games use the first."""

SHOWN = 80
"""Characters of a bot's answer quoted in a detail."""


class Status(str, enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    SKIP = "SKIP"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one named check, with a one-line human explanation."""

    name: str
    status: Status
    detail: str


@dataclass(frozen=True)
class CheckOptions:
    """What to check and how. ``sizes`` must all be accepted; the first is the size the
    games and position checks are played on. ``opponent`` is the reference bot of the
    games (the random sample bot, run with the referee's own Python)."""

    command: str
    sizes: tuple[int, ...] = DEFAULT_SIZES
    games: int = 2
    per_move: float = 1.0
    margin: float = DEFAULT_MARGIN
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    quit_grace: float = DEFAULT_QUIT_GRACE
    cwd: Path | None = None
    log_dir: Path | None = None
    sandbox: bool = False
    """Run the bot under bubblewrap, as ``sandbox: true`` does in a tournament."""
    seed: int = 0
    opponent: tuple[str, ...] = (sys.executable, "-m", "sample_bots.random_bot", "--seed", "1")

    def __post_init__(self) -> None:
        if not self.sizes:
            raise ValueError("at least one board size is needed")
        if self.games < 1:
            raise ValueError("at least one game is needed")

    @property
    def size(self) -> int:
        return self.sizes[0]

    @property
    def decision_timeout(self) -> float:
        """How long a decision (genmove, gensetup, choose_color) may take, as in a game."""
        return self.per_move + self.margin


@dataclass
class CheckReport:
    """All results, and the pid of every process started (all reaped by now)."""

    results: list[CheckResult] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.status is not Status.FAIL for r in self.results)

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status is status)

    def result(self, name: str) -> CheckResult:
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)


class CheckSkipped(Exception):
    """The check cannot run (raised by :meth:`Session.bot` when the bot never started);
    the runner turns it into a SKIP with this message."""


class RestartFailed(Exception):
    """The bot started once, but a fresh process for this check did not; the runner turns
    it into a FAIL with this message."""


# ---------------------------------------------------------------------------- the session


class Session:
    """The state shared by the checks of one run: the bot process in use (restarted when a
    check broke it), what its handshake listed, and the records of the games.

    Checks are independent where possible: a check that leaves the bot broken (crashed,
    timed out, answered garbage) does not spoil the next one, because :meth:`bot` starts
    a fresh process whenever the current one is no longer fit to use. Two checks share
    data on purpose: ``final-score`` judges the answers collected by the games of
    ``games`` (in :attr:`games`).

    The session is the one owner of the processes of a run: each is made by
    :meth:`process`, and :meth:`close_all` closes (and so reaps) every one of them.
    """

    def __init__(self, options: CheckOptions, nursery: trio.Nursery, report: CheckReport) -> None:
        self.options = options
        self.nursery = nursery
        self.report = report
        self.current: BotProcess | None = None
        self.started_once = False
        self.listed: set[str] = set()
        self.games: list[tuple[GameRecord, int]] = []  # each record with the bot's seat
        self._spawned = 0
        self._open: list[BotProcess] = []

    def process(self, command: str | Sequence[str], label: str) -> BotProcess:
        """A new, unstarted BotProcess; with ``log_dir``, its own numbered log files."""
        self._spawned += 1
        stderr_log = transcript = None
        if self.options.log_dir is not None:
            stem = f"{self._spawned:02d}-{label}"
            stderr_log = self.options.log_dir / f"{stem}.stderr.log"
            transcript = self.options.log_dir / f"{stem}.transcript.log"
        bot = BotProcess(
            command,
            label=label,
            cwd=self.options.cwd,
            stderr_log=stderr_log,
            transcript=transcript,
            sandbox=Sandbox() if self.options.sandbox else None,
            options=BotOptions(
                startup_timeout=self.options.startup_timeout, quit_grace=self.options.quit_grace
            ),
        )
        self._open.append(bot)
        return bot

    async def start(self, bot: BotProcess) -> None:
        """Start ``bot`` in the session's nursery; on failure it is closed and reaped."""
        try:
            await bot.start(self.nursery)
        except BaseException:
            await bot.aclose()
            raise
        finally:
            if bot.pid is not None:
                self.report.pids.append(bot.pid)

    async def bot(self) -> BotProcess:
        """The bot, fit for use: the current process if it is healthy and idle, else a
        fresh one (so one check's breakage does not fail the next)."""
        if self.current is not None and self.current.reusable:
            return self.current
        await self.settle()
        if not self.started_once:
            raise CheckSkipped("the bot did not start")
        bot = self.process(self.options.command, "candidate")
        try:
            await self.start(bot)
        except (BotFault, BotStartError) as exc:
            raise RestartFailed(f"a fresh bot process did not start: {exc}") from None
        self.current = bot
        return bot

    async def settle(self) -> None:
        """Close the current bot if it is broken, so no dead process waits for the next check."""
        if self.current is not None and not self.current.reusable:
            await self.current.aclose()
            self.current = None

    async def prepare(self, bot: BotProcess, size: int) -> None:
        """A new game as the referee starts one: boardsize, clear_board, time_settings."""
        await bot.new_game(size, self.options.command_timeout)
        if "time_settings" in bot.commands:
            # An optional command: a '?' here is not a fault (PROTOCOL.md section 5).
            await bot.request(
                commands.per_move_time_settings(self.options.per_move), self.options.command_timeout
            )

    async def close_all(self) -> None:
        """Close every process the session made (idempotent: closing a closed bot is a no-op)."""
        for bot in self._open:
            await bot.aclose()
        self.current = None


# ---------------------------------------------------------------------------- details


def quote(text: str) -> str:
    """A bot's answer as quoted in a detail: ``repr``, so one line, truncated."""
    return clip(text, SHOWN)


def fault_text(fault: BotFault) -> str:
    """A fault as a detail, without the bot label (there is one bot under test)."""
    text = f"{fault.termination.value}: {fault.detail}"
    if fault.command:
        text = f"{fault.command!r}: {text}"
    if fault.received is not None:
        text += f"; the bot sent {fault.received}"  # already quoted and clipped
    if fault.stderr:  # a crash or a failed start: the bot's own last words, usually the why
        text += f"; its stderr ends {fault.stderr}"  # quoted, on one line, clipped
    return text


def ms(seconds: float) -> str:
    """Seconds as milliseconds with one decimal, for timing details."""
    return f"{seconds * 1000:.1f} ms"


def answer_text(response: Response) -> str:
    """How the bot answered, for a detail: ``'='``, ``'= c3'`` or ``'? not today'``."""
    mark = "=" if response.ok else "?"
    return clip(f"{mark} {response.text}".rstrip(), SHOWN)
