"""The ``vastuz`` command line.

One function per subcommand (``cmd_tournament``, ``cmd_report``, ``cmd_match``,
``cmd_show``, ``cmd_check``, ``cmd_rules``), each ``async`` and returning an
exit code; :func:`main` parses the arguments and calls ``trio.run`` once. To add a
subcommand: write ``add_<name>_parser(subparsers)`` that sets ``handler`` with
``set_defaults`` and an ``async def cmd_<name>(args) -> int``, and list it in
:func:`build_parser`.

Exit codes: 0 success; 1 the command ran but something failed (a void game, an unreadable
record, a results folder that cannot be used); 2 bad usage or an invalid config; 130
interrupted (Ctrl-C or SIGTERM; every finished game is kept).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import trio

from referee.cli.book import add_book_parser
from referee.cli.check import add_check_parser
from referee.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
)
from referee.cli.connect import add_connect_parser
from referee.cli.export import add_export_parser
from referee.cli.ladder import add_ladder_parser
from referee.cli.match import add_match_parser
from referee.cli.rules import add_rules_parser
from referee.cli.serve import add_serve_parser
from referee.cli.show import add_show_parser
from referee.cli.sprt import add_sprt_parser
from referee.cli.tournament import add_report_parser, add_tournament_parser
from referee.errors import VastuzError, single_error

# ---------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vastuz", description="Vastuz arena: bot-vs-bot games and tournaments."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_tournament_parser(subparsers)
    add_report_parser(subparsers)
    add_match_parser(subparsers)
    add_show_parser(subparsers)
    add_check_parser(subparsers)
    add_rules_parser(subparsers)
    add_export_parser(subparsers)
    add_sprt_parser(subparsers)
    add_book_parser(subparsers)
    add_ladder_parser(subparsers)
    add_connect_parser(subparsers)
    add_serve_parser(subparsers)
    return parser


def _user_error(exc: BaseException) -> BaseException | None:
    """The user-facing error behind ``exc`` (unwrapping trio's single-error groups), if it
    is one: our own :class:`VastuzError`, or the operating system refusing a file."""
    exc = single_error(exc) if isinstance(exc, BaseExceptionGroup) else exc
    if isinstance(exc, (VastuzError, OSError)) and not isinstance(exc, BrokenPipeError):
        return exc
    return None


def _broken_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` is a closed output pipe (possibly inside trio's single-error groups)."""
    exc = single_error(exc) if isinstance(exc, BaseExceptionGroup) else exc
    return isinstance(exc, BrokenPipeError)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    bot: list[str] | None = None
    if words[:1] == ["connect"] and "--" in words:
        # vastuz connect ... -- CMD ARGS: the bot's words are its own, options and all
        # (argparse would read a --seed of the bot's as an option of ours).
        cut = words.index("--")
        words, bot = words[:cut], words[cut + 1 :]
    args = build_parser().parse_args(words)
    if bot is not None:
        args.command = bot
    try:
        return int(trio.run(args.handler, args))
    except KeyboardInterrupt:
        print("vastuz: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException as exc:
        if _broken_pipe(exc):
            # The reader went away (``vastuz show ... | head``): not an error worth a
            # traceback. A tournament handles it itself (it stops after the games in flight,
            # exit 1); a match that lost its output mid-way stopped with games unplayed.
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
            if args.command == "match":
                print(
                    "vastuz match: the output was closed (broken pipe), so the match stopped; "
                    "every finished game is in its results file",
                    file=sys.stderr,
                )
                return EXIT_FAILED
            return EXIT_OK
        # A file we cannot write or read, anywhere: a clear line, not a traceback. Anything
        # else is our bug, and its traceback is what a bug report needs.
        error = _user_error(exc)
        if error is None:
            raise
        print(f"vastuz {args.command}: {error}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
