"""``vastuz show``: a recorded game as text, as an SVG picture, or as a replay page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
)
from referee.errors import VastuzError
from referee.tools.show import load_game, render_game

# ---------------------------------------------------------------------------- show


def add_show_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "show",
        help="print a recorded game turn by turn with board diagrams",
        description="Replay a game record with the rules engine, printing the board after each turn.",
    )
    p.add_argument(
        "record",
        type=Path,
        metavar="RECORD",
        help="a results.jsonl file, a single-record .json file or an .sgf file of vastuz export",
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
    except (OSError, ValueError, VastuzError) as exc:
        return _unreadable(args, exc)
    if args.game is None and shown_game.total > 1:
        print(
            f"showing game 1 of {shown_game.total} in {args.record} "
            "(choose another with --game NUMBER or ID)",
            file=sys.stderr,
        )
    print(text)
    return EXIT_OK


def _unreadable(args: argparse.Namespace, exc: Exception) -> int:
    """The record given is not one, or cannot be read: said, naming the file once; exit 2."""
    if isinstance(exc, OSError):
        print(f"vastuz show: {exc.filename or args.record}: {exc.strerror or exc}", file=sys.stderr)
    else:
        print(f"vastuz show: {args.record}: {exc}", file=sys.stderr)
    return EXIT_USAGE


def _show_picture(args: argparse.Namespace) -> int:
    """``show --svg`` (one position) or ``show --html`` (a replay page)."""
    from referee.render.html import game_page
    from referee.render.svg import board_svg
    from referee.tools.show import position_after

    if args.svg is not None and args.html is not None:
        print("vastuz show: give --svg or --html, not both", file=sys.stderr)
        return EXIT_USAGE
    # The record given is not one (or cannot be read): exit 2; the picture cannot be
    # written: exit 1.
    whole_file = args.html is not None and args.game is None and args.record.suffix not in (".json", ".sgf")
    if whole_file:
        return _whole_file_page(args)
    try:
        if args.svg is not None:
            record = load_game(args.record, args.game).record
            pos, last = position_after(record, args.turn)
            title = f"{record.game_id} after {len(record.turns) if args.turn is None else args.turn} turns"
            text = board_svg(pos, last_turn=last, groups=args.groups, title=title)
        else:
            records = [load_game(args.record, args.game).record]
            text = game_page(records, title=f"{args.record.name}: games")
    except (OSError, ValueError, VastuzError) as exc:
        return _unreadable(args, exc)
    out = args.svg if args.svg is not None else args.html
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"vastuz show: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {out}" + ("" if args.svg is not None else " (1 game(s))"))
    return EXIT_OK


def _whole_file_page(args: argparse.Namespace) -> int:
    """``show RESULTS --html FILE``: the replay page of every game of a results file, in
    the memory of one game at a time: each game's replay is written to a spool file as its
    line is read (the page's head, which names the board sizes, comes once all are read),
    then the page is put together in ``FILE``."""
    import shutil
    import tempfile

    from referee.play.records import GameRecord
    from referee.render.html import line_entry, page_frame
    from referee.tools.show import check_record_file
    from referee.tournament.store.results import ResultsFile

    sizes: set[int] = set()
    count = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:

        def add(item: tuple[GameRecord, str]) -> None:
            nonlocal count
            if count:
                spool.write(",")
            spool.write(item[1])
            sizes.add(item[0].size)
            count += 1

        try:
            check_record_file(args.record)
            ResultsFile(args.record).each(line_entry, add)
        except (OSError, ValueError, VastuzError) as exc:
            return _unreadable(args, exc)
        head, tail = page_frame(sizes, title=f"{args.record.name}: games")
        try:
            spool.seek(0)
            with open(args.html, "w", encoding="utf-8") as out:
                out.write(head)
                shutil.copyfileobj(spool, out, 1 << 20)
                out.write(tail)
        except OSError as exc:
            print(f"vastuz show: cannot write {args.html}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_FAILED
    print(f"wrote {args.html} ({count} game(s))")
    return EXIT_OK
