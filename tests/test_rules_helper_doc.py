"""PROTOCOL.md section 9, the rules helper's transcript, is what the helper answers.

The block in the document is what :func:`transcript` prints: the commands of
:data:`COMMANDS` sent to a :class:`protocol.rules.RulesSession`, each followed by its
answer. The tests check that the block is exactly that today, and that the real helper
process (``python -m protocol.rules``), fed the block's commands in one write, answers
exactly the block's answers. Regenerate after a deliberate change:
``python tests/test_rules_helper_doc.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from protocol.rules import RulesSession

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "protocol" / "PROTOCOL.md"
COMMANDS = [
    "1 boardsize 5",
    "2 set_position b b3,c3 b1,a2",
    "3 legal_turns 4",
    "4 steal_options a1",
    "5 steal_options a1,b1>b1",
    "6 play b a1",
    "7 play b a1,b1>b1,a2>c1",
    "8 to_move",
    "9 stones black",
    "10 random_turn 7",
    "11 score",
    "12 final_score",
    "13 undo",
    "14 legal_turns 2",
    "15 boardsize 2",
    "16 setup a2 b3",
    "17 legal_placements",
    "18 play black pass",
    "19 play black a1",
    "20 legal_turns",
    "21 is_over",
    "22 showboard",
    "23 quit",
]


def transcript() -> list[str]:
    session = RulesSession()
    lines: list[str] = []
    for command in COMMANDS:
        lines.append(f"-> {command}")
        answer = session.handle_line(command)
        assert answer is not None
        lines.extend(f"<- {line}".rstrip() for line in answer[:-1].split("\n"))
    return lines


def documented() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 9. The rules helper") :]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None, "no ```text block in section 9"
    return block.group(1).rstrip("\n").split("\n")


def test_the_documented_transcript_is_what_the_helper_answers() -> None:
    assert documented() == transcript()


def test_the_helper_process_answers_the_documented_commands_exactly() -> None:
    doc = documented()
    sent = "".join(line[3:] + "\n" for line in doc if line.startswith("-> "))
    answers = "".join(line[3:] + "\n" if line != "<-" else "\n" for line in doc if line.startswith("<-"))
    done = subprocess.run(
        [sys.executable, "-m", "protocol.rules"],
        input=sent,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # (the document drops the space after '=22' where showboard's diagram starts on a new line)
    assert "\n".join(line.rstrip() for line in done.stdout.split("\n")) == answers


if __name__ == "__main__":
    print("```text")
    print("\n".join(transcript()))
    print("```")
