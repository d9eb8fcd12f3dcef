"""Losses on time that say more about the machine than about the bot.

On a busy machine the strongest bot can rank second because its clock measured a share of
a core: the leaderboard is right about the games and wrong about the bots, and the purely
statistical warnings say nothing of it. :func:`time_loss_warnings` names every bot whose
losses on time pass a few percent of its games, with what the referee saw of them (its own
lateness at those deadlines) and what to change.

Pure: summaries in, words out. What the bot would have answered, and when, is not known: a
bot that misses its deadline is killed there (resynchronising with a late bot is what
not to do), so the overshoot the warning gives is the referee's largest lateness at one of
those deadlines, the only measured time past a deadline.
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
    :data:`MIN_TIME_LOSSES`): how many, its largest lateness of the referee at one of them,
    and the advice (a larger ``margin``, fewer games at once)."""
    played: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    worst: dict[str, float] = {}
    for game in games:
        if game.is_void:
            continue
        played.update(game.labels)
        fault = game.fault
        if fault is not None and fault.kind is Termination.TIME:
            label = game.labels[fault.seat]
            lost[label] += 1
            if fault.late is not None:
                worst[label] = max(worst.get(label, 0.0), fault.late)
    order = list(names) if names is not None else sorted(played)
    out = []
    for name in order:
        n, games_played = lost[name], played[name]
        if n < MIN_TIME_LOSSES or n <= TIME_LOSS_SHARE * games_played:
            continue
        late = (
            f"the referee itself looked up to {worst[name] * 1e3:,.0f} ms late at those deadlines"
            if name in worst
            else "the referee looked at those deadlines on time, so the bot was late"
        )
        out.append(
            f"{name} lost {n} of its {games_played} games on time ({100 * n / games_played:.0f}%; {late}): "
            "its rating says as much about this machine's load as about the bot. A larger "
            "time_control margin, or fewer games at once (concurrency), gives its clock a core of its own"
        )
    return out
