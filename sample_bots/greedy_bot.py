"""The middle sample bot: one ply of the cheap evaluation.

``python -m sample_bots.greedy_bot [--seed N] [--max-turns K]``. It plays the turn after
which its score margin (:func:`sample_bots.evaluate.margin`: the score formula applied to
the stones as they stand) is largest, ties broken at random. When a position has more
than ``--max-turns`` complete turns (multi-steal turns can multiply into thousands), every
placement is still tried but its steal completions are sampled (see
:func:`~sample_bots.evaluate.turn_outcomes`).

Pie rule: the setup is two random points (a single stone each scores the same), and as
second player it takes Black, who moves first: one ply sees no reason to prefer White.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from protocol.bot import Bot, run
from referee.engine import Position
from sample_bots.evaluate import best_outcomes, turn_outcomes

DEFAULT_MAX_TURNS = 2000


class GreedyBot(Bot):
    """Best immediate margin; ``max_turns`` caps how many complete turns are evaluated."""

    name = "greedy"
    version = "1.0"

    def __init__(self, seed: int | None = None, max_turns: int = DEFAULT_MAX_TURNS) -> None:
        super().__init__(seed)
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        self.max_turns = max_turns

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        outcomes = turn_outcomes(position, self.max_turns, self.rng)
        _, tied = best_outcomes(outcomes, position.to_move)
        return self.rng.choice(tied).turn


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sample_bots.greedy_bot", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of every random choice (default: fresh)")
    parser.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=f"evaluate at most about this many complete turns per move (default {DEFAULT_MAX_TURNS})",
    )
    args = parser.parse_args(argv)
    if args.max_turns < 1:
        parser.error("--max-turns must be at least 1")
    run(GreedyBot(seed=args.seed, max_turns=args.max_turns))


if __name__ == "__main__":
    main()
