"""What every subcommand shares: exit codes and the argparse type functions (each says
what it expected in the user's words)."""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

from referee.engine import MAX_SIZE, MIN_SIZE
from referee.play.programs import program_problem
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_STARTUP_TIMEOUT

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def failed(command: str, exc: BaseException, path: Path, code: int) -> int:
    """Say on one line why ``vastuz command`` stopped (a file error as the file and its
    reason, else the error's own words) and give its exit ``code``: EXIT_USAGE when what
    the user gave cannot be read as what was expected, EXIT_FAILED when the work failed."""
    if isinstance(exc, OSError):
        print(f"vastuz {command}: {exc.filename or path}: {exc.strerror or exc}", file=sys.stderr)
    else:
        print(f"vastuz {command}: {exc}", file=sys.stderr)
    return code


# Type functions for argparse. Each raises ArgumentTypeError with a message for the user:
# argparse would otherwise name the function ("invalid _size value: 'x'").


def finite(text: str, what: str) -> float:
    """``text`` as a finite number, else the error 'expected {what}' (``what`` with its
    article: 'a number of seconds', 'an Elo value')."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not math.isfinite(value):
        article, _, rest = what.partition(" ")
        raise argparse.ArgumentTypeError(f"expected {article} finite {rest}, got {text!r}")
    return value


def _number(text: str) -> float:
    return finite(text, "a number of seconds")


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
    """Why a bot command cannot start (see :func:`program_problem`)."""
    return "an empty command" if not words else program_problem(words[0], Path.cwd())


def bot_command_words(command: str, where: str) -> list[str] | None:
    """The words of a bot command given on the command line, or None after saying on
    stderr (``where: ...``, e.g. ``vastuz match: BOT_A``) why it cannot start: it does not
    split as a shell would, it is empty, or its program is missing or not executable."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        print(f"{where}: cannot read the command {command!r}: {exc}", file=sys.stderr)
        return None
    problem = _program_problem(words)
    if problem is not None:
        print(f"{where}: {problem}", file=sys.stderr)
        return None
    return words


def add_timeout_options(p: argparse.ArgumentParser) -> None:
    """``--command-timeout`` and ``--startup-timeout``, the same wherever bots are started."""
    p.add_argument(
        "--command-timeout",
        type=_positive,
        default=DEFAULT_COMMAND_TIMEOUT,
        metavar="SECONDS",
        help=f"time for a command that is not a move (default {DEFAULT_COMMAND_TIMEOUT:g})",
    )
    p.add_argument(
        "--startup-timeout",
        type=_positive,
        default=DEFAULT_STARTUP_TIMEOUT,
        metavar="SECONDS",
        help=f"time to start and answer the handshake (default {DEFAULT_STARTUP_TIMEOUT:g})",
    )
