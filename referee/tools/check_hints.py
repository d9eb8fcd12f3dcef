"""The hints of :mod:`referee.play.hints` as ``vastuz check`` gives them: it reads the first
bytes of the bot's program file (the I/O the pure hint functions leave to their caller)
and appends the hints that fit to a failing detail."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from referee.play.hints import crlf_hint, script_hint, start_hints

HEAD = 512
"""Bytes of the program file read: enough for any ``#!`` line."""


def program_path(program: str, cwd: Path | None) -> Path | None:
    """Where the spawner will find *program*: a path from the bot's folder, or on PATH."""
    if os.sep in program:
        return (cwd or Path.cwd()) / Path(program).expanduser()
    found = shutil.which(program)
    if found is not None:
        return Path(found)
    local = (cwd or Path.cwd()) / program  # not run from there, but a hint can name it
    return local if local.is_file() else None


def read_head(program: str, cwd: Path | None) -> bytes | None:
    """The first bytes of the program file, or None (not found, a folder, unreadable)."""
    path = program_path(program, cwd)
    if path is None:
        return None
    try:
        with path.open("rb") as f:
            return f.read(HEAD)
    except OSError:
        return None


def hinted(detail: str, hints: Sequence[str]) -> str:
    """*detail* with the hints after it, each as ``hint: ...``."""
    return detail + "".join(f"; hint: {h}" for h in hints)


def command_hints(argv: Sequence[str], cwd: Path | None) -> list[str]:
    """Hints about the command itself, before anything is started (a script given as the
    command, a CRLF ``#!`` line)."""
    if not argv:
        return []
    head = read_head(argv[0], cwd)
    return [h for h in (crlf_hint(argv[0], head), script_hint(argv[0], head)) if h is not None]


def failure_hints(
    argv: Sequence[str], cwd: Path | None, failure: BaseException, *, alive: bool | None
) -> list[str]:
    """Hints for a start that failed (see :func:`referee.play.hints.start_hints`)."""
    if not argv:
        return []
    return start_hints(argv, read_head(argv[0], cwd), failure, alive=alive)
