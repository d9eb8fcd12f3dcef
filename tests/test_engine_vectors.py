"""Conformance: every line of the independent implementation's vectors (tests/data/)."""

import json
from pathlib import Path

import pytest

from referee.engine import BadNotation, Color, IllegalTurn, Position, TurnError

VECTORS = Path(__file__).parent / "data" / "engine-vectors.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
SYNTAX_KINDS = {"garbage", "off_board_point", "nonexistent_point"}


def test_the_vector_file_is_complete():
    assert len(CASES) == 300
    assert {c["size"] for c in CASES} == {5, 7}


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['size']}-{c['stage']}" for i, c in enumerate(CASES)])
def test_vector(case):
    mover = Color.BLACK if case["to_move"] == "b" else Color.WHITE
    pos = Position.from_stones(case["size"], case["black"], case["white"], mover)
    assert pos.is_over == case["game_over"]
    turns = pos.legal_turns()
    assert len(turns) == case["n_turns"]
    assert turns == case["turns"]
    assert pos.score() == (case["score_b"], case["score_w"])
    assert pos.result() == case["result"]
    sample = case["sample"]
    if not case["game_over"]:
        after = pos.play(sample["turn"])
        assert after.stones(Color.BLACK) == sorted(sample["black"])
        assert after.stones(Color.WHITE) == sorted(sample["white"])
        assert after.is_over == sample["game_over"]
    for bad in case["illegal"]:
        expected = BadNotation if bad["kind"] in SYNTAX_KINDS else IllegalTurn
        with pytest.raises(TurnError) as info:
            pos.play(bad["turn"])
        assert isinstance(info.value, expected), (bad, info.value)
