"""The append-only results file of a tournament, and the lock that guards its folder.

Durability contract: a record that :meth:`Appender.append` has returned from is on disk
(written, flushed and ``fsync``-ed) and is never rewritten. :meth:`Appender.write` is the
same without the ``fsync``: the record is in the file (a kill or a crash of the writer cannot
lose it; only one of the operating system can), and on disk at the next :meth:`Appender.sync`
(a run syncs a tenth of a second after a game at most, and when it ends: a group commit, see
:class:`~referee.tournament.runner.Tournament`). A crash or a kill can at worst leave a
*torn last line* (a record cut off mid-write, no final newline): :meth:`ResultsFile.load`
reports it and :meth:`ResultsFile.repair` sets it aside in a file of its own (named, never
lost) before anything is appended, so a torn line never glues itself to the next record.

Integrity: a bot runs as the referee's user and may reach the output folder. The run keeps
the results file open while it plays (:class:`Appender`) and checks before each append that
the path is still that file, as long as the run left it: deleted, replaced, truncated or
appended to by anything else, the run stops with a clear error, and what it wrote is saved
in a file of its own. Nothing is opened through a symlink. A damaged line (not a record) is
skipped and named (:attr:`Loaded.skipped`), never rated and never silently dropped; every
line is read in bounded memory, however long.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO, Generic, TypeVar

from referee.errors import ResultsError
from referee.play.records import GameRecord, GameSummary, parse_line, parse_summary
from referee.tournament.store.files import LOCK, open_nofollow
from referee.tournament.store.summary_log import SummaryLog

R = TypeVar("R")

MAX_LINE = 64 << 20
READ_BUFFER = 1 << 16
"""Bytes read at a time when a results file is scanned: a record is about 10 KB, so the
default 8 KB buffer took two reads a line, and the reads were most of a scan's cost."""
"""The longest line read as a record: a record is far shorter; a longer line is damage, and
is skipped without being held in memory."""


@dataclass(frozen=True)
class Skipped:
    """A line that is not a record: its number and what is wrong with it."""

    lineno: int
    why: str

    def __str__(self) -> str:
        return f"line {self.lineno} ({self.why})"


@dataclass(frozen=True)
class LinesSeen:
    """Where a scan found the last record lines of a results file: ``positions``, the
    ``(offset, length)`` of each of the last ones (at most ``positions.maxlen``; blank lines
    are none, damaged ones are), and ``end``, where the whole lines ended. ``identity`` is
    the file's (device, inode, size, modification time) when the scan began: a reader that
    finds the file so knows its lines without reading it again (appends since are read from
    ``end``)."""

    identity: tuple[int, int, int, int]
    positions: deque[tuple[int, int]]
    end: int


def file_identity(fd: int) -> tuple[int, int, int, int]:
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclass
class Loaded(Generic[R]):
    """What a results file held: the records (whole, or their summaries), the lines that
    are not records, and a torn tail (the bytes after the last newline), if any."""

    records: Sequence[R] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    torn: int = 0  # bytes of a torn last line (0 when the file ends with a newline)
    valid_length: int = 0  # where the torn tail starts: just after the last newline
    lines: LinesSeen | None = None  # where the last record lines are, when asked for

    def skipped_line(self, path: Path, shown: int = 5) -> str | None:
        """One line naming the skipped lines, or None."""
        if not self.skipped:
            return None
        names = ", ".join(str(s) for s in self.skipped[:shown])
        more = f" and {len(self.skipped) - shown} more" if len(self.skipped) > shown else ""
        return (
            f"{path.name}: {len(self.skipped)} line(s) are not game records and are not rated: "
            f"{names}{more}; they were written outside the arena (edited, pasted, or by a bot)"
        )


@dataclass
class Picked:
    """What :meth:`ResultsFile.pick` found: how many records the file holds, the first's
    game id, the records of the game id asked for (with their numbers, from 1) and the
    record of the number asked for."""

    total: int = 0
    first_id: str | None = None
    found: list[tuple[int, GameRecord]] = field(default_factory=list)
    numbered: GameRecord | None = None


class ResultsFile:
    """``results.jsonl``: one game record per line, appended as games finish. Lines are
    turned into records and back only by :func:`referee.play.records.parse_line` and
    :meth:`GameRecord.to_json`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def load(self) -> Loaded[GameRecord]:
        """Every whole record, in file order; damaged lines and a torn tail are reported."""
        return self._scan(parse_line)

    def each(self, parse: Callable[[bytes], R], add: Callable[[R], None]) -> Loaded[R]:
        """Every whole record, in file order, made by ``parse`` from its line (which raises
        ``ValueError`` for a damaged one, as :func:`~referee.play.records.parse_line`)
        and handed to ``add`` as it is read, not kept (:attr:`Loaded.records` is empty):
        for a reader that keeps less of each game than its record (an export, a page of a
        long run), in the memory of one record at a time. Damaged lines and a torn tail
        are reported as by :meth:`load`."""
        return self._scan(parse, 0, add)

    def summaries(self, *, positions: int = 0) -> Loaded[GameSummary]:
        """The :class:`~referee.play.records.GameSummary` of every record, in file order:
        what standings and resume need, at a fraction of the time and memory of
        :meth:`load` (the turns are not parsed). ``positions``: also where the last that
        many record lines are (:attr:`Loaded.lines`), for a page's replays."""
        log = SummaryLog()  # a run keeps them: in columns (see summary_log.py)
        loaded = self._scan(parse_summary, positions, log.append)
        loaded.records = log
        return loaded

    def _open(self) -> BinaryIO | None:
        try:
            return os.fdopen(open_nofollow(self.path, os.O_RDONLY), "rb", buffering=READ_BUFFER)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None

    def _scan(
        self, parse: Callable[[bytes], R], positions: int = 0, add: Callable[[R], None] | None = None
    ) -> Loaded[R]:
        """One pass over the file, a line at a time: the cost is linear in its size and the
        only memory kept is what ``parse`` returns (and at most one line), and the last
        ``positions`` lines' places. The records go in a list, or to ``add`` (whose caller
        sets :attr:`Loaded.records`)."""
        records: list[R] = []
        out: Loaded[R] = Loaded(records)
        if add is None:
            add = records.append
        fh = self._open()
        if fh is None:
            return out
        try:
            with fh:
                seen: deque[tuple[int, int]] | None = None
                if positions:
                    seen = deque(maxlen=positions)
                    identity = file_identity(fh.fileno())
                pos = 0
                for lineno, raw, length, whole in _lines(fh):
                    pos += length
                    if not whole:  # the last line, without its newline: torn
                        out.torn = length
                        break
                    out.valid_length = pos
                    if raw is None:
                        out.skipped.append(Skipped(lineno, f"{length:,} bytes long: not a record"))
                    elif not raw.isspace():  # not blank (and, unlike strip(), no copy of the line)
                        if seen is not None:
                            seen.append((pos - length, length))
                        try:
                            parsed = parse(raw)
                        except ValueError as exc:
                            out.skipped.append(Skipped(lineno, str(exc)))
                        else:  # what add raises is the reader's, not a damaged line
                            add(parsed)
                if seen is not None:
                    out.lines = LinesSeen(identity, seen, out.valid_length)
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        return out

    def last_records(self, count: int) -> list[GameRecord]:
        """The whole records of the last ``count`` lines (a torn or damaged line among them
        is left out: :meth:`load` is the reader that reports those). One pass that keeps
        only those lines, so a page of the latest games costs little even at 100,000."""
        tail: deque[bytes] = deque(maxlen=count)
        fh = self._open()
        if fh is None:
            return []
        try:
            with fh:
                for _, raw, _, whole in _lines(fh):
                    if whole and raw is not None and not raw.isspace():
                        tail.append(raw)
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        out = []
        for raw in tail:
            try:
                out.append(parse_line(raw))
            except ValueError:
                continue
        return out

    def pick(self, game_id: str | None = None, number: int | None = None) -> Picked:
        """One pass that parses only the records asked for: those whose game id is
        ``game_id`` and the ``number``-th (from 1), with how many records the file holds
        and the first one's id. Finding one game of a long run costs a read of the file,
        not a parse of every turn of every game (:meth:`load`), and holds only what it
        finds. A record is a whole, non-blank line, as :meth:`load` reads them; a damaged
        one counts in the numbering and is never picked."""
        picked = Picked()
        # A line holding the record of game_id holds the id as a JSON string: quoted, as it
        # is, unless a character of it is escaped. For an id of printable ASCII other than
        # ``"``, ``\\`` and ``/``, the only escape JSON has is ``\\uXXXX``: a line with neither
        # is not that game's, and is passed over unparsed.
        needle = None
        plain = game_id is not None and game_id.isascii() and game_id.isprintable()
        if plain and game_id is not None and not any(c in game_id for c in '"\\/'):
            needle = b'"' + game_id.encode("ascii") + b'"'
        fh = self._open()
        if fh is None:
            return picked
        try:
            with fh:
                for _, raw, _, whole in _lines(fh):
                    if not whole or raw is None or raw.isspace():
                        continue
                    picked.total += 1
                    first = picked.total == 1
                    chosen = picked.total == number
                    wanted = game_id is not None and (needle is None or needle in raw or b"\\u" in raw)
                    if not (first or chosen or wanted):
                        continue
                    try:
                        record = parse_line(raw)
                    except ValueError:
                        continue
                    if first:
                        picked.first_id = record.game_id
                    if chosen:
                        picked.numbered = record
                    if record.game_id == game_id:
                        picked.found.append((picked.total, record))
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot read the results file: {exc}") from None
        return picked

    def repair(self) -> tuple[Loaded[GameSummary], Path | None]:
        """Load the summaries, and move a torn last line out of the file (into
        ``results.jsonl.torn-<time>``, named in the return) so appends start on a fresh
        line."""
        loaded = self.summaries()
        if not loaded.torn:
            return loaded, None
        aside = self.path.with_name(f"{self.path.name}.torn-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        fd = open_nofollow(self.path, os.O_RDWR)
        try:
            out = open_nofollow(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            try:
                offset = loaded.valid_length
                while chunk := os.pread(fd, 1 << 20, offset):
                    os.write(out, chunk)
                    offset += len(chunk)
                os.fsync(out)
            finally:
                os.close(out)
            os.ftruncate(fd, loaded.valid_length)
            os.fsync(fd)
        finally:
            os.close(fd)
        return loaded, aside

    def appender(self) -> Appender:
        """The run's writer (see :class:`Appender`); close it when the run ends."""
        return Appender(self.path)

    def append(self, record: GameRecord) -> None:
        """Append one record durably, outside a run (a tool, a test)."""
        with self.appender() as writer:
            writer.append(record)


class ResultsChanged(ResultsError):
    """The results file is not the one the run has been writing (see :class:`Appender`)."""


class Appender:
    """The results file held open by the run that writes it. Before each append it checks
    that the path still names this file (not deleted, not replaced, not a symlink now) and
    that its length is what the run left (not truncated, not appended to by anything else);
    otherwise :class:`ResultsChanged`, after saving what the run wrote and the record it was
    given beside it. :meth:`append` and :meth:`sync` block on the disk (``fsync``): from
    trio, call them in a worker thread; :meth:`write` only writes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_APPEND: each write lands at the end; read access to save the file if it changes.
        self.fd = open_nofollow(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        st = os.fstat(self.fd)
        self.identity = (st.st_dev, st.st_ino)
        self.length = st.st_size
        self.synced = st.st_size  # the length known to be on disk (what was there: as found)
        self.appended = 0
        # Writes and syncs may come from worker threads: one check-and-write at a time.
        self._lock = threading.Lock()

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Sync what was written (at best: a failure here leaves it in the file, on disk when
        the system writes it back) and close."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                self.sync()
            os.close(self.fd)
            self.fd = -1

    def _change(self) -> str | None:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return "was deleted"
        if stat.S_ISLNK(st.st_mode):
            return "was replaced by a symbolic link"
        if (st.st_dev, st.st_ino) != self.identity:
            return "was replaced by another file"
        size = os.fstat(self.fd).st_size
        if size < self.length:
            return f"was truncated ({size:,} bytes where the run had written {self.length:,})"
        if size > self.length:
            return f"grew by {size - self.length:,} bytes that the run did not write"
        return None

    def append(self, record: GameRecord) -> None:
        """:meth:`write` ``record``, then :meth:`sync`: on disk when this returns."""
        self.write(record)
        self.sync()

    def write(self, record: GameRecord) -> bytes:
        """Check the file (see the class) and append ``record`` to it, without waiting for
        the disk: a kill of this process cannot lose it from then on; :meth:`sync` puts it
        on disk. Returns the line written."""
        data = (record.to_json() + "\n").encode("utf-8")
        with self._lock:
            self._append(data)
        return data

    @property
    def unsynced(self) -> bool:
        """Whether something written is not known to be on disk yet."""
        return self.synced != self.length

    def sync(self) -> None:
        """Put everything written so far on disk (``fsync``); nothing to do if it is."""
        with self._lock:
            target = self.length
            if target == self.synced:
                return
        os.fsync(self.fd)  # outside the lock: a write may go on meanwhile (it is synced next time)
        with self._lock:
            self.synced = max(self.synced, target)

    def _append(self, data: bytes) -> None:
        change = self._change()
        if change is not None:
            saved = self._save(data)
            raise ResultsChanged(
                f"{self.path} {change} while the run was writing it (a bot, or another program, "
                f"reached the output folder); the run stops so that nothing is rated from a file it "
                f"did not write. What the run wrote, and the game that just ended, are in {saved}: "
                f"check it, then put it back as {self.path.name} to resume."
            )
        written = 0
        while written < len(data):
            written += os.write(self.fd, data[written:])
        self.length += len(data)
        self.appended += 1

    def _save(self, pending: bytes) -> Path:
        """The file as the run knows it (its first :attr:`length` bytes, still reachable
        through the open file if it was deleted or replaced; of a truncated file, the whole
        lines left) and ``pending``, in a new file."""
        saved = self.path.with_name(f"{self.path.name}.saved-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        keep = min(self.length, os.fstat(self.fd).st_size)
        out = open_nofollow(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            end = keep
            while end and os.pread(self.fd, 1, end - 1) != b"\n":  # whole lines only
                end -= 1
            offset = 0
            while offset < end:
                chunk = os.pread(self.fd, min(1 << 20, end - offset), offset)
                if not chunk:
                    break
                os.write(out, chunk)
                offset += len(chunk)
            os.write(out, pending)
            os.fsync(out)
        finally:
            os.close(out)
        return saved


def _lines(fh: BinaryIO) -> Iterator[tuple[int, bytes | None, int, bool]]:
    """``(number, line or None if longer than MAX_LINE, its length, whether it ends with a
    newline)`` for every line, holding at most one line (of at most MAX_LINE) at a time."""
    lineno = 0
    while raw := fh.readline(MAX_LINE + 1):
        lineno += 1
        if len(raw) <= MAX_LINE or raw.endswith(b"\n"):
            yield lineno, raw, len(raw), raw.endswith(b"\n")
            continue
        length, whole = len(raw), False
        while chunk := fh.readline(1 << 20):
            length += len(chunk)
            if chunk.endswith(b"\n"):
                whole = True
                break
        yield lineno, None, length, whole


def lock_holder_alive(folder: Path) -> bool:
    """Whether a run writes ``folder`` now: the pid its lock file (:class:`FolderLock`)
    names is alive. For readers in other processes (``vastuz serve``): the lock itself is
    the writers' guard."""
    try:
        pid = int((folder / LOCK).read_text(encoding="utf-8").strip() or "0")
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class FolderLock:
    """An exclusive lock on an output folder, so two runs never write one results file.

    ``flock`` is released by the kernel when the process dies, so a killed run never
    leaves a stale lock behind.
    """

    def __init__(self, folder: Path | str) -> None:
        self.path = Path(folder) / LOCK
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = os.fdopen(open_nofollow(self.path, os.O_RDWR | os.O_CREAT), "r+")
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
