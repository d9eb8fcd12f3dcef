"""Failure forensics: the last protocol lines of both bots and the end of the faulting bot's
stderr, kept in the record of a game that ended in a fault.

A forfeit's reason names the command and quotes what the bot sent, but the question after a
crash is usually what led up to it, and the stderr log or transcript may be off, capped or
lost. So every bot process keeps a small ring of its most recent protocol traffic, whether
or not transcripts are on, and a game that ends in a fault copies it into its record
(:class:`~referee.play.records.Forensics`); a game without a fault never looks at it.

The ring is cheap on purpose, since it sits in the request hot path
(:class:`~referee.play.pipes.BotPipes`): :meth:`~referee.play.pipes.BotPipes.send` appends
the command's wire text (a ``str`` it has at hand) and each read appends the bytes it read
(a ``bytes`` chunk, however many lines it holds). The type says the direction, so nothing
is wrapped, stamped or decoded there; :func:`protocol_lines` turns the ring into lines only
when a fault wants them. A ring of :data:`RECENT_LINES` entries holds at least as many lines
(a read holds one line or more) but for a line split across reads, and at most
:data:`RECENT_LINES` reads of 64 KiB are kept alive per bot.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from referee.play.player import Player
from referee.play.records import Forensics, Termination

RECENT_LINES = 30
"""Protocol lines per bot kept in a faulted game's record (commands and answer lines,
the empty line that ends each answer included)."""
LINE_CHARS = 200
"""Characters of one protocol line kept; a longer line is cut, saying how much was cut."""

SENT = "> "
RECEIVED = "< "
PARTIAL = "<? "
"""Prefix of the last bytes a bot wrote without ending their line (yet)."""

Recent = deque[str | bytes]
"""A bot process's ring: a ``str`` is a command sent, ``bytes`` a chunk read from stdout."""


def new_ring() -> Recent:
    return deque(maxlen=RECENT_LINES)


def _clip(text: str) -> str:
    if len(text) <= LINE_CHARS:
        return text
    return f"{text[:LINE_CHARS]}... [{len(text) - LINE_CHARS} more characters]"


def protocol_lines(ring: Iterable[str | bytes], limit: int = RECENT_LINES) -> list[str]:
    """The ring as its last ``limit`` lines, oldest first: ``> `` a command sent, ``< `` a
    line received (``< `` alone: the empty line that ends an answer), ``<? `` what the bot
    wrote after its last end of line. Consecutive reads are joined before they are split,
    so a line that came in two reads is one line; bytes that are not UTF-8 are replaced."""
    lines: list[str] = []
    chunks: list[bytes] = []

    def flush() -> None:
        if not chunks:
            return
        data = b"".join(chunks)
        chunks.clear()
        parts = data.split(b"\n")
        tail = parts.pop()  # after the last newline: b"" when the read ended a line
        for part in parts:
            lines.append(RECEIVED + _clip(part.rstrip(b"\r").decode("utf-8", "replace")))
        if tail:
            lines.append(PARTIAL + _clip(tail.decode("utf-8", "replace")))

    for entry in ring:
        if isinstance(entry, str):
            flush()
            lines.append(SENT + _clip(entry))
        else:
            chunks.append(entry)
    flush()
    return lines[-limit:]


def wants_forensics(termination: Termination) -> bool:
    """Whether a game that ended so keeps forensics: every bot fault, but a resignation
    (a decision, not a failure)."""
    return termination.is_forfeit and termination is not Termination.RESIGN


def forensics_of(bots: Sequence[Player], seat: int) -> Forensics | None:
    """What the bot processes among ``bots`` (by seat) hold now: each one's last protocol
    lines, and the stderr tail of ``seat``, the bot at fault. None when neither is a
    process (the in-memory players of the tests have no pipes)."""
    from referee.play.process import BotProcess  # here: the process's pipes import the ring above

    if not any(isinstance(bot, BotProcess) for bot in bots):
        return None
    lines = [protocol_lines(bot.pipes.recent) if isinstance(bot, BotProcess) else [] for bot in bots]
    faulty = bots[seat]
    stderr = faulty.stderr_text() if isinstance(faulty, BotProcess) else None
    return Forensics(lines=lines, stderr=stderr)
