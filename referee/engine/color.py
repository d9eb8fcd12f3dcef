"""The two players."""

from __future__ import annotations

import enum


class Color(str, enum.Enum):
    """A player's colour. A ``str`` enum, so ``Color.BLACK == "black"`` holds."""

    BLACK = "black"
    WHITE = "white"

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        """``"b"`` or ``"w"``: the GTP short form."""
        return self.value[0]

    @classmethod
    def parse(cls, text: str) -> Color:
        """Read ``b``, ``black``, ``w`` or ``white`` in any case; ``ValueError`` otherwise."""
        t = text.strip().lower()
        if t in ("b", "black"):
            return cls.BLACK
        if t in ("w", "white"):
            return cls.WHITE
        raise ValueError(f"not a colour: {text!r} (expected b, black, w or white)")

    def __str__(self) -> str:
        return self.value
