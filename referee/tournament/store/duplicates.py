"""Games that repeat an earlier game move for move.

Two deterministic bots (or two bots seeded the same way and restarted for every game) can
play the very same game again and again. Each copy looks like a new result, but it is one
observation counted several times: the ratings' intervals and LOS then claim far more
certainty than the games give. :func:`repeated_games` finds the copies so that every
report can say how many there are. Pure: records in, game ids out.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from referee.play.records import GameRecord


@dataclass(frozen=True)
class Repeat:
    """Game ``game_id`` repeats ``original``, an earlier game, move for move."""

    game_id: str
    original: str


class Game(Protocol):
    """A record, or a summary of one (anything with an id and a void flag; see below)."""

    @property
    def game_id(self) -> str: ...

    @property
    def is_void(self) -> bool: ...


def game_identity(record: Game) -> Hashable | None:
    """What makes two games the same game: the same bots in the same seats, board size and
    opening, the same setup (and who made it), the same pie choice, the same turns and the
    same ending. ``None`` for a game that says nothing on its own to compare (a void game,
    or one in which no bot made a decision: a start-up failure is a fault, not a game).

    A record summary without its turns that carries a ``moves`` key (a hash of the seats,
    setup and turns) is compared by that key instead."""
    if record.is_void:
        return None
    if not isinstance(record, GameRecord):
        moves = getattr(record, "moves", None)
        if moves is None:
            return None
        return (getattr(record, "labels", None), moves, getattr(record, "winner", None))
    decided = (record.setup is not None and record.setup.by is not None) or any(
        not turn.opening for turn in record.turns
    )
    if not decided:
        return None
    setup = None if record.setup is None else (record.setup.black, record.setup.white, record.setup.by)
    choice = None if record.choice is None else (record.choice.by, record.choice.color.value)
    return (
        record.labels,
        record.size,
        record.opening,
        setup,
        choice,
        tuple(turn.turn for turn in record.turns),
        record.termination.value,
        record.winner,
        record.result,
    )


@runtime_checkable
class IdentifiedGames(Protocol):
    """Games that give their identities themselves, without making each record (a run's
    summaries kept in columns: :class:`~referee.tournament.store.summary_log.SummaryLog`)."""

    def identities(self) -> Iterator[Hashable | None]:
        """:func:`game_identity` of each game, in order."""
        ...

    def game_id_at(self, index: int) -> str:
        """The id of the game at ``index``."""
        ...


def repeated_games(records: Iterable[Game]) -> list[Repeat]:
    """Every game that repeats an earlier one (in the order given) move for move."""
    if isinstance(records, IdentifiedGames):
        at: dict[Hashable, int] = {}
        originals: dict[int, str] = {}  # an id read once, however many games repeat it
        found: list[Repeat] = []
        for k, identity in enumerate(records.identities()):
            if identity is not None:
                j = at.setdefault(identity, k)
                if j != k:
                    original = originals.get(j)
                    if original is None:
                        original = originals[j] = records.game_id_at(j)
                    found.append(Repeat(records.game_id_at(k), original))
        return found
    first: dict[Hashable, str] = {}
    repeats: list[Repeat] = []
    for record in records:
        identity = game_identity(record)
        if identity is None:
            continue
        if identity in first:
            repeats.append(Repeat(record.game_id, first[identity]))
        else:
            first[identity] = record.game_id
    return repeats


def repeat_warning(records: Iterable[Game], *, shown: int = 3) -> str | None:
    """One line for a report when games repeat earlier games, else ``None``."""
    repeats = repeated_games(records)
    if not repeats:
        return None
    examples = ", ".join(f"{r.game_id} = {r.original}" for r in repeats[:shown])
    more = ", ..." if len(repeats) > shown else ""
    n = len(repeats)
    if n == 1:
        head = "1 game repeats an earlier game move for move: it is not independent evidence"
    else:
        head = f"{n} games repeat an earlier game move for move: they are not independent evidence"
    return (
        f"{head} ({examples}{more}); the intervals and LOS overstate what is known "
        "(are the bots deterministic, or seeded the same way for every game?)"
    )


__all__ = ["Game", "Repeat", "game_identity", "repeat_warning", "repeated_games"]
