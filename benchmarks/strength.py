"""Strength ladder of the sample bots, in-process: ``python benchmarks/strength.py
[--games 40] [--move-time 0.2] [--size 5] [--seed 1] [--playout light|random]
[--matches mcts-greedy,greedy-random,mcts-random]``.

Each match plays ``--games`` games between two bots with the pie rule: the bots take the
first-player role (``choose_setup``) in turn, the other bot picks its colour
(``choose_color``), then turns alternate through ``choose_turn`` with ``time_left`` set to
``--move-time`` (a simulated per-move limit, announced to the MCTS bot as GTP stones=1).
The referee with real processes is another tool; this one measures the bots themselves.

Prints, per match, the first bot's score (win 1, draw 1/2) with a 95% interval (Wilson),
wins/draws/losses, the colours it won with, and the MCTS bot's playouts per second.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.bot import Bot
from referee.engine import Color, Position
from sample_bots.greedy_bot import GreedyBot
from sample_bots.mcts_bot import MctsBot
from sample_bots.random_bot import RandomBot

BOT_NAMES = ("random", "greedy", "mcts")


@dataclass
class MatchResult:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_as: dict[str, int] = field(default_factory=lambda: {"black": 0, "white": 0})
    playouts: int = 0
    search_seconds: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a proportion (draws count as half a win)."""
    if n == 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (score + z * z / (2 * n)) / denom
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def make_bot(name: str, seed: int, move_time: float, playout: str = "light") -> Bot:
    if name == "random":
        return RandomBot(seed=seed)
    if name == "greedy":
        return GreedyBot(seed=seed)
    if name == "mcts":
        bot = MctsBot(seed=seed, move_time=move_time, playout=playout)
        bot.set_time_control(increment=0.0, stones=1)
        return bot
    raise ValueError(f"unknown bot {name!r}; one of {', '.join(BOT_NAMES)}")


def play_game(first: Bot, second: Bot, size: int, move_time: float) -> tuple[Position, dict[Color, Bot]]:
    """One pie-rule game: ``first`` sets up, ``second`` picks a colour, then play to the end."""
    for bot in (first, second):
        bot.on_new_game()
    empty = Position.new(size)
    black_point, white_point = first.choose_setup(empty)
    position = empty.setup(black_point, white_point)
    color = Color.parse(str(second.choose_color(position)))
    sides = {color: second, color.opponent: first}
    while not position.is_over:
        if position.must_pass:
            position = position.play("pass")
            continue
        position = position.play(sides[position.to_move].choose_turn(position, move_time))
    return position, sides


def play_match(
    a: str,
    b: str,
    games: int,
    size: int,
    move_time: float,
    seed: int,
    *,
    playout: str = "light",
    log: bool = True,
) -> MatchResult:
    """``games`` games of bot ``a`` against bot ``b``, alternating the first-player role."""
    result = MatchResult()
    for i in range(games):
        bot_a = make_bot(a, seed * 1000 + 2 * i, move_time, playout)
        bot_b = make_bot(b, seed * 1000 + 2 * i + 1, move_time, playout)
        first, second = (bot_a, bot_b) if i % 2 == 0 else (bot_b, bot_a)
        final, sides = play_game(first, second, size, move_time)
        color_a = next(c for c, bot in sides.items() if bot is bot_a)
        winner = final.winner
        if winner is None:
            result.draws += 1
        elif winner is color_a:
            result.wins += 1
            result.wins_as[color_a.value] += 1
        else:
            result.losses += 1
        for bot in (bot_a, bot_b):
            if isinstance(bot, MctsBot):
                result.playouts += bot.total_playouts
                result.search_seconds += bot.total_seconds
        if log:
            print(
                f"  game {i + 1:>3}: {a} ({color_a.value}, {'first' if first is bot_a else 'second'} player) "
                f"{final.result()}  running score {result.score:.3f}",
                flush=True,
            )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per match (default 40)")
    parser.add_argument("--move-time", type=float, default=0.2, help="seconds per move (default 0.2)")
    parser.add_argument("--size", type=int, default=5, help="board size (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    parser.add_argument(
        "--matches",
        default="mcts-greedy,greedy-random,mcts-random",
        help="comma-separated A-B pairs (default mcts-greedy,greedy-random,mcts-random)",
    )
    parser.add_argument(
        "--playout", choices=("random", "light"), default="light", help="the MCTS bot's playouts"
    )
    parser.add_argument("--quiet", action="store_true", help="no per-game lines")
    args = parser.parse_args()
    pairs = []
    for item in args.matches.split(","):
        a, _, b = item.strip().partition("-")
        if a not in BOT_NAMES or b not in BOT_NAMES:
            parser.error(f"bad match {item!r}: use A-B with A, B in {', '.join(BOT_NAMES)}")
        pairs.append((a, b))
    print(
        f"size {args.size}, {args.games} games per match, {args.move_time} s per move, seed {args.seed}, "
        f"mcts playouts {args.playout}",
        flush=True,
    )
    summary = []
    for a, b in pairs:
        print(f"{a} vs {b}:", flush=True)
        start = time.perf_counter()
        r = play_match(
            a, b, args.games, args.size, args.move_time, args.seed, playout=args.playout, log=not args.quiet
        )
        lo, hi = wilson(r.score, r.games)
        line = (
            f"{a} vs {b}: {a} scores {100 * r.score:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%), "
            f"+{r.wins} ={r.draws} -{r.losses}, "
            f"wins as black {r.wins_as['black']}, as white {r.wins_as['white']}; "
            f"{time.perf_counter() - start:.0f} s"
        )
        if r.search_seconds:
            line += f"; mcts {r.playouts / r.search_seconds:.0f} playouts/s"
        print(line, flush=True)
        summary.append(line)
    print("\nsummary:")
    for line in summary:
        print("  " + line)


if __name__ == "__main__":
    main()
