"""The append-only results file of a tournament, and the lock that guards its folder.

Durability contract: a record that :meth:`ResultsFile.append` has returned from is on disk
(written, flushed and ``fsync``-ed) and is never rewritten. A crash or a kill can at worst
leave a *torn last line* (a record cut off mid-write): :meth:`ResultsFile.load` detects it
(no final newline, or text that is not JSON) and drops it, and :meth:`ResultsFile.repair`
truncates it away before anything is appended, so a torn line never glues itself to the
next record. A damaged line anywhere *else*, or a whole line that is JSON but not a game
record (even the last), is not something we produce; it is reported, with its line number
and what is wrong, instead of being skipped silently.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, NoReturn, TextIO, TypeVar

from referee.errors import ResultsError
from referee.play.records import GameRecord, GameSummary, parse_line, parse_summary

R = TypeVar("R")


@dataclass
class Loaded(Generic[R]):
    """What a results file held: the records (whole, or their summaries), and what was
    wrong with its tail, if anything."""

    records: list[R] = field(default_factory=list)
    torn_tail: bytes = b""  # the bytes of a torn last line (empty when the file was whole)
    valid_length: int = 0  # byte length of the whole records: where a torn tail starts


class ResultsFile:
    """``results.jsonl`` (or a match's ``games.jsonl``): one game record per line, appended
    as games finish. Lines are turned into records and back only by
    :func:`referee.play.records.parse_line` and :meth:`GameRecord.to_json`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def load(self) -> Loaded[GameRecord]:
        """Every whole record, in file order; a torn last line is reported, not returned."""
        return self._scan(parse_line)

    def summaries(self) -> Loaded[GameSummary]:
        """The :class:`~referee.play.records.GameSummary` of every record, in file order:
        what standings and resume need, at a fraction of the time and memory of
        :meth:`load` (the turns are not parsed)."""
        return self._scan(parse_summary)

    def _scan(self, parse: Callable[[bytes], R]) -> Loaded[R]:
        """One pass over the file, a line at a time: the cost is linear in its size and the
        only memory kept is what ``parse`` returns."""
        out: Loaded[R] = Loaded()
        try:
            fh = open(self.path, "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            return out
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        failed: tuple[int, bytes, str] | None = None  # a bad line, fatal unless it is the last
        pos = 0
        try:
            with fh:
                for lineno, raw in enumerate(fh, start=1):
                    if failed is not None:
                        if raw.strip():
                            self._damaged(*failed)
                        continue  # blank lines after a bad last line: still a torn tail
                    if not raw.endswith(b"\n"):
                        failed = (lineno, raw, "no newline: the write was cut off")
                        continue
                    if raw.strip():
                        try:
                            out.records.append(parse(raw))
                        except ValueError as exc:
                            failed = (lineno, raw, str(exc))
                            continue
                    pos += len(raw)
                    out.valid_length = pos
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        if failed is not None:
            lineno, raw, why = failed
            if raw.endswith(b"\n") and _is_json(raw):
                # A whole line that is JSON but not a record is not a torn write: it was
                # written by something else, and dropping it silently would lose data.
                self._damaged(lineno, raw, why)
            with open(self.path, "rb") as again:
                again.seek(out.valid_length)
                out.torn_tail = again.read()
        return out

    def last_records(self, count: int) -> list[GameRecord]:
        """The whole records of the last ``count`` lines (a torn or damaged line among them
        is left out: :meth:`load` is the reader that reports those). One pass that keeps
        only those lines, so a page of the latest games costs little even at 100,000."""
        tail: deque[bytes] = deque(maxlen=count)
        try:
            with open(self.path, "rb") as fh:
                for raw in fh:
                    if raw.endswith(b"\n") and raw.strip():
                        tail.append(raw)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        out = []
        for raw in tail:
            try:
                out.append(parse_line(raw))
            except ValueError:
                continue
        return out

    def _damaged(self, lineno: int, raw: bytes, why: str) -> NoReturn:
        raise ResultsError(
            f"{self.path}: line {lineno} is damaged ({why}); the file was edited or "
            f"corrupted outside the arena. Fix or remove that line and run again."
        )

    def repair(self) -> Loaded[GameSummary]:
        """Load the summaries, and cut a torn last line off the file so appends start on a
        fresh line."""
        loaded = self.summaries()
        if loaded.torn_tail:
            with open(self.path, "r+b") as fh:
                fh.truncate(loaded.valid_length)
                fh.flush()
                os.fsync(fh.fileno())
        return loaded

    def append(self, record: GameRecord) -> None:
        """Write one record as one line and make it durable before returning.

        Blocking (it ``fsync``\\ s): from trio, call it in a worker thread so no bot's clock
        is charged for our disk.
        """
        line = record.to_json() + "\n"
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


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


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
        fh = open(self.path, "a+")  # noqa: SIM115 - held until release()
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

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
