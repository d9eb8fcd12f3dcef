"""The bot SDK (protocol.bot): a real bot process driven by scripted sessions, plus the
session logic in-process where a process adds nothing."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.bot import Bot, BotSession, run
from protocol.framing import LineBuffer
from protocol.messages import Response, ResponseParser, check_idle_line
from referee.engine import Color, Position, TurnError

BOT_SCRIPT = Path(__file__).with_name("sdk_scripted_bot.py")


def run_bot(stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(BOT_SCRIPT), *args],
        input=stdin,
        capture_output=True,
        timeout=30,
        check=False,
    )


def parse_responses(stdout: bytes, ids: list[int | None]) -> list[Response]:
    """Read exactly one response per expected id, in order, with the referee's own
    strict parser; anything left over must be harmless blank lines."""
    lines = iter(LineBuffer().feed(stdout))
    responses = []
    for expected in ids:
        parser = ResponseParser(expected)
        for line in lines:
            response = parser.feed(line)
            if response is not None:
                responses.append(response)
                break
        else:
            raise AssertionError(f"output ended before the response with id {expected}")
    for line in lines:
        check_idle_line(line)
    return responses


def board_text(position: Position) -> str:
    return "\n" + "\n".join(r for r in position.diagram().split("\n") if r.strip())


def engine_error(position: Position, turn: str) -> str:
    with pytest.raises(TurnError) as info:
        position.play(turn)
    return str(info.value)


def test_full_scripted_session_through_a_real_process() -> None:
    script = (
        b"# the referee may comment\n"
        b"\n"
        b"1 protocol_version\r\n"
        b"2 name   # trailing comment\n"
        b"\t3\tversion\n"
        b"4 boardsize 5\n"
        b"5 clear_board\n"
        b"6 frobnicate 1 2\n"
        b"7 setup c3 e5\n"
        b"8 play black zz9\n"
        b"9 play black c3\n"
        b"10 showboard\n"
        b"11 play white d4\n"
        b"12 play b D4\r\n"
        b"   \n"
        b"13 genmove white\n"
        b"14 showboard\n"
        b"15 final_score\n"
        b"known_command genmove\n"
        b"16 known_command frobnicate\n"
        b"17 quit\n"
        b"18 name\n"  # after quit: never read
    )
    ids: list[int | None] = [*range(1, 16), None, 16, 17]
    proc = run_bot(script, "random", "7")
    assert proc.returncode == 0, proc.stderr.decode()
    r = dict(zip([*range(1, 16), "kc", 16, 17], parse_responses(proc.stdout, ids), strict=True))

    assert r[1] == Response(True, 1, "2")
    assert r[2] == Response(True, 2, "scripted")
    assert r[3] == Response(True, 3, "1.0")
    assert r[4].ok and r[5].ok
    assert r[6] == Response(False, 6, "unknown command")
    assert r[7] == Response(True, 7, "")
    after_setup = Position.new(5).setup("c3", "e5")

    # illegal or unparseable plays are refused and change nothing
    assert r[8] == Response(False, 8, f"illegal move: {engine_error(after_setup, 'zz9')}")
    assert r[9] == Response(False, 9, f"illegal move: {engine_error(after_setup, 'c3')}")
    assert "occupied" in r[9].text
    assert r[10] == Response(True, 10, board_text(after_setup))
    assert r[11] == Response(False, 11, "illegal move: it is black's turn, not white's")
    assert r[12] == Response(True, 12, "")
    after_d4 = after_setup.play("d4")

    # the bot's own turn is legal, and its board follows it
    assert r[13].ok
    turn = r[13].text
    assert turn in after_d4.legal_turns()
    after_genmove = after_d4.play(turn)
    assert r[14] == Response(True, 14, board_text(after_genmove))
    assert r[15] == Response(True, 15, after_genmove.result())
    assert r["kc"] == Response(True, None, "true")
    assert r[16] == Response(True, 16, "false")
    assert r[17] == Response(True, 17, "")
    assert b"thinking about" in proc.stderr  # the bot's print() went to stderr


def test_end_of_input_without_quit_exits_cleanly() -> None:
    proc = run_bot(b"1 name\n2 boardsize 3\n3 clear_board")  # last line unterminated
    assert proc.returncode == 0, proc.stderr.decode()
    assert parse_responses(proc.stdout, [1, 2]) == [
        Response(True, 1, "scripted"),
        Response(True, 2, ""),
    ]


def test_over_long_and_undecodable_lines_get_an_error_and_the_bot_resyncs() -> None:
    script = b"1 name " + b"x" * 100_000 + b"\n\xff\xfe bad bytes\n2 name\n3 quit\n"
    proc = run_bot(script)
    assert proc.returncode == 0, proc.stderr.decode()
    long_line, bad_bytes, name, bye = parse_responses(proc.stdout, [None, None, 2, 3])
    assert not long_line.ok and long_line.text.startswith("line longer than 65536 bytes")
    assert not bad_bytes.ok and bad_bytes.text.startswith("line is not valid UTF-8")
    assert name == Response(True, 2, "scripted")
    assert bye == Response(True, 3, "")


def test_exception_in_the_bot_is_a_question_mark_not_a_crash() -> None:
    proc = run_bot(b"1 boardsize 3\n2 clear_board\n3 genmove b\n4 name\n", "raise")
    assert proc.returncode == 0
    *_, gen, name = parse_responses(proc.stdout, [1, 2, 3, 4])
    assert gen == Response(False, 3, "RuntimeError: boom in choose_turn")
    assert name == Response(True, 4, "scripted")
    assert b"Traceback" in proc.stderr and b"boom in choose_turn" in proc.stderr


def test_an_illegal_turn_from_the_bot_is_sent_anyway_with_a_warning() -> None:
    script = b"1 boardsize 3\n2 clear_board\n3 setup a1 b1\n4 genmove b\n5 showboard\n"
    proc = run_bot(script, "illegal")
    assert proc.returncode == 0
    *_, gen, board = parse_responses(proc.stdout, [1, 2, 3, 4, 5])
    assert gen == Response(True, 4, "a1")
    assert board.text == board_text(Position.new(3).setup("a1", "b1"))  # not applied
    assert b"warning: choose_turn returned 'a1', which is not legal here" in proc.stderr


# ---------------------------------------------------------------- in-process details


class RecordingBot(Bot):
    """Plays the first legal turn and records what the SDK passed it."""

    name = "recorder"
    version = "2"

    def __init__(self, reply: str | None = None) -> None:
        super().__init__(seed=3)
        self.reply = reply
        self.calls: list[tuple[Color, float | None]] = []
        self.new_games = 0

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        self.calls.append((position.to_move, time_left))
        return self.reply if self.reply is not None else position.legal_turns()[0]

    def on_new_game(self) -> None:
        self.new_games += 1


def talk(bot: Bot, *lines: str) -> list[str]:
    """Run the real loop over in-memory streams; return each response's wire text."""
    out = io.BytesIO()
    run(bot, io.BytesIO("".join(line + "\n" for line in lines).encode()), out, log=io.StringIO())
    return [chunk + "\n\n" for chunk in out.getvalue().decode().split("\n\n") if chunk]


def test_time_left_reaches_choose_turn_for_the_side_to_move() -> None:
    bot = RecordingBot()
    talk(
        bot,
        "boardsize 3",
        "clear_board",
        "setup a1 e5",
        "genmove b",
        "time_settings 10 0.5 0",
        "time_left white 3.25 0",
        "time_left black 9.5 0",
        "genmove w",
        "genmove b",
        "clear_board",
        "setup a1 e5",
        "genmove b",
    )
    assert bot.calls == [
        (Color.BLACK, None),  # never sent
        (Color.WHITE, 3.25),
        (Color.BLACK, 9.5),
        (Color.BLACK, None),  # a new game forgets the old clock
    ]
    assert bot.new_games == 2


def test_pass_is_answered_without_asking_the_bot() -> None:
    bot = RecordingBot()
    answers = talk(
        bot,
        "boardsize 2",
        "clear_board",
        "setup c2 b2",
        "play b b3,b2>a2",
        "play w b1,c2>a1,a2>b2",
        "play b c2",
        "play w a2",
        "1 genmove b",
        "2 genmove w",
        "3 final_score",
    )
    assert answers[-3:] == ["=1 pass\n\n", "=2 c3\n\n", "=3 W+4.5\n\n"]
    assert bot.calls == [(Color.WHITE, None)]


def test_resign_is_passed_through_and_the_board_is_unchanged() -> None:
    bot = RecordingBot(reply="Resign")
    session = BotSession(bot, log=io.StringIO())
    for line in ["boardsize 3", "clear_board", "setup a1 e5"]:
        session.handle_line(line)
    before = session.position
    assert session.handle_line("4 genmove b") == "=4 resign\n\n"
    assert session.position == before


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("1 boardsize 14", "?1 unacceptable size 14: sizes 2 to 13 are played\n\n"),
        ("2 boardsize 1", "?2 unacceptable size 1: sizes 2 to 13 are played\n\n"),
        ("3 boardsize x", "?3 boardsize: not an integer: 'x'\n\n"),
        ("4 play b", "?4 play takes 2 argument(s) (COLOR TURN), got 1\n\n"),
        ("5 genmove red", "?5 not a colour: 'red' (expected b, black, w or white)\n\n"),
        ("6 genmove w", "?6 genmove white: it is black's turn, not white's\n\n"),
        ("7 time_left b soon 0", "?7 not a number of seconds: 'soon'\n\n"),
        ("8 setup a1 a1", "?8 illegal setup: setup puts both stones on a1: the two points must differ\n\n"),
        ("9", "? command id 9 is not followed by a command name\n\n"),
        ("10 known_command time_left", "=10 true\n\n"),
        ("11 choose_color", "=11 black\n\n"),
        ("# nothing", None),
    ],
)
def test_session_answers(line: str, answer: str | None) -> None:
    assert BotSession(RecordingBot(), log=io.StringIO()).handle_line(line) == answer


def test_default_setup_is_two_distinct_points_applied_to_the_board() -> None:
    session = BotSession(RecordingBot(), log=io.StringIO())
    session.handle_line("boardsize 4")
    session.handle_line("clear_board")
    answer = session.handle_line("5 gensetup")
    assert answer is not None and answer.startswith("=5 ")
    black, white = answer[3:].split()
    assert session.position == Position.new(4).setup(black, white)


def test_text_that_would_break_the_framing_becomes_an_error() -> None:
    bot = RecordingBot()
    bot.name = "two\n\nlines"
    answer = BotSession(bot, log=io.StringIO()).handle_line("1 name")
    assert answer is not None and answer.startswith("?1 response text would break the framing")


def test_list_commands_covers_the_protocol() -> None:
    session = BotSession(RecordingBot(), log=io.StringIO())
    answer = session.handle_line("list_commands")
    assert answer is not None
    listed = set(answer[2:-2].split("\n"))
    required = {
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "boardsize",
        "clear_board",
        "setup",
        "play",
        "genmove",
        "gensetup",
        "choose_color",
        "quit",
        "time_settings",
        "time_left",
        "showboard",
        "final_score",
    }
    assert listed == required


# ------------------------------------------------------ the transcript in PROTOCOL.md

PROTOCOL_MD = Path(__file__).resolve().parent.parent / "protocol" / "PROTOCOL.md"


def transcript_lines() -> list[tuple[str, str, str]]:
    """(bot, direction, text) for every line of the example transcript's code block."""
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = text.split("## 8. Example transcript", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    out = []
    for line in block.splitlines():
        who, arrow, *rest = line.split(" ", 2)
        assert who in ("A", "B") and arrow in ("<-", "->"), line
        out.append((who, arrow, rest[0] if rest else ""))
    return out


class ReplayBot(Bot):
    """Makes exactly the choices the transcript shows, so the SDK can be checked
    against every other line of it."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        super().__init__()
        self.name = answers["name"][0]
        self.version = answers["version"][0]
        self.turns = [t for t in answers.get("genmove", []) if t != "pass"]
        self.setups = answers.get("gensetup", [])
        self.colors = answers.get("choose_color", [])

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        return self.turns.pop(0)

    def choose_setup(self, position: Position) -> tuple[str, str]:
        black, white = self.setups.pop(0).split()
        return black, white

    def choose_color(self, position: Position) -> Color:
        return Color.parse(self.colors.pop(0))


def test_protocol_md_transcript_is_a_real_game() -> None:
    lines = transcript_lines()
    # What each bot answered to each command (first answer line, without the "=id ").
    answers: dict[str, dict[str, list[str]]] = {"A": {}, "B": {}}
    pending: dict[str, str] = {}
    for who, arrow, text in lines:
        if arrow == "<-":
            pending[who] = parse_command_name(text)
        elif text.startswith("="):
            answers[who].setdefault(pending[who], []).append(text.partition(" ")[2])

    log = io.StringIO()
    bots = {who: ReplayBot(answers[who]) for who in "AB"}
    sessions = {who: BotSession(bots[who], log=log) for who in "AB"}
    got: dict[str, list[str]] = {"A": [], "B": []}
    last_command: dict[str, str] = {}
    turns_made: list[str] = []
    turns_relayed: list[str] = []
    for who, arrow, text in lines:
        if arrow == "<-":
            assert not got[who], f"{who} had unread output before {text!r}"
            answer = sessions[who].handle_line(text)
            assert answer is not None
            got[who] = [row.rstrip() for row in answer[:-1].split("\n")]
            last_command[who] = parse_command_name(text)
            if last_command[who] == "play":
                turns_relayed.append(text.split()[3])
        else:
            assert got[who], f"{who} wrote {text!r} unasked"
            assert got[who].pop(0) == text
            if last_command[who] == "genmove" and text.startswith("="):
                turns_made.append(text.partition(" ")[2])

    assert log.getvalue() == ""  # no warning: every turn the bots chose was legal
    assert all(not bot.turns for bot in bots.values())
    assert turns_made == turns_relayed  # each turn reached the other bot unchanged
    assert sessions["A"].position == sessions["B"].position
    assert sessions["A"].position.is_over
    assert sessions["A"].position.size == 2


def parse_command_name(line: str) -> str:
    words = line.split()
    return words[1] if words[0].isdigit() else words[0]


def test_protocol_md_documents_every_command_the_sdk_answers() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    session = BotSession(RecordingBot(), log=io.StringIO())
    missing = [name for name in session.commands if f"| `{name}" not in text]
    assert missing == []
