"""One game between two bots, judged by the engine, always ending in a :class:`GameRecord`.

:func:`play_game` runs a game between two :class:`~referee.play.player.Player` objects (a
real process, or the in-memory player the tests use); :func:`run_game` starts two
processes from their commands, plays, and always closes them. Both return
a record whatever the bots do: every :class:`~referee.play.faults.BotFault` once the game's
first decision is asked becomes a forfeit of the bot at fault (it never escapes this
module); one before it (a start-up failure: the handshake, ``boardsize``) voids the game,
naming the bot, as does a failure on the referee's side (a program that cannot be
executed, or a bug of ours), the reason recorded.
Only cancellation from outside (Ctrl-C, a tournament shutting down) propagates.

Seats: seat 0 is the *first* bot (it makes the pie-rule setup; in the other opening modes
it plays Black), seat 1 the *second* (it chooses its colour; otherwise White).

Timing: a decision (``genmove``, ``gensetup``, ``choose_color``) must answer within the
bot's clock budget plus the margin (see :mod:`referee.play.clock`); any other command within
``command_timeout``. Missing either deadline is a loss on time. An overall guard on the
whole game catches what the per-request deadlines cannot (our own bugs): it voids.

Pipelining: GTP answers in order, so a bot process is sent the opponent's ``play``, then
``time_left`` and its ``genmove`` in one write, and the answers are read in that order (the
game set-up commands likewise); each still has its own deadline, counted from the end of the
answer before it, and each answer is judged in the order the commands were sent, so faults
are found and blamed as if each command had waited for the last. A player that is not a
process (the in-memory player of the tests) is simply asked one command at a time. A
process with nothing else queued gets a decision and the commands before it as one fast
exchange (:meth:`~referee.play.pipes.BotPipes.exchange`), which hands anything but the
usual answers back to be judged here as any other. While the trio run plays more than one
game, the usual turns of its games are driven from one task (:mod:`~referee.play.driver`,
through :meth:`_Game.drive_next` and :meth:`_Game.drive_answered`); a turn that is anything
but usual comes back to the game's own task and is judged here the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol

import trio

from protocol import commands
from protocol.framing import ProtocolError
from protocol.messages import Command, Response
from referee.engine import Color, Position, TurnError
from referee.play.clock import BotClock, describe
from referee.play.command import BotCommand
from referee.play.driver import RunDriver
from referee.play.faults import (
    BotFault,
    BotIllegal,
    BotProtocolError,
    BotResigned,
    BotStartError,
    BotTimeout,
)
from referee.play.forensics import forensics_of, wants_forensics
from referee.play.options import DEFAULT_QUIT_GRACE, BotOptions
from referee.play.pipes import Answered, BotPipes
from referee.play.player import Exchange, Player
from referee.play.process import BotProcess
from referee.play.records import (
    VOID_RESULT,
    BotEntry,
    BotStats,
    ChoiceEntry,
    FaultEntry,
    GameRecord,
    Outcome,
    SetupEntry,
    Termination,
    TurnEntry,
    forfeit_result,
)
from referee.play.replies import Pending
from referee.play.spec import DEFAULT_STARTUP_TIMEOUT, GameSpec, Opening, OpeningKind
from referee.play.watch import NOTICE

log = logging.getLogger("referee.play.game")

_FIXED_COLOURS = {Color.BLACK: 0, Color.WHITE: 1}

_Handback = tuple[int, Color, "tuple[Color, str] | None", Command, "Answered | Literal[True]", "float | None"]
"""A driven turn the game's task finishes (see _Game._driven_turns): seat, colour, the turn
told, the genmove, what the fast exchange gave, when it was asked."""


def _late(exchange: Exchange) -> float | None:
    """How late the referee looked at an answer, for its record entry (None: on time)."""
    return round(exchange.late, 6) if exchange.late else None


class _SeatFault(Exception):
    """A bot fault with the seat of the bot that made it (internal to this module)."""

    def __init__(self, seat: int, fault: BotFault, seconds: float | None = None) -> None:
        super().__init__(seat, fault)
        self.seat = seat
        self.fault = fault
        self.seconds = seconds  # how long the faulty answer (or the wait for it) took


@dataclass(eq=False, slots=True)
class _Ticket:
    """A command sent (or to be sent) to a seat, whose answer is judged later, in order.
    ``pending`` is the process's own record of it; None for a player asked one command at
    a time, which is then asked when the answer is wanted. ``optional``: a ``?`` is noted,
    not a loss (a listed optional command); else the command must answer ``=``."""

    seat: int
    command: Command
    timeout: float
    pending: Pending | None
    optional: bool = False


class GameObserver(Protocol):
    """Watches one game (``vastuz serve``'s live feed, a person's game): ``on_turn`` after
    each change the engine accepted (the pie setup, the colours, every turn), ``on_end``
    with the finished record. Called in the game's task: it must not block or raise."""

    def on_turn(self, record: GameRecord, position: Position) -> None: ...

    def on_end(self, record: GameRecord) -> None: ...


WATCH: ContextVar[Callable[[GameSpec], GameObserver | None] | None] = ContextVar("vastuz_watch", default=None)
"""An observer for every game started in this context (trio tasks inherit it), when set:
how ``vastuz tournament --serve`` sees the games of its in-process executor."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class _Game:
    """The state of one game in progress and the record it is filling in."""

    def __init__(self, bots: Sequence[Player], spec: GameSpec, observer: GameObserver | None = None) -> None:
        if len(bots) != 2 or bots[0] is bots[1]:
            raise ValueError("a game needs two distinct bots")
        watch = WATCH.get() if observer is None else None
        self.observer = observer if watch is None else watch(spec)
        self.bots = tuple(bots)
        self.spec = spec
        self.pos = Position.new(spec.size)
        self.clocks = (BotClock(spec.clock_of(0)), BotClock(spec.clock_of(1)))  # time odds: each its own
        self.stats = (BotStats(), BotStats())
        self.seat_of: dict[Color, int] | None = None
        self.queued: list[_Ticket] = []  # sent, answers not judged yet, in the order sent
        # Per seat, looked up once rather than at every request: the process's pipes (None
        # for a player asked one command at a time) and the command timeout.
        self.pipes = tuple(b.pipes if isinstance(b, BotProcess) else None for b in bots)
        self.command_timeouts = (spec.command_timeout_of(0), spec.command_timeout_of(1))
        self.times_left = (False, False)  # whether each bot lists time_left (known once started)
        # Per seat, the opponent's last turn not sent yet: it goes out with the seat's next
        # decision, in the same write (see _decide).
        self.untold: list[tuple[Color, str] | None] = [None, None]
        # Whether the first decision (gensetup, choose_color, genmove) has been asked: a
        # fault before it is a start-up failure, which voids (see _void_before_play).
        self.decided = False
        # A driven turn in flight (see drive_next), and one the driver handed back.
        self._driving: tuple[int, Color, tuple[Color, str] | None, Command, float] | None = None
        self._handback: _Handback | None = None
        self.record = GameRecord(
            game_id=spec.game_id,
            size=spec.size,
            opening=spec.opening.value,
            time_control=describe(spec.time_control),
            bots=[
                BotEntry(
                    label=b.label,
                    command=b.command,
                    time_control=None
                    if spec.clock_of(k) == spec.time_control
                    else describe(spec.clock_of(k)),
                )
                for k, b in enumerate(bots)
            ],
        )

    # ------------------------------------------------------------------ the whole game
    async def run(self, start_in: trio.Nursery | None = None) -> GameRecord:
        record = self.record
        record.started_at = _now()
        began = time.perf_counter()
        guard = self.spec.guard()
        played_from: float | None = None
        try:
            with trio.fail_after(guard):
                if start_in is not None:
                    await self._start(start_in)
                played_from = time.perf_counter()
                await self._play()
        except _SeatFault as seat_fault:
            if self.decided:
                self._forfeit(seat_fault.seat, seat_fault.fault, seat_fault.seconds)
            else:
                self._void_before_play(seat_fault)
        except BotStartError as exc:
            self._void(str(exc))
        except trio.TooSlowError:
            self._void(f"referee error: the game exceeded its overall guard of {guard:.0f} s")
        except Exception as exc:  # our own bug: void the game, keep the tournament going
            log.exception("game %s: referee error", self.spec.game_id)
            self._void(f"referee error: {type(exc).__name__}: {exc}")
        fault = record.fault
        if fault is not None and wants_forensics(fault.kind):  # what led up to it, for the record
            record.forensics = forensics_of(self.bots, fault.seat)
        ended = time.perf_counter()
        record.ended_at = _now()
        if self.observer is not None:
            self.observer.on_end(record)
        record.wall_seconds = round(ended - began, 6)
        self._fill_bots()
        requests = sum(s.requests for s in self.stats)
        if played_from is not None and requests:
            bot_time = sum(s.bot_seconds for s in self.stats)
            record.referee_overhead_us = round((ended - played_from - bot_time) / requests * 1e6, 1)
        return record

    async def _start(self, nursery: trio.Nursery) -> None:
        """Start both bots at once (their background tasks go to ``nursery``). A program
        that cannot run voids the game; so does a failed handshake (a fault before the
        first decision, see :meth:`_void_before_play`), naming the bot."""
        if self.bots[0].started and self.bots[1].started:  # both kept from earlier games
            return
        failures: list[BaseException | None] = [None, None]

        async def start(seat: int) -> None:
            if self.bots[seat].started:  # a bot kept from an earlier game
                return
            try:
                await self.bots[seat].start(nursery)
            except (BotFault, BotStartError) as exc:
                failures[seat] = exc

        async with trio.open_nursery() as starting:
            for seat in (0, 1):
                starting.start_soon(start, seat)
        for failure in failures:
            if isinstance(failure, BotStartError):
                raise failure
        faults = [(seat, f) for seat, f in enumerate(failures) if isinstance(f, BotFault)]
        if len(faults) == 2:
            raise BotStartError(f"both bots failed to start: {faults[0][1]}; {faults[1][1]}")
        if faults:
            raise _SeatFault(*faults[0])

    async def _play(self) -> None:
        spec = self.spec
        self.times_left = (self.bots[0].knows("time_left"), self.bots[1].knows("time_left"))
        for seat, bot in enumerate(self.bots):
            timeout = self.command_timeouts[seat]
            self._queue(seat, commands.boardsize(spec.size), timeout)
            self._queue(seat, commands.clear_board(), timeout)
            if bot.knows("time_settings"):
                self._queue(seat, self.clocks[seat].settings_command(), timeout, optional=True)
        await self._settle(flush=True)
        if spec.opening is OpeningKind.PIE:
            await self._pie()
        elif spec.setup is not None:
            await self._given_opening(spec.setup)
        else:
            self.seat_of = dict(_FIXED_COLOURS)
        self._set_colours()
        self._observe()
        driver = RunDriver.current() if self.pipes[0] is not None and self.pipes[1] is not None else None
        if driver is None:
            while not self.pos.is_over:
                await self._turn()
        else:
            driver.begin_play()
            try:
                while not self.pos.is_over:
                    if driver.playing > 1:  # driver.wanted, read without a call (each turn)
                        await self._driven_turns(driver)
                    else:
                        await self._turn()
            finally:
                driver.end_play()
        for seat, told in enumerate(self.untold):  # the last turn's play
            if told is not None:
                self._queue(seat, commands.play_accepted(*told), self.command_timeouts[seat])
        await self._settle()
        await self._score()

    # ------------------------------------------------------------------ requests
    def _send(self, seat: int, command: Command, timeout: float, *, optional: bool = False) -> _Ticket:
        """Send ``command`` to a process without waiting (it goes out with the next write to
        it); for another player, only note it (it is asked by :meth:`_receive`)."""
        pipes = self.pipes[seat]
        pending = None if pipes is None else pipes.send(command, timeout)
        return _Ticket(seat, command, timeout, pending, optional)

    def _queue(self, seat: int, command: Command, timeout: float, *, optional: bool = False) -> None:
        """:meth:`_send`, its answer to be judged by the next :meth:`_settle`."""
        self.queued.append(self._send(seat, command, timeout, optional=optional))

    async def _settle(self, *, flush: bool = False) -> None:
        """Judge the answers of every queued command, in the order they were sent (so the
        first fault found is the one found when each command waited for the last). With
        ``flush``, write to every process first, so both bots work at once."""
        if flush:
            for pipes in self.pipes:
                if pipes is not None:
                    await pipes.flush()
        queued = self.queued
        if queued:
            self.queued = []
            for ticket in queued:
                await self._judge(ticket)

    async def _judge(
        self, ticket: _Ticket, *, thinking: bool = False, asked: float | None = None
    ) -> Exchange:
        """Receive a ticket's answer, book its time, and hold it to what the command
        requires (``=``, or for an optional command a ``?`` noted). A fault of the bot
        becomes a :class:`_SeatFault` with how long the wait took (from ``asked``, when the
        wait began before this call)."""
        seat = ticket.seat
        pending = ticket.pending
        if pending is not None:
            pipes = self.pipes[seat]
            assert pipes is not None
            if asked is None:
                asked = time.perf_counter()  # the process's own clock
            try:
                exchange = await pipes.receive(pending)
            except BotFault as fault:
                raise _SeatFault(seat, fault, time.perf_counter() - asked) from None
        else:
            asked = trio.current_time()  # an in-memory player may run on trio's test clock
            try:
                exchange = await self.bots[seat].request(ticket.command, ticket.timeout)
            except BotFault as fault:
                raise _SeatFault(seat, fault, trio.current_time() - asked) from None
        return self._book(ticket, exchange, thinking)

    def _judge_ready(self, ticket: _Ticket, *, thinking: bool = False) -> Exchange | None:
        """:meth:`_judge` for an answer already complete (a process's, read with the one
        before it), without a coroutine: the usual decision. None when it is not (or the
        player is not a process): then await :meth:`_judge`."""
        pending = ticket.pending
        if pending is None:
            return None
        pipes = self.pipes[ticket.seat]
        assert pipes is not None
        if not pipes.ready(pending):
            return None
        return self._book(ticket, pipes.hand_out(pending), thinking)

    def _book(self, ticket: _Ticket, exchange: Exchange, thinking: bool) -> Exchange:
        """Book an answered ticket's time and hold it to what its command requires."""
        seat = ticket.seat
        stats = self.stats[seat]
        stats.requests += 1
        stats.bot_seconds += exchange.seconds
        stats.overhead_us += exchange.overhead * 1e6  # a sum until _fill_bots averages it
        if exchange.late:
            stats.looked_late(exchange.late)
        if thinking:
            stats.thinking_seconds += exchange.seconds
        if not exchange.response.ok:
            if ticket.optional:
                self._note_refusal(seat, exchange)
            else:
                self._check_ok(seat, exchange)
        return exchange

    async def _must(self, seat: int, command: Command, timeout: float, *, thinking: bool = False) -> Exchange:
        """A command the bot must answer with ``=``; ``?`` is a protocol loss."""
        return await self._judge(self._send(seat, command, timeout), thinking=thinking)

    def _check_ok(self, seat: int, exchange: Exchange) -> Exchange:
        if not exchange.response.ok:
            bot = self.bots[seat]
            raise _SeatFault(
                seat,
                BotProtocolError(
                    bot.label,
                    str(exchange.command),
                    "answered '?' to a command it must answer",
                    exchange.response.text,
                ),
                exchange.seconds,
            )
        return exchange

    def _note_refusal(self, seat: int, exchange: Exchange) -> None:
        """An optional command the bot listed: a ``?`` is noted (once per command) and the
        game goes on (PROTOCOL.md); no answer in time is still a loss on time."""
        if not exchange.response.ok:
            note = f"bot {self.bots[seat].label} answered '?' to {exchange.command.name}; carrying on"
            if note not in self.record.notes:
                self.record.notes.append(note)

    async def _decide(
        self, seat: int, command: Command, color: Color | None, told: tuple[Color, str] | None = None
    ) -> Exchange:
        """A timed decision: the opponent's last turn (``told``), ``time_left`` (to bots
        that list it, once colours are known), then the command under the bot's clock,
        whose time is then charged. All go out in one write with whatever is queued for
        the bot, and the answers are judged in the order sent."""
        answered = await self._ask(seat, command, color, told)
        if isinstance(answered, Exchange):
            return answered
        return self._fast_exchange(seat, command, *answered)

    def _fast_exchange(self, seat: int, command: Command, text: str, seconds: float, late: float) -> Exchange:
        """The exchange of a decision the fast path answered (see :meth:`_ask`)."""
        pipes = self.pipes[seat]
        assert pipes is not None
        number = pipes.last_id
        return Exchange(
            command.numbered(number)[0], Response.from_line(True, number, text), seconds, late=late
        )

    async def _ask(
        self, seat: int, command: Command, color: Color | None, told: tuple[Color, str] | None
    ) -> Exchange | tuple[str, float, float]:
        """:meth:`_decide`, returning the usual answer as its text, seconds and lateness only. A
        process with nothing else queued gets the commands as one fast exchange
        (:meth:`~referee.play.pipes.BotPipes.exchange`): booked here as :meth:`_book`
        would; anything unusual comes back as Pendings, judged in order as below."""
        fast = self._fast_request(seat, command, color, told)
        answered: Answered = None
        asked: float | None = None
        if fast is not None:
            pipes, sent, timeouts = fast
            asked = time.perf_counter()
            answered = await pipes.exchange(sent, timeouts)
            if type(answered) is tuple:
                return self._fast_booked(seat, command, answered)
        return await self._ask_rest(seat, command, color, told, answered, asked)

    def _fast_request(
        self, seat: int, command: Command, color: Color | None, told: tuple[Color, str] | None
    ) -> tuple[BotPipes, list[Command], list[float]] | None:
        """A decision about to be asked as a fast exchange (see :meth:`_ask`): the bot's
        pipes, the commands and their deadlines; None when it cannot be one (not a
        process, or something else queued)."""
        pipes = self.pipes[seat]
        if pipes is None or self.queued:
            return None
        self.decided = True
        clock = self.clocks[seat]
        timeout = self.command_timeouts[seat]
        listed = color is not None and self.times_left[seat]
        if told is None and not listed:
            return pipes, [command], [clock.deadline]
        if not listed:
            assert told is not None
            return pipes, [commands.play_accepted(*told), command], [timeout, clock.deadline]
        assert color is not None
        sent = [] if told is None else [commands.play_accepted(*told)]
        sent += [clock.time_left_command(color), command]
        return pipes, sent, [timeout] * (len(sent) - 1) + [clock.deadline]

    def _fast_booked(self, seat: int, command: Command, answered: Answered) -> tuple[str, float, float]:
        """A fast exchange's usual answer booked (as :meth:`_book` would) and charged."""
        assert type(answered) is tuple
        seconds, text, overhead, lates = answered
        stats = self.stats[seat]
        stats.requests += len(seconds)
        stats.bot_seconds += sum(seconds)
        stats.overhead_us += overhead * 1e6 * len(seconds)
        late = 0.0  # the decision's
        if lates is not None:
            for looked in lates:
                if looked:
                    stats.looked_late(looked)
            late = lates[-1]
        took = seconds[-1]
        stats.thinking_seconds += took
        self.clocks[seat].charge(took, turn=command.name == "genmove")
        return text, took, late

    async def _ask_rest(
        self,
        seat: int,
        command: Command,
        color: Color | None,
        told: tuple[Color, str] | None,
        answered: Answered,
        asked: float | None,
    ) -> Exchange:
        """:meth:`_ask` by the general path: the fast exchange's Pendings (``answered``, sent
        at ``asked``) judged in order, or, when there was none (``answered`` None), the
        commands sent and judged one by one."""
        clock = self.clocks[seat]
        listed = color is not None and self.times_left[seat]
        if answered is not None:  # sent, then handed back: judged in order, as below
            assert isinstance(answered, list)
            last = len(answered) - 1
            tickets = [
                _Ticket(seat, p.command, p.timeout, p, optional=listed and k == last - 1)
                for k, p in enumerate(answered)
            ]
        else:
            if told is not None:
                self._queue(seat, commands.play_accepted(*told), self.command_timeouts[seat])
            if listed:
                assert color is not None
                self._queue(seat, clock.time_left_command(color), self.command_timeouts[seat], optional=True)
            self.decided = True
            tickets = [*self.queued, self._send(seat, command, clock.deadline)]
            self.queued = []
            asked = None  # each wait is timed from its own start
        *before, decision = tickets
        for k, ticket in enumerate(before):
            await self._judge(ticket, asked=asked if k == 0 else None)
        exchange = self._judge_ready(decision, thinking=True) or await self._judge(
            decision, thinking=True, asked=asked if not before else None
        )
        clock.charge(exchange.seconds, turn=command.name == "genmove")
        return exchange

    def _illegal(self, seat: int, exchange: Exchange, detail: str) -> _SeatFault:
        bot = self.bots[seat]
        return _SeatFault(
            seat,
            BotIllegal(bot.label, str(exchange.command), detail, exchange.response.text),
            exchange.seconds,
        )

    # ------------------------------------------------------------------ openings
    async def _pie(self) -> None:
        maker, chooser = 0, 1
        exchange = await self._decide(maker, commands.gensetup(), None)
        try:
            black, white = commands.parse_gensetup(exchange.response.text)
            self.pos = self.pos.setup(black, white)
        except (ProtocolError, TurnError, ValueError) as exc:
            raise self._illegal(maker, exchange, f"bad setup: {exc}") from None
        self.record.setup = SetupEntry(
            black, white, by=maker, seconds=round(exchange.seconds, 6), late=_late(exchange)
        )
        self._observe()
        self._queue(chooser, commands.setup(black, white), self.spec.command_timeout_of(chooser))
        exchange = await self._decide(chooser, commands.choose_color(), None)
        try:
            color = commands.parse_choose_color(exchange.response.text)
        except ProtocolError as exc:
            raise self._illegal(chooser, exchange, f"bad colour choice: {exc}") from None
        self.record.choice = ChoiceEntry(chooser, color, round(exchange.seconds, 6), _late(exchange))
        self.seat_of = {color: chooser, color.opponent: maker}

    async def _given_opening(self, opening: Opening) -> None:
        """Stones and turns chosen by the referee, sent to both bots. An opening the engine
        rejects is our error (configs are checked before any game), so it voids."""
        self.seat_of = dict(_FIXED_COLOURS)
        self.pos = self.pos.setup(opening.black, opening.white)
        self.record.setup = SetupEntry(opening.black, opening.white)
        timeout = self.spec.command_timeout_of
        for seat in (0, 1):
            await self._must(seat, commands.setup(opening.black, opening.white), timeout(seat))
        for turn in opening.turns:
            color = self.pos.to_move
            self.pos = self.pos.play(turn)
            self.record.turns.append(TurnEntry(len(self.record.turns) + 1, color, turn, opening=True))
            for seat in (0, 1):
                await self._must(seat, commands.play(color, turn), timeout(seat))

    def _observe(self) -> None:
        observer = self.observer
        if observer is not None:
            observer.on_turn(self.record, self.pos)

    def _set_colours(self) -> None:
        assert self.seat_of is not None
        self.record.black = self.seat_of[Color.BLACK]
        self.record.white = self.seat_of[Color.WHITE]

    # ------------------------------------------------------------------ play
    async def _turn(self) -> None:
        seat, color, told, command = self._next_turn()
        self._turn_answered(seat, color, command, await self._ask(seat, command, color, told))

    def _next_turn(self) -> tuple[int, Color, tuple[Color, str] | None, Command]:
        """The seat to move, its colour, the opponent's turn it has not been told, its genmove."""
        assert self.seat_of is not None
        color = self.pos.to_move
        seat = self.seat_of[color]
        told = self.untold[seat]
        self.untold[seat] = None
        return seat, color, told, commands.genmove(color)

    def _turn_answered(
        self, seat: int, color: Color, command: Command, answered: Exchange | tuple[str, float, float]
    ) -> None:
        """A turn's answer judged by the engine and recorded (a fault of the bot raised)."""
        if isinstance(answered, Exchange):
            exchange: Exchange | None = answered
            text, seconds, late = answered.response.text, answered.seconds, _late(answered)
        else:
            exchange = None  # made only for a fault's record
            text, seconds, looked = answered
            late = round(looked, 6) if looked else None
        try:
            turn = commands.parse_genmove(text)
        except ProtocolError as exc:
            exchange = exchange or self._fast_exchange(seat, command, text, seconds, late or 0.0)
            raise self._illegal(seat, exchange, f"not a turn: {exc}") from None
        if turn == commands.RESIGN:
            bot = self.bots[seat]
            exchange = exchange or self._fast_exchange(seat, command, text, seconds, late or 0.0)
            raise _SeatFault(seat, BotResigned(bot.label, str(exchange.command), "resigned"), seconds)
        try:
            self.pos = self.pos.play(turn)
        except TurnError as exc:
            exchange = exchange or self._fast_exchange(seat, command, text, seconds, late or 0.0)
            raise self._illegal(seat, exchange, f"illegal turn: {exc}") from None
        turns = self.record.turns
        turns.append(
            TurnEntry(len(turns) + 1, color, turn, round(seconds, 6), self.clocks[seat].left, late=late)
        )
        if self.observer is not None:
            self._observe()
        # Sent with the opponent's next decision, in the same write.
        self.untold[1 - seat] = (color, turn)

    # ------------------------------------------------------------------ driven turns
    async def _driven_turns(self, driver: RunDriver) -> None:
        """Turns driven with other games' (:mod:`~referee.play.driver`) until the game
        leaves the driver; then the turn it left in, if any, by the general path."""
        self._handback = None
        await driver.drive(self)
        handback, self._handback = self._handback, None
        if handback is not None:
            seat, color, told, command, answered, asked = handback
            exchange = await self._ask_rest(seat, command, color, told, answered, asked)
            self._turn_answered(seat, color, command, exchange)

    def drive_next(self) -> BotPipes | None:
        """Start the next turn's fast exchange for the driver: the pipes it waits on, or
        None to leave (the game over, or the turn handed back: see :meth:`_driven_turns`)."""
        if self.pos.is_over:
            return None
        seat, color, told, command = self._next_turn()
        fast = self._fast_request(seat, command, color, told)
        started: Answered | Literal[True] = None
        asked: float | None = None
        if fast is not None:
            pipes, sent, timeouts = fast
            asked = time.perf_counter()
            started = pipes.exchange_start(sent, timeouts)
            if started is True:
                self._driving = (seat, color, told, command, asked)
                return pipes
        self._handback = (seat, color, told, command, started, asked)
        return None

    def drive_answered(self, answered: Answered, go_on: bool) -> BotPipes | None:
        """The driven turn's exchange ended: the usual answer judged and recorded (a fault
        raised) and, with ``go_on``, the next turn started; anything else handed back."""
        driving = self._driving
        assert driving is not None
        self._driving = None
        seat, color, told, command, asked = driving
        if type(answered) is not tuple:
            self._handback = (seat, color, told, command, answered, asked)
            return None
        self._turn_answered(seat, color, command, self._fast_booked(seat, command, answered))
        return self.drive_next() if go_on else None

    async def _score(self) -> None:
        """Score with the engine; ask ``final_score`` only as a check (a bot's failure or
        disagreement here is noted, never changes the result)."""
        record = self.record
        black, white = self.pos.score()
        result = self.pos.result()
        winner = self.pos.winner
        record.score = (black, white)
        record.result = result
        record.termination = Termination.SCORE
        if winner is None:
            record.outcome = Outcome.DRAW
        else:
            assert self.seat_of is not None
            record.outcome = Outcome.BLACK_WINS if winner is Color.BLACK else Outcome.WHITE_WINS
            record.winner = self.seat_of[winner]
        record.reason = f"game over: black {black:g}, white {white:g}"
        for seat, bot in enumerate(self.bots):
            if not bot.knows("final_score"):
                continue
            try:
                text = (
                    await self._must(seat, commands.final_score(), self.spec.command_timeout_of(seat))
                ).response.text
                said = commands.parse_final_score(text)
            except _SeatFault as seat_fault:
                record.notes.append(f"final_score check failed: {seat_fault.fault}")
                continue
            except ProtocolError as exc:
                record.notes.append(f"bot {bot.label}: final_score check: {exc}")
                continue
            record.bots[seat].final_score = said
            if said != result:
                record.notes.append(
                    f"bot {bot.label} says the result is {said}; the engine's {result} stands"
                )
                log.warning("game %s: %s", self.spec.game_id, record.notes[-1])

    # ------------------------------------------------------------------ endings
    def _forfeit(self, seat: int, fault: BotFault, seconds: float | None = None) -> None:
        record = self.record
        if self.seat_of is None:
            # A pie game that ended before the choice: record the default colours.
            self.seat_of = dict(_FIXED_COLOURS)
            record.notes.append("the game ended before colours were chosen; seat 0 is recorded as Black")
        self._set_colours()
        winner = 1 - seat
        winner_color = Color.BLACK if self.seat_of[Color.BLACK] == winner else Color.WHITE
        record.termination = fault.termination
        record.result = forfeit_result(winner_color, fault.termination)
        record.outcome = Outcome.BLACK_WINS if winner_color is Color.BLACK else Outcome.WHITE_WINS
        record.winner = winner
        record.reason = f"{fault.termination.value}: {fault}"
        late = fault.late if isinstance(fault, BotTimeout) else 0.0
        record.fault = FaultEntry(
            seat,
            fault.termination,
            fault.command,
            fault.received,
            None if seconds is None else round(seconds, 6),
            round(late, 6) if late >= NOTICE else None,
        )
        if late >= NOTICE:
            self.stats[seat].looked_late(late)

    def _void_before_play(self, seat_fault: _SeatFault) -> None:
        """A bot that failed before the game's first decision (its handshake, ``boardsize``,
        ``clear_board``, a given opening): void, never a rated result. Such a failure is
        almost always the bot's set-up (a missing module, a banner on stdout, a slow
        warm-up), not its play; a forfeit would use up the schedule, and a fixed command
        could not win those games back. The record names the bot and what it did (its
        ``fault``, on a void record), and the slot is played again on resume; the run's
        start-failure count still stops a bot that fails this way game after game."""
        seat, fault = seat_fault.seat, seat_fault.fault
        self._void(
            f"start-up failure: bot {self.bots[seat].label} failed before the game's first decision "
            f"({fault.termination.value}: {fault}); the game is not rated and is played again on resume"
        )
        self.record.fault = FaultEntry(
            seat,
            fault.termination,
            fault.command,
            fault.received,
            None if seat_fault.seconds is None else round(seat_fault.seconds, 6),
        )

    def _void(self, reason: str) -> None:
        record = self.record
        record.termination = Termination.VOID
        record.result = VOID_RESULT
        record.outcome = Outcome.VOID
        record.winner = None
        record.reason = reason

    def _fill_bots(self) -> None:
        for entry, bot, stats in zip(self.record.bots, self.bots, self.stats, strict=True):
            entry.name = bot.name
            entry.version = bot.version
            entry.pid = bot.pid
            entry.stderr_log = None if bot.stderr_log_path is None else str(bot.stderr_log_path)
            entry.transcript = None if bot.transcript_path is None else str(bot.transcript_path)
            entry.stats = BotStats(
                requests=stats.requests,
                bot_seconds=round(stats.bot_seconds, 6),
                thinking_seconds=round(stats.thinking_seconds, 6),
                overhead_us=round(stats.overhead_us / stats.requests, 1) if stats.requests else 0.0,
                late=stats.late,
                late_max=stats.late_max,
            )


# -------------------------------------------------------------------------- public API


async def play_game(
    first: Player,
    second: Player,
    spec: GameSpec,
    *,
    start_in: trio.Nursery | None = None,
    observer: GameObserver | None = None,
) -> GameRecord:
    """Play one game (``first`` makes the pie setup, or plays Black). Sends ``boardsize``
    and ``clear_board`` first, so bots can be reused from game to game. With ``start_in``,
    a bot not started yet is started there (a failed handshake, like any fault before the
    first decision, voids the game and names the bot); without, both must be started already.
    Never raises for anything a bot does; the caller still owns and closes the bots.
    ``observer`` watches the game (see :class:`GameObserver`)."""
    return await _Game((first, second), spec, observer).run(start_in=start_in)


async def run_game(
    first: BotCommand,
    second: BotCommand,
    spec: GameSpec,
    *,
    log_dir: Path | None = None,
    transcripts: bool = False,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    quit_grace: float = DEFAULT_QUIT_GRACE,
) -> GameRecord:
    """Start both bots, play one game, close both, and return the record.

    Logs go to ``log_dir`` as ``<game_id>-<seat>-<label>.stderr.log`` (and
    ``.transcript.log`` when ``transcripts``). ``quit_grace`` is how long a bot has to exit
    after ``quit`` before it is sent SIGTERM. A bot that fails before the first decision
    (a program that cannot be executed, a failed handshake) voids the game. Both processes are closed
    and reaped before this returns, on every path including cancellation.
    """
    options = BotOptions(startup_timeout=startup_timeout, quit_grace=quit_grace, board_size=spec.size)
    bots: list[BotProcess] = []
    for seat, command in enumerate((first, second)):
        stem = f"{spec.game_id}-{seat}-{command.label}"
        bots.append(
            BotProcess.of(
                command,
                options,
                stderr_log=None if log_dir is None else log_dir / f"{stem}.stderr.log",
                transcript=log_dir / f"{stem}.transcript.log"
                if log_dir is not None and transcripts
                else None,
            )
        )
    async with trio.open_nursery() as nursery:
        try:
            record = await _Game(bots, spec).run(start_in=nursery)
        finally:
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as closer:
                    for bot in bots:
                        closer.start_soon(bot.aclose)
    for entry, bot in zip(record.bots, bots, strict=True):
        entry.returncode = bot.returncode
    return record
