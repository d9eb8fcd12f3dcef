"""``vastuz export``: a results folder's games as PGN, SGF, a BayesElo script or CSV."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, failed
from referee.errors import VastuzError
from referee.text import printable
from referee.tools.export import FORMATS, load_games, render, write_sgf


def add_export_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "export",
        help="write a results folder's games as PGN, SGF, a BayesElo script or CSV",
        description=(
            "Export the games of a tournament or match folder (also a run stopped half-way) for other "
            "tools: pgn (results only; White is the first mover), sgf (one file per game, replayable "
            "with vastuz show), bayeselo (a script for BayesElo's console), csv (one row per game). "
            "Void games are left out of pgn, sgf and bayeselo, and named on stderr."
        ),
    )
    p.add_argument("output", type=Path, metavar="OUTPUT", help="the tournament's output folder")
    p.add_argument("--format", choices=FORMATS, required=True, help="what to write")
    p.add_argument(
        "--out",
        type=Path,
        metavar="PATH",
        help="the file to write (default: standard output); for sgf the folder (default OUTPUT/sgf)",
    )
    p.set_defaults(handler=cmd_export)


async def cmd_export(args: argparse.Namespace) -> int:
    # What the user gave is not a results folder (or cannot be read): exit 2; a file that
    # cannot be written (a full disk) once it was read: exit 1.
    try:
        games = load_games(args.output)
    except (OSError, ValueError, VastuzError) as exc:
        return failed("export", exc, args.output, EXIT_USAGE)
    try:
        for line in games.warnings:
            print(f"warning: {line}", file=sys.stderr)
        if games.void and args.format != "csv":
            ids = ", ".join(printable(r.game_id) for r in games.void)
            print(f"vastuz export: {len(games.void)} void game(s) left out: {ids}", file=sys.stderr)
        if args.format == "sgf":
            folder = args.out if args.out is not None else args.output / "sgf"
            written = write_sgf(games, folder)
            print(f"wrote {len(written)} SGF file(s) to {folder}")
            return EXIT_OK
        text = render(games, args.format)
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.write_text(text, encoding="utf-8")
            print(
                f"wrote {args.out} ({len([r for r in games.records if not r.is_void])} games)",
                file=sys.stderr,
            )
    except (OSError, ValueError, VastuzError) as exc:
        return failed("export", exc, args.output, EXIT_FAILED)
    return EXIT_OK
