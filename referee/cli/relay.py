"""The relay of ``vastuz connect`` (:mod:`referee.cli.connect`): the bot's process, the
websocket to the ladder, the backoff between connections. Imported only when the command
runs, so the websocket library costs nothing to the CLI's other commands."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio
from trio_websocket import ConnectionClosed, HandshakeError, WebSocketConnection, open_websocket_url

from referee.cli.common import EXIT_FAILED, EXIT_USAGE
from referee.ladder.identity import program_files
from referee.ladder.wire import FINAL, TOO_BIG, Hello, Responses, control
from referee.tournament.config.values import BotSpec

BACKOFF = (1.0, 30.0)
"""The first and the longest wait before connecting again (doubling in between)."""
READ_SIZE = 65536
KILL_GRACE = 1.0


def remote_fingerprint(argv: list[str], program: Path | None) -> str:
    """``sha256:...`` of the bot's program files (the ladder's identity rules,
    :func:`~referee.ladder.identity.program_files`), not of its arguments: a remote bot's
    arguments may name this machine's paths, and its strength is its program."""
    spec = BotSpec("remote", tuple(argv), Path.cwd())
    digest = hashlib.sha256()
    for name, path in program_files(spec, program):
        file_digest = hashlib.sha256()
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                file_digest.update(chunk)
        digest.update(f"\0{name}\0{file_digest.hexdigest()}".encode())
    return "sha256:" + digest.hexdigest()


class Refused(Exception):
    """The ladder refused this bot for good."""


class Lost(Exception):
    """The connection ended (or never opened): try again."""


class Client:
    def __init__(self, url: str, hello: Hello, argv: list[str], max_message: int) -> None:
        self.url = url
        self.hello = hello
        self.argv = argv
        self.max_message = max_message
        self.stopped: str | None = None
        self.error: str | None = None  # the server's whole reason, sent before a close
        self.welcomed = False  # this connection was welcomed

    def say(self, text: str) -> None:
        print(f"vastuz connect: {text}", file=sys.stderr, flush=True)

    async def run(self, *, once: bool) -> int:
        """Connect, relay, and connect again after a loss; the exit code."""
        wait = BACKOFF[0]
        while True:
            self.welcomed = False
            try:
                await self._session()
            except Refused as exc:
                self.say(f"refused: {exc}")
                return EXIT_USAGE
            except _BotDidNotStart as exc:
                self.say(str(exc))
                return EXIT_USAGE
            except Lost as exc:
                self.say(f"connection lost: {exc}")
                if once:
                    return EXIT_FAILED
            if self.welcomed:  # it played: a new loss starts the backoff afresh
                wait = BACKOFF[0]
            self.say(f"connecting again in {wait:g} s")
            await trio.sleep(wait)
            wait = min(BACKOFF[1], wait * 2)

    async def _session(self) -> None:
        """One connection with one bot process, until either ends."""
        try:
            process = await trio.lowlevel.open_process(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
        except OSError as exc:
            raise _BotDidNotStart(f"cannot start the bot {self.argv[0]!r}: {exc}") from None
        ending: Exception | None = None
        try:
            try:
                async with open_websocket_url(self.url, max_message_size=self.max_message) as ws:
                    try:
                        await ws.send_message(self.hello.message())
                        ending = await self._relay(ws, process)
                    except ConnectionClosed as exc:
                        ending = self._closed(exc)
            except ConnectionClosed as exc:
                ending = ending or self._closed(exc)
            except (HandshakeError, OSError) as exc:
                why = str(exc) or str(exc.__cause__ or "") or type(exc).__name__
                ending = ending or Lost(f"cannot connect to {self.url}: {why}")
        finally:
            with trio.CancelScope(shield=True):
                await _stop(process)
        raise ending or Lost("closed")

    async def _relay(self, ws: WebSocketConnection, process: trio.Process) -> Exception:
        """Relay until the connection or the bot ends; what ended it."""
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout
        ended: list[Exception] = []

        async def to_bot() -> None:
            while True:
                message = await ws.get_message()
                data = control(message)
                if data is not None:
                    if "welcome" in data:
                        self.welcomed = True
                        self.say(f"connected to {self.url} as {data['welcome']}")
                    elif "error" in data:
                        self.error = str(data["error"])
                    continue
                text = message.encode("utf-8") if isinstance(message, str) else message
                try:
                    await stdin.send_all(text)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    ended.append(Lost("the bot closed its input (exited?)"))
                    return

        async def from_bot() -> None:
            cut = Responses(self.max_message)
            while True:
                data = await stdout.receive_some(READ_SIZE)
                if not data:
                    ended.append(Lost("the bot exited"))
                    return
                for message in cut.feed(data):
                    await ws.send_message(message)

        async with trio.open_nursery() as nursery:

            async def one(task: Callable[[], Awaitable[None]]) -> None:
                try:
                    await task()
                except ConnectionClosed as exc:
                    ended.append(self._closed(exc))
                nursery.cancel_scope.cancel()

            nursery.start_soon(one, to_bot)
            nursery.start_soon(one, from_bot)
        return ended[0] if ended else Lost("closed")

    def _closed(self, exc: ConnectionClosed) -> Exception:
        reason = exc.reason
        code = None if reason is None else reason.code
        words = self.error or (reason.reason if reason is not None and reason.reason else "no reason given")
        self.error = None
        if code in FINAL:
            return Refused(f"{words} (code {code})")
        if code == TOO_BIG:
            return Lost(f"a message over the size limit (code {code}: {words})")
        return Lost(f"code {code}: {words}")


class _BotDidNotStart(Exception):
    pass


async def _stop(process: trio.Process) -> None:
    """Close the bot's input (a bot ends at the end of its input), then SIGTERM and SIGKILL
    its process group, and reap it."""
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            await stream.aclose()
    with trio.move_on_after(KILL_GRACE):
        await process.wait()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        with trio.move_on_after(KILL_GRACE):
            await process.wait()
    await process.wait()


__all__ = ["BACKOFF", "Client", "Lost", "Refused", "remote_fingerprint"]
