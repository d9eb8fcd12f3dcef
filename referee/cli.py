"""The ``vastuz`` command line.

One function per subcommand (``cmd_match``, ``cmd_show``), each ``async`` and returning an
exit code; :func:`main` parses the arguments and calls ``trio.run`` once. To add a
subcommand: write ``add_<name>_parser(subparsers)`` that sets ``handler`` with
``set_defaults`` and an ``async def cmd_<name>(args) -> int``, and list it in
:func:`build_parser`.

Exit codes: 0 success; 1 the command ran but something failed (a void game, an unreadable
record); 2 bad usage (argparse); 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import trio

from referee.bot import DEFAULT_COMMAND_TIMEOUT, DEFAULT_STARTUP_TIMEOUT, BotCommand
from referee.config import DEFAULT_MARGIN, OpeningKind, TimeControl
from referee.engine import MAX_SIZE, MIN_SIZE, Position, TurnError
from referee.match import RESULTS_FILE, MatchSpec, game_line, run_match
from referee.records import GameRecord, iter_records

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _non_negative(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _size(text: str) -> int:
    value = int(text)
    if not MIN_SIZE <= value <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"board size must be {MIN_SIZE}..{MAX_SIZE}, got {text}")
    return value


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
    p.add_argument("--seed", type=int, default=0, help="seed of the random openings (default 0)")
    clock = p.add_mutually_exclusive_group()
    clock.add_argument("--per-move", type=_positive, metavar="SECONDS", help="limit per move (default 1)")
    clock.add_argument("--main", type=_positive, metavar="SECONDS", help="Fischer clock: main time per game")
    p.add_argument("--increment", type=_non_negative, default=0.0, metavar="SECONDS", help="Fischer increment per move")
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
    p.set_defaults(handler=cmd_match)


def _time_control(args: argparse.Namespace) -> TimeControl:
    if args.main is not None:
        return TimeControl.fischer(args.main, args.increment, margin=args.margin)
    return TimeControl.fixed(args.per_move if args.per_move is not None else 1.0, margin=args.margin)


async def cmd_match(args: argparse.Namespace) -> int:
    if args.increment and args.main is None:
        print("vastuz match: --increment needs --main (a Fischer clock)", file=sys.stderr)
        return 2
    out = args.out or Path("results") / time.strftime("match-%Y%m%d-%H%M%S")
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

    def report(number: int, record: GameRecord) -> None:
        print(game_line(number, record), flush=True)

    summary = await run_match(spec, report)
    print("\n".join(summary.lines()))
    return EXIT_FAILED if summary.voids else EXIT_OK


# ---------------------------------------------------------------------------- show


def add_show_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "show",
        help="print a recorded game turn by turn with board diagrams",
        description="Replay a game record with the rules engine, printing the board after each turn.",
    )
    p.add_argument("record", type=Path, metavar="RECORD", help="a games.jsonl file or a single-record .json file")
    p.add_argument("--game", default="1", help="which game of a .jsonl file: its number (from 1) or its game_id")
    p.set_defaults(handler=cmd_show)


def load_record(path: Path, game: str) -> GameRecord:
    """A record from a ``.json`` file, or game ``game`` (number or id) of a ``.jsonl`` file."""
    if path.suffix == ".json":
        return GameRecord.from_json(path.read_text(encoding="utf-8"))
    records = list(iter_records(path))
    for record in records:
        if record.game_id == game:
            return record
    if game.isdigit() and 1 <= int(game) <= len(records):
        return records[int(game) - 1]
    raise ValueError(f"{path}: no game {game!r} (the file holds {len(records)} game(s))")


def render(record: GameRecord) -> str:
    """The game as text: header, the board after the setup and after each turn, the result."""
    out = [f"game {record.game_id}: size {record.size}, opening {record.opening}, time {record.time_control}"]
    for seat, bot in enumerate(record.bots):
        colour = "black" if record.black == seat else "white" if record.white == seat else "-"
        out.append(f"  seat {seat} {bot.label} ({colour}): {bot.name or '?'} {bot.version or ''} [{bot.command}]")
    pos = Position.new(record.size)
    if record.setup is not None:
        who = "the referee" if record.setup.by is None else record.label_of(record.setup.by)
        out.append(f"setup by {who}: black {record.setup.black}, white {record.setup.white}")
        pos = pos.setup(record.setup.black, record.setup.white)
        out.append(pos.diagram())
    if record.choice is not None:
        out.append(f"{record.label_of(record.choice.by)} chose {record.choice.color.value}")
    for turn in record.turns:
        pos = pos.play(turn.turn)
        timing = "opening" if turn.opening else f"{turn.seconds:.3f} s" if turn.seconds is not None else ""
        if turn.left is not None:
            timing += f", {turn.left:.1f} s left"
        out.append(f"{turn.number}. {turn.color.value} {turn.turn} ({timing})")
        out.append(pos.diagram())
    out.append(f"result: {record.result} ({record.termination.value}): {record.reason}")
    if record.score is not None:
        out.append(f"score: black {record.score[0]:g}, white {record.score[1]:g}")
    out.extend(f"note: {note}" for note in record.notes)
    return "\n".join(out)


async def cmd_show(args: argparse.Namespace) -> int:
    try:
        record = load_record(args.record, args.game)
        text = render(record)
    except OSError as exc:
        print(f"vastuz show: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except (ValueError, TurnError) as exc:
        print(f"vastuz show: {args.record}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(text)
    return EXIT_OK


# ---------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vastuz", description="Vastuz arena: bot-vs-bot games and tournaments.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_match_parser(subparsers)
    add_show_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(trio.run(args.handler, args))
    except KeyboardInterrupt:
        print("vastuz: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``vastuz show ... | head``): not an error worth a traceback.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
