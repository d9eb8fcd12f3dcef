"""``vastuz book make``: a balanced opening book from a bot's self-play."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from referee.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, _count, _positive, _size, bot_command_words
from referee.errors import VastuzError


def _balance(text: str) -> tuple[float, float]:
    low, sep, high = text.partition("-")
    try:
        band = (float(low), float(high))
    except ValueError:
        band = (-1.0, -1.0)
    if not sep or not 0 <= band[0] <= band[1] <= 1:
        raise argparse.ArgumentTypeError(
            f"expected LOW-HIGH with 0 <= LOW <= HIGH <= 1 (0.35-0.65), got {text!r}"
        )
    return band


def _even(text: str) -> int:
    value = _count(text)
    if value % 2:
        raise argparse.ArgumentTypeError(
            f"expected an even number (games come in colour-reversed couples), got {text}"
        )
    return value


def add_book_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("book", help="make a balanced opening book", description="Opening books.")
    sub = p.add_subparsers(dest="book_command", required=True, metavar="ACTION")
    make = sub.add_parser(
        "make",
        help="candidate openings kept when a bot's self-play from them is balanced",
        description=(
            "Draw random openings (a pie setup, then TURNS random legal turns; distinct under the board's "
            "12 symmetries), play each GAMES times with the bot against itself, and keep the ones where "
            "the first mover's score is within the band. The book records each opening's score and the "
            "command that made it."
        ),
    )
    make.add_argument(
        "--bot", required=True, metavar="CMD", help="the bot's command (fresh randomness per process)"
    )
    make.add_argument("--size", type=_size, required=True, help="board size")
    make.add_argument("--turns", type=int, required=True, metavar="K", help="random turns after the setup")
    make.add_argument("--count", type=_count, required=True, metavar="M", help="candidate openings to try")
    make.add_argument(
        "--games-per-opening", type=_even, default=8, metavar="G", help="self-play games each (default 8)"
    )
    make.add_argument(
        "--balance", type=_balance, default=(0.35, 0.65), metavar="LOW-HIGH", help="default 0.35-0.65"
    )
    make.add_argument("--seed", type=int, default=1, help="seed of the candidates (default 1)")
    make.add_argument(
        "--per-move", type=_positive, default=0.1, metavar="S", help="seconds per move (default 0.1)"
    )
    make.add_argument("--concurrency", type=_count, default=1, metavar="N", help="games at once (default 1)")
    make.add_argument(
        "--work",
        type=Path,
        metavar="DIR",
        help="keep the self-play games here (the same command again resumes); default a temporary folder",
    )
    make.add_argument("--out", type=Path, required=True, metavar="FILE", help="the book to write")
    make.set_defaults(handler=cmd_book_make)


async def cmd_book_make(args: argparse.Namespace) -> int:
    from referee.tools.book import BookSettings, make_book

    if args.turns < 0:
        print(f"vastuz book make: --turns: expected 0 or more, got {args.turns}", file=sys.stderr)
        return EXIT_USAGE
    if bot_command_words(args.bot, "vastuz book make: --bot") is None:
        return EXIT_USAGE
    settings = BookSettings(
        args.bot,
        args.size,
        args.turns,
        args.count,
        args.games_per_opening,
        args.balance,
        args.seed,
        args.per_move,
        args.concurrency,
    )
    try:
        if args.work is not None:
            text = await make_book(settings, args.work, args.out, say=sys.stdout)
        else:
            with tempfile.TemporaryDirectory(prefix="vastuz-book-") as tmp:
                text = await make_book(settings, Path(tmp), args.out)
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"vastuz book make: {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    except (ValueError, VastuzError) as exc:
        print(f"vastuz book make: {exc}", file=sys.stderr)
        return EXIT_FAILED
    kept = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    print(f"wrote {args.out}: {kept} of {args.count} candidate openings kept")
    return EXIT_OK
