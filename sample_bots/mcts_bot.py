"""The strongest sample bot: Monte Carlo tree search (UCT) within a time budget.

``python -m sample_bots.mcts_bot [--seed N] [--move-time S] [--exploration C]
[--playout random|light] [--max-playouts K] [--widening A]``

Design, and why:

- **The tree is over placements; steals are chosen by a policy.** A turn is a placement
  plus a sequence of compulsory steals, and multi-steal turns can multiply one position's
  turn count into the thousands. Most steal choices differ only in which enemy stone moves
  where, and the one-ply evaluation (:func:`sample_bots.evaluate.margin`) judges those well,
  so each tree edge is a placement whose steals are finished greedily
  (:func:`~sample_bots.evaluate.greedy_completion`). The branching factor is then at most
  the number of empty points, and the search spends its playouts on where to play, which is
  what one ply cannot see.
- **Progressive widening in evaluation order.** With a few hundred playouts per move and
  up to 60 (size 5) or 127 (size 7) placements, plain UCT would spread one or two playouts
  over every child. A node's children are therefore ranked once by the one-ply margin
  (ties in random order) and only the first ``3 + visits ** widening`` may be expanded. With
  no playouts at all the bot would play the greedy bot's move; every playout can only
  overrule it where the continuation disagrees, which is what makes "mcts beats greedy" a
  test of the search rather than of a different evaluation.
- **Playouts.** ``random``: the engine's ``random_turn`` to the end (about 1 ms a game on
  size 5). ``light`` (default): each turn draws two random placements and keeps the one
  whose greedy completion scores better for the mover; about three times slower, but
  playouts that do not throw away groups make the win rates far more informative.
  A playout's value is the win (1, draw 0.5, loss 0) plus a small term for the final
  margin, so among won lines the search prefers the clearer ones.
- **Time.** :func:`sample_bots.evaluate.move_budget` turns the referee's ``time_left`` into
  a budget. ``time_settings`` (through the SDK's ``on_time_settings``) tells a per-move
  limit (stones 1) from a running clock (stones 0) and gives the budget of the pie-rule
  decisions, before which no ``time_left`` comes; :meth:`MctsBot.set_time_control` sets
  the same directly (the in-process benchmark uses it). A referee that sends no
  ``time_settings`` leaves the bot to infer it: a clock that reads the same at two
  consecutive turns of a game is a per-move limit, and until that is seen it uses the
  cautious running-clock rule (capped at ``--move-time``).
- **Pie rule.** As first player it scores a handful of random setups with a short search
  each and offers the one whose value for Black is closest to one half; as second player
  it searches the given setup from Black's view and takes Black iff Black's value is at
  least one half.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence

from protocol.bot import Bot, run
from referee.engine import Color, Position
from sample_bots.evaluate import greedy_completion, margin, move_budget

DEFAULT_MOVE_TIME = 1.0
DEFAULT_EXPLORATION = 0.7
DEFAULT_WIDENING = 0.5
MARGIN_WEIGHT = 0.1  # share of a playout's value given to the final score margin
MARGIN_SCALE = 8.0  # points of margin that make most of that share
SETUP_CANDIDATES = 6


def playout_value(final: Position, color: Color) -> float:
    """The value in [0, 1] of a finished game for ``color``: mostly win/draw/loss, plus a
    small, saturating term for the margin."""
    m = margin(final, color)
    win = 1.0 if m > 0 else 0.5 if m == 0 else 0.0
    return (1.0 - MARGIN_WEIGHT) * win + MARGIN_WEIGHT * (0.5 + 0.5 * math.tanh(m / MARGIN_SCALE))


class Node:
    """A position in the tree. ``value`` sums playout values from the view of the player
    who moved *into* this node (the one choosing it at the parent)."""

    __slots__ = ("children", "position", "turn", "untried", "value", "visits")

    def __init__(self, position: Position, turn: str) -> None:
        self.position = position
        self.turn = turn
        self.children: list[Node] = []
        self.untried: list[tuple[str, Position]] | None = None  # ranked best first, lazily
        self.visits = 0
        self.value = 0.0

    def rank_moves(self, rng: random.Random) -> None:
        """Every turn from here (one per placement, steals finished greedily), best one-ply
        margin first; random order among equals."""
        pos = self.position
        if pos.must_pass:
            self.untried = [("pass", pos.play("pass"))]
            return
        mover = pos.to_move
        scored = []
        for p in pos.legal_placements():
            o = greedy_completion(pos, p, rng)
            scored.append((-margin(o.position, mover), rng.random(), o.turn, o.position))
        scored.sort()
        # Popped from the end, so store worst first.
        self.untried = [(turn, position) for _, _, turn, position in reversed(scored)]


class Search:
    """One UCT search from a root position; :meth:`run` can be called repeatedly."""

    def __init__(
        self,
        root: Position,
        rng: random.Random,
        *,
        exploration: float = DEFAULT_EXPLORATION,
        widening: float = DEFAULT_WIDENING,
        playout: str = "light",
    ) -> None:
        if playout not in ("random", "light"):
            raise ValueError(f"playout must be 'random' or 'light', got {playout!r}")
        self.root = Node(root, "")
        self.rng = rng
        self.exploration = exploration
        self.widening = widening
        self.light = playout == "light"
        self.playouts = 0

    # -- the four steps ------------------------------------------------------------------
    def _select_child(self, node: Node) -> Node:
        log_n = math.log(node.visits)
        c = self.exploration
        best, best_score = node.children[0], float("-inf")
        for child in node.children:
            score = child.value / child.visits + c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best

    def _can_expand(self, node: Node) -> bool:
        if node.untried is None:
            node.rank_moves(self.rng)
        assert node.untried is not None
        return bool(node.untried) and len(node.children) < 3 + node.visits**self.widening

    def iterate(self) -> None:
        """Select, expand, play out, back up: one playout."""
        node = self.root
        path = [node]
        while not node.position.is_over:
            if self._can_expand(node):
                assert node.untried is not None
                turn, position = node.untried.pop()
                child = Node(position, turn)
                node.children.append(child)
                path.append(child)
                node = child
                break
            node = self._select_child(node)
            path.append(node)
        final = self._playout(node.position)
        # The value of each node is seen from the player who moved into it, i.e. the
        # player to move at its parent.
        values = {color: playout_value(final, color) for color in (Color.BLACK, Color.WHITE)}
        parent_mover = None
        for i, n in enumerate(path):
            n.visits += 1
            if i:
                assert parent_mover is not None
                n.value += values[parent_mover]
            parent_mover = n.position.to_move
        self.playouts += 1

    def _playout(self, position: Position) -> Position:
        rng = self.rng
        if not self.light:
            while not position.is_over:
                position = position.play(position.random_turn(rng))
            return position
        while not position.is_over:
            position = self._light_step(position)
        return position

    def _light_step(self, position: Position) -> Position:
        """Two random turns; the one better for the mover by the one-ply margin."""
        rng = self.rng
        first = position.play(position.random_turn(rng))
        if position.must_pass:
            return first
        second = position.play(position.random_turn(rng))
        mover = position.to_move
        return second if margin(second, mover) > margin(first, mover) else first

    # -- driving -------------------------------------------------------------------------
    def run(self, seconds: float, max_playouts: int | None = None) -> None:
        """Iterate until ``seconds`` have passed or ``max_playouts`` were made (whichever
        first; at least one playout so the root has a ranked, visited child)."""
        deadline = time.perf_counter() + seconds
        while True:
            self.iterate()
            if max_playouts is not None and self.playouts >= max_playouts:
                return
            if time.perf_counter() >= deadline:
                return

    def best_turn(self) -> str:
        """The most visited root child (its value breaks ties)."""
        children = self.root.children
        if not children:
            raise ValueError("no turn searched: the game is over")
        return max(children, key=lambda c: (c.visits, c.value / c.visits)).turn

    def root_value(self, color: Color) -> float:
        """The search's estimate of the root for ``color``: the mean value of the root
        child it would play (the most visited), which tends to the minimax value as the
        playouts grow, unlike the mean over all children, which exploration drags down."""
        children = self.root.children
        if not children:
            return 0.5
        best = max(children, key=lambda c: (c.visits, c.value / c.visits))
        mover_value = best.value / best.visits
        return mover_value if color is self.root.position.to_move else 1.0 - mover_value


class MctsBot(Bot):
    """UCT over placements with greedy steals, progressive widening and light playouts."""

    name = "mcts"
    version = "1.0"

    def __init__(
        self,
        seed: int | None = None,
        *,
        move_time: float = DEFAULT_MOVE_TIME,
        exploration: float = DEFAULT_EXPLORATION,
        playout: str = "light",
        max_playouts: int | None = None,
        widening: float = DEFAULT_WIDENING,
    ) -> None:
        super().__init__(seed)
        if move_time <= 0:
            raise ValueError(f"move_time must be positive, got {move_time}")
        if playout not in ("random", "light"):
            raise ValueError(f"playout must be 'random' or 'light', got {playout!r}")
        self.move_time = move_time
        self.exploration = exploration
        self.playout = playout
        self.max_playouts = max_playouts
        self.widening = widening
        self.stones: int | None = None
        self.increment = 0.0
        self._clock_readings: list[float] = []
        self.last_playouts = 0
        self.last_seconds = 0.0
        self.total_playouts = 0  # over the bot's life, for playouts-per-second reports
        self.total_seconds = 0.0

    # -- time ----------------------------------------------------------------------------
    def set_time_control(self, increment: float, stones: int) -> None:
        """What GTP ``time_settings MAIN BYO STONES`` says: ``stones == 1`` is a per-move
        limit, ``stones == 0`` a running clock with ``increment`` seconds per turn."""
        self.stones = stones
        self.increment = increment

    def on_time_settings(self, main: float, byo: float, stones: int) -> None:
        super().on_time_settings(main, byo, stones)
        self.set_time_control(byo if stones == 0 else 0.0, stones)

    def on_new_game(self) -> None:
        self._clock_readings = []

    def decision_time(self, position: Position) -> float:
        """Seconds for a pie-rule decision (``gensetup``, ``choose_color``): the referee
        charges them like turns, but sends no ``time_left`` before them, so the budget
        comes from ``time_settings`` (or ``--move-time`` when there were none)."""
        if self.time_settings is None:
            return self.move_time
        main, byo, stones = self.time_settings
        clock = byo if stones == 1 else main
        return move_budget(
            clock,
            stones=stones,
            increment=self.increment,
            empty_points=len(position.legal_placements()),
            default=self.move_time,
        )

    def budget(self, position: Position, time_left: float | None) -> float:
        """Seconds for this turn (see the module docstring, "Time")."""
        empty = len(position.legal_placements())
        stones = self.stones
        if stones is None and time_left is not None:
            readings = self._clock_readings
            if readings and abs(readings[-1] - time_left) < 1e-9:
                stones = 1  # the clock was reset between our turns: a per-move limit
            readings.append(time_left)
        budget = move_budget(
            time_left, stones=stones, increment=self.increment, empty_points=empty, default=self.move_time
        )
        if stones is None and time_left is not None:
            budget = min(budget, self.move_time)
        return budget

    # -- decisions -----------------------------------------------------------------------
    def search(self, position: Position, seconds: float, max_playouts: int | None = None) -> Search:
        s = Search(
            position, self.rng, exploration=self.exploration, widening=self.widening, playout=self.playout
        )
        start = time.perf_counter()
        s.run(seconds, max_playouts if max_playouts is not None else self.max_playouts)
        self.last_playouts = s.playouts
        self.last_seconds = time.perf_counter() - start
        self.total_playouts += s.playouts
        self.total_seconds += self.last_seconds
        return s

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        return self.search(position, self.budget(position, time_left)).best_turn()

    def choose_setup(self, position: Position) -> tuple[str, str]:
        points = position.legal_placements()
        per = self.decision_time(position) / SETUP_CANDIDATES
        cap = None if self.max_playouts is None else max(1, self.max_playouts // SETUP_CANDIDATES)
        best: tuple[float, tuple[str, str]] | None = None
        for _ in range(SETUP_CANDIDATES):
            black, white = self.rng.sample(points, 2)
            value = self.search(position.setup(black, white), per, cap).root_value(Color.BLACK)
            gap = abs(value - 0.5)
            if best is None or gap < best[0]:
                best = (gap, (black, white))
        assert best is not None
        return best[1]

    def choose_color(self, position: Position) -> Color:
        if position.is_over:
            return Color.BLACK
        value = self.search(position, self.decision_time(position)).root_value(Color.BLACK)
        return Color.BLACK if value >= 0.5 else Color.WHITE


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m sample_bots.mcts_bot", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of every random choice (default: fresh)")
    parser.add_argument(
        "--move-time",
        type=float,
        default=DEFAULT_MOVE_TIME,
        help="seconds per turn when the referee sends no time_left, and the pie-rule thinking time "
        f"(default {DEFAULT_MOVE_TIME})",
    )
    parser.add_argument(
        "--exploration",
        type=float,
        default=DEFAULT_EXPLORATION,
        help=f"UCT exploration constant (default {DEFAULT_EXPLORATION})",
    )
    parser.add_argument(
        "--playout", choices=("random", "light"), default="light", help="playout policy (default light)"
    )
    parser.add_argument(
        "--max-playouts", type=int, default=None, help="stop a search after this many playouts"
    )
    parser.add_argument(
        "--widening",
        type=float,
        default=DEFAULT_WIDENING,
        help=f"progressive widening exponent: 3 + visits**A children per node (default {DEFAULT_WIDENING})",
    )
    args = parser.parse_args(argv)
    if args.move_time <= 0:
        parser.error("--move-time must be positive")
    if args.max_playouts is not None and args.max_playouts < 1:
        parser.error("--max-playouts must be at least 1")
    bot = MctsBot(
        seed=args.seed,
        move_time=args.move_time,
        exploration=args.exploration,
        playout=args.playout,
        max_playouts=args.max_playouts,
        widening=args.widening,
    )
    run(bot)


if __name__ == "__main__":
    main()
