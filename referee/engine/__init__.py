"""The Vastuz rules engine: pure, immutable, fast. No I/O, no trio, no logging.

``from referee.engine import Position, IllegalTurn`` is the product surface that bots,
the referee and tools build on; see ``docs/rules.md`` for the rules it implements.
"""

from .color import Color
from .errors import BadNotation, IllegalTurn, TurnError
from .geometry import (
    MAX_SIZE,
    MIN_SIZE,
    board_symmetries,
    geometry,
    iter_points,
    parse_point,
    point_count,
    point_name,
)
from .position import Position
from .score import score_of
from .shapes import canonical
from .turns import TurnBuilder, parse_turn

__all__ = [
    "MAX_SIZE",
    "MIN_SIZE",
    "BadNotation",
    "Color",
    "IllegalTurn",
    "Position",
    "TurnBuilder",
    "TurnError",
    "board_symmetries",
    "canonical",
    "geometry",
    "iter_points",
    "parse_point",
    "parse_turn",
    "point_count",
    "point_name",
    "score_of",
]
