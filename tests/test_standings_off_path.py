"""The run's standings off the games' path, and a page that grows (issue 23, items 1-2):
games finish while a slow standings page is being written; a finished run's page is the
page of its records as it always was; the replays are made once a game, reused when right
and made again when not; the ratings of a prefix kept as games arrive are the cold fit's."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import math
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
import runs
import trio

from referee.play.lateness import Lateness
from referee.play.records import (
    FORFEITS,
    BotStats,
    BotSummary,
    FaultEntry,
    GameRecord,
    GameSummary,
    Termination,
)
from referee.ratings import history as history_module
from referee.ratings.elo import RunningCounts, compute_ratings
from referee.ratings.forfeits import time_loss_warnings
from referee.ratings.history import Trail, llr_history, rating_history
from referee.ratings.model import GameResult
from referee.ratings.pentanomial import pentanomial_table
from referee.ratings.report import RunningStandings, Standings, _lines, game_result, standings
from referee.ratings.sprt import Sprt
from referee.render.standings_html import RatingPoint, standings_page
from referee.render.standings_text import summary_line
from referee.tournament.config.loading import load_config
from referee.tournament.plans import plan as plans
from referee.tournament.runner import Tournament
from referee.tournament.store.folder import latest_records, load_standings
from referee.tournament.store.pages import PAGE, report_page
from referee.tournament.store.replays import MAX_REPLAYS, REPLAYS, ReplayWindow
from referee.tournament.store.results import ResultsFile
from referee.tournament.store.standings_process import HEADER, NICE, Worker, frame
from referee.tournament.store.summary_log import SummaryLog

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def bots(marker: str, n: int = 2, *slow: str) -> list[dict[str, object]]:
    return [
        {
            "name": f"b{i}",
            "command": [sys.executable, str(FAKEBOT), "--seed", str(i), *slow],
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
        for i in range(1, n + 1)
    ]


def config_of(tmp_path: Path, marker: str, games: int, out: str = "out", *slow: str):  # type: ignore[no-untyped-def]
    path = runs.write_config(
        tmp_path,
        bots(marker, 2, *slow),
        out=out,
        name="t",
        opening="empty",
        time_control={"per_move": 2.0, "margin": 0.5},
        schedule={"kind": "round_robin", "games_per_pair": games},
        concurrency=1,
    )
    return load_config(path)


def the_page_as_it_was(folder: Path, st, title: str, names, progress) -> str:  # type: ignore[no-untyped-def]
    """The page as pages.py made it before it grew: every replayed record parsed whole and
    replayed now, over the latest record of each slot."""
    rf = ResultsFile(folder / "results.jsonl")
    summaries = latest_records(rf.summaries().records)
    records = latest_records(rf.last_records(MAX_REPLAYS))
    history = [RatingPoint(g, elo) for g, elo in rating_history(summaries, names)]
    return standings_page(st, records, title=title, history=history, progress=progress, running=False)


async def test_a_finished_runs_page_is_the_page_of_its_records_and_the_replays_are_made_once(
    tmp_path, marker
):
    config = config_of(tmp_path, marker, 6)
    with trio.fail_after(120):
        result = await Tournament(config, out=io.StringIO(), standings_every=2).run()
    assert result.played == 6
    folder = config.output
    page = (folder / PAGE).read_text(encoding="utf-8")
    assert page == the_page_as_it_was(folder, result.standings, "t: standings", config.bot_names, (6, 6))
    # Every game's replay is in the run's cache, tied to its record: a report makes none.
    st, title = load_standings(folder)
    with ReplayWindow(folder / "results.jsonl", cache=folder / REPLAYS) as window:
        window.update()
        assert window.made == 0 and len(window.kept()) == 6
    report = report_page(folder, st, title)
    # A wrong entry (a byte changed) is made again from its record, never shown as it is.
    cache = folder / REPLAYS
    lines = cache.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"id":"', b'"id":"X', 1)
    cache.write_bytes(b"".join(lines))
    with ReplayWindow(folder / "results.jsonl", cache=cache) as window:
        window.update()
        assert window.made == 1
    assert report_page(folder, st, title) == report
    cache.unlink()  # and without the cache, the same page from the results alone
    assert report_page(folder, st, title) == report
    assert report == the_page_as_it_was(folder, st, title, [line.name for line in st.lines], None)


async def test_a_window_holds_where_its_lines_are_not_their_records(tmp_path, marker):
    """The replays of a page are the latest lines' (of each slot), each made once, from
    one record read at a time; lines past the window are never parsed."""
    config = config_of(tmp_path, marker, 6)
    with trio.fail_after(120):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    results = config.output / "results.jsonl"
    with ReplayWindow(results, window=4) as window:
        assert window.update() == 4  # the last 4 of 6 lines
        assert window.made == 4 and all(not isinstance(x, GameRecord) for x in vars(window).values())
        kept = window.kept()
        expected = [r.slot for r in latest_records(ResultsFile(results).last_records(4))]
        assert [line.slot for line in kept] == expected
        assert len(list(window.entries(kept))) == 4
        assert window.update() == 0  # nothing new: nothing read again


def clone(record: GameRecord, slot) -> GameRecord:  # type: ignore[no-untyped-def]
    assert record.tournament is not None
    tournament = dataclasses.replace(
        record.tournament, slot=slot.slot, index=slot.index, round=slot.round, pair_key=slot.pair_key
    )
    return dataclasses.replace(record, game_id=slot.slot, tournament=tournament)


async def test_games_finish_while_a_slow_standings_page_is_written(tmp_path, marker):
    """The standings of a run that resumes 1,500 games must replay them all for its first
    page (a third of a second or more of engine work, no mock): games go on finishing while
    it is written."""
    # Games of a few hundredths of a second, several times shorter than that page (it was
    # once longer than a game of a third of a second; the replays got faster); and enough of
    # them that the run outlasts the page on a loaded machine, where the standings process,
    # at a background priority, gets a tenth of a busy core.
    slow = ("--fault", "slow", "--delay", "0.002")
    new_games = 200
    small = config_of(tmp_path, marker, 2, "small", *slow)
    with trio.fail_after(120):
        await Tournament(small, out=io.StringIO(), standings_every=0).run()
    seeds = {r.labels: r for r in ResultsFile(small.output / "results.jsonl").load().records}
    big = config_of(tmp_path, marker, 1500 + new_games, "out", *slow)
    schedule = runs.build_schedule(big)
    big.output.mkdir()
    rf = ResultsFile(big.output / "results.jsonl")
    with rf.appender() as appender:
        for game in schedule[:1500]:
            appender.append(clone(seeds[(game.first, game.second)], game))
    run = Tournament(big, out=io.StringIO(), standings_every=10, adopt=True)
    with trio.fail_after(600):
        result = await run.run()
    assert result.resumed == 1500 and result.played == new_games
    new = rf.load().records[1500:]
    ended = [datetime.fromisoformat(r.ended_at).timestamp() for r in new]
    writes = run.publisher.writes
    assert writes, "no page was written while the run went on"
    start, end, covered = writes[0]
    during = [t for t in ended if start < t < end]
    # Games were recorded while the first page was being written, and it covered only the
    # games recorded before it started: nobody waited for it.
    assert during, (writes, ended)
    assert covered < 1500 + new_games
    assert (big.output / PAGE).read_text(encoding="utf-8") == the_page_as_it_was(
        big.output, result.standings, "t: standings", big.bot_names, (1500 + new_games,) * 2
    )


def test_running_counts_are_the_cold_fit_of_every_prefix() -> None:
    """RunningCounts.ratings after each game is compute_ratings of the games so far, to
    the last bit: opening pairs, lone games, keys of one and of three games, bots that
    arrive late, draws, a bot that wins everything."""
    rng = random.Random(23)
    names = ["p", "q", "r", "s", "t"]
    for trial in range(25):
        field = names[: rng.randrange(2, 6)]
        counts = RunningCounts()
        games: list[GameResult] = []
        for _ in range(rng.randrange(1, 60)):
            a, b = rng.sample(field, 2)
            key = None if rng.random() < 0.3 else f"k{rng.randrange(20)}"
            score = 1.0 if trial % 5 == 0 and a == field[0] else rng.choice([0.0, 0.5, 1.0])
            game = GameResult(a, b, score, key)
            games.append(game)
            counts.add(game)
            bots = [n for n in field if n in counts.seen]
            anchor = bots[0] if trial % 2 else None
            for intervals in (0, 1000):
                cold = compute_ratings(games, bots, anchor=anchor, anchor_rating=7.0, bootstrap=intervals)
                warm = counts.ratings(bots, anchor=anchor, anchor_rating=7.0, bootstrap=intervals)
                assert repr(warm) == repr(cold)
        assert repr(counts.ratings()) == repr(compute_ratings(games))


def summaries(seed: int, count: int, names: list[str]) -> list[GameSummary]:
    """Summaries of made-up games: opening pairs and lone games, draws, forfeits and losses
    on time (late or not), void games, the referee's lateness; some slots
    come again (a void one played again, a second result that is not rated)."""
    rng = random.Random(seed)
    out: list[GameSummary] = []
    for k in range(count):
        a, b = rng.sample(names, 2)
        void = rng.random() < 0.08
        kinds = [Termination.SCORE, Termination.TIME, Termination.ILLEGAL]
        kind = Termination.VOID if void else rng.choice(kinds)
        winner = None if void or rng.random() < 0.15 else rng.randrange(2)
        fault = None
        if kind is not Termination.SCORE and not void:
            winner = rng.randrange(2)
            fault = FaultEntry(1 - winner, kind, None, None, late=rng.choice([None, 0.02]), overshoot=None)

        def stats() -> BotStats:
            return BotStats(
                requests=rng.randrange(0, 40),
                overhead_us=rng.random() * 30,
                late=rng.choice([0, 0, 2]),
                late_max=round(rng.random() * 0.01, 6),
            )

        slot = f"s{k}" if k < 10 or rng.random() < 0.85 else f"s{rng.randrange(k)}"  # some come again
        key = rng.choice([None, f"k{rng.randrange(count // 2 + 1)}"])
        bots = (BotSummary(a, stats()), BotSummary(b, stats()))
        out.append(GameSummary(f"g{k}", slot, (a, b), winner, kind, fault, key, bots, k))
    return out


def close(a: object, b: object) -> bool:
    """Equal but for floats within a millionth (a warm-started fit's last digits)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    if dataclasses.is_dataclass(a) and not isinstance(a, type) and type(a) is type(b):
        return all(close(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(close, a, b))
    return a == b


def one_pass(
    records: list[GameSummary], names: list[str], *, anchor: str | None, anchor_rating: float, bootstrap: int
) -> Standings:
    """The standings as they were computed before they were counted record by record: one
    pass over a list, the ratings of every game's result, the pentanomial table of them
    (the reference RunningStandings must agree with)."""
    results: list[GameResult] = []
    failures = {n: dict.fromkeys(FORFEITS, 0) for n in names}
    cross: dict[str, dict[str, tuple[float, int]]] = {n: {} for n in names}
    void = 0
    overhead_sum: dict[str, float] = {}
    overhead_n: dict[str, int] = {}
    for r in records:
        for entry in r.bots:
            n = entry.stats.requests
            if n:
                overhead_sum[entry.label] = overhead_sum.get(entry.label, 0.0) + entry.stats.overhead_us * n
                overhead_n[entry.label] = overhead_n.get(entry.label, 0) + n
        g = game_result(r)
        if g is None:
            void += 1
            continue
        results.append(g)
        for me, other, pts in ((g.a, g.b, g.score_a), (g.b, g.a, g.score_b)):
            p, n = cross[me].get(other, (0.0, 0))
            cross[me][other] = (p + pts, n + 1)
        if r.fault is not None and r.fault.kind.is_forfeit:
            failures[r.bots[r.fault.seat].label][r.fault.kind] += 1
    ratings = compute_ratings(
        results,
        names,
        anchor=anchor if anchor in names else None,
        anchor_rating=anchor_rating,
        bootstrap=bootstrap,
    )
    order = [r.name for r in ratings.ratings]
    pairs = pentanomial_table(results, order) if any(g.pair is not None for g in results) else []
    overhead = {name: (overhead_sum[name] / overhead_n[name], overhead_n[name]) for name in overhead_n}
    return Standings(
        _lines(ratings, failures),
        cross,
        pairs,
        len(records),
        void,
        list(ratings.warnings),
        overhead,
        ratings.anchor,
        lateness=Lateness.of(records),
    )


def test_running_standings_are_the_standings_of_every_prefix() -> None:
    """RunningStandings, cold, is the one-pass standings of the records so far to the last
    bit (and so is standings(), which counts with it), and warm-started from the last
    table's ratings the same to within the fit's tolerance."""
    names = ["p", "q", "r", "s"]
    for seed in range(3):
        records = [r for r in summaries(seed, 90, names) if r.slot == f"s{r.moves}"]  # one per slot
        running = RunningStandings(names)
        for k, r in enumerate(records):
            running.add(r)
            intervals = 100 if k % 6 == 5 else 0
            cold = one_pass(records[: k + 1], names, anchor="q", anchor_rating=5.0, bootstrap=intervals)
            again = running.standings(anchor="q", anchor_rating=5.0, bootstrap=intervals, warm=False)
            assert repr(again) == repr(cold), (seed, k)
            assert repr(
                standings(records[: k + 1], names, anchor="q", anchor_rating=5.0, bootstrap=intervals)
            ) == (repr(cold))
            warm = running.standings(anchor="q", anchor_rating=5.0, bootstrap=intervals)
            assert close(warm, cold), (seed, k)
        assert running.time_losses.warnings(names) == time_loss_warnings(records, names)
        # Without the bots named: those of the records, in the order they come; a generator
        # of records (read twice: once for the names) as a list.
        named: list[str] = []
        for r in records:
            named.extend(label for label in r.labels if label not in named)
        cold = one_pass(records, named, anchor=None, anchor_rating=0.0, bootstrap=100)
        assert repr(standings(records, bootstrap=100)) == repr(cold)
        assert repr(standings((r for r in records), bootstrap=100)) == repr(cold)


def test_the_standings_process_rates_the_latest_record_of_each_slot_as_the_run_does(tmp_path: Path) -> None:
    """The standings process's tables and pages, each counted as records arrive, are the
    run's standings of the same records (the latest record of each slot rated: a void game
    played again replaces it, a second result is not rated), but for the warm start; so is
    the one-line view, computed without the intervals it does not show."""
    names = ["p", "q", "r"]
    records = summaries(7, 240, names)
    settings = {
        "folder": tmp_path, "name": "t", "names": names, "anchor": None, "anchor_rating": 0.0,
        "bootstrap": 200, "warning": None,
    }  # fmt: skip
    worker = Worker(settings, records[:40])
    for r in records[40:]:
        worker.add(r)
    for count in [*range(1, 241, 13), 240]:
        expected = worker.publisher.standings(records[:count], None)
        for prefix in (worker.tables, worker.pages):
            assert close(worker.standings(count, None, prefix), expected), count
        # The one-line view, of the estimates alone (an interval only for a bound).
        assert summary_line(worker.standings(count, None, brief=True)) == summary_line(expected)
    sweep = [  # p wins every game: its rating is a bound, shown by its interval's end
        dataclasses.replace(r, labels=("p", "q"), winner=0, termination=Termination.SCORE, fault=None)
        for r in records[:5]
    ]
    swept = Worker({**settings, "folder": tmp_path / "sweep"}, sweep)
    line = summary_line(swept.standings(5, None, brief=True))
    assert line == summary_line(swept.publisher.standings(sweep, None)) and ">" in line
    first: dict[str, GameSummary] = {}
    again = []  # (the slot's first record, one that comes after it)
    for r in records:
        if r.slot in first:
            again.append((first[r.slot], r))
        first.setdefault(r.slot, r)
    assert any(before.is_void for before, _ in again)
    assert any(not before.is_void and not later.is_void for before, later in again)


def test_the_pages_histories_are_kept_as_the_games_come(tmp_path: Path) -> None:
    """The standings process keeps its pages' rating and LLR histories as it counts the
    games, so that a page takes no pass over the run: each point is the one
    ``rating_history`` (``llr_history``) makes of the same games (the latest record of
    each slot: a void game played again starts them afresh), between 24 and 48 of them
    once there are enough, and one at the latest game."""
    names = ["p", "q", "r"]
    records = summaries(11, 700, names)
    settings = {
        "folder": tmp_path, "name": "t", "names": names, "anchor": "q", "anchor_rating": 1000.0,
        "bootstrap": 0, "warning": None,
    }  # fmt: skip
    worker = Worker(settings, records[:30])
    for r in records[30:]:
        worker.add(r)
    sprt = Sprt(0.0, 10.0)
    test = plans.TestView(sprt, "p", sprt.status([0] * 5), "", False)
    restarted = 0
    for count in [1, 2, 9, 30, 31, 77, 160, 161, 450, 700]:
        before = worker.pages.running
        worker.standings(count, None, worker.pages)
        restarted += worker.pages.running is not before
        kept = latest_records(records[:count])
        every = dict(rating_history(kept, names, anchor="q", anchor_rating=1000.0, checkpoints=count + 1))
        history = worker.pages.ratings.history()
        assert history and history[-1][0] == max(every), count
        assert all(point == every[games] for games, point in history), count
        if max(every) >= 48:
            assert 24 < len(history) <= 49, (count, len(history))
        pairs = dict(llr_history(kept, sprt, "p"))  # fewer than 400: a point at every pair
        llr = worker.pages.llr_of(test).history()
        assert all(v == pairs[n] for n, v in llr), count
        assert [n for n, _ in llr[-1:]] == [max(pairs)] if pairs else llr == [], count
    assert restarted >= 2  # void games played again, among them
    with pytest.raises(AssertionError):  # the check can fail: a point of other games
        other = dict(rating_history(latest_records(records[:600]), names, checkpoints=601))
        assert all(point == other[games] for games, point in worker.pages.ratings.history())


def test_a_rating_trail_fits_only_the_points_it_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A point is fitted when a history is asked for, once; a point dropped before that
    (its step doubled) never is: with a large field's intervals, fits are the cost."""
    fitted = []
    real = history_module.rating_point

    def spy(counts: RunningCounts, *args: object) -> dict[str, float]:
        fitted.append(sum(counts._wins.values()) + sum(counts._draws.values()) // 2)
        return real(counts, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(history_module, "rating_point", spy)
    names = ["p", "q", "r"]
    games = [r for r in map(game_result, summaries(3, 900, names)) if r is not None]
    counts = RunningCounts()
    trail = history_module.RatingTrail(counts, names)
    for n, game in enumerate(games, 1):
        counts.add(game)
        trail.counted()
        if n == 40:
            assert [g for g, _ in trail.history()] == fitted == list(range(1, 41))
            fitted.clear()
    shown = trail.history()
    assert len(shown) < 49 and shown[-1][0] == len(games) > 800
    assert fitted == [g for g, _ in shown if g > 40]  # the points not fitted yet, and the latest
    fitted.clear()
    assert trail.history() == shown and fitted == [len(games)]  # the latest is not a point


def test_a_trail_keeps_points_at_a_step_that_doubles() -> None:
    trail: Trail[int] = Trail(4)
    for event in range(1, 1001):
        if trail.due(event):
            trail.add(event, -event)
        assert len(trail.points) <= 8
        assert [e for e, _ in trail.points] == list(range(trail.step, event + 1, trail.step))
    assert trail.step == 128 and [e for e, _ in trail.points] == [128 * k for k in range(1, 8)]
    assert trail.upto(1000, lambda: 0)[-1] == (1000, 0) and trail.upto(896, lambda: 0)[-1] == (896, -896)
    assert Trail[int](4).upto(0, lambda: 1) == []


@contextlib.contextmanager
def standings_process() -> Iterator[subprocess.Popen[bytes]]:
    """The real standings process, as the runner starts it; its input closed at the end of
    the block, and it must then end by itself (else it is killed, and the test fails)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.tournament.store.standings_process"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        yield proc
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _reply(proc: subprocess.Popen[bytes]) -> object:
    assert proc.stdout is not None
    head = proc.stdout.read(HEADER.size)
    assert len(head) == HEADER.size, "the standings process ended without answering"
    return pickle.loads(proc.stdout.read(HEADER.unpack(head)[0]))


async def test_the_standings_process_makes_the_replays_between_requests(tmp_path, marker):
    """Given games and no request for files, the standings process (the real one, as the
    runner starts it) makes their replays while it waits, into the run's cache (flushed:
    there while it runs): the page, and the run's own at its end, then make none. Only
    whole lines of the results are replayed; a line being written waits for the next look."""
    config = config_of(tmp_path, marker, 4)
    with trio.fail_after(120):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    folder = config.output
    cache = folder / REPLAYS
    cache.unlink()  # the run's end made them: start again without
    results = folder / "results.jsonl"
    records = ResultsFile(results).summaries().records
    assert len(records) == 4
    with results.open("ab") as fh:
        fh.write(b'{"torn": ')  # a record being written: no whole line yet
    settings = {
        "folder": folder, "name": "t", "names": config.bot_names, "anchor": None,
        "anchor_rating": 0.0, "bootstrap": 0, "warning": None,
    }  # fmt: skip
    with standings_process() as proc:
        assert proc.stdin is not None
        table = ("table", 4, 4, True, False, None)  # a one-line view: nothing to do with pages
        proc.stdin.write(frame(("init", settings, [])) + frame(("games", SummaryLog(records))))
        proc.stdin.write(frame(table))
        proc.stdin.flush()
        assert _reply(proc)[0] == "say"
        # Nothing more is asked: it makes the replays (at once, or at its next look).
        with trio.fail_after(30):
            while not cache.exists() or len(cache.read_bytes().splitlines()) < 4:
                await trio.sleep(0.05)
        proc.stdin.write(frame(table))  # and it still answers
        proc.stdin.flush()
        assert _reply(proc)[0] == "say"
    cached = cache.read_bytes().splitlines()
    assert len(cached) == 4  # one entry a game, none for the torn line
    with ReplayWindow(results, keep=cache) as window:
        window.update()
        assert window.made == 0 and len(window.kept()) == 4  # all found made, none made again


async def test_the_standings_process_yields_the_cores_to_the_bots(tmp_path, marker):
    """The standings process, as the runner starts it, runs at a background priority: its
    work can wait, and the bots' clocks run while they wait for a core."""
    config = config_of(tmp_path, marker, 2)
    with trio.fail_after(120):
        await Tournament(config, out=io.StringIO(), standings_every=0).run()
    settings = {
        "folder": config.output, "name": "t", "names": config.bot_names, "anchor": None,
        "anchor_rating": 0.0, "bootstrap": 0, "warning": None,
    }  # fmt: skip
    records = ResultsFile(config.output / "results.jsonl").summaries().records
    with standings_process() as proc:
        assert proc.stdin is not None
        proc.stdin.write(frame(("init", settings, [])) + frame(("games", SummaryLog(records))))
        proc.stdin.write(frame(("table", 2, 2, True, False, None)))
        proc.stdin.flush()
        assert _reply(proc)[0] == "say"  # it has run: its priority is set
        assert _nice(proc.pid) == min(os.nice(0) + NICE, 19) and NICE == 10  # below this process


def _nice(pid: int) -> int:
    """The niceness of process ``pid`` (``/proc/PID/stat``'s 19th field)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
