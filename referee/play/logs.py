"""Per-game log files of a bot: its stderr, and the protocol transcript, both capped.

A bot decides how much it writes to stderr, so writing it must never fail or grow without
bound: past the cap one note is written and the rest is counted and dropped.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO


class CappedLog:
    """An append-only log file with a size cap. Past the cap one ``[truncated]`` note is
    written and further data is counted and dropped, so writing never fails or grows
    without bound. ``path`` None discards everything."""

    def __init__(self, path: Path | None, cap: int) -> None:
        self.path = path
        self.cap = cap
        self.written = 0
        self.dropped = 0
        self._file: IO[bytes] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(path, "ab", buffering=0)  # noqa: SIM115 - closed in close()

    def write(self, data: bytes | bytearray) -> None:
        if self._file is None:
            return
        room = self.cap - self.written
        if room > 0:
            chunk = data[:room]
            self._file.write(chunk)
            self.written += len(chunk)
            data = data[room:]
        if data:
            if not self.dropped:
                self._file.write(f"\n[truncated: log capped at {self.cap} bytes]\n".encode())
            self.dropped += len(data)

    def close(self) -> None:
        if self._file is not None:
            if self.dropped:
                self._file.write(f"[{self.dropped} further bytes dropped]\n".encode())
            self._file.close()
            self._file = None


class Transcript:
    """Every protocol line with its direction (``>`` to the bot, ``<`` from it, ``!`` an
    event) and the seconds since the transcript was opened."""

    def __init__(self, path: Path | None, cap: int) -> None:
        self._log = CappedLog(path, cap)
        self._t0 = time.perf_counter()
        self.enabled = path is not None
        if self.enabled:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            self._log.write(f"# transcript opened {stamp}\n".encode())

    def line(self, direction: str, text: str) -> None:
        if self.enabled:
            self._log.write(f"{time.perf_counter() - self._t0:10.6f} {direction} {text}\n".encode())

    def close(self) -> None:
        self._log.close()
