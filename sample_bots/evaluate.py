"""Helpers the sample bots share: a cheap evaluation, turn enumeration with a cap, the
steal policy used to finish a turn after its placement, and the time-budget rule.

Why a separate module: the greedy bot *is* "one ply of this evaluation", and the MCTS bot
uses the same evaluation to order and prune its children, to finish turns whose steals it
does not search, and as the small margin term of a playout's value. Keeping one copy makes
"mcts is greedy plus search" literally true, so the strength ladder tests the search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from referee.engine import Color, Position, TurnBuilder


def margin(position: Position, color: Color) -> float:
    """``color``'s score minus the opponent's, by the score formula applied to the stones
    as they stand. For a finished game this is the exact result; mid-game it is the cheap
    evaluation every sample bot uses (it rewards distinct group sizes and the biggest group,
    exactly what the final score counts, and knows nothing about what is still to come)."""
    black, white = position.score()
    return black - white if color is Color.BLACK else white - black


@dataclass(frozen=True)
class Outcome:
    """One complete turn and the position it leads to."""

    turn: str
    position: Position


def _completions(builder: TurnBuilder, cap: int, rng: random.Random, out: list[Outcome]) -> None:
    """Depth-first, in a random order, every way to finish ``builder``'s steals, stopping
    once ``out`` holds ``cap`` outcomes (so a huge multi-steal tree is sampled, not walked)."""
    if builder.is_complete:
        out.append(Outcome(builder.turn, builder.position()))
        return
    options = builder.legal_steals()
    rng.shuffle(options)
    for frm, to in options:
        if len(out) >= cap:
            return
        child = builder.copy()
        child.steal(frm, to)
        _completions(child, cap, rng, out)


def placement_outcomes(position: Position, placement: str, cap: int, rng: random.Random) -> list[Outcome]:
    """Up to ``cap`` (>= 1) complete turns starting with ``placement`` (all of them when
    there are at most ``cap``)."""
    out: list[Outcome] = []
    _completions(position.begin_turn(placement), max(1, cap), rng, out)
    return out


def turn_outcomes(position: Position, max_turns: int, rng: random.Random) -> list[Outcome]:
    """Every legal turn with its result, or a sample when there are too many.

    Every placement is always represented; the steal completions of each placement are
    capped at ``max_turns // placements`` (at least one), drawn at random. ``[]`` when the
    game is over; ``[pass]`` when the mover must pass.
    """
    if position.is_over:
        return []
    placements = position.legal_placements()
    if not placements:
        return [Outcome("pass", position.play("pass"))]
    per = max(1, max_turns // len(placements))
    out: list[Outcome] = []
    for p in placements:
        out.extend(placement_outcomes(position, p, per, rng))
    return out


def best_outcomes(outcomes: list[Outcome], color: Color) -> tuple[float, list[Outcome]]:
    """The best margin for ``color`` among ``outcomes`` and every outcome that reaches it."""
    best = float("-inf")
    tied: list[Outcome] = []
    for o in outcomes:
        value = margin(o.position, color)
        if value > best:
            best, tied = value, [o]
        elif value == best:
            tied.append(o)
    return best, tied


def greedy_completion(position: Position, placement: str, rng: random.Random, cap: int = 24) -> Outcome:
    """Finish the turn that places on ``placement`` with the steals that give the mover
    the best margin (among up to ``cap`` completions; ties at random)."""
    outcomes = placement_outcomes(position, placement, cap, rng)
    if len(outcomes) == 1:
        return outcomes[0]
    _, tied = best_outcomes(outcomes, position.to_move)
    return rng.choice(tied)


# -- time ----------------------------------------------------------------------------------


def move_budget(
    time_left: float | None,
    *,
    stones: int | None,
    increment: float = 0.0,
    empty_points: int,
    default: float,
) -> float:
    """Seconds to think about this turn.

    - No clock (``time_left`` None): ``default`` (the bot's ``--move-time``).
    - Per-move limit (``stones == 1``, the referee's ``time_settings 0 LIMIT 1``): 75% of
      ``time_left``; the rest covers the answer's trip and the process scheduler.
    - A running clock (Fischer, ``stones == 0``, or unknown): ``time_left`` spread over the
      turns still expected (half the empty points, plus 5 for steals and passes) plus 80%
      of the increment, and never more than 40% of ``time_left``, so one long think can
      never flag the clock.
    """
    if time_left is None:
        return default
    time_left = max(0.0, time_left)
    if stones == 1:
        return 0.75 * time_left
    expected_turns = empty_points / 2 + 5
    budget = time_left / expected_turns + 0.8 * increment
    return min(budget, 0.4 * time_left)
