"""The rules helper (protocol/rules.py): every command against the engine, bad input, and
the real process over pipes.

The helper is what a bot in another language asks for the rules, so each answer must be
the engine's own: the same legal turns, the same reasons, the same random turn for a seed.
"""

from __future__ import annotations

import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.rules import RulesSession
from referee.engine import Position, TurnError

ROOT = Path(__file__).resolve().parent.parent
# The example of rules.md: Black b3, c3; White b1, a2; Black places a1 and must steal twice.
BLACK, WHITE = ["b3", "c3"], ["b1", "a2"]


def ask(session: RulesSession, line: str) -> tuple[bool, list[str]]:
    """Send one line; (ok, the answer's lines) with the '= '/'? ' mark taken off."""
    answer = session.handle_line(line)
    assert answer is not None and answer.endswith("\n\n"), answer
    head, _, rest = answer[:-2].partition("\n")
    assert head[0] in "=?", answer
    first = head[1:].lstrip("0123456789").removeprefix(" ")
    lines = ([first] if first else []) + (rest.split("\n") if rest else [])
    return head[0] == "=", lines


def ok(session: RulesSession, line: str) -> list[str]:
    good, lines = ask(session, line)
    assert good, (line, lines)
    return lines


def refused(session: RulesSession, line: str) -> str:
    good, lines = ask(session, line)
    assert not good, (line, lines)
    assert len(lines) == 1
    return lines[0]


def example() -> tuple[RulesSession, Position]:
    s = RulesSession()
    ok(s, "boardsize 5")
    ok(s, f"set_position b {','.join(BLACK)} {','.join(WHITE)}")
    return s, Position.from_stones(5, BLACK, WHITE, "b")


def test_handshake_and_the_command_list() -> None:
    s = RulesSession()
    assert ok(s, "1 protocol_version") == ["2"]
    assert ok(s, "name") == ["vastuz-rules"]
    listed = ok(s, "list_commands")
    for command in (
        "boardsize", "clear_board", "setup", "set_position", "play", "undo", "legal_placements",
        "legal_turns", "random_turn", "steal_options", "to_move", "is_over", "final_score", "score",
        "stones", "showboard", "quit",
    ):  # fmt: skip
        assert command in listed
        assert ok(s, f"known_command {command}") == ["true"]
    assert ok(s, "known_command genmove") == ["false"]
    assert s.handle_line("7 name") == "=7 vastuz-rules\n\n"  # the id is echoed
    assert s.handle_line("   # a comment") is None


def test_the_questions_are_answered_as_the_engine_answers_them() -> None:
    s, pos = example()
    assert ok(s, "legal_turns") == pos.legal_turns()
    assert "a1,b1>b1,a2>c1" in pos.legal_turns()
    assert ok(s, "legal_turns 3") == pos.legal_turns()[:3]
    assert ok(s, "legal_turns 0") == []
    assert ok(s, "legal_placements") == pos.legal_placements()
    assert ok(s, "to_move") == ["black"]
    assert ok(s, "is_over") == ["false"]
    assert ok(s, "final_score") == [pos.result()]
    assert ok(s, "score") == [" ".join(f"{x:g}" for x in pos.score())]
    assert ok(s, "stones white") == pos.stones("white")
    assert ok(s, "showboard") == [row for row in pos.diagram().split("\n") if row.strip()]
    for seed in range(20):
        assert ok(s, f"random_turn {seed}") == [pos.random_turn(random.Random(seed))]
    assert ok(s, "legal_turns") == pos.legal_turns()  # random_turn changed nothing


def test_steal_options_walk_a_turn_step_by_step() -> None:
    s, pos = example()
    assert ok(s, "steal_options a1") == ["b1>b1"]
    assert ok(s, "steal_options a1,b1>b1") == ["a2>c1"]  # re-judged after the steal
    assert ok(s, "steal_options a1,b1>b1,a2>c1") == []  # complete
    assert ok(s, "steal_options a4") == []  # a turn with no steal
    for turn in pos.legal_turns():  # every prefix of every turn, against the TurnBuilder
        head, *steals = turn.split(",")
        builder = pos.begin_turn(head)
        for k in range(len(steals) + 1):
            expected = sorted(f"{x}>{y}" for x, y in builder.legal_steals())
            assert ok(s, f"steal_options {','.join([head, *steals[:k]])}") == expected
            if k < len(steals):
                builder.steal(*steals[k].split(">"))
    assert refused(s, "steal_options a1,c3>c3").startswith("illegal move: steal #1 c3>c3: ")
    assert refused(s, "steal_options b3") == "illegal move: placement b3 is occupied"
    assert refused(s, "steal_options a1,b1") == "bad notation: steal 'b1' is not FROM>TO"
    assert refused(s, "steal_options pass") == "a pass has no steals"


def test_play_validates_with_the_engines_reason_and_undo_goes_back() -> None:
    s, pos = example()
    for bad in ("a1", "a1,b1>b1", "b3", "a1,a2>c1", "pass", "a1,b1>b1,a2>c1,c3>d1", "a1,"):
        with pytest.raises(TurnError) as caught:
            pos.play(bad)
        kind = "bad notation" if type(caught.value).__name__ == "BadNotation" else "illegal move"
        assert refused(s, f"play b {bad}") == f"{kind}: {caught.value}"
    assert refused(s, "play b z99") == "bad notation: no point 'z99' on a size-5 board"
    assert refused(s, "play w a4") == "illegal move: it is black's turn, not white's"
    assert ok(s, "legal_turns") == pos.legal_turns()  # the refusals changed nothing
    assert ok(s, "play black A1,B1>B1,A2>C1") == []  # any case
    after = pos.play("a1,b1>b1,a2>c1")
    assert ok(s, "stones black") == after.stones("black") and ok(s, "to_move") == ["white"]
    assert ok(s, "legal_turns") == after.legal_turns()
    assert ok(s, "undo") == []
    assert ok(s, "legal_turns") == pos.legal_turns()
    assert ok(s, "undo") == []  # the set_position
    assert ok(s, "stones black") == []
    assert refused(s, "undo") == "nothing to undo"


def test_a_whole_game_with_setup_pass_and_the_end() -> None:
    s = RulesSession()
    ok(s, "boardsize 2")
    assert refused(s, "setup a1 a1").startswith("illegal setup: ")
    ok(s, "setup a2 b3")
    pos = Position.new(2).setup("a2", "b3")
    rng = random.Random(5)
    while not pos.is_over:
        assert ok(s, "legal_turns") == pos.legal_turns()
        turn = rng.choice(pos.legal_turns())
        ok(s, f"play {pos.to_move.value} {turn}")
        pos = pos.play(turn)
    assert ok(s, "is_over") == ["true"]
    assert ok(s, "legal_turns") == [] and ok(s, "legal_placements") == []
    assert ok(s, "final_score") == [pos.result()]
    assert refused(s, "random_turn") == "the game is over: there is no turn to make"
    assert (
        refused(s, f"play {pos.to_move.value} pass")
        == "illegal move: the game is over: no turn may be played"
    )
    ok(s, "clear_board")
    assert ok(s, "stones b") == [] and refused(s, "undo") == "nothing to undo"


def test_bad_input_gets_a_question_mark_never_a_crash() -> None:
    s = RulesSession(seed=1)
    assert refused(s, "boardsize 14") == "unacceptable size 14: sizes 2 to 13 are played"
    assert refused(s, "boardsize x") == "boardsize: not an integer: 'x'"
    assert refused(s, "legal_turns -1") == "LIMIT: expected a whole number >= 0, got '-1'"
    assert refused(s, "random_turn x") == "SEED: expected a whole number >= 0, got 'x'"
    assert refused(s, "play purple a1") == "not a colour: 'purple' (expected b, black, w or white)"
    assert refused(s, "play b") == "play takes 2 argument(s) (COLOR TURN), got 1"
    assert refused(s, "set_position b a1 a1") == "bad position: point a1 holds both a black and a white stone"
    assert refused(s, "set_position b q1 -") == "bad position: no point 'q1' on a size-7 board"
    assert refused(s, "genmove b") == "unknown command"
    rng = random.Random(3)
    words = [
        "play",
        "b",
        "w",
        "setup",
        "set_position",
        "steal_options",
        "legal_turns",
        "a1",
        "g7",
        ",",
        ">",
        "-",
    ]
    for _ in range(3000):
        line = " ".join(
            rng.choice(words + [rng.choice(string.printable)]) for _ in range(rng.randrange(1, 5))
        )
        answer = s.handle_line(line)
        assert answer is None or ("internal error" not in answer and answer.endswith("\n\n")), (line, answer)


def test_the_helper_process_answers_pipelined_commands_in_order() -> None:
    commands = "".join(
        f"{n} {c}\n"
        for n, c in enumerate(
            ["boardsize 5", "set_position b b3,c3 b1,a2", "legal_turns 2", "play b a1", "play b a4", "quit"],
            1,
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "protocol.rules"], input=commands, capture_output=True, text=True, cwd=ROOT,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "=1\n\n=2\n\n=3 a1,b1>b1,a2>c1\na3\n\n"
        "?4 illegal move: missing compulsory steal after 0 steal(s), e.g. b1>b1 (1 legal steal open)\n\n"
        "=5\n\n=6\n\n"
    )
