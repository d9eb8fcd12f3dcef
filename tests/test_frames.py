"""The frames between a run and its referee processes (:mod:`referee.tournament.executors.frames`):
messages come back whole however the stream cuts them, a stream that ends inside a frame is
an error rather than a short message, and a length over the cap is refused before its body
is read (a corrupt stream cannot make the run buffer without bound)."""

from __future__ import annotations

import struct

import pytest
import trio

from referee.tournament.executors.frames import MAX_FRAME, FrameReader, encode


class Chunks(trio.abc.ReceiveStream):
    """A stream that gives ``data`` ``chunk`` bytes per receive, then its end."""

    def __init__(self, data: bytes, chunk: int) -> None:
        self.parts = [data[i : i + chunk] for i in range(0, len(data), chunk)]

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        return self.parts.pop(0) if self.parts else b""

    async def aclose(self) -> None:
        self.parts = []


async def read_all(data: bytes, chunk: int) -> list[object]:
    """The messages a reader takes from ``data`` cut into ``chunk``-byte receives."""
    reader = FrameReader(Chunks(data, chunk))
    got: list[object] = []
    while (message := await reader.read()) is not None:
        got.append(message)
    return got


@pytest.mark.parametrize("chunk", [1, 3, 7, 4096])
async def test_messages_come_back_whole_however_the_stream_cuts_them(chunk):
    messages = [
        ("ready", 42),
        ("done", {"slot": "r1-a+b-01", "turns": list(range(300))}),
        ("stop",),
        "x" * 70_000,
    ]
    assert await read_all(b"".join(encode(m) for m in messages), chunk) == messages


async def test_a_stream_that_ends_inside_a_frame_is_an_error():
    whole = encode(("done", "a record"))
    with pytest.raises(EOFError, match="inside a frame's length"):
        await read_all(whole[:2], 1)
    with pytest.raises(EOFError, match="inside a frame"):
        await read_all(whole[:-1], 5)
    assert await read_all(b"", 1) == []  # the end between frames is just the end


async def test_a_length_over_the_cap_is_refused_before_its_body_is_read():
    with pytest.raises(ValueError, match=f"at most {MAX_FRAME}"):
        await read_all(struct.pack(">I", MAX_FRAME + 1) + b"x" * 10, 4096)
