"""``vastuz ladder LADDER.yaml`` (run), ``vastuz ladder status LADDER.yaml``, ``vastuz
ladder export LADDER.yaml [--out DIR]``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from referee.cli.common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _count
from referee.errors import ConfigError, VastuzError
from referee.tournament.config.values import MAX_PROCESSES, ExecutorSpec

if TYPE_CHECKING:
    from referee.ladder.config import LadderConfig

ACTIONS = ("status", "export")


def add_ladder_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "ladder",
        usage="vastuz ladder [options] [status | export [--out DIR]] LADDER.yaml",
        help="run a persistent ladder (rounds forever, rated continuously), or show or export one",
        description=(
            "vastuz ladder LADDER.yaml: play round after round over the ladder's store (an SQLite file "
            "in its output folder), until stopped: a stop file, SIGTERM or Ctrl-C finish the games in "
            "flight first; running it again resumes. vastuz ladder status LADDER.yaml: the rating list "
            "('?': provisional). vastuz ladder export LADDER.yaml [--out DIR]: every game's record as "
            "JSON lines (a results folder with --out, that vastuz report and vastuz export read)."
        ),
    )
    p.add_argument(
        "words", nargs="+", metavar="[status|export] LADDER.yaml", help="what to do, and the config"
    )
    p.add_argument(
        "--stop-file", type=Path, metavar="PATH", help="stop (after the games in flight) once PATH exists"
    )
    p.add_argument("--rounds", type=_count, metavar="N", help="stop after N rounds (a resumed one counts)")
    p.add_argument("--concurrency", type=_count, metavar="N", help="games at once, overriding the config")
    p.add_argument(
        "--processes",
        type=_count,
        metavar="N",
        help="spread the games over N referee processes on this machine",
    )
    p.add_argument("--out", type=Path, metavar="DIR", help="export: the results folder to write")
    p.add_argument("-q", "--quiet", action="store_true", help="no line per game")
    p.set_defaults(handler=cmd_ladder)


async def cmd_ladder(args: argparse.Namespace) -> int:
    from referee.ladder.config import load_ladder

    words: list[str] = args.words
    if len(words) > 2 or (len(words) == 2 and words[0] not in ACTIONS):
        print(
            f"vastuz ladder: expected [status|export] LADDER.yaml, got {' '.join(words)!r}", file=sys.stderr
        )
        return EXIT_USAGE
    action = words[0] if len(words) == 2 else "run"
    if args.out is not None and action != "export":
        print("vastuz ladder: --out goes with export", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_ladder(Path(words[-1]), check_programs=action == "run")
    except ConfigError as exc:
        print(f"vastuz ladder: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.concurrency is not None or args.processes is not None:
        if args.processes is not None and args.processes > MAX_PROCESSES:
            print(f"vastuz ladder: --processes: at most {MAX_PROCESSES}", file=sys.stderr)
            return EXIT_USAGE
        games = config.games
        executor = games.executor if args.processes is None else ExecutorSpec(processes=args.processes)
        concurrency = games.concurrency if args.concurrency is None else args.concurrency
        config = dataclasses.replace(
            config, games=dataclasses.replace(games, executor=executor, concurrency=concurrency)
        )
    try:
        if action == "run":
            return await _run(config, args)
        return await trio.to_thread.run_sync(_offline, config, action, args.out)
    except VastuzError as exc:
        print(f"vastuz ladder: {exc}", file=sys.stderr)
        return EXIT_FAILED


async def _run(config: LadderConfig, args: argparse.Namespace) -> int:
    from referee.ladder.loop import Ladder

    result = await Ladder(config, quiet=args.quiet, stop_file=args.stop_file, rounds=args.rounds).run()
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def _offline(config: LadderConfig, action: str, out: Path | None) -> int:
    from referee.errors import ResultsError
    from referee.ladder.status import export_folder, status_text, write_records
    from referee.ladder.store import LadderStore

    if not config.store.exists():
        raise ResultsError(
            f"{config.store}: no store yet (run the ladder first: vastuz ladder {config.source})"
        )
    with LadderStore(config.store) as store:
        if action == "status":
            sys.stdout.write(status_text(config, store))
        elif out is None:
            write_records(store, sys.stdout)
        else:
            n = export_folder(config, store, out)
            print(f"wrote {n} games to {out} (vastuz report {out} rates them)", file=sys.stderr)
    return EXIT_OK
