"""Standings from records: counts, failures, crosstable, formats."""

import csv
import io
import json

import pytest

from referee.ratings.report import FAILURE_KINDS, render, standings


def rec(a, b, winner, termination="score", fault_seat=None, pair=None):
    r = {
        "bots": [{"label": a}, {"label": b}],
        "winner": winner,
        "termination": termination,
        "outcome": "void" if termination == "void" else ("draw" if winner is None else "black"),
    }
    if fault_seat is not None:
        r["fault"] = {"seat": fault_seat, "kind": termination}
    if pair is not None:
        r["tournament"] = {"pair_key": pair}
    return r


RECORDS = [
    rec("a", "b", 0, pair="p1"),
    rec("b", "a", 1, pair="p1"),
    rec("a", "c", None, pair="p2"),
    rec("c", "a", 0, "time", fault_seat=1, pair="p2"),
    rec("b", "c", 1, "illegal", fault_seat=0, pair="p3"),
    rec("c", "b", 1, "crash", fault_seat=0, pair="p3"),
    rec("a", "b", None, "void"),
]


def test_counts_failures_and_crosstable():
    st = standings(RECORDS, ["a", "b", "c"], bootstrap=200)
    by = {line.name: line for line in st.lines}
    assert st.games == 7 and st.void == 1
    assert (by["a"].wins, by["a"].draws, by["a"].losses) == (2, 1, 1)
    assert (by["b"].wins, by["b"].draws, by["b"].losses) == (1, 0, 3)
    assert (by["c"].wins, by["c"].draws, by["c"].losses) == (2, 1, 1)
    assert by["a"].score == 2.5 and by["b"].score == 1 and by["c"].score == 2.5
    assert by["a"].failures["time"] == 1 and by["b"].failures["illegal"] == 1 and by["c"].failures["crash"] == 1
    assert sum(sum(line.failures.values()) for line in st.lines) == 3
    assert st.cross["a"]["b"] == (2.0, 2) and st.cross["b"]["a"] == (0.0, 2)
    assert st.cross["a"]["c"] == (0.5, 2) and st.cross["c"]["a"] == (1.5, 2)
    assert [line.rank for line in st.lines] == [1, 2, 3]
    assert st.lines[-1].name == "b" and st.lines[-1].los_next is None
    # one complete opening pair per pairing
    assert sorted(tuple(sorted((p.a, p.b))) for p in st.pairs) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert all(p.pairs == 1 for p in st.pairs)


def test_formats():
    st = standings(RECORDS, ["a", "b", "c"], bootstrap=100, anchor="b")
    assert st.anchor == "b" and [line.elo for line in st.lines if line.name == "b"] == [0.0]
    text = render(st, "text", title="t")
    assert [row.split()[3] for row in text.splitlines() if row.split()[1:2] == ["b"]] == ["anchor"]
    assert text.startswith("t\n") and "Crosstable" in text and "6 games rated, 1 void" in text
    md = render(st, "markdown", title="t")
    assert md.startswith("# t") and "| bot" in md
    data = json.loads(render(st, "json"))
    assert [d["name"] for d in data] == [line.name for line in st.lines]
    for d in data:
        for key in ("name", "elo", "elo_error", "games", "wins", "draws", "losses", "score", "failures"):
            assert key in d
        assert set(d["failures"]) == set(FAILURE_KINDS)
    rows = list(csv.DictReader(io.StringIO(render(st, "csv"))))
    assert [r["name"] for r in rows] == [d["name"] for d in data] and rows[0]["rank"] == "1"
    with pytest.raises(ValueError, match="unknown report format 'xml'"):
        render(st, "xml")


def test_a_perfect_score_and_no_games_do_not_break_the_tables():
    records = [rec("a", "b", 0) for _ in range(4)]
    st = standings(records, ["a", "b", "c"], bootstrap=50)
    assert [line.name for line in st.lines][0] == "a"
    assert any("c" in w for w in st.warnings)
    text = render(st, "text")
    assert "warning:" in text
    json.loads(render(st, "json"))  # infinite values never reach the JSON


def test_referee_overhead_is_averaged_per_bot_over_requests():
    records = [rec("a", "b", 0), rec("b", "a", 1)]
    records[0]["bots"][0]["stats"] = {"requests": 10, "overhead_us": 50.0}
    records[0]["bots"][1]["stats"] = {"requests": 10, "overhead_us": 70.0}
    records[1]["bots"][1]["stats"] = {"requests": 30, "overhead_us": 90.0}
    st = standings(records, ["a", "b"], bootstrap=0)
    assert st.overhead["a"] == (80.0, 40) and st.overhead["b"] == (70.0, 10)
    assert "referee overhead per request (outside the bots' clocks): a 80 µs, b 70 µs" in render(st, "text")
