"""The ``illegal-play`` check of ``vastuz check``, and the positions it plays.

:func:`illegal_cases` finds, with the rules engine, one position for each kind of bad
turn: an occupied point, a merge, a missing steal, malformed notation (a placement with a
stray comma), an extra steal after a complete turn, and a steal onto an occupied point.
The check sets each up on the bot, sends the bad ``play``, and expects a ``?`` that
changes nothing: the bot's ``showboard`` (if it has one) stays the same, and legal plays
after it are accepted. A bot that reads only as much of a turn as it needs, or trusts the
notation, accepts some of these; the referee never would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from protocol import commands
from referee.engine import Color, Position, TurnError, iter_points
from referee.play.process import BotProcess
from referee.tools.check_session import CheckResult, Session, Status, answer_text, quote


@dataclass(frozen=True)
class StrictWarning(CheckResult):
    """A finding about something the referee never does (it judges every turn before it
    relays it, so a bot never sees an illegal ``play``): a WARN, saying why, unless the run
    is strict (``vastuz check --strict``), where it is a FAIL."""

    why_not_strict: str = "the referee never sends an illegal play, so this only warns (a FAIL with --strict)"


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


KINDS = ("occupied", "merge", "steal", "malformed", "extra-steal", "steal-occupied")
"""The kinds of bad turn, in the order the check sends them."""


def illegal_cases(size: int, seed: int = 0, tries: int = 300) -> list[IllegalCase]:
    """One case of each kind in :data:`KINDS` found by random play with the engine; a kind
    the board size never produces is left out. Deterministic for a given size and seed."""
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

    def add(
        kind: str, label: str, pos: Position, played: list[str], turn: str, after: str | None = None
    ) -> bool:
        reason = illegal_reason(pos, turn)
        if reason is None or kind in found:
            return False
        found[kind] = IllegalCase(label, black, white, tuple(played), turn, reason, follow(pos, after))
        return True

    points = list(iter_points(size))
    for _ in range(tries):
        if len(found) == len(KINDS):
            break
        black, white = rng.sample(points, 2)
        pos = Position.new(size).setup(black, white)
        reason = illegal_reason(pos, white)
        if reason is not None and "occupied" not in found:
            found["occupied"] = IllegalCase("an occupied point", black, white, (), white, reason, follow(pos))
        played: list[str] = []
        while not pos.is_over and len(found) < len(KINDS):
            occupied = set(pos.stones(Color.BLACK)) | set(pos.stones(Color.WHITE))
            legal = set(pos.legal_placements())
            if "merge" not in found:
                for point in points:
                    if point not in legal and point not in occupied:
                        add("merge", "a merge", pos, played, point)
                        break
            turns = pos.legal_turns()
            complete = [t for t in turns if t != "pass" and "," not in t]
            if complete and "malformed" not in found:
                add("malformed", "malformed notation", pos, played, f"{complete[0]},")
            enemy = sorted(pos.stones(pos.to_move.opponent))
            if complete and enemy and "extra-steal" not in found:
                empty = [p for p in points if p not in occupied and p != complete[0]]
                if empty:
                    add("extra-steal", "an extra steal", pos, played, f"{complete[0]},{enemy[0]}>{empty[0]}")
            for turn in turns:
                if "," not in turn:
                    continue
                if "steal" not in found:
                    add("steal", "a missing steal", pos, played, turn.rsplit(",", 1)[0], turn)
                if "steal-occupied" not in found:
                    head, last = turn.rsplit(",", 1)
                    source, target = last.split(">")
                    for point in sorted(occupied - {target, source}):
                        if add("steal-occupied", "a steal onto an occupied point", pos, played,
                               f"{head},{source}>{point}", turn):  # fmt: skip
                            break
                break
            turn = pos.random_turn(rng)
            played.append(turn)
            pos = pos.play(turn)
    return [found[k] for k in KINDS if k in found]


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
            return pos, (f"'play {color.value} {turn}'", answer_text(exchange.response))
    return pos, None


async def check_illegal_play(name: str, s: Session) -> CheckResult:
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
            answer = answer_text(exchange.response)
            sent = f"'setup {case.black} {case.white}'"
            return CheckResult(name, Status.FAIL, f"{sent} is valid but the bot answered {answer}")
        pos, refused = await _play_along(bot, pos, case.turns, timeout)
        if refused is not None:
            return CheckResult(
                name, Status.FAIL,
                f"{refused[0]} is legal (after setup {case.black} {case.white}) "
                f"but the bot answered {refused[1]}",
            )  # fmt: skip
        showboard = "showboard" in s.listed
        before = await bot.call(commands.showboard(), timeout) if showboard else None
        color = pos.to_move
        illegal = f"'play {color.value} {case.illegal}'"
        exchange = await bot.request(commands.play(color, case.illegal), timeout)
        if exchange.response.ok:
            return StrictWarning(
                name, Status.FAIL,
                f"{case.kind}: {illegal} is illegal ({case.reason}); "
                f"expected '?', the bot answered {answer_text(exchange.response)}",
            )  # fmt: skip
        if before is not None and (after := await bot.call(commands.showboard(), timeout)) != before:
            return StrictWarning(
                name, Status.FAIL,
                f"{case.kind}: the bot rejected {illegal} but its showboard changed: "
                f"before {quote(before)}, after {quote(after)}",
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
