"""The hints of :mod:`referee.play.hints` as ``vastuz check`` gives them: with the first
bytes of the bot's program file (:func:`referee.play.programs.read_head`, the I/O the pure
hint functions leave to their caller), appended to a failing detail."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from referee.play.hints import crlf_hint, script_hint, start_hints
from referee.play.programs import read_head


def hinted(detail: str, hints: Sequence[str]) -> str:
    """*detail* with the hints after it, each once as ``hint: ...``. A bot's failed start
    already carries its hints in its message (for a run's records), where a check's detail
    goes on after it (what the bot sent): each is moved to the end, not said twice."""
    for hint in hints:
        detail = detail.replace(f"; hint: {hint}", "")
    return detail + "".join(f"; hint: {h}" for h in dict.fromkeys(hints))


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
