"""A summary as an object (what a pass over a run's games makes, one at a time; a run keeps
them in columns, tests/test_summary_log.py): the text every summary repeats is one object,
however the summary was made (from the record, read from a results line, unpickled), and
a summary read from a line holds a few hundred bytes."""

from __future__ import annotations

import gc
import pickle
import tracemalloc

from referee.engine import Color
from referee.play.records import (
    BotEntry,
    GameRecord,
    GameSummary,
    Outcome,
    SlotInfo,
    Termination,
    TurnEntry,
    parse_summary,
)

LABELS = ("a-bot-with-a-long-name", "another-bot-with-a-long-name")


def _lines(count: int) -> list[bytes]:
    """``count`` results lines of one pairing, as a run writes them (each line is parsed
    alone, so each holds its own copy of every text)."""
    lines = []
    for k in range(count):
        slot = f"r1-{LABELS[0]}+{LABELS[1]}-{k:05d}"
        record = GameRecord(
            slot,
            7,
            "empty",
            {},
            [BotEntry(LABELS[0], "x"), BotEntry(LABELS[1], "y")],
            black=k % 2,
            white=1 - k % 2,
        )
        record.tournament = SlotInfo("a tournament with a name", slot, k, 1, f"pair-{k // 2:05d}")
        record.turns = [
            TurnEntry(1, Color.BLACK, "c3", 0.000125, None),
            TurnEntry(2, Color.WHITE, "d4", 0.5, None),
        ]
        record.termination, record.outcome, record.winner = Termination.SCORE, Outcome.BLACK_WINS, k % 2
        lines.append(record.to_json().encode())
    return lines


def _shares_its_text(summaries: list[GameSummary]) -> None:
    first = summaries[0]
    for summary in summaries[1:]:
        assert summary.labels[0] is first.labels[0] and summary.labels[1] is first.labels[1]
        assert summary.bots[0].label is summary.labels[0] or summary.bots[0].label is summary.labels[1]
        assert summary.event is first.event
        assert summary.slot is summary.game_id  # the same text: kept once
    for a, b in zip(summaries[::2], summaries[1::2], strict=True):
        assert a.pair_key is b.pair_key  # a pair's two games


def test_summaries_read_from_lines_share_their_text() -> None:
    lines = _lines(40)
    summaries = [parse_summary(line) for line in lines]
    _shares_its_text(summaries)
    assert summaries[0].labels == LABELS and summaries[0].event == "a tournament with a name"


def test_summaries_of_records_share_their_text() -> None:
    records = [GameRecord.from_json(line.decode()) for line in _lines(10)]
    summaries = [GameSummary.of(record) for record in records]
    assert summaries == [parse_summary(line) for line in _lines(10)]
    for summary in summaries:
        assert summary.slot is summary.game_id


def test_unpickled_summaries_are_equal_and_share_their_text() -> None:
    # Pickled whole: a log's summaries it keeps as given, a plan's.
    summaries = [parse_summary(line) for line in _lines(20)]
    back = [pickle.loads(pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL)) for s in summaries]
    assert back == summaries
    _shares_its_text(back)
    assert back[0].labels[0] is summaries[0].labels[0]


def test_a_summary_read_from_a_line_holds_a_few_hundred_bytes() -> None:
    lines = _lines(2000)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        summaries = [parse_summary(line) for line in lines]
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    # About 710 bytes with these names; 1,170 when each kept its own copy of them (and a
    # statistics object with a dictionary per bot).
    assert held / len(summaries) < 850, held / len(summaries)
