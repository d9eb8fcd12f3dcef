"""Command and Response value objects and the strict response parser."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.framing import BadCommand, LineBuffer, MalformedResponse
from protocol.messages import Command, Response, ResponseParser, check_idle_line, parse_command


def test_command_format() -> None:
    assert Command(7, "play", ("black", "g7")).format() == "7 play black g7\n"
    assert Command(None, "name").format() == "name\n"
    assert Command(0, "quit").format() == "0 quit\n"
    assert str(Command(3, "genmove", ("w",))) == "3 genmove w"
    assert Command(None, "name").with_id(4) == Command(4, "name", ())


@pytest.mark.parametrize(
    "bad",
    [
        lambda: Command(-1, "name"),
        lambda: Command(None, ""),
        lambda: Command(None, "two words"),
        lambda: Command(None, "12"),
        lambda: Command(None, "play", ("b", "")),
        lambda: Command(None, "play", ("b\n",)),
    ],
)
def test_command_rejects_what_would_break_the_wire(bad) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        bad()


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("name", Command(None, "name")),
        ("12 genmove b", Command(12, "genmove", ("b",))),
        ("0 play  black   g7", Command(0, "play", ("black", "g7"))),
        ("007 quit", Command(7, "quit")),
        ("-3 quit", Command(None, "-3", ("quit",))),
    ],
)
def test_parse_command(line: str, command: Command) -> None:
    assert parse_command(line) == command


def test_parse_command_errors() -> None:
    with pytest.raises(BadCommand, match="empty command line"):
        parse_command("   ")
    with pytest.raises(BadCommand, match="command id 5 is not followed by a command name"):
        parse_command("5")


@given(
    st.one_of(st.none(), st.integers(min_value=0, max_value=10**6)),
    st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
    st.lists(st.from_regex(r"[a-z0-9,>.]{1,8}", fullmatch=True), max_size=4),
)
def test_command_round_trip(cmd_id: int | None, name: str, args: list[str]) -> None:
    cmd = Command(cmd_id, name, tuple(args))
    assert parse_command(cmd.format()) == cmd


def test_response_format() -> None:
    assert Response(True, 7, "g7").format() == "=7 g7\n\n"
    assert Response(False, None, "unknown command").format() == "? unknown command\n\n"
    assert Response(True, None).format() == "=\n\n"
    assert Response(True, 2, "\nrow 1\nrow 2").format() == "=2 \nrow 1\nrow 2\n\n"


@pytest.mark.parametrize("text", ["a\n\nb", "a\n", "a\r\nb", "\n\n"])
def test_response_text_that_would_break_framing_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="would break the framing"):
        Response(True, 1, text)


def parse_wire(wire: bytes, expected_id: int | None) -> Response:
    parser = ResponseParser(expected_id)
    result = None
    for line in LineBuffer().feed(wire):
        assert result is None, "lines after the end of the response"
        result = parser.feed(line)
    assert result is not None
    return result


@pytest.mark.parametrize(
    ("wire", "expected_id", "response"),
    [
        (b"=7 g7\n\n", 7, Response(True, 7, "g7")),
        (b"= g7\n\n", None, Response(True, None, "g7")),
        (b"=\n\n", None, Response(True, None, "")),
        (b"= \n\n", None, Response(True, None, "")),
        (b"?3 unknown command\n\n", 3, Response(False, 3, "unknown command")),
        (b"?\n\n", None, Response(False, None, "")),
        (b"=1 a\nb\nc\n\n", 1, Response(True, 1, "a\nb\nc")),
        (b"=1 \n  x\n y\n\n", 1, Response(True, 1, "\n  x\n y")),
        (b"=4 b3 c2\r\n\r\n", 4, Response(True, 4, "b3 c2")),
        (b"\n\n=5 ok\n\n", 5, Response(True, 5, "ok")),
    ],
)
def test_response_parser_accepts(wire: bytes, expected_id: int | None, response: Response) -> None:
    assert parse_wire(wire, expected_id) == response


@given(
    st.booleans(),
    st.one_of(st.none(), st.integers(min_value=0, max_value=10**9)),
    st.lists(st.from_regex(r"[ -~]{1,20}", fullmatch=True), min_size=1, max_size=5),
)
def test_format_then_parse_round_trip(ok: bool, rid: int | None, lines: list[str]) -> None:
    response = Response(ok, rid, "\n".join(lines))
    assert parse_wire(response.format().encode(), rid) == response


@pytest.mark.parametrize(
    ("first_line", "expected_id", "message"),
    [
        ("g7", 1, "a response must start with '=' or '?', got 'g7'"),
        ("!1 g7", 1, "a response must start with '=' or '?', got '!1 g7'"),
        ("=8 g7", 7, "wrong id: expected 7, got 8 in response '=8 g7'"),
        ("= g7", 7, "missing id: expected 7 in response '= g7'"),
        ("=3 g7", None, "unexpected id 3: the command had no id in response '=3 g7'"),
        ("=7g7", 7, "response header '=7' must be followed by a space or the end of the line"),
        ("=\tg7", None, "response header '=' must be followed by a space"),
        ("?x", None, "response header '?' must be followed by a space"),
    ],
)
def test_response_parser_errors(first_line: str, expected_id: int | None, message: str) -> None:
    with pytest.raises(MalformedResponse) as info:
        ResponseParser(expected_id).feed(first_line)
    assert message in str(info.value)


def test_long_garbage_is_quoted_truncated() -> None:
    with pytest.raises(MalformedResponse) as info:
        ResponseParser(1).feed("x" * 5000)
    assert len(str(info.value)) < 300
    assert "(5000 characters)" in str(info.value)


def test_close_mid_response_is_an_error() -> None:
    parser = ResponseParser(2)
    parser.feed("=2 first line")
    parser.feed("second")
    assert parser.started
    with pytest.raises(
        MalformedResponse,
        match=r"output closed in the middle of a response, before its terminating empty line "
        r"\(after 2 line\(s\) of text\)",
    ):
        parser.close()


def test_close_before_anything_is_left_to_the_caller() -> None:
    parser = ResponseParser(2)
    parser.feed("")
    assert not parser.started
    parser.close()  # no error: nothing was half-received


def test_close_after_complete_response_is_fine() -> None:
    parser = ResponseParser(None)
    parser.feed("= ok")
    assert parser.feed("") == Response(True, None, "ok")
    parser.close()


def test_parser_is_single_use() -> None:
    parser = ResponseParser(None)
    parser.feed("=")
    parser.feed("")
    with pytest.raises(RuntimeError):
        parser.feed("= again")


def test_response_size_cap() -> None:
    parser = ResponseParser(1, max_size=100)
    parser.feed("=1 start")
    with pytest.raises(MalformedResponse, match="response longer than 100 characters"):
        for _ in range(20):
            parser.feed("0123456789")


def test_stray_lines() -> None:
    check_idle_line("")  # an empty line between responses is harmless
    with pytest.raises(MalformedResponse, match="stray line while no command was in flight: '= g7'"):
        check_idle_line("= g7")
