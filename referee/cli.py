"""The ``vastuz`` command line.

One function per subcommand (``cmd_tournament``, ``cmd_report``, ``cmd_match``,
``cmd_show``, ``cmd_check``), each ``async`` and returning an
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
import dataclasses
import logging
import math
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import trio

from referee.engine import MAX_SIZE, MIN_SIZE
from referee.errors import ConfigError, VastuzError
from referee.play.process import BotCommand
from referee.play.programs import program_problem
from referee.play.records import GameRecord
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_MARGIN,
    DEFAULT_STARTUP_TIMEOUT,
    OpeningKind,
    TimeControl,
)
from referee.text import printable
from referee.tools.show import load_game, render_game
from referee.tournament.match import RESULTS_FILE, MatchSpec, elo_lines, game_line, run_match

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


# ---------------------------------------------------------------------------- match


def add_match_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "match",
        help="play games between two bot commands",
        description="Play games between two bots, alternating who makes the setup (or plays Black).",
    )
    p.add_argument("bot_a", metavar="BOT_A", help="command of bot A, e.g. 'python -m sample_bots.random_bot'")
    p.add_argument("bot_b", metavar="BOT_B", help="command of bot B")
    p.add_argument("--games", type=_count, default=2, help="number of games (default 2)")
    p.add_argument("--size", type=_size, default=7, help="board size (default 7)")
    p.add_argument(
        "--opening",
        choices=[OpeningKind.PIE.value, OpeningKind.EMPTY.value, OpeningKind.RANDOM.value],
        default=OpeningKind.PIE.value,
        help="pie: the bots play the pie rule; empty: Black starts on an empty board; "
        "random: a random setup per couple of games, played from both sides (default pie)",
    )
    p.add_argument("--seed", type=_whole, default=0, help="seed of the random openings (default 0)")
    clock = p.add_mutually_exclusive_group()
    clock.add_argument("--per-move", type=_positive, metavar="SECONDS", help="limit per move (default 1)")
    clock.add_argument("--main", type=_positive, metavar="SECONDS", help="Fischer clock: main time per game")
    p.add_argument(
        "--increment", type=_non_negative, default=0.0, metavar="SECONDS", help="Fischer increment per move"
    )
    p.add_argument(
        "--margin",
        type=_non_negative,
        default=DEFAULT_MARGIN,
        metavar="SECONDS",
        help=f"allowance for process overhead on every deadline (default {DEFAULT_MARGIN})",
    )
    p.add_argument("--command-timeout", type=_positive, default=DEFAULT_COMMAND_TIMEOUT, metavar="SECONDS")
    p.add_argument("--startup-timeout", type=_positive, default=DEFAULT_STARTUP_TIMEOUT, metavar="SECONDS")
    p.add_argument("--concurrency", type=_count, default=1, help="games played at the same time (default 1)")
    p.add_argument("--out", type=Path, help="output folder (default results/match-<time>)")
    p.add_argument("--transcripts", action="store_true", help="write a protocol transcript per game and bot")
    sprt = p.add_argument_group("SPRT (A is the candidate, B the baseline; --games is then ignored)")
    sprt.add_argument(
        "--sprt",
        type=_sprt_bounds,
        metavar="elo0=E0,elo1=E1",
        help="play colour-reversed pairs until a sequential probability ratio test decides",
    )
    sprt.add_argument(
        "--alpha", type=_probability, default=0.05, help="chance of accepting H1 under H0 (0.05)"
    )
    sprt.add_argument(
        "--beta", type=_probability, default=0.05, help="chance of accepting H0 under H1 (0.05)"
    )
    sprt.add_argument("--model", choices=("normalized", "logistic"), default="normalized", help="Elo model")
    sprt.add_argument(
        "--max-games", type=_count, default=100_000, metavar="N", help="the test's cap (100000)"
    )
    p.set_defaults(handler=cmd_match)


def _sprt_bounds(text: str) -> tuple[float, float]:
    values: dict[str, float] = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        try:
            values[key.strip()] = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected elo0=E0,elo1=E1 (numbers), got {text!r}") from None
    if set(values) != {"elo0", "elo1"} or not values["elo0"] < values["elo1"]:
        raise argparse.ArgumentTypeError(f"expected elo0=E0,elo1=E1 with E0 < E1, got {text!r}")
    return values["elo0"], values["elo1"]


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text!r}")
    return value


def _time_control(args: argparse.Namespace) -> TimeControl:
    if args.main is not None:
        return TimeControl.fischer(args.main, args.increment, margin=args.margin)
    return TimeControl.fixed(args.per_move if args.per_move is not None else 1.0, margin=args.margin)


async def cmd_match(args: argparse.Namespace) -> int:
    if args.increment and args.main is None:
        print("vastuz match: --increment needs --main (a Fischer clock)", file=sys.stderr)
        return 2
    for which, command in (("BOT_A", args.bot_a), ("BOT_B", args.bot_b)):
        try:
            words = shlex.split(command)
        except ValueError as exc:
            print(f"vastuz match: {which}: cannot read the command {command!r}: {exc}", file=sys.stderr)
            return EXIT_USAGE
        problem = _program_problem(words)
        if problem is not None:
            print(f"vastuz match: {which}: {problem}", file=sys.stderr)
            return EXIT_USAGE
    out = args.out or Path("results") / time.strftime("match-%Y%m%d-%H%M%S")
    if args.sprt is not None:
        return await _match_sprt(args, out)
    spec = MatchSpec(
        bots=(BotCommand(args.bot_a, "A"), BotCommand(args.bot_b, "B")),
        games=args.games,
        out=out,
        size=args.size,
        opening=OpeningKind(args.opening),
        time_control=_time_control(args),
        concurrency=args.concurrency,
        seed=args.seed,
        command_timeout=args.command_timeout,
        startup_timeout=args.startup_timeout,
        transcripts=args.transcripts,
    )
    print(f"A: {args.bot_a}\nB: {args.bot_b}\nresults: {out / RESULTS_FILE}", flush=True)
    if args.games % 2:
        print(
            f"note: {args.games} games is an odd number: A makes the setup (or plays Black) once more "
            "than B, so colours are not balanced and the last game has no colour-reversed partner; "
            "an even --games keeps them balanced",
            flush=True,
        )

    def report(number: int, record: GameRecord) -> None:
        print(game_line(number, record), flush=True)

    def say(text: str) -> None:
        print(text, flush=True)

    try:
        summary = await run_match(spec, report, say)
    except VastuzError as exc:
        print(f"vastuz match: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print("\n".join(summary.lines()))
    print("\n".join(await trio.to_thread.run_sync(elo_lines, summary)))
    if summary.stopped is not None:
        print(f"vastuz match: stopped: {summary.stopped}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if summary.voids else EXIT_OK


async def _match_sprt(args: argparse.Namespace, out: Path) -> int:
    """``match --sprt``: the SPRT schedule of a tournament (tournament/sprt_schedule.py)
    between A and B, run by the tournament runner into ``out``."""
    from referee.ratings.report import render
    from referee.tournament.config_yaml import parse_config
    from referee.tournament.runner import Tournament

    if args.main is not None:
        clock: dict[str, float] = {"main": args.main, "increment": args.increment, "margin": args.margin}
    else:
        clock = {"per_move": args.per_move if args.per_move is not None else 1.0, "margin": args.margin}
    elo0, elo1 = args.sprt
    opening: object = (
        args.opening if args.opening != "random" else {"random": {"count": 1000, "seed": args.seed}}
    )
    data = {
        "name": "match-sprt",
        "board_size": args.size,
        "opening": opening,
        "time_control": clock,
        "schedule": {
            "kind": "sprt",
            "elo0": elo0,
            "elo1": elo1,
            "alpha": args.alpha,
            "beta": args.beta,
            "model": args.model,
            "max_games": args.max_games + args.max_games % 2,
        },
        "concurrency": args.concurrency,
        "output": str(out),
        "bots": [{"name": "A", "command": args.bot_a}, {"name": "B", "command": args.bot_b}],
    }
    try:
        config = parse_config(data, file="vastuz match --sprt", base_dir=Path.cwd())
        result = await Tournament(config, transcripts=args.transcripts).run()
    except VastuzError as exc:
        print(f"vastuz match: {exc}", file=sys.stderr)
        return EXIT_FAILED if not isinstance(exc, ConfigError) else EXIT_USAGE
    assert result.standings is not None
    print()
    print(render(result.standings, "text", title=f"A vs B: {result.resumed + result.played} games").rstrip())
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


# ---------------------------------------------------------------------------- show


def add_show_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "show",
        help="print a recorded game turn by turn with board diagrams",
        description="Replay a game record with the rules engine, printing the board after each turn.",
    )
    p.add_argument(
        "record", type=Path, metavar="RECORD", help="a games.jsonl file or a single-record .json file"
    )
    p.add_argument(
        "--game",
        help="which game of a .jsonl file: its number (from 1) or its game_id (default: the first)",
    )
    p.add_argument("--svg", type=Path, metavar="OUT.svg", help="write the board as an SVG picture instead")
    p.add_argument(
        "--turn",
        type=_turn_number,
        metavar="K",
        help="with --svg: the board after K turns (default: the end)",
    )
    p.add_argument("--groups", action="store_true", help="with --svg: outline the groups with their sizes")
    p.add_argument(
        "--html",
        type=Path,
        metavar="OUT.html",
        help="write a self-contained page that replays the game (every game of the file without --game)",
    )
    p.set_defaults(handler=cmd_show)


def _turn_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a turn number (0 or more), got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a turn number (0 or more), got {text!r}")
    return value


async def cmd_show(args: argparse.Namespace) -> int:
    if args.svg is None and (args.turn is not None or args.groups):
        print("vastuz show: --turn and --groups go with --svg", file=sys.stderr)
        return EXIT_USAGE
    if args.svg is not None or args.html is not None:
        return _show_picture(args)
    try:
        shown_game = load_game(args.record, args.game)
        text = render_game(shown_game.record)
    except OSError as exc:
        print(f"vastuz show: {args.record}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    except (ValueError, VastuzError) as exc:
        print(f"vastuz show: {args.record}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.game is None and shown_game.total > 1:
        print(
            f"showing game 1 of {shown_game.total} in {args.record} "
            "(choose another with --game NUMBER or ID)",
            file=sys.stderr,
        )
    print(text)
    return EXIT_OK


def _show_picture(args: argparse.Namespace) -> int:
    """``show --svg`` (one position) or ``show --html`` (a replay page)."""
    from referee.render.html import game_page
    from referee.render.svg import board_svg
    from referee.tools.show import position_after
    from referee.tournament.results import ResultsFile

    if args.svg is not None and args.html is not None:
        print("vastuz show: give --svg or --html, not both", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.svg is not None:
            record = load_game(args.record, args.game).record
            pos, last = position_after(record, args.turn)
            title = f"{record.game_id} after {len(record.turns) if args.turn is None else args.turn} turns"
            args.svg.write_text(
                board_svg(pos, last_turn=last, groups=args.groups, title=title), encoding="utf-8"
            )
            print(f"wrote {args.svg}")
        else:
            if args.game is not None or args.record.suffix == ".json":
                records = [load_game(args.record, args.game).record]
            else:
                records = ResultsFile(args.record).load().records
            args.html.write_text(game_page(records, title=f"{args.record.name}: games"), encoding="utf-8")
            print(f"wrote {args.html} ({len(records)} game(s))")
    except OSError as exc:
        print(f"vastuz show: {exc.filename or args.record}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    except (ValueError, VastuzError) as exc:
        print(f"vastuz show: {args.record}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


# ---------------------------------------------------------------------------- tournament


def add_tournament_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "tournament",
        help="run (or resume) a tournament from a YAML config and print the leaderboard",
        description=(
            "Run the tournament a YAML config describes (see configs/README.md). Results go to "
            "OUTPUT/results.jsonl as games finish; running the same command again resumes. "
            "Ctrl-C stops cleanly and keeps every finished game."
        ),
    )
    p.add_argument("config", type=Path, metavar="CONFIG", help="the tournament's YAML file")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the final leaderboard")
    p.add_argument(
        "--standings-every",
        type=_count_or_zero,
        default=10,
        metavar="N",
        help="print the standings every N games (0: only at the end; default 10)",
    )
    p.add_argument(
        "--transcripts", action="store_true", help="log every protocol line of every game under OUTPUT/logs/"
    )
    p.add_argument(
        "--concurrency",
        type=_count,
        metavar="N",
        help="games at once, overriding the config (it does not change which games are played)",
    )
    p.add_argument(
        "--check", action="store_true", help="validate the config, print the schedule size, play nothing"
    )
    p.add_argument(
        "--adopt",
        action="store_true",
        help="take results found without a tournament.json (deleted?) as this config's, after checking "
        "every game against its schedule",
    )
    p.set_defaults(handler=cmd_tournament)


async def cmd_tournament(args: argparse.Namespace) -> int:
    from referee.ratings.report import render
    from referee.tournament.config_yaml import load_config
    from referee.tournament.folder import shown
    from referee.tournament.runner import Tournament
    from referee.tournament.schedule import build_schedule

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"vastuz tournament: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.concurrency is not None:
        config = dataclasses.replace(config, concurrency=args.concurrency)
    if args.check:
        sprt = config.schedule.sprt
        if sprt is not None:
            size = (
                f"an SPRT [{sprt.elo0:g}, {sprt.elo1:g}] ({sprt.model.value}) of at most "
                f"{config.schedule.max_games} games"
            )
        else:
            size = f"{len(build_schedule(config))} games"
        print(f"{args.config}: valid; {len(config.bots)} bots, {size}, output {shown(config.output)}")
        return EXIT_OK
    tournament = Tournament(
        config,
        quiet=args.quiet,
        standings_every=max(0, args.standings_every),
        transcripts=args.transcripts,
        adopt=args.adopt,
    )
    try:
        result = await tournament.run()
    except VastuzError as exc:
        print(f"vastuz tournament: {exc}", file=sys.stderr)
        return EXIT_FAILED
    assert result.standings is not None
    title = f"{config.name}: {result.resumed + result.played} of {result.total} games"
    print()
    print(printable(render(result.standings, "text", title=title).rstrip(), keep_newlines=True))
    files = ", ".join(
        shown(result.folder / name) for name in ("standings.md", "standings.json", "standings.html")
    )
    print(f"\nstandings: {files}")
    if result.interrupted:
        print(
            f"stopped after {result.resumed + result.played} of {result.total} games; "
            "run the same command to resume"
        )
        return EXIT_INTERRUPTED
    return EXIT_FAILED if result.void else EXIT_OK


# ---------------------------------------------------------------------------- report


def add_report_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "report",
        help="rebuild the leaderboard of a results folder",
        description="Rebuild the standings of a tournament (or match) folder from its results file alone.",
    )
    p.add_argument("folder", type=Path, metavar="OUTPUT", help="a tournament's output folder (or a match's)")
    p.add_argument(
        "--format",
        choices=("text", "markdown", "json", "csv", "html"),
        default="text",
        help="output format (default text; html: the standings page with every game's replay)",
    )
    p.add_argument(
        "--bootstrap",
        type=_count_or_zero,
        default=1000,
        metavar="N",
        help="bootstrap samples for the intervals (0: none; default 1000)",
    )
    p.set_defaults(handler=cmd_report)


async def cmd_report(args: argparse.Namespace) -> int:
    from referee.ratings.report import render
    from referee.tournament.folder import load_standings

    try:
        st, title = await trio.to_thread.run_sync(
            lambda: load_standings(args.folder, bootstrap=max(0, args.bootstrap))
        )
    except (VastuzError, OSError) as exc:
        print(f"vastuz report: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.format == "html":
        from referee.tournament.pages import report_page

        try:
            text = await trio.to_thread.run_sync(lambda: report_page(args.folder, st, title))
        except (VastuzError, OSError) as exc:
            print(f"vastuz report: {exc}", file=sys.stderr)
            return EXIT_FAILED
        sys.stdout.write(text)
        return EXIT_OK
    text = render(st, args.format, title=title)
    # A results file is data from anywhere: game ids and warnings reach the terminal escaped.
    sys.stdout.write(printable(text, keep_newlines=True) if args.format in ("text", "markdown") else text)
    return EXIT_OK


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
    p.add_argument("--command-timeout", type=_positive, default=DEFAULT_COMMAND_TIMEOUT, metavar="SECONDS")
    p.add_argument("--startup-timeout", type=_positive, default=DEFAULT_STARTUP_TIMEOUT, metavar="SECONDS")
    p.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep each bot process's stderr and protocol transcript in DIR",
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
    problem = _program_problem(words)
    if problem is not None:
        print(f"vastuz check: {problem}", file=sys.stderr)
        return EXIT_USAGE
    options = CheckOptions(
        command=args.bot,
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
        report = await run_checks(options, show)
    finally:
        game_log.setLevel(level)
    done = {Status.PASS: "passed", Status.FAIL: "failed", Status.WARN: "warned", Status.SKIP: "skipped"}
    counts = ", ".join(f"{report.count(s)} {done[s]}" for s in Status)
    verdict = "no failures" if report.ok else "FAILED: fix the FAIL lines above"
    print(f"{len(report.results)} checks: {counts}; {verdict}")
    if args.logs is not None:
        print(f"logs: {args.logs}")
    return EXIT_OK if report.ok else EXIT_FAILED


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
    return parser


def _user_error(exc: BaseException) -> BaseException | None:
    """The user-facing error behind ``exc`` (unwrapping trio's single-error groups), if it
    is one: our own :class:`VastuzError`, or the operating system refusing a file."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, (VastuzError, OSError)) and not isinstance(exc, BrokenPipeError):
        return exc
    return None


def _broken_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` is a closed output pipe (possibly inside trio's single-error groups)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return isinstance(exc, BrokenPipeError)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
