"""What every GTP answerer of this package shares: a table of commands, each line in and
its whole answer out (no I/O), and the blocking loop over a pipe.

:class:`~protocol.bot.BotSession` (a bot's side) and :class:`~protocol.rules.RulesSession`
(the rules helper) differ only in their commands and in what an unexpected error of a
handler says; the dispatch, the argument counts, the one-line ``?`` messages and the loop
that never waits to fill a buffer are here once, so both answer a malformed line alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

from protocol.framing import LineBuffer, ProtocolError, preprocess_command_line
from protocol.messages import Command, Response, parse_command

READ_CHUNK = 65536

Handler = Callable[[tuple[str, ...]], str]
"""A command's meaning: its arguments in, the answer's text out (raise :class:`Refusal` for
a ``?``)."""


class Refusal(Exception):
    """A handler's ``?`` answer, with the message the other side reads."""


def one_line(message: str) -> str:
    """A ``?`` message must fit on one line: whatever whitespace it has collapsed."""
    return " ".join(message.split()) or "error"


class Session:
    """Lines in, answers out: ``commands`` maps each name to (fewest arguments, most
    arguments, usage, handler); :meth:`failed` says what an unexpected error of a handler
    answers. ``finished`` once ``quit`` has been answered."""

    def __init__(self) -> None:
        self.finished = False
        self._handlers: dict[str, tuple[int, int, str, Handler]] = {}

    @property
    def commands(self) -> list[str]:
        """Every command this session answers, sorted."""
        return sorted(self._handlers)

    def handle_line(self, line: str) -> str | None:
        """Answer one raw input line; None for a line GTP says to skip (blank, comment)."""
        cleaned = preprocess_command_line(line)
        if cleaned is None:
            return None
        try:
            command = parse_command(cleaned)
        except ProtocolError as error:
            return self.framing_error(error)
        return self.handle(command)

    def handle(self, command: Command) -> str:
        """Answer one parsed command, echoing its id."""
        entry = self._handlers.get(command.name)
        if entry is None:
            return Response(False, command.id, "unknown command").format()
        low, high, usage, handler = entry
        if not low <= len(command.args) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            usage = f" ({usage})" if usage else ""
            text = f"{command.name} takes {want} argument(s){usage}, got {len(command.args)}"
            return self.answer(command, False, text)
        try:
            return self.answer(command, True, handler(command.args))
        except Refusal as refusal:
            return self.answer(command, False, str(refusal))
        except Exception as error:  # a bug behind a handler must not end the loop
            return self.answer(command, False, self.failed(error))

    def failed(self, error: Exception) -> str:
        """The ``?`` message of an unexpected error of a handler."""
        return f"internal error: {type(error).__name__}: {error}"

    def framing_error(self, error: ProtocolError) -> str:
        """The answer to an input line that could not be read (too long, not UTF-8, no
        command); its id, if any, is unknown."""
        return Response(False, None, one_line(str(error))).format()

    def answer(self, command: Command, ok: bool, text: str) -> str:
        if not ok:
            text = one_line(text)
        try:
            return Response(ok, command.id, text).format()
        except ValueError as error:  # the text would break the framing (a blank line in it)
            return Response(False, command.id, one_line(str(error))).format()


def serve(session: Session, source: BinaryIO, sink: BinaryIO) -> None:
    """Answer every command on ``source`` until ``quit`` or the end of input, flushing after
    each answer. Reads what is available (never waits to fill a buffer), so a peer that
    writes one command and waits for its answer is answered at once. Returns quietly when
    the peer has closed ``sink``: nobody is left to answer."""
    read: Callable[[int], bytes] = getattr(source, "read1", source.read)
    buffer = LineBuffer()
    try:
        while not session.finished:
            chunk = read(READ_CHUNK)
            if not chunk:
                return
            buffer.push(chunk)
            while not session.finished:
                try:
                    line = buffer.next_line()
                except ProtocolError as error:
                    answer: str | None = session.framing_error(error)
                else:
                    if line is None:
                        break
                    answer = session.handle_line(line)
                if answer is not None:
                    sink.write(answer.encode("utf-8"))
                    sink.flush()
    except BrokenPipeError:
        return
