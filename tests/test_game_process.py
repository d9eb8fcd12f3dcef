"""Whole games between real fake-bot processes: a few opening modes and clocks end to end,
and the process fault matrix (hangs, exits, closed pipes, bad bytes on a real pipe): each
gives the right loser and reason, the other bot is unharmed, the game is recorded, and no
process is left behind. The game logic's side of every fault kind, and every opening and
clock path, is tested on in-memory players in test_game.py."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from conftest import check_gone, fakebot_argv
from games import check_scored, replay

from referee.engine import Color
from referee.play.command import BotCommand
from referee.play.game import play_game, run_game
from referee.play.process import BotProcess
from referee.play.records import GameRecord, Outcome, Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.tournament.config.openings import check_opening

GUARD = 30
QUIT_GRACE = 10.0  # a clean exit after quit is asserted: allow a slow, loaded machine
PER_MOVE = TimeControl.fixed(0.5, margin=0.3)
FISCHER = TimeControl.fischer(3.0, 0.1, margin=0.3)


# ------------------------------------------------------------------ full games


@pytest.mark.parametrize(
    ("opening", "clock", "size"),
    [
        (OpeningKind.PIE, PER_MOVE, 4),
        (OpeningKind.EMPTY, FISCHER, 4),
        (OpeningKind.RANDOM, PER_MOVE, 4),
    ],
)
async def test_full_game(
    opening: OpeningKind, clock: TimeControl, size: int, fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    setup = None
    if opening is OpeningKind.RANDOM:
        setup = check_opening(size, "a1", "d4", ["b2"])
    elif opening is OpeningKind.BOOK:
        setup = check_opening(size, "c3", "b2")
    spec = GameSpec(size=size, opening=opening, setup=setup, time_control=clock, game_id="full")
    with trio.fail_after(GUARD):
        record = await run_game(
            fakebot("--seed", "3", label="A"),
            fakebot("--seed", "4", "--minimal", label="B"),
            spec,
            log_dir=tmp_path,
            quit_grace=QUIT_GRACE,
        )
    check_scored(record)
    assert {record.black, record.white} == {0, 1}
    if opening is OpeningKind.PIE:
        assert record.setup is not None and record.setup.by == 0
        assert record.choice is not None and record.choice.by == 1
        assert record.seat_of(record.choice.color) == 1
    else:
        assert (record.black, record.white) == (0, 1)
    if setup is not None:
        assert record.setup is not None and record.setup.by is None
        assert [t.turn for t in record.turns if t.opening] == list(setup.turns)
    fischer = clock.kind.value == "fischer"
    assert all((t.left is not None) == fischer for t in record.turns if not t.opening)
    a, b = record.bots
    assert a.final_score == record.result and b.final_score is None  # B lists no final_score
    assert a.stats.requests > 0 and a.stats.thinking_seconds <= a.stats.bot_seconds
    assert record.referee_overhead_us is not None
    assert a.returncode == 0 and b.returncode == 0  # both quit when asked
    # The log is named; a bot that wrote nothing to stderr leaves no empty file.
    assert a.stderr_log is not None and not Path(a.stderr_log).exists()
    check_gone(a.pid)
    check_gone(b.pid)


async def test_play_game_reuses_started_bots() -> None:
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    with trio.fail_after(GUARD):
        async with (
            BotProcess(fakebot_argv("--seed", "5"), label="A") as a,
            BotProcess(fakebot_argv("--seed", "6"), label="B") as b,
        ):
            first = await play_game(a, b, spec)
            second = await play_game(b, a, spec)
    for record in (first, second):
        check_scored(record)
        assert record.bots[0].returncode is None  # play_game does not own the processes
    assert [e.label for e in second.bots] == ["B", "A"]
    check_gone(a.pid)
    check_gone(b.pid)


# ------------------------------------------------------------------ the fault matrix
# Faults only a real process can show (framing on real pipes, exits, hangs); the game
# logic's side of every fault kind is tested on in-memory players in test_game.py.

# (fault args, seat of the faulty bot, opening, termination, text expected in the reason)
FAULTS = [
    (["--fault", "hang"], 1, OpeningKind.EMPTY, Termination.TIME, "genmove white"),
    (["--fault", "slow", "--delay", "3"], 0, OpeningKind.EMPTY, Termination.TIME, "no complete answer"),
    (["--fault", "no-blank"], 1, OpeningKind.PIE, Termination.TIME, "received '="),
    (["--fault", "crash", "--after", "1"], 0, OpeningKind.PIE, Termination.CRASH, "exit status 3"),
    (["--fault", "close-stdout"], 1, OpeningKind.EMPTY, Termination.CRASH, "closed its output"),
    (["--fault", "garbage"], 0, OpeningKind.EMPTY, Termination.PROTOCOL, "'hello world'"),
    (["--fault", "wrong-id"], 1, OpeningKind.EMPTY, Termination.PROTOCOL, "wrong id"),
    (["--fault", "long-line"], 0, OpeningKind.PIE, Termination.PROTOCOL, "line longer than 65536 bytes"),
    (["--fault", "bad-utf8"], 1, OpeningKind.PIE, Termination.PROTOCOL, "not valid UTF-8"),
    (["--fault", "stray", "--at", "play"], 1, OpeningKind.EMPTY, Termination.PROTOCOL, "stray line"),
    (["--fault", "refuse", "--at", "play"], 1, OpeningKind.EMPTY, Termination.PROTOCOL, "play black"),
    (["--fault", "illegal-occupied"], 1, OpeningKind.PIE, Termination.ILLEGAL, "is occupied"),
]


@pytest.mark.parametrize(
    ("args", "seat", "opening", "termination", "fragment"), FAULTS, ids=[" ".join(f[0][1:]) for f in FAULTS]
)
async def test_fault(
    args: list[str],
    seat: int,
    opening: OpeningKind,
    termination: Termination,
    fragment: str,
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
) -> None:
    good = fakebot("--seed", "7", label="good")
    bad = fakebot("--seed", "8", *args, label="bad")
    pair = (bad, good) if seat == 0 else (good, bad)
    spec = GameSpec(size=4, opening=opening, time_control=PER_MOVE, command_timeout=1.0, game_id="f")
    with trio.fail_after(GUARD):
        record = await run_game(*pair, spec, log_dir=tmp_path, transcripts=True, quit_grace=QUIT_GRACE)
    assert record.termination is termination, record.reason
    assert record.winner == 1 - seat and record.loser == seat
    assert record.fault is not None and record.fault.seat == seat and record.fault.kind is termination
    assert record.fault.command  # names the command
    assert "bot bad" in record.reason and fragment in record.reason
    winner_color = Color.BLACK if record.black == record.winner else Color.WHITE
    assert record.result == f"{winner_color.letter.upper()}+{termination.result_suffix}"
    replay(record)  # every turn before the fault was legal and is recorded
    assert record.bots[1 - seat].returncode == 0  # the other bot was unharmed: it quit cleanly
    assert record.bots[seat].returncode is not None
    for entry in record.bots:
        check_gone(entry.pid)
    assert GameRecord.from_json(record.to_json()) == record


async def test_unexecutable_program_voids_the_game(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    missing = BotCommand((str(tmp_path / "no-such-bot"),), "ghost")
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    with trio.fail_after(GUARD):
        record = await run_game(fakebot(label="good"), missing, spec)
    assert record.termination is Termination.VOID and record.result == "void"
    assert record.winner is None and record.outcome is Outcome.VOID
    assert "cannot start" in record.reason and "ghost" in record.reason
    check_gone(record.bots[0].pid)


async def test_ignores_sigterm_still_scored_and_killed(fakebot: Callable[..., BotCommand]) -> None:
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    with trio.fail_after(GUARD):
        record = await run_game(
            fakebot(label="good"), fakebot("--fault", "ignore-sigterm", label="stubborn"), spec
        )
    check_scored(record)
    assert record.bots[1].returncode == -signal.SIGKILL
    check_gone(record.bots[1].pid)


async def test_grandchild_is_killed_with_its_bot(fakebot: Callable[..., BotCommand]) -> None:
    spec = GameSpec(size=3, opening=OpeningKind.PIE, time_control=PER_MOVE)
    with trio.fail_after(GUARD):
        record = await run_game(fakebot("--fault", "grandchild", label="parent"), fakebot(label="good"), spec)
    check_scored(record)
    check_gone(record.bots[0].pid)


async def test_stderr_flood_does_not_stall_the_game(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE, game_id="flood")
    with trio.fail_after(GUARD):
        record = await run_game(
            fakebot("--fault", "flood-stderr", label="chatty"), fakebot(label="good"), spec, log_dir=tmp_path
        )
    check_scored(record)
    log = Path(record.bots[0].stderr_log or "")
    assert log.stat().st_size < (1 << 20) + 1000
    assert "[truncated" in log.read_text()


async def test_game_guard_voids(fakebot: Callable[..., BotCommand]) -> None:
    # Per-request deadlines longer than the whole-game guard: only the guard can end it.
    spec = GameSpec(
        size=3,
        opening=OpeningKind.EMPTY,
        time_control=TimeControl.fixed(30),
        command_timeout=30,
        game_timeout=1.0,
    )
    with trio.fail_after(GUARD):
        record = await run_game(fakebot(label="good"), fakebot("--fault", "hang", label="stuck"), spec)
    assert record.termination is Termination.VOID and "overall guard" in record.reason
    for entry in record.bots:
        check_gone(entry.pid)


# ------------------------------------------------------------------ issue 13: exits and start-up


async def test_exit_while_a_child_holds_stdout_is_a_crash_not_a_time_loss(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    # A 20 s move limit: a time loss would take 20 s; the crash must be recorded at once.
    spec = GameSpec(size=4, opening=OpeningKind.EMPTY, time_control=TimeControl.fixed(20), game_id="exit")
    with trio.fail_after(GUARD):
        record = await run_game(
            fakebot("--seed", "7", label="good"),
            fakebot("--seed", "8", "--fault", "exit-leave-child", label="bad"),
            spec,
            log_dir=tmp_path,
            quit_grace=QUIT_GRACE,
        )
    assert record.termination is Termination.CRASH, record.reason
    assert record.winner == 0 and record.fault is not None and record.fault.seat == 1
    assert "genmove white" in record.reason and "exited (exit status 4)" in record.reason
    assert "leaving a child behind" in record.reason
    assert record.wall_seconds < 10
    assert record.bots[1].returncode == 4 and record.bots[0].returncode == 0
    for entry in record.bots:
        check_gone(entry.pid)  # the child that held the bot's stdout is gone too


async def test_a_bot_that_cannot_start_shows_its_stderr_in_the_record(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    nosuch = BotCommand(("python3", "-m", "sample_bots.no_such_bot"), "nosuch")
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE, game_id="ns")
    with trio.fail_after(GUARD):
        record = await run_game(nosuch, fakebot(label="good"), spec, log_dir=tmp_path)
    # Void, the bot named (issue 24): a start-up failure is never a rated result.
    assert record.termination is Termination.VOID and record.winner is None
    assert record.fault is not None and record.fault.seat == 0 and record.fault.kind is Termination.CRASH
    assert record.reason.startswith("start-up failure: bot nosuch failed before the game's first decision")
    assert "protocol_version" in record.reason and "exit status 1" in record.reason
    assert "No module named sample_bots.no_such_bot" in record.reason
    assert len(record.reason) < 400  # a quoted tail, not the whole log
    for entry in record.bots:
        check_gone(entry.pid)
