"""A tournament's games in a live feed while it runs (``vastuz tournament --serve`` and
``--live``): the feed watches every game the run plays in this process (the game loop's
:data:`~referee.play.game.WATCH`); the server is imported only when it is asked for, so
``--live`` alone needs no web stack."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import trio

from referee.serve.live import LiveFeed
from referee.serve.livefile import LIVE_FILE, write_live
from referee.serve.runs import run_name

if TYPE_CHECKING:
    from referee.serve.server import Settings

T = TypeVar("T")
MAX_CLIENTS = 32


async def serve_while(
    settings: Settings | None,
    folder: Path,
    work: Callable[[], Awaitable[T]],
    say: Callable[[str], None],
    *,
    live_file: bool = False,
) -> T:
    """Run ``work`` (a tournament writing ``folder``) in this task with every game it plays
    in this process in a live feed: served by ``settings`` (``vastuz tournament --serve``)
    and, with ``live_file``, written to ``folder/live.json`` (``--live``), then stop."""
    from referee.play.game import WATCH

    feed = LiveFeed(
        max_clients=MAX_CLIENTS if settings is None else settings.limits.max_clients,
        file=folder / LIVE_FILE if live_file else None,
    )
    try:
        async with trio.open_nursery() as nursery:
            if settings is not None:
                from referee.serve.server import say_bound, serve

                bound = await nursery.start(partial(serve, settings, feed=feed))
                say(say_bound(bound, settings.token is not None))
            else:
                nursery.start_soon(feed.publish)
            token = WATCH.set(feed.watcher(run_name(folder)))
            try:
                return await work()
            finally:
                WATCH.reset(token)
                nursery.cancel_scope.cancel()
    finally:
        if feed.file is not None:  # no game is in progress any more
            with suppress(OSError):
                write_live(feed.file, [])
