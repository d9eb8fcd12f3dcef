"""A run's summaries in columns (:class:`SummaryLog`): every summary comes back equal, field
for field, however odd its values (those the columns cannot hold are kept whole); pickled,
it is equal and its slot index works in the other process's hashing; its latest records
and each slot's rows are those of the list it replaces; and it holds a fraction of the
memory the summaries took as objects."""

from __future__ import annotations

import dataclasses
import gc
import pickle
import random
import re
import subprocess
import sys
import tracemalloc
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.play.records import BotStats, BotSummary, FaultEntry, GameSummary, Termination, parse_summary
from referee.ratings.history import llr_history, pair_score, rating_history
from referee.ratings.report import game_result
from referee.ratings.sprt import Sprt
from referee.tournament.store.duplicates import game_identity, repeated_games
from referee.tournament.store.folder import foreign, latest_records
from referee.tournament.store.summary_log import SummaryLog, SummaryView
from tests.test_standings_off_path import summaries as made_up
from tests.test_summary_memory import _lines

_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from(["\ud800", "+", "-", "é"]), max_size=12)
_FLOAT = st.floats(allow_nan=False) | st.sampled_from([0.0, -0.0, 1e-7, 12.5])


@st.composite
def _stats(draw: st.DrawFn) -> BotStats:
    late = draw(st.sampled_from([0, 0, 1, 3]))
    return BotStats(
        requests=draw(st.integers(0, 200) | st.sampled_from([2**32 - 1, 2**32, -1])),
        overhead_us=draw(_FLOAT),
        late=late,
        late_max=draw(st.sampled_from([0.0, 0.0013, 2.5])),
        # A summary keeps neither (GameSummary.of sets them to 0); a hand-made one may.
        bot_seconds=draw(st.sampled_from([0.0, 0.0, 0.0, 1.25])),
    )


@st.composite
def _summary(draw: st.DrawFn) -> GameSummary:
    labels = (draw(st.sampled_from(["a", "b", "c", "ünï"])), draw(st.sampled_from(["a", "b", "d"])))
    game_id = draw(_TEXT)
    kind = draw(st.sampled_from(list(Termination)))
    fault = draw(
        st.none()
        | st.builds(
            FaultEntry,
            st.sampled_from([0, 1]),
            st.just(kind),
            st.none(),
            st.none(),
            late=st.none() | st.just(0.02),
            overshoot=st.none() | st.just(1.5),
        )
    )
    bot_labels = labels if draw(st.integers(0, 9)) else (labels[1], labels[0])  # rarely not the seats'
    return GameSummary(
        game_id=game_id,
        slot=game_id if draw(st.booleans()) else draw(st.sampled_from(["s1", "s2", "s3", ""])),
        labels=labels,
        winner=draw(st.sampled_from([None, 0, 1, 2, True])),
        termination=kind,
        fault=fault,
        pair_key=draw(st.none() | _TEXT),
        bots=(BotSummary(bot_labels[0], draw(_stats())), BotSummary(bot_labels[1], draw(_stats()))),
        moves=draw(st.integers(-(2**63), 2**63 - 1) | st.sampled_from([2**63, -(2**64)])),
        event=draw(st.none() | st.sampled_from(["t", "a tournament", ""])),
    )


def _same(a: GameSummary, b: GameSummary) -> None:
    """Equal, and of the same types (0.0 is not 0, True is not 1), ``-0.0`` aside."""
    assert a == b
    assert type(a.winner) is type(b.winner)
    for x, y in zip(a.bots, b.bots, strict=True):
        for name in ("requests", "overhead_us", "late", "late_max", "bot_seconds", "thinking_seconds"):
            assert type(getattr(x.stats, name)) is type(getattr(y.stats, name)), name


def _same_results(rows: SummaryLog | SummaryView, games: Sequence[GameSummary]) -> None:
    """``rows.results()`` is ``game_result`` of each of ``games`` but the void ones', or
    raises as it does (a game of one bot against itself)."""
    try:
        expected = [r for r in map(game_result, games) if r is not None]
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            list(rows.results())
        return
    got = list(rows.results())
    assert got == expected and rows.rated_count() == len(expected)
    for x, y in zip(got, expected, strict=True):
        assert type(x.score_a) is type(y.score_a) and type(x.pair) is type(y.pair)


@settings(max_examples=150, deadline=None)
@given(st.lists(_summary(), max_size=30))
def test_every_summary_comes_back_equal(given: list[GameSummary]) -> None:
    log = SummaryLog(given)
    assert len(log) == len(given)
    for k, s in enumerate(given):
        _same(log[k], s)
        assert log.slot_of(k) == s.slot and log.is_void(k) == s.is_void
    assert list(log) == given and log == given
    if given:
        _same(log[-1], given[-1])
    assert list(log[1:5]) == given[1:5] and list(log[::-2]) == given[::-2]
    assert list(log.rated()) == [s for s in given if not s.is_void]
    assert list(log.events()) == [s.event for s in given] and list(log[::2].events()) == [
        s.event for s in given[::2]
    ]
    assert list(log.slots()) == [s.slot for s in given] and list(log[1::3].slots()) == [
        s.slot for s in given[1::3]
    ]
    assert list(log[::2].rated()) == [s for s in given[::2] if not s.is_void]
    _same_results(log, given)
    _same_results(log[1::3], given[1::3])
    assert list(log.identities()) == [game_identity(g) for g in given]
    assert list(log[::-3].identities()) == [game_identity(g) for g in given[::-3]]
    assert list(log.seats()) == [(g.slot, g.labels) for g in given]
    assert [log.game_id_at(k) for k in range(len(given))] == [g.game_id for g in given]
    assert [log[1::2].game_id_at(k) for k in range(len(given[1::2]))] == [g.game_id for g in given[1::2]]
    for candidate in ("a", "b", "ünï", "t", "nobody"):
        expected = [x for x in (pair_score(g, candidate) for g in given) if x is not None]
        got = list(log.pair_scores(candidate))
        assert got == expected and [type(x[1]) for x in got] == [type(x[1]) for x in expected]
        assert list(log[::-2].pair_scores(candidate)) == [
            x for x in (pair_score(g, candidate) for g in given[::-2]) if x is not None
        ]
    back = pickle.loads(pickle.dumps(log, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == given
    _same_results(back[::-1], given[::-1])
    for s in given:
        rows = [k for k, r in enumerate(given) if r.slot == s.slot]
        assert log.rows_of(s.slot) == rows and back.rows_of(s.slot) == rows
        assert all(log.rows_like(k) == rows for k in rows)
    assert log.rows_of("no such slot") == []


def test_an_index_out_of_range_is_an_index_error() -> None:
    log = SummaryLog(made_up(1, 3, ["p", "q"]))
    for k in (3, -4):
        try:
            log[k]
        except IndexError:
            continue
        raise AssertionError(k)


def test_the_latest_records_are_those_of_the_list() -> None:
    for seed in range(6):
        records = made_up(seed, 300, ["p", "q", "r"])
        log = SummaryLog(records)
        for count in (0, 1, 9, 10, 57, 300):
            told: list[str] = []
            expected_told: list[str] = []
            view = latest_records(log[:count], told)
            assert isinstance(view, SummaryView)
            assert list(view) == latest_records(records[:count], expected_told)
            assert told == expected_told
        assert list(latest_records(log)) == latest_records(records)
        # Not a prefix: the rows the view has, the list's way.
        odd = log[1::2]
        told, expected_told = [], []
        assert list(latest_records(odd, told)) == latest_records(records[1::2], expected_told)
        assert told == expected_told
    told = []  # a seed whose slots have second results: the warning is the list's
    latest_records(SummaryLog(made_up(3, 300, ["p", "q"])), told)
    assert told and "recorded more than once with a result" in told[0]


def test_each_slots_rows_survive_growth_and_a_new_process() -> None:
    """The slot index is rebuilt as the log grows (and in the standings process, whose
    string hashes are salted differently): every slot's rows are found after both."""
    rng = random.Random(5)
    records = made_up(9, 3000, ["p", "q", "r", "s"])
    log = SummaryLog()
    for k, r in enumerate(records):
        log.append(r)
        if rng.random() < 0.01:
            probe = records[rng.randrange(k + 1)].slot
            assert log.rows_of(probe) == [j for j in range(k + 1) if records[j].slot == probe]
    data = pickle.dumps(log, protocol=pickle.HIGHEST_PROTOCOL)
    check = (
        "import pickle, sys\n"
        "log = pickle.loads(sys.stdin.buffer.read())\n"
        "slots = {}\n"
        "for k in range(len(log)): slots.setdefault(log.slot_of(k), []).append(k)\n"
        "assert all(log.rows_of(s) == rows for s, rows in slots.items()), 'a slot is lost'\n"
        "print(len(slots))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], input=data, capture_output=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert int(done.stdout) == len({r.slot for r in records})


def test_a_log_holds_a_fraction_of_the_memory_of_the_summaries() -> None:
    summaries = [parse_summary(line) for line in _lines(3000)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        log = SummaryLog(summaries)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert log == summaries
    # About 150 bytes a game with these names and ids; the summaries as objects, about 710
    # (tests/test_summary_memory.py).
    assert held / len(log) < 250, held / len(log)


def test_the_records_that_are_not_the_folders_are_told_apart_in_a_log() -> None:
    """foreign() names the records of another tournament, or that its plan refuses, by
    identity: a log makes its summaries anew at each pass, and still loses exactly those."""
    records = made_up(4, 200, ["p", "q", "r"])
    records = [
        dataclasses.replace(r, event="another") if k % 37 == 5 else dataclasses.replace(r, event="t")
        for k, r in enumerate(records)
    ]

    def misfits(found: Sequence[GameSummary]) -> list[GameSummary]:
        return [r for r in found if r.labels == ("r", "p")]

    expected, told = foreign(records, ["t"], misfits)
    kept, words = foreign(SummaryLog(records), ["t"], misfits)
    assert list(kept) == list(expected) and words == told and words is not None
    assert len(kept) == len([r for r in records if r.event == "t" and r.labels != ("r", "p")]) < len(records)
    clean = [r for r in records if r.event == "t" and r.labels != ("r", "p")]
    log = SummaryLog(clean)
    assert foreign(log, ["t"], misfits) == (log, None)  # nothing to drop: the log itself


def test_a_rating_history_from_the_columns_is_the_lists() -> None:
    # A page's rating history (and an SPRT's LLR history) reads a log's rating view from its
    # columns: the same points, to the last bit, as from the summaries themselves.
    names = ["p", "q", "r", "s"]
    test = Sprt(0.0, 10.0)
    points = 0
    for seed in range(4):
        records = made_up(seed, 400, names)
        log = SummaryLog(records)
        view = latest_records(log)
        assert isinstance(view, SummaryView)
        for games, listed in ((log, records), (view, list(view)), (log[:37], records[:37])):
            assert rating_history(games, names) == rating_history(list(listed), names)
            assert rating_history(games, names, anchor="q", anchor_rating=1000.0, checkpoints=5) == (
                rating_history(list(listed), names, anchor="q", anchor_rating=1000.0, checkpoints=5)
            )
            for candidate in names:
                llr = llr_history(games, test, candidate)
                assert llr == llr_history(list(listed), test, candidate)
                points += len(llr)
    assert points > 100  # completed pairs to compare


def test_repeats_and_misfits_from_the_columns_are_the_lists() -> None:
    # A report's check for games repeated move for move, and a plan's check of a folder's
    # records, read a log's columns: the same repeats and the same misfits (equal summaries,
    # in order) as from the summaries themselves.
    from referee.play.spec import OpeningKind
    from referee.tournament.plans.fixed import RoundRobinSpec
    from referee.tournament.plans.plan import Field, misfits_of

    names = ["p", "q", "r"]
    field = Field(tuple(names), OpeningKind.PIE)
    plan = RoundRobinSpec(200, 2).make_plan(field)
    schedule = list(RoundRobinSpec(200, 2).games_of(field))
    rng = random.Random(9)
    for seed in range(3):
        records = []
        for k, s in enumerate(made_up(seed, 300, names)):
            game = schedule[k % len(schedule)]
            labels = (game.first, game.second) if rng.random() < 0.9 else s.labels  # some misfit
            moves = s.moves if rng.random() < 0.8 else rng.randrange(5)  # some repeat
            bots = (
                dataclasses.replace(s.bots[0], label=labels[0]),
                dataclasses.replace(s.bots[1], label=labels[1]),
            )
            records.append(dataclasses.replace(s, slot=game.slot, labels=labels, bots=bots, moves=moves))
        records.append(dataclasses.replace(records[0], slot="not a slot"))
        log = SummaryLog(records)
        for rows, listed in ((log, records), (log[::2], records[::2]), (latest_records(log), None)):
            listed = list(rows) if listed is None else listed
            repeats = repeated_games(rows)
            assert repeats == repeated_games(listed) and len(repeats) > 5
            misfits = plan.misfits(rows)
            assert misfits == plan.misfits(listed) and len(misfits) > 5
            assert misfits_of(schedule, rows) == misfits_of(schedule, listed) == misfits
