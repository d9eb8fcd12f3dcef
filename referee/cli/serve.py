"""``vastuz serve``: results folders, live games and games against a bot in the browser."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from referee.cli.common import EXIT_OK, EXIT_USAGE, _count, _non_negative

DEFAULT_PORT = 8080
T = TypeVar("T")


def add_serve_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "serve",
        help="a web server: the runs' standings and games, ladders, live games, and playing a bot",
        description=(
            "Serve results folders (each OUTPUT, or the ones found under it) in the browser: the "
            "standings pages, every game, the games of a tournament in progress, and /play, where a "
            "person plays a bot of --bots FILE. A ladder's output folder (its ladder.sqlite, read "
            "only) is served too: its rating list, each bot's rating history and games, its live "
            "games. The JSON API is in docs/api.md. Binds 127.0.0.1 unless told otherwise; another "
            "host needs --token."
        ),
    )
    p.add_argument(
        "outputs", nargs="*", type=Path, metavar="OUTPUT", help="results or ladder folders (default: results)"
    )
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"the port (default {DEFAULT_PORT}; 0: any free one)"
    )
    p.add_argument(
        "--bots",
        type=Path,
        metavar="FILE",
        help="a bots file (like configs/bots.yaml): the bots a person may play",
    )
    p.add_argument(
        "--human-results",
        type=Path,
        default=Path("results/human"),
        metavar="DIR",
        help="the results folder of people's games (default results/human)",
    )
    p.add_argument("--token", help="a secret every request that starts or plays a game must carry")
    p.add_argument("--token-file", type=Path, metavar="FILE", help="read the token from FILE")
    p.add_argument(
        "--max-clients", type=_count, default=32, metavar="N", help="live-feed clients at once (default 32)"
    )
    p.add_argument(
        "--max-games", type=_count, default=4, metavar="N", help="people's games at once (default 4)"
    )
    p.add_argument(
        "--pages-every",
        type=_non_negative,
        default=2.0,
        metavar="SECONDS",
        help="a run going on that writes no standings of its own (--standings-every 0) gets its page "
        "made here again at most every SECONDS (default 2), and at most 5%% of the time",
    )
    p.set_defaults(handler=cmd_serve)


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, got {text}")
    return value


def read_token(args: argparse.Namespace) -> str | None:
    """The token of ``--token`` or ``--token-file``; ValueError with the reason."""
    if args.token is not None and args.token_file is not None:
        raise ValueError("give --token or --token-file, not both")
    token: str | None = args.token
    if args.token_file is not None:
        from referee.tournament.config.reading import MAX_TOKEN_BYTES, read_user_text

        try:
            token = read_user_text(args.token_file, "token", MAX_TOKEN_BYTES).strip()
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read the token file {args.token_file}: {exc}") from None
    if token is not None and len(token) < 8:
        raise ValueError("a token needs at least 8 characters")
    return token


def missing_extra() -> str | None:
    import importlib.util

    if all(importlib.util.find_spec(name) is not None for name in ("hypercorn", "starlette")):
        return None
    return "vastuz serve needs its extra: pip install -e '.[serve]' (hypercorn and starlette)"


async def cmd_serve(args: argparse.Namespace) -> int:
    problem = missing_extra()
    if problem is not None:
        print(f"vastuz serve: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from referee.errors import ConfigError, ResultsError
    from referee.serve.address import check_host
    from referee.serve.app import Limits
    from referee.serve.bots import load_bots
    from referee.serve.server import Settings, say_bound, serve

    roots = list(args.outputs) or [Path("results")]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        print(f"vastuz serve: not a folder: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        token = read_token(args)
        bots = {} if args.bots is None else load_bots(args.bots)
    except (ValueError, ConfigError) as exc:
        print(f"vastuz serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    settings = Settings(
        roots=roots,
        host=args.host,
        port=args.port,
        bots=bots,
        human_folder=args.human_results,
        token=token,
        limits=Limits(max_clients=args.max_clients, max_games=args.max_games),
        pages_every=args.pages_every,
    )
    problem = check_host(settings.host, settings.token)
    if problem is not None:
        print(f"vastuz serve: {problem}", file=sys.stderr)
        return EXIT_USAGE
    import signal

    import trio

    try:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async with trio.open_nursery() as nursery:
                bound = await nursery.start(serve, settings)
                print(say_bound(bound, token is not None), flush=True)
                if bots:
                    print(
                        f"people's games: {args.human_results} (bots: {', '.join(sorted(bots))})", flush=True
                    )
                async for _ in signals:  # stop: every bot of a game in progress is closed
                    nursery.cancel_scope.cancel()
                    break
    except ResultsError as exc:
        print(f"vastuz serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


# ---------------------------------------------------------------------------- tournament --serve


def add_serve_options(p: argparse.ArgumentParser) -> None:
    """``--serve [HOST:]PORT`` and ``--serve-token`` of ``vastuz tournament``."""
    p.add_argument(
        "--serve",
        type=_address,
        metavar="[HOST:]PORT",
        help="serve the run in the browser while it plays (as vastuz serve OUTPUT does, with its games "
        "moving live); HOST defaults to 127.0.0.1; only the default in-process executor shows live games",
    )
    p.add_argument("--serve-token", metavar="TOKEN", help="with --serve on another host than this machine's")
    p.add_argument(
        "--live",
        action="store_true",
        help="write the games in progress to OUTPUT/live.json (a few times a second, atomically), so a "
        "vastuz serve in another process shows them moving; in-process executor only",
    )


def _address(text: str) -> tuple[str, int]:
    from referee.serve.address import parse_address

    try:
        return parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def serve_problem(args: argparse.Namespace) -> str | None:
    """Why ``--serve`` cannot be done as asked (checked before the run starts), or None."""
    problem = missing_extra()
    if problem is not None:
        return problem
    from referee.serve.address import check_host

    host, _ = args.serve
    token = args.serve_token
    if token is not None and len(token) < 8:
        return "--serve-token: a token needs at least 8 characters"
    return check_host(host, token)


async def served(args: argparse.Namespace, folder: Path, work: Callable[[], Awaitable[T]]) -> T:
    """``work`` (the tournament) with the server of ``--serve`` and the live file of
    ``--live`` beside it."""
    from referee.serve.running import serve_while

    settings = None
    if args.serve is not None:
        from referee.serve.server import Settings

        host, port = args.serve
        settings = Settings(roots=[folder], host=host, port=port, token=args.serve_token)
    return await serve_while(
        settings, folder, work, lambda line: print(line, flush=True), live_file=args.live
    )
