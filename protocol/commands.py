"""The command vocabulary of the bot protocol: typed builders and strict reply parsers.

Builders return id-less :class:`~protocol.messages.Command` values (the sender numbers
them with :meth:`Command.with_id`). Parsers take the text of a *successful* response
(use :func:`expect_success` first) and either return a typed value or raise
:class:`~protocol.framing.BadReply` saying what was expected and what arrived.

Parsers check the *form* of a reply only. Whether a turn or a setup is legal is the
engine's business: a genmove reply of ``"zz99"`` parses fine here and is then judged an
illegal turn, which is how the referee must score it.
"""

from __future__ import annotations

import re

from protocol.framing import BadReply, clip
from protocol.messages import Command, Response
from referee.engine import Color

PASS = "pass"
RESIGN = "resign"

# ---------------------------------------------------------------------------- builders


def _cmd(name: str, *args: str) -> Command:
    return Command(None, name, args)


def _seconds(value: float) -> str:
    """Seconds on the wire: an integer when whole, else up to 3 decimals (``"2.5"``)."""
    if value < 0:
        raise ValueError(f"a time cannot be negative: {value}")
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _count(value: int, what: str) -> str:
    if value < 0:
        raise ValueError(f"{what} cannot be negative: {value}")
    return str(value)


def protocol_version() -> Command:
    return _cmd("protocol_version")


def name() -> Command:
    return _cmd("name")


def version() -> Command:
    return _cmd("version")


def known_command(command_name: str) -> Command:
    return _cmd("known_command", command_name)


def list_commands() -> Command:
    return _cmd("list_commands")


def boardsize(size: int) -> Command:
    return _cmd("boardsize", str(size))


def clear_board() -> Command:
    return _cmd("clear_board")


def setup(black_point: str, white_point: str) -> Command:
    """The pie-rule stones, sent to the second player: a Black and a White stone."""
    return _cmd("setup", black_point, white_point)


def play(color: Color, turn: str) -> Command:
    """Tell the bot the opponent's full turn (placement and steals, or ``pass``)."""
    return Command.checked_args("play", color.value, turn)


def play_accepted(color: Color, turn: str) -> Command:
    """:func:`play` for a turn the engine has just accepted, which is one token in rules
    notation: nothing left to check (the referee sends one per turn)."""
    return Command.trusted_play(_COLOR_TEXT[color], turn)


_COLOR_TEXT = {color: color.value for color in Color}


_GENMOVE = {color: _cmd("genmove", color.value) for color in Color}


def genmove(color: Color) -> Command:
    return _GENMOVE[color]  # commands are immutable values: one per colour will do


def gensetup() -> Command:
    """Ask the first player for the pie-rule stones."""
    return _cmd("gensetup")


def choose_color() -> Command:
    """Ask the second player, after ``setup``, which side they take."""
    return _cmd("choose_color")


def time_settings(main: float, byo: float, stones: int) -> Command:
    """GTP ``time_settings`` with the numbers as given (seconds, seconds, stones).
    Prefer :func:`fischer_time_settings` / :func:`per_move_time_settings`, which encode
    the project's two time controls the way PROTOCOL.md documents them."""
    return _cmd("time_settings", _seconds(main), _seconds(byo), _count(stones, "stones"))


def fischer_time_settings(main: float, increment: float) -> Command:
    """Fischer clock: *main* seconds, plus *increment* after each move:
    ``time_settings MAIN INCREMENT 0``."""
    return time_settings(main, increment, 0)


def per_move_time_settings(limit: float) -> Command:
    """A fixed limit per move, unused time lost: ``time_settings 0 LIMIT 1`` (GTP's
    reading: no main time, then LIMIT seconds for every single move)."""
    return time_settings(0, limit, 1)


def time_left(color: Color, seconds: float, stones: int) -> Command:
    return _cmd("time_left", color.value, _seconds(seconds), _count(stones, "stones"))


def showboard() -> Command:
    return _cmd("showboard")


def final_score() -> Command:
    return _cmd("final_score")


def quit() -> Command:
    return _cmd("quit")


# ----------------------------------------------------------------------------- parsers


def _bad(command: str, expected: str, text: str) -> BadReply:
    return BadReply(f"{command}: expected {expected}, got {clip(text)}")


def expect_success(response: Response, command: Command) -> str:
    """Return the text of a ``=`` response; a ``?`` answer raises :class:`BadReply`
    naming the command, for commands a bot must answer."""
    if not response.ok:
        raise BadReply(f"the bot answered '?' to {clip(str(command))}: {clip(response.text)}")
    return response.text


def parse_protocol_version(text: str) -> str:
    if text.strip() != "2":
        raise _bad("protocol_version", "'2'", text)
    return "2"


def parse_known_command(text: str) -> bool:
    answer = text.strip().lower()
    if answer not in ("true", "false"):
        raise _bad("known_command", "'true' or 'false'", text)
    return answer == "true"


def parse_list_commands(text: str) -> set[str]:
    """One command name per line; blank-looking lines are tolerated, names with
    spaces are not."""
    names: set[str] = set()
    for line in text.split("\n"):
        token = line.strip()
        if not token:
            continue
        if any(ch.isspace() for ch in token):
            raise _bad("list_commands", "one command name per line", line)
        names.add(token)
    return names


def _one_token(command: str, text: str, expected: str) -> str:
    tokens = text.split()
    if len(tokens) != 1:
        raise _bad(command, expected, text)
    return tokens[0].lower()


def parse_genmove(text: str) -> str:
    """The bot's turn as one lowercase token: a turn in rules notation, ``pass`` or
    ``resign``. Only the shape is checked (exactly one token)."""
    return _one_token("genmove", text, "one turn token, 'pass' or 'resign'")


def parse_gensetup(text: str) -> tuple[str, str]:
    """``B W``: the points of the Black and the White pie-rule stones, lowercased."""
    tokens = text.split()
    if len(tokens) != 2:
        raise _bad("gensetup", "two points 'B W'", text)
    return tokens[0].lower(), tokens[1].lower()


def parse_choose_color(text: str) -> Color:
    try:
        return Color.parse(_one_token("choose_color", text, "'black' or 'white'"))
    except ValueError:
        raise _bad("choose_color", "'black' or 'white'", text) from None


_SCORE = re.compile(r"([bw])\+([0-9]+(?:\.[0-9]+)?)")


def parse_final_score(text: str) -> str:
    """A result normalised as the engine writes it: ``B+4.5``, ``W+1`` or ``0``
    (any case accepted; ``B+1.0`` becomes ``B+1``, ``B+0`` becomes ``0``)."""
    expected = "a result like 'B+4.5', 'W+1' or '0'"
    token = _one_token("final_score", text, expected)
    if token == "0":
        return "0"
    match = _SCORE.fullmatch(token)
    if match is None:
        raise _bad("final_score", expected, text)
    margin = float(match.group(2))
    if margin == 0:
        return "0"
    shown = str(int(margin)) if margin.is_integer() else repr(margin)
    return f"{match.group(1).upper()}+{shown}"
