"""The score formula of rules.md "Score", on group sizes alone, and how GTP writes points.

Apart from :class:`~referee.engine.position.Position` because it needs no board: tests
and tools check it on plain lists of sizes, and the position applies it to its groups.
"""

from __future__ import annotations

from collections.abc import Iterable


def _fmt_points(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def score_of(sizes: Iterable[int], opponent_sizes: Iterable[int]) -> float:
    """rules.md "Score": sum and count of the distinct group sizes, +0.5 for the strictly largest group."""
    s = set(sizes)
    largest = max(s, default=0)
    other = max(opponent_sizes, default=0)
    return sum(s) + len(s) + (0.5 if largest > other else 0.0)
