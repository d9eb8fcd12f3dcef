"""Bytes to lines, and the one error tree of the protocol package.

This module does no I/O: a :class:`LineBuffer` is *fed* whatever bytes arrived and hands
back the complete lines they finish. Both ends use it: the referee on a bot's stdout, the
bot SDK on its stdin. Keeping it sans-I/O means every edge case (CRLF, a UTF-8 sequence
split across two reads, a hostile megabyte with no newline) is tested byte by byte
without a process.

The line-length cap exists so that a broken or hostile peer cannot make the other side
buffer without bound: the buffer refuses a line as soon as it holds more than the cap
without seeing a newline, not when the newline finally arrives.
"""

from __future__ import annotations

DEFAULT_MAX_LINE = 65536
"""The cap on one line, in bytes, not counting its terminator (``\\n`` or ``\\r\\n``)."""


class ProtocolError(Exception):
    """Base of every error in :mod:`protocol`: the peer broke the framing or sent a
    reply that does not mean what the command asks for. The message says exactly what
    was wrong, so it can be recorded as a forfeit reason as is."""


class LineTooLong(ProtocolError):
    """A line exceeded the cap before its newline arrived (or arrived longer than it)."""


class BadEncoding(ProtocolError):
    """A complete line is not valid UTF-8."""


class MalformedResponse(ProtocolError):
    """A bot's response breaks the GTP response framing (``=``/``?``, id, empty line)."""


class BadCommand(ProtocolError):
    """A command line (bot side) cannot be parsed: no name, or an id and nothing else."""


class BadReply(ProtocolError):
    """A well-framed response whose text is not a valid answer to its command."""


def clip(text: str, limit: int = 200) -> str:
    """``repr`` of *text* cut to about *limit* characters, for quoting peer input in
    error messages (a peer may send a 64 KiB line; the message must stay readable)."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


class LineBuffer:
    """Split a byte stream into ``\\n``-terminated lines decoded as UTF-8.

    Use :meth:`feed` to add bytes and collect the lines they complete; a ``\\r`` just
    before the ``\\n`` is dropped (CRLF peers). Errors are raised per line and the buffer
    stays usable afterwards:

    * :class:`BadEncoding`: the offending line is dropped, later lines come out normally;
    * :class:`LineTooLong`: the bytes of the long line are dropped and the buffer skips
      everything up to the next newline, so the stream resynchronises on the next line.

    When an error comes after some good lines of the same :meth:`feed`, those lines are
    returned first and the error is raised by the next call (``feed(b"")`` will do): no
    line is ever lost to an exception. :meth:`next_line` is the pull form that never
    needs this deferral.
    """

    def __init__(self, max_line: int = DEFAULT_MAX_LINE) -> None:
        if max_line < 1:
            raise ValueError(f"max_line must be positive, got {max_line}")
        self.max_line = max_line
        self._data = bytearray()
        self._skipping = False  # inside the rest of a line already reported too long
        self._scan_from = 0  # bytes of _data already searched for a newline
        self._pending_error: ProtocolError | None = None

    @property
    def has_partial(self) -> bool:
        """True when bytes of an unterminated line are pending (or being skipped)."""
        return bool(self._data) or self._skipping

    def push(self, data: bytes | bytearray) -> None:
        """Add *data* without extracting lines; pair with :meth:`next_line`."""
        self._data += data

    def feed(self, data: bytes | bytearray) -> list[str]:
        """Add *data*; return the lines it completes, oldest first, without terminators."""
        self._data += data
        lines: list[str] = []
        while True:
            try:
                line = self.next_line()
            except ProtocolError as error:
                if lines:
                    # The bad line's bytes are consumed already; keep the error for the
                    # next call so the good lines before it reach the caller now.
                    self._pending_error = error
                    return lines
                raise
            if line is None:
                return lines
            lines.append(line)

    def complete_lines(self, data: bytes | bytearray) -> list[str] | None:
        """The fast path of :meth:`feed` for the usual case, or None where it does not apply
        (then use :meth:`push` and :meth:`next_line`, and nothing was taken): nothing
        pending, and ``data`` whole lines within the cap that are valid UTF-8. Returns the
        same lines :meth:`feed` would; ``\\n`` never occurs inside a UTF-8 sequence, so
        splitting the decoded text splits the bytes at the same places."""
        if self._data or self._skipping or self._pending_error is not None:
            return None
        if not data.endswith(b"\n") or len(data) > self.max_line:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        lines = text.split("\n")
        lines.pop()
        if "\r" in text:
            lines = [line[:-1] if line.endswith("\r") else line for line in lines]
        return lines

    def next_line(self) -> str | None:
        """Pop one complete line from what was fed, or None if there is none yet.

        Raises :class:`LineTooLong` or :class:`BadEncoding` for the line concerned; the
        next call carries on with the following line.
        """
        if self._pending_error is not None:
            error, self._pending_error = self._pending_error, None
            raise error
        while True:
            newline = self._data.find(b"\n", self._scan_from)
            if newline < 0:
                self._scan_from = len(self._data)
                if self._skipping:
                    self._data.clear()
                    self._scan_from = 0
                    return None
                if self._partial_length() > self.max_line:
                    held = len(self._data)
                    self._data.clear()
                    self._scan_from = 0
                    self._skipping = True
                    raise LineTooLong(
                        f"line longer than {self.max_line} bytes: {held} bytes received without a newline"
                    )
                return None
            raw = bytes(self._data[:newline])
            del self._data[: newline + 1]
            self._scan_from = 0
            if self._skipping:
                self._skipping = False
                continue
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if len(raw) > self.max_line:
                raise LineTooLong(f"line longer than {self.max_line} bytes: {len(raw)} bytes")
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadEncoding(
                    f"line is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset "
                    f"{exc.start}: {exc.reason}): {clip(raw.decode('utf-8', 'replace'))}"
                ) from None

    def eof(self) -> bool:
        """The stream ended. Return True if an unterminated line was pending (it is
        discarded: a line only counts once its newline arrives), False for a clean end.
        An error still deferred by :meth:`feed` is raised here rather than lost."""
        if self._pending_error is not None:
            error, self._pending_error = self._pending_error, None
            raise error
        pending = self.has_partial
        self._data.clear()
        self._scan_from = 0
        self._skipping = False
        return pending

    def _partial_length(self) -> int:
        """Length of the pending partial line as the cap counts it: a final ``\\r`` may be
        the first half of a CRLF terminator, so it is not counted yet."""
        n = len(self._data)
        if n and self._data[-1] == 0x0D:
            n -= 1
        return n


# Control characters GTP tells an engine to drop: everything below space and DEL, except
# tab (turned into a space below) and newline (already the line separator).
_DROP_CONTROLS = {c: None for c in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F]}


def preprocess_command_line(line: str) -> str | None:
    """Clean one incoming command line the way GTP asks a bot to, or None to skip it.

    In order: drop control characters except tab (so a stray CR goes too), turn tabs
    into spaces, cut a ``#`` comment, trim. A line left empty is skipped, so blank lines
    and comment lines produce no response at all.
    """
    cleaned = line.translate(_DROP_CONTROLS).replace("\t", " ")
    hash_at = cleaned.find("#")
    if hash_at >= 0:
        cleaned = cleaned[:hash_at]
    cleaned = cleaned.strip(" ")
    return cleaned or None
