"""Standings from records: counts, failures, crosstable, formats.

The records are real: games played by the game loop between in-memory players, with
faults injected to get each kind of ending, then placed in a schedule as a tournament does.
"""

import csv
import io
import json
import math

import pytest
import trio

from referee.play.game import play_game
from referee.play.memory import Fault, MemoryPlayer
from referee.play.records import GameRecord, SlotInfo, Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.ratings.report import standings
from referee.render.standings_text import FAILURE_KINDS, head_to_head, render
from sample_bots.random_bot import RandomBot

SPEC = GameSpec(
    size=3, opening=OpeningKind.EMPTY, time_control=TimeControl.fixed(0.2, margin=0.1), command_timeout=0.5
)


async def game(
    first: str,
    second: str,
    *,
    fault: tuple[int, Fault] | None = None,
    pair: str | None = None,
    void: bool = False,
) -> GameRecord:
    """A real game between in-memory random bots; ``fault`` makes that seat's first
    genmove misbehave; ``void``: the second bot's program cannot start."""
    players = [
        MemoryPlayer(
            RandomBot(seed=len(first) + 7 * seat), label=label, start_error="gone" if void and seat else None
        )
        for seat, label in enumerate((first, second))
    ]
    if fault is not None:
        players[fault[0]].inject("genmove", fault[1])
    async with trio.open_nursery() as nursery:
        record = await play_game(players[0], players[1], SPEC, start_in=nursery)
    if pair is not None:
        record.tournament = SlotInfo("t", f"{pair}-{first}", 0, 1, pair)
    return record


async def make_records() -> list[GameRecord]:
    return [
        await game("a", "b", fault=(1, Fault.RESIGN), pair="p1"),
        await game("b", "a", fault=(0, Fault.RESIGN), pair="p1"),
        await game("a", "c", pair="p2"),  # played out
        await game("c", "a", fault=(1, Fault.TIMEOUT), pair="p2"),
        await game("b", "c", fault=(0, Fault.ILLEGAL), pair="p3"),
        await game("c", "b", fault=(0, Fault.CRASH), pair="p3"),
        await game("a", "b", void=True),
    ]


async def test_counts_failures_and_crosstable(autojump_clock: trio.testing.MockClock) -> None:
    records = await make_records()
    assert [r.termination for r in records] == [
        Termination.RESIGN, Termination.RESIGN, Termination.SCORE, Termination.TIME,
        Termination.ILLEGAL, Termination.CRASH, Termination.VOID,
    ]  # fmt: skip
    played = records[2]  # a (seat 0) against c, to the end: its result decides a few counts
    a_pts = 1.0 if played.winner == 0 else 0.5 if played.winner is None else 0.0
    st = standings(records, ["a", "b", "c"], bootstrap=200)
    by = {line.name: line for line in st.lines}
    assert st.games == 7 and st.void == 1
    assert by["a"].games == 4 and by["b"].games == 4 and by["c"].games == 4
    assert by["a"].score == 2 + a_pts and by["c"].score == 2 + (1 - a_pts) and by["b"].score == 1
    assert (by["b"].wins, by["b"].draws, by["b"].losses) == (1, 0, 3)
    assert by["a"].wins + by["a"].draws + by["a"].losses == 4 and by["a"].losses == 1 + (a_pts == 0)
    assert by["a"].failures[Termination.TIME] == 1 and by["b"].failures[Termination.ILLEGAL] == 1
    assert by["c"].failures[Termination.CRASH] == 1 and by["b"].failures[Termination.RESIGN] == 2
    assert sum(sum(line.failures.values()) for line in st.lines) == 5
    assert st.cross["a"]["b"] == (2.0, 2) and st.cross["b"]["a"] == (0.0, 2)
    assert st.cross["a"]["c"] == (a_pts, 2) and st.cross["c"]["a"] == (2 - a_pts, 2)
    assert [line.rank for line in st.lines] == [1, 2, 3]
    assert st.lines[-1].name == "b" and st.lines[-1].los_next is None
    # one complete opening pair per pairing
    assert sorted(tuple(sorted((p.a, p.b))) for p in st.pairs) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert all(p.pairs == 1 for p in st.pairs)


async def test_formats(autojump_clock: trio.testing.MockClock) -> None:
    st = standings(await make_records(), ["a", "b", "c"], bootstrap=100, anchor="b")
    assert st.anchor == "b" and [line.elo for line in st.lines if line.name == "b"] == [0.0]
    text = render(st, "text", title="t")
    assert [row.split()[3] for row in text.splitlines() if row.split()[1:2] == ["b"]] == ["anchor"]
    assert text.startswith("t\n") and "Crosstable" in text and "6 games rated, 1 void" in text
    header = next(row for row in text.splitlines() if row.startswith("rank"))
    assert header.split()[-7:] == ["time", "illegal", "crash", "protocol", "resign", "memory", "processes"]
    md = render(st, "markdown", title="t")
    assert md.startswith("# t") and "| bot" in md
    document = json.loads(render(st, "json"))
    data = document["bots"]
    assert [d["name"] for d in data] == [line.name for line in st.lines]
    for d in data:
        for key in ("name", "elo", "elo_error", "games", "wins", "draws", "losses", "score", "failures"):
            assert key in d
        assert set(d["failures"]) == set(FAILURE_KINDS)
    assert {d["name"]: d["failures"]["resign"] for d in data}["b"] == 2
    rows = list(csv.DictReader(io.StringIO(render(st, "csv"))))
    assert [r["name"] for r in rows] == [d["name"] for d in data] and rows[0]["rank"] == "1"
    assert {r["name"]: r["crash"] for r in rows}["c"] == "1"
    with pytest.raises(ValueError, match="unknown report format 'xml'"):
        render(st, "xml")


async def test_a_perfect_score_and_no_games_do_not_break_the_tables() -> None:
    records = [await game("a", "b", fault=(1, Fault.RESIGN)) for _ in range(4)]
    st = standings(records, ["a", "b", "c"], bootstrap=1000)
    assert st.lines[0].name == "a"
    assert any("c" in w for w in st.warnings)
    text = render(st, "text")
    assert "warning:" in text
    document = json.loads(render(st, "json"), parse_constant=pytest.fail)  # no inf/NaN in the JSON
    by = {d["name"]: d for d in document["bots"]}
    # The perfect score is shown as a lower bound, "> X" with X what four games support, not
    # "±0" and not a finite estimate; its interval has no upper end (null in the JSON).
    assert by["a"]["elo_bound"] == "lower" and by["a"]["elo"] is None and by["a"]["elo_high"] is None
    # Four wins: the exact one-sided bound, where four wins have a 2.5% chance (p = 0.398).
    assert by["a"]["elo_low"] == pytest.approx(400 * math.log10(0.025**0.25 / (1 - 0.025**0.25)), abs=0.02)
    assert by["b"]["elo"] == 0
    assert st.lines[0].los_next is not None and st.lines[0].los_next < 0.995
    assert [row.split()[2:5] for row in text.splitlines() if row.startswith("1 ")] == [
        [">", f"{by['a']['elo_low']:+.0f}", f"[{by['a']['elo_low']:+.0f},"]
    ]
    assert "[+" in text and ", inf]" in text
    # The bot without games has no rating at all (not "elo 0.0, error 0.0").
    assert by["c"]["elo"] is None and by["c"]["elo_error"] is None and by["c"]["group"] is None
    assert "Bots without games (no rating)" in text
    idle = next(row for row in text.splitlines() if row.split()[:1] == ["c"])
    assert idle.split()[:3] == ["c", "0", "0-0-0"]


async def test_groups_that_never_met_get_separate_tables() -> None:
    records = [await game("a", "b") for _ in range(2)] + [await game("x", "y") for _ in range(3)]
    records += [await game("y", "z") for _ in range(2)]
    st = standings(records, ["a", "b", "x", "y", "z"], bootstrap=50)
    assert [line.group for line in st.lines] == [0, 0, 0, 1, 1]
    assert [line.rank for line in st.lines] == [1, 2, 3, 1, 2]
    assert {line.name for line in st.lines[:3]} == {"x", "y", "z"}
    text = render(st, "text")
    first = text.index("Group 1 of 2: ")
    second = text.index("Group 2 of 2: ")
    assert first < second < text.index("Crosstable")
    assert all(f"\n{line.rank} " in text[first:second] for line in st.lines[:3])
    assert all(name not in text[first:second].split() for name in ("a", "b"))
    assert "## Group 2 of 2: " in render(st, "markdown")


async def test_json_is_a_schema_2_object(autojump_clock: trio.testing.MockClock) -> None:
    st = standings(await make_records(), ["a", "b", "c"], bootstrap=100, anchor="b")
    document = json.loads(render(st, "json"))
    assert list(document) == [
        "schema", "games", "rated", "void", "anchor", "confidence", "groups", "bots", "pairs", "warnings",
        "overhead_us", "referee_lateness",
    ]  # fmt: skip
    # Records of on-time games: the referee never looked late.
    assert document["referee_lateness"]["late"] == 0 and document["referee_lateness"]["answers"] > 0
    assert document["schema"] == 2 and document["anchor"] == "b" and document["confidence"] == 0.95
    assert (document["games"], document["rated"], document["void"]) == (7, 6, 1)
    assert document["groups"] == [[line.name for line in st.lines]]
    assert document["warnings"] == st.warnings
    assert len(document["pairs"]) == 3
    for pair in document["pairs"]:
        assert set(pair) == {"a", "b", "pairs", "counts", "elo", "elo_low", "elo_high", "elo_bound", "los"}
        assert pair["pairs"] == sum(pair["counts"]) == 1 and pair["elo_low"] is not None
    top = document["bots"][0]
    assert top["gap_next"]["elo_low"] <= top["gap_next"]["elo"] <= top["gap_next"]["elo_high"]
    assert document["bots"][-1]["gap_next"] is None


async def test_head_to_head_line_of_a_match() -> None:
    records = [await game("A", "B", fault=(1, Fault.RESIGN)) for _ in range(2)]
    st = standings(records, ["A", "B"], bootstrap=500)
    line = head_to_head(st)
    assert line is not None and line.startswith("A - B: Elo > ")
    assert "(95%), LOS " in line and line.endswith("2 games 2-0-0")
    assert "100.0%" not in line


async def test_referee_overhead_is_averaged_per_bot_over_requests() -> None:
    records = [await game("a", "b"), await game("b", "a")]
    expected = {}
    for label in ("a", "b"):
        entries = [e for r in records for e in r.bots if e.label == label]
        n = sum(e.stats.requests for e in entries)
        expected[label] = (sum(e.stats.overhead_us * e.stats.requests for e in entries) / n, n)
    st = standings(records, ["a", "b"], bootstrap=0)
    for label in ("a", "b"):
        assert st.overhead[label][1] == expected[label][1] > 10
        assert st.overhead[label][0] == pytest.approx(expected[label][0]) and expected[label][0] > 0
    assert "referee overhead per request (outside the bots' clocks): a " in render(st, "text")
