"""``vastuz match``: games between two commands (or an SPRT between them)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import trio

from referee.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    _count,
    _non_negative,
    _positive,
    _program_problem,
    _size,
    _whole,
)
from referee.errors import ConfigError, VastuzError
from referee.play.command import BotCommand
from referee.play.records import GameRecord
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_MARGIN,
    DEFAULT_STARTUP_TIMEOUT,
    OpeningKind,
    TimeControl,
)
from referee.tournament.match import RESULTS_FILE, MatchSpec, elo_lines, game_line, run_match

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
    from referee.tournament.config.loading import parse_config
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
