"""The ASGI app of ``vastuz serve``: routes, and the guards every request passes.

Guards: a server bound to the loopback answers only requests addressed to a loopback name
(a page of another site that rebinds its name to 127.0.0.1 is refused); a POST must be JSON
(``Content-Type: application/json``, which a page of another origin cannot send without a
preflight this app never grants), from the same origin when the browser says one, of at
most :data:`MAX_BODY` bytes, and carry the token (``X-Vastuz-Token``) when the server has
one. Live-feed clients and people's games are bounded by :class:`Limits`.
"""

from __future__ import annotations

import hmac
import json
import logging
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from referee.errors import VastuzError
from referee.play.records import GameRecord
from referee.render.html import game_page
from referee.serve import ladder_pages, ladders, pages
from referee.serve.assets import STANDINGS_JS
from referee.serve.following import following
from referee.serve.human import HumanGames, PlayError
from referee.serve.live import LiveFeed, TooManyClients
from referee.serve.runs import (
    COUNTED_RUNS,
    Made,
    Run,
    find_runs,
    game_record,
    run_stamp,
    run_summary,
    standings_json,
    standings_page,
)

log = logging.getLogger("referee.serve")

MAX_BODY = 4096
"""Bytes a request body may have (a turn, a new game: far less)."""
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}
KEEPALIVE_SECONDS = 15.0
"""How often an idle event stream sends a comment (so proxies and browsers keep it)."""
LONG_POLL_SECONDS = 20.0
STAMP_SECONDS = 0.5
"""How often a long poll of a run's stamp looks at its results file again."""


@dataclass
class Limits:
    max_clients: int = 32
    max_games: int = 4


class Server:
    """What the routes share: the folders served, the feed, the people's games, the token."""

    def __init__(
        self,
        roots: list[Path],
        feed: LiveFeed,
        games: HumanGames,
        *,
        token: str | None,
        loopback: bool,
        made: Made | None = None,
    ) -> None:
        self.roots = roots
        self.feed = feed
        self.games = games
        self.token = token
        self.loopback = loopback
        self.reads = trio.CapacityLimiter(1)  # one blocking folder read at a time
        self.scanned: tuple[float, list[Run]] | None = None  # (when, the runs): see server._others
        self.ladders = ladders.Ladders()
        self.made = made if made is not None else Made()  # the standings made here, kept
        self.counts = Made(self.made.every, keep=COUNTED_RUNS)  # each run's games, for the listings

    async def blocking(self, fn: Any, *args: Any) -> Any:
        return await trio.to_thread.run_sync(lambda: fn(*args), limiter=self.reads)

    async def runs(self) -> list[Run]:
        found: list[Run] = await self.blocking(find_runs, self.roots)
        return found

    async def run(self, name: str) -> Run:
        for run in await self.runs():
            if run.name == name:
                return run
        raise PlayError(404, f"no run {name[:60]!r}")


MAX_PARAM = 300
"""Characters a label or a slot in a path may have (a ladder's are far shorter)."""


def _param(request: Request, name: str) -> str:
    value = str(request.path_params[name])
    if not value or len(value) > MAX_PARAM or not value.isprintable():
        raise PlayError(404, f"no such {name}")
    return value


def _live_of(server: Server, ladder: Run) -> list[dict[str, Any]]:
    """The ladder's games in progress (in this process, or read from its live file)."""
    return [
        {k: g.get(k) for k in ("key", "game_id", "bots", "black", "white", "turns", "over")}
        for g in server.feed.snapshot()
        if g.get("run") == ladder.name
    ]


async def _ladder_stamp(server: Server, ladder: Run) -> str:
    """The ladder's stamp (:meth:`~referee.ladder.reading.StoreReader.stamp`) and which of
    its games are in progress: a page follows both."""
    store: str = await server.blocking(ladders.stamp, ladder.folder)
    live = sorted(str(g["key"]) for g in _live_of(server, ladder))
    return f"{store}-{zlib.crc32(' '.join(live).encode()):08x}"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers={"Cache-Control": "no-store"})


def _html(text: str, *, own: bool = True) -> HTMLResponse:
    """A page: the server's own under :data:`pages.CSP`; a rendered standings or replay page
    keeps the policy it carries itself (its script's hash), framed by no one."""
    csp = pages.CSP if own else "frame-ancestors 'none'"
    return HTMLResponse(
        text,
        headers={
            "Content-Security-Policy": csp,
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store",
        },
    )


def _host_of(value: str) -> str:
    host = urlsplit("//" + value).hostname
    return "" if host is None else host.lower()


class Guard:
    """ASGI middleware: the host check, and the checks of every POST (see the module)."""

    def __init__(self, app: Any, server: Server) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self.problem(scope, headers)
        if problem is not None:
            await _error(*problem)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def problem(self, scope: Any, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if self.server.loopback and _host_of(host) not in LOOPBACK_NAMES:
            return 421, "this server answers only requests to 127.0.0.1 or localhost"
        if scope["method"] not in ("GET", "HEAD", "POST"):
            return 405, "only GET and POST"
        if scope["method"] != "POST":
            return None
        if headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return 415, "a POST must be JSON (Content-Type: application/json)"
        origin = headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return 403, "a POST from another origin is refused"
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            return 400, "a bad Content-Length"
        if length > MAX_BODY:
            return 413, f"a request body may have at most {MAX_BODY} bytes"
        token = self.server.token
        if token is not None and not hmac.compare_digest(
            headers.get("x-vastuz-token", "").encode(), token.encode()
        ):
            return 401, "this server needs its token (the X-Vastuz-Token header) to start or play games"
        return None


async def _json_body(request: Request) -> object:
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise PlayError(413, f"a request body may have at most {MAX_BODY} bytes")
    try:
        return json.loads(data or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise PlayError(400, "the body is not JSON") from None


def build_app(server: Server) -> Any:
    """The ASGI app over ``server``."""

    def handled(fn: Any) -> Any:
        async def endpoint(request: Request) -> Response:
            try:
                response: Response = await fn(request)
                return response
            except PlayError as exc:
                return _error(exc.status, str(exc))
            except (VastuzError, OSError) as exc:
                return _error(500, f"cannot read the results: {exc}")
            except Exception as exc:  # our bug: a JSON answer and the traceback in the log
                log.exception("%s %s", request.method, request.url.path)
                return _error(500, f"server error: {type(exc).__name__}")

        return endpoint

    async def index(request: Request) -> Response:
        runs = [await server.blocking(run_summary, r, server.counts) for r in await server.runs()]
        found = [await server.blocking(ladders.summary, r) for r in await server.ladders.all(server)]
        return _html(pages.index_page(runs, len(server.feed.games), found))

    async def ladder_data(ladder: Run) -> dict[str, Any]:
        state = await server.ladders.state(server, ladder)
        return ladders.ladder_json(state, _live_of(server, ladder))

    async def bot_data(request: Request) -> dict[str, Any]:
        ladder = await server.ladders.get(server, request.path_params["ladder"])
        label = _param(request, "label")
        before_text = request.query_params.get("before")
        before = None
        if before_text is not None:
            if not before_text.isdigit() or len(before_text) > 18:
                raise PlayError(400, "before: expected a game's number")
            before = int(before_text)
        state = await server.ladders.state(server, ladder)
        rows = {r["label"]: r for r in ladders.bot_rows(state)}
        if label not in rows:
            raise PlayError(404, f"no bot {label[:60]!r} on this ladder")
        games, more = await server.blocking(ladders.bot_games, ladder.folder, label, before)
        return {
            "ladder": ladder.name,
            "label": label,
            "line": rows[label],
            "min_games": state.snapshot.view.min_games,
            "history": ladders.history_json(await server.ladders.history(ladder), state.snapshot, label),
            "games": ladders.game_rows(label, games),
            "next_before": games[-1].seq if more and games else None,
        }

    async def ladder_record(request: Request) -> tuple[Run, GameRecord]:
        ladder = await server.ladders.get(server, request.path_params["ladder"])
        slot = _param(request, "slot")
        record = await server.blocking(ladders.game_record, ladder.folder, slot)
        if record is None:
            raise PlayError(404, "no such game on this ladder")
        return ladder, record

    async def ladder_page(request: Request) -> Response:
        ladder = await server.ladders.get(server, request.path_params["ladder"])
        stamp = await _ladder_stamp(server, ladder)  # before the page: a change after it is seen
        data = await ladder_data(ladder)
        if data["behind"]:  # a stamp no store has: the page asks again (after its pause)
            stamp += "-behind"
        return _html(ladder_pages.ladder_page(data, stamp))

    async def ladder_bot_page(request: Request) -> Response:
        return _html(ladder_pages.bot_page(await bot_data(request)))

    async def ladder_game_page(request: Request) -> Response:
        ladder, record = await ladder_record(request)
        return _html(game_page([record], title=f"{ladder.name}: {record.game_id}"), own=False)

    async def api_ladders(request: Request) -> Response:
        found = await server.ladders.all(server)
        return JSONResponse([await server.blocking(ladders.summary, r) for r in found])

    async def api_ladder(request: Request) -> Response:
        ladder = await server.ladders.get(server, request.path_params["ladder"])
        return JSONResponse(await ladder_data(ladder), headers={"Cache-Control": "no-store"})

    async def api_ladder_bot(request: Request) -> Response:
        return JSONResponse(await bot_data(request), headers={"Cache-Control": "no-store"})

    async def api_ladder_game(request: Request) -> Response:
        _, record = await ladder_record(request)
        return JSONResponse(record.to_dict())

    async def api_ladder_stamp(request: Request) -> Response:
        ladder = await server.ladders.get(server, request.path_params["ladder"])
        after = request.query_params.get("after")
        stamp = await _ladder_stamp(server, ladder)
        if after is not None:
            with trio.move_on_after(LONG_POLL_SECONDS):
                while stamp == after[:300]:
                    await trio.sleep(STAMP_SECONDS)
                    stamp = await _ladder_stamp(server, ladder)
        return JSONResponse(
            {"ladder": ladder.name, "stamp": stamp, "running": "-running-" in stamp},
            headers={"Cache-Control": "no-store"},
        )

    async def run_page(request: Request) -> Response:
        run = await server.run(request.path_params["run"])
        # the stamp before the page: a change after it is seen
        stamp, _ = await server.blocking(run_stamp, run, server.made)
        page = await server.blocking(standings_page, run, server.made)
        return _html(following(page, run.name, stamp), own=False)

    async def game_html(request: Request) -> Response:
        run = await server.run(request.path_params["run"])
        record = await server.blocking(game_record, run, request.path_params["game_id"])
        if record is None:
            raise PlayError(404, "no such game in this run")
        return _html(game_page([record], title=f"{run.name}: {record.game_id}"), own=False)

    async def api_runs(request: Request) -> Response:
        runs = await server.runs()
        return JSONResponse([await server.blocking(run_summary, r, server.counts) for r in runs])

    async def api_standings(request: Request) -> Response:
        run = await server.run(request.path_params["run"])
        return JSONResponse(await server.blocking(standings_json, run, server.made))

    async def api_stamp(request: Request) -> Response:
        run = await server.run(request.path_params["run"])
        after = request.query_params.get("after")
        stamp, running = await server.blocking(run_stamp, run, server.made)
        if after is not None:
            with trio.move_on_after(LONG_POLL_SECONDS):
                while stamp == after[:200]:
                    await trio.sleep(STAMP_SECONDS)
                    stamp, running = await server.blocking(run_stamp, run, server.made)
        return JSONResponse(
            {"run": run.name, "stamp": stamp, "running": running}, headers={"Cache-Control": "no-store"}
        )

    async def api_game(request: Request) -> Response:
        run = await server.run(request.path_params["run"])
        record = await server.blocking(game_record, run, request.path_params["game_id"])
        if record is None:
            raise PlayError(404, "no such game in this run")
        return JSONResponse(record.to_dict())

    async def api_live(request: Request) -> Response:
        return JSONResponse(server.feed.snapshot())

    async def api_events(request: Request) -> Response:
        if server.feed.full():
            return _error(503, f"the live feed has its {server.feed.max_clients} clients already")

        async def stream() -> Any:
            # Subscribed once the response starts, so a client gone before that takes no place;
            # no yield inside a cancel scope (trio's rule for async generators).
            try:
                with server.feed.subscribe() as channel:
                    yield ": live games of vastuz serve\n\n"
                    while True:
                        text = None
                        with trio.move_on_after(KEEPALIVE_SECONDS):
                            try:
                                text = await channel.receive()
                            except (trio.EndOfChannel, trio.ClosedResourceError):
                                return
                        yield ": keep-alive\n\n" if text is None else text
            except TooManyClients:  # filled between the check and the start
                return

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def live(request: Request) -> Response:
        return _html(pages.live_page())

    async def play_new(request: Request) -> Response:
        return _html(pages.play_form(sorted(server.games.bots), server.token is not None))

    async def play_game_page(request: Request) -> Response:
        game = server.games.get(request.path_params["game_id"])
        return _html(pages.play_page(game.id, server.token is not None))

    async def api_play(request: Request) -> Response:
        game = server.games.start(await _json_body(request))
        return JSONResponse({"id": game.id, "url": f"/play/{game.id}"}, status_code=201)

    async def api_play_state(request: Request) -> Response:
        game = server.games.get(request.path_params["game_id"])
        after = request.query_params.get("after")
        if after is not None:
            try:
                version = int(after)
            except ValueError:
                raise PlayError(400, "after: expected a version number") from None
            await game.changed(version, LONG_POLL_SECONDS)
        return JSONResponse(game.state(trio.current_time()), headers={"Cache-Control": "no-store"})

    async def api_steals(request: Request) -> Response:
        game = server.games.get(request.path_params["game_id"])
        return JSONResponse(game.steals(request.query_params.get("turn", "")[:400]))

    async def api_turn(request: Request) -> Response:
        game = server.games.get(request.path_params["game_id"])
        data = await _json_body(request)
        turn = data.get("turn") if isinstance(data, dict) else None
        if not isinstance(turn, str) or not turn or len(turn) > 400:
            raise PlayError(400, 'expected {"turn": NOTATION}')
        before = game.version
        game.turn(turn.strip())
        await game.changed(before, 5.0)
        return JSONResponse(game.state(trio.current_time()))

    async def api_resign(request: Request) -> Response:
        game = server.games.get(request.path_params["game_id"])
        await _json_body(request)
        game.resign()
        with trio.move_on_after(5.0):
            await game.ended.wait()
        return JSONResponse(game.state(trio.current_time()))

    async def static_js(request: Request) -> Response:
        return Response(pages.JS, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    async def static_css(request: Request) -> Response:
        return Response(pages.CSS, media_type="text/css", headers={"Cache-Control": "no-cache"})

    async def static_standings_js(request: Request) -> Response:
        return Response(STANDINGS_JS, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    routes = [
        Route("/", handled(index)),
        Route("/runs/{run}/", handled(run_page)),
        Route("/runs/{run}/games/{game_id}", handled(game_html)),
        Route("/ladders/{ladder}/", handled(ladder_page)),
        Route("/ladders/{ladder}/bots/{label:path}", handled(ladder_bot_page)),
        Route("/ladders/{ladder}/games/{slot:path}", handled(ladder_game_page)),
        Route("/live", handled(live)),
        Route("/play", handled(play_new)),
        Route("/play/{game_id}", handled(play_game_page)),
        Route("/static/serve.js", static_js),
        Route("/static/serve.css", static_css),
        Route("/static/standings.js", static_standings_js),
        Route("/api/runs", handled(api_runs)),
        Route("/api/runs/{run}/standings", handled(api_standings)),
        Route("/api/runs/{run}/stamp", handled(api_stamp)),
        Route("/api/runs/{run}/games/{game_id}", handled(api_game)),
        Route("/api/ladders", handled(api_ladders)),
        Route("/api/ladders/{ladder}", handled(api_ladder)),
        Route("/api/ladders/{ladder}/stamp", handled(api_ladder_stamp)),
        Route("/api/ladders/{ladder}/bots/{label:path}", handled(api_ladder_bot)),
        Route("/api/ladders/{ladder}/games/{slot:path}", handled(api_ladder_game)),
        Route("/api/live", handled(api_live)),
        Route("/api/events", handled(api_events)),
        Route("/api/play", handled(api_play), methods=["POST"]),
        Route("/api/play/{game_id}", handled(api_play_state)),
        Route("/api/play/{game_id}/steals", handled(api_steals)),
        Route("/api/play/{game_id}/turn", handled(api_turn), methods=["POST"]),
        Route("/api/play/{game_id}/resign", handled(api_resign), methods=["POST"]),
    ]
    return Guard(Starlette(routes=routes), server)
