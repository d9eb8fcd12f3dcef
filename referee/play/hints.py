"""Hints for the first-day mistakes of a bot author, from what the referee saw.

The faults themselves are exact (a timeout, a start that failed with ``[Errno 8] Exec
format error``) but say nothing of the usual cause, which is almost always one of four:
the bot does not flush stdout, its ``#!`` line ends in a Windows ``\\r``, the command is a
script file rather than its interpreter, or the bot prints a banner or debug text on stdout.
Each function here turns what was observed into a one-line hint, or ``None`` when the
observation does not point at that cause.

Pure: no I/O. The caller gives what it read (the first bytes of the program file, whether
the process was still alive); :func:`start_hints` combines them for a failed start, the
place ``vastuz check`` and the referee's start-failure messages put them.
"""

from __future__ import annotations

import errno
import shlex
from collections.abc import Sequence

from referee.play.faults import BotProtocolError, BotStartError, BotTimeout

INTERPRETERS = {
    ".py": "python",
    ".js": "node",
    ".mjs": "node",
    ".pl": "perl",
    ".rb": "ruby",
    ".sh": "bash",
    ".lua": "lua",
    ".php": "php",
    ".java": "java",
    ".jar": "java -jar",
}
"""Script suffixes and the command that runs such a file."""

SILENT = "nothing arrived on stdout: does the bot flush after each answer?"
CRLF = "Windows line endings in the #! line: run dos2unix {program}"
STDOUT_TEXT = "stdout is for answers only; log to stderr"


def script_hint(program: str, head: bytes | None = None) -> str | None:
    """A script file given as the command (``mybot.py``): how to run it instead. Not for a
    file whose ``#!`` line names its interpreter (that one may be run as it is)."""
    for suffix, interpreter in INTERPRETERS.items():
        if program.lower().endswith(suffix):
            if head is not None and head.startswith(b"#!"):
                return None  # it names its interpreter (a CRLF one has a hint of its own)
            return f"run it as `{interpreter} {shlex.quote(program)}`"
    return None


def crlf_hint(program: str, head: bytes | None) -> str | None:
    """A ``#!`` line ending in ``\\r\\n``: the kernel looks for an interpreter named
    ``perl\\r``, and the start fails with "No such file or directory" for a file that exists."""
    if head is None or not head.startswith(b"#!"):
        return None
    first = head.split(b"\n", 1)[0]
    if first.endswith(b"\r"):
        return CRLF.format(program=shlex.quote(program))
    return None


def silent_hint(alive: bool, received: str | None) -> str | None:
    """No answer in time, nothing at all on stdout, and the process still running: the
    answer is most likely sitting in the bot's stdout buffer (a pipe is fully buffered)."""
    if alive and not received:
        return SILENT
    return None


def stdout_text_hint(received: str | None) -> str | None:
    """Text on stdout that is not an answer (``Hello, I am mybot``, ``debug: ...``): a banner
    or a debug print. An answer starts with ``=`` or ``?``."""
    if not received:
        return None
    text = received.strip().strip("'\"")
    first = text.split("\\n", 1)[0].split("\n", 1)[0].strip()
    if first and first[0] not in "=?":
        return STDOUT_TEXT
    return None


def start_hints(
    argv: Sequence[str], head: bytes | None, failure: BaseException, *, alive: bool | None = None
) -> list[str]:
    """Every hint that fits a failed start: *argv* the bot's command, *head* the first bytes
    of its program file (None if unreadable or not a file), *failure* what the start raised
    (a :class:`BotStartError` from the spawn, with the ``OSError`` as its cause, or the
    handshake's :class:`BotFault`), *alive* whether the process was still running then."""
    program = argv[0] if argv else ""
    hints: list[str] = []
    if isinstance(failure, BotStartError):
        cause = failure.__cause__
        code = cause.errno if isinstance(cause, OSError) else None
        for hint in (crlf_hint(program, head), script_hint(program, head)):
            if hint is not None and (code is None or code in (errno.ENOENT, errno.ENOEXEC, errno.EACCES)):
                hints.append(hint)
    elif isinstance(failure, BotTimeout):
        hint = silent_hint(bool(alive), failure.received)
        if hint is not None:
            hints.append(hint)
    elif isinstance(failure, BotProtocolError):
        hint = stdout_text_hint(failure.received)
        if hint is not None:
            hints.append(hint)
    return hints
