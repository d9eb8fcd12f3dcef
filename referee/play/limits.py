"""What a bot may use (``limits: {memory: SIZE, processes: N}``): :class:`Limits`, a value.

A value apart from :mod:`referee.play.containment` (which enforces it, with trio and
``/proc``) so that configs and commands can hold limits without either.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "NO_LIMITS", "Limits", "describe_size"]


@dataclass(frozen=True)
class Limits:
    """What one bot may use: ``memory`` bytes resident over all its processes together,
    and ``processes`` processes at once; None is no limit."""

    memory: int | None = 1 << 30
    processes: int | None = 256

    @property
    def any(self) -> bool:
        return self.memory is not None or self.processes is not None


DEFAULT_LIMITS = Limits()
NO_LIMITS = Limits(None, None)


def describe_size(n: int) -> str:
    """Bytes for a message: ``1 GiB``, ``64 MiB``, ``71.3 MiB``, ``900 bytes``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"
