"""Length-prefixed pickles over a trio stream: how the run talks to its referee processes.

Both ends are this project, started by the run itself from the same installation, so
pickle's trust model holds (nothing here ever reads a frame from anyone else). A frame is
a 4-byte big-endian length, then that many bytes of pickle; ``None`` from
:meth:`FrameReader.read` is the end of the stream (the other process exited or closed it).
"""

from __future__ import annotations

import pickle
import struct

import trio

_LENGTH = struct.Struct(">I")
MAX_FRAME = 64 << 20
"""A frame larger than this is a bug (a game record is a few KB): refused, not buffered."""


def encode(message: object) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    if len(body) > MAX_FRAME:
        raise ValueError(f"a frame of {len(body)} bytes (at most {MAX_FRAME})")
    return _LENGTH.pack(len(body)) + body


class FrameReader:
    """Frames from one receive stream, in order."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self._data = bytearray()

    async def read(self) -> object | None:
        """The next message, or None at the end of the stream. A stream that ends inside a
        frame, or a frame over :data:`MAX_FRAME`, raises :class:`EOFError` / :class:`ValueError`."""
        if not await self._fill(_LENGTH.size):
            if self._data:
                raise EOFError("the stream ended inside a frame's length")
            return None
        (length,) = _LENGTH.unpack_from(self._data)
        if length > MAX_FRAME:
            raise ValueError(f"a frame of {length} bytes (at most {MAX_FRAME})")
        if not await self._fill(_LENGTH.size + length):
            raise EOFError("the stream ended inside a frame")
        body = bytes(self._data[_LENGTH.size : _LENGTH.size + length])
        del self._data[: _LENGTH.size + length]
        message: object = pickle.loads(body)
        return message

    async def _fill(self, size: int) -> bool:
        while len(self._data) < size:
            chunk = await self.stream.receive_some(1 << 16)
            if not chunk:
                return False
            self._data += chunk
        return True


__all__ = ["MAX_FRAME", "FrameReader", "encode"]
