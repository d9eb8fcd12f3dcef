"""The fast exchange of a turn (``BotPipes.exchange``) against the general path, on real
processes: the usual answers take it, and every other answer (faults, unusual but valid
shapes, hangs, crashes) is judged exactly as the general path judges it.

The general path is the one a game takes when transcripts are written (the fast exchange
does not write them), so each game here is played twice, with and without transcripts,
and the two records must agree on everything but the clocks' readings."""

from __future__ import annotations

import os
import re
import select
import shlex
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import check_gone, fakebot_argv
from games import check_scored, replay
from runs import ROOT, stopped_in_the_write
from test_spin import looks_expected

from referee.play.command import BotCommand
from referee.play.game import run_game
from referee.play.pipes import BotPipes
from referee.play.records import GameRecord, Termination, parse_line
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.play.spin import BotSpin, RunSpin

GUARD = 30
QUIT_GRACE = 10.0
PER_MOVE = TimeControl.fixed(0.5, margin=0.3)


@pytest.fixture
def exchanges(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How each fast exchange ended, counted: ``fast`` (answered), ``handed back`` (sent,
    then judged by the general path) or ``declined`` (not sent)."""
    seen: Counter[str] = Counter()
    real = BotPipes.exchange

    async def counted(self: BotPipes, *args: Any) -> Any:
        answered = await real(self, *args)
        seen[
            "fast" if isinstance(answered, tuple) else "declined" if answered is None else "handed back"
        ] += 1
        return answered

    monkeypatch.setattr(BotPipes, "exchange", counted)
    return seen


async def _play(
    pair: tuple[BotCommand, BotCommand], tmp_path: Path, *, transcripts: bool, opening: OpeningKind
) -> GameRecord:
    spec = GameSpec(size=4, opening=opening, time_control=PER_MOVE, command_timeout=1.0, game_id="x")
    folder = tmp_path / ("general" if transcripts else "fast")
    folder.mkdir(exist_ok=True)
    with trio.fail_after(GUARD):
        record = await run_game(*pair, spec, log_dir=folder, transcripts=transcripts, quit_grace=QUIT_GRACE)
    for entry in record.bots:
        check_gone(entry.pid)
    return record


def _judged(record: GameRecord) -> dict[str, Any]:
    """All a record says about the game, but its timings (and how much of an overlong line
    the pipe held when it was found, which depends on how fast the bot wrote it)."""
    fault = record.fault
    return {
        "termination": record.termination,
        "winner": record.winner,
        "result": record.result,
        "reason": re.sub(r"\d+ bytes received", "N bytes received", record.reason),
        "turns": [(t.color, t.turn) for t in record.turns],
        "setup": None if record.setup is None else (record.setup.black, record.setup.white),
        "notes": record.notes,
        "fault": None if fault is None else (fault.seat, fault.kind, fault.command, _clip(fault.received)),
        "requests": [bot.stats.requests for bot in record.bots],
        "returncodes": [bot.returncode for bot in record.bots],
    }


def _stalls_allowed(fast: int) -> int:
    """How many usual answers a loaded machine may send to the general path: those read just
    after a stall of the referee's (the loop watch's rule), a few at most."""
    return max(2, fast // 5)


def _clip(received: str | None) -> str | None:
    return None if received is None else received[:1000]


async def test_usual_turns_take_the_fast_path(
    fakebot: Callable[..., BotCommand], tmp_path: Path, exchanges: Counter[str]
) -> None:
    # One bot lists time_left (three commands a turn), the other does not (two).
    pair = (fakebot("--seed", "3", label="A"), fakebot("--seed", "4", "--minimal", label="B"))
    record = await _play(pair, tmp_path, transcripts=False, opening=OpeningKind.EMPTY)
    check_scored(record)
    # Each turn is one exchange; an answer read just after a stall of the referee's (a
    # loaded machine) is handed back for the general path to say how late it looked.
    assert exchanges["fast"] + exchanges["handed back"] >= len(record.turns)
    assert exchanges["handed back"] <= _stalls_allowed(exchanges["fast"])
    general = await _play(pair, tmp_path, transcripts=True, opening=OpeningKind.EMPTY)
    assert _judged(general) == _judged(record)
    # The bots' time is booked: every turn's, and in the stats (on a loaded machine, less
    # the stalls of the referee's that their answers were found at the end of, maybe all).
    for entry in record.bots:
        assert entry.stats.requests > 0 and entry.stats.bot_seconds >= 0
    assert all(turn.seconds is not None and turn.seconds >= 0 for turn in record.turns)


# (fault args of the second bot, opening, the termination both paths must give, whether
# the fast exchange must hand its answers to the general path: an answer that is well
# formed but says something wrong, a resignation or an illegal turn, is the game's to judge)
CASES = [
    # Valid answers in unusual shapes: handed back, and the game goes on.
    (["--fault", "crlf", "--after", "1"], OpeningKind.EMPTY, Termination.SCORE, True),
    (["--fault", "crlf", "--at", "play"], OpeningKind.EMPTY, Termination.SCORE, True),
    (["--fault", "blank-first", "--at", "play"], OpeningKind.EMPTY, Termination.SCORE, True),
    (["--fault", "two-lines", "--at", "play"], OpeningKind.EMPTY, Termination.SCORE, True),
    (["--fault", "refuse", "--at", "time_left"], OpeningKind.EMPTY, Termination.SCORE, True),
    # Usual answers, in many reads or after a while: fast all the same.
    (["--fault", "trickle", "--after", "1"], OpeningKind.EMPTY, Termination.SCORE, False),
    (["--fault", "trickle", "--at", "play"], OpeningKind.EMPTY, Termination.SCORE, False),
    (["--fault", "slow", "--delay", "0.05", "--after", "1"], OpeningKind.EMPTY, Termination.SCORE, False),
    # Faults at the turn's commands.
    (["--fault", "two-lines", "--after", "1"], OpeningKind.EMPTY, Termination.ILLEGAL, True),
    (["--fault", "hang", "--at", "play", "--after", "1"], OpeningKind.EMPTY, Termination.TIME, True),
    (["--fault", "hang", "--after", "1"], OpeningKind.EMPTY, Termination.TIME, True),
    (["--fault", "no-blank", "--after", "1"], OpeningKind.EMPTY, Termination.TIME, True),
    (["--fault", "crash", "--after", "1"], OpeningKind.EMPTY, Termination.CRASH, True),
    (["--fault", "crash", "--at", "play", "--after", "1"], OpeningKind.EMPTY, Termination.CRASH, True),
    (["--fault", "close-stdout", "--after", "1"], OpeningKind.EMPTY, Termination.CRASH, True),
    (["--fault", "exit-leave-child", "--after", "1"], OpeningKind.EMPTY, Termination.CRASH, True),
    (["--fault", "garbage", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "garbage", "--at", "play", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "wrong-id", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "bad-utf8", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "long-line", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "stray", "--at", "play", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "stray", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "refuse", "--at", "play"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "refuse", "--after", "1"], OpeningKind.EMPTY, Termination.PROTOCOL, True),
    (["--fault", "resign", "--after", "1"], OpeningKind.EMPTY, Termination.RESIGN, False),
    (["--fault", "illegal-occupied", "--after", "1"], OpeningKind.EMPTY, Termination.ILLEGAL, False),
    # The pie rule's decisions go the same way.
    (["--fault", "bad-color"], OpeningKind.PIE, Termination.ILLEGAL, False),
    ([], OpeningKind.PIE, Termination.SCORE, False),
]


@pytest.mark.parametrize(
    ("args", "opening", "termination", "handed"), CASES, ids=[" ".join(c[0][1:]) or "pie" for c in CASES]
)
async def test_every_answer_is_judged_as_the_general_path_judges_it(
    args: list[str],
    opening: OpeningKind,
    termination: Termination,
    handed: bool,
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
    exchanges: Counter[str],
) -> None:
    fast, taken = await _judged_alike(args, opening, termination, handed, fakebot, tmp_path, exchanges)
    assert GameRecord.from_json(fast.to_json()) == fast
    assert taken["fast"] > 0  # the fast path took the usual answers


async def _judged_alike(
    args: list[str],
    opening: OpeningKind,
    termination: Termination,
    handed: bool,
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
    exchanges: Counter[str],
) -> tuple[GameRecord, Counter[str]]:
    """A game against a bot with ``args`` played on the fast path and again on the general
    one: both judge it alike, with ``termination``, and the fast exchange handed answers
    back (``handed``) or only the few a stall explains. Returns the fast game and how its
    exchanges ended."""
    pair = (fakebot("--seed", "7", label="good"), fakebot("--seed", "8", *args, label="odd"))
    fast = await _play(pair, tmp_path, transcripts=False, opening=opening)
    taken = Counter(exchanges)
    general = await _play(pair, tmp_path, transcripts=True, opening=opening)
    assert fast.termination is termination, fast.reason
    assert _judged(fast) == _judged(general)
    replay(fast)
    if handed:
        assert taken["handed back"] > 0, taken
    else:
        assert taken["handed back"] <= _stalls_allowed(taken["fast"]), taken
    return fast, taken


# The cases a look for a fast answer could meet (referee/play/spin.py): the answer whole,
# in pieces, late, never, the end of output, and lines that are not the answer.
FOUND = [c for c in CASES if c[0][:2] in ([], ["--fault", "trickle"], ["--fault", "slow"]) or c[0][1:] in (
    ["hang", "--after", "1"], ["crash", "--after", "1"], ["two-lines", "--after", "1"],
    ["stray", "--after", "1"], ["crlf", "--after", "1"], ["resign", "--after", "1"],
)]  # fmt: skip


@pytest.fixture
def found_at_once(monkeypatch: pytest.MonkeyPatch) -> Counter[bool]:
    """Every exchange looks, and each look waits up to 10 ms for the bot's output (a Python
    bot's answer time; half the least lateness the loop watch sees), then reads it without
    handing control back: the road a fast bot's answers take. Counts the looks by whether
    they found something."""
    looks: Counter[bool] = Counter()

    def look(self: BotSpin, poll: select.poll, until: float) -> bool | None:
        found = bool(poll.poll(10))
        looks[found] += 1
        return True if found else None

    monkeypatch.setattr(BotSpin, "begin", lambda self: True)
    monkeypatch.setattr(BotSpin, "look", look)
    monkeypatch.setattr(BotSpin, "end", lambda self, missed: None)
    return looks


@pytest.mark.parametrize(
    ("args", "opening", "termination", "handed"), FOUND, ids=[" ".join(c[0][1:]) or "pie" for c in FOUND]
)
async def test_answers_found_by_a_look_are_judged_as_the_general_path_judges_them(
    args: list[str],
    opening: OpeningKind,
    termination: Termination,
    handed: bool,
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
    exchanges: Counter[str],
    found_at_once: Counter[bool],
) -> None:
    if RunSpin.current() is None:
        pytest.skip("no look is made on one CPU")
    _, taken = await _judged_alike(args, opening, termination, handed, fakebot, tmp_path, exchanges)
    assert found_at_once[True] > 0 and taken["fast"] > 0  # the general path's game makes no look


async def test_a_bot_that_thinks_is_looked_at_after_pauses(
    fakebot: Callable[..., BotCommand], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # B acknowledges the opponent's turn at once but takes 20 ms over each genmove: every
    # look at it misses, so its exchanges look only after pauses of 1, 2, 4 ... exchanges.
    if RunSpin.current() is None:
        pytest.skip("no look is made on one CPU")
    calls: dict[str, list[bool]] = {}
    begin = BotSpin.begin

    def counted(self: BotSpin) -> bool:
        looks = begin(self)
        calls.setdefault(label, []).append(looks)  # the exchange's bot: see exchange below
        return looks

    label = ""
    exchange = BotPipes.exchange

    async def labelled(self: BotPipes, *args: Any) -> Any:
        nonlocal label
        label = self.label
        return await exchange(self, *args)

    monkeypatch.setattr(BotSpin, "begin", counted)
    monkeypatch.setattr(BotPipes, "exchange", labelled)
    pair = (
        fakebot("--seed", "3", label="A"),
        fakebot("--seed", "4", "--fault", "slow", "--delay", "0.02", "--at", "genmove", label="B"),
    )
    record = await _play(pair, tmp_path, transcripts=False, opening=OpeningKind.EMPTY)
    check_scored(record)
    slow = calls["B"]
    assert len(slow) >= len(record.turns) // 2 - 1 > 10
    assert sum(slow) == looks_expected(len(slow))


def chaos_pair(fakebot: Callable[..., BotCommand], seed: int) -> tuple[BotCommand, BotCommand]:
    """Two bots that answer in shapes drawn from ``seed`` (``--fault chaos``); for odd seeds
    the first is minimal (it lists no ``time_left``)."""
    minimal = ("--minimal",) if seed % 2 else ()
    return (
        fakebot("--seed", str(2 * seed + 11), "--fault", "chaos", *minimal, label="A"),
        fakebot("--seed", str(2 * seed + 12), "--fault", "chaos", label="B"),
    )


@pytest.mark.parametrize("seed", range(int(os.environ.get("CHAOS_SEEDS", "6"))))
async def test_answers_in_random_shapes_are_judged_alike(
    seed: int, fakebot: Callable[..., BotCommand], tmp_path: Path, exchanges: Counter[str]
) -> None:
    # Both bots answer each play, time_left and genmove in a shape drawn from their seeds:
    # mostly the usual one, else valid but unusual (CR LF, split writes, an empty line
    # first, a second line, a '?' to time_left), now and then a fault that ends the game.
    # CHAOS_SEEDS=N plays N pairs of games (40 agreed when this was written).
    pair = chaos_pair(fakebot, seed)
    fast = await _play(pair, tmp_path, transcripts=False, opening=OpeningKind.EMPTY)
    taken = Counter(exchanges)
    general = await _play(pair, tmp_path, transcripts=True, opening=OpeningKind.EMPTY)
    assert _judged(fast) == _judged(general)
    assert fast.termination in (Termination.SCORE, Termination.PROTOCOL), fast.reason
    assert sum(taken.values()) > 0  # the fast exchange was tried (a fault may end the game at once)
    replay(fast)


def _stopped_match(tmp_path: Path, *options: str) -> GameRecord:
    """A game whose first bot SIGSTOPs the referee (a `vastuz match` of its own) for 0.3 s
    at its third genmove, well inside its 5 s limit, and answers at once; played again, up
    to five times, while the stop lands inside the referee's write (it proves nothing then:
    runs.stopped_in_the_write)."""
    for attempt in range(5):
        record = _stopped_match_once(tmp_path / str(attempt), *options)
        if not stopped_in_the_write([record], 0.3):
            break
    return record


def _stopped_match_once(tmp_path: Path, *options: str) -> GameRecord:
    out = tmp_path / ("general" if options else "fast")
    stopper = fakebot_argv("--seed", "3", "--fault", "stop-referee", "--after", "2", "--stop", "0.3")
    done = subprocess.run(
        [
            sys.executable, "-m", "referee.cli", "match", shlex.join(stopper),
            shlex.join(fakebot_argv("--seed", "4")), "--games", "1", "--size", "4",
            "--opening", "empty", "--per-move", "5", "--out", str(out), *options,
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = (out / "results.jsonl").read_text().splitlines()
    return parse_line(line)


def test_a_stall_of_the_referee_is_booked_alike(tmp_path: Path) -> None:
    # The answer is found at the end of the stop: neither path charges it to the bot, both
    # say how late the referee looked, in the turn and in the bot's stats.
    for record in (_stopped_match(tmp_path), _stopped_match(tmp_path, "--transcripts")):
        assert record.termination is Termination.SCORE, record.reason
        late = [turn for turn in record.turns if turn.late is not None]
        assert late, [(t.turn, t.seconds, t.late) for t in record.turns]
        worst = max(late, key=lambda turn: turn.late or 0.0)
        assert worst.late is not None and worst.late >= 0.2
        assert worst.seconds is not None and worst.seconds < 0.2  # the stop is not the bot's time
        assert record.bots[0].stats.late >= 1 and record.bots[0].stats.late_max >= 0.2


def test_the_alarm_converts_deadlines_with_the_clock_it_runs_under() -> None:
    """A wait's deadline (``time.perf_counter``) becomes trio's by the clock's fixed offset
    when the run's clock is trio's own, and by asking the clock otherwise (a test's)."""
    from trio.testing import MockClock

    from referee.play.pipes import _clock_offset

    async def offset() -> tuple[float | None, float, float]:
        return _clock_offset(), trio.current_time(), time.perf_counter()

    found, now, perf = trio.run(offset)
    assert found is not None and abs(now - (perf + found)) < 0.001
    assert trio.run(offset, clock=MockClock())[0] is None


async def test_a_stall_inside_the_write_is_the_referees_own_time_on_both_paths(
    fakebot: Callable[..., BotCommand], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The referee stalls 0.5 s right after its write of one genmove and before it stamps
    # the write (as a preempted referee does on a loaded machine): the bot's clock starts at
    # the stamp, so the stall is not the bot's; both paths count it as the referee's own
    # time, in the bot's overhead (the general path once left it out of both).
    real_write = os.write
    genmoves = 0

    def write(fd: int, data: bytes) -> int:
        nonlocal genmoves
        written = real_write(fd, data)
        if b"genmove" in bytes(data):
            genmoves += 1
            if genmoves == 3:
                time.sleep(0.5)
        return written

    monkeypatch.setattr(os, "write", write)
    pair = (fakebot("--seed", "1", label="a"), fakebot("--seed", "2", label="b"))
    for transcripts in (False, True):
        genmoves = 0
        record = await _play(pair, tmp_path, transcripts=transcripts, opening=OpeningKind.EMPTY)
        assert record.termination is Termination.SCORE, record.reason
        assert genmoves > 3
        assert all(t.seconds is not None and t.seconds < 0.5 for t in record.turns)
        own = sum(b.stats.overhead_us * b.stats.requests for b in record.bots if b.stats)
        assert own >= 0.5e6, (transcripts, [b.stats for b in record.bots])
