"""What every subcommand shares: exit codes and the argparse type functions (each says
what it expected in the user's words)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from referee.engine import MAX_SIZE, MIN_SIZE
from referee.play.programs import program_problem

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


# Type functions for argparse. Each raises ArgumentTypeError with a message for the user:
# argparse would otherwise name the function ("invalid _size value: 'x'").


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds, got {text!r}")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _positive(text: str) -> float:
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _count(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _count_or_zero(text: str) -> int:
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a board size from {MIN_SIZE} to {MAX_SIZE}, got {text!r}"
        ) from None
    if not MIN_SIZE <= value <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"board size must be {MIN_SIZE}..{MAX_SIZE}, got {text}")
    return value


def _program_problem(words: list[str]) -> str | None:
    """Why a bot command cannot start (see :func:`program_problem`), also when a folder on
    the way cannot be looked into."""
    if not words:
        return "an empty command"
    try:
        return program_problem(words[0], Path.cwd())
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"cannot access the program {words[0]!r}{where}: {exc.strerror or exc}"
