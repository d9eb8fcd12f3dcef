"""Engine speed, on one core: ``python benchmarks/engine.py [--games N] [--seed S]``.

Prints, for board sizes 7 and 5:
- random full games per second through the public API (``random_turn`` then ``play``);
- ``play()`` validations per second, replaying recorded games turn by turn from fresh
  positions (nothing cached: this is what the referee does with a bot's turn);
- the same with the referee's loop around it (``is_over``, ``to_move``, then ``play``);
- ``legal_turns()`` calls per second on mid-game positions (and turns per call).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.engine import Position


def random_games(size: int, n: int, seed: int) -> tuple[float, list[list[str]]]:
    rng = random.Random(seed)
    games = []
    start = time.perf_counter()
    for _ in range(n):
        pos = Position.new(size)
        turns = []
        while not pos.is_over:
            turn = pos.random_turn(rng)
            pos = pos.play(turn)
            turns.append(turn)
        games.append(turns)
    return time.perf_counter() - start, games


def replay(size: int, games: list[list[str]]) -> tuple[float, int]:
    count = 0
    start = time.perf_counter()
    for turns in games:
        pos = Position.new(size)
        for turn in turns:
            pos = pos.play(turn)
        count += len(turns)
    return time.perf_counter() - start, count


def replay_as_referee(size: int, games: list[list[str]]) -> tuple[float, int]:
    """The referee's loop (referee/play/game.py): ``while not pos.is_over``, ``to_move``, ``play``."""
    count = 0
    start = time.perf_counter()
    for turns in games:
        pos = Position.new(size)
        it = iter(turns)
        while not pos.is_over:
            _ = pos.to_move  # the referee asks whose turn it is
            pos = pos.play(next(it))
        count += len(turns)
    return time.perf_counter() - start, count


def mid_game_positions(size: int, games: list[list[str]]) -> list[Position]:
    out = []
    for turns in games:
        pos = Position.new(size)
        for turn in turns[: len(turns) // 2]:
            pos = pos.play(turn)
        out.append(pos)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="random games per size (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, one core, {args.games} games per size")
    for size in (7, 5):
        dt, games = random_games(size, args.games, args.seed)
        mean_turns = sum(map(len, games)) / len(games)
        print(f"size {size}: {args.games / dt:8.0f} random games/s   ({mean_turns:.1f} turns per game)")
        dt, count = replay(size, games)
        print(f"size {size}: {count / dt:8.0f} play() validations/s on recorded turns")
        dt, count = replay_as_referee(size, games)
        print(f"size {size}: {count / dt:8.0f} referee turns/s (is_over, to_move, play) on recorded turns")
        positions = mid_game_positions(size, games)
        start = time.perf_counter()
        total = 0
        for pos in positions:
            total += len(pos.legal_turns())
        dt = time.perf_counter() - start
        print(
            f"size {size}: {len(positions) / dt:8.0f} legal_turns() calls/s on mid-game positions"
            f" ({total / len(positions):.1f} turns per call)"
        )


if __name__ == "__main__":
    main()
