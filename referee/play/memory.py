"""An in-memory :class:`~referee.play.player.Player`: a bot SDK session with no process.

:class:`MemoryPlayer` feeds each command line straight to a
:class:`protocol.bot.BotSession` and reads its answer back through the same strict
:class:`~protocol.messages.ResponseParser` the process player uses, so a game against it
exercises the whole game loop (openings, clocks, forfeits, notes, records) in
milliseconds. Faults are injected per request with :meth:`MemoryPlayer.inject`: the
*n*-th request of a command (or every one) answers illegally, with garbage, with the
wrong id, never, with ``?``, with ``resign``, with a raw text of the test's choosing, or
the bot "crashes". :meth:`MemoryPlayer.think` makes a command take time on trio's clock,
so clock tests are exact under ``autojump_clock``.

What needs a real process (exit statuses, hangs that ignore signals, floods, grandchildren)
stays with :class:`~referee.play.process.BotProcess` and its tests.
"""

from __future__ import annotations

import enum
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import trio

from protocol import commands
from protocol.bot import Bot, BotSession
from protocol.framing import ProtocolError
from protocol.messages import Command, Response, ResponseParser
from referee.engine import Position
from referee.play.faults import (
    BotCrashed,
    BotFault,
    BotProtocolError,
    BotStartError,
    BotTimeout,
)
from referee.play.player import Exchange

if TYPE_CHECKING:
    from io import StringIO

T = TypeVar("T")


class Fault(enum.Enum):
    """A misbehaviour to inject into one request."""

    ILLEGAL = "illegal"  # a well-formed answer the rules reject (genmove, gensetup, choose_color)
    GARBAGE = "garbage"  # a line that is not a response at all
    WRONG_ID = "wrong-id"  # the right answer under another id
    TIMEOUT = "timeout"  # no answer before the deadline
    REFUSE = "refuse"  # '?' to the command
    RESIGN = "resign"  # 'resign' (genmove)
    CRASH = "crash"  # the bot goes away while the command is in flight


@dataclass(frozen=True)
class Answer:
    """Answer the request with ``text`` (after ``=id ``) instead of the bot's own answer,
    e.g. ``Answer("g7 g8")`` for a two-token genmove answer. ``text`` may also be a
    function of the bot's position (to build, say, a turn that omits a compulsory steal);
    where it returns None the bot answers as itself."""

    text: str | Callable[[Position], str | None]


Injection = Fault | Answer


class MemoryPlayer:
    """A :class:`~referee.play.player.Player` over ``bot``'s SDK session.

    ``start_error`` makes :meth:`start` fail as a program that cannot be executed would
    (the game is void). ``board_size`` adds ``boardsize`` to the handshake, as the process
    player does when the size is known.
    """

    def __init__(
        self,
        bot: Bot,
        *,
        label: str = "bot",
        board_size: int | None = None,
        start_error: str | None = None,
        log: StringIO | None = None,
        transcript: list[tuple[str, str, str]] | None = None,
    ) -> None:
        import io

        self.bot = bot
        self.label = label
        self.command = f"in-memory {type(bot).__name__}"
        self.name: str | None = None
        self.version: str | None = None
        self.pid: int | None = None
        self.stderr_log_path: Path | None = None
        self.transcript_path: Path | None = None
        self.commands: set[str] = set()
        self.board_size = board_size
        self.start_error = start_error
        self.session = BotSession(bot, log=log if log is not None else io.StringIO())
        self.sent: list[str] = []  # every command line as sent, numbered
        # (label, ">" to the bot or "<" from it, line): shared by players to interleave
        self.transcript = transcript
        self.healthy = True
        self._started = False
        self._fault: BotFault | None = None
        self._next_id = 0
        self._seen: Counter[str] = Counter()
        self._injections: dict[tuple[str, int], Injection] = {}
        self._delays: dict[str, float] = {}
        self._bot_wall = 0.0

    def __repr__(self) -> str:
        return f"<MemoryPlayer {self.label} {type(self.bot).__name__}>"

    # ------------------------------------------------------------------ test knobs
    def inject(self, command_name: str, injection: Injection, *, nth: int = 1) -> None:
        """Make the ``nth`` request of ``command_name`` (from 1; 0: every one) misbehave."""
        self._injections[(command_name, nth)] = injection

    def think(self, command_name: str, seconds: float) -> None:
        """Every request of ``command_name`` takes ``seconds`` (on trio's clock) to answer."""
        self._delays[command_name] = seconds

    def count(self, command_name: str) -> int:
        """How many requests of ``command_name`` were sent."""
        return self._seen[command_name]

    # ------------------------------------------------------------------ the Player interface
    @property
    def started(self) -> bool:
        return self._started

    async def start(self, nursery: trio.Nursery | None = None) -> None:
        if self._started:
            raise RuntimeError(f"{self!r} is already started")
        if self.start_error is not None:
            raise BotStartError(f"bot {self.label}: cannot start {self.command!r}: {self.start_error}")
        self._started = True
        version = await self._must(commands.protocol_version())
        self._parse_reply("protocol_version", commands.parse_protocol_version, version)
        self.name = (await self._must(commands.name())).strip().split("\n")[0][:200]
        self.version = (await self._must(commands.version())).strip().split("\n")[0][:200]
        listed = await self._must(commands.list_commands())
        self.commands = self._parse_reply("list_commands", commands.parse_list_commands, listed)
        if self.board_size is not None:
            await self._must(commands.boardsize(self.board_size))

    def knows(self, command_name: str) -> bool:
        return command_name in self.commands

    async def request(self, command: Command, timeout: float) -> Exchange:
        if not self._started:
            raise RuntimeError(f"{self!r}: request on a bot that is not started")
        if self._fault is not None:
            raise self._fault
        self._next_id += 1
        command = command.with_id(self._next_id)
        text = str(command)
        self.sent.append(text)
        self._seen[command.name] += 1
        injection = self._injections.pop((command.name, self._seen[command.name]), None)
        if injection is None:
            injection = self._injections.get((command.name, 0))
        began = trio.current_time()
        entered = time.perf_counter()
        self._bot_wall = 0.0
        try:
            with trio.fail_after(timeout):
                if injection is Fault.TIMEOUT:
                    await trio.sleep_forever()
                delay = self._delays.get(command.name, 0.0)
                if delay:
                    await trio.sleep(delay)
                raw = self._answer(command, injection)
        except trio.TooSlowError:
            raise self._broken(
                BotTimeout(self.label, text, f"no complete answer within {timeout:.3f} s")
            ) from None
        except BotFault as fault:
            raise self._broken(fault) from None
        if self.transcript is not None:
            self.transcript.append((self.label, ">", text))
            self.transcript.extend((self.label, "<", line) for line in raw.split("\n")[:-1])
        response = self._parse(command, raw)
        # The referee's own share (parsing, bookkeeping): the request's wall time outside
        # the bot's session, as the process player reports its overhead.
        overhead = max(0.0, time.perf_counter() - entered - self._bot_wall)
        return Exchange(command, response, trio.current_time() - began, overhead)

    # ------------------------------------------------------------------ inside
    async def _must(self, command: Command) -> str:
        exchange = await self.request(command, 10.0)
        if not exchange.response.ok:
            raise self._broken(
                BotProtocolError(
                    self.label,
                    str(exchange.command),
                    "answered '?' to a command it must answer",
                    exchange.response.text,
                )
            )
        return exchange.response.text

    def _parse_reply(self, command: str, parser: Callable[[str], T], text: str) -> T:
        """A reply parser's :class:`ProtocolError` is the bot's protocol fault."""
        try:
            return parser(text)
        except ProtocolError as exc:
            raise self._broken(BotProtocolError(self.label, self.sent[-1], str(exc), text)) from None

    def _broken(self, fault: BotFault) -> BotFault:
        self.healthy = False
        if self._fault is None:
            self._fault = fault
        return fault

    def _answer(self, command: Command, injection: Injection | None) -> str:
        """The raw response text (``=id ...`` lines and the closing empty line)."""
        ident = "" if command.id is None else str(command.id)
        if injection is None:
            return self._handle(command)
        if isinstance(injection, Answer):
            text = (
                injection.text if isinstance(injection.text, str) else injection.text(self.session.position)
            )
            return self._handle(command) if text is None else f"={ident} {text}\n\n"
        if injection is Fault.CRASH:
            raise BotCrashed(self.label, str(command), "closed its output (exited or crashed)")
        if injection is Fault.GARBAGE:
            return "this is not a response\n\n"
        if injection is Fault.REFUSE:
            return f"?{ident} refused by the test\n\n"
        if injection is Fault.RESIGN:
            return f"={ident} resign\n\n"
        if injection is Fault.WRONG_ID:
            answer = self._handle(command)
            return answer.replace(f"={ident}", f"={int(ident or 0) + 1000}", 1)
        if injection is Fault.ILLEGAL:
            return f"={ident} {self._illegal_answer(command)}\n\n"
        raise AssertionError(injection)

    def _handle(self, command: Command) -> str:
        """The bot's own answer to the command's wire line (as a process would read it),
        timed as the bot's share of the request."""
        started = time.perf_counter()
        try:
            answer = self.session.handle_line(str(command))
        finally:
            self._bot_wall += time.perf_counter() - started
        if answer is None:
            raise AssertionError(f"the SDK skipped the command line {command!s}")
        return answer

    def _illegal_answer(self, command: Command) -> str:
        position = self.session.position
        if command.name == "genmove":
            occupied = position.stones("b") + position.stones("w")
            return occupied[0] if occupied else "z99"
        if command.name == "gensetup":
            point = position.legal_placements()[0]
            return f"{point} {point}"
        if command.name == "choose_color":
            return "purple"
        raise ValueError(f"no illegal answer is defined for {command.name}")

    def _parse(self, command: Command, raw: str) -> Response:
        parser = ResponseParser(command.id)
        lines = raw.split("\n")
        for number, line in enumerate(lines):
            try:
                response = parser.feed(line)
            except ProtocolError as exc:
                raise self._broken(BotProtocolError(self.label, str(command), str(exc), line)) from None
            if response is not None:
                if any(rest for rest in lines[number + 1 :]):
                    stray = next(rest for rest in lines[number + 1 :] if rest)
                    raise self._broken(
                        BotProtocolError(self.label, str(command), "a stray line after the response", stray)
                    )
                return response
        raise self._broken(
            BotCrashed(self.label, str(command), "closed its output in the middle of a response")
        )
