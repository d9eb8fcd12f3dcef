"""The weakest sample bot: a uniformly random placement, then random legal steals.

``python -m sample_bots.random_bot [--seed N]``. It is the floor of the strength ladder
(greedy must beat it clearly) and a cheap, always-legal opponent for tests. As first
player it puts the pie stones on two random points; as second player it picks a random
colour.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from protocol.bot import Bot, run
from referee.engine import Color, Position


class RandomBot(Bot):
    """A random legal turn each time (the engine's ``random_turn``)."""

    name = "random"
    version = "1.0"

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        return position.random_turn(self.rng)

    def choose_color(self, position: Position) -> Color:
        return self.rng.choice((Color.BLACK, Color.WHITE))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sample_bots.random_bot", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of every random choice (default: fresh)")
    args = parser.parse_args(argv)
    run(RandomBot(seed=args.seed))


if __name__ == "__main__":
    main()
