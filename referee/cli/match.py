"""``vastuz match``: games between two commands (or an SPRT between them)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
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
    _size,
    _whole,
    add_timeout_options,
    bot_command_words,
)
from referee.errors import ConfigError, VastuzError
from referee.play.lateness import Lateness
from referee.play.records import GameSummary, Termination
from referee.play.spec import DEFAULT_MARGIN, OpeningKind
from referee.tournament.config.checks import MAX_NAME_LENGTH
from referee.tournament.config.values import NAME_PATTERN

# ---------------------------------------------------------------------------- match


def add_match_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "match",
        help="play games between two bot commands",
        description="Play games between two bots, alternating who makes the setup (or plays Black).",
    )
    p.add_argument(
        "bot_a", metavar="BOT_A", help="command of the first bot, e.g. 'python -m sample_bots.random_bot'"
    )
    p.add_argument("bot_b", metavar="BOT_B", help="command of the second bot")
    p.add_argument(
        "--name-a",
        type=_bot_name,
        metavar="NAME",
        help="the first bot's name in the results (default: its answer to 'name', else its program's)",
    )
    p.add_argument("--name-b", type=_bot_name, metavar="NAME", help="the second bot's name (likewise)")
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
    p.add_argument(
        "--book",
        type=Path,
        metavar="FILE",
        help="play the openings of this book (one 'B W [turn ...]' a line; see vastuz book make), "
        "each from both sides, in place of --opening",
    )
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
    sprt = p.add_argument_group("SPRT (BOT_A is the candidate, BOT_B the baseline; --games is then ignored)")
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


def _bot_name(text: str) -> str:
    if not NAME_PATTERN.fullmatch(text) or len(text) > MAX_NAME_LENGTH:
        raise argparse.ArgumentTypeError(
            f"expected a name of letters, digits, '_', '.' and '-' (at most {MAX_NAME_LENGTH}), got {text!r}"
        )
    return text


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
        if bot_command_words(command, f"vastuz match: {which}") is None:
            return EXIT_USAGE
    if args.book is not None and args.opening != OpeningKind.PIE.value:
        print("vastuz match: --book replaces --opening (the book sets the stones)", file=sys.stderr)
        return EXIT_USAGE
    if args.name_a is not None and args.name_a == args.name_b:
        print(f"vastuz match: --name-a and --name-b are both {args.name_a!r}", file=sys.stderr)
        return EXIT_USAGE
    out = args.out or Path("results") / time.strftime("match-%Y%m%d-%H%M%S")
    names = await match_names(args, out)
    try:
        config = parse_config(_config(args, out, names), file="vastuz match", base_dir=Path.cwd())
    except ConfigError as exc:
        print(f"vastuz match: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config = dataclasses.replace(
        config, startup_timeout=args.startup_timeout, command_timeout=args.command_timeout
    )
    print(f"{names[0]}: {args.bot_a}\n{names[1]}: {args.bot_b}", flush=True)
    if args.sprt is None and args.games % 2:
        print(
            f"note: {args.games} games is an odd number: {names[0]} makes the setup (or plays Black) once "
            f"more than {names[1]}, so colours are not balanced and the last game has no colour-reversed "
            "partner; an even --games keeps them balanced",
            flush=True,
        )
    stopped = None
    try:
        # A plain match shows no standings along the way; an SPRT its test's line every few
        # pairs (no table: the test is what one reads).
        every = 0 if args.sprt is None else 10
        result = await Tournament(
            config, transcripts=args.transcripts, standings_every=every, tables=False
        ).run()
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
    print("\n".join(await trio.to_thread.run_sync(lambda: match_lines(summaries, names, warnings))))
    if stopped is not None:
        print(f"vastuz match: stopped: {stopped}", file=sys.stderr)
        return EXIT_FAILED
    if result.interrupted:
        return EXIT_INTERRUPTED
    if all(s.is_void for s in summaries):
        # A bot's CI must not pass on a match that rated nothing (a bot that never started).
        print(f"vastuz match: no game was rated (see {out / 'results.jsonl'})", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if any(s.is_void for s in summaries) else EXIT_OK


async def match_names(args: argparse.Namespace, out: Path) -> tuple[str, str]:
    """The two bots' names: ``--name-a``/``--name-b``; else, resuming into a folder, the
    names its games were played under; else each bot's answer to ``name`` (a start of each,
    both at once); else its program's name. Never a colour's letter alone (``B (B)`` would
    read as a colour), and never the same twice (``-1``, ``-2`` are added)."""
    from referee.tournament.store.manifest import Manifest

    given = [args.name_a, args.name_b]
    if None not in given:
        return given[0], given[1]
    try:
        manifest = Manifest.load(out)
    except VastuzError:
        manifest = None
    if manifest is not None and len(manifest.bots) == 2:
        kept = manifest.bots
        return given[0] or kept[0], given[1] or kept[1]
    answers: list[str | None] = [None, None]

    async def ask(k: int, command: str) -> None:
        if given[k] is None:
            answers[k] = await _name_answer(command, args.startup_timeout)

    async with trio.open_nursery() as nursery:
        for k, command in enumerate((args.bot_a, args.bot_b)):
            nursery.start_soon(ask, k, command)
    names = [given[k] or _usable(answers[k]) or _usable(_program_name(c)) or f"bot-{'ab'[k]}"
             for k, c in enumerate((args.bot_a, args.bot_b))]  # fmt: skip
    if names[0] == names[1]:
        names = [f"{names[0][: MAX_NAME_LENGTH - 2]}-{k + 1}" for k in (0, 1)]
    return names[0], names[1]


async def _name_answer(command: str, timeout: float) -> str | None:
    """A bot's answer to ``name`` from a start of its own (closed at once), None if it
    does not start: the match then records that start failure in its games."""
    from referee.play.command import BotCommand
    from referee.play.faults import BotFault, BotStartError
    from referee.play.options import BotOptions
    from referee.play.process import BotProcess

    bot = BotProcess.of(BotCommand(command, "probe"), BotOptions(startup_timeout=timeout))
    async with trio.open_nursery() as nursery:
        try:
            await bot.start(nursery)
            return bot.name
        except (BotFault, BotStartError, OSError):
            return None
        finally:
            with trio.CancelScope(shield=True):
                await bot.aclose()


def _usable(name: str | None) -> str | None:
    """``name`` as a bot name of the results (the letters file names allow), or None."""
    if not name or any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in name):
        return None  # terminal escapes in a name: the program's name is used instead
    text = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:MAX_NAME_LENGTH]
    return text if text and text not in ("B", "W") else None


def _program_name(command: str) -> str | None:
    """A name from a command: the module of ``python -m pkg.bot``, the script an
    interpreter runs, else the program's file name (``./mybot`` -> ``mybot``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1].rsplit(".", 1)[-1]
    program = Path(words[0]).name
    if re.match(r"(python[0-9.]*|node|perl|ruby|bash|sh|lua|php|java)$", program) and len(words) > 1:
        scripts = [w for w in words[1:] if not w.startswith("-")]
        if scripts:
            return Path(scripts[0]).stem
    return Path(program).stem


def _config(args: argparse.Namespace, out: Path, names: tuple[str, str]) -> dict[str, object]:
    """The tournament config of a match's options, its bots called ``names``."""
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
    opening: object = args.opening if args.opening != "random" else random
    if args.book is not None:
        opening = {"book": str(args.book)}
    return {
        "name": "match" if args.sprt is None else "match-sprt",
        "board_size": args.size,
        "opening": opening,
        "time_control": clock,
        "schedule": schedule,
        "concurrency": args.concurrency,
        "output": str(out),
        "bots": [{"name": names[0], "command": args.bot_a}, {"name": names[1], "command": args.bot_b}],
    }


def match_lines(summaries: list[GameSummary], labels: tuple[str, str], warnings: list[str]) -> list[str]:
    """The end of a match report, as cutechess and fastchess print it: each bot's wins,
    draws and losses and its forfeits, the Elo difference of A over B with its 95% interval
    and the likelihood of superiority, the colour-reversed pairs, and every warning."""
    from referee.ratings.forfeits import time_loss_warnings
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
    warnings.extend(time_loss_warnings(summaries, labels))
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
