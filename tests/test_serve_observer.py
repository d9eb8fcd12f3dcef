"""The game loop's observer seam (referee.play.game.GameObserver and WATCH), which
``vastuz serve`` builds its live feed and human games on: called after every accepted
change, once at the end, with the engine's position; absent, nothing is called."""

from __future__ import annotations

import trio

from referee.engine import Position
from referee.play.game import WATCH, GameObserver, play_game
from referee.play.memory import MemoryPlayer
from referee.play.records import GameRecord
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from sample_bots.random_bot import RandomBot


class Seen:
    def __init__(self) -> None:
        self.turns: list[tuple[int, str]] = []
        self.ended: list[GameRecord] = []

    def on_turn(self, record: GameRecord, position: Position) -> None:
        assert not self.ended
        self.turns.append((len(record.turns), position.diagram()))

    def on_end(self, record: GameRecord) -> None:
        self.ended.append(record)


def spec(opening: OpeningKind) -> GameSpec:
    return GameSpec(size=4, opening=opening, time_control=TimeControl.fixed(1.0), game_id="obs")


async def play(observer: GameObserver | None, opening: OpeningKind) -> GameRecord:
    a, b = MemoryPlayer(RandomBot(seed=1), label="a"), MemoryPlayer(RandomBot(seed=2), label="b")
    async with trio.open_nursery() as nursery:
        return await play_game(a, b, spec(opening), start_in=nursery, observer=observer)


async def test_the_observer_sees_every_turn_and_the_end() -> None:
    seen = Seen()
    with trio.fail_after(20):
        record = await play(seen, OpeningKind.PIE)
    # the setup, the colours, then one call per turn, each with the position after it
    assert [n for n, _ in seen.turns] == [0, 0, *range(1, len(record.turns) + 1)]
    pos = Position.new(4).setup(record.setup.black, record.setup.white)  # type: ignore[union-attr]
    for turn, (_, diagram) in zip(record.turns, seen.turns[2:], strict=True):
        pos = pos.play(turn.turn)
        assert diagram == pos.diagram()
    assert seen.ended == [record]


async def test_watch_gives_every_game_in_the_context_an_observer() -> None:
    made: list[Seen] = []

    def watch(game: GameSpec) -> Seen:
        made.append(Seen())
        return made[-1]

    token = WATCH.set(watch)
    try:
        with trio.fail_after(20):
            record = await play(None, OpeningKind.EMPTY)
    finally:
        WATCH.reset(token)
    assert len(made) == 1 and made[0].ended == [record]
    assert len(made[0].turns) == len(record.turns) + 1
    with trio.fail_after(20):
        await play(None, OpeningKind.EMPTY)
    assert len(made) == 1  # reset: no observer
