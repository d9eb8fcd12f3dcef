"""Pipelined requests with real bot processes: the opponent's ``play``, ``time_left`` and
``genmove`` go out in one write, and every fault is still found, blamed and classified as
when each command waited for the last; each deadline counts from the end of the answer
before it; a bot is charged up to the moment its answer was read.

The fake bot (tests/fake_bots/fakebot.py) gives one fault each; the small scripted bot
here adds what it lacks: a delay on chosen occurrences of chosen commands, and a bot that
stops reading its input after the handshake.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from conftest import check_gone

from protocol import commands
from protocol.messages import Command
from referee.engine import Color
from referee.play.command import BotCommand
from referee.play.faults import BotProtocolError, BotTimeout
from referee.play.game import run_game
from referee.play.player import Exchange
from referee.play.process import BotProcess
from referee.play.records import GameRecord, Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.play.watch import NOTICE

GUARD = 60
QUIT_GRACE = 10.0

# A legal random player speaking the protocol by hand. argv[1] is JSON: "delays" maps
# "command:occurrence" (0-based) to seconds to sleep before answering it; "stop_reading"
# makes it stop reading stdin after list_commands (it sleeps forever).
SCRIPTED = r"""
import json, random, sys, time
from referee.engine import Position
options = json.loads(sys.argv[1])
delays = options.get("delays", {})
rng = random.Random(options.get("seed", 1))
pos = Position.new(7)
seen = {}
out = sys.stdout
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    cid, name, args = parts[0], parts[1], parts[2:]
    count = seen.get(name, 0)
    seen[name] = count + 1
    time.sleep(delays.get(f"{name}:{count}", 0))
    text = ""
    if name == "protocol_version": text = "2"
    elif name in ("name", "version"): text = "scripted"
    elif name == "list_commands":
        text = "\n".join(["protocol_version", "name", "version", "list_commands", "boardsize",
                          "clear_board", "play", "genmove", "time_left", "quit"])
    elif name == "boardsize": pos = Position.new(int(args[0]))
    elif name == "clear_board": pos = Position.new(pos.size)
    elif name == "play": pos = pos.play(args[1])
    elif name == "genmove":
        text = pos.random_turn(rng)
        pos = pos.play(text)
    out.write(f"={cid} {text}\n\n" if text else f"={cid}\n\n")
    out.flush()
    if name == "quit":
        break
    if name == "list_commands" and options.get("stop_reading"):
        while True:
            time.sleep(3600)
"""


def scripted(label: str, **options: object) -> BotCommand:
    return BotCommand((sys.executable, "-c", SCRIPTED, json.dumps(options)), label)


def transcript(record: GameRecord, seat: int) -> list[tuple[str, str]]:
    """(direction, line) of a bot's transcript, in order."""
    text = Path(record.bots[seat].transcript or "").read_text(encoding="utf-8")
    lines = []
    for line in text.split("\n"):
        match = re.match(r"\s*[0-9.]+ ([<>!]) ?(.*)$", line)
        if match:
            lines.append((match.group(1), match.group(2)))
    return lines


def written_before(lines: list[tuple[str, str]], sent: str, received: str) -> bool:
    """Whether a command line containing ``sent`` was written before the first answer
    line containing ``received`` arrived: the two were in flight together."""
    first_sent = next(i for i, (way, line) in enumerate(lines) if way == ">" and sent in line)
    first_received = next(i for i, (way, line) in enumerate(lines) if way == "<" and received in line)
    return first_sent < first_received


def sent_together(lines: list[tuple[str, str]], first: str, then: str) -> bool:
    """Whether the first command line containing ``then`` went out after the first one
    containing ``first`` with no answer line between them: one write, answers after."""
    i = next(i for i, (way, line) in enumerate(lines) if way == ">" and first in line)
    j = next(j for j, (way, line) in enumerate(lines) if j > i and way == ">" and then in line)
    return all(way == ">" for way, _line in lines[i:j])


async def play(first: BotCommand, second: BotCommand, spec: GameSpec, tmp_path: Path) -> GameRecord:
    with trio.fail_after(GUARD):
        record = await run_game(
            first, second, spec, log_dir=tmp_path, transcripts=True, quit_grace=QUIT_GRACE
        )
    for entry in record.bots:
        check_gone(entry.pid)
    assert GameRecord.from_json(record.to_json()) == record
    return record


SPEC = GameSpec(
    size=4,
    opening=OpeningKind.EMPTY,
    time_control=TimeControl.fixed(0.5, margin=0.3),
    command_timeout=1.0,
    game_id="p",
)


# ------------------------------------------------------------------ faults while pipelined


async def test_garbage_to_play_while_genmove_is_pipelined(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    record = await play(
        fakebot("--seed", "7", label="good"),
        fakebot("--seed", "8", "--fault", "garbage", "--at", "play", label="bad"),
        SPEC,
        tmp_path,
    )
    assert record.termination is Termination.PROTOCOL and record.loser == 1, record.reason
    assert record.fault is not None and "play black" in (record.fault.command or "")
    assert record.fault.received == "'hello world'"
    lines = transcript(record, 1)
    assert written_before(lines, "genmove white", "hello world")  # it was pipelined
    assert sent_together(lines, "play black", "genmove white")
    assert record.bots[0].returncode == 0


@pytest.mark.parametrize("at", ["time_left", "genmove"])
async def test_a_crash_after_the_play_answer_is_the_crash_of_the_next_command(
    at: str, fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    record = await play(
        fakebot("--seed", "7", label="good"),
        fakebot("--seed", "8", "--fault", "crash", "--at", at, label="bad"),
        SPEC,
        tmp_path,
    )
    assert record.termination is Termination.CRASH and record.loser == 1, record.reason
    assert record.fault is not None and f"{at} white" in (record.fault.command or "")
    assert "exit status 3" in record.reason
    lines = transcript(record, 1)
    assert sent_together(lines, "play black", "genmove white")  # all three went out at once
    assert any(way == "<" and re.fullmatch(r"=[0-9]+", line) for way, line in lines)
    assert record.bots[0].returncode == 0


async def test_a_refused_play_loses_and_the_bot_answers_the_rest_then_quits(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    record = await play(
        fakebot("--seed", "7", label="good"),
        fakebot("--seed", "8", "--fault", "refuse", "--at", "play", label="bad"),
        SPEC,
        tmp_path,
    )
    assert record.termination is Termination.PROTOCOL and record.loser == 1, record.reason
    assert record.fault is not None and "play black" in (record.fault.command or "")
    # The time_left and genmove sent with the play were answered, then it was asked to quit.
    assert record.bots[1].returncode == 0
    assert [line for way, line in transcript(record, 1) if way == ">"][-1].endswith("quit")


async def test_a_stray_line_after_the_play_answer_names_both_readings(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    record = await play(
        fakebot("--seed", "7", label="good"),
        fakebot("--seed", "8", "--fault", "stray", "--at", "play", label="bad"),
        SPEC,
        tmp_path,
    )
    assert record.termination is Termination.PROTOCOL and record.loser == 1, record.reason
    assert record.fault is not None and "time_left white" in (record.fault.command or "")
    assert "a stray line, or a malformed response" in record.reason
    assert "play black" in record.reason


# ------------------------------------------------------------------ deadlines


async def test_each_deadline_counts_from_the_answer_before_it(tmp_path: Path) -> None:
    # White's first play and first genmove take 0.8 s each, one write apart: counted from
    # the write, the genmove would be late (1.6 s > 1.3 s); from the play's answer, it is not.
    spec = GameSpec(
        size=4,
        opening=OpeningKind.EMPTY,
        time_control=TimeControl.fixed(1.0, margin=0.3),
        command_timeout=2.0,
        game_id="d",
    )
    record = await play(
        scripted("good", seed=3),
        scripted("slow", seed=4, delays={"play:0": 0.8, "genmove:0": 0.8}),
        spec,
        tmp_path,
    )
    assert record.termination is Termination.SCORE, record.reason
    white_first = next(t for t in record.turns if t.color is Color.WHITE)
    # Charged from the answer before it (had it counted from the write, 1.6 s or more).
    assert white_first.seconds is not None and white_first.seconds < 1.3
    assert sent_together(transcript(record, 1), "play black", "genmove white")


@pytest.mark.parametrize(("slow", "command"), [("play:0", "play black"), ("genmove:0", "genmove white")])
async def test_a_late_answer_while_pipelined_loses_on_time(slow: str, command: str, tmp_path: Path) -> None:
    record = await play(scripted("good", seed=3), scripted("slow", seed=4, delays={slow: 5}), SPEC, tmp_path)
    assert record.termination is Termination.TIME and record.loser == 1, record.reason
    assert record.fault is not None and command in (record.fault.command or "")
    deadline = SPEC.command_timeout if slow.startswith("play") else 0.5 + 0.3
    assert record.fault.seconds is not None and record.fault.seconds >= deadline
    assert f"no complete answer within {deadline:.3f} s" in record.reason


async def test_a_bot_that_reads_no_input_loses_on_time() -> None:
    bot = BotProcess(scripted("deaf", stop_reading=True).command, label="deaf")
    with trio.fail_after(GUARD):
        async with bot:
            # Far more than a pipe holds: the write itself blocks.
            big = Command.checked_args("known_command", "x" * 300_000)
            with pytest.raises(BotTimeout, match="read no input"):
                await bot.request(big, 0.5)
            assert not bot.healthy
    check_gone(bot.pid)


# ------------------------------------------------------------------ send / receive


def assert_window(exchange: Exchange, window: float) -> None:
    """The bot is charged its window, less no more than a stall of the referee's own that
    the answer was found at the end of (a loaded machine: see referee/play/watch.py)."""
    assert 0.0 <= window - exchange.seconds <= max(exchange.late, NOTICE)


async def test_send_and_receive_in_order(fakebot: Callable[..., BotCommand]) -> None:
    bot = BotProcess.of(fakebot(label="b"))
    with trio.fail_after(GUARD):
        async with bot:
            first = bot.send(commands.name(), 5)
            second = bot.send(commands.protocol_version(), 5)
            with pytest.raises(RuntimeError, match="in the order"):
                await bot.receive(second)
            with pytest.raises(RuntimeError, match="already in flight"):
                await bot.request(commands.version(), 5)
            exchange = await bot.receive(first)
            assert exchange.response.text == "fakebot-good" and exchange.command.id == first.command.id
            # Time stamps: the bot's time runs from the later of the write and the answer
            # before, to the moment its answer was read; that is what the exchange says.
            assert first.sent_at > 0 and first.done_at >= first.sent_at
            assert_window(exchange, first.done_at - first.sent_at)
            exchange = await bot.receive(second)
            assert exchange.response.text == "2"
            assert second.start == max(second.sent_at, first.done_at)
            assert_window(exchange, second.done_at - second.start)
            assert bot.reusable
    assert bot.returncode == 0


async def test_a_carriage_return_inside_an_answer_is_a_protocol_fault() -> None:
    # It used to reach Response, whose ValueError escaped the bot's nursery.
    code = "import sys\nfor line in sys.stdin:\n    print(f'={line.split()[0]} 2\\rx\\n', flush=True)\n"
    bot = BotProcess((sys.executable, "-c", code), label="cr")
    with (
        trio.fail_after(GUARD),
        pytest.raises(BotProtocolError, match="carriage return inside a response line"),
    ):
        async with bot:
            pass
    check_gone(bot.pid)


async def test_a_deadline_earlier_than_the_last_one_still_fires() -> None:
    # The timer's alarm was left at the first request's far deadline: the second, much
    # shorter, must still time out rather than wait for the answer 5 s later.
    bot = BotProcess.of(scripted("late", delays={"final_score:0": 5}))
    with trio.fail_after(GUARD):
        async with bot:
            assert (await bot.request(commands.showboard(), 30)).response.ok
            with pytest.raises(BotTimeout, match=r"within 0\.300 s"):
                await bot.request(commands.final_score(), 0.3)
    check_gone(bot.pid)


async def test_a_deadline_later_than_the_last_one_does_not_fire_early() -> None:
    # The alarm is left at the first request's short deadline; the second takes longer
    # than that but well within its own: the early alarm must not end it.
    bot = BotProcess.of(scripted("patient", delays={"final_score:0": 0.6}))
    with trio.fail_after(GUARD):
        async with bot:
            assert (await bot.request(commands.showboard(), 0.2)).response.ok
            exchange = await bot.request(commands.final_score(), 10)
            # It waited for the answer (less any stall of the referee's, not the bot's time).
            assert exchange.response.ok and exchange.seconds >= 0.6 - max(exchange.late, NOTICE)
            assert bot.healthy
    assert bot.returncode == 0
