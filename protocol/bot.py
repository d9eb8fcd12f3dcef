"""Write a Vastuz bot as one Python class; this module speaks the protocol for it.

A bot author subclasses :class:`Bot`, implements :meth:`Bot.choose_turn` and calls
:func:`run`::

    from protocol.bot import Bot, run

    class RandomBot(Bot):
        name = "random"
        version = "1.0"

        def choose_turn(self, position, time_left):
            return position.random_turn(self.rng)

    if __name__ == "__main__":
        run(RandomBot(seed=1))

The SDK keeps its own :class:`~referee.engine.Position` in step with the referee's (every
``setup``, ``play`` and the bot's own ``genmove``/``gensetup`` answers are applied to it),
so a bot only ever sees a position and answers with a turn. Nothing a referee sends can
crash the loop: bad input gets a ``?`` answer and the loop goes on.

The GTP state machine is :class:`BotSession`, which does no I/O (lines in, response text
out); :func:`run` is the thin blocking loop around it over stdin/stdout.
"""

from __future__ import annotations

import abc
import contextlib
import random
import sys
import traceback
from typing import BinaryIO, TextIO

from protocol.session import Refusal, Session, serve
from referee.engine import MAX_SIZE, MIN_SIZE, Color, Position, TurnError


class Bot(abc.ABC):
    """A bot's decisions. Override :meth:`choose_turn`; the other hooks have defaults.

    ``name`` and ``version`` are what the bot answers to ``name`` and ``version``.
    ``self.rng`` is a :class:`random.Random` seeded from *seed*: use it for every random
    choice and a seeded bot replays the same game against the same opponent.
    """

    name: str = "unnamed-bot"
    version: str = "0"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.time_settings: tuple[float, float, int] | None = None

    @abc.abstractmethod
    def choose_turn(self, position: Position, time_left: float | None) -> str:
        """Return the full turn for ``position.to_move``: placement and every steal, in
        the notation of the rules (``"g7"``, ``"g7,f6>f6"``), or ``"resign"``.

        *time_left* is the seconds left on this side's clock as the referee last said
        with ``time_left``, or None if it never did. Only called when the mover has a
        legal placement (the SDK answers ``pass`` itself otherwise).
        """

    def choose_setup(self, position: Position) -> tuple[str, str]:
        """The pie-rule stones ``(black_point, white_point)`` when this bot moves first;
        *position* is the empty board. Default: two distinct random points."""
        black, white = self.rng.sample(position.legal_placements(), 2)
        return black, white

    def choose_color(self, position: Position) -> Color:
        """The side to take as second player, seeing the pie-rule stones in *position*.
        Default: Black (who moves first)."""
        return Color.BLACK

    def on_new_game(self) -> None:
        """Called on every ``clear_board``: reset per-game state here."""

    def on_time_settings(self, main: float, byo: float, stones: int) -> None:
        """Called on ``time_settings MAIN BYO STONES``; the default keeps the three numbers
        in ``self.time_settings``. The referee sends ``0 LIMIT 1`` for a per-move limit
        (so ``gensetup`` and ``choose_color`` also have LIMIT seconds) and ``MAIN INC 0``
        for a Fischer clock (MAIN seconds, plus INC after every turn; the pie-rule
        decisions run on the same clock but earn no increment)."""
        self.time_settings = (main, byo, stones)


class BotSession(Session):
    """The bot side of the protocol as a pure state machine: one command line in, the
    full response text (``"=id ...\\n\\n"``) out.

    State: the board size, the position, the ``time_left`` each colour was last given,
    and whether ``quit`` arrived (:attr:`finished`).
    """

    def __init__(self, bot: Bot, *, log: TextIO | None = None) -> None:
        super().__init__()
        self.bot = bot
        self.log = log if log is not None else sys.stderr
        self.size = 7
        self.position = Position.new(self.size)
        self.time_left: dict[Color, float] = {}
        self.time_settings: tuple[float, float, int] | None = None
        # name -> (fewest args, most args, usage, handler)
        self._handlers = {
            "protocol_version": (0, 0, "", lambda a: "2"),
            "name": (0, 0, "", lambda a: str(self.bot.name)),
            "version": (0, 0, "", lambda a: str(self.bot.version)),
            "known_command": (1, 1, "NAME", lambda a: "true" if a[0] in self._handlers else "false"),
            "list_commands": (0, 0, "", lambda a: "\n".join(sorted(self._handlers))),
            "boardsize": (1, 1, "N", self._boardsize),
            "clear_board": (0, 0, "", self._clear_board),
            "setup": (2, 2, "B W", self._setup),
            "play": (2, 2, "COLOR TURN", self._play),
            "genmove": (1, 1, "COLOR", self._genmove),
            "gensetup": (0, 0, "", self._gensetup),
            "choose_color": (0, 0, "", self._choose_color),
            "time_settings": (3, 3, "MAIN BYO STONES", self._time_settings),
            "time_left": (3, 3, "COLOR SECONDS STONES", self._time_left),
            "showboard": (0, 0, "", self._showboard),
            "final_score": (0, 0, "", lambda a: self.position.result()),
            "quit": (0, 0, "", self._quit),
        }

    def failed(self, error: Exception) -> str:
        """A bug in the bot's own code: its traceback to the log, its type and message to
        the referee (the loop goes on)."""
        traceback.print_exc(file=self.log)
        return f"{type(error).__name__}: {error}"

    def _warn(self, message: str) -> None:
        print(f"[{self.bot.name}] warning: {message}", file=self.log, flush=True)

    # -- handlers --------------------------------------------------------------------------

    def _boardsize(self, args: tuple[str, ...]) -> str:
        try:
            size = int(args[0])
        except ValueError:
            raise Refusal(f"boardsize: not an integer: {args[0]!r}") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise Refusal(f"unacceptable size {size}: sizes {MIN_SIZE} to {MAX_SIZE} are played")
        self.size = size
        self.position = Position.new(size)
        return ""

    def _clear_board(self, args: tuple[str, ...]) -> str:
        self.position = Position.new(self.size)
        self.time_left.clear()
        self.bot.on_new_game()
        return ""

    def _setup(self, args: tuple[str, ...]) -> str:
        try:
            self.position = self.position.setup(args[0], args[1])
        except TurnError as error:
            raise Refusal(f"illegal setup: {error}") from None
        return ""

    def _color(self, text: str) -> Color:
        try:
            return Color.parse(text)
        except ValueError as error:
            raise Refusal(str(error)) from None

    def _check_mover(self, color: Color, what: str) -> None:
        mover = self.position.to_move
        if color is not mover:
            raise Refusal(f"{what}: it is {mover.value}'s turn, not {color.value}'s")

    def _play(self, args: tuple[str, ...]) -> str:
        self._check_mover(self._color(args[0]), "illegal move")
        try:
            self.position = self.position.play(args[1])
        except TurnError as error:
            raise Refusal(f"illegal move: {error}") from None
        return ""

    def _genmove(self, args: tuple[str, ...]) -> str:
        color = self._color(args[0])
        self._check_mover(color, f"genmove {color.value}")
        if not self.position.legal_placements():
            if not self.position.is_over:
                self.position = self.position.play("pass")
            return "pass"
        turn = self.bot.choose_turn(self.position, self.time_left.get(color))
        if not isinstance(turn, str):
            raise TypeError(f"choose_turn returned {turn!r}, not a string")
        turn = turn.strip()
        if turn.lower() == "resign":
            return "resign"
        try:
            self.position = self.position.play(turn)
        except TurnError as error:
            self._warn(
                f"choose_turn returned {turn!r}, which is not legal here ({error}); "
                "sent anyway, the referee will judge it"
            )
        return turn

    def _gensetup(self, args: tuple[str, ...]) -> str:
        black, white = self.bot.choose_setup(self.position)
        try:
            self.position = self.position.setup(black, white)
        except TurnError as error:
            self._warn(
                f"choose_setup returned ({black!r}, {white!r}), which is not a legal setup "
                f"({error}); sent anyway, the referee will judge it"
            )
        return f"{black} {white}"

    def _choose_color(self, args: tuple[str, ...]) -> str:
        choice = self.bot.choose_color(self.position)
        return Color.parse(str(choice)).value

    def _time_settings(self, args: tuple[str, ...]) -> str:
        main, byo = _seconds(args[0]), _seconds(args[1])
        self.time_settings = (main, byo, _stones(args[2]))
        self.bot.on_time_settings(*self.time_settings)
        return ""

    def _time_left(self, args: tuple[str, ...]) -> str:
        color = self._color(args[0])
        seconds = _seconds(args[1])
        _stones(args[2])
        self.time_left[color] = seconds
        return ""

    def _showboard(self, args: tuple[str, ...]) -> str:
        # Starts with a newline so the diagram lines up under the "=" line; empty lines
        # would end the response, so none are kept.
        rows = [row for row in self.position.diagram().split("\n") if row.strip()]
        return "\n" + "\n".join(rows)

    def _quit(self, args: tuple[str, ...]) -> str:
        self.finished = True
        return ""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise Refusal(f"not a number of seconds: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise Refusal(f"not a number of seconds: {text!r}")
    return value


def _stones(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise Refusal(f"not a number of stones: {text!r}") from None
    if value < 0:
        raise Refusal(f"not a number of stones: {text!r}")
    return value


def run(
    bot: Bot,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    log: TextIO | None = None,
) -> None:
    """Serve the protocol for *bot* until ``quit`` or the end of input.

    Reads whatever bytes are available (never waits to fill a buffer, so a referee that
    sends one command and waits is answered at once), answers each command in order and
    flushes after every response. Returns normally at ``quit``, at end of input, or when
    the referee has closed our stdout. When serving the real stdout, ``print()`` calls in
    the bot's code go to stderr (or *log*) so they cannot break the protocol.
    """
    source = stdin if stdin is not None else sys.stdin.buffer
    sink = stdout if stdout is not None else sys.stdout.buffer
    with contextlib.ExitStack() as stack:
        if stdout is None:
            # stdout carries the protocol: a debugging print() in the bot's code would
            # corrupt it, so while we serve, sys.stdout is the log (stderr) instead.
            stack.enter_context(contextlib.redirect_stdout(log if log is not None else sys.stderr))
        serve(BotSession(bot, log=log), source, sink)
