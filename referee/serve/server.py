"""Running the app: hypercorn's trio worker in the caller's trio loop (``vastuz serve``, or a
tournament's own loop with ``--serve``), the live feed's publisher beside it, and the
people's games in the same nursery. Nothing here starts a thread."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve

from referee.serve.address import is_loopback
from referee.serve.app import Limits, Server, build_app
from referee.serve.bots import ServedBot
from referee.serve.human import HumanGames
from referee.serve.live import LiveFeed
from referee.serve.runs import MADE_EVERY, Made
from referee.tournament.store.files import RESULTS
from referee.tournament.store.results import FolderLock, ResultsFile

RESCAN_SECONDS = 5.0
"""How often the runs served are listed again to follow the live files of those going on."""


@dataclass
class Settings:
    roots: list[Path]
    host: str = "127.0.0.1"
    port: int = 8080
    bots: dict[str, ServedBot] = field(default_factory=dict)
    human_folder: Path = Path("results/human")
    token: str | None = None
    limits: Limits = field(default_factory=Limits)
    pages_every: float = MADE_EVERY


async def serve(
    settings: Settings,
    *,
    feed: LiveFeed | None = None,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled. ``task_status`` is given the addresses bound."""
    feed = feed if feed is not None else LiveFeed(max_clients=settings.limits.max_clients)
    feed.max_clients = settings.limits.max_clients
    games = HumanGames(settings.bots, settings.human_folder, feed, settings.limits.max_games)
    server = Server(
        settings.roots,
        feed,
        games,
        token=settings.token,
        loopback=is_loopback(settings.host),
        made=Made(every=settings.pages_every),
    )
    config = Config()
    host = (
        f"[{settings.host}]" if ":" in settings.host and not settings.host.startswith("[") else settings.host
    )
    config.bind = [f"{host}:{settings.port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("referee.serve")
    config.h11_max_incomplete_size = 16 * 1024  # request line and headers
    config.graceful_timeout = 1.0
    with ExitStack() as stack:
        if settings.bots:
            lock = FolderLock(settings.human_folder)
            lock.acquire()
            stack.callback(lock.release)
            games.appender = stack.enter_context(ResultsFile(settings.human_folder / RESULTS).appender())
        async with trio.open_nursery() as nursery:
            games.nursery = nursery
            nursery.start_soon(feed.publish)
            nursery.start_soon(feed.follow, partial(_others, server, feed))
            bound = await nursery.start(hypercorn_serve, build_app(server), config)
            task_status.started(bound)


def say_bound(bound: list[str], token: bool) -> str:
    urls = ", ".join(b.replace("0.0.0.0", "127.0.0.1") for b in bound)
    return f"serving on {urls}" + (" (requests that start or play games need the token)" if token else "")


async def _others(server: Server, feed: LiveFeed) -> list[tuple[str, Path]]:
    """The served runs and ladders going on in other processes, whose live files the feed
    follows (the list made again every :data:`RESCAN_SECONDS`)."""
    now = trio.current_time()
    if server.scanned is None or now - server.scanned[0] > RESCAN_SECONDS:
        server.scanned = (now, await server.runs() + await server.ladders.all(server))
    own = None if feed.file is None else feed.file.parent.resolve()
    return [(r.name, r.folder) for r in server.scanned[1] if r.running and r.folder.resolve() != own]
