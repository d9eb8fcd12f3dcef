"""Whether a bot's program can be started, asked before any process is spawned.

Used by config validation, ``vastuz match`` and ``vastuz check`` so that a missing or
non-executable program is one clear error up front, not a game voided later; and the first
bytes of a program file, for the hints of a start that failed (:mod:`referee.play.hints`).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path


def program_problem(program: str, cwd: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Why a bot program cannot be started, or ``None`` if it can.

    Finds argv[0] the way the spawner will: a name with a slash is a path from the bot's
    working folder; a bare name is looked up on PATH (the bot's own PATH if its env sets
    one) and, as in any POSIX shell, never in the working folder. A folder on the way that
    may not be looked into is a reason too, not an error.
    """
    try:
        return _problem(program, cwd, env or {})
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        shown = repr(program) if len(program) <= 80 else repr(program[:80]) + "..."
        return f"cannot access the program {shown}{where}: {exc.strerror or exc}"


def _problem(program: str, cwd: Path, env: Mapping[str, str]) -> str | None:
    if os.sep in program or (os.altsep and os.altsep in program):
        target = cwd / Path(program).expanduser()
        if not target.exists():
            return f"program {program!r} not found (looked in {cwd})"
        if target.is_dir() or not os.access(target, os.X_OK):
            return f"program {program!r} is not an executable file ({target}; chmod +x?)"
        return None
    search = env.get("PATH", os.environ.get("PATH", os.defpath))
    if shutil.which(program, path=search) is not None:
        return None
    message = f"program {program!r} not found (looked in PATH)"
    if program in ("python", "python3"):
        message += f"; to run bots with the referee's own Python, write {sys.executable!r}"
    elif (cwd / program).is_file():
        message += f"; to run the {program!r} in {cwd}, write './{program}'"
    return message


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
