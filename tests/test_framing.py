"""LineBuffer and GTP command-line preprocessing, fed byte by byte and with hostile input."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.framing import (
    BadEncoding,
    LineBuffer,
    LineTooLong,
    ProtocolError,
    preprocess_command_line,
)


def feed_bytewise(data: bytes, buf: LineBuffer | None = None) -> list[str]:
    buf = buf or LineBuffer()
    lines: list[str] = []
    for i in range(len(data)):
        lines += buf.feed(data[i : i + 1])
    return lines


SAMPLE = "1 play b g7\r\n\n# comment\n= é ünïcödé ✓\r\n2 genmove w\n".encode()


def test_feed_splits_lines_and_strips_cr() -> None:
    buf = LineBuffer()
    assert buf.feed(SAMPLE) == ["1 play b g7", "", "# comment", "= é ünïcödé ✓", "2 genmove w"]
    assert not buf.has_partial
    assert buf.eof() is False


def test_byte_by_byte_gives_the_same_lines() -> None:
    assert feed_bytewise(SAMPLE) == LineBuffer().feed(SAMPLE)


@given(st.lists(st.integers(min_value=0, max_value=len(SAMPLE)), max_size=8))
def test_any_split_gives_the_same_lines(cuts: list[int]) -> None:
    buf = LineBuffer()
    bounds = [0, *sorted(cuts), len(SAMPLE)]
    lines: list[str] = []
    for a, b in itertools.pairwise(bounds):
        lines += buf.feed(SAMPLE[a:b])
    assert lines == LineBuffer().feed(SAMPLE)


def test_utf8_sequence_split_across_feeds() -> None:
    buf = LineBuffer()
    data = "ü€😀\n".encode()
    assert buf.feed(data[:1]) == []
    assert buf.feed(data[1:4]) == []
    assert buf.feed(data[4:]) == ["ü€😀"]


def test_lone_cr_inside_a_line_is_kept_only_a_final_cr_is_dropped() -> None:
    assert LineBuffer().feed(b"a\rb\r\r\n") == ["a\rb\r"]


def test_partial_line_is_pending_until_newline_and_reported_at_eof() -> None:
    buf = LineBuffer()
    assert buf.feed(b"= g7") == []
    assert buf.has_partial
    assert buf.eof() is True
    assert not buf.has_partial
    assert buf.eof() is False


def test_invalid_utf8_is_an_error_and_the_stream_continues() -> None:
    buf = LineBuffer()
    with pytest.raises(BadEncoding, match=r"not valid UTF-8 \(byte 0xff at offset 2"):
        buf.feed(b"ab\xffcd\n")
    assert buf.feed(b"next\n") == ["next"]


def test_error_after_good_lines_is_deferred_not_lost() -> None:
    buf = LineBuffer()
    assert buf.feed(b"good\n\xc3\x28\nlater\n") == ["good"]
    with pytest.raises(BadEncoding):
        buf.feed(b"")
    assert buf.feed(b"") == ["later"]


def test_deferred_error_is_raised_by_eof() -> None:
    buf = LineBuffer()
    assert buf.feed(b"good\n\xff\n") == ["good"]
    with pytest.raises(BadEncoding):
        buf.eof()


def test_next_line_pull_api() -> None:
    buf = LineBuffer(max_line=4)
    buf.push(b"ok\ntoolong!\nfine\n")
    assert buf.next_line() == "ok"
    with pytest.raises(LineTooLong):
        buf.next_line()
    assert buf.next_line() == "fine"
    assert buf.next_line() is None


def test_line_exactly_at_the_cap_is_accepted_with_lf_and_crlf() -> None:
    buf = LineBuffer(max_line=8)
    assert buf.feed(b"x" * 8 + b"\n") == ["x" * 8]
    assert feed_bytewise(b"y" * 8 + b"\r\n", buf) == ["y" * 8]


def test_line_over_the_cap_without_newline_is_detected_early() -> None:
    buf = LineBuffer()  # default cap: 64 KiB
    assert buf.max_line == 65536
    assert buf.feed(b"x" * 65536) == []
    with pytest.raises(LineTooLong, match="line longer than 65536 bytes: 65537 bytes received"):
        buf.feed(b"x")


def test_megabyte_line_fails_after_about_64k_not_at_its_end() -> None:
    buf = LineBuffer()
    fed = 0
    with pytest.raises(LineTooLong):
        while fed < 1 << 20:
            buf.feed(b"z" * 4096)
            fed += 4096
    assert fed <= 65536 + 4096


def test_after_a_long_line_the_buffer_resyncs_on_the_next_newline() -> None:
    buf = LineBuffer(max_line=10)
    with pytest.raises(LineTooLong):
        buf.feed(b"a" * 11)
    assert buf.feed(b"a" * 1000) == []  # still the same over-long line: skipped
    assert buf.has_partial
    assert buf.feed(b"aaa\nnext\n") == ["next"]


def test_complete_over_long_line_in_one_chunk() -> None:
    buf = LineBuffer(max_line=3)
    with pytest.raises(LineTooLong, match="line longer than 3 bytes: 5 bytes"):
        buf.feed(b"abcde\n")
    assert buf.feed(b"abc\n") == ["abc"]


@given(st.lists(st.binary(max_size=40), max_size=20))
def test_hostile_bytes_raise_only_protocol_errors(chunks: list[bytes]) -> None:
    buf = LineBuffer(max_line=16)
    for chunk in chunks:
        try:
            lines = buf.feed(chunk)
        except ProtocolError:
            continue
        for line in lines:
            assert len(line.encode()) <= 16
            assert "\n" not in line
    try:
        buf.eof()
    except ProtocolError:
        pass


@given(
    st.lists(
        st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n"), max_size=30), max_size=10
    )
)
def test_valid_text_round_trips_whatever_the_chunking(lines: list[str]) -> None:
    data = "".join(line + "\n" for line in lines).encode()
    expected = [line[:-1] if line.endswith("\r") else line for line in lines]
    assert LineBuffer().feed(data) == expected
    assert feed_bytewise(data) == expected


def test_max_line_must_be_positive() -> None:
    with pytest.raises(ValueError):
        LineBuffer(max_line=0)


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("1 genmove b", "1 genmove b"),
        ("  play\tb\tg7  ", "play b g7"),
        ("play b g7 # a comment", "play b g7"),
        ("# only a comment", None),
        ("", None),
        ("   \t ", None),
        ("name\r", "name"),
        ("na\x00me\x07\x1b", "name"),
        ("del\x7fete", "delete"),
        ("#", None),
    ],
)
def test_preprocess_command_line(raw: str, cleaned: str | None) -> None:
    assert preprocess_command_line(raw) == cleaned


def events(buf: LineBuffer, chunks: list[bytes]) -> list[str]:
    """Every line, and every error by class name, in order, via the pull API."""
    out: list[str] = []
    for chunk in chunks:
        buf.push(chunk)
        while True:
            try:
                line = buf.next_line()
            except ProtocolError as error:
                out.append(type(error).__name__)
                continue
            if line is None:
                break
            out.append(line)
    return out


stream_lines = st.lists(
    st.one_of(
        st.binary(max_size=12).filter(lambda b: b"\n" not in b),
        st.sampled_from([b"x" * 40, b"\xff\xfe", "é✓".encode(), b"ab\r"]),
    ),
    max_size=12,
)


@given(stream_lines, st.lists(st.integers(min_value=1, max_value=50), max_size=10))
def test_lines_and_errors_do_not_depend_on_chunking(lines: list[bytes], sizes: list[int]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    chunks, at = [], 0
    for size in sizes:
        chunks.append(data[at : at + size])
        at += size
    chunks.append(data[at:])
    whole = events(LineBuffer(max_line=16), [data])
    assert events(LineBuffer(max_line=16), chunks) == whole
    assert events(LineBuffer(max_line=16), [data[i : i + 1] for i in range(len(data))]) == whole
