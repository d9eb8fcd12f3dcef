"""Fair clocks: a bot loses on time only when it was late, never for the referee's delays.

The rule (PROTOCOL.md section 4, docs/records.md): an answer is judged on what stdout holds
at the referee's first look at or after the deadline; the referee's own stalls are measured
and taken off the bot's time. The tests stop the referee for real: a blocked trio loop (a
task that sleeps without yielding), or SIGSTOP of the referee's process (a run, or a
referee process of ``--processes``) sent by the bot itself, with a helper of the bot's
that sends the SIGCONT. They assert the rule's outcomes (accepted or lost, and what the
record says), never how fast anything was.
"""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from conftest import fakebot_argv
from runs import ROOT, stopped_in_the_write, write_config

from protocol import commands
from referee.engine import Color
from referee.play.command import BotCommand
from referee.play.faults import BotTimeout
from referee.play.lateness import Lateness
from referee.play.player import Exchange
from referee.play.process import BotProcess
from referee.play.records import BotEntry, BotStats, GameRecord, TurnEntry, parse_line
from referee.play.watch import NOTICE, LoopWatch
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament

ASK = commands.final_score()  # answered at once; not part of the handshake


async def _freeze_loop(seconds: float) -> None:
    """Let the request start waiting, then hold the whole trio loop (no checkpoint)."""
    await trio.sleep(0.01)
    time.sleep(seconds)


async def _frozen_request(bot: BotProcess, timeout: float, freeze: float) -> Exchange | BotTimeout:
    """``final_score`` with a ``timeout`` while the loop is frozen for ``freeze`` seconds."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_freeze_loop, freeze)
        try:
            return await bot.request(ASK, timeout)
        except BotTimeout as exc:
            return exc


async def test_an_answer_in_the_pipe_at_a_late_deadline_is_accepted(
    fakebot: Callable[..., BotCommand],
) -> None:
    # The bot answers 30 ms after each `final_score`, while the loop is frozen past the 0.2 s
    # deadline: when the loop runs again the timer has fired and stdout is readable at once,
    # and trio may run either first. Over several tries both orders come up; each must take
    # the answer, say it was read late, and not charge the bot the freeze.
    async with BotProcess.of(fakebot("--fault", "slow", "--at", "final_score", "--delay", "0.03")) as bot:
        for _ in range(8):
            exchange = await _frozen_request(bot, 0.2, 1.0)
            assert isinstance(exchange, Exchange), exchange
            assert exchange.response.ok
            assert exchange.late >= 0.8  # the freeze, seen by the watch
            assert exchange.seconds < 0.2  # ... and not charged to the bot
        assert bot.healthy


async def test_an_incomplete_answer_at_a_late_deadline_is_a_loss_on_time(
    fakebot: Callable[..., BotCommand],
) -> None:
    # The same freeze, but the answer never ends (no blank line): the first look after the
    # deadline finds it incomplete, whichever task looks, and the bot loses on time; the
    # fault says how late the referee looked.
    for _ in range(3):
        async with BotProcess.of(fakebot("--fault", "no-blank", "--at", "final_score")) as bot:
            fault = await _frozen_request(bot, 0.1, 0.5)
            assert isinstance(fault, BotTimeout), fault
            assert fault.late >= 0.3
            assert "the referee looked" in str(fault)


async def test_a_bot_later_than_a_late_referee_still_loses(fakebot: Callable[..., BotCommand]) -> None:
    # Frozen 0.5 s across a 0.1 s deadline, but the bot answers only after 1.5 s: nothing is
    # there at the late look, so the loss on time stands.
    async with BotProcess.of(fakebot("--fault", "slow", "--at", "final_score", "--delay", "1.5")) as bot:
        fault = await _frozen_request(bot, 0.1, 0.5)
        assert isinstance(fault, BotTimeout), fault
        assert fault.late >= 0.3


async def test_the_watch_keeps_off_a_test_clock(autojump_clock: trio.testing.MockClock) -> None:
    # Its sleeps would follow the test clock while stamps are real time.
    assert LoopWatch.current() is None


def test_records_say_late_only_where_it_was() -> None:
    on_time = TurnEntry(1, Color.BLACK, "a1", 0.01)
    late = TurnEntry(2, Color.WHITE, "b1", 0.01, late=0.75)
    bots = [BotEntry("a", "a"), BotEntry("b", "b", stats=BotStats(requests=3, late=1, late_max=0.75))]
    record = GameRecord(
        game_id="g1", size=3, opening="empty", time_control={}, bots=bots, turns=[on_time, late]
    )
    line = record.to_json()
    turns = json.loads(line)["turns"]
    assert "late" not in turns[0] and turns[1]["late"] == 0.75
    stats = [bot["stats"] for bot in json.loads(line)["bots"]]
    assert "late" not in stats[0] and "late_max" not in stats[0] and stats[1]["late"] == 1
    assert parse_line(line) == record


# ---------------------------------------------------------------------- the referee stopped
def _stopper(*extra: str) -> list[str]:
    """A bot that SIGSTOPs the referee at its third genmove (for 1 s) and answers at once."""
    return [*fakebot_argv("--seed", "3", "--fault", "stop-referee", "--after", "2", "--stop", "1.0"), *extra]


def _match(tmp_path: Path, first: list[str], *options: str) -> list[GameRecord]:
    """One game of ``vastuz match`` in ``tmp_path / "m"`` (its output in ``stdout.txt``)."""
    out = tmp_path / "m"
    tmp_path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            sys.executable, "-m", "referee.cli", "match", shlex.join(first),
            shlex.join(fakebot_argv("--seed", "4")), "--games", "1", "--size", "4",
            "--opening", "empty", "--out", str(out), *options,
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / "stdout.txt").write_text(done.stdout)
    return [parse_line(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _latest(records: list[GameRecord]) -> TurnEntry:
    """The turn the referee looked at latest (others may be a little late on a busy machine)."""
    late = [t for r in records for t in r.turns if t.late is not None]
    assert late, ("no turn says the referee was late", [(r.reason, r.bots, r.turns[:8]) for r in records])
    return max(late, key=lambda t: t.late or 0.0)


def test_a_stopped_run_does_not_forfeit_a_bot_that_answered(tmp_path: Path) -> None:
    # SIGSTOP of the referee for 1 s across a 0.3 s deadline, the answer in the pipe within
    # a few ms: the game goes on to its end, and the record shows the lateness. A stop that
    # lands inside the referee's write is fair but proves nothing here (see
    # runs.stopped_in_the_write): the match is played again, up to five times.
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        (record,) = _match(folder, _stopper(), "--per-move", "0.1", "--margin", "0.2")
        assert record.termination.value == "score", record.reason
        if not stopped_in_the_write([record], 1.0):
            break
    said = (folder / "stdout.txt").read_text()
    assert "referee: looked late at " in said, said
    turn = _latest([record])
    assert turn.late is not None and turn.late >= 0.5
    assert turn.seconds is not None and turn.seconds < 0.3  # the stop is not the bot's time
    stats = record.bots[0].stats
    assert stats.late >= 1 and stats.late_max >= 0.5
    lateness = Lateness.of([record])
    assert lateness.late >= 1 and lateness.time_losses_late == 0
    line = lateness.line()
    assert line is not None and line.startswith("referee: looked late at ")
    # `vastuz report` says it too.
    shown = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(folder / "m")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "referee: looked late at " in shown.stdout and "0 time losses while late" in shown.stdout


def test_a_stopped_run_does_not_charge_a_fischer_clock(tmp_path: Path) -> None:
    # Played again (up to five times) while the stop lands inside the referee's write, as
    # in the test above: then no clock of the bot's was running to be charged or not.
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        (record,) = _match(folder, _stopper(), "--main", "5", "--increment", "0", "--margin", "0.2")
        assert record.termination.value == "score", record.reason
        if not stopped_in_the_write([record], 1.0):
            break
    turn = _latest([record])
    # Charged, the 1 s stop would have left under 4 s on the clock.
    assert turn.left is not None and turn.left > 4.5


def test_a_bot_later_than_a_stopped_run_still_loses_on_time(tmp_path: Path) -> None:
    # The referee is stopped 1 s, the bot answers 1 s after it runs again: at the referee's
    # first look after the deadline nothing is there. On a loaded machine the bot may read
    # its genmove only after the deadline, so the stop comes after the loss and is not
    # across it (no lateness to see): such a try proves nothing, and the match is played
    # again, up to three times.
    for attempt in range(3):
        (record,) = _match(
            tmp_path / str(attempt), _stopper("--answer-after", "1.0"), "--per-move", "0.1", "--margin", "0.2"
        )
        assert record.termination.value == "time"
        if record.fault is not None and record.fault.late is not None:
            break
    assert record.fault is not None and record.fault.seat == 0
    assert record.fault.late is not None and record.fault.late >= NOTICE
    assert "the referee looked" in record.reason
    assert Lateness.of([record]).time_losses_late == 1


def test_a_stopped_referee_process_does_not_forfeit_a_bot(tmp_path: Path) -> None:
    # With --processes the bot's parent is a referee process: SIGSTOP of that one (played
    # again, up to five times, when the stop lands inside the write: runs.stopped_in_the_write).
    bots = [
        {"name": "stopper", "command": _stopper(), "cwd": str(ROOT)},
        {"name": "plain", "command": list(fakebot_argv("--seed", "5")), "cwd": str(ROOT)},
    ]
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        config = write_config(
            folder, bots, board_size=4, opening="empty", time_control={"per_move": 0.1, "margin": 0.2},
            schedule={"kind": "round_robin", "games_per_pair": 2}, concurrency=2, executor={"processes": 2},
        )  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "referee.cli", "tournament", str(config), "--quiet"],
            cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        records = [parse_line(x) for x in (folder / "out" / "results.jsonl").read_text().splitlines()]
        assert len(records) == 2
        assert all(r.termination.value == "score" for r in records), [r.reason for r in records]
        if not stopped_in_the_write(records, 1.0):
            break
    turn = _latest(records)
    assert turn.late is not None and turn.late >= 0.5
    assert "referee: looked late at " in done.stdout


async def test_a_bug_in_a_bots_start_voids_the_game_and_the_run_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bug of ours between the spawn and the handshake (here: the watch failing) once
    # left the bot's close waiting forever for a stderr task never started: the run hung,
    # deaf to Ctrl-C. Now the game is void and the run ends.
    def broken() -> None:
        raise RuntimeError("injected bug")

    monkeypatch.setattr(LoopWatch, "current", staticmethod(broken))
    bots = [
        {"name": n, "command": list(fakebot_argv("--seed", str(k))), "cwd": str(ROOT)}
        for k, n in enumerate("ab")
    ]
    config = write_config(
        tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2}, concurrency=2
    )
    out = io.StringIO()
    with trio.fail_after(60):
        result = await Tournament(load_config(config), out=out, start_failure_limit=100).run()
    records = [parse_line(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r.termination.value == "void" for r in records)
    assert all(r.reason.startswith("referee error") for r in records), [r.reason for r in records]
    assert result.void == 2
