"""``vastuz match``: games between two commands (or an SPRT between them)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import shlex
import sys
import time
from collections import Counter
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
    add_timeout_options,
)
from referee.errors import ConfigError, VastuzError
from referee.play.lateness import Lateness
from referee.play.records import GameSummary, Termination
from referee.play.spec import DEFAULT_MARGIN, OpeningKind

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
    add_timeout_options(p)
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


async def cmd_match(args: argparse.Namespace) -> int:
    """A two-bot tournament: the config is written from the options (the schedule ``match``,
    or ``sprt`` with ``--sprt``) and played by the one runner into a tournament folder."""
    from referee.tournament.config.loading import parse_config
    from referee.tournament.runner import Tournament

    if args.increment and args.main is None:
        print("vastuz match: --increment needs --main (a Fischer clock)", file=sys.stderr)
        return EXIT_USAGE
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
    try:
        config = parse_config(_config(args, out), file="vastuz match", base_dir=Path.cwd())
    except ConfigError as exc:
        print(f"vastuz match: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config = dataclasses.replace(
        config, startup_timeout=args.startup_timeout, command_timeout=args.command_timeout
    )
    print(f"A: {args.bot_a}\nB: {args.bot_b}", flush=True)
    if args.sprt is None and args.games % 2:
        print(
            f"note: {args.games} games is an odd number: A makes the setup (or plays Black) once more "
            "than B, so colours are not balanced and the last game has no colour-reversed partner; "
            "an even --games keeps them balanced",
            flush=True,
        )
    stopped = None
    try:
        # A plain match shows no standings along the way; an SPRT its test every few pairs.
        every = 0 if args.sprt is None else 10
        result = await Tournament(config, transcripts=args.transcripts, standings_every=every).run()
    except VastuzError as exc:
        stopped = exc
        if not (out / "results.jsonl").exists():
            print(f"vastuz match: {exc}", file=sys.stderr)
            return EXIT_FAILED
    from referee.tournament.store.folder import latest_records
    from referee.tournament.store.results import ResultsFile

    warnings: list[str] = []
    summaries = latest_records(ResultsFile(out / "results.jsonl").summaries().records, warnings)
    print()
    print("\n".join(await trio.to_thread.run_sync(lambda: match_lines(summaries, ("A", "B"), warnings))))
    if stopped is not None:
        print(f"vastuz match: stopped: {stopped}", file=sys.stderr)
        return EXIT_FAILED
    if result.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if any(s.is_void for s in summaries) else EXIT_OK


def _config(args: argparse.Namespace, out: Path) -> dict[str, object]:
    """The tournament config of a match's options."""
    if args.main is not None:
        clock: dict[str, float] = {"main": args.main, "increment": args.increment, "margin": args.margin}
    else:
        clock = {"per_move": args.per_move if args.per_move is not None else 1.0, "margin": args.margin}
    if args.sprt is not None:
        elo0, elo1 = args.sprt
        schedule: dict[str, object] = {
            "kind": "sprt",
            "elo0": elo0,
            "elo1": elo1,
            "alpha": args.alpha,
            "beta": args.beta,
            "model": args.model,
            "max_games": args.max_games + args.max_games % 2,
        }
        openings = 1000
    else:
        schedule = {"kind": "match", "games": args.games}
        openings = (args.games + 1) // 2
    random = {"random": {"count": openings, "seed": args.seed}}
    return {
        "name": "match" if args.sprt is None else "match-sprt",
        "board_size": args.size,
        "opening": args.opening if args.opening != "random" else random,
        "time_control": clock,
        "schedule": schedule,
        "concurrency": args.concurrency,
        "output": str(out),
        "bots": [{"name": "A", "command": args.bot_a}, {"name": "B", "command": args.bot_b}],
    }


def match_lines(summaries: list[GameSummary], labels: tuple[str, str], warnings: list[str]) -> list[str]:
    """The end of a match report, as cutechess and fastchess print it: each bot's wins,
    draws and losses and its forfeits, the Elo difference of A over B with its 95% interval
    and the likelihood of superiority, the colour-reversed pairs, and every warning."""
    from referee.ratings.report import standings
    from referee.tournament.store.duplicates import repeat_warning

    a, b = labels
    wins: Counter[str] = Counter()
    losses: Counter[str] = Counter()
    failures: Counter[tuple[str, str]] = Counter()
    draws = voids = 0
    for s in summaries:
        if s.is_void:
            voids += 1
        elif s.winner is None:
            draws += 1
        else:
            wins[s.labels[s.winner]] += 1
            losses[s.labels[1 - s.winner]] += 1
            if s.termination is not Termination.SCORE:
                failures[(s.labels[1 - s.winner], s.termination.value)] += 1
    out = [f"{x}: {wins[x]} won, {draws} drawn, {losses[x]} lost" for x in labels]
    if voids:
        out.append(f"void games: {voids}")
    out.extend(f"{x} lost {n} game(s) by {kind}" for (x, kind), n in sorted(failures.items()))
    rated = [s for s in summaries if not s.is_void]
    warnings = list(warnings)
    if rated:
        st = standings(summaries, list(labels), anchor=b)
        line = {bot.name: bot for bot in st.lines}[a]
        los = st.lines[0].los_next
        if los is not None and st.lines[0].name != a:
            los = 1.0 - los
        los_text = "?" if los is None else f"{100 * los:.1f}%"
        out.append(
            f"Elo difference {a} - {b}: {_elo(line.elo)}, 95% interval [{_elo(line.elo_low)}, "
            f"{_elo(line.elo_high)}], LOS {los_text} ({a} stronger than {b}); {len(rated)} games rated"
        )
        for p in st.pairs:
            counts = "-".join(str(c) for c in p.counts)
            out.append(f"colour-reversed pairs: {p.pairs} ({p.a}'s points per pair 0-0.5-1-1.5-2: {counts})")
        warnings.extend(st.warnings)
    else:
        out.append("Elo difference: no rated games")
    repeats = repeat_warning(summaries)
    if repeats is not None:
        warnings.append(repeats)
    late = Lateness.of(summaries).line()
    if late is not None:
        out.append(late)
    out.extend(f"warning: {w}" for w in warnings)
    return out


def _elo(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "?"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"
