"""What a bot writes to stdout, matched to the commands in flight, in order.

:class:`Replies` is the protocol side of :class:`~referee.play.process.BotProcess`, kept
apart from the process side (spawning, pipes, signals): bytes go in with :meth:`feed`,
each command in flight is resolved when its response is complete, and anything wrong
becomes the bot's :attr:`Replies.fault`. It does no I/O and no waiting: the request that
wants an answer feeds whatever it read and looks at its :class:`Pending`.

Several commands may be in flight at once (the referee sends the opponent's ``play`` and
the next ``genmove`` in one write): GTP answers in order, so each line belongs to the oldest
command not answered yet, and a response's id must be that command's.

The rules it enforces: a line that arrives while no command is in flight is a stray line
(recorded at once, raised by the next request, never taken as the next reply); after any
framing fault the bot is broken and reading stops, since a confused bot is never
resynchronised; an end of output is a crash unless the referee was closing the bot, and so
is the exit of the process while a child of it keeps its output open (:meth:`Replies.exited`).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

from protocol.framing import LineBuffer, ProtocolError
from protocol.messages import Command, Response, ResponseParser, check_idle_line, one_line_response
from referee.play.faults import EXCERPT, BotCrashed, BotFault, BotProtocolError
from referee.play.logs import Transcript

log = logging.getLogger("referee.play.process")


@dataclass(eq=False, slots=True)
class Pending:
    """A command in flight: its wire text, parser and deadline, and once answered the
    response with the moment its last byte was read (``done_at``, ``time.perf_counter``).

    ``sent_at`` is when the write that carried it finished (0 until then); ``after`` the
    command sent before it in the same stream, whose answer the bot gives first, so the
    bot's time for this one starts when that answer was complete (see :attr:`start`)."""

    command: Command
    text: str
    timeout: float = 0.0
    after: Pending | None = None
    sent_at: float = 0.0
    response: Response | None = None
    done_at: float = 0.0
    cost: float = 0.0  # the referee's time queueing it (part of the request's overhead)
    received: list[str] | None = None  # the lines of its answer so far, clipped (made when one comes)
    _parser: ResponseParser | None = None

    @property
    def parser(self) -> ResponseParser:
        """The strict parser of its response, made when first needed: the usual one-line
        answer is taken by :meth:`Replies.feed` without one."""
        if self._parser is None:
            self._parser = ResponseParser(self.command.id)
        return self._parser

    @property
    def started(self) -> bool:
        """Whether the first line of its response has arrived."""
        return self._parser is not None and self._parser.started

    @property
    def start(self) -> float:
        """When the bot's time for this command begins: the later of the write that sent
        it and the end of the answer before it (the bot answers in order)."""
        after = self.after
        if after is not None and after.done_at > self.sent_at:
            return after.done_at
        return self.sent_at

    def excerpt(self) -> str:
        return "\n".join(self.received or ())


class Replies:
    """The stdout side of one bot: a line buffer, the commands in flight, the first fault.

    ``transcript`` may be replaced between games (the bot's log files switch).
    """

    def __init__(self, label: str, transcript: Transcript, max_line: int) -> None:
        self.label = label
        self.transcript = transcript
        self.buffer = LineBuffer(max_line)
        self.queue: deque[Pending] = deque()
        self.fault: BotFault | None = None
        self.last_command: str | None = None
        self._debug = log.isEnabledFor(logging.DEBUG)

    @property
    def pending(self) -> Pending | None:
        """The oldest command in flight (the one the next line answers), or None."""
        return self.queue[0] if self.queue else None

    def expect(self, command: Command, timeout: float = 0.0, text: str | None = None) -> Pending:
        """Register ``command`` (wire text ``text``, default ``str(command)``) as in flight,
        after any already in flight."""
        text = str(command) if text is None else text
        self.last_command = text
        queue = self.queue
        pending = Pending(command, text, timeout, queue[-1] if queue else None)
        queue.append(pending)
        return pending

    def abandon(self) -> None:
        """Forget the commands in flight (a timeout: the bot is broken and will be killed)."""
        self.queue.clear()

    def record(self, fault: BotFault) -> None:
        """Keep the first fault (the bot is broken from now on) and wake the request."""
        if self.fault is None:
            self.fault = fault
            self.transcript.line("!", str(fault))

    def feed(self, data: bytes | bytearray, at: float = 0.0) -> bool:
        """Take bytes from stdout, read at ``at`` (``time.perf_counter``: the moment the
        read returned, which is when a response they complete was there); False once the
        bot is broken (stop reading)."""
        buffer = self.buffer
        lines = buffer.complete_lines(data)
        if lines is not None:
            return self._on_lines(lines, at)
        buffer.push(data)
        while True:
            try:
                line = buffer.next_line()
            except ProtocolError as exc:
                self.record(self._protocol_fault(str(exc), None))
                return False
            if line is None:
                return True
            if not self._on_line(line, at):
                return False

    def eof(self, *, expected: bool) -> None:
        """The end of stdout; ``expected`` when the referee is closing the bot (after
        ``quit`` or a signal), where it is no fault unless a command was in flight."""
        partial = self.buffer.eof()
        pending = self.pending
        if expected and pending is None:
            return
        if pending is not None and pending.started:
            what = "closed its output in the middle of a response"
        elif partial:
            what = "closed its output in the middle of a line"
        else:
            what = "closed its output (exited or crashed)"
        received = pending.excerpt() if pending is not None and pending.received else None
        command = pending.text if pending is not None else self.last_command
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
        command = pending.text if pending is not None else self.last_command
        if pending is None:
            what += "; no command was in flight"
        crash = BotCrashed(self.label, command, what, received)
        self.record(crash)
        return crash

    def _on_lines(self, lines: list[str], at: float) -> bool:
        """:meth:`_on_line` for each line (False at the first fault), with a shortcut for
        the usual answer: one well-formed line with the expected id, then the empty line,
        to the oldest command in flight whose response has not started. The shortcut
        (:func:`~protocol.messages.one_line_response`) makes the Response the parser would;
        anything else goes line by line through the parser, which says what is wrong."""
        queue = self.queue
        transcript = self.transcript
        n = len(lines)
        i = 0
        while i < n:
            line = lines[i]
            if queue and i + 1 < n and line and not lines[i + 1] and not self._debug:
                pending = queue[0]
                response = one_line_response(line, pending.command.id) if pending._parser is None else None
                if response is not None:
                    if transcript.enabled:
                        transcript.line("<", line)
                        transcript.line("<", "")
                    pending.response = response
                    pending.done_at = at
                    queue.popleft()
                    i += 2
                    continue
            if not self._on_line(line, at):
                return False
            i += 1
        return True

    def _on_line(self, line: str, at: float) -> bool:
        if self.transcript.enabled:
            self.transcript.line("<", line)
        if self._debug:
            log.debug("%s < %s", self.label, line)
        queue = self.queue
        if not queue:
            try:
                check_idle_line(line)
            except ProtocolError as exc:
                self.record(self._protocol_fault(str(exc), line))
                return False
            return True
        pending = queue[0]
        if pending.received is None:
            pending.received = []
        pending.received.append(line[:EXCERPT])
        try:
            response = pending.parser.feed(line)
        except ProtocolError as exc:
            self.record(self._protocol_fault(str(exc), line))
            return False
        if response is not None:
            pending.done_at = at
            pending.response = response
            queue.popleft()
        return True

    def _protocol_fault(self, detail: str, received: str | None) -> BotProtocolError:
        pending = self.pending
        if pending is None:
            command = self.last_command
            if command is not None:
                detail = f"{detail} (after the response to this command was complete)"
        else:
            command = pending.text
            if received is None and pending.received:
                received = pending.excerpt()
            elif not pending.started and pending.after is not None and pending.after.response is not None:
                # Sent in one write with the command before it: a line after that
                # command's complete answer may be a stray line rather than a bad answer.
                detail = (
                    f"{detail} (the line came after the complete response to {pending.after.text!r}, "
                    "sent just before it: a stray line, or a malformed response to this command)"
                )
        return BotProtocolError(self.label, command, detail, received)
