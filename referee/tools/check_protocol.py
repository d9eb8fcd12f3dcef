"""The checks of ``vastuz check`` about the protocol itself, outside a game: the handshake,
the command list, ids, board sizes, an unknown command, and ``quit``.

Each is an ``async`` function ``(name, session) -> CheckResult`` for the table in
:mod:`referee.tools.check`; the faults a check does not catch (a crash, a timeout, a
garbled answer) become a FAIL there.
"""

from __future__ import annotations

import signal
import time

from protocol import commands
from protocol.messages import Command
from referee.play.command import split_command
from referee.play.faults import BotCrashed, BotFault, BotStartError, BotTimeout
from referee.tools.check_hints import failure_hints, hinted
from referee.tools.check_session import (
    MADE_UP_COMMAND,
    OPTIONAL_COMMANDS,
    OUT_OF_RANGE_SIZES,
    REQUIRED_COMMANDS,
    CheckResult,
    CheckSkipped,
    Session,
    Status,
    answer_text,
    fault_text,
)

IDS_CHECK_ID = 4242
"""The id the ``ids`` check sends: far from the referee's own numbering (1, 2, ... so far),
so a bot that echoes a counter of its own instead of the id it got is caught."""


async def check_startup(name: str, s: Session) -> CheckResult:
    """The handshake; a failure says what the referee saw, with a hint at the usual cause
    (no flush, a CRLF ``#!`` line, a script given as the command, a banner on stdout)."""
    opts = s.options
    bot = s.process(opts.command, "candidate")
    argv = split_command(opts.command)
    began = time.perf_counter()
    try:
        await s.start(bot)
    except BotFault as fault:
        # A timeout means the process was alive at the deadline (an exit is seen as a crash at
        # once); it is closed by now, so its returncode cannot tell.
        hints = failure_hints(argv, opts.cwd, fault, alive=not isinstance(fault, BotCrashed))
        return CheckResult(name, Status.FAIL, hinted(f"handshake failed: {fault_text(fault)}", hints))
    except BotStartError as exc:
        return CheckResult(
            name, Status.FAIL, hinted(str(exc), failure_hints(argv, opts.cwd, exc, alive=None))
        )
    took = time.perf_counter() - began
    s.current = bot
    s.started_once = True
    s.listed = set(bot.commands)
    detail = (
        f"protocol_version 2, name {bot.name!r}, version {bot.version!r}, "
        f"{len(bot.commands)} commands listed; handshake in {took:.2f} s (limit {opts.startup_timeout:g} s)"
    )
    if not bot.name or not bot.version:
        return CheckResult(name, Status.WARN, f"{detail}; an empty name or version makes logs hard to read")
    return CheckResult(name, Status.PASS, detail)


async def check_commands(name: str, s: Session) -> CheckResult:
    bot = await s.bot()
    timeout = s.options.command_timeout
    problems = [f"list_commands lacks required {c}" for c in REQUIRED_COMMANDS if c not in s.listed]
    for command in (*REQUIRED_COMMANDS, *OPTIONAL_COMMANDS):
        known = commands.parse_known_command(await bot.call(commands.known_command(command), timeout))
        if known != (command in s.listed):
            listed = "lists" if command in s.listed else "does not list"
            problems.append(
                f"'known_command {command}' answered {str(known).lower()} but list_commands {listed} it"
            )
    if commands.parse_known_command(await bot.call(commands.known_command(MADE_UP_COMMAND), timeout)):
        problems.append(f"'known_command {MADE_UP_COMMAND}' (a made-up name) answered true, expected false")
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems))
    return CheckResult(
        name, Status.PASS,
        f"all {len(REQUIRED_COMMANDS)} required commands listed; "
        "known_command agrees, false for a made-up name",
    )  # fmt: skip


async def check_optional_commands(name: str, s: Session) -> CheckResult:
    if not s.started_once:
        raise CheckSkipped("the bot did not start")
    missing = [c for c in OPTIONAL_COMMANDS if c not in s.listed]
    if missing:
        lost = "; ".join(f"{c}: {OPTIONAL_COMMANDS[c]}" for c in missing)
        return CheckResult(name, Status.WARN, f"not listed (optional) - {lost}")
    return CheckResult(name, Status.PASS, "lists " + ", ".join(OPTIONAL_COMMANDS))


def _ids_fault_text(fault: BotFault, timeout: float) -> str:
    """What went wrong with one exchange of the ``ids`` check: the parser's own words for
    a wrong, missing or unexpected id (that is the finding), else what happened to the bot."""
    if isinstance(fault, BotTimeout):
        return f"no complete answer within {timeout:g} s"
    if isinstance(fault, BotCrashed):
        return f"the bot {fault.detail}"  # 'closed its output ...' or 'stopped reading its input ...'
    return fault.detail


async def check_ids(name: str, s: Session) -> CheckResult:
    """The referee numbers every command it sends, so a bot could get by echoing whatever
    number comes first; this check sends its own ids instead (``numbered=False``): one the
    bot has never seen, then none at all, which must be answered without an id."""
    timeout = s.options.command_timeout
    bot = await s.bot()
    problems: list[str] = []
    for command in (commands.protocol_version().with_id(IDS_CHECK_ID), commands.protocol_version()):
        sent = f"'{command}'"
        try:
            exchange = await bot.request(command, timeout, numbered=False)
        except BotFault as fault:  # the bot is broken now: nothing more is sent to it
            problems.append(f"{sent}: {_ids_fault_text(fault, timeout)}")
            break
        response = exchange.response
        if not response.ok or response.text.strip() != "2":
            header = "=" if command.id is None else f"={command.id}"
            problems.append(f"{sent}: expected '{header} 2', got {answer_text(response)}")
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems))
    return CheckResult(
        name, Status.PASS,
        f"'{IDS_CHECK_ID} protocol_version' answered '={IDS_CHECK_ID} 2'; without an id, '= 2'",
    )  # fmt: skip


async def check_boardsize(name: str, s: Session) -> CheckResult:
    timeout = s.options.command_timeout
    problems: list[str] = []
    for size in s.options.sizes:
        bot = await s.bot()
        exchange = await bot.request(commands.boardsize(size), timeout)
        if not exchange.response.ok:
            answer = answer_text(exchange.response)
            problems.append(f"'boardsize {size}' answered {answer}: the bot cannot play size {size}")
            continue
        exchange = await bot.request(commands.clear_board(), timeout)
        if not exchange.response.ok:
            problems.append(f"'clear_board' on size {size} answered {answer_text(exchange.response)}")
    # The referee never sends a size outside 2..13, so mishandling one only warns.
    warnings: list[str] = []
    for size in OUT_OF_RANGE_SIZES:
        bot = await s.bot()
        try:
            exchange = await bot.request(commands.boardsize(size), timeout)
        except BotFault as fault:
            warnings.append(f"'boardsize {size}' (out of range) expected '?': {fault_text(fault)}")
            continue
        if exchange.response.ok:
            warnings.append(
                f"'boardsize {size}' is out of range (2 to 13) but the bot accepted it; expected '?'"
            )
    accepted = ", ".join(str(n) for n in s.options.sizes)
    if problems:
        return CheckResult(name, Status.FAIL, "; ".join(problems + warnings))
    if warnings:
        return CheckResult(name, Status.WARN, f"accepted {accepted}; " + "; ".join(warnings))
    return CheckResult(name, Status.PASS, f"accepted {accepted}; answered '?' to 1 and 14")


async def check_unknown_command(name: str, s: Session) -> CheckResult:
    bot = await s.bot()
    command = Command(None, MADE_UP_COMMAND, ("x",))
    exchange = await bot.request(command, s.options.command_timeout)
    if exchange.response.ok:
        answer = answer_text(exchange.response)
        return CheckResult(name, Status.WARN, f"'{command}' answered {answer}; expected '? unknown command'")
    return CheckResult(name, Status.PASS, f"'{command}' answered {answer_text(exchange.response)}")


async def check_quit(name: str, s: Session) -> CheckResult:
    bot = await s.bot()
    began = time.perf_counter()
    await bot.aclose()  # quit, then the grace, then SIGTERM, then SIGKILL
    took = time.perf_counter() - began
    s.current = None
    code = bot.returncode
    assert code is not None  # aclose always reaps
    if code < 0:
        try:
            how = signal.Signals(-code).name  # only to name the signal BotProcess sent
        except ValueError:
            how = f"signal {-code}"
        late = f"still running {s.options.quit_grace:g} s after 'quit': stopped by {how}"
        return CheckResult(name, Status.WARN, f"{late}; exit right after answering quit")
    if code > 0:
        return CheckResult(name, Status.WARN, f"exited after 'quit' with status {code} (expected 0)")
    return CheckResult(name, Status.PASS, f"exited with status 0, {took:.2f} s after 'quit'")
