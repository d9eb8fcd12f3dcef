"""Full games between the sample bots through the real referee: every opening mode under
both clock types. Each game must be scored (no forfeit: the bots are legal and on time
under the referee's clocks), and its record must replay with the engine."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio
from conftest import check_gone
from games import replay

from referee.play.command import BotCommand
from referee.play.game import run_game
from referee.play.records import Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.tournament.config.openings import check_opening

ROOT = Path(__file__).resolve().parent.parent
PER_MOVE = TimeControl.fixed(0.1, margin=0.3)
FISCHER = TimeControl.fischer(1.0, 0.05, margin=0.3)


def sample(name: str, *args: str) -> BotCommand:
    return BotCommand((sys.executable, "-m", f"sample_bots.{name}", *args), name, cwd=ROOT)


PAIRS = [("random_bot", "greedy_bot"), ("greedy_bot", "mcts_bot"), ("mcts_bot", "random_bot")]


@pytest.mark.parametrize("clock", [PER_MOVE, FISCHER], ids=["per-move", "fischer"])
@pytest.mark.parametrize("opening", list(OpeningKind), ids=[k.value for k in OpeningKind])
async def test_sample_bots_play_scored_games(
    opening: OpeningKind, clock: TimeControl, tmp_path: Path
) -> None:
    size = 3
    setup = None
    if opening is OpeningKind.BOOK:
        setup = check_opening(size, "c3", "b2", ["e5"])
    elif opening is OpeningKind.RANDOM:
        setup = check_opening(size, "a3", "e4")
    first, second = PAIRS[(list(OpeningKind).index(opening) + (clock is FISCHER)) % len(PAIRS)]
    spec = GameSpec(size=size, opening=opening, setup=setup, time_control=clock, game_id=f"{opening.value}")
    with trio.fail_after(60):
        record = await run_game(
            sample(first, "--seed", "1"),
            sample(second, "--seed", "2"),
            spec,
            log_dir=tmp_path,
            quit_grace=10.0,
        )
    assert record.termination is Termination.SCORE, record.reason
    pos = replay(record)
    assert pos.is_over and record.result == pos.result()
    for bot in record.bots:
        assert bot.final_score == record.result  # the SDK keeps its own board in step
        assert bot.returncode == 0
        check_gone(bot.pid)
    if clock is FISCHER:
        assert all(t.left is not None and t.left > 0 for t in record.turns if not t.opening)
