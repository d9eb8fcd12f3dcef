"""``vastuz tournament`` and ``vastuz report``."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
from pathlib import Path

import trio

from referee.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    _count,
    _count_or_zero,
)
from referee.cli.serve import add_serve_options, serve_problem, served
from referee.errors import ClusterError, ConfigError, VastuzError
from referee.text import printable
from referee.tournament.config.checks import dask_address
from referee.tournament.config.values import MAX_BATCH, MAX_PROCESSES, ExecutorSpec, TournamentConfig

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
        metavar="N",
        help="print the whole standings table every N games (0: only at the end); by default one "
        "line of them every 10 games, the table at the end",
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
        "--dask",
        metavar="ADDRESS",
        help="play the games on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786), "
        "overriding the config's executor; needs the cluster extra (see docs/cluster.md)",
    )
    p.add_argument(
        "--batch",
        type=_count,
        metavar="GAMES",
        help="with --dask: games per cluster task (default 2, a colour-reversed pair)",
    )
    p.add_argument(
        "--processes",
        type=_count,
        metavar="N",
        help="spread the concurrent games over N referee processes on this machine (fast bots, "
        "several cores: one process referees about one core's worth of turns), overriding the config",
    )
    p.add_argument(
        "--output",
        type=Path,
        metavar="DIR",
        help="the output folder, overriding the config's `output` (another folder is another run: "
        "the same config played afresh, e.g. on a cluster after a local run)",
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
    add_serve_options(p)
    p.set_defaults(handler=cmd_tournament)


def _executor(args: argparse.Namespace, executor: ExecutorSpec) -> ExecutorSpec | str:
    """The config's executor with ``--dask``, ``--batch`` and ``--processes`` applied, or
    what is wrong with them."""
    if args.processes is not None:
        if args.dask is not None or args.batch is not None:
            return "--processes: not with --dask or --batch (processes: here; dask: on a cluster)"
        if args.processes > MAX_PROCESSES:
            return f"--processes: at most {MAX_PROCESSES}, got {args.processes}"
        return ExecutorSpec(processes=args.processes)
    if args.dask is not None:
        if dask_address(args.dask) is None:
            return f"--dask: expected a scheduler address like tcp://HOST:8786, got {printable(args.dask)!r}"
        executor = dataclasses.replace(executor, dask=args.dask, processes=1)
    if args.batch is not None:
        if executor.dask is None:
            return "--batch: only with --dask (or executor.dask in the config)"
        if args.batch > MAX_BATCH:
            return f"--batch: at most {MAX_BATCH} games, got {args.batch}"
        executor = dataclasses.replace(executor, batch=args.batch)
    return executor


def _defaults_filled_in(path: Path, config: TournamentConfig) -> str:
    """The top-level keys ``path`` leaves out, each with what the run uses for it (board 7
    when ``board_size`` is missing: a user should see it before the run, not after)."""
    from referee.tournament.config.keys import NO_DEFAULT, TOP
    from referee.tournament.config.loading import parse_yaml
    from referee.tournament.config.reading import read_user_text
    from referee.tournament.store.files import shown

    try:
        data = parse_yaml(read_user_text(path, "config"), file=str(path))
    except (OSError, ValueError, VastuzError):
        return ""
    given = set(data) if isinstance(data, dict) else set()
    out = []
    for key in TOP.keys:
        if key.name in given or key.name == "bots":
            continue
        value = getattr(config, key.name, None)
        if isinstance(value, Path):
            text = shown(value)
        elif isinstance(value, bool | int | float | str):
            text = f"{value:g}" if isinstance(value, float) else str(value)
        elif key.shown is not None:
            text = key.shown
        elif key.default is not NO_DEFAULT and not isinstance(key.default, dict | list):
            text = str(key.default)
        else:
            continue
        if text not in ("", "none", "False"):  # what is off by default needs no word
            out.append(f"{key.name} {text}")
    return ", ".join(out)


async def cmd_tournament(args: argparse.Namespace) -> int:
    from referee.render.standings_text import render
    from referee.tournament.config.loading import load_config
    from referee.tournament.runner import Tournament
    from referee.tournament.store.folder import shown

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"vastuz tournament: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.concurrency is not None:
        config = dataclasses.replace(config, concurrency=args.concurrency)
    if args.output is not None:
        config = dataclasses.replace(config, output=args.output)
    executor = _executor(args, config.executor)
    if isinstance(executor, str):
        print(f"vastuz tournament: {executor}", file=sys.stderr)
        return EXIT_USAGE
    config = dataclasses.replace(config, executor=executor)
    problem = None if args.serve is None else serve_problem(args)
    if problem is not None:
        print(f"vastuz tournament: --serve: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.check:
        from referee.tournament.executors.batch import GameSettings
        from referee.tournament.executors.choose import executor_for
        from referee.tournament.progress import cpu_lines, header

        try:
            where = executor_for(
                config, GameSettings.of(config, False), config.output, say=print, stop=lambda _reason: None
            )
        except VastuzError as exc:
            print(f"vastuz tournament: {exc}", file=sys.stderr)
            return EXIT_FAILED
        # The same header as the run's, before anything is started.
        what = config.schedule.describe(config.field)
        print(f"{args.config}: valid; {header(config, what, where.describe())}")
        print(f"results: {shown(config.output / 'results.jsonl')}")
        filled = _defaults_filled_in(args.config, config)
        if filled:
            print(f"defaults filled in (keys the config leaves out): {filled}")
        for line in cpu_lines(config, where.cores):
            print(line)
        return EXIT_OK
    try:
        tournament = Tournament(
            config,
            quiet=args.quiet,
            # The whole table only when asked for; else one line of it every 10 games.
            standings_every=10 if args.standings_every is None else args.standings_every,
            tables=args.standings_every is not None,
            transcripts=args.transcripts,
            adopt=args.adopt,
        )
        result = await (
            served(args, config.output, tournament.run) if args.serve or args.live else tournament.run()
        )
    except ClusterError as exc:  # Dask missing, a wrong address, a worker without a bot
        print(f"vastuz tournament: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
        help="0: no intervals; any other number: the intervals (likelihood-ratio, no sampling; default 1000)",
    )
    p.set_defaults(handler=cmd_report)


async def cmd_report(args: argparse.Namespace) -> int:
    # A report makes a few dozen objects a game and keeps most of them until it prints, and
    # makes no reference cycles worth freeing: Python's cyclic collector, run every 700 new
    # objects, walked them some 380 times in a report of 20,000 games (a tenth of its CPU)
    # and found nothing. It runs every 100,000 here, as long as the report does.
    threshold = gc.get_threshold()
    gc.set_threshold(100_000, *threshold[1:])
    try:
        return await _report(args)
    finally:
        gc.set_threshold(*threshold)


async def _report(args: argparse.Namespace) -> int:
    from referee.render.standings_text import render
    from referee.tournament.store.folder import load_standings

    # Everything a report reads is the folder it was given: a folder that is not a results
    # folder, or cannot be read, is bad input (exit 2).
    try:
        st, title = await trio.to_thread.run_sync(
            lambda: load_standings(args.folder, bootstrap=max(0, args.bootstrap))
        )
    except (VastuzError, OSError) as exc:
        print(f"vastuz report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "html":
        from referee.tournament.store.pages import report_page

        try:
            text = await trio.to_thread.run_sync(lambda: report_page(args.folder, st, title))
        except (VastuzError, OSError) as exc:
            print(f"vastuz report: {exc}", file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write(text)
        return EXIT_OK
    text = render(st, args.format, title=title)
    # A results file is data from anywhere: game ids and warnings reach the terminal escaped.
    sys.stdout.write(printable(text, keep_newlines=True) if args.format in ("text", "markdown") else text)
    return EXIT_OK
