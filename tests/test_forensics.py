"""Failure forensics (issue 26, item 4): a game that ends in a fault keeps, in its record,
the last protocol lines of both bots and the end of the faulting bot's stderr, with no log
files and no transcripts; ``vastuz show`` prints them.

The ring's reading is tested as a pure function; everything else with real fake-bot
processes that crash (saying why on stderr first), hang, or answer garbage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from referee.play.command import BotCommand
from referee.play.forensics import LINE_CHARS, RECENT_LINES, protocol_lines
from referee.play.game import run_game
from referee.play.logs import Tail
from referee.play.records import GameRecord, Termination, parse_line
from referee.play.spec import GameSpec, OpeningKind, TimeControl

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
SPEC = GameSpec(
    size=4, opening=OpeningKind.PIE, time_control=TimeControl.fixed(0.5, margin=0.3), command_timeout=2.0
)


def bot(label: str, *args: str) -> BotCommand:
    return BotCommand((sys.executable, str(FAKEBOT), *args), label)


def vastuz(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


# ---------------------------------------------------------------------------- the ring, pure


def test_the_ring_reads_as_lines_in_order_with_reads_joined() -> None:
    ring: list[str | bytes] = ["1 name", b"=1 fake", b"bot\n\n", "2 genmove black", b"=2 d4\n", b"\n=3 x"]
    assert protocol_lines(ring) == ["> 1 name", "< =1 fakebot", "< ", "> 2 genmove black", "< =2 d4", "< ",
                                    "<? =3 x"]  # fmt: skip
    assert protocol_lines(ring, limit=2) == ["< ", "<? =3 x"]


def test_long_lines_are_cut_saying_so_and_bad_utf8_is_replaced() -> None:
    lines = protocol_lines([b"=1 " + b"x" * 1000 + b"\n", b"=2 \xff\xfe\n"])
    assert lines[0] == "< =1 " + "x" * (LINE_CHARS - 3) + f"... [{1003 - LINE_CHARS} more characters]"
    assert lines[1] == "< =2 \ufffd\ufffd"


def test_the_stderr_tail_starts_at_a_whole_line_when_cut() -> None:
    tail = Tail(size=32)
    tail.add(b"first line that will be cut\nsecond\n")
    tail.add(b"third\n")
    assert tail.text() == "...\nsecond\nthird"
    fresh = Tail()
    assert fresh.text() is None
    fresh.add(b"  \n\n")
    assert fresh.text() is None


# ---------------------------------------------------------------------------- real processes


async def _game(fault: str, *extra: str) -> GameRecord:
    return await run_game(bot("A"), bot("B", "--fault", fault, "--after", "2", *extra), SPEC)


@pytest.mark.parametrize(
    ("fault", "termination"),
    [("crash-loud", Termination.CRASH), ("hang", Termination.TIME), ("garbage", Termination.PROTOCOL)],
)
async def test_a_faulted_game_keeps_both_bots_last_lines_without_logs(
    fault: str, termination: Termination, tmp_path: Path
) -> None:
    with trio.fail_after(30):
        record = await _game(fault)
    assert record.termination is termination and record.fault is not None and record.fault.seat == 1
    assert record.bots[1].stderr_log is None and record.bots[1].transcript is None  # no logs at all
    forensics = record.forensics
    assert forensics is not None and len(forensics.lines) == 2
    for lines in forensics.lines:
        assert 0 < len(lines) <= RECENT_LINES
        assert all(line.startswith(("> ", "< ", "<? ")) for line in lines)
    # The faulting bot's last command sent is the one the fault names; its opponent's last
    # lines are the turn it made before (the answer to the genmove sent to it).
    sent_to_b = [line[2:] for line in forensics.lines[1] if line.startswith("> ")]
    assert sent_to_b[-1] == record.fault.command
    last_turn = record.turns[-1]
    assert any(line.endswith(f" {last_turn.turn}") and line.startswith("< =") for line in forensics.lines[0])
    if fault == "crash-loud":
        assert forensics.stderr is not None
        assert forensics.stderr.splitlines()[-1] == "RuntimeError: fakebot: out of ideas"
        assert forensics.stderr.splitlines()[0] == "fakebot: thinking hard"
    if fault == "garbage":
        assert forensics.lines[1][-2:] == ["< hello world", "< "]
    # The record line carries them, and reads back equal.
    line = record.to_json()
    assert json.loads(line)["forensics"]["lines"] == forensics.lines
    assert parse_line(line).forensics == forensics
    # vastuz show prints them, from a results file.
    results = tmp_path / "results.jsonl"
    results.write_text(line + "\n")
    shown = vastuz("show", str(results), "--game", record.game_id)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.splitlines()
    at = out.index(
        "forensics: what the referee last exchanged with each bot before the fault (> sent, < received)"
    )
    assert out[at + 1] == f"  seat 0 A, its last {len(forensics.lines[0])} protocol lines:"
    assert f"    > {record.fault.command}" in out
    if fault == "crash-loud":
        assert out[-5:] == [
            "  seat 1 B, the end of its stderr:",
            "    fakebot: thinking hard",
            "    Traceback (most recent call last):",
            '      File "fakebot.py", line 1, in genmove',
            "    RuntimeError: fakebot: out of ideas",
        ]
    else:
        assert out[-1] == "  seat 1 B wrote nothing to stderr"


async def test_games_without_a_fault_or_that_a_bot_resigned_keep_nothing() -> None:
    with trio.fail_after(30):
        clean = await run_game(bot("A"), bot("B"), SPEC)
        resigned = await _game("resign")
    assert clean.termination is Termination.SCORE and resigned.termination is Termination.RESIGN
    for record in (clean, resigned):
        assert record.forensics is None and "forensics" not in json.loads(record.to_json())


async def test_a_reused_process_keeps_only_this_games_lines() -> None:
    """Between games the pool switches a bot's logs; the lines start afresh with them."""
    from referee.play.game import play_game
    from referee.play.process import BotProcess

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            first = BotProcess.of(bot("A"))
            # B chooses the colour in every game: the first choice passes, the second crashes.
            second = BotProcess.of(bot("B", "--fault", "crash-loud", "--at", "choose_color", "--after", "1"))
            try:
                done = await play_game(first, second, SPEC, start_in=nursery)
                assert done.termination is Termination.SCORE
                first.set_logs(None, None)
                second.set_logs(None, None)
                record = await play_game(first, second, SPEC, start_in=nursery)
            finally:
                await first.aclose()
                await second.aclose()
    assert record.termination is Termination.CRASH and record.forensics is not None
    lines = record.forensics.lines[1]
    assert "protocol_version" not in " ".join(lines)  # the handshake was the first game's
    assert next(line for line in lines if line.startswith("> ")).endswith("boardsize 4")


def test_an_old_record_without_forensics_still_loads() -> None:
    lines = (ROOT / "tests" / "data" / "v0.1" / "results.jsonl").read_text().splitlines()
    assert lines
    for text in lines:
        record = parse_line(text)
        assert record.forensics is None
        assert "forensics" not in json.loads(record.to_json())
