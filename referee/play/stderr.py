"""A bot's stderr: drained in a task of its own, into a capped log, its end kept for faults.

Apart from the requests (:mod:`referee.play.pipes`) because nothing waits for stderr: it is
read to its end whatever the bot writes, so that a chatty bot never blocks on a full pipe.
"""

from __future__ import annotations

import trio

from referee.play.faults import BotFault
from referee.play.logs import CappedLog, Tail

_READ_SIZE = 1 << 16
STDERR_GRACE = 0.2
"""Seconds to wait for the last of stderr of a process that exited, before quoting it."""


class StderrDrain:
    """A bot's stderr, read to its end in a task of its own (:meth:`run`) so that a chatty
    bot never blocks on a full pipe: copied into the current log (capped, and in total
    with the bot's :class:`~referee.play.logs.LogBudget`; reading goes on past the cap),
    and its last few hundred bytes kept in memory: a crash or a failed start-up quotes
    them (:meth:`quote`), since that is where a bot says why it died."""

    def __init__(self, log: CappedLog) -> None:
        self.log = log
        self.tail = Tail()
        self.done = trio.Event()  # the drain has ended: stderr closed, or our end closed

    def set_log(self, log: CappedLog) -> None:
        """Write to ``log`` from now on (the old one is closed)."""
        self.log.close()
        self.log = log

    async def run(self, stream: trio.abc.ReceiveStream) -> None:
        try:
            while True:
                try:
                    data = await stream.receive_some(_READ_SIZE)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    return
                if not data:
                    return
                self.tail.add(data)
                self.log.write(data)
        finally:
            self.done.set()

    async def quote(self, fault: BotFault, *, exited: bool) -> None:
        """Put the end of the bot's stderr into ``fault`` (once). If the process has
        ``exited``, wait a moment for the last of its stderr first."""
        if fault.stderr is not None:
            return
        if exited:
            with trio.move_on_after(STDERR_GRACE):
                await self.done.wait()
        fault.stderr = self.tail.excerpt()
