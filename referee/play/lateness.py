"""The referee's lateness over many games, for the end of a run and ``vastuz report``.

Each record says where the referee looked late (see :mod:`referee.play.watch` and
docs/records.md); :class:`Lateness` adds those up so that a user can see a stressed harness
in one line: how often, how badly, and whether any loss on time came while it was late
(the bot was later still, or the record would not be a loss).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from referee.play.records import BotStats, FaultEntry, Termination

__all__ = ["Lateness"]


class _Bot(Protocol):
    @property
    def stats(self) -> BotStats: ...


class _Game(Protocol):
    """What a record and a summary of one both have."""

    @property
    def fault(self) -> FaultEntry | None: ...

    @property
    def bots(self) -> Any: ...  # two entries with .stats (a list or a tuple)

    @property
    def is_void(self) -> bool: ...


@dataclass(frozen=True)
class Lateness:
    answers: int = 0  # answers and deadlines the referee judged (requests, and losses on time)
    late: int = 0  # ... of which it looked at late
    worst: float = 0.0  # seconds
    time_losses: int = 0
    time_losses_late: int = 0  # losses on time judged at a late look

    @classmethod
    def of(cls, games: Iterable[_Game]) -> Lateness:
        answers = late = time_losses = time_losses_late = 0
        worst = 0.0
        for game in games:
            for bot in game.bots:
                stats = bot.stats
                answers += stats.requests
                if stats.late:
                    late += stats.late
                    worst = max(worst, stats.late_max)
            fault = game.fault
            # A void game's fault (a start-up failure) is no loss on time.
            if fault is not None and fault.kind is Termination.TIME and not game.is_void:
                answers += 1  # the deadline it was judged at is not among the requests
                time_losses += 1
                if fault.late is not None:
                    time_losses_late += 1
        return cls(answers, late, worst, time_losses, time_losses_late)

    def line(self) -> str | None:
        """``referee: looked late at 12 of 16,745 answers and deadlines (max 140 ms); 0 time
        losses while late``, or None when it never looked late."""
        if not self.late:
            return None
        return (
            f"referee: looked late at {self.late:,} of {self.answers:,} answers and deadlines "
            f"(max {self.worst * 1e3:,.0f} ms); {self.time_losses_late} time losses while late"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "answers": self.answers,
            "late": self.late,
            "late_max": round(self.worst, 6),
            "time_losses": self.time_losses,
            "time_losses_late": self.time_losses_late,
        }
