"""Made-up rating fields for the rating tests: round robins of bots spread over a range of
Elo, with draws and opening pairs."""

from __future__ import annotations

import random

from referee.ratings.model import GameResult


def field(
    rng: random.Random, size: int, spread: float, pairs: int, density: float = 1.0, groups: int = 1
) -> tuple[list[GameResult], list[str]]:
    """A round robin (each pairing played with probability ``density``) of bots spread
    evenly over ``spread`` Elo, ``pairs`` opening pairs a pairing, in ``groups`` groups that
    never meet."""
    names = [f"b{k:02d}" for k in range(size)]
    strength = {name: spread * k / (size - 1) for k, name in enumerate(names)}
    games = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if i % groups != names.index(b) % groups or rng.random() > density:
                continue
            p = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
            for _ in range(pairs):
                key = rng.random()
                for x, y, px in ((a, b, p), (b, a, 1.0 - p)):
                    r = rng.random()
                    draw = 0.2 * px * (1.0 - px)  # draws most likely between equals
                    score = 1.0 if r < px - draw / 2 else 0.5 if r < px + draw / 2 else 0.0
                    games.append(GameResult(x, y, score, key))
    return games, names
