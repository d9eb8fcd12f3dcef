"""``vastuz rules``: the rules helper on stdin/stdout, or (``--vectors``) a rules
implementation checked against the conformance vectors."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from referee.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def add_rules_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "rules",
        help="the rules helper for bots in any language, or --vectors: test a rules implementation",
        description=(
            "Without --vectors: answer rules questions (legal_turns, play, random_turn...) on stdin/stdout,\n"
            "in the bot protocol's framing (PROTOCOL.md section 9). With --vectors FILE: run COMMAND (a\n"
            "program answering those commands; default this helper) against the conformance vectors\n"
            "(docs/vectors.md); exit 0 when every vector agrees, 1 otherwise."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seed", type=int, default=None, help="seed of random_turn without a SEED")
    p.add_argument(
        "--vectors", type=Path, metavar="FILE", help="a vectors file, e.g. tests/data/engine-vectors.jsonl"
    )
    p.add_argument(
        "implementation", nargs="?", metavar="COMMAND", help="the implementation to test (with --vectors)"
    )
    p.set_defaults(handler=cmd_rules)


async def cmd_rules(args: argparse.Namespace) -> int:
    if args.vectors is None:
        if args.implementation is not None:
            print("vastuz rules: COMMAND is only for --vectors", file=sys.stderr)
            return EXIT_USAGE
        from protocol.rules import RulesSession
        from protocol.session import serve

        serve(RulesSession(args.seed), sys.stdin.buffer, sys.stdout.buffer)  # blocking: nothing else runs
        return EXIT_OK
    from referee.tools.check_vectors import load_vectors, run_vectors

    command = args.implementation or shlex.join([sys.executable, "-m", "protocol.rules"])
    try:
        vectors = load_vectors(args.vectors)
    except (OSError, ValueError) as exc:
        print(f"vastuz rules: cannot read {args.vectors}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"vectors: {args.vectors} ({len(vectors)} positions); implementation: {command}", flush=True)
    report = await run_vectors(command, vectors, on_mismatch=lambda line: print(f"FAIL  {line}", flush=True))
    if report.error is not None:
        print(f"vastuz rules: {report.error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"{report.agreed} of {report.tried} positions agree; {len(report.mismatches)} mismatch(es)")
    return EXIT_OK if report.ok else EXIT_FAILED
