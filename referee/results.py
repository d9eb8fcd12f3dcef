"""The append-only results file of a tournament, and the lock that guards its folder.

Durability contract: a record that :meth:`ResultsFile.append` has returned from is on disk
(written, flushed and ``fsync``-ed) and is never rewritten. A crash or a kill can at worst
leave a *torn last line* (a record cut off mid-write): :meth:`ResultsFile.load` detects it
(no final newline, or text that is not JSON) and drops it, and :meth:`ResultsFile.repair`
truncates it away before anything is appended, so a torn line never glues itself to the
next record. A damaged line anywhere *else* is not something we produce; it is reported,
with its line number, instead of being skipped silently.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .errors import ResultsError


@dataclass
class Loaded:
    """What a results file held: the records, and what was wrong with its tail, if anything."""

    records: list[dict[str, Any]] = field(default_factory=list)
    torn_tail: bytes = b""  # the bytes of a torn last line (empty when the file was whole)
    valid_length: int = 0  # byte length of the whole records: where a torn tail starts


class ResultsFile:
    """``results.jsonl``: one JSON object per line, appended as games finish."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def load(self) -> Loaded:
        """Every whole record, in file order; a torn last line is reported, not returned."""
        out = Loaded()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return out
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        pos = 0
        lineno = 0
        while pos < len(data):
            end = data.find(b"\n", pos)
            lineno += 1
            last = end == -1 or data[end + 1:].strip() == b""
            chunk = data[pos:] if end == -1 else data[pos:end]
            try:
                if end == -1:
                    raise ValueError("no newline: the write was cut off")
                record = json.loads(chunk)
                if not isinstance(record, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                if last:
                    out.torn_tail = data[pos:]
                    break
                raise ResultsError(
                    f"{self.path}: line {lineno} is damaged ({exc}); the file was edited or "
                    f"corrupted outside the arena. Fix or remove that line and run again."
                ) from None
            if chunk.strip():
                out.records.append(record)
            pos = end + 1
            out.valid_length = pos
        return out

    def repair(self) -> Loaded:
        """Load, and cut a torn last line off the file so appends start on a fresh line."""
        loaded = self.load()
        if loaded.torn_tail:
            with open(self.path, "r+b") as fh:
                fh.truncate(loaded.valid_length)
                fh.flush()
                os.fsync(fh.fileno())
        return loaded

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line and make it durable before returning.

        Blocking (it ``fsync``\\ s): from trio, call it in a worker thread so no bot's clock
        is charged for our disk.
        """
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # O_APPEND: each write lands at the end even if something else appended meanwhile.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = line.encode("utf-8")
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)


class FolderLock:
    """An exclusive lock on an output folder, so two runs never write one results file.

    ``flock`` is released by the kernel when the process dies, so a killed run never
    leaves a stale lock behind.
    """

    def __init__(self, folder: Path | str) -> None:
        self.path = Path(folder) / ".lock"
        self._fh: TextIO | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise ResultsError(
                f"{self.path.parent}: another run is writing to this folder (lock {self.path} is held)"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None

    def __enter__(self) -> "FolderLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
