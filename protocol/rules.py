"""The rules helper: the rules engine behind the bot protocol's framing, for bots in any language.

A bot written in Perl, Rust, Java... spawns ``python -m protocol.rules`` (or ``vastuz rules``)
as a child process and asks it, in the same GTP framing the referee uses, for the legal
placements, every legal turn, a random turn, the next steals of a turn built step by step,
the score. The bot's own code is then only its protocol loop and its choices: the hard part
of the rules (groups, shapes under the 12 symmetries, the compulsory steal rounds, the pass
rule) stays in one place, the engine the referee judges with.

The state machine is :class:`RulesSession` (lines in, response text out, no I/O, as
:class:`protocol.bot.BotSession` is for bots); :func:`serve` is the blocking loop over
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
from collections.abc import Callable, Sequence
from typing import BinaryIO

from protocol.framing import LineBuffer, ProtocolError, preprocess_command_line
from protocol.messages import Command, Response, parse_command
from referee.engine import MAX_SIZE, MIN_SIZE, BadNotation, Color, Position, TurnError

NAME = "vastuz-rules"
VERSION = "1"
READ_CHUNK = 65536
NONE = "-"
"""How an empty list of stones is written in ``set_position``."""


class _Refusal(Exception):
    """A handler's ``?`` answer, with the message the client reads."""


def _turn_error(error: TurnError) -> str:
    """The engine's reason, saying whether the text could not be read or the rules forbid it
    (python-chess's split: a syntax error is not an illegal move)."""
    kind = "bad notation" if isinstance(error, BadNotation) else "illegal move"
    return f"{kind}: {error}"


class RulesSession:
    """The helper's state machine: one command line in, the full response text out.

    State: the board size, the current position, and the positions before each change
    (for ``undo``; ``boardsize`` and ``clear_board`` forget them). ``random_turn`` without a
    seed draws from ``self.rng``, seeded by *seed*.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.size = 7
        self.position = Position.new(self.size)
        self.history: list[Position] = []
        self.finished = False
        # name -> (minimum args, maximum args, usage, handler)
        self._handlers: dict[str, tuple[int, int, str, Callable[[tuple[str, ...]], str]]] = {
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

    @property
    def commands(self) -> list[str]:
        """Every command the helper answers, sorted."""
        return sorted(self._handlers)

    # -- entry points ----------------------------------------------------------------------

    def handle_line(self, line: str) -> str | None:
        """Answer one raw input line; None for a line GTP says to skip (blank, comment)."""
        cleaned = preprocess_command_line(line)
        if cleaned is None:
            return None
        try:
            command = parse_command(cleaned)
        except ProtocolError as error:
            return Response(False, None, _one_line(str(error))).format()
        return self.handle(command)

    def handle(self, command: Command) -> str:
        """Answer one parsed command, echoing its id."""
        entry = self._handlers.get(command.name)
        if entry is None:
            return Response(False, command.id, "unknown command").format()
        low, high, usage, handler = entry
        if not low <= len(command.args) <= high:
            want = str(low) if low == high else f"{low} to {high}"
            usage_text = f" ({usage})" if usage else ""
            text = f"{command.name} takes {want} argument(s){usage_text}, got {len(command.args)}"
            return Response(False, command.id, text).format()
        try:
            return Response(True, command.id, handler(command.args)).format()
        except _Refusal as refusal:
            return Response(False, command.id, _one_line(str(refusal))).format()
        except TurnError as error:
            return Response(False, command.id, _one_line(_turn_error(error))).format()
        except Exception as error:  # a bug of ours must not end the client's game
            return Response(
                False, command.id, _one_line(f"internal error: {type(error).__name__}: {error}")
            ).format()

    def framing_error(self, error: ProtocolError) -> str:
        """The answer to an input line that could not be read (too long, not UTF-8)."""
        return Response(False, None, _one_line(str(error))).format()

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
            raise _Refusal(f"boardsize: not an integer: {args[0]!r}") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise _Refusal(f"unacceptable size {size}: sizes {MIN_SIZE} to {MAX_SIZE} are played")
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
            raise _Refusal(f"illegal setup: {error}") from None

    def _set_position(self, args: tuple[str, ...]) -> str:
        mover = _color(args[0])
        black, white = (() if a == NONE else tuple(p for p in a.split(",") if p) for a in args[1:])
        try:
            return self._change(Position.from_stones(self.size, black, white, mover))
        except ValueError as error:  # BadNotation is one, and so is a stone listed twice
            raise _Refusal(f"bad position: {error}") from None

    def _play(self, args: tuple[str, ...]) -> str:
        color = _color(args[0])
        mover = self.position.to_move
        if color is not mover:
            raise _Refusal(f"illegal move: it is {mover.value}'s turn, not {color.value}'s")
        return self._change(self.position.play(args[1]))

    def _undo(self, args: tuple[str, ...]) -> str:
        if not self.history:
            raise _Refusal("nothing to undo")
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
            raise _Refusal("the game is over: there is no turn to make")
        return self.position.random_turn(rng)

    def _steal_options(self, args: tuple[str, ...]) -> str:
        """The steals that may come next after a placement and the steals listed so far."""
        text = args[0].strip().lower()
        if text == "pass":
            raise _Refusal("a pass has no steals")
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
        raise _Refusal(str(error)) from None


def _natural(text: str, what: str) -> int:
    if not text.isdigit():
        raise _Refusal(f"{what}: expected a whole number >= 0, got {text!r}")
    return int(text)


def _one_line(message: str) -> str:
    return " ".join(message.split()) or "error"


def serve(session: RulesSession, source: BinaryIO, sink: BinaryIO) -> None:
    """Answer every command on *source* until ``quit`` or the end of input, flushing after
    each answer. Reads what is available (never waits to fill a buffer), so a client that
    writes one command and waits for its answer is answered at once."""
    read: Callable[[int], bytes] = getattr(source, "read1", source.read)
    buffer = LineBuffer()
    try:
        while not session.finished:
            chunk = read(READ_CHUNK)
            if not chunk:
                return
            buffer.push(chunk)
            while not session.finished:
                try:
                    line = buffer.next_line()
                except ProtocolError as error:
                    answer: str | None = session.framing_error(error)
                else:
                    if line is None:
                        break
                    answer = session.handle_line(line)
                if answer is not None:
                    sink.write(answer.encode("utf-8"))
                    sink.flush()
    except BrokenPipeError:
        return  # the client went away


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
