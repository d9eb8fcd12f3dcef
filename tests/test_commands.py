"""The command vocabulary: builders' wire form and each reply parser on good and bad text."""

from __future__ import annotations

import pytest

from protocol import commands as c
from protocol.framing import BadReply
from protocol.messages import Command, Response
from referee.engine import Color


@pytest.mark.parametrize(
    ("command", "wire"),
    [
        (c.protocol_version(), "protocol_version"),
        (c.name(), "name"),
        (c.version(), "version"),
        (c.known_command("showboard"), "known_command showboard"),
        (c.list_commands(), "list_commands"),
        (c.boardsize(7), "boardsize 7"),
        (c.clear_board(), "clear_board"),
        (c.setup("b2", "c3"), "setup b2 c3"),
        (c.play(Color.BLACK, "g7,f6>f6"), "play black g7,f6>f6"),
        (c.play(Color.WHITE, "pass"), "play white pass"),
        (c.genmove(Color.WHITE), "genmove white"),
        (c.gensetup(), "gensetup"),
        (c.choose_color(), "choose_color"),
        (c.time_settings(300, 5, 0), "time_settings 300 5 0"),
        (c.fischer_time_settings(60.0, 2.5), "time_settings 60 2.5 0"),
        (c.per_move_time_settings(0.25), "time_settings 0 0.25 1"),
        (c.time_left(Color.BLACK, 12.3456, 0), "time_left black 12.346 0"),
        (c.time_left(Color.WHITE, 0.0001, 1), "time_left white 0 1"),
        (c.showboard(), "showboard"),
        (c.final_score(), "final_score"),
        (c.quit(), "quit"),
    ],
)
def test_builder_wire_form(command: Command, wire: str) -> None:
    assert command.id is None
    assert command.format() == wire + "\n"
    assert command.with_id(9).format() == f"9 {wire}\n"


def test_builders_refuse_negative_times_and_spaces() -> None:
    with pytest.raises(ValueError):
        c.time_left(Color.BLACK, -1, 0)
    with pytest.raises(ValueError):
        c.time_settings(10, 1, -1)
    with pytest.raises(ValueError):
        c.play(Color.BLACK, "g7 f6>f6")


def test_expect_success() -> None:
    assert c.expect_success(Response(True, 1, "2"), c.protocol_version()) == "2"
    with pytest.raises(BadReply, match=r"the bot answered '\?' to 'genmove black': 'not my turn'"):
        c.expect_success(Response(False, 1, "not my turn"), c.genmove(Color.BLACK))


def test_protocol_version() -> None:
    assert c.parse_protocol_version("2") == "2"
    assert c.parse_protocol_version(" 2 ") == "2"
    with pytest.raises(BadReply, match="protocol_version: expected '2', got '1'"):
        c.parse_protocol_version("1")


def test_known_command() -> None:
    assert c.parse_known_command("true") is True
    assert c.parse_known_command("FALSE") is False
    with pytest.raises(BadReply, match="known_command: expected 'true' or 'false', got 'yes'"):
        c.parse_known_command("yes")


def test_list_commands() -> None:
    assert c.parse_list_commands("name\nversion\ngenmove") == {"name", "version", "genmove"}
    assert c.parse_list_commands("\nname") == {"name"}
    with pytest.raises(
        BadReply, match="list_commands: expected one command name per line, got 'play genmove'"
    ):
        c.parse_list_commands("name\nplay genmove")


@pytest.mark.parametrize(
    ("text", "turn"),
    [
        ("g7", "g7"),
        ("G7,F6>F6", "g7,f6>f6"),
        (" pass ", "pass"),
        ("PASS", "pass"),
        ("Resign", "resign"),
        ("zz99", "zz99"),
    ],
)
def test_genmove_good(text: str, turn: str) -> None:
    assert c.parse_genmove(text) == turn


@pytest.mark.parametrize("text", ["", "   ", "g7 f6", "g7\nh8"])
def test_genmove_bad(text: str) -> None:
    with pytest.raises(BadReply) as info:
        c.parse_genmove(text)
    assert str(info.value) == f"genmove: expected one turn token, 'pass' or 'resign', got {text!r}"


def test_long_reply_is_truncated_in_the_message() -> None:
    with pytest.raises(BadReply) as info:
        c.parse_genmove("g7 " * 1000)
    assert len(str(info.value)) < 320


def test_gensetup() -> None:
    assert c.parse_gensetup("B2 c3") == ("b2", "c3")
    for bad in ["b2", "b2 c3 d4", ""]:
        with pytest.raises(BadReply, match="gensetup: expected two points 'B W'"):
            c.parse_gensetup(bad)


def test_choose_color() -> None:
    assert c.parse_choose_color("black") is Color.BLACK
    assert c.parse_choose_color("W") is Color.WHITE
    for bad in ["red", "black white", ""]:
        with pytest.raises(BadReply, match="choose_color: expected 'black' or 'white'"):
            c.parse_choose_color(bad)


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("B+4.5", "B+4.5"),
        ("b+4.5", "B+4.5"),
        ("W+1", "W+1"),
        ("w+1.0", "W+1"),
        ("0", "0"),
        ("B+0", "0"),
        ("W+12.50", "W+12.5"),
        (" B+3 ", "B+3"),
    ],
)
def test_final_score_good(text: str, result: str) -> None:
    assert c.parse_final_score(text) == result


@pytest.mark.parametrize("text", ["B+", "B4.5", "X+1", "B+-1", "draw", "B+1 W+2", "B+1e3"])
def test_final_score_bad(text: str) -> None:
    with pytest.raises(BadReply, match=r"final_score: expected a result like 'B\+4\.5'"):
        c.parse_final_score(text)
