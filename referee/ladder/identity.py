"""A ladder bot's identity: its ladder name, its protocol ``name`` and ``version`` answers,
and a fingerprint of its program, so that its strength cannot change under one name.

The fingerprint is a sha256 over the bot's command words, its extra environment and the
files of its program: the declared ``program`` (a file, or every file of a folder, by
relative path and content; ``__pycache__``, ``.pyc`` and dot-folders left out), else the
executable the command runs (``argv[0]`` found on the ``PATH`` or in its folder) and every
other word of the command that names a file in the bot's folder (``python bot.py``:
the interpreter and ``bot.py``). ``python -m pkg.bot`` names no file of the bot: declare
its folder as ``program`` (or rely on its ``version`` answer). Pure but for reading files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from referee.tournament.config.values import BotSpec

CHUNK = 1 << 20


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _folder_files(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".pyo")):
                yield Path(root) / name


def program_files(bot: BotSpec, program: Path | None) -> list[tuple[str, Path]]:
    """(name in the fingerprint, file) of what ``bot``'s fingerprint covers."""
    if program is not None:
        if program.is_dir():
            return [(str(f.relative_to(program)), f) for f in _folder_files(program)]
        return [(program.name, program)]
    out: list[tuple[str, Path]] = []
    first = bot.command[0]
    found = (bot.cwd / first) if os.sep in first else None
    if found is None:
        which = shutil.which(first, path=bot.env.get("PATH", os.environ.get("PATH")))
        found = Path(which) if which is not None else None
    if found is not None and found.is_file():
        out.append((first, found.resolve()))
    for word in bot.command[1:]:
        candidate = bot.cwd / word
        if not word.startswith("-") and candidate.is_file():
            out.append((word, candidate.resolve()))
    return out


def fingerprint(bot: BotSpec, program: Path | None) -> str:
    """``sha256:...`` of ``bot``'s command, environment and program files."""
    digest = hashlib.sha256()
    digest.update(json.dumps([list(bot.command), dict(sorted(bot.env.items()))]).encode())
    for name, path in program_files(bot, program):
        digest.update(f"\0{name}\0{_file_digest(path)}".encode())
    return "sha256:" + digest.hexdigest()


@dataclass(frozen=True)
class Identity:
    """What a bot is, for the store: ``fingerprint`` always; the protocol answers when a
    start of it gave them (None: not known yet)."""

    fingerprint: str
    protocol_name: str | None = None
    version: str | None = None

    def differs(self, other: Identity) -> list[str]:
        """The parts that differ, in words (answers not known on either side are not compared)."""
        out = []
        if self.fingerprint != other.fingerprint:
            out.append(
                f"its program's fingerprint ({other.fingerprint[:19]}... -> {self.fingerprint[:19]}...)"
            )
        for what, old, new in (
            ("name", other.protocol_name, self.protocol_name),
            ("version", other.version, self.version),
        ):
            if old is not None and new is not None and old != new:
                out.append(f"its answer to '{what}' ({old!r} -> {new!r})")
        return out


__all__ = ["Identity", "fingerprint", "program_files"]
