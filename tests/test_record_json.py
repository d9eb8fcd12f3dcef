"""A record's results line is written by hand for its turns (GameRecord.to_json): it must be
byte for byte what json.dumps of GameRecord.to_dict writes, for every kind of turn and value."""

from __future__ import annotations

import json
import math

import pytest

from referee.engine import Color
from referee.play.records import (
    BotEntry,
    BotStats,
    FaultEntry,
    Forensics,
    GameRecord,
    SetupEntry,
    SlotInfo,
    Termination,
    TurnEntry,
    parse_line,
)


def dumped(record: GameRecord) -> str:
    return json.dumps(record.to_dict(), ensure_ascii=False, separators=(",", ":"))


def record_with(turns: list[TurnEntry], **fields: object) -> GameRecord:
    bots = [
        BotEntry("a", "./a --x 'é'", name="A\u00e9", stats=BotStats(3, 0.25, 0.125, 12.5, 1, 0.031)),
        BotEntry("b", "./b", stats=BotStats(2, 1e-06, 0.0, 7.0)),
    ]
    record = GameRecord("g1", 7, "empty", {"kind": "per_move", "per_move": 0.5, "margin": 0.2}, bots)
    record.turns = turns
    for key, value in fields.items():
        setattr(record, key, value)
    return record


TURNS = [
    TurnEntry(1, Color.BLACK, "c3", 8.6e-05, None),
    TurnEntry(2, Color.WHITE, "d4 x e5 f6", 0.0, 12.345678),
    TurnEntry(3, Color.BLACK, "a1", None, None, opening=True),
    TurnEntry(4, Color.WHITE, "b2", 0.25, 0.0, late=0.042),
    TurnEntry(5, Color.BLACK, 'q"\\\u00e9\u2028\n\t', 1e-07, 1e22),
    TurnEntry(6, Color.WHITE, "c3", 3.0, None),
]


@pytest.mark.parametrize("turns", [[], TURNS[:1], TURNS], ids=["none", "one", "all kinds"])
def test_to_json_is_json_dumps_of_to_dict(turns: list[TurnEntry]) -> None:
    record = record_with(
        turns,
        setup=SetupEntry("a1", "b2", by=0, seconds=0.5, late=None),
        fault=FaultEntry(1, Termination.TIME, "5 genmove w", None, 0.7, 0.05),
        notes=["bot a: \u00e9 \x1b[31m"],
        tournament=SlotInfo("t", "r1-a+b-01", 0, 1, "r1-a+b-c01"),
        forensics=Forensics([["> 1 name"], ["< =1 b"]], "Traceback"),
        referee_overhead_us=30.5,
    )
    assert record.to_json() == dumped(record)
    assert GameRecord.from_json(record.to_json()) == record


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 7, -0.0, 5e-324, 1.7976931348623157e308])
def test_unusual_numbers_are_written_as_json_would(value: float) -> None:
    """A turn read back from an older or edited file may hold an int or a non-finite
    float where the referee writes floats: the line still says what json.dumps says."""
    turns = [
        TurnEntry(1, Color.BLACK, "c3", value, value),
        TurnEntry(2, Color.WHITE, "d4", 0.5, None, late=value),
    ]
    record = record_with(turns)
    assert record.to_json() == dumped(record)


def test_a_record_read_back_is_written_as_it_was_read() -> None:
    line = record_with(TURNS).to_json()
    assert parse_line(line).to_json() == line
