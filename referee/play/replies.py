"""What a bot writes to stdout, matched to the one command in flight.

:class:`Replies` is the protocol side of :class:`~referee.play.process.BotProcess`, kept
apart from the process side (spawning, pipes, signals): bytes go in with :meth:`feed`,
the waiting request is resolved when its response is complete, and anything wrong
becomes the bot's :attr:`Replies.fault`. It does no I/O; the only trio object is the
:class:`trio.Event` a request waits on.

The rules it enforces: a line that arrives while no command is in flight is a stray line
(recorded at once, raised by the next request, never taken as the next reply); after any
framing fault the bot is broken and reading stops, since a confused bot is never
resynchronised; an end of output is a crash unless the referee was closing the bot, and so
is the exit of the process while a child of it keeps its output open (:meth:`Replies.exited`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import trio

from protocol.framing import LineBuffer, ProtocolError
from protocol.messages import Command, Response, ResponseParser, check_idle_line
from referee.play.faults import EXCERPT, BotCrashed, BotFault, BotProtocolError
from referee.play.logs import Transcript

log = logging.getLogger("referee.play.process")


@dataclass
class Pending:
    """The command in flight: its parser, the event its request waits on, and the
    response with the moment its last line arrived."""

    command: Command
    parser: ResponseParser
    done: trio.Event = field(default_factory=trio.Event)
    response: Response | None = None
    done_at: float = 0.0
    received: list[str] = field(default_factory=list)

    def excerpt(self) -> str:
        return "\n".join(self.received)


class Replies:
    """The stdout side of one bot: a line buffer, the command in flight, the first fault.

    ``transcript`` may be replaced between games (the bot's log files switch).
    """

    def __init__(self, label: str, transcript: Transcript, max_line: int) -> None:
        self.label = label
        self.transcript = transcript
        self.buffer = LineBuffer(max_line)
        self.pending: Pending | None = None
        self.fault: BotFault | None = None
        self.last_command: str | None = None

    def expect(self, command: Command) -> Pending:
        """Register ``command`` as the one in flight (the caller checked none is)."""
        self.last_command = str(command)
        self.pending = Pending(command, ResponseParser(command.id))
        return self.pending

    def record(self, fault: BotFault) -> None:
        """Keep the first fault (the bot is broken from now on) and wake the request."""
        if self.fault is None:
            self.fault = fault
            self.transcript.line("!", str(fault))
        if self.pending is not None:
            self.pending.done.set()

    def feed(self, data: bytes | bytearray) -> bool:
        """Take bytes from stdout; False once the bot is broken (stop reading)."""
        self.buffer.push(data)
        while True:
            try:
                line = self.buffer.next_line()
            except ProtocolError as exc:
                self.record(self._protocol_fault(str(exc), None))
                return False
            if line is None:
                return True
            if not self._on_line(line):
                return False

    def eof(self, *, expected: bool) -> None:
        """The end of stdout; ``expected`` when the referee is closing the bot (after
        ``quit`` or a signal), where it is no fault unless a command was in flight."""
        partial = self.buffer.eof()
        pending = self.pending
        if expected and pending is None:
            return
        if pending is not None and pending.parser.started:
            what = "closed its output in the middle of a response"
        elif partial:
            what = "closed its output in the middle of a line"
        else:
            what = "closed its output (exited or crashed)"
        received = pending.excerpt() if pending is not None and pending.received else None
        command = str(pending.command) if pending is not None else self.last_command
        if pending is None:
            what += " while no command was in flight"
        self.record(BotCrashed(self.label, command, what, received))

    def exited(self, status: str) -> BotFault:
        """The process exited (``status``, e.g. ``exit status 4``) but its stdout is still
        open: a process it started holds it. A crash at once, rather than waiting out the
        deadline for an answer that cannot come. Returns that crash (which is the bot's
        :attr:`fault` unless it had one already)."""
        pending = self.pending
        what = f"exited ({status}) while a process it started still holds its output open"
        received = pending.excerpt() if pending is not None and pending.received else None
        command = str(pending.command) if pending is not None else self.last_command
        if pending is None:
            what += "; no command was in flight"
        crash = BotCrashed(self.label, command, what, received)
        self.record(crash)
        return crash

    def _on_line(self, line: str) -> bool:
        self.transcript.line("<", line)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s < %s", self.label, line)
        pending = self.pending
        if pending is None:
            try:
                check_idle_line(line)
            except ProtocolError as exc:
                self.record(self._protocol_fault(str(exc), line))
                return False
            return True
        pending.received.append(line[:EXCERPT])
        try:
            response = pending.parser.feed(line)
        except ProtocolError as exc:
            self.record(self._protocol_fault(str(exc), line))
            return False
        if response is not None:
            pending.done_at = time.perf_counter()
            pending.response = response
            self.pending = None
            pending.done.set()
        return True

    def _protocol_fault(self, detail: str, received: str | None) -> BotProtocolError:
        pending = self.pending
        if pending is None:
            command = self.last_command
            if command is not None:
                detail = f"{detail} (after the response to this command was complete)"
        else:
            command = str(pending.command)
            if received is None and pending.received:
                received = pending.excerpt()
        return BotProtocolError(self.label, command, detail, received)
