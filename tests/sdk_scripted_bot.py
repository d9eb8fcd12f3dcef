"""A real bot process built on the SDK, for tests/test_sdk.py.

Usage: ``python tests/sdk_scripted_bot.py [MODE] [SEED]``. MODE picks what choose_turn
does, so one script covers the SDK's handling of a well-behaved bot and of a buggy one:

* ``random`` (default): a legal random turn from the engine, after a debugging
  ``print()`` that the SDK must keep off the protocol channel;
* ``illegal``: always ``a1`` (soon occupied: an illegal turn the SDK must send anyway);
* ``raise``: raises, which the SDK must turn into a ``?`` answer;
* ``resign``: resigns.
"""

from __future__ import annotations

import sys

from protocol.bot import Bot, run
from referee.engine import Position


class ScriptedBot(Bot):
    name = "scripted"
    version = "1.0"

    def __init__(self, mode: str, seed: int) -> None:
        super().__init__(seed)
        self.mode = mode

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        if self.mode == "illegal":
            return "a1"
        if self.mode == "raise":
            raise RuntimeError("boom in choose_turn")
        if self.mode == "resign":
            return "resign"
        print(f"thinking about {len(position.legal_placements())} placements")  # SDK: to stderr
        return position.random_turn(self.rng)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "random"
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    run(ScriptedBot(mode, seed))
