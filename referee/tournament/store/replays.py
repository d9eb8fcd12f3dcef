"""The replays of a standings page, made once a game and kept beside the results.

A standings page replays the latest :data:`MAX_REPLAYS` records of ``results.jsonl`` (the
latest record of each of their slots), and each replay costs the engine most of a
millisecond a game (:func:`~referee.render.html.game_json`). So that a page grows instead
of being rebuilt, a run keeps each game's entry in ``OUTPUT/page-replays.jsonl``, one line
a game, made once: a header (where its record is: the line's offset in ``results.jsonl``
and a digest of its bytes; the record's slot, whether it is void, its board; a digest of
the entry), a tab, the entry. An entry whose record is not at that offset with those
bytes, or whose own digest is wrong, is made again, never shown: the file is only a cache
of what the results say, and deleting it costs one rebuild.

:class:`ReplayWindow` reads the results file a line at a time from where it last stopped,
holds only where each line of the window is and where its entry is, and writes a page by
copying the entries from the file they are in: no more than one record is in memory at a
time, however long the run. Blocking; a run calls it in a worker thread.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from referee.errors import ResultsError
from referee.render.html import line_entry
from referee.tournament.store.files import MAX_REPLAYS, atomic_writer, open_nofollow
from referee.tournament.store.results import READ_BUFFER, LinesSeen, _lines, file_identity

REPLAYS = "page-replays.jsonl"


@dataclass
class Line:
    """One record line of the window: where it is in the results file and a digest of it;
    its record's slot (None: not a record, left out as
    :meth:`~referee.tournament.store.results.ResultsFile.last_records` leaves it), whether
    it is void, its board; where its page entry is (``at``, ``length``), in the cache
    (``made`` False) or in the file this window made it into."""

    offset: int
    digest: str
    slot: str | None = None
    void: bool = False
    size: int = 0
    at: int = 0
    length: int = 0
    made: bool = False

    def header(self, entry: bytes) -> bytes:
        head = {"offset": self.offset, "digest": self.digest, "slot": self.slot, "void": self.void}
        return json.dumps({**head, "size": self.size, "entry": _digest(entry)}).encode()


def _digest(raw: bytes | memoryview) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def line_digest(raw: bytes) -> str:
    """The digest a window knows a results line by (the line with its newline): what a
    run's referee sends with each game it recorded, for :class:`Vouched`."""
    return _digest(raw)


class Vouched:
    """The results lines a run's referee wrote, by their digests (sent to its standings
    process with their games): the referee's engine played every turn of each, from its
    setup, before the line was written, so a page entry of such a line is made without the
    engine (:func:`~referee.render.html.line_entry` ``known``), its costliest part. A
    line whose bytes differ, by a byte, from the ones written has another digest and is
    replayed by the engine as any other line is, its illegal turn shown as such.

    ``since``: where the run's own lines begin in the results file; every line from there
    on is one of them, its digest sent after the line is written. A window that has time
    (:meth:`ReplayWindow.update` ``wait``) leaves such a line for its next look until its
    digest is here. Digests not taken are forgotten, oldest first, past ``limit`` (their
    lines fell out of a window before it read them). A line changed after it was written
    is never vouched for: the looks stop at it until the next page, which replays it with
    the engine and goes on."""

    def __init__(self, since: int, limit: int = 2 * MAX_REPLAYS) -> None:
        self.since = since
        self.limit = limit
        self._digests: OrderedDict[str, None] = OrderedDict()
        self.taken = 0  # entries made without the engine (for tests and notes)

    def __len__(self) -> int:
        return len(self._digests)

    def add(self, digests: Iterable[str]) -> None:
        kept = self._digests
        for digest in digests:
            kept[digest] = None
        while len(kept) > self.limit:
            kept.popitem(last=False)

    def take(self, digest: str) -> bool:
        """Whether the line of ``digest`` is one the referee wrote (then forgotten: its
        entry is made once)."""
        kept = self._digests
        if digest not in kept:
            return False
        del kept[digest]
        self.taken += 1
        return True

    def awaited(self, offset: int, digest: str) -> bool:
        """Whether the line at ``offset`` is the run's own and its digest has not come yet."""
        return offset >= self.since and digest not in self._digests


def _covers(seen: LinesSeen, window: int, fd: int) -> bool:
    """Whether ``seen`` holds the last ``window`` lines of the file open at ``fd`` (or all of
    them): the file has not changed since that scan began, which kept as many."""
    kept = seen.positions
    enough = kept.maxlen is None or len(kept) < kept.maxlen or kept.maxlen >= window
    return enough and file_identity(fd) == seen.identity


_OFFSET_KEY = b'{"offset": '


def _offset_of(raw: bytes, tab: int) -> int | None:
    """The offset a cache line's header names, read off its start as :meth:`Line.header`
    writes it (json.dumps, "offset" first), without parsing the header; None when it does
    not start that way, and then the header is parsed whole. A header this module did not
    write (two offsets in it?) may name another offset here: at worst its entry is made
    again, as any entry that is not right is."""
    if not raw.startswith(_OFFSET_KEY):
        return None
    comma = raw.find(b",", len(_OFFSET_KEY), tab)
    digits = raw[len(_OFFSET_KEY) : comma]
    return int(digits) if comma > 0 and digits.isdigit() else None


class ReplayWindow:
    """The latest ``window`` record lines of ``results`` and their page entries.

    ``keep``: the run's own ``page-replays.jsonl``, reused and added to (compacted when it
    holds twice the window). Else (a report) ``cache``, when it exists, lends the entries it
    has right and the others are made into a temporary file. Close it when done."""

    def __init__(
        self,
        results: Path,
        *,
        keep: Path | None = None,
        cache: Path | None = None,
        window: int = MAX_REPLAYS,
        seen: LinesSeen | None = None,
        vouched: Vouched | None = None,
    ) -> None:
        self.results = results
        self.vouched = vouched  # the lines a run's referee wrote (a run's standings process)
        self._seen = seen  # where a scan of the results just found their lines (a report's)
        self.keep = keep
        self.cache = keep if keep is not None else cache
        self.window = window
        self.lines: deque[Line] = deque(maxlen=window)
        self.read_to = 0  # where the next unread line of the results file starts
        self.made = 0  # entries this window made (the engine's work), for tests and notes
        self.making = 0.0  # and the seconds that took: a cost per game, not per page
        self._out: BinaryIO | None = None
        self._out_lines = 0
        self._known: dict[int, Line] | None = None  # the cache's entries of the first window

    def __enter__(self) -> ReplayWindow:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    # -- reading the results -----------------------------------------------------------
    def update(self, wait: bool = False) -> int:
        """Read the lines appended to the results file since the last update (a last line
        without its newline, torn or being written, waits for the next) and give each its
        entry; returns how many lines it took in. ``wait`` (a look with time to spare): stop
        at a line of the run's own whose digest has not come (:class:`Vouched`), to read it
        again at the next look, rather than replay it with the engine."""
        fresh: deque[tuple[int, int]] = deque(maxlen=self.window)
        try:
            fh = os.fdopen(open_nofollow(self.results, os.O_RDONLY), "rb", buffering=READ_BUFFER)
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise ResultsError(f"{self.results}: cannot read the results file: {exc}") from None
        with fh:
            pos = self.read_to
            seen, self._seen = self._seen, None
            if pos == 0 and seen is not None and _covers(seen, self.window, fh.fileno()):
                fresh.extend(seen.positions)  # the file is as that scan found it: not read again
                pos = seen.end
            fh.seek(pos)
            for _, raw, length, whole in _lines(fh):
                if not whole:
                    break
                if raw is not None and not raw.isspace():  # not blank
                    fresh.append((pos, length))
                pos += length
            self.read_to = pos
            if self._known is None:
                self._known = self._load_cache({offset for offset, _ in fresh})
            added = 0
            for offset, length in fresh:
                fh.seek(offset)
                if not self._add(offset, fh.read(length), wait):
                    self.read_to = offset  # this line and those after it: the next look
                    break
                added += 1
        if self._out is not None:
            self._out.flush()  # the entries made are in the cache, whatever befalls the process
        if self.keep is not None and self._out_lines > 2 * self.window:
            self._compact()
        return added

    def _add(self, offset: int, raw: bytes, wait: bool = False) -> bool:
        """The line at ``offset`` in the window, its entry made or found; False (and nothing
        done) when ``wait`` and its digest is awaited (:meth:`update`)."""
        digest = _digest(raw)
        vouched = self.vouched
        cached = self._known or {}
        known = cached.get(offset)
        if known is not None and known.digest == digest:
            del cached[offset]
            self.lines.append(known)
            return True
        if wait and vouched is not None and vouched.awaited(offset, digest):
            return False
        cached.pop(offset, None)
        line = Line(offset, digest)
        self.lines.append(line)
        started = time.perf_counter()
        try:
            record, entry = line_entry(
                raw, vouched is not None and offset >= vouched.since and vouched.take(digest)
            )
        except ValueError:
            return True  # not a record: in the window, on no page
        line.slot, line.void, line.size = record.slot, record.is_void, record.size
        self._write(line, entry.encode())
        self.made += 1
        self.making += time.perf_counter() - started
        return True

    def _write(self, line: Line, entry: bytes) -> None:
        out = self._entries()
        header = line.header(entry)
        line.at = out.seek(0, os.SEEK_END) + len(header) + 1
        line.length, line.made = len(entry), True
        out.write(header + b"\t" + entry + b"\n")
        self._out_lines += 1

    # -- the entries' files ------------------------------------------------------------
    def _entries(self) -> BinaryIO:
        """The file this window writes entries to: the run's cache (opened to append, a
        torn last line cut off first), or a temporary file."""
        if self._out is None:
            if self.keep is None:
                self._out = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            else:
                fd = open_nofollow(self.keep, os.O_RDWR | os.O_CREAT)
                end = size = os.fstat(fd).st_size
                while end and os.pread(fd, 1, end - 1) != b"\n":
                    end -= 1
                if end < size:  # a killed run's torn line: cut, or it would glue to the next
                    os.ftruncate(fd, end)
                self._out = os.fdopen(fd, "r+b")
        return self._out

    def _load_cache(self, offsets: set[int]) -> dict[int, Line]:
        """The cache's right entries for the results lines at ``offsets``."""
        if self.cache is None:
            return {}
        try:
            fh = os.fdopen(open_nofollow(self.cache, os.O_RDONLY), "rb", buffering=READ_BUFFER)
        except FileNotFoundError:
            return {}
        found: dict[int, Line] = {}
        lines = 0
        with fh:
            pos = 0
            for _, raw, length, whole in _lines(fh):
                start, pos = pos, pos + length
                lines += 1
                tab = -1 if raw is None or not whole else raw.find(b"\t")
                if raw is None or tab < 0:
                    continue  # damaged or torn: its game's entry is made again
                named = _offset_of(raw, tab)
                if named is not None and named not in offsets:
                    continue  # an entry of a game before the window (the cache holds up to two)
                try:
                    head = json.loads(raw[:tab])
                    offset = int(head["offset"])
                    if offset not in offsets:
                        continue
                    line = Line(offset, str(head["digest"]), head["slot"], bool(head["void"]))
                    length = len(raw) - tab - 2  # the entry, between the tab and the newline
                    line.size, line.at, line.length = int(head["size"]), start + tab + 1, length
                    right = head["entry"] == _digest(memoryview(raw)[tab + 1 : -1]) and isinstance(
                        line.slot, str
                    )
                except (ValueError, KeyError, TypeError):
                    continue
                if right:
                    found[line.offset] = line
        self._out_lines = lines
        return found

    def _compact(self) -> None:
        """Rewrite the run's cache with only the entries of the window (it grows by a line
        a game; past twice the window most of it is of games no page shows)."""
        assert self.keep is not None
        out = self._entries()
        with atomic_writer(self.keep, binary=True) as new:
            for line in self.lines:
                if line.slot is None:
                    continue
                out.seek(line.at)
                entry = out.read(line.length)
                header = line.header(entry)
                line.at = new.tell() + len(header) + 1
                new.write(header + b"\t" + entry + b"\n")
        self.close()
        self._out_lines = sum(1 for line in self.lines if line.slot is not None)

    # -- the page ----------------------------------------------------------------------
    def kept(self) -> list[Line]:
        """The window's records as a page replays them: the latest of each slot (the first
        non-void record, else the last void one), in the order the slots first appear
        (:func:`~referee.tournament.store.folder.latest_records`)."""
        best: dict[str, Line] = {}
        for line in self.lines:
            if line.slot is None:
                continue
            kept = best.get(line.slot)
            if kept is None or kept.void:
                best[line.slot] = line
        return list(best.values())

    def entries(self, kept: list[Line]) -> Iterator[str]:
        """The page entries of ``kept``, read one at a time from the file each is in."""
        cache: BinaryIO | None = None
        try:
            for line in kept:
                if line.made or self.keep is not None:
                    fh = self._entries()
                else:
                    if cache is None:
                        assert self.cache is not None
                        cache = os.fdopen(open_nofollow(self.cache, os.O_RDONLY), "rb")
                    fh = cache
                fh.seek(line.at)
                yield fh.read(line.length).decode()
        finally:
            if cache is not None:
                cache.close()
