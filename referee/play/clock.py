"""Time controls as the referee applies them: each bot's budget, deadline and charge.

The :class:`~referee.config.TimeControl` value (per-move limit or Fischer) says what the
rules of a match are; a :class:`BotClock` is one bot's running account under it during
one game. The referee measures a bot's time on a monotonic clock from just before a command
is written to the end of the bot's response, so the referee's own work (validating turns,
writing logs) is never charged to a bot.

``margin`` is added to every deadline, never to the budget the bot is told about: it covers
pipe latency and process scheduling, not thinking. Under Fischer a bot that answers within
the margin but past its remaining time keeps playing with zero time left plus the increment.
The increment is earned by turns only (PROTOCOL.md section 4): the pie rule's ``gensetup``
and ``choose_color`` run on the clock but add nothing to it.
"""

from __future__ import annotations

from protocol import commands
from protocol.messages import Command
from referee.engine import Color
from referee.play.spec import TimeControl, TimeControlKind

__all__ = ["BotClock", "TimeControl", "TimeControlKind"]


class BotClock:
    """One bot's clock for one game.

    ``budget`` is what the bot may think about the next decision; ``deadline`` the time
    after which the referee gives up waiting (budget + margin); :meth:`charge` books the
    time a decision took.
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.fischer = control.kind is TimeControlKind.FISCHER
        self.remaining: float = float(control.main) if self.fischer and control.main is not None else 0.0
        self.used = 0.0
        self.decisions = 0
        self._per_move_time_left: dict[Color, Command] = {}

    @property
    def budget(self) -> float:
        if self.fischer:
            return self.remaining
        assert self.control.per_move is not None  # guaranteed by TimeControl.__post_init__
        return self.control.per_move

    @property
    def deadline(self) -> float:
        """Seconds to wait for the next decision before declaring a loss on time."""
        return self.budget + self.control.margin

    def charge(self, seconds: float, *, turn: bool = True) -> None:
        """Book a decision that took ``seconds`` (already known to be within the deadline).
        Under Fischer a ``turn`` earns the increment; a pie-rule decision does not."""
        self.used += seconds
        self.decisions += 1
        if self.fischer:
            self.remaining = max(0.0, self.remaining - seconds) + (self.control.increment if turn else 0.0)

    @property
    def left(self) -> float | None:
        """Fischer time left, for the record; None under a per-move limit."""
        return round(self.remaining, 6) if self.fischer else None

    def settings_command(self) -> Command:
        """``time_settings`` as PROTOCOL.md encodes this control."""
        if self.fischer:
            assert self.control.main is not None
            return commands.fischer_time_settings(self.control.main, self.control.increment)
        return commands.per_move_time_settings(self.budget)

    def time_left_command(self, color: Color) -> Command:
        """``time_left`` before a decision: the Fischer time left (0 stones), or the
        per-move limit for one stone."""
        if self.fischer:
            return commands.time_left(color, self.remaining, 0)
        command = self._per_move_time_left.get(color)
        if command is None:  # the same two commands all game long: build each once
            command = self._per_move_time_left[color] = commands.time_left(color, self.budget, 1)
        return command


def describe(control: TimeControl) -> dict[str, object]:
    """The control for a game record: its kind plus the keys a user would write."""
    return {"kind": control.kind.value, **control.as_dict()}
