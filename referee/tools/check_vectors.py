"""``vastuz rules --vectors FILE [COMMAND]``: an author's own rules implementation against
the conformance vectors, through the rules helper's protocol (PROTOCOL.md section 9).

The implementation is a program that answers the helper's commands (``python -m
protocol.rules`` itself does, and is the default). For each vector (docs/vectors.md) it is
sent ``boardsize``, ``set_position`` and asked ``legal_turns``, ``is_over`` and
``final_score`` (and ``legal_placements`` if it lists it), which must equal the vector's;
every illegal turn of the vector must get ``?`` to ``play``; the vector's sample turn must
get ``=``, after which ``stones`` (if listed) and ``is_over`` must match the position the
vector gives. Each disagreement is one line naming the vector (its line number), what was
sent, what was expected and what came back.

The program runs as a :class:`~referee.play.process.BotProcess` (the handshake of any bot:
``protocol_version``, ``name``, ``version``, ``list_commands``), closed and reaped on every path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.messages import Command
from referee.play.faults import BotFault, BotStartError
from referee.play.process import BotProcess

REQUIRED = ("boardsize", "set_position", "legal_turns", "play", "is_over", "final_score")
TIMEOUT = 60.0
"""Seconds for one answer (a position can have thousands of legal turns)."""
SHOWN = 5
"""Items of a list quoted in a mismatch."""


@dataclass
class VectorReport:
    """What the run found: how many vectors were tried and agreed, and every mismatch."""

    tried: int = 0
    agreed: int = 0
    mismatches: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.tried > 0 and self.agreed == self.tried


def load_vectors(path: Path) -> list[dict[str, Any]]:
    """The vectors of a JSON-lines file (blank lines skipped)."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _few(items: Sequence[str]) -> str:
    more = f" ... ({len(items)} in all)" if len(items) > SHOWN else ""
    return " ".join(items[:SHOWN]) + more


def _diff(expected: Sequence[str], got: Sequence[str]) -> str:
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    parts = [f"{len(got)} turns, expected {len(expected)}"]
    if missing:
        parts.append(f"missing {_few(missing)}")
    if extra:
        parts.append(f"not legal {_few(extra)}")
    if not missing and not extra:
        parts.append("the same turns in another order or repeated (sorted as plain strings, once each)")
    return "; ".join(parts)


async def _ask(bot: BotProcess, name: str, *args: str) -> tuple[bool, list[str]]:
    exchange = await bot.request(Command.checked_args(name, *args), TIMEOUT)
    text = exchange.response.text
    return exchange.response.ok, [line.strip() for line in text.split("\n") if line.strip()]


async def _check_vector(bot: BotProcess, v: dict[str, Any], where: str, listed: set[str]) -> list[str]:
    out: list[str] = []
    black = ",".join(v["black"]) or "-"
    white = ",".join(v["white"]) or "-"
    position = f"set_position {v['to_move']} {black} {white}"
    for command in (("boardsize", str(v["size"])), ("set_position", v["to_move"], black, white)):
        ok, got = await _ask(bot, *command)
        if not ok:
            return [f"{where}: '{' '.join(command)}' answered '? {' '.join(got)}'"]
    ok, turns = await _ask(bot, "legal_turns")
    if not ok or turns != v["turns"]:
        out.append(f"{where}: legal_turns after '{position}': {_diff(v['turns'], turns if ok else [])}")
    ok, over = await _ask(bot, "is_over")
    expected = "true" if v["game_over"] else "false"
    if over != [expected]:
        out.append(f"{where}: is_over answered {' '.join(over)!r}, expected {expected!r}")
    ok, score = await _ask(bot, "final_score")
    if score != [v["result"]]:
        out.append(f"{where}: final_score answered {' '.join(score)!r}, expected {v['result']!r}")
    if "legal_placements" in listed:
        placements = sorted({t.split(",")[0] for t in v["turns"] if t != "pass"})
        ok, got = await _ask(bot, "legal_placements")
        if got != placements:
            out.append(f"{where}: legal_placements: got {_few(got)}, expected {_few(placements)}")
    color = "black" if v["to_move"] == "b" else "white"
    for bad in v["illegal"]:
        try:
            ok, got = await _ask(bot, "play", color, bad["turn"])
        except ValueError:  # not one token (a turn with a space): not sendable as an argument
            continue
        if ok:
            sent = f"'play {color} {bad['turn']}' ({bad['kind']}: {bad['reason']})"
            out.append(f"{where}: {sent} answered '=', expected '?'")
    if not v["game_over"]:
        sample = v["sample"]
        ok, got = await _ask(bot, "play", color, sample["turn"])
        if not ok:
            out.append(
                f"{where}: 'play {color} {sample['turn']}' is legal but was answered '? {' '.join(got)}'"
            )
            return out
        if "stones" in listed:
            for side in ("black", "white"):
                _, stones = await _ask(bot, "stones", side)
                if stones != sorted(sample[side]):
                    out.append(
                        f"{where}: after 'play {color} {sample['turn']}', stones {side}: got {_few(stones)}, "
                        f"expected {_few(sorted(sample[side]))}"
                    )
        _, over = await _ask(bot, "is_over")
        expected = "true" if sample["game_over"] else "false"
        if over != [expected]:
            sent = f"'play {color} {sample['turn']}'"
            out.append(f"{where}: after {sent}, is_over answered {over!r}, expected {expected!r}")
    return out


async def run_vectors(
    command: str | Sequence[str],
    vectors: Iterable[dict[str, Any]],
    *,
    cwd: Path | None = None,
    on_mismatch: Callable[[str], None] | None = None,
) -> VectorReport:
    """Run every vector against the implementation *command*; never raises for anything the
    program does (a crash or a timeout ends the run with :attr:`VectorReport.error`)."""
    report = VectorReport()
    bot = BotProcess(command, label="rules", cwd=cwd)
    try:
        async with bot:
            missing = [c for c in REQUIRED if c not in bot.commands]
            if missing:
                report.error = f"the program does not list {', '.join(missing)} (list_commands)"
                return report
            for number, v in enumerate(vectors, 1):
                found = await _check_vector(bot, v, f"vector {number}", bot.commands)
                report.tried += 1
                if found:
                    report.mismatches.extend(found)
                    if on_mismatch is not None:
                        for line in found:
                            on_mismatch(line)
                else:
                    report.agreed += 1
    except BotStartError as exc:
        report.error = str(exc)
    except BotFault as fault:
        report.error = f"the program failed: {fault}"
    return report
