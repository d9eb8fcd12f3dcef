"""``vastuz check``: a conformance checker for one bot program, like a linter for bots.

It starts the bot as the referee would (a real subprocess through
:class:`~referee.bot.BotProcess`), runs the named checks of :data:`CHECKS` in order and
returns one :class:`CheckResult` per check. The point is to tell a bot author *before* a
tournament what the referee would score as a loss, and why: each failing result says what
was sent, what was expected and (truncated) what the bot answered.

Statuses: ``FAIL`` is something that loses games or breaks the protocol contract; ``WARN``
is legal but worth fixing (a missing optional command, a bot that needs a signal to stop);
``SKIP`` a check that cannot run (the bot never started, or does not list the command).
The report is OK when nothing failed.

Checks are independent where possible: a check that leaves the bot broken (crashed, timed
out, answered garbage) does not spoil the next one, because :meth:`_Session.bot` starts a
fresh process whenever the current one is no longer fit to use. Two checks share data on
purpose: ``final-score`` judges the answers collected by the games of ``games``.

Every process started here (the bot, its restarts, the reference opponent, the raw pipe
of the ``ids`` check) is closed and reaped before :func:`run_checks` returns, on every path.
"""

from __future__ import annotations

import enum
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from protocol import commands
from protocol.framing import LineBuffer, ProtocolError, clip
from protocol.messages import Command, Response, ResponseParser
from referee.engine import Color, Position, TurnError, iter_points
from referee.play.faults import BotFault, BotStartError
from referee.play.game import play_game
from referee.play.process import DEFAULT_QUIT_GRACE, BotProcess
from referee.play.records import GameRecord, Termination
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_MARGIN,
    DEFAULT_STARTUP_TIMEOUT,
    GameSpec,
    OpeningKind,
    TimeControl,
)

REQUIRED_COMMANDS = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "setup", "play", "genmove", "gensetup", "choose_color",
)  # fmt: skip
"""Every command PROTOCOL.md section 2 says every bot must answer."""

OPTIONAL_COMMANDS = {
    "time_settings": "the bot is not told the time control",
    "time_left": "the bot is not told its time before each move",
    "showboard": "no board diagrams in the logs",
    "final_score": "no cross-check of the bot's own count",
}
"""The optional commands, each with what a bot that lacks it misses."""

MADE_UP_COMMAND = "vastuz_check_no_such_command"
OUT_OF_RANGE_SIZES = (1, 14)
DEFAULT_SIZES = (7, 5)
_SHOWN = 80  # characters of a bot's answer quoted in a detail


class Status(str, enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    SKIP = "SKIP"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one named check, with a one-line human explanation."""

    name: str
    status: Status
    detail: str


@dataclass(frozen=True)
class CheckOptions:
    """What to check and how. ``sizes`` must all be accepted; the first is the size the
    games and position checks are played on. ``opponent`` is the reference bot of the
    games (the random sample bot, run with the referee's own Python)."""

    command: str
    sizes: tuple[int, ...] = DEFAULT_SIZES
    games: int = 2
    per_move: float = 1.0
    margin: float = DEFAULT_MARGIN
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    quit_grace: float = DEFAULT_QUIT_GRACE
    cwd: Path | None = None
    log_dir: Path | None = None
    seed: int = 0
    opponent: tuple[str, ...] = (sys.executable, "-m", "sample_bots.random_bot", "--seed", "1")

    def __post_init__(self) -> None:
        if not self.sizes:
            raise ValueError("at least one board size is needed")
        if self.games < 1:
            raise ValueError("at least one game is needed")

    @property
    def size(self) -> int:
        return self.sizes[0]

    @property
    def decision_timeout(self) -> float:
        """How long a decision (genmove, gensetup, choose_color) may take, as in a game."""
        return self.per_move + self.margin


@dataclass
class CheckReport:
    """All results, and the pid of every process started (all reaped by now)."""

    results: list[CheckResult] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.status is not Status.FAIL for r in self.results)

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status is status)

    def result(self, name: str) -> CheckResult:
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)


class _Skipped(Exception):
    """The check cannot run (raised by :meth:`_Session.bot` when the bot never started)."""


class _RestartFailed(Exception):
    """The bot started once, but a fresh process for this check did not."""


# ---------------------------------------------------------------------------- the session


class _Session:
    """The state shared by the checks of one run: the bot process in use (restarted when a
    check broke it), what its handshake listed, and the records of the games."""

    def __init__(self, options: CheckOptions, nursery: trio.Nursery, report: CheckReport) -> None:
        self.options = options
        self.nursery = nursery
        self.report = report
        self.current: BotProcess | None = None
        self.started_once = False
        self.listed: set[str] = set()
        self.games: list[tuple[GameRecord, int]] = []  # each record with the bot's seat
        self._spawned = 0
        self._open: list[BotProcess] = []

    def process(self, command: str | Sequence[str], label: str) -> BotProcess:
        """A new, unstarted BotProcess; with ``log_dir``, its own numbered log files."""
        self._spawned += 1
        stderr_log = transcript = None
        if self.options.log_dir is not None:
            stem = f"{self._spawned:02d}-{label}"
            stderr_log = self.options.log_dir / f"{stem}.stderr.log"
            transcript = self.options.log_dir / f"{stem}.transcript.log"
        bot = BotProcess(
            command,
            label=label,
            cwd=self.options.cwd,
            stderr_log=stderr_log,
            transcript=transcript,
            startup_timeout=self.options.startup_timeout,
            quit_grace=self.options.quit_grace,
        )
        self._open.append(bot)
        return bot

    async def start(self, bot: BotProcess) -> None:
        """Start ``bot`` in the session's nursery; on failure it is closed and reaped."""
        try:
            await bot.start(self.nursery)
        except BaseException:
            await bot.aclose()
            raise
        finally:
            if bot.pid is not None:
                self.report.pids.append(bot.pid)

    async def bot(self) -> BotProcess:
        """The bot, fit for use: the current process if it is healthy and idle, else a
        fresh one (so one check's breakage does not fail the next)."""
        if self.current is not None and self.current.reusable:
            return self.current
        await self.settle()
        if not self.started_once:
            raise _Skipped("the bot did not start")
        bot = self.process(self.options.command, "candidate")
        try:
            await self.start(bot)
        except (BotFault, BotStartError) as exc:
            raise _RestartFailed(f"a fresh bot process did not start: {exc}") from None
        self.current = bot
        return bot

    async def settle(self) -> None:
        """Close the current bot if it is broken, so no dead process waits for the next check."""
        if self.current is not None and not self.current.reusable:
            await self.current.aclose()
            self.current = None

    async def prepare(self, bot: BotProcess, size: int) -> None:
        """A new game as the referee starts one: boardsize, clear_board, time_settings."""
        await bot.new_game(size, self.options.command_timeout)
        if "time_settings" in bot.commands:
            # An optional command: a '?' here is not a fault (PROTOCOL.md section 5).
            await bot.request(commands.per_move_time_settings(self.options.per_move), self.options.command_timeout)

    async def close_all(self) -> None:
        for bot in self._open:
            await bot.aclose()
        self.current = None


# ---------------------------------------------------------------------------- helpers


def _quote(text: str) -> str:
    """A bot's answer as quoted in a detail: ``repr``, so one line, truncated."""
    return clip(text, _SHOWN)


def _fault_text(fault: BotFault) -> str:
    """A fault as a detail, without the bot label (there is one bot under test)."""
    text = f"{fault.termination.value}: {fault.detail}"
    if fault.command:
        text = f"{fault.command!r}: {text}"
    if fault.received is not None:
        text += f"; the bot sent {fault.received}"  # already quoted and clipped
    return text


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _answer(response: Response) -> str:
    """How the bot answered, for a detail: ``'='``, ``'= c3'`` or ``'? not today'``."""
    mark = "=" if response.ok else "?"
    return clip(f"{mark} {response.text}".rstrip(), _SHOWN)


# ---------------------------------------------------------------------------- the checks


async def check_startup(name: str, s: _Session) -> CheckResult:
    opts = s.options
    bot = s.process(opts.command, "candidate")
    began = time.perf_counter()
    try:
        await s.start(bot)
    except BotFault as fault:
        return CheckResult(name, Status.FAIL, f"handshake failed: {_fault_text(fault)}")
    except BotStartError as exc:
        return CheckResult(name, Status.FAIL, str(exc))
    took = time.perf_counter() - began
    s.current = bot
    s.started_once = True
    s.listed = set(bot.commands)
    detail = (
        f"protocol_version 2, name {bot.name!r}, version {bot.version!r}, {len(bot.commands)} commands listed; "
        f"handshake in {took:.2f} s (limit {opts.startup_timeout:g} s)"
    )
    if not bot.name or not bot.version:
        return CheckResult(name, Status.WARN, f"{detail}; an empty name or version makes logs hard to read")
    return CheckResult(name, Status.PASS, detail)


async def check_commands(name: str, s: _Session) -> CheckResult:
    bot = await s.bot()
    timeout = s.options.command_timeout
    problems = [f"list_commands lacks required {c}" for c in REQUIRED_COMMANDS if c not in s.listed]
    for command in (*REQUIRED_COMMANDS, *OPTIONAL_COMMANDS):
        known = commands.parse_known_command(await bot.call(commands.known_command(command), timeout))
        if known != (command in s.listed):
            listed = "lists" if command in s.listed else "does not list"
            problems.append(f"'known_command {command}' answered {str(known).lower()} but list_commands {listed} it")
    if commands.parse_known_command(await bot.call(commands.known_command(MADE_UP_COMMAND), timeout)):
        problems.append(f"'known_command {MADE_UP_COMMAND}' (a made-up name) answered true, expected false")
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems))
    return CheckResult(
        name, Status.PASS,
        f"all {len(REQUIRED_COMMANDS)} required commands listed; known_command agrees, false for a made-up name",
    )  # fmt: skip


async def check_optional_commands(name: str, s: _Session) -> CheckResult:
    if not s.started_once:
        raise _Skipped("the bot did not start")
    missing = [c for c in OPTIONAL_COMMANDS if c not in s.listed]
    if missing:
        lost = "; ".join(f"{c}: {OPTIONAL_COMMANDS[c]}" for c in missing)
        return CheckResult(name, Status.WARN, f"not listed (optional) - {lost}")
    return CheckResult(name, Status.PASS, "lists " + ", ".join(OPTIONAL_COMMANDS))


async def check_ids(name: str, s: _Session) -> CheckResult:
    """On a raw pipe: BotProcess numbers every command it sends, by design, so a command
    without an id can only be sent around it."""
    if not s.started_once:
        raise _Skipped("the bot did not start")
    opts = s.options
    with_id = commands.protocol_version().with_id(4242)
    without = commands.protocol_version()
    try:
        outcomes = await _raw_exchanges(s, (with_id, without), (opts.startup_timeout, opts.command_timeout))
    except OSError as exc:
        return CheckResult(name, Status.FAIL, f"cannot start {opts.command!r}: {exc}")
    problems = []
    for command, outcome in zip((with_id, without), outcomes):
        sent = f"'{command}'"
        if isinstance(outcome, str):
            problems.append(f"{sent}: {outcome}")
        elif not outcome.ok or outcome.text.strip() != "2":
            problems.append(f"{sent}: expected '{'=4242' if command.id else '='} 2', got {_answer(outcome)}")
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems))
    return CheckResult(name, Status.PASS, "'4242 protocol_version' answered '=4242 2'; without an id, '= 2'")


async def check_boardsize(name: str, s: _Session) -> CheckResult:
    timeout = s.options.command_timeout
    problems: list[str] = []
    for size in s.options.sizes:
        bot = await s.bot()
        exchange = await bot.request(commands.boardsize(size), timeout)
        if not exchange.response.ok:
            answer = _answer(exchange.response)
            problems.append(f"'boardsize {size}' answered {answer}: the bot cannot play size {size}")
            continue
        exchange = await bot.request(commands.clear_board(), timeout)
        if not exchange.response.ok:
            problems.append(f"'clear_board' on size {size} answered {_answer(exchange.response)}")
    # The referee never sends a size outside 2..13, so mishandling one only warns.
    warnings: list[str] = []
    for size in OUT_OF_RANGE_SIZES:
        bot = await s.bot()
        try:
            exchange = await bot.request(commands.boardsize(size), timeout)
        except BotFault as fault:
            warnings.append(f"'boardsize {size}' (out of range) expected '?': {_fault_text(fault)}")
            continue
        if exchange.response.ok:
            warnings.append(f"'boardsize {size}' is out of range (2 to 13) but the bot accepted it; expected '?'")
    accepted = ", ".join(str(n) for n in s.options.sizes)
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems + warnings))
    if warnings:
        return CheckResult(name, Status.WARN, f"accepted {accepted}; " + "; ".join(warnings))
    return CheckResult(name, Status.PASS, f"accepted {accepted}; answered '?' to 1 and 14")


async def check_unknown_command(name: str, s: _Session) -> CheckResult:
    bot = await s.bot()
    command = Command(None, MADE_UP_COMMAND, ("x",))
    exchange = await bot.request(command, s.options.command_timeout)
    if exchange.response.ok:
        answer = _answer(exchange.response)
        return CheckResult(name, Status.WARN, f"'{command}' answered {answer}; expected '? unknown command'")
    return CheckResult(name, Status.PASS, f"'{command}' answered {_answer(exchange.response)}")


@dataclass(frozen=True)
class IllegalCase:
    """A position reached by legal turns from a setup, an illegal turn for the side to move
    there (with the engine's reason), and legal turns to play after it."""

    kind: str
    black: str
    white: str
    turns: tuple[str, ...]
    illegal: str
    reason: str
    follow: tuple[str, ...]


def illegal_cases(size: int, seed: int = 0, tries: int = 300) -> list[IllegalCase]:
    """One case of each kind (an occupied point, a merge, a missing steal) found by random
    play with the engine; a kind the board size never produces is left out. Deterministic
    for a given size and seed."""
    rng = random.Random(seed)
    found: dict[str, IllegalCase] = {}

    def illegal_reason(pos: Position, turn: str) -> str | None:
        try:
            pos.play(turn)
        except TurnError as exc:
            return str(exc)
        return None

    def follow(pos: Position, first: str | None = None) -> tuple[str, ...]:
        turns: list[str] = []
        for _ in range(2):
            if pos.is_over:
                break
            turn = first if first is not None and not turns else pos.random_turn(rng)
            turns.append(turn)
            pos = pos.play(turn)
        return tuple(turns)

    points = list(iter_points(size))
    for _ in range(tries):
        if len(found) == 3:
            break
        black, white = rng.sample(points, 2)
        pos = Position.new(size).setup(black, white)
        reason = illegal_reason(pos, white)
        if reason is not None and "occupied" not in found:
            found["occupied"] = IllegalCase("an occupied point", black, white, (), white, reason, follow(pos))
        played: list[str] = []
        while not pos.is_over and len(found) < 3:
            occupied = set(pos.stones(Color.BLACK)) | set(pos.stones(Color.WHITE))
            legal = set(pos.legal_placements())
            if "merge" not in found:
                for point in points:
                    if point not in legal and point not in occupied:
                        reason = illegal_reason(pos, point)
                        if reason is not None:
                            found["merge"] = IllegalCase(
                                "a merge", black, white, tuple(played), point, reason, follow(pos)
                            )
                        break
            if "steal" not in found:
                for turn in pos.legal_turns():
                    if "," in turn:
                        short = turn.rsplit(",", 1)[0]
                        reason = illegal_reason(pos, short)
                        if reason is not None:
                            found["steal"] = IllegalCase(
                                "a missing steal", black, white, tuple(played), short, reason, follow(pos, turn)
                            )
                        break
            turn = pos.random_turn(rng)
            played.append(turn)
            pos = pos.play(turn)
    return [found[k] for k in ("occupied", "merge", "steal") if k in found]


async def _play_along(
    bot: BotProcess, pos: Position, turns: Sequence[str], timeout: float
) -> tuple[Position, tuple[str, str] | None]:
    """Send legal ``turns`` with ``play``; the position after them, or the first refused
    command and the bot's answer."""
    for turn in turns:
        color = pos.to_move
        pos = pos.play(turn)
        exchange = await bot.request(commands.play(color, turn), timeout)
        if not exchange.response.ok:
            return pos, (f"'play {color.value} {turn}'", _answer(exchange.response))
    return pos, None


async def check_illegal_play(name: str, s: _Session) -> CheckResult:
    size = s.options.size
    cases = illegal_cases(size, s.options.seed)
    if not cases:
        return CheckResult(name, Status.SKIP, f"no illegal position found on size {size}")
    timeout = s.options.command_timeout
    checked: list[str] = []
    for case in cases:
        bot = await s.bot()
        await s.prepare(bot, size)
        pos = Position.new(size).setup(case.black, case.white)
        exchange = await bot.request(commands.setup(case.black, case.white), timeout)
        if not exchange.response.ok:
            answer = _answer(exchange.response)
            sent = f"'setup {case.black} {case.white}'"
            return CheckResult(name, Status.FAIL, f"{sent} is valid but the bot answered {answer}")
        pos, refused = await _play_along(bot, pos, case.turns, timeout)
        if refused is not None:
            return CheckResult(
                name, Status.FAIL,
                f"{refused[0]} is legal (after setup {case.black} {case.white}) but the bot answered {refused[1]}",
            )  # fmt: skip
        showboard = "showboard" in s.listed
        before = await bot.call(commands.showboard(), timeout) if showboard else None
        color = pos.to_move
        illegal = f"'play {color.value} {case.illegal}'"
        exchange = await bot.request(commands.play(color, case.illegal), timeout)
        if exchange.response.ok:
            return CheckResult(
                name, Status.FAIL,
                f"{case.kind}: {illegal} is illegal ({case.reason}); "
                f"expected '?', the bot answered {_answer(exchange.response)}",
            )  # fmt: skip
        if before is not None and (after := await bot.call(commands.showboard(), timeout)) != before:
            return CheckResult(
                name, Status.FAIL,
                f"{case.kind}: the bot rejected {illegal} but its showboard changed: "
                f"before {_quote(before)}, after {_quote(after)}",
            )  # fmt: skip
        pos, refused = await _play_along(bot, pos, case.follow, timeout)
        if refused is not None:
            return CheckResult(
                name, Status.FAIL,
                f"{case.kind}: after rejecting {illegal}, the legal {refused[0]} was answered {refused[1]} "
                "(is the bot's board still as it was?)",
            )  # fmt: skip
        checked.append(case.kind)
    how = "the following plays accepted"
    if "showboard" in s.listed:
        how = "showboard unchanged and " + how
    return CheckResult(name, Status.PASS, f"answered '?' to {', '.join(checked)} ({how})")


def _game_plan(index: int, colours: dict[Color, int]) -> tuple[OpeningKind, int]:
    """Opening and the bot's seat for game ``index``: pie games alternate the bot making
    the setup and choosing the colour; empty-board games give the bot the colour it has
    played less so far, so two games already cover both openings and both colours."""
    if index % 2 == 0:
        return OpeningKind.PIE, (index // 2) % 2
    colour = Color.WHITE if colours[Color.WHITE] < colours[Color.BLACK] else Color.BLACK
    return OpeningKind.EMPTY, 0 if colour is Color.BLACK else 1


async def check_games(name: str, s: _Session) -> CheckResult:
    opts = s.options
    control = TimeControl.fixed(opts.per_move, margin=opts.margin)
    colours = {Color.BLACK: 0, Color.WHITE: 0}
    seconds: list[float] = []
    played: list[str] = []
    opponent: BotProcess | None = None
    try:
        for index in range(opts.games):
            bot = await s.bot()
            if opponent is None or not opponent.reusable:
                if opponent is not None:
                    await opponent.aclose()
                opponent = s.process(opts.opponent, "random")
                await s.start(opponent)
            opening, seat = _game_plan(index, colours)
            spec = GameSpec(
                size=opts.size, opening=opening, time_control=control,
                command_timeout=opts.command_timeout, game_id=f"check-{index + 1}",
            )  # fmt: skip
            first, second = (bot, opponent) if seat == 0 else (opponent, bot)
            record = await play_game(first, second, spec)
            s.games.append((record, seat))
            colour = Color.BLACK if record.black == seat else Color.WHITE
            colours[colour] += 1
            role = "" if opening is OpeningKind.EMPTY else ", set up" if seat == 0 else ", chose"
            where = f"game {index + 1} ({opening.value}{role}, {colour.value})"
            if record.termination is Termination.VOID:
                blame = "void (a problem on the checker's side)"
                return CheckResult(name, Status.FAIL, f"{where} {blame}: {record.reason}")
            seconds.extend(
                t.seconds for t in record.turns if t.color is colour and not t.opening and t.seconds is not None
            )
            if record.fault is not None and record.fault.seat != seat:
                blame = "the reference opponent failed (not your bot)"
                return CheckResult(name, Status.FAIL, f"{where}: {blame}: {record.reason}")
            if record.fault is not None and record.termination is not Termination.RESIGN:
                return CheckResult(name, Status.FAIL, f"{where}: {record.reason}")
            played.append(f"{where} {record.result}")
    except (BotFault, BotStartError) as fault:  # the opponent's start
        return CheckResult(name, Status.FAIL, f"the reference opponent did not start (not your bot): {fault}")
    finally:
        if opponent is not None:
            await opponent.aclose()
    timing = "no moves"
    if seconds:
        timing = f"thinking {_ms(sum(seconds) / len(seconds))} mean, {_ms(max(seconds))} max per move"
    detail = f"{len(played)} games, every turn legal and on time; {timing} (limit {opts.per_move:g} s): "
    detail += "; ".join(played)
    if seconds and max(seconds) > opts.per_move:
        advice = "a move used the referee's margin: keep well inside the limit"
        return CheckResult(name, Status.WARN, f"{detail}; {advice}")
    return CheckResult(name, Status.PASS, detail)


async def check_pie_rule(name: str, s: _Session) -> CheckResult:
    opts = s.options
    bot = await s.bot()
    await s.prepare(bot, opts.size)
    exchange = await bot.request(commands.gensetup(), opts.decision_timeout)
    answer = _answer(exchange.response)
    if not exchange.response.ok:
        expected = "expected two points 'B W'"
        return CheckResult(name, Status.FAIL, f"'gensetup' on an empty board answered {answer}; {expected}")
    try:
        black, white = commands.parse_gensetup(exchange.response.text)
        if black == white:
            raise ValueError("the two points must differ")
        Position.new(opts.size).setup(black, white)
    except (ProtocolError, ValueError) as exc:  # TurnError is a ValueError
        expected = f"expected two distinct points of the size-{opts.size} board"
        return CheckResult(name, Status.FAIL, f"'gensetup' answered {answer}; {expected} ({exc})")
    rng = random.Random(opts.seed)
    stones = rng.sample(list(iter_points(opts.size)), 2)
    bot = await s.bot()
    await s.prepare(bot, opts.size)
    await bot.call(commands.setup(*stones), opts.command_timeout)
    exchange = await bot.request(commands.choose_color(), opts.decision_timeout)
    try:
        colour = commands.parse_choose_color(commands.expect_success(exchange.response, exchange.command))
    except ProtocolError:
        return CheckResult(
            name, Status.FAIL,
            f"'choose_color' after 'setup {stones[0]} {stones[1]}' answered {_answer(exchange.response)}; "
            "expected black or white",
        )  # fmt: skip
    return CheckResult(name, Status.PASS, f"gensetup {answer} (two distinct points); choose_color: {colour.value}")


async def check_final_score(name: str, s: _Session) -> CheckResult:
    if not s.started_once:
        raise _Skipped("the bot did not start")
    if "final_score" not in s.listed:
        return CheckResult(name, Status.SKIP, "the bot does not list final_score (optional)")
    scored = [(r, seat) for r, seat in s.games if r.termination is Termination.SCORE]
    if not scored:
        return CheckResult(name, Status.SKIP, "no game was played to the end")
    problems = []
    for record, seat in scored:
        said = record.bots[seat].final_score
        number = record.game_id.rsplit("-", 1)[-1]
        if said is None:
            notes = [n for n in record.notes if "final_score" in n] or ["no answer"]
            problems.append(f"game {number}: {notes[0]}")
        elif said != record.result:
            problems.append(f"game {number}: the bot said {said}, the engine counts {record.result}")
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems))
    return CheckResult(name, Status.PASS, f"agreed with the engine in {len(scored)} game(s)")


async def check_quit(name: str, s: _Session) -> CheckResult:
    bot = await s.bot()
    began = time.perf_counter()
    await bot.aclose()  # quit, then the grace, then SIGTERM, then SIGKILL
    took = time.perf_counter() - began
    s.current = None
    code = bot.returncode
    assert code is not None  # aclose always reaps
    if code < 0:
        try:
            how = signal.Signals(-code).name
        except ValueError:
            how = f"signal {-code}"
        late = f"still running {s.options.quit_grace:g} s after 'quit': stopped by {how}"
        return CheckResult(name, Status.WARN, f"{late}; exit right after answering quit")
    if code > 0:
        return CheckResult(name, Status.WARN, f"exited after 'quit' with status {code} (expected 0)")
    return CheckResult(name, Status.PASS, f"exited with status 0, {took:.2f} s after 'quit'")


# ---------------------------------------------------------------------------- raw pipe


async def _raw_exchanges(
    s: _Session, sent: Sequence[Command], timeouts: Sequence[float]
) -> list[Response | str]:
    """Start a separate bot process on bare pipes, send ``sent`` one at a time and parse
    each answer strictly; a string stands for what went wrong (then nothing more is sent).
    The process then gets end-of-input, a moment to exit, and SIGKILL to its group."""
    process = await trio.lowlevel.open_process(
        shlex.split(s.options.command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=s.options.cwd,
        start_new_session=True,
    )
    s.report.pids.append(process.pid)
    outcomes: list[Response | str] = []
    try:
        assert process.stdin is not None and process.stdout is not None
        buffer = LineBuffer()
        for command, timeout in zip(sent, timeouts):
            outcome: Response | str = f"no complete answer within {timeout:g} s"
            with trio.move_on_after(timeout):
                outcome = await _raw_exchange(process.stdin, process.stdout, buffer, command)
            outcomes.append(outcome)
            if isinstance(outcome, str):
                break
    finally:
        with trio.CancelScope(shield=True):
            if process.stdin is not None:
                await process.stdin.aclose()
            with trio.move_on_after(s.options.quit_grace):
                await process.wait()
            for _ in range(2):  # the leader, then whatever it left in its group
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                await process.wait()
            if process.stdout is not None:
                await process.stdout.aclose()
    return outcomes


async def _raw_exchange(
    stdin: trio.abc.SendStream, stdout: trio.abc.ReceiveStream, buffer: LineBuffer, command: Command
) -> Response | str:
    try:
        await stdin.send_all(command.format().encode())
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return "the bot stopped reading its input"
    parser = ResponseParser(command.id)
    try:
        while True:
            line = buffer.next_line()
            if line is None:
                data = await stdout.receive_some(1 << 16)
                if not data:
                    return "the bot closed its output (exited or crashed)"
                buffer.push(data)
                continue
            response = parser.feed(line)
            if response is not None:
                return response
    except ProtocolError as exc:
        return str(exc)


# ---------------------------------------------------------------------------- the table


CheckFunction = Callable[[str, _Session], Awaitable[CheckResult]]


@dataclass(frozen=True)
class Check:
    """One named check: what it verifies (for people), and the function that does it."""

    name: str
    verifies: str
    run: CheckFunction


CHECKS: tuple[Check, ...] = (
    Check("start-up", "handshake in time: protocol_version 2, name, version, list_commands", check_startup),
    Check("commands", "required commands listed; known_command agrees, false for a made-up name", check_commands),
    Check("optional-commands", "time_settings, time_left, showboard, final_score (WARN if missing)", check_optional_commands),
    Check("ids", "a command's id is echoed; a command without an id is answered without one", check_ids),
    Check("boardsize", "the requested sizes accepted; 1 and 14 refused with '?'", check_boardsize),
    Check("unknown-command", "an unknown command answered '?', not a crash", check_unknown_command),
    Check("illegal-play", "illegal plays (occupied, merge, missing steal) get '?', board unchanged", check_illegal_play),
    Check("games", "full games against the random sample bot: every turn legal and on time", check_games),
    Check("pie-rule", "gensetup gives two distinct points; choose_color gives black or white", check_pie_rule),
    Check("final-score", "final_score agrees with the engine at the end of each game", check_final_score),
    Check("quit", "the bot exits within the grace period after quit", check_quit),
)  # fmt: skip


async def _run_one(check: Check, s: _Session) -> CheckResult:
    try:
        return await check.run(check.name, s)
    except _Skipped as exc:
        return CheckResult(check.name, Status.SKIP, str(exc))
    except _RestartFailed as exc:
        return CheckResult(check.name, Status.FAIL, str(exc))
    except BotFault as fault:
        return CheckResult(check.name, Status.FAIL, _fault_text(fault))
    except ProtocolError as exc:  # a reply parser: an answer of the wrong form
        return CheckResult(check.name, Status.FAIL, str(exc))


async def run_checks(
    options: CheckOptions, on_result: Callable[[CheckResult], None] | None = None
) -> CheckReport:
    """Run every check of :data:`CHECKS` in order against ``options.command``; call
    ``on_result`` as each one finishes. Never raises for anything the bot does; every
    process started is reaped before this returns (also on cancellation)."""
    report = CheckReport()
    failure: BaseException | None = None
    async with trio.open_nursery() as nursery:
        session = _Session(options, nursery, report)
        try:
            for check in CHECKS:
                result = await _run_one(check, session)
                report.results.append(result)
                if on_result is not None:
                    on_result(result)
                await session.settle()
        except trio.Cancelled:
            raise
        except BaseException as exc:  # noqa: BLE001 - re-raised below, unchanged
            # Raised again below, outside the nursery, so that the caller sees the
            # exception itself (a BrokenPipeError from on_result, Ctrl-C) and not an
            # ExceptionGroup around it.
            failure = exc
        finally:
            with trio.CancelScope(shield=True):
                await session.close_all()
    if failure is not None:
        raise failure
    return report
