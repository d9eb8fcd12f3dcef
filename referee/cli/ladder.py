"""``vastuz ladder LADDER.yaml`` (run), ``vastuz ladder status LADDER.yaml``, ``vastuz
ladder export LADDER.yaml [--out DIR]``, ``vastuz ladder add-bot LADDER.yaml NAME
[--new-token]`` (a remote bot's entry and its token, printed once)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from referee.cli.common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _count
from referee.cli.serve import add_serve_options, serve_problem, served
from referee.errors import ConfigError, VastuzError
from referee.tournament.config.values import MAX_PROCESSES, ExecutorSpec

if TYPE_CHECKING:
    from referee.ladder.config import LadderConfig

ACTIONS = ("status", "export")
ADD_BOT = "add-bot"


def add_ladder_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "ladder",
        usage=(
            "vastuz ladder [options] [status | export [--out DIR]] LADDER.yaml\n"
            "       vastuz ladder add-bot LADDER.yaml NAME [--new-token]"
        ),
        help="run a persistent ladder (rounds forever, rated continuously), or show or export one",
        description=(
            "vastuz ladder LADDER.yaml: play round after round over the ladder's store (an SQLite file "
            "in its output folder), until stopped: a stop file, SIGTERM or Ctrl-C finish the games in "
            "flight first; running it again resumes. vastuz ladder status LADDER.yaml: the rating list "
            "('?': provisional). vastuz ladder export LADDER.yaml [--out DIR]: every game's record as "
            "JSON lines (a results folder with --out, that vastuz report and vastuz export read). "
            "vastuz ladder add-bot LADDER.yaml NAME: register a remote bot (it plays through vastuz connect) "
            "and print its token, once (the store keeps only its hash); --new-token replaces it."
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
    p.add_argument(
        "--new-token",
        action="store_true",
        help="add-bot: a new token for a registered remote bot (the old one stops working)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no line per game")
    add_serve_options(p)
    p.set_defaults(handler=cmd_ladder)


async def cmd_ladder(args: argparse.Namespace) -> int:
    from referee.ladder.config import load_ladder, remote_executor_problem

    words: list[str] = args.words
    if words[0] == ADD_BOT:
        return await _add_bot(words, args)
    if args.new_token:
        print("vastuz ladder: --new-token goes with add-bot", file=sys.stderr)
        return EXIT_USAGE
    if len(words) > 2 or (len(words) == 2 and words[0] not in ACTIONS):
        print(
            f"vastuz ladder: expected [status|export] LADDER.yaml, got {' '.join(words)!r}", file=sys.stderr
        )
        return EXIT_USAGE
    action = words[0] if len(words) == 2 else "run"
    if args.out is not None and action != "export":
        print("vastuz ladder: --out goes with export", file=sys.stderr)
        return EXIT_USAGE
    if (args.serve is not None or args.live) and action != "run":
        print("vastuz ladder: --serve and --live go with running the ladder", file=sys.stderr)
        return EXIT_USAGE
    problem = None if args.serve is None else serve_problem(args)
    if problem is not None:
        print(f"vastuz ladder: --serve: {problem}", file=sys.stderr)
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
        problem = None if config.remote is None else remote_executor_problem(config.games)
        if problem is not None:
            print(f"vastuz ladder: --processes: {problem}", file=sys.stderr)
            return EXIT_USAGE
    try:
        if action == "run":
            return await _run(config, args)
        return await trio.to_thread.run_sync(_offline, config, action, args.out)
    except VastuzError as exc:
        print(f"vastuz ladder: {exc}", file=sys.stderr)
        return EXIT_FAILED


async def _run(config: LadderConfig, args: argparse.Namespace) -> int:
    from referee.ladder.loop import Ladder
    from referee.ladder.reading import write_view

    ladder = Ladder(config, quiet=args.quiet, stop_file=args.stop_file, rounds=args.rounds)
    write_view(config)  # what vastuz serve shows of the config beside the store
    if args.serve is not None or args.live:
        if config.games.executor.processes > 1 or config.games.executor.dask is not None:
            print(
                "vastuz ladder: note: the games of other processes are not live (only the in-process "
                "executor's are)",
                file=sys.stderr,
            )
        result = await served(args, config.output, ladder.run)
    else:
        result = await ladder.run()
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


async def _add_bot(words: list[str], args: argparse.Namespace) -> int:
    from referee.ladder.config import load_ladder

    if len(words) != 3:
        print(f"vastuz ladder: expected add-bot LADDER.yaml NAME, got {' '.join(words)!r}", file=sys.stderr)
        return EXIT_USAGE
    if args.out is not None:
        print("vastuz ladder: --out goes with export", file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_ladder(Path(words[1]), check_programs=False)
    except ConfigError as exc:
        print(f"vastuz ladder: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return await trio.to_thread.run_sync(_register, config, words[2], args.new_token)
    except VastuzError as exc:
        print(f"vastuz ladder: {exc}", file=sys.stderr)
        return EXIT_FAILED


def _register(config: LadderConfig, name: str, new_token: bool) -> int:
    """Register remote bot ``name`` (or give it a new token): the token on stdout, once."""
    from referee.ladder.entries import current_entries
    from referee.ladder.store import LadderStore
    from referee.ladder.wire import new_token as make_token
    from referee.ladder.wire import token_hash
    from referee.tournament.config.checks import MAX_NAME_LENGTH
    from referee.tournament.config.values import NAME_PATTERN

    where = f"vastuz ladder add-bot: {config.source}"
    if config.remote is None:
        print(f"{where}: no `remote:` key, so the ladder accepts no connections: add one", file=sys.stderr)
        return EXIT_USAGE
    if not NAME_PATTERN.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
        print(
            f"vastuz ladder add-bot: {name!r}: expected a name of letters, digits, '_', '-' and '.' "
            f"(at most {MAX_NAME_LENGTH} characters)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if name in config.games.bot_names:
        print(
            f"{where}: {name} is a local bot of this config; a remote bot needs another name", file=sys.stderr
        )
        return EXIT_USAGE
    token = make_token()
    with LadderStore(config.store) as store:
        entries = store.entries()
        entry = current_entries(entries).get(name)
        if entry is not None and not entry.remote:
            print(
                f"{where}: {name} is an entry of a local bot in the store; choose another name",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if entry is not None and not new_token:
            print(
                f"{where}: remote bot {entry.label} is registered already; --new-token gives it a new token "
                "(the old one stops working)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if entry is not None:
            store.set_token(entry.id, token_hash(token))
            said = f"remote bot {entry.label}: a new token (the old one no longer works)"
        elif name in {e.label for e in entries}:
            print(f"{where}: {name} names a retired entry; choose another name", file=sys.stderr)
            return EXIT_USAGE
        else:
            store.register(name, name, "", "remote (vastuz connect)", token_hash=token_hash(token))
            said = f"remote bot {name} registered"
    print(
        f"{said}. Its token, shown this once (the store keeps only its hash): keep it secret, and give it "
        f"to vastuz connect (--token, or VASTUZ_TOKEN in its environment)",
        file=sys.stderr,
    )
    print(token)
    return EXIT_OK
