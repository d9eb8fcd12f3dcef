"""A person's game against a configured bot: the person is a player whose decisions arrive
over HTTP.

:class:`HumanPlayer` is a :class:`~referee.play.player.Player` like a bot process: the game
loop asks it ``genmove`` (or ``choose_color``) under the person's clock and judges the
answer with the engine as it judges a bot's. Before a turn is handed to the loop,
:meth:`HumanGame.turn` plays it on the engine's position: an illegal or unreadable turn is
refused there with the engine's reason and nothing changes (a bot would lose the game; a
person clicking is given the reason instead). The bot is a real
:class:`~referee.play.process.BotProcess`; the game is :func:`~referee.play.game.play_game`;
its record is appended to a results folder of people's games, so ``vastuz report`` rates
people as it rates bots.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from protocol.commands import parse_gensetup
from protocol.framing import BadReply
from protocol.messages import Command, Response
from referee.engine import Position, TurnError
from referee.play.faults import BotResigned, BotTimeout
from referee.play.game import GameObserver, play_game
from referee.play.options import BotOptions
from referee.play.player import Exchange
from referee.play.process import BotProcess
from referee.play.records import GameRecord
from referee.play.spec import DEFAULT_STARTUP_TIMEOUT, GameSpec, OpeningKind, TimeControl
from referee.render.svg import board_svg
from referee.serve.bots import ServedBot
from referee.serve.live import LiveFeed, clocks, game_state
from referee.serve.pages import clickable
from referee.tournament.store.files import LOGS
from referee.tournament.store.results import Appender

log = logging.getLogger("referee.serve")

DECISIONS = {"genmove": "turn", "gensetup": "setup", "choose_color": "color"}
"""The commands a person answers, and what the API calls them."""
SIDES = ("black", "white", "pie", "pie-setup")
"""The person's side: a colour on an empty board, or the pie rule with the bot placing the
two stones and the person choosing the colour (``pie``), or the other way round (``pie-setup``)."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.-]{0,31}")
KEPT = 50
"""Finished games kept in memory (their records are in the results folder)."""


class PlayError(Exception):
    """A request the game refuses; ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Asked:
    """What the game loop waits for from the person: ``kind`` (turn, setup, color), by when
    (trio's clock, the clock's margin included), and the channel the answer goes in."""

    kind: str
    deadline: float
    margin: float
    answer: trio.MemorySendChannel[str]


class HumanPlayer:
    """The person's seat. Every command that is not a decision is acknowledged at once;
    a decision waits for :meth:`answer` until its deadline (then it is a loss on time, as
    for a bot: a page closed mid-game loses on time)."""

    def __init__(self, name: str, margin: float, on_asked: Callable[[], None]) -> None:
        self.label = name
        self.on_asked = on_asked
        self.command = "a person (vastuz serve)"
        self.name: str | None = name
        self.version: str | None = None
        self.pid: int | None = None
        self.stderr_log_path: Path | None = None
        self.transcript_path: Path | None = None
        self.asked: Asked | None = None
        self.margin = margin
        self.resigned = False
        self._started = False
        self._id = 0

    @property
    def started(self) -> bool:
        return self._started

    async def start(self, nursery: trio.Nursery) -> None:
        self._started = True

    def knows(self, command_name: str) -> bool:
        return False  # no time_left, no final_score: the page shows both

    async def request(self, command: Command, timeout: float) -> Exchange:
        self._id += 1
        command = command.with_id(self._id)
        began = trio.current_time()
        kind = DECISIONS.get(command.name)
        if kind is None:
            return Exchange(command, Response(True, self._id), 0.0)
        if self.resigned:
            raise BotResigned(self.label, str(command), "resigned")
        send, receive = trio.open_memory_channel[str](1)
        self.asked = Asked(kind, began + timeout, self.margin, send)
        self.on_asked()
        try:
            with trio.move_on_after(timeout):
                text = await receive.receive()
                if self.resigned:  # any decision: the pie choice too
                    raise BotResigned(self.label, str(command), "resigned")
                return Exchange(command, Response(True, self._id, text), trio.current_time() - began)
        finally:
            self.asked = None
        raise BotTimeout(self.label, str(command), f"no {kind} within {timeout:.1f} s")

    def answer(self, kind: str, text: str) -> None:
        asked = self.asked
        if asked is None or asked.kind != kind:
            raise PlayError(409, f"the game is not waiting for your {kind}")
        asked.answer.send_nowait(text)
        self.asked = None

    def resign(self) -> None:
        self.resigned = True
        if self.asked is not None:
            self.answer(self.asked.kind, "resign")


def time_control_of(data: object) -> TimeControl:
    """The person's clock from the request: ``{"per_move": S}`` or ``{"main": S, "increment": S}``."""
    if not isinstance(data, dict) or not data or not set(data) <= {"per_move", "main", "increment"}:
        raise PlayError(400, 'time_control: expected {"per_move": S} or {"main": S, "increment": S}')
    values = {k: v for k, v in data.items()}
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values.values()):
        raise PlayError(400, "time_control: the seconds must be numbers")
    if "per_move" in values:
        if set(values) != {"per_move"} or not 1 <= values["per_move"] <= 600:
            raise PlayError(400, "time_control: per_move must be 1..600 seconds, alone")
        return TimeControl.fixed(float(values["per_move"]))
    main, increment = values.get("main"), values.get("increment", 0)
    if main is None or not 10 <= main <= 7200 or not 0 <= increment <= 60:
        raise PlayError(400, "time_control: main must be 10..7200 seconds and increment 0..60")
    return TimeControl.fischer(float(main), float(increment))


class HumanGame:
    """One person's game against one bot, from the request that starts it to its record."""

    def __init__(
        self, game_id: str, person: str, bot: ServedBot, size: int, side: str, tc: TimeControl
    ) -> None:
        self.id = game_id
        self.person = person
        self.bot = bot
        self.size = size
        self.side = side
        self.time_control = tc
        self.seat = 0 if side in ("black", "pie-setup") else 1  # seat 0 plays Black or sets up
        self.player = HumanPlayer(person, tc.margin, self._bump)
        self.position = Position.new(size)
        self.record: GameRecord | None = None
        self.final: GameRecord | None = None
        self.failure: str | None = None  # a failure of the server's own, if the game had one
        self.version = 0
        self._changed = trio.Event()
        self.ended = trio.Event()

    @property
    def over(self) -> bool:
        return self.final is not None or self.failure is not None

    # ------------------------------------------------------------------ observer
    def on_turn(self, record: GameRecord, position: Position) -> None:
        self.record = record
        self.position = position
        self._bump()

    def on_end(self, record: GameRecord) -> None:
        self.record = record

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def changed(self, after: int, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until the game's version passes ``after``."""
        with trio.move_on_after(timeout):
            while self.version <= after:
                await self._changed.wait()

    # ------------------------------------------------------------------ the game
    def spec(self) -> GameSpec:
        bot_seat = 1 - self.seat
        seat_clocks: list[TimeControl | None] = [None, None]
        seat_clocks[bot_seat] = self.bot.time_control
        return GameSpec(
            size=self.size,
            opening=OpeningKind.PIE if self.side in ("pie", "pie-setup") else OpeningKind.EMPTY,
            time_control=self.time_control,
            game_id=self.id,
            seat_time_controls=(seat_clocks[0], seat_clocks[1]),
        )

    async def run(self, folder: Path, appender: Appender, feed: LiveFeed) -> None:
        """Play the game, append its record to ``folder``'s results and keep it. A failure
        of ours (the results file changed under the server) ends this game, not the server."""
        try:
            await self._run(folder, appender, feed)
        except Exception as exc:
            log.exception("game %s", self.id)
            self.failure = f"{type(exc).__name__}: {exc}"
            self._bump()
            self.ended.set()

    async def _run(self, folder: Path, appender: Appender, feed: LiveFeed) -> None:
        served = self.bot
        options = BotOptions(
            startup_timeout=served.startup_timeout or DEFAULT_STARTUP_TIMEOUT,
            board_size=self.size,
            startup_commands=served.startup_commands,
        )
        bot = BotProcess.of(
            served.command, options, stderr_log=folder / LOGS / f"{self.id}-{served.name}.stderr.log"
        )
        players = (self.player, bot) if self.seat == 0 else (bot, self.player)
        live = feed.watch("play", self.id)
        observer = _Both(self, live)
        async with trio.open_nursery() as nursery:
            try:
                record = await play_game(
                    players[0], players[1], self.spec(), start_in=nursery, observer=observer
                )
            finally:
                with trio.CancelScope(shield=True):
                    await bot.aclose()
        record.bots[1 - self.seat].returncode = bot.returncode
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(appender.append, record)
        self.final = record
        self._bump()
        self.ended.set()

    # ------------------------------------------------------------------ the person's requests
    def turn(self, text: str) -> None:
        """Hand the person's turn to the game if the engine accepts it here; else
        :class:`PlayError` 422 with the engine's reason, and nothing changes."""
        if self.over:
            raise PlayError(409, "the game is over")
        asked = self.player.asked
        if asked is None:
            raise PlayError(409, "it is not your turn")
        if asked.kind == "color":
            if text.lower() not in ("black", "white"):
                raise PlayError(422, f"choose black or white, not {text[:20]!r}")
            self.player.answer("color", text.lower())
            return
        if asked.kind == "setup":
            self.player.answer("setup", self._setup(text))
            return
        if asked.kind != "turn":
            raise PlayError(409, f"the game waits for your {asked.kind}, not a turn")
        try:
            self.position.play(text)
        except TurnError as exc:
            raise PlayError(422, f"illegal turn {text[:60]!r}: {exc}") from None
        self.player.answer("turn", text.lower())

    def _setup(self, text: str) -> str:
        """The pie setup ``B W`` (the Black stone's point, the White one's) as the game loop
        will judge it, checked first by the engine: else :class:`PlayError` 422 with its reason."""
        try:
            black, white = parse_gensetup(text)
            self.position.setup(black, white)
        except (BadReply, TurnError) as exc:
            raise PlayError(422, f"illegal setup {text[:60]!r}: {exc}") from None
        return f"{black} {white}"

    def steals(self, prefix: str) -> dict[str, Any]:
        """For a turn being built (``c3`` or ``c3,b2>b3``): whether it is complete and the
        steals that may come next, from the engine."""
        if self.player.asked is None or self.player.asked.kind != "turn":
            raise PlayError(409, "it is not your turn")
        head, *steals = prefix.split(",")
        try:
            builder = self.position.begin_turn(head)
            for steal in steals:
                frm, _, to = steal.partition(">")
                builder.steal(frm, to)
        except (TurnError, ValueError) as exc:
            raise PlayError(422, f"{prefix[:60]!r}: {exc}") from None
        return {
            "turn": prefix.lower(),
            "complete": builder.is_complete,
            "legal_steals": builder.legal_steals(),
        }

    def resign(self) -> None:
        if self.over:
            raise PlayError(409, "the game is over")
        self.player.resign()

    def state(self, now: float) -> dict[str, Any]:
        """``GET /api/play/{id}``."""
        record = self.final or self.record
        last = None if record is None or not record.turns else record.turns[-1].turn
        asked = self.player.asked
        color = None
        if record is not None and record.black is not None:
            color = "black" if record.black == self.seat else "white"
        out: dict[str, Any] = {
            "id": self.id,
            "person": self.person,
            "bot": self.bot.name,
            "size": self.size,
            "side": self.side,
            "seat": self.seat,
            "color": color,
            "version": self.version,
            "status": "over" if self.over else "playing" if record is not None else "starting",
            "asked": None if asked is None else asked.kind,
            "time_left": None if asked is None else round(max(0.0, asked.deadline - asked.margin - now), 2),
            "time_control": self.time_control.as_dict(),
            "bot_time_control": self.bot.time_control.as_dict(),
            "legal_placements": [],
            "svg": clickable(board_svg(self.position, last_turn=last), self.size),
        }
        if asked is not None and asked.kind == "turn":
            out["legal_placements"] = self.position.legal_placements()
            out["must_pass"] = self.position.must_pass
        elif asked is not None and asked.kind == "setup":  # any two points of the empty board
            out["legal_placements"] = self.position.legal_placements()
        if record is not None:
            out["game"] = game_state(record, self.position)
            out["clocks"] = clocks(record)
        if self.failure is not None:
            out["result"], out["reason"], out["winner"] = "void", f"server error: {self.failure}", None
        if self.final is not None:
            out["result"] = self.final.result
            out["reason"] = self.final.reason
            out["winner"] = None if self.final.winner is None else self.final.label_of(self.final.winner)
        return out


class _Both:
    """Two observers of one game."""

    def __init__(self, first: HumanGame, second: GameObserver) -> None:
        self.first = first
        self.second = second

    def on_turn(self, record: GameRecord, position: Position) -> None:
        self.first.on_turn(record, position)
        self.second.on_turn(record, position)

    def on_end(self, record: GameRecord) -> None:
        self.first.on_end(record)
        self.second.on_end(record)


class HumanGames:
    """The people's games of a server: at most ``max_live`` at once."""

    def __init__(self, bots: dict[str, ServedBot], folder: Path, feed: LiveFeed, max_live: int) -> None:
        self.bots = bots
        self.folder = folder
        self.feed = feed
        self.max_live = max_live
        self.games: dict[str, HumanGame] = {}
        self.appender: Appender | None = None
        self.nursery: trio.Nursery | None = None

    def live(self) -> int:
        return sum(1 for g in self.games.values() if not g.over)

    def start(self, data: object) -> HumanGame:
        """Start the game a ``POST /api/play`` body asks for."""
        if not isinstance(data, dict):
            raise PlayError(400, "expected a JSON object")
        unknown = set(data) - {"bot", "size", "time_control", "side", "name"}
        if unknown:
            raise PlayError(400, f"unknown keys: {', '.join(sorted(map(str, unknown)))}")
        bot = self.bots.get(data.get("bot"))  # type: ignore[arg-type]
        if bot is None:
            have = ", ".join(sorted(self.bots)) or "none (start the server with --bots FILE)"
            raise PlayError(400, f"bot: no configured bot {str(data.get('bot'))[:40]!r}; configured: {have}")
        size = data.get("size", 5)
        if not isinstance(size, int) or isinstance(size, bool) or not 2 <= size <= 13:
            raise PlayError(400, "size: expected a board size 2..13")
        side = data.get("side", "black")
        if side not in SIDES:
            raise PlayError(400, f"side: expected one of {', '.join(SIDES)}")
        name = data.get("name", "person")
        if not isinstance(name, str) or NAME.fullmatch(name) is None:
            raise PlayError(
                400, "name: 1-32 letters, digits, spaces, '_', '.', '-', starting with a letter or digit"
            )
        if name in self.bots:
            raise PlayError(400, f"name: {name!r} is a bot's name; choose another")
        tc = time_control_of(data.get("time_control", {"per_move": 60}))
        if self.live() >= self.max_live:
            raise PlayError(503, f"the server has its {self.max_live} people's games in progress; try later")
        if self.nursery is None or self.appender is None:
            raise PlayError(503, "the server is not ready")
        game = HumanGame(f"human-{secrets.token_hex(4)}", name, bot, size, str(side), tc)
        self.games[game.id] = game
        self.nursery.start_soon(game.run, self.folder, self.appender, self.feed)
        finished = [k for k, g in self.games.items() if g.over]
        for key in finished[: max(0, len(finished) - KEPT)]:
            del self.games[key]
        return game

    def get(self, game_id: str) -> HumanGame:
        game = self.games.get(game_id)
        if game is None:
            raise PlayError(404, f"no game {game_id[:40]!r} (finished games are in the results folder)")
        return game
