"""Openings: fixed starts of a game (the pie-rule stones, then any turns), from an opening
book file or generated from a seed, each checked by playing it out with the rules engine.

Used by tournament configs (``opening: {book: FILE}`` / ``{random: ...}``), by ``vastuz
match --opening random`` and by the referee, which plays a given opening to both bots.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from referee.errors import ConfigError
from referee.play.spec import Opening
from referee.tournament.config.reading import MAX_BOOK_BYTES, read_user_text


def _display(path: Path) -> str:
    """A path as short as it can be while still unambiguous for the user reading it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def read_book(
    path: Path, size: int, *, key: str = "opening.book", config: str | None = None
) -> tuple[Opening, ...]:
    """Read an opening book: one opening per line, ``B W [turn ...]`` (the pie-rule stones,
    then turns from Black); ``#`` starts a comment; blank lines are skipped. Every line is
    played out with the rules engine; errors name the book and the line. A line repeated
    is an error (it would be played twice as often as the others)."""
    try:
        text = read_user_text(path, "opening book", MAX_BOOK_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"opening book not found: {path}", file=config, key=key) from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the opening book {path}: {exc}", file=config, key=key) from None
    shown = _display(path)
    openings: list[Opening] = []
    seen: dict[tuple[str, ...], int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        where = f"line {number}"
        if len(words) < 2:
            raise ConfigError(
                "expected 'BLACK WHITE [TURN ...]': two points, then any turns", file=shown, key=where
            )
        try:
            opening = check_opening(size, words[0], words[1], words[2:], label=f"{path.name}:{number}")
        except ValueError as exc:
            raise ConfigError(str(exc), file=shown, key=where) from None
        identity = (opening.black, opening.white, *opening.turns)
        if identity in seen:
            raise ConfigError(f"the same opening as line {seen[identity]}", file=shown, key=where)
        seen[identity] = number
        openings.append(opening)
    if not openings:
        raise ConfigError(f"the opening book {shown} has no openings", file=config, key=key)
    return tuple(openings)


def check_opening(
    size: int, black: str, white: str, turns: Sequence[str] = (), *, label: str = ""
) -> Opening:
    """Play the opening on a board of ``size`` and return it normalised (lowercase).
    Raises ValueError saying what is wrong: a bad point, an illegal turn, a finished game."""
    from referee.engine import Position, TurnError  # the engine is only needed for openings

    try:
        position = Position.new(size).setup(black, white)
    except TurnError as exc:
        raise ValueError(f"bad setup {black} {white}: {exc}") from None
    played: list[str] = []
    for turn in turns:
        mover = position.to_move
        try:
            position = position.play(turn)
        except TurnError as exc:
            raise ValueError(f"turn {len(played) + 1} ({turn}, {mover.value}): {exc}") from None
        played.append(turn.lower())
        if position.is_over:
            raise ValueError(
                f"the game is over after turn {len(played)} ({turn}); an opening must leave a game to play"
            )
    return Opening(black.lower(), white.lower(), tuple(played), label)


def random_openings(size: int, count: int, seed: int, *, turns: int = 0) -> tuple[Opening, ...]:
    """``count`` pie-rule setups of two distinct points (each followed by ``turns`` random
    turns), a pure function of its arguments. Setups do not repeat until every ordered pair
    of points has been used once."""
    from referee.engine import Position, iter_points

    rng = random.Random(seed)
    empty = Position.new(size)
    points = list(iter_points(size))
    n = len(points)
    total = n * (n - 1)
    order: list[int] = []
    while len(order) < count:
        order.extend(rng.sample(range(total), min(total, count - len(order))))
    openings: list[Opening] = []
    for number, code in enumerate(order, start=1):
        first, rest = divmod(code, n - 1)
        second = rest if rest < first else rest + 1
        black, white = points[first], points[second]
        position = empty.setup(black, white)
        played: list[str] = []
        for _ in range(turns):
            turn = position.random_turn(rng)
            after = position.play(turn)
            if after.is_over:  # an opening must leave a game to play (only on tiny boards)
                break
            position = after
            played.append(turn)
        openings.append(Opening(black, white, tuple(played), f"random-{number}"))
    return tuple(openings)
