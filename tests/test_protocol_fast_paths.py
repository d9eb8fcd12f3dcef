"""The fast paths of the protocol package give exactly what the general code gives: the
line buffer's whole-lines path against its byte-at-a-time path, the regex token check
against the per-character rule, the commands built without re-checking against commands
built and checked in full, and the one-line answer shortcut against the parser."""

from __future__ import annotations

import random
import sys

import pytest

from protocol import commands
from protocol.framing import LineBuffer, MalformedResponse, ProtocolError
from protocol.messages import Command, Response, ResponseParser, _check_token, one_line_response
from referee.engine import Color

PIECES = [b"=", b"1", b" ", b"g7", b"\n", b"\r\n", b"\r", b"\xc3\xa9", b"\xc3", b"\xff", b"x" * 40, b""]


def lines_slowly(buffer: LineBuffer, data: bytes) -> list[str | ProtocolError]:
    out: list[str | ProtocolError] = []
    buffer.push(data)
    while True:
        try:
            line = buffer.next_line()
        except ProtocolError as exc:
            out.append(exc)
            continue
        if line is None:
            return out
        out.append(line)


def test_complete_lines_gives_the_lines_the_buffer_gives_or_declines() -> None:
    rng = random.Random(14)
    for _ in range(3000):
        chunks = [b"".join(rng.choices(PIECES, k=rng.randint(0, 8))) for _ in range(rng.randint(1, 4))]
        fast, slow = LineBuffer(64), LineBuffer(64)
        for chunk in chunks:
            expected = lines_slowly(slow, chunk)
            got = fast.complete_lines(chunk)
            if got is None:
                got_all = lines_slowly(fast, chunk)
            else:
                got_all = list(got)
                assert not any(isinstance(e, ProtocolError) for e in expected)
            assert [str(e) if isinstance(e, ProtocolError) else e for e in got_all] == [
                str(e) if isinstance(e, ProtocolError) else e for e in expected
            ]
            assert fast.has_partial == slow.has_partial


def test_complete_lines_declines_what_it_cannot_judge_alone() -> None:
    assert LineBuffer(8).complete_lines(b"=1 abcdefghij\n") is None  # longer than the cap
    assert LineBuffer().complete_lines(b"=1 \xff\n") is None  # not UTF-8: the slow path says why
    assert LineBuffer().complete_lines(b"=1 g7") is None  # a partial line
    held = LineBuffer()
    held.push(b"=1")
    assert held.complete_lines(b" g7\n") is None  # something pending already
    assert LineBuffer().complete_lines(b"=1 g7\r\n\n") == ["=1 g7", ""]


def test_the_token_check_is_the_whitespace_rule_for_every_character() -> None:
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        for token in (ch, f"a{ch}b"):
            if any(c.isspace() for c in token):
                with pytest.raises(ValueError, match="without whitespace"):
                    _check_token("t", token)
            else:
                _check_token("t", token)
    with pytest.raises(ValueError):
        _check_token("t", "")


def test_commands_built_without_rechecks_equal_checked_ones() -> None:
    for color in Color:
        for turn in ("pass", "g7", "c2,b1>c3"):
            built = commands.play(color, turn).with_id(12)
            checked = Command(12, "play", (color.value, turn))
            assert built == checked and hash(built) == hash(checked) and repr(built) == repr(checked)
            assert built.format() == "12 play " + color.value + " " + turn + "\n"
            assert str(built) == built.format()[:-1]
        assert commands.genmove(color).with_id(None) == Command(None, "genmove", (color.value,))
    with pytest.raises(ValueError, match="without whitespace"):
        commands.play(Color.BLACK, "g7 g8")
    with pytest.raises(ValueError, match="non-negative"):
        commands.name().with_id(-1)
    assert Command(None, "quit").format() == "quit\n" and str(Command(3, "quit")) == "3 quit"


def parsed(line: str, expected_id: int | None) -> Response | str:
    """What a fresh parser makes of ``line`` and the empty line: the response, or its error."""
    parser = ResponseParser(expected_id)
    try:
        assert parser.feed(line) is None
        response = parser.feed("")
    except ProtocolError as exc:
        return f"error: {exc}"
    assert response is not None
    return response


def test_one_line_response_is_what_the_parser_makes_or_declines() -> None:
    rng = random.Random(41)
    pieces = ["=", "?", "1", "7", "12", " ", "  ", "g7", "x y", "\r", "é", "\t", "=7"]
    taken = 0
    for _ in range(20000):
        head = rng.choice(["", "=", "?"]) + rng.choice(["", "1", "7", "12"])  # often a real header
        line = head + "".join(rng.choices(pieces, k=rng.randint(0, 4)))
        if not line:
            continue  # the parser skips empty lines before a response; the shortcut is never asked
        expected_id = rng.choice([None, 1, 7, 12, 17])
        quick = one_line_response(line, expected_id)
        if quick is not None:
            taken += 1
            assert quick == parsed(line, expected_id), (line, expected_id)
        else:
            assert not isinstance(parsed(line, expected_id), Response), (line, expected_id)
    assert taken > 500


def test_a_carriage_return_inside_an_answer_is_a_malformed_response() -> None:
    parser = ResponseParser(3)
    with pytest.raises(MalformedResponse, match="carriage return"):
        parser.feed("=3 a\rb")
    assert one_line_response("=3 a\rb", 3) is None
