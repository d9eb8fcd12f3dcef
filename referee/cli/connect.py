"""``vastuz connect URL --name NAME --token TOKEN [--program PATH] [--once] -- CMD ARGS``:
run a bot on this machine and relay it to a ladder over a websocket.

The bot is a subprocess (stdin and stdout piped, stderr left on this terminal). The client
says hello (name, token, the fingerprint of its program by the ladder's identity rules),
then relays: each server message's command lines to the bot's stdin, the bot's stdout to
the server one complete response per message (:class:`~referee.ladder.wire.Responses`).
A refusal (4401 wrong token, 4403 changed identity, 4409 already connected) ends it (exit
2); any other end of the connection is a lost connection: the bot is stopped and the
client connects again after a capped exponential backoff (1 s, 2 s, ... 30 s) with a fresh
bot (the one it had may be mid-answer: out of step). ``--once`` exits 1 at the first
lost connection instead. SIGTERM or Ctrl-C close the connection and reap the bot.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

import trio

from referee.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _program_problem

TOKEN_VARIABLE = "VASTUZ_TOKEN"
DEFAULT_MAX_MESSAGE = 65536


def add_connect_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "connect",
        usage="vastuz connect URL --name NAME [--token TOKEN] [--program PATH] [--once] -- CMD [ARGS ...]",
        help="play a bot on a ladder from this machine (a remote bot, over a websocket)",
        description=(
            "Run the bot CMD ARGS here and relay it to the ladder at URL (ws://HOST:PORT/, printed by the "
            "ladder and in its output folder's remote.json). NAME and TOKEN come from "
            "`vastuz ladder add-bot`; "
            f"the token may be given in the environment variable {TOKEN_VARIABLE} instead of --token, where "
            "other users cannot see it (a command line shows in ps). A lost connection is retried with a "
            "fresh bot; a refused one (wrong token, changed program, already connected) exits 2. ws:// "
            "sends the token in clear: across a network, use a TLS proxy (wss://)."
        ),
    )
    p.add_argument("url", metavar="URL", help="the ladder's address, ws://HOST:PORT/ (or wss://)")
    p.add_argument("--name", required=True, help="the remote bot's name on the ladder")
    p.add_argument("--token", help=f"its token (default: the environment variable {TOKEN_VARIABLE})")
    p.add_argument(
        "--program",
        type=Path,
        metavar="PATH",
        help="what the bot's fingerprint covers: a file or a folder (default: the command's executable and "
        "the files its arguments name)",
    )
    p.add_argument("--once", action="store_true", help="exit (1) at the first lost connection")
    p.add_argument(
        "--max-message",
        type=int,
        default=DEFAULT_MAX_MESSAGE,
        metavar="BYTES",
        help=f"the largest message taken from the ladder (default {DEFAULT_MAX_MESSAGE})",
    )
    p.add_argument("command", nargs="*", metavar="CMD", help="the bot's command and its arguments, after --")
    p.set_defaults(handler=cmd_connect)


async def cmd_connect(args: argparse.Namespace) -> int:
    where = "vastuz connect"
    words: list[str] = list(args.command)
    if words and words[0] == "--":
        words = words[1:]
    problem = _program_problem(words)
    if problem is not None:
        print(f"{where}: the bot's command (after --): {problem}", file=sys.stderr)
        return EXIT_USAGE
    token = args.token or os.environ.get(TOKEN_VARIABLE)
    if not token:
        print(f"{where}: no token: give --token TOKEN or set {TOKEN_VARIABLE}", file=sys.stderr)
        return EXIT_USAGE
    if not args.url.startswith(("ws://", "wss://")):
        print(f"{where}: URL: expected ws://HOST:PORT/ or wss://..., got {args.url!r}", file=sys.stderr)
        return EXIT_USAGE
    if args.program is not None and not args.program.exists():
        print(f"{where}: --program: no such file or folder: {args.program}", file=sys.stderr)
        return EXIT_USAGE
    if args.max_message < 1024:
        print(f"{where}: --max-message: at least 1024 bytes", file=sys.stderr)
        return EXIT_USAGE
    # The relay (and its websocket library) is imported here: every other command of the
    # CLI would pay for it at start-up.
    from referee.cli.relay import Client, remote_fingerprint
    from referee.ladder.wire import Hello

    try:
        fingerprint = await trio.to_thread.run_sync(remote_fingerprint, words, args.program)
    except OSError as exc:
        print(f"{where}: cannot read the bot's program: {exc}", file=sys.stderr)
        return EXIT_USAGE
    hello = Hello(args.name, token, fingerprint)
    client = Client(args.url, hello, words, args.max_message)
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for signum in signals:
                    client.stopped = signal.Signals(signum).name
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch)
            code = await client.run(once=args.once)
            nursery.cancel_scope.cancel()
    if client.stopped is not None:
        print(f"{where}: {client.stopped}: the connection is closed and the bot stopped", file=sys.stderr)
        return EXIT_INTERRUPTED if client.stopped == "SIGINT" else EXIT_OK
    return code


__all__ = ["DEFAULT_MAX_MESSAGE", "TOKEN_VARIABLE", "add_connect_parser", "cmd_connect"]
