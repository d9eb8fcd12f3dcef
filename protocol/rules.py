"""The rules helper: the rules engine behind the bot protocol's framing, for bots in any language.

A bot written in Perl, Rust, Java... spawns ``python -m protocol.rules`` (or ``vastuz rules``)
as a child process and asks it, in the same GTP framing the referee uses, for the legal
placements, every legal turn, a random turn, the next steals of a turn built step by step,
the score. The bot's own code is then only its protocol loop and its choices: the hard part
of the rules (groups, shapes under the 12 symmetries, the compulsory steal rounds, the pass
rule) stays in one place, the engine the referee judges with.

The state machine is :class:`RulesSession` (lines in, response text out, no I/O, as
:class:`protocol.bot.BotSession` is for bots); :func:`protocol.session.serve` is the blocking loop over
stdin/stdout. Nothing a client sends can crash it: bad input gets a ``?`` answer whose text
is the engine's reason (``? illegal move: placement d4 is occupied``), and the loop goes on.

The same command set is the interface ``vastuz rules --vectors`` drives, so an author's own
rules implementation that answers these commands can be checked against the conformance
vectors (:mod:`referee.tools.vectors`). PROTOCOL.md section 9 documents every command.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from protocol.session import Refusal, Session, serve
from referee.engine import MAX_SIZE, MIN_SIZE, BadNotation, Color, Position, TurnError

NAME = "vastuz-rules"
VERSION = "1"
NONE = "-"
"""How an empty list of stones is written in ``set_position``."""


def _turn_error(error: TurnError) -> str:
    """The engine's reason, saying whether the text could not be read or the rules forbid it
    (python-chess's split: a syntax error is not an illegal move)."""
    kind = "bad notation" if isinstance(error, BadNotation) else "illegal move"
    return f"{kind}: {error}"


class RulesSession(Session):
    """The helper's state machine: one command line in, the full response text out.

    State: the board size, the current position, and the positions before each change
    (for ``undo``; ``boardsize`` and ``clear_board`` forget them). ``random_turn`` without a
    seed draws from ``self.rng``, seeded by *seed*.
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.size = 7
        self.position = Position.new(self.size)
        self.history: list[Position] = []
        # name -> (fewest args, most args, usage, handler)
        self._handlers = {
            "protocol_version": (0, 0, "", lambda a: "2"),
            "name": (0, 0, "", lambda a: NAME),
            "version": (0, 0, "", lambda a: VERSION),
            "known_command": (1, 1, "NAME", lambda a: "true" if a[0] in self._handlers else "false"),
            "list_commands": (0, 0, "", lambda a: "\n".join(sorted(self._handlers))),
            "quit": (0, 0, "", self._quit),
            "boardsize": (1, 1, "N", self._boardsize),
            "clear_board": (0, 0, "", self._clear_board),
            "setup": (2, 2, "B W", self._setup),
            "set_position": (3, 3, "TO_MOVE BLACK WHITE", self._set_position),
            "play": (2, 2, "COLOR TURN", self._play),
            "undo": (0, 0, "", self._undo),
            "legal_placements": (0, 0, "", lambda a: "\n".join(self.position.legal_placements())),
            "legal_turns": (0, 1, "[LIMIT]", self._legal_turns),
            "random_turn": (0, 1, "[SEED]", self._random_turn),
            "steal_options": (1, 1, "TURN_SO_FAR", self._steal_options),
            "to_move": (0, 0, "", lambda a: self.position.to_move.value),
            "is_over": (0, 0, "", lambda a: "true" if self.position.is_over else "false"),
            "final_score": (0, 0, "", lambda a: self.position.result()),
            "score": (0, 0, "", self._score),
            "stones": (1, 1, "COLOR", self._stones),
            "showboard": (0, 0, "", self._showboard),
        }

    def failed(self, error: Exception) -> str:
        """The engine's refusal of a turn, as a reason; else a bug of ours, named (the
        client's game goes on)."""
        if isinstance(error, TurnError):
            return _turn_error(error)
        return super().failed(error)

    # -- handlers --------------------------------------------------------------------------

    def _change(self, position: Position) -> str:
        self.history.append(self.position)
        self.position = position
        return ""

    def _quit(self, args: tuple[str, ...]) -> str:
        self.finished = True
        return ""

    def _boardsize(self, args: tuple[str, ...]) -> str:
        try:
            size = int(args[0])
        except ValueError:
            raise Refusal(f"boardsize: not an integer: {args[0]!r}") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise Refusal(f"unacceptable size {size}: sizes {MIN_SIZE} to {MAX_SIZE} are played")
        self.size = size
        return self._clear_board(())

    def _clear_board(self, args: tuple[str, ...]) -> str:
        self.position = Position.new(self.size)
        self.history.clear()
        return ""

    def _setup(self, args: tuple[str, ...]) -> str:
        try:
            return self._change(self.position.setup(args[0], args[1]))
        except TurnError as error:
            raise Refusal(f"illegal setup: {error}") from None

    def _set_position(self, args: tuple[str, ...]) -> str:
        mover = _color(args[0])
        black, white = (() if a == NONE else tuple(p for p in a.split(",") if p) for a in args[1:])
        try:
            return self._change(Position.from_stones(self.size, black, white, mover))
        except ValueError as error:  # BadNotation is one, and so is a stone listed twice
            raise Refusal(f"bad position: {error}") from None

    def _play(self, args: tuple[str, ...]) -> str:
        color = _color(args[0])
        mover = self.position.to_move
        if color is not mover:
            raise Refusal(f"illegal move: it is {mover.value}'s turn, not {color.value}'s")
        return self._change(self.position.play(args[1]))

    def _undo(self, args: tuple[str, ...]) -> str:
        if not self.history:
            raise Refusal("nothing to undo")
        self.position = self.history.pop()
        return ""

    def _legal_turns(self, args: tuple[str, ...]) -> str:
        turns = self.position.legal_turns()
        if args:
            limit = _natural(args[0], "LIMIT")
            turns = turns[:limit]
        return "\n".join(turns)

    def _random_turn(self, args: tuple[str, ...]) -> str:
        rng = random.Random(_natural(args[0], "SEED")) if args else self.rng
        if self.position.is_over:
            raise Refusal("the game is over: there is no turn to make")
        return self.position.random_turn(rng)

    def _steal_options(self, args: tuple[str, ...]) -> str:
        """The steals that may come next after a placement and the steals listed so far."""
        text = args[0].strip().lower()
        if text == "pass":
            raise Refusal("a pass has no steals")
        head, *steals = text.split(",")
        builder = self.position.begin_turn(head)
        for part in steals:
            halves = part.split(">")
            if len(halves) != 2:
                raise BadNotation(f"steal {part!r} is not FROM>TO")
            builder.steal(halves[0], halves[1])
        return "\n".join(f"{x}>{y}" for x, y in sorted(builder.legal_steals()))

    def _score(self, args: tuple[str, ...]) -> str:
        return " ".join(f"{s:g}" for s in self.position.score())

    def _stones(self, args: tuple[str, ...]) -> str:
        return "\n".join(self.position.stones(_color(args[0])))

    def _showboard(self, args: tuple[str, ...]) -> str:
        rows = [row for row in self.position.diagram().split("\n") if row.strip()]
        return "\n" + "\n".join(rows)


def _color(text: str) -> Color:
    try:
        return Color.parse(text)
    except ValueError as error:
        raise Refusal(str(error)) from None


def _natural(text: str, what: str) -> int:
    if not text.isdigit():
        raise Refusal(f"{what}: expected a whole number >= 0, got {text!r}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m protocol.rules",
        description="The Vastuz rules helper: rules questions answered on stdin/stdout (PROTOCOL.md 9).",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of random_turn without a SEED")
    args = parser.parse_args(argv)
    serve(RulesSession(args.seed), sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
