"""The output folder's file names, and the one way a file there is replaced."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from referee.errors import ResultsError
from referee.tournament.config.reading import read_regular

RESULTS = "results.jsonl"
MANIFEST = "tournament.json"
LOGS = "logs"
OLD_MATCH_RESULTS = "games.jsonl"
"""The results file of a match folder of earlier versions (read only)."""
OLD_MATCH_MANIFEST = "match.json"
LOCK = ".lock"
"""The run's lock file (:class:`~referee.tournament.store.results.FolderLock`): written when
a run takes the folder, so its time is the run's start; it names the run's process."""
STANDINGS_MD = "standings.md"
STANDINGS_JSON = "standings.json"
MAX_REPLAYS = 10_000
"""Games a standings page replays: the latest ones (``vastuz show RESULTS --html`` makes a
page of them all). 10,000 games make a page of about 11 MB that Chromium opens in well under
a second."""


MAX_OWN_FILE = 512 << 20
"""The most read of a file of the output folder's own that is read whole (the manifest, a
standings page, ``standings.json``): far past any the arena writes."""


NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


def link_refused(path: Path) -> ResultsError:
    """The error for a symlink where the output folder has a file of its own."""
    return ResultsError(
        f"{path} is a symbolic link; the arena does not follow links in its output folder "
        "(remove it, or use another output folder)"
    )


def open_nofollow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses a symlink (a bot could point the folder's files elsewhere)."""
    try:
        return os.open(path, flags | NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_refused(path) from None
        raise


def read_own_text(path: Path, limit: int = MAX_OWN_FILE) -> str:
    """A small file of the output folder (the arena's own) read whole, as a folder a bot
    may reach must be read: not through a symlink, only a regular file (a pipe put in its
    place would block the reader, ``/dev/zero`` never end), at most ``limit`` bytes.
    ``OSError`` as reading raises it (``FileNotFoundError`` for none), ``ResultsError``
    for what is not such a file."""
    fd = open_nofollow(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        data = read_regular(fd, limit)
    finally:
        os.close(fd)
    if data is None:
        raise ResultsError(f"{path} is not a regular file (the arena writes a file there)")
    if len(data) > limit:
        raise ResultsError(f"{path} is larger than the arena ever writes it ({limit >> 20} MB)")
    return data.decode("utf-8")


def atomic_write(path: Path, text: str, *, durable: bool = False) -> None:
    """Replace ``path`` with ``text`` so that a reader (or a crash) sees the old file or the
    new one, never a part: written beside it, then renamed over it. ``durable`` also syncs
    the data before the rename (for what a resume depends on)."""
    with atomic_writer(path, durable=durable) as fh:
        fh.write(text)


@contextlib.contextmanager
def atomic_writer(path: Path, *, durable: bool = False, binary: bool = False) -> Iterator[IO[Any]]:
    """The file that replaces ``path`` when the block ends without an error (as
    :func:`atomic_write`), for a text written in pieces (a page of many games); text in
    UTF-8, or bytes with ``binary``."""
    for target in (path, path.with_name(path.name + ".tmp")):
        if target.is_symlink():  # a bot could point it at a file of ours: refused, not followed
            raise link_refused(target)
    tmp = path.with_name(path.name + ".tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o644)
    with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8") as fh:
        yield fh
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(tmp, path)


def shown(path: Path) -> str:
    """``path`` as the user would write it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
