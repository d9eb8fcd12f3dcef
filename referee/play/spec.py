"""What game to play: the opening, the time control, the board, the deadlines.

Plain frozen values with no I/O, shared by the game loop (:mod:`referee.play.game`), the
tournament config that builds them from YAML (:mod:`referee.tournament.config.values`) and the
command line. They live at the bottom of the play layer so that playing a game never
needs the YAML parser.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from referee.engine import point_count

DEFAULT_COMMAND_TIMEOUT = 5.0
"""Seconds a bot has to answer a command that is not a decision (``play``, ``boardsize``)."""
DEFAULT_STARTUP_TIMEOUT = 10.0
"""Seconds a bot has to start and complete its handshake."""
DEFAULT_MARGIN = 0.2
"""Seconds the referee adds to each time limit for pipe and process-scheduling overhead
before it declares a loss on time. Small enough not to change the game, large enough that
a loaded machine does not forfeit a bot that answered on time."""


class OpeningKind(str, enum.Enum):
    """How a game starts. ``PIE``: a bot makes the two-stone setup and the other picks a
    colour (the game's own rule). ``EMPTY``: Black's first turn on an empty board.
    ``BOOK`` / ``RANDOM``: a setup (and maybe some turns) fixed by the referee, each played
    twice with colours swapped."""

    PIE = "pie"
    EMPTY = "empty"
    BOOK = "book"
    RANDOM = "random"


class TimeControlKind(str, enum.Enum):
    PER_MOVE = "per_move"
    FISCHER = "fischer"


@dataclass(frozen=True)
class TimeControl:
    """Either a fixed budget per move (``per_move`` seconds, unused time is lost) or a
    Fischer clock (``main`` seconds for the game, ``increment`` added after each move).
    ``margin`` is the referee's allowance for process overhead on top of the budget."""

    kind: TimeControlKind
    per_move: float | None = None
    main: float | None = None
    increment: float = 0.0
    margin: float = DEFAULT_MARGIN

    def __post_init__(self) -> None:
        if self.kind is TimeControlKind.PER_MOVE:
            if self.per_move is None or not self.per_move > 0 or self.main is not None:
                raise ValueError("a per_move time control needs per_move > 0 and no main")
        elif self.main is None or not self.main > 0 or self.per_move is not None:
            raise ValueError("a fischer time control needs main > 0 and no per_move")
        if not self.increment >= 0 or not self.margin >= 0:
            raise ValueError("increment and margin must be >= 0")

    @classmethod
    def fixed(cls, per_move: float, *, margin: float = DEFAULT_MARGIN) -> TimeControl:
        return cls(TimeControlKind.PER_MOVE, per_move=float(per_move), margin=float(margin))

    @classmethod
    def fischer(cls, main: float, increment: float = 0.0, *, margin: float = DEFAULT_MARGIN) -> TimeControl:
        return cls(
            TimeControlKind.FISCHER, main=float(main), increment=float(increment), margin=float(margin)
        )

    def as_dict(self) -> dict[str, object]:
        """The keys a user would write, e.g. ``{"per_move": 0.5, "margin": 0.2}``."""
        if self.kind is TimeControlKind.PER_MOVE:
            return {"per_move": self.per_move, "margin": self.margin}
        return {"main": self.main, "increment": self.increment, "margin": self.margin}


@dataclass(frozen=True)
class Opening:
    """A fixed start: pie-rule stones on ``black`` and ``white``, then ``turns`` played in
    order from Black. Points and turns are lowercase. ``label`` says where it came from
    (``book.txt:12`` or ``random-3``) for reports; it is not part of the opening's identity
    in the fingerprint."""

    black: str
    white: str
    turns: tuple[str, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class GameSpec:
    """What game to play. ``opening`` PIE: the bots play the pie rule; EMPTY: Black (seat 0)
    starts on an empty board; BOOK or RANDOM: ``setup`` (stones, then turns) is given to
    both bots. ``game_timeout`` is the overall guard (None: computed from the clock)."""

    size: int = 7
    opening: OpeningKind = OpeningKind.PIE
    setup: Opening | None = None
    time_control: TimeControl = field(default_factory=lambda: TimeControl.fixed(1.0))
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    game_timeout: float | None = None
    game_id: str = "game"
    seat_time_controls: tuple[TimeControl | None, TimeControl | None] = (None, None)
    """Each seat's own clock where its bot has one (time odds); None: ``time_control``."""
    seat_command_timeouts: tuple[float | None, float | None] = (None, None)
    """Each seat's own ``command_timeout`` where its bot has one; None: ``command_timeout``."""

    def clock_of(self, seat: int) -> TimeControl:
        """Seat ``seat``'s time control: its own, or the game's."""
        return self.seat_time_controls[seat] or self.time_control

    def command_timeout_of(self, seat: int) -> float:
        own = self.seat_command_timeouts[seat]
        return self.command_timeout if own is None else own

    def __post_init__(self) -> None:
        given = self.opening in (OpeningKind.BOOK, OpeningKind.RANDOM)
        if given != (self.setup is not None):
            raise ValueError(
                f"a {self.opening.value} game needs a setup exactly when the opening is book or random"
            )

    def guard(self) -> float:
        """The overall guard: the longest a game can take if every bot uses every deadline
        to the full, plus a minute. Far beyond any real game; only a bug can reach it."""
        if self.game_timeout is not None:
            return self.game_timeout
        return max(self._guard(self.clock_of(seat), self.command_timeout_of(seat)) for seat in (0, 1))

    def _guard(self, tc: TimeControl, command_timeout: float) -> float:
        """:meth:`guard` as if both seats had ``tc`` and ``command_timeout``."""
        turns = 2 * point_count(self.size) + 1 + 2  # every turn, plus gensetup and choose_color
        per_request = 3 * command_timeout + tc.margin  # time_left, play, slack
        if tc.kind is TimeControlKind.FISCHER:
            assert tc.main is not None
            thinking = 2 * (tc.main + turns * tc.increment)
        else:
            assert tc.per_move is not None
            thinking = turns * tc.per_move
        return 60.0 + 6 * command_timeout + thinking + turns * per_request
