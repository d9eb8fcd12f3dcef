"""PROTOCOL.md section 8, the example transcript, is a real game, checked from both sides.

The block in the document is what :func:`transcript` prints: a game of the real game loop
between two SDK random bots (``python -m sample_bots.random_bot --seed 1`` and ``--seed 2``)
on the smallest board, with the commands the referee sends and the answers the bots give,
then the ``quit`` the referee sends as it closes them. The tests check that

* the block is exactly what that game produces today (in memory, the same game loop);
* the referee sends each bot exactly the block's lines when the bots are real processes
  (the transcripts of a real ``run_game``), and receives exactly the block's answers (each
  in order; a process is sent some commands together, so the two interleave differently);
* a real bot process fed the block's command lines answers exactly the block's answers.

Regenerate the block after a deliberate change: ``python tests/test_protocol_doc.py``.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import trio

from protocol import commands
from referee.play.command import BotCommand
from referee.play.game import play_game, run_game
from referee.play.memory import MemoryPlayer
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from sample_bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "protocol" / "PROTOCOL.md"
SEEDS = {"A": 1, "B": 2}
SPEC = GameSpec(size=2, opening=OpeningKind.PIE, time_control=TimeControl.fixed(1.0), game_id="example")


async def transcript() -> list[str]:
    """The example game's lines, ``A <- command`` / ``A -> answer line``, in order."""
    lines: list[tuple[str, str, str]] = []
    a, b = (
        MemoryPlayer(RandomBot(seed=SEEDS[x]), label=x, board_size=SPEC.size, transcript=lines) for x in "AB"
    )
    # The referee starts both bots at once (in trio's order, which it varies on purpose);
    # the document shows A's handshake, then B's.
    await a.start()
    await b.start()
    record = await play_game(a, b, SPEC)
    assert record.result == "W+4.5", record.reason
    for player in (a, b):  # what BotProcess.aclose sends a healthy bot
        await player.request(commands.quit(), 1.0)
    return [f"{label} {'<-' if way == '>' else '->'} {line}".rstrip() for label, way, line in lines]


def documented() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 8. Example transcript") :]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None, "no ```text block in section 8"
    return block.group(1).rstrip("\n").split("\n")


def per_bot(lines: list[str], label: str) -> list[tuple[str, str]]:
    out = []
    for line in lines:
        who, way, *rest = line.split(" ", 2)
        if who == label:
            out.append((">" if way == "<-" else "<", rest[0] if rest else ""))
    return out


async def test_the_documented_transcript_is_the_game_the_referee_plays() -> None:
    assert documented() == await transcript()


async def test_the_referee_sends_real_bot_processes_exactly_the_documented_lines(tmp_path: Path) -> None:
    bots = [
        BotCommand((sys.executable, "-m", "sample_bots.random_bot", "--seed", str(SEEDS[x])), x, ROOT)
        for x in "AB"
    ]
    with trio.fail_after(60):
        record = await run_game(bots[0], bots[1], SPEC, log_dir=tmp_path, transcripts=True, quit_grace=10.0)
    assert record.result == "W+4.5", record.reason
    doc = documented()
    for seat, label in enumerate("AB"):
        assert record.bots[seat].returncode == 0  # it quit when asked
        log = Path(record.bots[seat].transcript or "").read_text(encoding="utf-8").split("\n")
        seen = []
        for line in log:
            match = re.match(r"\s*[0-9.]+ ([<>]) ?(.*)$", line)
            if match:
                seen.append((match.group(1), match.group(2)))
        expected = per_bot(doc, label)
        for way in "><":
            assert [line for w, line in seen if w == way] == [line for w, line in expected if w == way]
        # Pipelined: the opponent's play, time_left and genmove went out before the answers.
        assert any(a[0] == b[0] == ">" and " play " in a[1] for a, b in itertools.pairwise(seen)), seen


def test_a_real_bot_process_answers_exactly_the_documented_answers() -> None:
    doc = documented()
    for label in "AB":
        sent = "".join(line + "\n" for way, line in per_bot(doc, label) if way == ">")
        answers = "".join(line + "\n" for way, line in per_bot(doc, label) if way == "<")
        bot = [sys.executable, "-m", "sample_bots.random_bot", "--seed", str(SEEDS[label])]
        done = subprocess.run(bot, input=sent, capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == answers


if __name__ == "__main__":
    print("```text")
    print("\n".join(trio.run(transcript)))
    print("```")
