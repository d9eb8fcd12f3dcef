"""Per-game log files of a bot: its stderr, and the protocol transcript, both capped.

A bot decides how much it writes to stderr, so writing it must never fail or grow without
bound: past the cap one note is written and the rest is counted and dropped. A log that
cannot be written at all (a full disk, a vanished folder) is given up with a note kept in
memory (:attr:`CappedLog.problem`): a bot's log is never worth a game or a tournament.

Two more limits across the games of a run: a :class:`LogBudget` is the total a bot's logs
may take over its life (every process of one bot in a tournament shares one), and a
:class:`Tail` keeps the last couple of kilobytes of a bot's stderr in memory, so that a bot
that dies can be quoted in the fault message, and its record keep the end of its stderr
(:mod:`referee.play.forensics`), whatever happened to its log file.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import IO

STDERR_TAIL = 2048
"""Bytes of a bot's most recent stderr kept in memory (a fault's record keeps them)."""
TAIL_EXCERPT = 160
"""Characters of that tail quoted in a fault message (and so in the record's reason)."""


class LogBudget:
    """How many bytes the logs of one bot may still take, across all its games and files."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.used = 0
        self.reached = False
        self.noted = False

    def take(self, wanted: int) -> int:
        """Grant up to ``wanted`` bytes; fewer (or none) once the total is reached."""
        granted = max(0, min(wanted, self.total - self.used))
        self.used += granted
        if granted < wanted:
            self.reached = True
        return granted


class Tail:
    """The last ``size`` bytes written to it (a bot's stderr), for fault messages."""

    def __init__(self, size: int = STDERR_TAIL) -> None:
        self.size = size
        self._data = bytearray()
        self.cut = False  # earlier bytes were dropped: the first line may be partial

    def add(self, data: bytes | bytearray) -> None:
        if len(data) > self.size:
            self.cut = True
        self._data += data[-self.size :]
        if len(self._data) > self.size:
            self.cut = True
            del self._data[: len(self._data) - self.size]

    def text(self) -> str | None:
        """The tail as text, for a record: from its first whole line (``...`` on a line of
        its own first when earlier output was dropped), invalid UTF-8 replaced, trailing
        blank lines dropped; None if the bot wrote nothing but blanks."""
        data = bytes(self._data)
        if self.cut:
            newline = data.find(b"\n")
            data = b"...\n" + (data[newline + 1 :] if newline != -1 else data)
        text = data.decode("utf-8", "replace").rstrip()
        return text if text.strip() and text != "..." else None

    def excerpt(self, limit: int = TAIL_EXCERPT) -> str | None:
        """The end of the tail on one line (lines joined by `` | ``), at most ``limit``
        characters, quoted with ``repr`` (so no control character reaches a terminal);
        None if the bot wrote nothing but blanks."""
        lines = [line.strip() for line in self._data.decode("utf-8", "replace").splitlines()]
        text = " | ".join(line for line in lines if line)
        if not text:
            return None
        if len(text) > limit:
            text = "..." + text[-(limit - 3) :]
        return repr(text)


class CappedLog:
    """An append-only log file with a size cap. Past the cap one ``[truncated]`` note is
    written and further data is counted and dropped, so writing never fails or grows
    without bound. ``path`` None discards everything. With a ``budget``, the bot's total
    across all its logs is capped too.

    With ``lazy``, a file that does not exist yet is made at the first write, not before:
    a bot that writes nothing to stderr in a game leaves no empty file (a run of instant
    bots made two a game, most of the cost of a game outside its turns). Something
    already at the path (a symlink, a device, an earlier file) is opened at once, as
    without ``lazy``, so its problem is noted whether or not the bot writes.

    An error of the file system (opening or writing) gives the file up: the rest is
    dropped and :attr:`problem` says why, for the game's record."""

    def __init__(
        self, path: Path | None, cap: int, budget: LogBudget | None = None, *, lazy: bool = False
    ) -> None:
        self.path = path
        self.cap = cap
        self.budget = budget
        self.written = 0
        self.dropped = 0
        self.problem: str | None = None
        self._file: IO[bytes] | None = None
        self._pending = False  # lazy: the file is opened by the first write
        if path is not None:
            if lazy and not os.path.lexists(path):
                self._pending = True
            else:
                self._open(path)

    def _open(self, path: Path) -> None:
        # Never through a symlink: a bot could point its log at a file of ours.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            try:
                fd = os.open(path, flags, 0o644)
            except FileNotFoundError:  # the folder first
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(path, flags, 0o644)
            self._file = os.fdopen(fd, "ab", buffering=0)
        except OSError as exc:
            self._give_up("cannot be opened", exc)

    def write(self, data: bytes | bytearray) -> None:
        if self._pending and data:
            self._pending = False
            assert self.path is not None
            self._open(self.path)
        if self._file is None:
            if self.path is not None:
                self.dropped += len(data)
            return
        room = self.cap - self.written
        if self.budget is not None:
            room = self.budget.take(min(room, len(data)))
        if room > 0:
            chunk = data[:room]
            if not self._put(chunk):
                self.dropped += len(data)
                return
            self.written += len(chunk)
            data = data[room:]
        if data:
            if not self.dropped:
                if self.written < self.cap:
                    assert self.budget is not None
                    total = self.budget.total
                    note = f"\n[truncated: this bot's logs reached their total cap of {total} bytes]\n"
                else:
                    note = f"\n[truncated: log capped at {self.cap} bytes]\n"
                self._put(note.encode())
            self.dropped += len(data)

    def close(self) -> None:
        self._pending = False  # a file never written stays unmade
        if self._file is not None:
            if self.dropped:
                self._put(f"[{self.dropped} further bytes dropped]\n".encode())
            if self._file is not None:
                try:
                    self._file.close()
                except OSError as exc:
                    self._give_up("cannot be closed", exc)
            self._file = None

    def _put(self, data: bytes | bytearray) -> bool:
        """Write to the file; on an error give the file up (False)."""
        assert self._file is not None
        try:
            self._file.write(data)
        except OSError as exc:
            self._give_up("could not be written", exc)
            return False
        return True

    def _give_up(self, what: str, exc: OSError) -> None:
        if self.problem is None:
            self.problem = f"log {self.path} {what} ({exc}); it is truncated there"
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None


class Transcript:
    """Every protocol line with its direction (``>`` to the bot, ``<`` from it, ``!`` an
    event) and the seconds since the transcript was opened. The header gives that moment
    on the referee's monotonic clock (``time.perf_counter``, CLOCK_MONOTONIC on Linux), so
    a line can be set beside what another process stamped on the same clock."""

    def __init__(self, path: Path | None, cap: int, budget: LogBudget | None = None) -> None:
        self._log = CappedLog(path, cap, budget)
        self._t0 = time.perf_counter()
        self.enabled = path is not None
        if self.enabled:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            self._log.write(f"# transcript opened {stamp}, monotonic clock {self._t0:.6f}\n".encode())

    @property
    def problem(self) -> str | None:
        return self._log.problem

    def line(self, direction: str, text: str) -> None:
        if self.enabled:
            self._log.write(f"{time.perf_counter() - self._t0:10.6f} {direction} {text}\n".encode())

    def close(self) -> None:
        self._log.close()
