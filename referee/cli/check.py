"""``vastuz check``: the protocol linter for a bot program."""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
from pathlib import Path

from referee.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    _count,
    _non_negative,
    _positive,
    _program_problem,
    _size,
    add_timeout_options,
)
from referee.play.spec import (
    DEFAULT_MARGIN,
)
from referee.text import printable

# ---------------------------------------------------------------------------- check


def add_check_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from referee.tools.check import CHECKS, DEFAULT_SIZES

    p = subparsers.add_parser(
        "check",
        help="check that a bot program follows the protocol, like a linter",
        description=(
            "Start the bot as the referee would and run the checks below, printing one line each\n"
            "(PASS, FAIL, WARN or SKIP). Exit code 0 when nothing failed, 1 otherwise."
        ),
        epilog="checks:\n" + "\n".join(f"  {c.name:<18} {c.verifies}" for c in CHECKS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("bot", metavar="BOT_COMMAND", help="the bot's command, e.g. 'python mybot.py'")
    p.add_argument(
        "--size", type=_size, action="append", metavar="N",
        help="a board size the bot must accept (repeat for several; the games use the first; "
        f"default {' and '.join(map(str, DEFAULT_SIZES))})",
    )  # fmt: skip
    p.add_argument(
        "--games", type=_count, default=2, help="full games against the random sample bot (default 2)"
    )
    p.add_argument(
        "--per-move", type=_positive, default=1.0, metavar="SECONDS", help="limit per move (default 1)"
    )
    p.add_argument(
        "--margin", type=_non_negative, default=DEFAULT_MARGIN, metavar="SECONDS",
        help=f"allowance for process overhead on every deadline (default {DEFAULT_MARGIN})",
    )  # fmt: skip
    add_timeout_options(p)
    p.add_argument(
        "--strict",
        action="store_true",
        help="also FAIL a bot that accepts an illegal play (the referee never sends one: a WARN by default)",
    )
    p.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep each bot process's stderr and protocol transcript in DIR",
    )
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="run the checks with the bot under bubblewrap, as `sandbox: true` in a tournament",
    )
    p.set_defaults(handler=cmd_check)


async def cmd_check(args: argparse.Namespace) -> int:
    from referee.tools.check import (
        DEFAULT_SIZES,
        CheckOptions,
        CheckResult,
        Status,
        run_checks,
    )

    try:
        words = shlex.split(args.bot)
    except ValueError as exc:
        print(f"vastuz check: cannot read the command {args.bot!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from referee.tools.check_hints import command_hints, hinted

    problem = _program_problem(words)
    if problem is not None:
        print(f"vastuz check: {hinted(problem, command_hints(words, None))}", file=sys.stderr)
        return EXIT_USAGE
    if args.sandbox:
        from referee.play.sandbox import missing

        why = missing()
        if why is not None:
            print(f"vastuz check: {why}", file=sys.stderr)
            return EXIT_USAGE
    options = CheckOptions(
        command=args.bot,
        sandbox=args.sandbox,
        sizes=tuple(args.size or DEFAULT_SIZES),
        games=args.games,
        per_move=args.per_move,
        margin=args.margin,
        command_timeout=args.command_timeout,
        startup_timeout=args.startup_timeout,
        log_dir=args.logs,
    )
    print(f"checking: {args.bot}", flush=True)
    # The game loop logs a final_score disagreement as a warning; here the final-score
    # line reports it, so the log line would only repeat it out of place.
    game_log = logging.getLogger("referee.play.game")
    level = game_log.level
    game_log.setLevel(logging.ERROR)

    def show(result: CheckResult) -> None:
        print(f"{result.status.value}  {result.name:<17}  {printable(result.detail)}", flush=True)

    try:
        report = await run_checks(options, show, strict=args.strict)
    finally:
        game_log.setLevel(level)
    done = {Status.PASS: "passed", Status.FAIL: "failed", Status.WARN: "warned", Status.SKIP: "skipped"}
    counts = ", ".join(f"{report.count(s)} {done[s]}" for s in Status)
    verdict = "no failures" if report.ok else "FAILED: fix the FAIL lines above"
    print(f"{len(report.results)} checks: {counts}; {verdict}")
    if args.logs is not None:
        print(f"logs: {args.logs}")
    return EXIT_OK if report.ok else EXIT_FAILED
