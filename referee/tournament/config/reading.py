"""Reading the files a person names in a config (the config itself, a bots file, an
opening book) in bounded memory: only regular files, and only so many bytes, so that a
wrong path (a results file of gigabytes, ``/dev/zero``, a pipe nobody writes) is a clear
error rather than a read that never ends."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BOOK_BYTES = 64 << 20
"""The largest opening book read (a line an opening: a million of them fit), and of the
other files of records or standings a person names (a game's ``.json`` or ``.sgf``, an
earlier run's ``standings.json``)."""
MAX_TOKEN_BYTES = 64 << 10
"""The largest token file read (``vastuz serve --token-file``)."""
MAX_YAML_BYTES = 4 << 20
"""The largest config or bots file read (see :func:`read_user_text`): a config is a few
kilobytes, and a file of megabytes given for one is another file (a results file, say),
refused before it is read into memory; nor is anything but a regular file read
(``/dev/zero`` never ends, a pipe may never be written)."""


def read_regular(fd: int, limit: int) -> bytes | None:
    """At most ``limit + 1`` bytes of the open file ``fd`` (more than ``limit``: too large
    for the caller), or None when it is not a regular file. It does not close ``fd``."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return None
    chunks, left = [], limit + 1
    while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_user_text(path: Path, what: str, limit: int = MAX_YAML_BYTES) -> str:
    """The text of the ``what`` file (``config``, ``bots``, ``opening book``) at ``path``,
    read only if it is a regular file of at most ``limit`` bytes of UTF-8: ``OSError`` as
    reading raises it (``FileNotFoundError`` first), ``ValueError`` saying what else it is."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        data = read_regular(fd, limit)
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if data is None:
        raise ValueError(f"not a regular file, not {_article(what)} {what} file")
    if len(data) > limit:
        raise ValueError(
            f"{size / (1 << 20):,.1f} MB, past the {limit >> 20} MB read for {_article(what)} {what} "
            "file (is this the file you meant? a results folder is read by vastuz report)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
