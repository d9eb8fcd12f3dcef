"""GTP commands and responses as values, their wire form, and a strict response parser.

The referee sends one :class:`Command` at a time and feeds the lines that come back into
a fresh :class:`ResponseParser`; anything that breaks the framing becomes a
:class:`~protocol.framing.MalformedResponse` whose message names what was wrong. The bot
side uses :func:`parse_command` and :meth:`Response.format`.

GTP response framing, as enforced here: the first line is ``=`` (success) or ``?``
(failure), then the command's id in digits if it had one, then a space or the end of the
line; the rest of that line and any following non-empty lines are the text; an empty line
ends the response.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from protocol.framing import BadCommand, MalformedResponse, clip

_ID = re.compile(r"[0-9]+")
_HEADER = re.compile(r"([=?])([0-9]*)(.?)(.*)", re.DOTALL)

DEFAULT_MAX_RESPONSE = 1 << 20
"""Cap on the total text of one response, so a bot that never sends the empty line
cannot make the referee buffer without bound while its clock runs."""


# A token: one or more characters, none of them whitespace (``\\s`` is exactly ``str.isspace``).
_TOKEN = re.compile(r"\S+")


def _check_token(kind: str, token: str) -> None:
    if _TOKEN.fullmatch(token) is None:
        raise ValueError(f"{kind} must be a non-empty token without whitespace: {token!r}")


@dataclass(frozen=True)
class Command:
    """One command line. ``id`` is an optional non-negative integer echoed in the reply."""

    id: int | None
    name: str
    args: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.id is not None and self.id < 0:
            raise ValueError(f"command id must be non-negative, got {self.id}")
        _check_token("command name", self.name)
        if self.name.isdigit():
            raise ValueError(f"command name cannot be all digits: {self.name!r}")
        for arg in self.args:
            _check_token("command argument", arg)

    @classmethod
    def checked_args(cls, name: str, *args: str) -> Command:
        """An id-less command whose ``name`` the caller knows to be valid (a constant of
        :mod:`protocol.commands`): only the arguments are checked."""
        for arg in args:
            _check_token("command argument", arg)
        return cls._trusted(None, name, args)

    @classmethod
    def trusted(cls, name: str, args: tuple[str, ...]) -> Command:
        """An id-less command from a name and arguments the caller knows to be valid
        tokens (e.g. a turn the engine accepted): nothing is checked."""
        return cls._trusted(None, name, args)

    @classmethod
    def _trusted(cls, id: int | None, name: str, args: tuple[str, ...]) -> Command:
        """A command from parts already checked, without checking them again (the
        referee builds several per turn)."""
        command = object.__new__(cls)
        command.__dict__.update(id=id, name=name, args=args)  # frozen: no __setattr__
        return command

    @classmethod
    def trusted_play(cls, color: str, turn: str) -> Command:
        """``play COLOR TURN`` from tokens the caller knows to be valid (a turn the engine
        accepted), its :meth:`body` made with it: the referee sends one every turn."""
        command = object.__new__(cls)
        command.__dict__.update(id=None, name="play", args=(color, turn), _wire=f"play {color} {turn}")
        return command

    def with_id(self, id: int | None) -> Command:
        """The same command with another id (builders make id-less commands). Only the id
        is new, so only the id is checked: the name and arguments were checked already."""
        if id is not None and id < 0:
            raise ValueError(f"command id must be non-negative, got {id}")
        return self._trusted(id, self.name, self.args)

    def body(self) -> str:
        """The name and arguments as written, without the id: kept after the first use (a
        command is immutable, and the referee sends the same ``genmove`` all game). By hand
        rather than ``functools.cached_property``, which takes a lock on every first use in 3.11."""
        body: str | None = self.__dict__.get("_wire")
        if body is None:
            body = self.__dict__["_wire"] = " ".join((self.name, *self.args)) if self.args else self.name
        return body

    def format(self) -> str:
        """The wire form, newline included: ``"7 play b g7\\n"``."""
        return f"{self.body()}\n" if self.id is None else f"{self.id} {self.body()}\n"

    def numbered(self, id: int) -> tuple[Command, str]:
        """The command with ``id`` (a positive number the caller counts) and that
        command's wire form: what :meth:`with_id` then :meth:`format` give, at the cost
        of one (the referee numbers every command it sends)."""
        body = self.body()
        command = object.__new__(Command)
        # Its wire body is this one's: kept too, so its text costs nothing later.
        command.__dict__.update(id=id, name=self.name, args=self.args, _wire=body)
        return command, f"{id} {body}\n"

    def __str__(self) -> str:
        return self.format()[:-1]


def parse_command(line: str) -> Command:
    """Parse a preprocessed command line (see
    :func:`~protocol.framing.preprocess_command_line`) into a :class:`Command`.

    A first token made only of ASCII digits is the id; the next token is the name.
    """
    tokens = line.split()
    if not tokens:
        raise BadCommand("empty command line")
    cmd_id: int | None = None
    if _ID.fullmatch(tokens[0]):
        cmd_id = int(tokens[0])
        tokens = tokens[1:]
        if not tokens:
            raise BadCommand(f"command id {cmd_id} is not followed by a command name")
    return Command(cmd_id, tokens[0], tuple(tokens[1:]))


@dataclass(frozen=True)
class Response:
    """One response. ``text`` joins a multi-line result with ``"\\n"``; it may start
    with a newline (a diagram that begins on the line after ``=``) but never contains
    an empty line, a carriage return or a trailing newline, since any of those would
    end the response early on the wire."""

    ok: bool
    id: int | None
    text: str = ""

    def __post_init__(self) -> None:
        if self.id is not None and self.id < 0:
            raise ValueError(f"response id must be non-negative, got {self.id}")
        if "\n\n" in self.text or self.text.endswith("\n") or "\r" in self.text:
            raise ValueError(f"response text would break the framing: {clip(self.text)}")

    @classmethod
    def from_line(cls, ok: bool, id: int | None, text: str) -> Response:
        """The response whose ``text`` the caller took off one wire line (so with no newline
        and no carriage return): nothing that ``__post_init__`` refuses, so nothing is
        checked (the referee reads several a turn)."""
        response = object.__new__(cls)
        response.__dict__.update(ok=ok, id=id, text=text)  # frozen: no __setattr__
        return response

    def format(self) -> str:
        """The wire form, terminator included: ``"=7 g7\\n\\n"``, ``"?3 unknown command\\n\\n"``."""
        head = ("=" if self.ok else "?") + ("" if self.id is None else str(self.id))
        return (f"{head} {self.text}" if self.text else head) + "\n\n"


class ResponseParser:
    """Parse the response to one command from the lines the bot sends.

    Make one parser per command sent; :meth:`feed` it each line (from
    :class:`~protocol.framing.LineBuffer`) until it returns the :class:`Response`.
    *expected_id* is the id the command was sent with (None when it had none); the
    response must echo exactly that.

    Empty lines before the first line of a response are ignored: they cannot be
    mistaken for anything, and some bots print an extra one.
    """

    def __init__(self, expected_id: int | None, *, max_size: int = DEFAULT_MAX_RESPONSE) -> None:
        self.expected_id = expected_id
        self.max_size = max_size
        self._ok: bool | None = None
        self._lines: list[str] = []
        self._size = 0
        self._done = False

    @property
    def started(self) -> bool:
        """True once the first line of the response has arrived."""
        return self._ok is not None

    def feed(self, line: str) -> Response | None:
        """Take one line; return the response when its terminating empty line arrives."""
        if self._done:
            raise RuntimeError("this response is complete; use a new parser per command")
        if self._ok is None:
            if line == "":
                return None
            self._start(line)
            return None
        if line == "":
            self._done = True
            return Response(self._ok, self.expected_id, "\n".join(self._lines))
        self._add(line)
        return None

    def close(self) -> None:
        """The bot's output ended. Raise :class:`MalformedResponse` if it ended in the
        middle of a response. If no line had arrived yet, return: the caller decides
        what a bot closing its output before answering means (a crash, usually)."""
        if self._ok is not None and not self._done:
            raise MalformedResponse(
                f"output closed in the middle of a response, before its terminating "
                f"empty line (after {len(self._lines)} line(s) of text)"
            )

    def _start(self, line: str) -> None:
        match = _HEADER.fullmatch(line)
        if match is None:
            raise MalformedResponse(f"a response must start with '=' or '?', got {clip(line)}")
        mark, digits, sep, rest = match.groups()
        if sep not in ("", " "):
            raise MalformedResponse(
                f"response header {clip(mark + digits)} must be followed by a space or "
                f"the end of the line, got {clip(line)}"
            )
        got_id = int(digits) if digits else None
        if got_id != self.expected_id:
            if got_id is None:
                problem = f"missing id: expected {self.expected_id}"
            elif self.expected_id is None:
                problem = f"unexpected id {got_id}: the command had no id"
            else:
                problem = f"wrong id: expected {self.expected_id}, got {got_id}"
            raise MalformedResponse(f"{problem} in response {clip(line)}")
        self._ok = mark == "="
        self._add(rest)

    def _add(self, line: str) -> None:
        if "\r" in line:
            # A line ends at its newline (a CR just before it is dropped), so a CR inside
            # one is the bot's garbage: it must not reach Response, which refuses it.
            raise MalformedResponse(f"a carriage return inside a response line: {clip(line)}")
        self._size += len(line) + 1
        if self._size > self.max_size:
            raise MalformedResponse(
                f"response longer than {self.max_size} characters without its terminating empty line"
            )
        self._lines.append(line)


def one_line_response(line: str, expected_id: int | None) -> Response | None:
    """The response a fresh :class:`ResponseParser` for ``expected_id`` returns when fed
    ``line`` and then the empty line, for the usual well-formed one-line answer (``=7``,
    ``=7 g7``, ``?7 message``); None for anything else, which the parser must then judge
    (and name what is wrong). A shortcut for the referee, which reads several per turn."""
    # The header the parser wants is the mark, then exactly the expected id's digits
    # (no more: ``=123`` is not ``=12``), then a space or the end of the line.
    header = "=" if expected_id is None else f"={expected_id}"
    n = len(header)
    if line.startswith(header):
        ok = True
    elif line.startswith("?") and line[1:n] == header[1:]:
        ok = False
    else:
        return None
    if len(line) == n:
        rest = ""
    elif line[n] == " ":
        rest = line[n + 1 :]
        if "\r" in rest or len(rest) + 1 > DEFAULT_MAX_RESPONSE:
            return None
    else:
        return None
    return Response.from_line(ok, expected_id, rest)


def check_idle_line(line: str) -> None:
    """Judge a line that arrived while no command was in flight.

    An empty line is harmless and ignored; anything else is a stray line (a bot that
    answers twice, or talks on its own) and raises :class:`MalformedResponse`: it must
    never be taken as the reply to the next command.
    """
    if line != "":
        raise MalformedResponse(f"stray line while no command was in flight: {clip(line)}")
