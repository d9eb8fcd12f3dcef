"""The standings ``vastuz serve`` makes itself, kept (``referee.serve.runs.Made``): a run
that publishes none while it goes on (``--standings-every 0``) gets a page made again only
once the rest after the last one is over, its stamp the kept page's meanwhile, so a
followed page does not cost a pass over the results at every game; a stopped run's page is
made once per change of its results. Real results files and a real lock naming a live
process; the rest's clock is the test's own, so nothing here depends on timing."""

from __future__ import annotations

import html
import os
import re
import threading
from pathlib import Path

import pytest
import trio
from serving import finished_run, serving, until

from referee.play.game import play_game
from referee.play.memory import MemoryPlayer
from referee.play.records import GameRecord
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.serve import runs as runs_module
from referee.serve.runs import (
    COUNTED_RUNS,
    MADE_EVERY,
    MADE_RUNS,
    Made,
    Run,
    run_stamp,
    run_summary,
    standings_json,
    standings_page,
)
from referee.tournament.store.files import LOCK
from referee.tournament.store.results import ResultsFile
from sample_bots.random_bot import RandomBot


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def one_more_game(results: Path, game_id: str) -> None:
    async def play() -> GameRecord:
        players = [
            MemoryPlayer(RandomBot(seed=seat), label=label) for seat, label in enumerate(("alpha", "beta"))
        ]
        spec = GameSpec(size=5, opening=OpeningKind.PIE, time_control=TimeControl.fixed(1.0), game_id=game_id)
        async with trio.open_nursery() as nursery:
            return await play_game(players[0], players[1], spec, start_in=nursery)

    ResultsFile(results).append(trio.run(play))


def test_a_running_run_that_publishes_nothing_rests_between_pages(tmp_path: Path) -> None:
    folder = finished_run(tmp_path / "going")
    (folder / LOCK).write_text(f"{os.getpid()}\n", encoding="utf-8")  # a live process: running
    run, clock = Run("going", folder), Clock()
    made = Made(clock=clock)

    first = standings_page(run, made)
    stamp, running = run_stamp(run, made)
    assert running and made.made == 1 and stamp.startswith("results.jsonl-") and stamp.endswith("-running")
    table = standings_json(run, made)
    assert made.made == 2

    one_more_game(folder / "results.jsonl", "g5-new")
    clock.now += MADE_EVERY / 2  # within the rest: the kept page, the kept stamp
    assert standings_page(run, made) is first and standings_json(run, made) is table
    assert run_stamp(run, made) == (stamp, True) and made.made == 2
    assert "g5-new" not in first

    clock.now += 3600  # the rest is over: the results' stamp, and a new page with the new game
    changed, _ = run_stamp(run, made)
    assert changed != stamp and changed.startswith("results.jsonl-")
    second = standings_page(run, made)
    assert made.made == 3 and "g5-new" in second
    assert standings_json(run, made) != table and made.made == 4
    assert run_stamp(run, made) == (changed, True)  # resting again, at the new page's stamp

    # the run's own published page, once written since its start, wins over any made here
    (folder / "standings.html").write_text("<p>the run's own</p>", encoding="utf-8")
    assert standings_page(run, made) == "<p>the run's own</p>"
    assert run_stamp(run, made)[0].startswith("standings.html-") and made.made == 4


def test_a_stopped_runs_page_is_made_once_per_change_of_its_results(tmp_path: Path) -> None:
    folder = finished_run(tmp_path / "done")
    run, clock = Run("done", folder), Clock()
    made = Made(clock=clock)
    first = standings_page(run, made)
    assert standings_page(run, made) is first and made.made == 1
    stamp, running = run_stamp(run, made)
    assert not running and stamp.endswith("-stopped")
    one_more_game(folder / "results.jsonl", "g5-new")  # no rest for a stopped run: made again at once
    assert run_stamp(run, made)[0] != stamp
    second = standings_page(run, made)
    assert made.made == 2 and "g5-new" in second and "g5-new" not in first
    # a run that starts again in the folder: running, so its page is made again (it reloads)
    (folder / LOCK).write_text(f"{os.getpid()}\n", encoding="utf-8")
    assert standings_page(run, made) is not second and made.made == 3


def test_a_server_keeps_a_bounded_number_of_runs(tmp_path: Path) -> None:
    made = Made(clock=Clock())
    runs = [Run(f"r{k}", finished_run(tmp_path / f"r{k}")) for k in range(10)]
    for run in runs:
        standings_page(run, made)
    assert made.made == 10
    standings_page(runs[-1], made)  # the latest kept
    assert made.made == 10
    standings_page(runs[0], made)  # the oldest, let go past MADE_RUNS pages and tables: made again
    assert made.made == 11


def test_the_server_rests_between_the_pages_it_makes_for_a_running_run(tmp_path: Path) -> None:
    """The real server: a run going on that publishes nothing (its lock names a live
    process, the test's), a game recorded after its page was made. With ``--pages-every
    600`` the page and the stamp stay the ones made; with ``--pages-every 0`` the rest is
    the page's cost over 5% and then the stamp moves and the page shows the new game."""
    pytest.importorskip("hypercorn", reason="vastuz serve needs its extra: pip install -e '.[serve]'")
    pytest.importorskip("starlette", reason="vastuz serve needs its extra: pip install -e '.[serve]'")
    for every, game_id in (("600", "g5-new"), ("0", "g6-new")):
        folder = tmp_path / every / "going"
        finished_run(folder)
        (folder / LOCK).write_text(f"{os.getpid()}\n", encoding="utf-8")
        with serving(str(tmp_path / every), "--pages-every", every, cwd=tmp_path) as server:
            status, page = server.get("/runs/going/")
            assert status == 200 and "g1" in page
            found = re.search(r'data-stamp="([^"]+)"', page)
            assert found is not None
            stamp = html.unescape(found[1])
            assert stamp.startswith("results.jsonl-") and stamp.endswith("-running")
            one_more_game(folder / "results.jsonl", game_id)
            if every == "600":
                assert server.get("/api/runs/going/stamp")[1]["stamp"] == stamp
                assert server.get("/runs/going/")[1] == page and game_id not in page
                assert server.get("/api/runs/going/stamp")[1]["stamp"] == stamp
            else:

                def moved(after: str = stamp) -> str | None:
                    now = str(server.get(f"/api/runs/going/stamp?after={after}")[1]["stamp"])
                    return now if now != after else None

                assert until(moved, "the rest ends and the stamp moves", 60).endswith("-running")
                assert game_id in server.get("/runs/going/")[1]


def test_a_runs_games_are_counted_once_per_change_of_its_results(tmp_path: Path) -> None:
    """The listings (``/``, ``/api/runs``) count each run's games in a pass over its
    results: once per change of them, kept for as many runs as a listing shows."""
    runs = [Run(f"r{k}", finished_run(tmp_path / f"r{k}")) for k in range(MADE_RUNS + 2)]
    counts = Made(clock=Clock(), keep=COUNTED_RUNS)
    for _ in range(2):  # a second listing counts nothing again
        assert [run_summary(run, counts)["games"] for run in runs] == [4] * len(runs)
        assert counts.made == len(runs)
    one_more_game(runs[0].folder / "results.jsonl", "g5-new")
    assert run_summary(runs[0], counts)["games"] == 5 and counts.made == len(runs) + 1
    assert run_summary(runs[0])["games"] == 5  # without a keeper, counted at each call


def test_the_pages_kept_are_bounded_in_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the bytes allowed, the oldest runs' pages go (the latest asked always stays)."""
    runs = [Run(f"r{k}", finished_run(tmp_path / f"r{k}")) for k in range(3)]
    made = Made(clock=Clock())
    size = len(standings_page(runs[0], made))
    monkeypatch.setattr(runs_module, "MADE_BYTES", size * 2 + size // 2)  # room for two pages
    for run in runs[1:]:
        standings_page(run, made)
    assert made.made == 3
    standings_page(runs[2], made)
    standings_page(runs[1], made)
    assert made.made == 3  # the latest two kept
    standings_page(runs[0], made)  # the oldest, let go: made again
    assert made.made == 4
    monkeypatch.setattr(runs_module, "MADE_BYTES", 0)
    standings_page(runs[2], made)  # let go before: made again, and now kept alone
    assert made.made == 5
    standings_page(runs[2], made)
    standings_page(runs[1], made)  # let go at the last making
    assert made.made == 6


def test_a_pipe_or_a_link_in_place_of_the_runs_files_is_not_read(tmp_path: Path) -> None:
    """A bot runs as the arena's user and may reach the output folder: a pipe put in place
    of the run's page would block a reader forever, a link would point elsewhere. The
    server makes the page itself rather than read either."""
    folder = finished_run(tmp_path / "going")
    (folder / LOCK).write_text(f"{os.getpid()}\n", encoding="utf-8")
    run = Run("going", folder)
    os.mkfifo(folder / "standings.html")  # written after the lock: "published" by its time
    (folder / "standings.json").symlink_to(folder / "results.jsonl")
    answers: list[object] = []
    reader = threading.Thread(
        target=lambda: answers.extend([standings_page(run), standings_json(run)]), daemon=True
    )
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "the server blocked on a pipe in the run's folder"
    page, table = answers
    assert isinstance(page, str) and "g1" in page and isinstance(table, dict) and "bots" in table
