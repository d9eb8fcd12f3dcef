"""The first day with the arena (issue 24): start-up failures that do not poison a run,
pages that finish, forfeits explained, a match that names its bots. Real processes."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import runs
import trio
import yaml
from processes import wait_until_gone
from runs import FAST

from referee.errors import ResultsError, RunStopped
from referee.play.records import Termination
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent

# Bots that fail before the first decision, each in the way a first-day bot does.
BROKEN = {
    # dies in its handshake (a missing module, a bad interpreter)
    "exits": "import sys; sys.exit(3)",
    # a banner on stdout: the handshake's answer is not an answer
    "banner": "import sys, time; print('Welcome to mybot 1.0'); sys.stdout.flush(); time.sleep(60)",
    # warms up for longer than the start-up deadline
    "slow": "import time; time.sleep(60)",
}


def bot(name, *args, marker):
    return {
        "name": name,
        "command": [sys.executable, str(FAKEBOT), *args],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
    }


def write_config(tmp_path, bots, **overrides):
    settings = {
        **FAST,
        "schedule": {"kind": "round_robin", "games_per_pair": 2},
        "concurrency": 1,
        **overrides,
    }
    return runs.write_config(tmp_path, bots, name="t", **settings)


def records(folder: Path):
    return ResultsFile(folder / "results.jsonl").load().records


@pytest.mark.parametrize("how", sorted(BROKEN))
async def test_a_bot_failing_at_start_up_voids_and_its_fixed_command_plays_the_games(tmp_path, marker, how):
    good = [bot("g1", "--seed", "1", marker=marker), bot("g2", "--seed", "2", marker=marker)]
    broken = {
        "name": "newbie",
        "command": [sys.executable, "-c", BROKEN[how]],
        "env": {"VASTUZ_TEST_MARKER": marker},
    }
    path = write_config(tmp_path, [*good, broken])
    # A short start-up deadline, so the slow bot's warm-up is over it (the config key is issue 25's).
    config = dataclasses.replace(load_config(path), startup_timeout=1.0)
    out = io.StringIO()
    with trio.fail_after(120):
        with pytest.raises(RunStopped) as info:
            await Tournament(config, out=out, bootstrap=50).run()
    message = str(info.value)
    assert "bot newbie could not start 3 times in a row" in message
    assert "fix its command, cwd or env" in message
    recs = records(config.output)
    newbie = [r for r in recs if "newbie" in r.labels]
    assert len(newbie) == 3
    for r in newbie:  # never a rated result: void, the bot named, what it did kept
        assert r.termination is Termination.VOID and r.winner is None
        assert r.reason.startswith("start-up failure: bot newbie failed before the game's first decision")
        assert r.fault is not None and r.labels[r.fault.seat] == "newbie"
    kind = {"exits": Termination.CRASH, "banner": Termination.PROTOCOL, "slow": Termination.TIME}[how]
    assert {r.fault.kind for r in newbie if r.fault is not None} == {kind}
    st = json.loads((config.output / "standings.json").read_text())
    by = {b["name"]: b for b in st["bots"]}
    assert by["newbie"]["games"] == 0  # no forfeit rated against it
    page = _page(config.output)  # a run that stopped says so, and does not reload
    assert 'http-equiv="refresh"' not in page and "stopped: " in page

    # Fixing the command is allowed (the bot has no rated game), and its void games are played.
    data = yaml.safe_load(path.read_text())
    data["bots"][2] = {**bot("newbie", "--seed", "3", marker=marker), "name": "newbie"}
    path.write_text(yaml.safe_dump(data))
    fixed = load_config(path)
    with trio.fail_after(120):
        result = await Tournament(fixed, out=io.StringIO(), bootstrap=50).run()
    assert result.played == result.total - result.resumed and not result.interrupted
    latest = {r.slot: r for r in records(config.output)}
    assert len(latest) == result.total and not any(r.is_void for r in latest.values())
    page = _page(config.output)  # a finished run too
    assert 'http-equiv="refresh"' not in page and f"finished: {len(latest)} of {len(latest)} games" in page
    assert wait_until_gone(marker) == []


async def test_a_refused_resume_says_how_to_start_over(tmp_path, marker):
    bots = [bot("g1", "--seed", "1", marker=marker), bot("g2", "--seed", "2", marker=marker)]
    path = write_config(tmp_path, bots)
    config = load_config(path)
    with trio.fail_after(120):
        await Tournament(config, out=io.StringIO(), bootstrap=50).run()
    # g2 has rated games: its command may not change, nor the board.
    data = yaml.safe_load(path.read_text())
    data["bots"][1]["command"] = [*data["bots"][1]["command"], "--fault", "slow"]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ResultsError) as info:
        await Tournament(load_config(path), out=io.StringIO()).run()
    message = str(info.value)
    assert "after it played (g2 has 2 rated game(s)" in message
    assert "To start over, delete the folder (rm -r " in message and "--output DIR" in message
    data["board_size"] = 4
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(
        ResultsError, match=r"board_size: was 3, now 4(.|\n)*To start over, delete the folder"
    ):
        await Tournament(load_config(path), out=io.StringIO()).run()
    assert wait_until_gone(marker) == []


# ------------------------------------------------------------------ 2: pages that finish


def _page(folder: Path) -> str:
    return (folder / "standings.html").read_text()


async def test_a_decided_sprt_writes_a_page_that_says_so_and_does_not_reload(tmp_path, marker):
    bots = [bot("new", "--seed", "1", marker=marker), bot("old", "--fault", "resign", marker=marker)]
    sprt = {
        "kind": "sprt",
        "elo0": 0,
        "elo1": 200,
        "model": "logistic",
        "alpha": 0.2,
        "beta": 0.2,
        "max_games": 200,
    }
    config = load_config(write_config(tmp_path, bots, schedule=sprt, concurrency=2))
    with trio.fail_after(120):
        result = await Tournament(config, out=io.StringIO(), bootstrap=50).run()
    assert result.standings is not None and result.standings.sprt is not None
    assert "H1 accepted" in result.standings.sprt.words and result.played < 200
    page = _page(config.output)
    assert 'http-equiv="refresh"' not in page
    assert f"finished: {result.played} of {result.played} games" in page
    # A page an earlier version left (in progress, reloading), newer than the results: a
    # resume that plays nothing replaces it.
    stale = page.replace("<title>", '<meta http-equiv="refresh" content="5"><title>', 1)
    (config.output / "standings.html").write_text(stale.replace("finished:", "in progress:"))
    with trio.fail_after(60):
        again = await Tournament(config, out=io.StringIO(), bootstrap=50).run()
    assert again.played == 0
    page = _page(config.output)
    assert 'http-equiv="refresh"' not in page and "in progress" not in page
    assert f"finished: {result.played} of {result.played} games" in page
    assert wait_until_gone(marker) == []


# ------------------------------------------------------------------ 3: forfeits explained


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``vastuz ARGS`` as a user runs it: a process of its own (bounded wait)."""
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_losses_on_time_past_a_few_percent_are_warned_about_with_advice(tmp_path, marker):
    bots = [
        bot("g1", "--seed", "1", marker=marker),
        bot("g2", "--seed", "2", marker=marker),
        bot("laggy", "--fault", "slow", "--delay", "1.5", marker=marker),
    ]
    path = write_config(tmp_path, bots, time_control={"per_move": 0.3, "margin": 0.2})
    run = cli("tournament", str(path), "--standings-every", "0")
    assert run.returncode == 0, run.stderr
    warning = "warning: laggy lost 4 of its 4 games on time (100%;"
    assert warning in run.stdout and "time_control margin" in run.stdout and "concurrency" in run.stdout
    assert "warning: g1 lost" not in run.stdout and "warning: g2 lost" not in run.stdout
    report = cli("report", str(tmp_path / "out"))
    assert report.returncode == 0 and warning in report.stdout
    assert wait_until_gone(marker) == []


# ------------------------------------------------------------------ 5: vastuz match


def _fakebot(*args: str) -> str:
    return shlex.join([sys.executable, str(FAKEBOT), *args])


def test_a_match_names_its_bots_by_their_answers_or_the_options(tmp_path, marker):
    good, other = _fakebot("--seed", "1"), _fakebot("--seed", "2", "--fault", "wrong-score")
    run = cli("match", good, other, "--games", "2", "--size", "3", "--out", str(tmp_path / "m"))
    assert run.returncode == 0, run.stderr
    # Their answers to 'name'; colours stay in brackets, never a bot's name.
    names = "(fakebot-good|fakebot-wrong-score)"
    assert len(re.findall(rf"g000[12]: {names} \(B\) - {names} \(W\)", run.stdout)) == 2, run.stdout
    assert "Elo difference fakebot-good - fakebot-wrong-score: " in run.stdout
    assert " A (" not in run.stdout and " B (" not in run.stdout
    recs = records(tmp_path / "m")
    assert {r.labels for r in recs} == {
        ("fakebot-good", "fakebot-wrong-score"),
        ("fakebot-wrong-score", "fakebot-good"),
    }
    named = cli(
        "match", good, other, "--games", "2", "--size", "3", "--out", str(tmp_path / "n"),
        "--name-a", "mine", "--name-b", "theirs",
    )  # fmt: skip
    assert named.returncode == 0, named.stderr
    assert "mine: " in named.stdout and "Elo difference mine - theirs: " in named.stdout
    assert {r.labels for r in records(tmp_path / "n")} == {("mine", "theirs"), ("theirs", "mine")}


def test_a_match_plays_a_book(tmp_path):
    book = ROOT / "configs" / "book-5.txt"
    first = next(line for line in book.read_text().splitlines() if line and not line.startswith("#"))
    stones = first.split("#")[0].split()
    run = cli(
        "match", _fakebot("--seed", "1"), _fakebot("--seed", "2"), "--games", "2", "--size", "5",
        "--book", str(book), "--name-a", "x", "--name-b", "y", "--out", str(tmp_path / "m"),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    recs = records(tmp_path / "m")
    assert len(recs) == 2 and recs[0].pair_key == recs[1].pair_key
    for r in recs:
        assert r.setup is not None and [r.setup.black, r.setup.white] == stones[:2]
        assert [t.turn for t in r.turns if t.opening] == stones[2:]


def test_a_match_that_rates_no_game_exits_1(tmp_path):
    never = shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"])
    run = cli(
        "match", _fakebot("--seed", "1"), never, "--games", "2", "--size", "3", "--out", str(tmp_path / "m")
    )
    assert run.returncode == 1
    assert "no game was rated" in run.stderr
    assert all(r.is_void for r in records(tmp_path / "m"))


# ------------------------------------------------------------------ 6: the Dask recipe after the quick start


def test_the_dask_recipe_after_a_local_run_plays_into_its_own_folder(tmp_path, marker):
    pytest.importorskip("distributed", reason="the cluster extra: pip install -e '.[cluster]'")
    from test_dask_cli import Cluster

    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    path = write_config(tmp_path, bots)
    local = cli("tournament", str(path), "--standings-every", "0")
    assert local.returncode == 0, local.stderr
    cluster = Cluster(tmp_path)
    try:
        name, _ = cluster.worker("w1")
        cluster.wait_for_workers(1)
        # The README's recipe, run after the quick start: its own output folder, so it plays.
        other = tmp_path / "on-dask"
        run = cli("tournament", str(path), "--dask", cluster.address, "--output", str(other), timeout=300)
    finally:
        cluster.close()
    assert run.returncode == 0, run.stderr
    assert "resuming" not in run.stdout and f"on {name}" in run.stdout
    assert len(records(other)) == len(records(tmp_path / "out")) == 6
    assert wait_until_gone(marker, 20) == []


# ------------------------------------------------------------------ 4: a gauntlet's leaderboard


def test_a_gauntlet_leads_with_the_challenger_against_each_opponent(tmp_path, marker):
    bots = [
        bot("cand", "--seed", "1", marker=marker),
        bot("base1", "--seed", "2", marker=marker),
        bot("base2", "--fault", "resign", marker=marker),
    ]
    schedule = {"kind": "gauntlet", "challengers": ["cand"], "games_per_pair": 4}
    path = write_config(tmp_path, bots, schedule=schedule)
    run = cli("tournament", str(path), "--standings-every", "0")
    assert run.returncode == 0, run.stderr
    report = cli("report", str(tmp_path / "out"))
    assert report.returncode == 0, report.stderr
    for text in (run.stdout, report.stdout):
        table = text[text.index("cand against each opponent") :]
        # It leads: before the joint leaderboard, one row per opponent.
        assert table.index("base1") < table.index("rank ")
        lead = table[: table.index("rank ")]
        rows = [line.split() for line in lead.splitlines() if line.startswith("cand   ")]
        assert [row[1] for row in rows] == ["base1", "base2"] and all(row[2] == "4" for row in rows)
        assert rows[1][3] == "4-0-0" and rows[1][5] == ">"  # swept base2: a bound, not a number
        assert "(base1, base2) never met each other" in text and "not comparable with each other" in text
    st = json.loads((tmp_path / "out" / "standings.json").read_text())
    matches = st["sections"]["gauntlet"]["matches"]
    assert [(m["opponent"], m["games"]) for m in matches] == [("base1", 4), ("base2", 4)]
    assert wait_until_gone(marker) == []


# ------------------------------------------------------------------ 8: what a run prints


def test_a_run_prints_one_line_of_standings_unless_asked_for_the_table(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    path = write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 4})
    run = cli("tournament", str(path))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    one = [line for line in lines if line.startswith("    standings after 10 games: 1 ")]
    assert len(one) == 1 and all(f" b{i} " in one[0] + " " for i in range(3)), one
    assert "standings after 10 games\n" not in run.stdout  # no table along the way
    assert sum(line.startswith("rank ") for line in lines) == 1  # the table at the end only
    asked = cli("tournament", str(path), "--output", str(tmp_path / "again"), "--standings-every", "5")
    assert asked.returncode == 0, asked.stderr
    assert sum(line.startswith("rank ") for line in asked.stdout.splitlines()) == 3  # 5, 10, the end
    assert wait_until_gone(marker) == []


def test_a_match_sprt_prints_its_test_not_tables_and_names_its_intervals(tmp_path):
    run = cli(
        "match", _fakebot("--seed", "1"), _fakebot("--fault", "resign"), "--size", "3",
        "--sprt", "elo0=0,elo1=200", "--model", "logistic", "--alpha", "0.2", "--beta", "0.2",
        "--name-a", "new", "--name-b", "old", "--out", str(tmp_path / "m"),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "rank " not in run.stdout and "standings after" not in run.stdout
    assert "SPRT: games " in run.stdout and "SPRT: H1 accepted" in run.stdout
    assert "note: the SPRT line's Elo and nElo intervals are fastchess's" in run.stdout
    assert "pair Elo interval is a posterior one" in run.stdout


def test_check_with_many_games_keeps_its_lines_short(tmp_path):
    run = cli("check", _fakebot("--seed", "1"), "--games", "20", "--size", "3")
    assert run.returncode == 0, run.stdout + run.stderr
    games = [line for line in run.stdout.splitlines() if "games, every turn legal" in line]
    assert len(games) == 1 and "16 more, then game 20" in games[0] and len(games[0]) < 400, games


# ------------------------------------------------------------------ 9: the small items


def test_show_of_a_results_folder_says_which_file_to_show(tmp_path, marker):
    bots = [bot("g1", "--seed", "1", marker=marker), bot("g2", "--seed", "2", marker=marker)]
    path = write_config(tmp_path, bots)
    assert cli("tournament", str(path), "--standings-every", "0").returncode == 0
    run = cli("show", str(tmp_path / "out"))
    assert run.returncode != 0
    assert "a folder, not a file: try vastuz show " in run.stderr and "results.jsonl" in run.stderr, (
        run.stderr
    )
    assert f"vastuz report {tmp_path / 'out'}" in run.stderr
    assert wait_until_gone(marker) == []


def test_check_says_which_defaults_it_filled_in(tmp_path):
    path = tmp_path / "min.yaml"
    path.write_text(
        yaml.safe_dump(
            {"time_control": {"per_move": 0.5}, "bots": [bot("a", marker="m"), bot("b", marker="m")]}
        )
    )
    run = cli("tournament", str(path), "--check")
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("defaults filled in"))
    assert "board_size 7" in line and "opening pie" in line and "name min" in line
    assert "time_control" not in line and "bots" not in line  # given, not filled in
