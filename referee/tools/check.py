"""``vastuz check``: a conformance checker for one bot program, like a linter for bots.

It starts the bot as the referee would (a real subprocess through
:class:`~referee.play.process.BotProcess`), runs the named checks of :data:`CHECKS` in
order and returns one :class:`CheckResult` per check. The point is to tell a bot author
*before* a tournament what the referee would score as a loss, and why: each failing result
says what was sent, what was expected and (truncated) what the bot answered. The report is
OK when nothing failed.

This module holds the table and the runner, and is what the command line imports; the
pieces live beside it:

* :mod:`~referee.tools.check_session`: options, statuses, results, the report, and the
  session that starts (and restarts) the bot and owns every process of a run;
* :mod:`~referee.tools.check_protocol`: start-up, commands, ids, board sizes, an unknown
  command, quit;
* :mod:`~referee.tools.check_positions`: illegal plays, on positions found with the engine;
* :mod:`~referee.tools.check_games`: full games, the pie rule, final_score.

Every process started (the bot, its restarts, the reference opponent) is a ``BotProcess``
closed and reaped by the session before :func:`run_checks` returns, on every path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from protocol.framing import ProtocolError
from referee.play.faults import BotFault
from referee.tools.check_games import check_final_score, check_games, check_pie_rule
from referee.tools.check_positions import StrictWarning, check_illegal_play
from referee.tools.check_protocol import (
    check_boardsize,
    check_commands,
    check_ids,
    check_optional_commands,
    check_quit,
    check_startup,
    check_unknown_command,
)
from referee.tools.check_session import (
    DEFAULT_SIZES,
    CheckOptions,
    CheckReport,
    CheckResult,
    CheckSkipped,
    RestartFailed,
    Session,
    Status,
    fault_text,
)

__all__ = [
    "CHECKS", "DEFAULT_SIZES", "Check", "CheckOptions", "CheckReport", "CheckResult", "Status", "run_checks",
]  # fmt: skip

CheckFunction = Callable[[str, Session], Awaitable[CheckResult]]


@dataclass(frozen=True)
class Check:
    """One named check: what it verifies (for people), and the function that does it.

    A check of something the referee never asks (it never sends an illegal ``play``) returns
    a :class:`~referee.tools.check_positions.StrictWarning` for it: a WARN, which a strict
    run makes a FAIL, so that a bot that plays every game correctly is not failed for
    lacking a full validator of the opponent's turns.
    """

    name: str
    verifies: str
    run: CheckFunction


CHECKS: tuple[Check, ...] = (
    Check("start-up", "handshake in time: protocol_version 2, name, version, list_commands", check_startup),
    Check(
        "commands", "required commands listed; known_command agrees, false for a made-up name", check_commands
    ),
    Check(
        "optional-commands",
        "time_settings, time_left, showboard, final_score (WARN if missing)",
        check_optional_commands,
    ),
    Check("ids", "a command's id is echoed; a command without an id is answered without one", check_ids),
    Check("boardsize", "the requested sizes accepted; 1 and 14 refused with '?'", check_boardsize),
    Check("unknown-command", "an unknown command answered '?', not a crash", check_unknown_command),
    Check(
        "illegal-play",
        "illegal plays (occupied, merge, missing steal) get '?', board unchanged (WARN; FAIL with --strict)",
        check_illegal_play,
    ),
    Check("games", "full games against the random sample bot: every turn legal and on time", check_games),
    Check(
        "pie-rule", "gensetup gives two distinct points; choose_color gives black or white", check_pie_rule
    ),
    Check("final-score", "final_score agrees with the engine at the end of each game", check_final_score),
    Check("quit", "the bot exits within the grace period after quit", check_quit),
)
"""Every check, in the order it runs (``start-up`` first: the others need its handshake)."""


async def _run_one(check: Check, s: Session, strict: bool) -> CheckResult:
    """Run one check; what the bot did wrong that the check did not catch is a FAIL. A
    :class:`StrictWarning` is a WARN saying so, or in a strict run a FAIL."""
    result = await _run_checked(check, s)
    if isinstance(result, StrictWarning):
        if strict:
            return CheckResult(result.name, Status.FAIL, result.detail)
        return CheckResult(result.name, Status.WARN, f"{result.detail}; {result.why_not_strict}")
    return result


async def _run_checked(check: Check, s: Session) -> CheckResult:
    try:
        return await check.run(check.name, s)
    except CheckSkipped as exc:
        return CheckResult(check.name, Status.SKIP, str(exc))
    except RestartFailed as exc:
        return CheckResult(check.name, Status.FAIL, str(exc))
    except BotFault as fault:
        return CheckResult(check.name, Status.FAIL, fault_text(fault))
    except ProtocolError as exc:  # a reply parser: an answer of the wrong form
        return CheckResult(check.name, Status.FAIL, str(exc))


async def run_checks(
    options: CheckOptions, on_result: Callable[[CheckResult], None] | None = None, *, strict: bool = False
) -> CheckReport:
    """Run every check of :data:`CHECKS` in order against ``options.command``; call
    ``on_result`` as each one finishes. *strict*: a :class:`StrictWarning` is a FAIL.
    Never raises for anything the bot does; every process started is reaped before this
    returns (also on cancellation)."""
    report = CheckReport()
    failure: BaseException | None = None
    async with trio.open_nursery() as nursery:
        session = Session(options, nursery, report)
        try:
            for check in CHECKS:
                result = await _run_one(check, session, strict)
                report.results.append(result)
                if on_result is not None:
                    on_result(result)
                await session.settle()
        except trio.Cancelled:
            raise
        except BaseException as exc:
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
