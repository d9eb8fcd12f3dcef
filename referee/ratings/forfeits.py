"""Losses on time that say more about the machine than about the bot.

On a busy machine the strongest bot can rank second because its clock measured a share of
a core: the leaderboard is right about the games and wrong about the bots, and the purely
statistical warnings say nothing of it. :func:`time_loss_warnings` names every bot whose
losses on time pass a few percent of its games, with what the referee saw of them (its own
lateness at those deadlines) and what to change.

Pure: summaries in, words out. The overshoot the warning gives is the bot's own where the
records hold it: a ``restart: never`` bot is kept after a loss on time and its late answer
heard (``fault.overshoot``, how long after its deadline it came). Elsewhere a bot that
misses its deadline is killed there, and all that is known is that it was still silent when
the referee looked: at its deadline, or ``fault.late`` after it (a lower bound of the bot's
overshoot, said as such).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from referee.play.records import FaultEntry, Termination

TIME_LOSS_SHARE = 0.05
"""Losses on time above this share of a bot's rated games are warned about."""

MIN_TIME_LOSSES = 2
"""... and at least this many (one unlucky game in twenty is not a pattern)."""


class _Game(Protocol):
    @property
    def labels(self) -> tuple[str, str]: ...

    @property
    def fault(self) -> FaultEntry | None: ...

    @property
    def is_void(self) -> bool: ...


def time_loss_warnings(games: Iterable[_Game], names: Sequence[str] | None = None) -> list[str]:
    """One warning per bot (in ``names`` order, else by name) that lost more than
    :data:`TIME_LOSS_SHARE` of its rated games on time (and at least
    :data:`MIN_TIME_LOSSES`): how many, its largest overshoot (see the module docstring),
    and the advice (a larger ``margin``, fewer games at once)."""
    losses = TimeLosses()
    for game in games:
        losses.add(game)
    return losses.warnings(names)


class TimeLosses:
    """What :func:`time_loss_warnings` counts, kept as games arrive, so that a run's
    periodic standings warn without a pass over its games."""

    def __init__(self) -> None:
        self.played: Counter[str] = Counter()
        self.lost: Counter[str] = Counter()
        self.answered: dict[str, float] = {}  # the latest late answer heard (restart: never)
        self.silent: dict[str, float] = {}  # the longest silence past a deadline the referee saw

    def add(self, game: _Game) -> None:
        if game.is_void:
            return
        self.played.update(game.labels)
        fault = game.fault
        if fault is not None and fault.kind is Termination.TIME:
            label = game.labels[fault.seat]
            self.lost[label] += 1
            if fault.overshoot is not None:
                self.answered[label] = max(self.answered.get(label, 0.0), fault.overshoot)
            elif fault.late is not None:
                self.silent[label] = max(self.silent.get(label, 0.0), fault.late)

    def warnings(self, names: Sequence[str] | None = None) -> list[str]:
        """:func:`time_loss_warnings` of the games added so far."""
        order = list(names) if names is not None else sorted(self.played)
        out = []
        for name in order:
            n, games_played = self.lost[name], self.played[name]
            if n < MIN_TIME_LOSSES or n <= TIME_LOSS_SHARE * games_played:
                continue
            out.append(
                f"{name} lost {n} of its {games_played} games on time ({100 * n / games_played:.0f}%; "
                f"{_overshoot(self.answered.get(name), self.silent.get(name))}): its rating says as much "
                "about this machine's load as about the bot. A larger time_control margin, or fewer games "
                "at once (concurrency), gives its clock a core of its own"
            )
        return out


def _overshoot(answered: float | None, silent: float | None) -> str:
    """The largest overshoot in words, saying whose it is: the bot's own (its late answer
    heard) or a silence the referee saw (a lower bound: the bot was killed there)."""
    parts = []
    if answered is not None:
        parts.append(
            f"its own largest overshoot: its late answer came {answered * 1e3:,.0f} ms past its deadline"
        )
    if silent is not None:
        parts.append(
            f"still silent {silent * 1e3:,.0f} ms past its deadline when the referee looked, itself that "
            "late (a loaded machine); how much later the bot would have answered is not known"
        )
    if not parts:
        parts.append(
            "the referee looked at those deadlines on time, so the bot was late; by how much is not known "
            "(it is stopped at its deadline; restart: never keeps it and measures its late answer)"
        )
    return "; ".join(parts)
