"""The unit of work that plans hand out and executors play: :class:`ScheduledGame`, and the
one way two of them make a colour-reversed pair (:func:`colour_reversed`).

Below both the plans and the executors, so that neither needs the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.play.spec import Opening, OpeningKind


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play. ``slot`` is a unique, stable id such as ``r1-random+greedy-03``
    (round, the pair as scheduled, game number within the pair in that round); ``+`` cannot
    occur in bot names, so the id is unambiguous and safe in file names. ``index`` is the
    position in the whole schedule (0-based)."""

    slot: str
    index: int
    round: int
    pair: tuple[str, str]
    game: int
    mode: OpeningKind
    first: str
    second: str
    pair_key: str
    opening: Opening | None = None

    @property
    def bots(self) -> tuple[str, str]:
        return (self.first, self.second)

    @property
    def black(self) -> str:
        """Black's bot; undefined for a pie game, where the chooser decides colours."""
        self._require_fixed_colours()
        return self.first

    @property
    def white(self) -> str:
        self._require_fixed_colours()
        return self.second

    @property
    def setup_maker(self) -> str:
        """The bot that places the pie-rule stones (pie games only)."""
        self._require_pie()
        return self.first

    @property
    def chooser(self) -> str:
        """The bot that chooses its colour after the setup (pie games only)."""
        self._require_pie()
        return self.second

    def _require_fixed_colours(self) -> None:
        if self.mode is OpeningKind.PIE:
            raise ValueError(f"{self.slot}: colours of a pie game are chosen during the game")

    def _require_pie(self) -> None:
        if self.mode is not OpeningKind.PIE:
            raise ValueError(f"{self.slot}: a {self.mode.value} game has no pie setup")


def colour_reversed(
    a: str,
    b: str,
    *,
    mode: OpeningKind,
    pair_key: str,
    slot: str,
    index: int,
    round_: int = 1,
    pair: tuple[str, str] | None = None,
    game: int = 1,
    opening: Opening | None = None,
) -> tuple[ScheduledGame, ScheduledGame]:
    """Two games between ``a`` and ``b`` with the roles swapped (``a`` first in the first),
    sharing ``pair_key`` and ``opening``: slots ``{slot}{game:02d}``-style names are the
    caller's, so ``slot`` is a format with one ``{}`` for the game number (``game`` and
    ``game + 1``); ``index`` is the first game's place in the whole schedule."""
    return tuple(  # type: ignore[return-value]
        ScheduledGame(
            slot=slot.format(game + k),
            index=index + k,
            round=round_,
            pair=(a, b) if pair is None else pair,
            game=game + k,
            mode=mode,
            first=first,
            second=second,
            pair_key=pair_key,
            opening=opening,
        )
        for k, (first, second) in enumerate(((a, b), (b, a)))
    )


@dataclass(frozen=True)
class PairKeys:
    """The pair keys of a plan that numbers its colour-reversed pairs as it goes (the SPRT
    and adaptive schedules): ``PREFIX`` then five digits, and back."""

    prefix: str

    def key(self, number: int) -> str:
        return f"{self.prefix}{number:05d}"

    def number(self, key: str | None) -> int | None:
        """The pair's number from its key, None for a key that is not one of these."""
        if key is None or not key.startswith(self.prefix) or not key[len(self.prefix) :].isdigit():
            return None
        return int(key[len(self.prefix) :])
