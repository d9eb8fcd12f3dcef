"""Checks shared by the game tests: a record replayed by the engine alone, and what every
game played to the end must satisfy."""

from __future__ import annotations

from referee.engine import Color, Position
from referee.play.records import BotStats, BotSummary, GameRecord, GameSummary, Outcome, Termination


def replay(record: GameRecord) -> Position:
    """The final position from the record alone, checked turn by turn by the engine."""
    pos = Position.new(record.size)
    if record.setup is not None:
        pos = pos.setup(record.setup.black, record.setup.white)
    for turn in record.turns:
        assert pos.to_move is turn.color
        pos = pos.play(turn.turn)
    return pos


def check_scored(record: GameRecord) -> None:
    """A game played to the end: the engine's score is the result, every turn was timed
    (or given by the opening), and the record survives its JSON round trip."""
    assert record.termination is Termination.SCORE, record.reason
    pos = replay(record)
    assert pos.is_over
    assert record.result == pos.result() and record.score == pos.score()
    assert record.fault is None
    expected = {None: Outcome.DRAW, Color.BLACK: Outcome.BLACK_WINS, Color.WHITE: Outcome.WHITE_WINS}
    assert record.outcome is expected[pos.winner]
    assert all(turn.opening or turn.seconds is not None for turn in record.turns)
    assert GameRecord.from_json(record.to_json()) == record


def played(game_slot: str, first: str, second: str, winner: int | None, void: bool = False) -> GameSummary:
    """A finished game as a schedule sees it, for the reactive schedules' tests: its slot
    ``PREFIX-NNNNN-K`` names its pair ``PREFIX-NNNNN``."""
    key = game_slot.rsplit("-", 1)[0]
    stats = BotStats()
    return GameSummary(
        game_id=game_slot,
        slot=game_slot,
        labels=(first, second),
        winner=None if void else winner,
        termination=Termination.VOID if void else Termination.SCORE,
        fault=None,
        pair_key=key,
        bots=(BotSummary(first, stats), BotSummary(second, stats)),
        moves=hash(game_slot),
    )
