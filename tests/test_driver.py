"""Several games' turns driven from one task (``referee.play.driver``), with real bots: games
played side by side are judged exactly as a game played alone on the general path, every
fault included; a cancelled game, leading or parked, leaves the others playing; and the run's
other tasks still get their turn while the driver works."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import check_gone
from games import check_scored, replay
from test_fast_exchange import CASES, _judged, _play, chaos_pair
from test_spin import _instant_bots

import referee.play.driver as driver_module
from referee.play.command import BotCommand
from referee.play.driver import RunDriver
from referee.play.game import run_game
from referee.play.pipes import BotPipes
from referee.play.records import GameRecord, Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl

GUARD = 60
PER_MOVE = TimeControl.fixed(0.5, margin=0.3)


@pytest.fixture
def driven(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Fast exchanges started by the driver, not by a game's own task, counted by bot label."""
    seen: Counter[str] = Counter()
    start, exchange = BotPipes.exchange_start, BotPipes.exchange
    own: set[BotPipes] = set()  # pipes whose own task's exchange is about to start

    def counted(self: BotPipes, *args: Any) -> Any:
        if self in own:
            own.discard(self)
        else:
            seen[self.label] += 1
        return start(self, *args)

    async def on_its_task(self: BotPipes, *args: Any) -> Any:
        own.add(self)  # exchange calls exchange_start before it first waits
        return await exchange(self, *args)

    monkeypatch.setattr(BotPipes, "exchange_start", counted)
    monkeypatch.setattr(BotPipes, "exchange", on_its_task)
    return seen


async def _side_by_side(games: list[tuple[BotCommand, BotCommand]], tmp_path: Path) -> list[GameRecord]:
    """Play ``games`` at once in one trio run, the first (a long one) started first and the
    others once it is playing, so that they are driven from their first turn."""
    records: list[GameRecord | None] = [None] * len(games)

    async def play(k: int, pair: tuple[BotCommand, BotCommand]) -> None:
        spec = GameSpec(
            size=4, opening=OpeningKind.EMPTY, time_control=PER_MOVE, command_timeout=1.0, game_id=f"g{k}"
        )
        folder = tmp_path / f"side{k}"
        folder.mkdir(exist_ok=True)
        records[k] = await run_game(*pair, spec, log_dir=folder, quit_grace=10.0)

    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play, 0, games[0])
            while RunDriver.current().playing < 1:
                await trio.sleep(0.005)
            for k, pair in enumerate(games[1:], 1):
                nursery.start_soon(play, k, pair)
    done = [r for r in records if r is not None]
    assert len(done) == len(games)
    for record in done:
        for entry in record.bots:
            check_gone(entry.pid)
    return done


def _epolls() -> int:
    """This process's open epoll descriptors."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if _link(fd) == "anon_inode:[eventpoll]")


def _link(fd: Path) -> str:
    try:
        return str(fd.readlink())
    except OSError:  # closed meanwhile (the listing's own descriptor)
        return ""


def _companion(fakebot: Callable[..., BotCommand]) -> tuple[BotCommand, BotCommand]:
    """A game that lasts a good while (one bot takes 50 ms a genmove), so that the game beside
    it is driven from its first turn to its end."""
    return (
        fakebot("--seed", "21", label="C1"),
        fakebot("--seed", "22", "--fault", "slow", "--delay", "0.05", "--at", "genmove", label="C2"),
    )


async def test_games_side_by_side_are_driven_and_judged_as_alone(
    fakebot: Callable[..., BotCommand], tmp_path: Path, driven: Counter[str]
) -> None:
    pairs = [
        _companion(fakebot),
        (fakebot("--seed", "3", label="A"), fakebot("--seed", "4", "--minimal", label="B")),
        (fakebot("--seed", "5", label="D"), fakebot("--seed", "6", label="E")),
    ]
    epolls = _epolls()
    together = await _side_by_side(pairs, tmp_path)
    assert _epolls() == epolls  # the driver's own is closed once no game plays
    for record, pair in zip(together, pairs, strict=True):
        check_scored(record)
        replay(record)
        alone = await _play(pair, tmp_path, transcripts=True, opening=OpeningKind.EMPTY)
        assert _judged(record) == _judged(alone)
    # The first two games' turns went through the driver (all but the first few, played
    # before the game beside them was playing, and any a stall of the machine handed back).
    for label, record in (("A", together[1]), ("D", together[2])):
        assert driven[label] >= len(record.turns) // 2 - 2 > 3, driven


async def _judged_as_alone(
    pair: tuple[BotCommand, BotCommand],
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
    termination: Termination,
    opening: OpeningKind = OpeningKind.EMPTY,
) -> GameRecord:
    """``pair``'s game driven beside a long one, then alone on the general path: both end
    with ``termination`` and are judged alike, the long one scored. Returns the driven record."""
    companion, record = await _side_by_side([_companion(fakebot), pair], tmp_path)
    alone = await _play(pair, tmp_path, transcripts=True, opening=opening)
    assert record.termination is termination, record.reason
    assert _judged(record) == _judged(alone)
    check_scored(companion)
    return record


FAULTS = [c for c in CASES if c[1] is OpeningKind.EMPTY]


@pytest.mark.parametrize(
    ("args", "opening", "termination", "handed"), FAULTS, ids=[" ".join(c[0][1:]) for c in FAULTS]
)
async def test_every_answer_is_judged_as_alone(
    args: list[str],
    opening: OpeningKind,
    termination: Termination,
    handed: bool,
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
    driven: Counter[str],
) -> None:
    # The odd bot's game is driven beside a long one; the same game alone, on the general
    # path, must be judged alike (the odd bot answers its second decision oddly: "--after 1").
    pair = (fakebot("--seed", "7", label="good"), fakebot("--seed", "8", *args, label="odd"))
    replay(await _judged_as_alone(pair, fakebot, tmp_path, termination, opening))
    # The odd bot's decisions up to the odd one went through the driver.
    assert driven["odd"] >= (2 if "--after" in args else 1), driven


async def test_output_while_nobody_waits_is_judged_as_alone(
    fakebot: Callable[..., BotCommand], tmp_path: Path, driven: Counter[str]
) -> None:
    # Each answer of the odd bot is followed, 2 ms later, by a blank line (harmless), while
    # the driver waits on its opponent (10 ms a decision): an edge of a stdout that no
    # exchange waits on, which the driver passes over; the odd bot's next request finds the
    # line and goes the general path, which ignores it, as it does with the game alone.
    pair = (
        fakebot("--seed", "7", "--fault", "slow", "--delay", "0.01", label="good"),
        fakebot("--seed", "8", "--fault", "late-blank", "--delay", "0.002", "--after", "0", label="odd"),
    )
    replay(await _judged_as_alone(pair, fakebot, tmp_path, Termination.SCORE))
    ignored = RunDriver.current().ignored  # the run's driver, kept for its whole run
    assert driven["odd"] >= 1 and ignored >= 1, (driven, ignored)


async def test_an_answer_and_the_end_of_output_found_together_are_judged_as_alone(
    fakebot: Callable[..., BotCommand], tmp_path: Path, driven: Counter[str]
) -> None:
    # The odd bot stops the referee, answers the opponent's turn and exits (its genmove is
    # never answered): when the referee runs again, that answer and the end of its stdout
    # are there together, in one edge of the driver's epoll. A crash, at once, as alone;
    # not a wait out of the exit watch's grace for an end of output already there.
    pair = (
        fakebot("--seed", "7", label="good"),
        fakebot(
            "--seed",
            "8",
            "--fault",
            "stop-crash",
            "--at",
            "play",
            "--after",
            "1",
            "--stop",
            "0.2",
            label="odd",
        ),
    )
    record = await _judged_as_alone(pair, fakebot, tmp_path, Termination.CRASH)
    assert "closed its output" in record.reason, record.reason
    assert driven["odd"] >= 2, driven


async def _cancel_one(
    fakebot: Callable[..., BotCommand],
    tmp_path: Path,
    pick: Callable[[RunDriver, dict[int, trio.lowlevel.Task]], int],
) -> tuple[GameRecord, int]:
    """Three games driven together; once the driver has finished some turns, the game
    ``pick`` names (by the driver and each game's task) is cancelled from outside. Returns
    the record of a game that was not, and how many turns the driver had finished then."""
    pairs = [
        (
            fakebot("--seed", str(30 + 2 * k), label=f"P{k}"),
            fakebot(
                "--seed",
                str(31 + 2 * k),
                "--fault",
                "slow",
                "--delay",
                "0.01",
                "--at",
                "genmove",
                label=f"Q{k}",
            ),
        )
        for k in range(3)
    ]
    scopes = [trio.CancelScope() for _ in pairs]
    tasks: dict[int, trio.lowlevel.Task] = {}
    records: dict[int, GameRecord] = {}
    turns_then = 0

    async def play(k: int) -> None:
        tasks[k] = trio.lowlevel.current_task()
        spec = GameSpec(
            size=5, opening=OpeningKind.EMPTY, time_control=PER_MOVE, command_timeout=1.0, game_id=f"c{k}"
        )
        with scopes[k]:
            records[k] = await run_game(*pairs[k], spec, quit_grace=10.0)

    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            for k in range(3):
                nursery.start_soon(play, k)
            driver = RunDriver.current()
            while driver.turns < 6:
                await trio.sleep(0.001)
            turns_then = driver.turns
            victim = pick(driver, tasks)
            scopes[victim].cancel()
    assert victim not in records  # cancelled: no record, and its bots were closed
    survivor = next(iter(records.values()))
    assert len(records) == 2
    return survivor, turns_then


async def test_a_cancelled_leader_hands_the_lead_on(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    def leader(driver: RunDriver, tasks: dict[int, trio.lowlevel.Task]) -> int:
        lead = driver._leader
        assert lead is not None
        return next(k for k, task in tasks.items() if task is lead.task)

    survivor, then = await _cancel_one(fakebot, tmp_path, leader)
    check_scored(survivor)
    assert RunDriver.current().turns > then  # the other games went on being driven


async def test_a_cancelled_parked_game_leaves_the_others_playing(
    fakebot: Callable[..., BotCommand], tmp_path: Path
) -> None:
    def parked(driver: RunDriver, tasks: dict[int, trio.lowlevel.Task]) -> int:
        assert driver._parked
        return next(k for k, task in tasks.items() if task is driver._parked[0].task)

    survivor, then = await _cancel_one(fakebot, tmp_path, parked)
    check_scored(survivor)
    assert RunDriver.current().turns > then


async def test_other_tasks_run_between_driven_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Bots that answer at once (compiled C): the leader finds an answer whenever it looks.
    # With no budget at all it hands control back before each look, so a task that runs
    # whenever it can sees it finish at most a look's turns (one a game) twice in between
    # (trio may run that task first in one batch and last in the next).
    monkeypatch.setattr(driver_module, "BUDGET", 0.0)
    bots = [BotCommand(tuple(map(str, b["command"])), str(b["name"])) for b in _instant_bots(tmp_path, "x")]  # type: ignore[call-overload]
    seen: list[int] = []
    stop = trio.Event()

    async def watch() -> None:
        while not stop.is_set():
            seen.append(RunDriver.current().turns)
            await trio.lowlevel.checkpoint()

    async def game(k: int) -> GameRecord:
        spec = GameSpec(
            size=5, opening=OpeningKind.EMPTY, time_control=PER_MOVE, command_timeout=1.0, game_id=f"i{k}"
        )
        return await run_game(bots[0], bots[1], spec, quit_grace=10.0)

    records: list[GameRecord] = []

    async def play(k: int) -> None:
        records.append(await game(k))

    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            # A game of these bots is over in a few milliseconds: on a loaded machine the
            # three may start so far apart that none overlaps, and nothing is driven. The
            # three are played again (at most 10 times) until the driver has driven some.
            for _ in range(10):
                async with trio.open_nursery() as games:
                    for k in range(3):
                        games.start_soon(play, k)
                if RunDriver.current().turns > 20:
                    break
            stop.set()
    for record in records:
        check_scored(record)
    steps = [b - a for a, b in itertools.pairwise(seen)]
    assert RunDriver.current().turns > 20 and max(steps) <= 2 * 3, Counter(steps)


async def test_one_game_alone_is_not_driven(
    fakebot: Callable[..., BotCommand], tmp_path: Path, driven: Counter[str]
) -> None:
    # A game with no other beside it plays on its own task (and looks, where it may).
    record = await _play(
        (fakebot("--seed", "3", label="A"), fakebot("--seed", "4", label="B")),
        tmp_path,
        transcripts=False,
        opening=OpeningKind.EMPTY,
    )
    check_scored(record)
    assert not driven and RunDriver.current().turns == 0


@pytest.mark.parametrize("seed", range(int(os.environ.get("CHAOS_SEEDS", "4"))))
async def test_answers_in_random_shapes_are_judged_as_alone(
    seed: int, fakebot: Callable[..., BotCommand], tmp_path: Path, driven: Counter[str]
) -> None:
    # Both bots answer in shapes drawn from their seeds (see test_fast_exchange's test of
    # the same name), in a game driven beside a long one: judged as the same game alone.
    pair = chaos_pair(fakebot, seed)
    companion, record = await _side_by_side([_companion(fakebot), pair], tmp_path)
    alone = await _play(pair, tmp_path, transcripts=True, opening=OpeningKind.EMPTY)
    assert _judged(record) == _judged(alone)
    assert record.termination in (Termination.SCORE, Termination.PROTOCOL), record.reason
    check_scored(companion)
    replay(record)
    assert driven["A"] + driven["B"] > 0
