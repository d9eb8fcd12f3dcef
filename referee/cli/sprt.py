"""``vastuz sprt``: the SPRT from counts typed in, offline (fastchess PR #783 asks the same).

With ``--penta`` it is the test a run computes (:mod:`referee.ratings.sprt`, on game pairs),
and it prints the run's two end lines (``SprtSchedule.end_lines``) exactly: given the same
counts, the same W-D-L and the same cap, the same text. With ``--wdl`` alone it runs the same
generalized test on single games (the pairs were not kept), and says so.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from referee.cli.common import EXIT_OK, EXIT_USAGE, finite
from referee.ratings.sprt import Model, Sprt


def _counts(size: int, what: str) -> Callable[[str], list[int]]:
    def parse(text: str) -> list[int]:
        parts = text.split(",")
        try:
            values = [int(p) for p in parts]
        except ValueError:
            values = []
        if len(values) != size or any(v < 0 for v in values):
            raise argparse.ArgumentTypeError(
                f"expected {size} counts {what} (whole numbers, 0 or more), got {text!r}"
            )
        return values

    return parse


def _elo(text: str) -> float:
    return finite(text, "an Elo value")


def _probability(text: str) -> float:
    value = finite(text, "a probability between 0 and 1")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text!r}")
    return value


def add_sprt_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "sprt",
        help="the SPRT of pentanomial or W-D-L counts, offline",
        description=(
            "Compute the SPRT a run would (the generalized SPRT on colour-reversed game pairs) from "
            "counts: --penta LL,LD,DD+WL,WD,WW (pairs the candidate scored 0, 0.5, 1, 1.5, 2 in), "
            "optionally with --wdl W,D,L (the candidate's games) for the run's W-D-L; or --wdl alone "
            "(a test on single games, for counts not kept by pairs). Prints the LLR, the bounds, the "
            "decision and the Elo estimates in the run's words."
        ),
    )
    p.add_argument("--penta", type=_counts(5, "LL,LD,DD+WL,WD,WW"), metavar="LL,LD,DD+WL,WD,WW")
    p.add_argument("--wdl", type=_counts(3, "W,D,L"), metavar="W,D,L")
    p.add_argument("--elo0", type=_elo, required=True, help="H0's Elo")
    p.add_argument("--elo1", type=_elo, required=True, help="H1's Elo (above elo0)")
    p.add_argument("--alpha", type=_probability, default=0.05, help="false positive rate (default 0.05)")
    p.add_argument("--beta", type=_probability, default=0.05, help="false negative rate (default 0.05)")
    p.add_argument(
        "--model",
        choices=[m.value for m in Model],
        default=Model.NORMALIZED.value,
        help="normalized (default) or logistic Elo",
    )
    p.add_argument(
        "--max-games",
        type=int,
        metavar="N",
        help="the run's cap: an undecided test that reached it is inconclusive (as the run says)",
    )
    p.set_defaults(handler=cmd_sprt)


async def cmd_sprt(args: argparse.Namespace) -> int:
    if args.penta is None and args.wdl is None:
        print("vastuz sprt: give --penta LL,LD,DD+WL,WD,WW or --wdl W,D,L (or both)", file=sys.stderr)
        return EXIT_USAGE
    if args.penta is not None and args.wdl is not None and 2 * sum(args.penta) != sum(args.wdl):
        print(
            f"vastuz sprt: --penta counts {sum(args.penta)} pairs, which are {2 * sum(args.penta)} games, "
            f"but --wdl counts {sum(args.wdl)} games",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.max_games is not None and (args.max_games < 2 or args.max_games % 2):
        print(
            f"vastuz sprt: --max-games: expected an even number, 2 or more, got {args.max_games}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta, Model(args.model))
    except ValueError as exc:
        print(f"vastuz sprt: {exc}", file=sys.stderr)
        return EXIT_USAGE
    wdl = None if args.wdl is None else (args.wdl[0], args.wdl[1], args.wdl[2])
    if args.penta is not None:
        status = test.status(args.penta)
        games = 2 * status.pairs
    else:
        assert wdl is not None
        status = test.status_of_games(wdl)
        games = sum(wdl)
    capped = args.max_games is not None and games >= args.max_games
    print(f"SPRT: {status.line(wdl)}")
    print(f"SPRT: {status.words(capped=capped)}")
    return EXIT_OK
