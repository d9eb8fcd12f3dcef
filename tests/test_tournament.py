"""Tournaments end to end: faulty bots, durable results, resume after a kill, Ctrl-C."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import runs
import trio
import yaml
from processes import processes_with, wait_until_gone
from runs import FAST, build_schedule

from referee.errors import ResultsError, RunStopped
from referee.play.records import GameRecord, Termination
from referee.tournament.config.loading import load_config
from referee.tournament.config.values import LogSpec
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def bot(name, *args, marker):
    return {
        "name": name,
        "command": [sys.executable, str(FAKEBOT), *args],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
    }


def write_config(tmp_path, bots, **overrides):
    settings = {**FAST, "schedule": {"kind": "round_robin", "games_per_pair": 2}, **overrides}
    return runs.write_config(tmp_path, bots, name="t", **settings)


def records(folder: Path) -> list[GameRecord]:
    return ResultsFile(folder / "results.jsonl").load().records


def slots(recs: list[GameRecord]) -> list[str]:
    assert all(r.tournament is not None and r.tournament.slot == r.game_id for r in recs)
    return [r.slot for r in recs]


async def test_faulty_bots_lose_their_games_and_healthy_ones_are_unaffected(tmp_path, marker):
    bots = [
        bot("good1", "--seed", "1", marker=marker),
        bot("good2", "--seed", "2", marker=marker),
        bot("crasher", "--fault", "crash", "--after", "1", marker=marker),
        bot("hanger", "--fault", "hang", "--after", "1", marker=marker),
        bot("garbage", "--fault", "garbage", "--after", "1", marker=marker),
    ]
    config = load_config(write_config(tmp_path, bots, time_control={"per_move": 0.3, "margin": 0.2}))
    out = io.StringIO()
    with trio.fail_after(120):
        result = await Tournament(config, out=out, standings_every=5, bootstrap=100).run()
    assert not result.interrupted and result.played == result.total == 20
    recs = records(config.output)
    assert sorted(slots(recs)) == sorted(g.slot for g in build_schedule(config))
    kinds = {"crasher": Termination.CRASH, "hanger": Termination.TIME, "garbage": Termination.PROTOCOL}
    for r in recs:
        labels = list(r.labels)
        faulty = [x for x in labels if x in kinds]
        if not faulty:
            assert r.termination is Termination.SCORE and r.score is not None
            continue
        if len(faulty) == 2:  # two faulty bots: whoever failed first lost
            assert r.termination in {kinds[faulty[0]], kinds[faulty[1]]}
            continue
        loser_seat = labels.index(faulty[0])
        # A faulty bot may win a game that ends before its fault fires (--after 1), but
        # never loses by anything other than its own fault, and never causes a void.
        assert not r.is_void
        if r.winner == 1 - loser_seat:
            assert r.termination in (Termination.SCORE, kinds[faulty[0]])
        if r.termination is not Termination.SCORE:
            assert r.fault is not None and r.fault.seat == loser_seat and r.winner == 1 - loser_seat
    standings = json.loads((config.output / "standings.json").read_text())
    assert standings["schema"] == 2
    by = {s["name"]: s for s in standings["bots"]}
    assert by["crasher"]["failures"]["crash"] > 0
    assert by["hanger"]["failures"]["time"] > 0
    assert by["garbage"]["failures"]["protocol"] > 0
    assert by["good1"]["failures"] == by["good2"]["failures"] == {k: 0 for k in by["good1"]["failures"]}
    text = out.getvalue()
    assert "[20/20]" in text and "standings after 5 games" in text
    assert (config.output / "standings.md").read_text().startswith("# t: standings")
    assert wait_until_gone(marker) == []


async def test_a_complete_run_resumes_to_nothing_and_extra_rounds_only_add(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    path = write_config(tmp_path, bots)
    config = load_config(path)
    with trio.fail_after(60):
        first = await Tournament(config, out=io.StringIO()).run()
    assert first.played == 6
    before = (config.output / "results.jsonl").read_bytes()
    with trio.fail_after(60):
        again = await Tournament(config, out=io.StringIO()).run()
    assert again.played == 0 and again.resumed == 6
    assert (config.output / "results.jsonl").read_bytes() == before
    more = load_config(
        write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2, "rounds": 2})
    )
    with trio.fail_after(60):
        extended = await Tournament(more, out=io.StringIO()).run()
    assert extended.resumed == 6 and extended.played == 6
    recs = records(config.output)
    assert len(set(slots(recs))) == len(recs) == 12
    assert (config.output / "results.jsonl").read_bytes().startswith(before)


async def test_a_changed_config_is_refused_with_what_changed(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(2)]
    config = load_config(write_config(tmp_path, bots))
    with trio.fail_after(60):
        await Tournament(config, out=io.StringIO()).run()
    changed = load_config(write_config(tmp_path, bots, board_size=4))
    with pytest.raises(ResultsError) as info:
        await Tournament(changed, out=io.StringIO()).run()
    assert "holds results of a different tournament" in str(info.value)
    assert "board_size: was 3, now 4" in str(info.value)
    bots[1]["command"] = bots[1]["command"] + ["--seed", "9"]
    changed = load_config(write_config(tmp_path, bots))
    with pytest.raises(ResultsError, match=r"bots\[1\]\.command"):
        await Tournament(changed, out=io.StringIO()).run()


async def test_results_without_a_manifest_are_adopted_only_when_they_fit_the_plan(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    config = load_config(write_config(tmp_path, bots))
    with trio.fail_after(60):
        await Tournament(config, out=io.StringIO()).run()
    results = config.output / "results.jsonl"
    played = results.read_bytes()
    (config.output / "tournament.json").unlink()
    with pytest.raises(ResultsError, match=r"holds results but no tournament\.json"):
        await Tournament(config, out=io.StringIO()).run()
    # A game that is not one of the schedule's slots with its bots: the whole adoption is refused.
    lines = played.splitlines(keepends=True)
    foreign = json.loads(lines[0])
    foreign["tournament"]["slot"] = foreign["game_id"] = "r9-b0+b1-01"
    results.write_bytes(played + (json.dumps(foreign) + "\n").encode())
    with pytest.raises(ResultsError, match=r"cannot adopt these results: 1 game\(s\) .*r9-b0\+b1-01"):
        await Tournament(config, out=io.StringIO(), adopt=True).run()
    assert not (config.output / "tournament.json").exists()
    # The schedule's own games are adopted: nothing is played again.
    results.write_bytes(played)
    out = io.StringIO()
    with trio.fail_after(60):
        again = await Tournament(config, out=out, adopt=True).run()
    assert "adopting 6 game(s) found without a manifest" in out.getvalue()
    assert again.played == 0 and again.resumed == 6
    assert (config.output / "tournament.json").exists()


async def test_an_adaptive_run_adopts_its_own_games_and_refuses_others(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    path = write_config(tmp_path, bots, schedule={"kind": "adaptive", "games": 8})
    config = load_config(path)
    with trio.fail_after(60):
        await Tournament(config, out=io.StringIO()).run()
    results = config.output / "results.jsonl"
    played = results.read_bytes()
    (config.output / "tournament.json").unlink()
    # A round robin's game in an adaptive run's folder does not fit it.
    (tmp_path / "rr").mkdir()
    other = load_config(write_config(tmp_path / "rr", bots))
    with trio.fail_after(60):
        await Tournament(other, out=io.StringIO()).run()
    results.write_bytes(played + (other.output / "results.jsonl").read_bytes().splitlines(keepends=True)[0])
    with pytest.raises(ResultsError, match=r"cannot adopt these results: 1 game\(s\) .*r1-"):
        await Tournament(config, out=io.StringIO(), adopt=True).run()
    results.write_bytes(played)
    with trio.fail_after(60):
        again = await Tournament(config, out=io.StringIO(), adopt=True).run()
    assert again.played == 0 and again.resumed == 8


def vastuz(*args, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def wait_for_records(folder: Path, n: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    path = folder / "results.jsonl"
    while not (path.exists() and len(ResultsFile(path).load().records) >= n):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the tournament made no progress"
        time.sleep(0.05)


def slow_bots(marker, n=3, tmp_path=None):
    """Every genmove waits 30 ms, so games last a second or so and some are always in
    flight. With ``tmp_path`` the wait is read from ``tmp_path/delay``: :func:`fast_again`
    removes it, so the rest of a run plays at full speed with the same bot commands (the
    config, and so its fingerprint, unchanged)."""
    if tmp_path is None:
        delay = ["--delay", "0.03"]
    else:
        (tmp_path / "delay").write_text("0.03")
        delay = ["--delay-file", str(tmp_path / "delay")]
    return [bot(f"s{i}", "--seed", str(i), "--fault", "slow", *delay, marker=marker) for i in range(n)]


def fast_again(tmp_path):
    (tmp_path / "delay").unlink()


def test_resume_after_a_kill_plays_only_the_missing_games(tmp_path, marker):
    path = write_config(
        tmp_path,
        slow_bots(marker, 3, tmp_path),
        board_size=3,
        schedule={"kind": "round_robin", "games_per_pair": 4},
    )
    config = load_config(path)
    total = len(build_schedule(config))
    proc = vastuz("tournament", str(path))
    try:
        wait_for_records(config.output, 3, proc)
    finally:
        proc.kill()  # SIGKILL: no cleanup at all
        proc.communicate()
    kept = records(config.output)
    assert 3 <= len(kept) < total
    assert wait_until_gone(marker) == []  # orphaned bots see EOF on stdin and leave
    fast_again(tmp_path)
    proc = vastuz("tournament", str(path), "--quiet")
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    final = records(config.output)
    assert final[: len(kept)] == kept  # nothing written before was touched
    assert len(final) == total and len(set(slots(final))) == total  # nothing played twice
    assert f"{total} of {total} games" in stdout


def test_ctrl_c_stops_promptly_keeps_finished_games_and_leaves_no_process(tmp_path, marker):
    path = write_config(tmp_path, slow_bots(marker, 4, tmp_path), board_size=3)
    config = load_config(path)
    total = len(build_schedule(config))
    proc = vastuz("tournament", str(path))
    try:
        wait_for_records(config.output, 2, proc)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "SIGINT: stopping" in stdout and "run the same command to resume" in stdout
    assert wait_until_gone(marker, 5) == []
    kept = records(config.output)
    assert 2 <= len(kept) < total
    assert json.loads((config.output / "standings.json").read_text())  # standings of what was played
    # SIGTERM behaves the same, and the run can be finished afterwards
    proc = vastuz("tournament", str(path), "--quiet")
    try:
        wait_for_records(config.output, len(kept) + 1, proc)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert wait_until_gone(marker, 5) == []
    fast_again(tmp_path)
    proc = vastuz("tournament", str(path), "--quiet")
    proc.communicate(timeout=180)
    assert proc.returncode == 0
    final = records(config.output)
    assert len(final) == total and len(set(slots(final))) == total


def test_cli_config_errors_and_report(tmp_path, marker):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump(
            {
                "name": "x",
                "time_control": {"per_move": 1},
                "bots": [{"name": "a", "command": "nope-no-such-program"}, {"name": "b", "command": "true"}],
            }
        )
    )
    proc = vastuz("tournament", str(bad))
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert f"{bad}: bots[0].command: program 'nope-no-such-program' not found" in stderr
    # a real run, then `vastuz report` rebuilds the same standings from the results file alone
    path = write_config(tmp_path, [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)])
    proc = vastuz("tournament", str(path), "--check", "--concurrency", "1")
    stdout, _ = proc.communicate(timeout=60)
    assert (
        proc.returncode == 0
        and "valid; tournament" in stdout
        and ": 3 bots, " in stdout
        and ", 6 games, " in stdout
    )
    proc = vastuz("tournament", str(path), "--standings-every", "0", "--concurrency", "1")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "6 games rated" in stdout and "Crosstable" in stdout
    assert "6 games, concurrency 1" in stdout
    out = tmp_path / "out"
    proc = vastuz("report", str(out), "--format", "json")
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert json.loads(stdout) == json.loads((out / "standings.json").read_text())
    proc = vastuz("report", str(out), "--format", "csv")
    stdout, _ = proc.communicate(timeout=60)
    assert stdout.splitlines()[0].startswith("rank,group,name,elo") and len(stdout.splitlines()) == 4
    proc = vastuz("report", str(tmp_path / "nothing-here"))
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "no such folder" in stderr


def test_a_second_ctrl_c_kills_the_bots_at_once(tmp_path, marker):
    # Bots that hang in their first genmove and ignore SIGTERM: after the first Ctrl-C
    # the orderly shutdown waits out the SIGTERM grace; the second kills every process
    # group at once. Exit 130, nothing left behind.
    ignore_term = ["sh", "-c", 'trap "" TERM; exec "$0" "$@"', sys.executable, str(FAKEBOT)]
    bots = [bot(f"h{i}", marker=marker) for i in range(3)]
    for i, b in enumerate(bots):
        b["command"] = ignore_term + ["--seed", str(i), "--fault", "hang"]
    path = write_config(tmp_path, bots, board_size=4, time_control={"per_move": 60, "margin": 0.3})
    proc = vastuz("tournament", str(path))
    try:
        deadline = time.monotonic() + 30
        while len(processes_with(marker)) < 4:  # both games under way: 4 bots started
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        lines = []
        while not any("stopping" in line for line in lines):
            lines.append(proc.stdout.readline())
            assert lines[-1], "the tournament ended without saying it was stopping"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "SIGINT: killing every bot now" in "".join(lines) + stdout, (lines, stdout)
    assert wait_until_gone(marker, 5) == []
    assert records(tmp_path / "out") == []  # nothing finished, nothing recorded


async def test_a_results_file_that_cannot_be_written_stops_the_run_with_a_clear_error(
    tmp_path, marker, monkeypatch
):
    # A full disk cannot be made cheaply here, so the append is made to fail as one would.
    import errno

    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(2)]
    config = load_config(write_config(tmp_path, bots))
    from referee.tournament.store.results import Appender

    real_write = Appender.write
    calls = []

    def write(self, record):
        calls.append(record.slot)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, record)

    monkeypatch.setattr(Appender, "write", write)
    with trio.fail_after(60):
        with pytest.raises(ResultsError) as info:
            await Tournament(config, out=io.StringIO()).run()
    assert f"cannot write the result of {calls[1]}" in str(info.value)
    assert "No space left on device" in str(info.value)
    assert slots(records(config.output)) == calls[:1]  # the first result stays on disk
    assert wait_until_gone(marker) == []


@pytest.mark.parametrize("interval", [0.0, 600.0])
async def test_the_results_file_is_synced_as_a_group_commit(tmp_path, marker, monkeypatch, interval):
    # Each record is written as its game ends and synced by the run's sync task at most
    # SYNC_INTERVAL later: with 0, about a sync a game (never one game unsynced at the end);
    # with 10 minutes, one sync after the first game and one when the games are over.
    import referee.tournament.runner as runner

    monkeypatch.setattr(runner, "SYNC_INTERVAL", interval)
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    schedule = {"kind": "round_robin", "games_per_pair": 4}
    config = load_config(write_config(tmp_path, bots, board_size=3, schedule=schedule))
    path = config.output / "results.jsonl"
    synced: list[int] = []  # the records on file at each sync
    runs.on_fsync(monkeypatch, path, lambda: synced.append(len(records(config.output))))
    with trio.fail_after(120):
        result = await Tournament(config, out=io.StringIO(), standings_every=0).run()
    games = len(records(config.output))
    assert games == result.total == 12
    assert synced[-1] == games  # the last sync is of every game
    if interval:
        assert len(synced) == 2 and synced[0] >= 1
    else:
        assert 2 <= len(synced) <= games + 1 and synced == sorted(synced)
    assert wait_until_gone(marker) == []


async def test_a_results_file_that_cannot_be_synced_stops_the_run_with_a_clear_error(
    tmp_path, marker, monkeypatch
):
    # A failing disk cannot be made cheaply here: the sync of the results file fails as one
    # would (EIO), every other fsync is the real one.
    import errno

    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(2)]
    config = load_config(write_config(tmp_path, bots))
    path = config.output / "results.jsonl"

    def failing() -> None:
        raise OSError(errno.EIO, "Input/output error")

    runs.on_fsync(monkeypatch, path, failing)
    with trio.fail_after(60):
        with pytest.raises(ResultsError) as info:
            await Tournament(config, out=io.StringIO()).run()
    assert str(info.value).startswith("cannot sync ") and "results.jsonl to disk" in str(info.value)
    assert "Input/output error" in str(info.value)
    assert len(records(config.output)) >= 1  # what was written is in the file
    assert wait_until_gone(marker) == []


async def test_a_results_path_that_is_a_folder_is_a_clear_error(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(2)]
    config = load_config(write_config(tmp_path, bots))
    (config.output / "results.jsonl").mkdir(parents=True)
    with pytest.raises(ResultsError, match="cannot read the results file"):
        await Tournament(config, out=io.StringIO()).run()


# ------------------------------------------------------------------ issue 13: starts, signals, pipes, logs


@pytest.mark.parametrize("how", ["module", "binary"])
async def test_a_bot_that_cannot_start_stops_the_run_and_says_why(tmp_path, marker, how):
    # "module": Python starts but the bot's module does not exist (a crash in the handshake,
    # its reason only on stderr); "binary": the program vanished after the config was checked
    # (a void game each time). Either way the run must stop after 3 tries, not play them all.
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    program = tmp_path / "ghost-bot"
    if how == "module":
        bots.append({"name": "ghost", "command": [sys.executable, "-m", "sample_bots.no_such_bot"]})
    else:
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
        bots.append({"name": "ghost", "command": [str(program)]})
    config = load_config(write_config(tmp_path, bots, concurrency=1))
    program.unlink(missing_ok=True)
    total = len(build_schedule(config))
    out = io.StringIO()
    with trio.fail_after(120):
        with pytest.raises(RunStopped) as info:
            await Tournament(config, out=out, bootstrap=50).run()
    message = str(info.value)
    assert "bot ghost could not start 3 times in a row" in message
    assert ("No module named sample_bots.no_such_bot" if how == "module" else "No such file") in message
    recs = records(config.output)
    ghost_games = [r for r in recs if "ghost" in r.labels]
    assert len(ghost_games) == 3 and len(recs) < total  # stopped, not 12 games forfeited
    # Void either way (issue 24): a failure before the first decision is never rated.
    assert all(r.termination is Termination.VOID for r in ghost_games)
    assert (config.output / "standings.json").exists()  # the standings of what was played
    assert f"stopped after {len(recs)} of {total} games" in message
    assert "stopping: bot ghost could not start" in out.getvalue()
    if how == "module":
        assert "No module named sample_bots.no_such_bot" in out.getvalue()  # on the game lines
    assert wait_until_gone(marker) == []


def test_sighup_stops_like_sigterm(tmp_path, marker):
    path = write_config(tmp_path, slow_bots(marker, 4), board_size=4)
    config = load_config(path)
    proc = vastuz("tournament", str(path))
    try:
        wait_for_records(config.output, 1, proc)
        proc.send_signal(signal.SIGHUP)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "SIGHUP: stopping" in stdout and "run the same command to resume" in stdout
    assert wait_until_gone(marker, 5) == []  # no orphaned bot
    assert json.loads((config.output / "standings.json").read_text())


def test_a_closed_pipe_stops_cleanly_after_the_games_in_flight(tmp_path, marker):
    # `vastuz tournament ... | head -3`: a real pipe whose reader leaves after 3 lines.
    path = write_config(tmp_path, slow_bots(marker, 3, tmp_path), board_size=4)
    config = load_config(path)
    total = len(build_schedule(config))
    reader, writer = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "tournament", str(path), "--transcripts"],
        cwd=ROOT,
        stdout=writer,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(writer)
    try:
        with os.fdopen(reader) as head:
            lines = [head.readline() for _ in range(3)]
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert lines[0].startswith("tournament t:") and lines[2].startswith("[")
    assert proc.returncode == 1, stderr
    assert "vastuz tournament: the output was closed (broken pipe)" in stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    recs = records(config.output)
    assert 1 <= len(recs) < total
    # No game lost: every game that was started (it has a transcript) finished and was recorded.
    logs = (config.output / "logs").glob("*.transcript.log")
    started = {p.name.removesuffix(".transcript.log").rsplit("-", 2)[0] for p in logs}  # SLOT-SEAT-BOT
    assert started == set(slots(recs))
    assert (config.output / "standings.json").exists()
    assert wait_until_gone(marker, 5) == []
    fast_again(tmp_path)
    proc = vastuz("tournament", str(path), "--quiet")
    proc.communicate(timeout=180)
    assert proc.returncode == 0
    assert len(records(config.output)) == total


async def test_a_bot_log_that_cannot_be_written_costs_no_game(tmp_path, marker):
    # The chatty bot's stderr logs are made to fail as on a full disk: each is a character
    # device like /dev/full (ENOSPC on every write; a symlink to it would be refused, as
    # every symlink in the output folder is). Its games must still be played and recorded,
    # with a note.
    full = os.stat("/dev/full")
    bots = [bot("chatty", "--fault", "chatty", marker=marker), bot("quiet", "--seed", "2", marker=marker)]
    config = load_config(write_config(tmp_path, bots, concurrency=1))
    logs = config.output / "logs"
    logs.mkdir(parents=True)
    for game in build_schedule(config):
        for seat, name in enumerate((game.first, game.second)):
            if name == "chatty":
                try:
                    os.mknod(logs / f"{game.slot}-{seat}-chatty.stderr.log", full.st_mode, full.st_rdev)
                except PermissionError:
                    pytest.skip("making a device node needs root (CI runs as root)")
    with trio.fail_after(60):
        result = await Tournament(config, out=io.StringIO(), bootstrap=50).run()
    assert result.played == result.total == 2
    for r in records(config.output):
        assert r.termination is Termination.SCORE
        assert any("could not be written" in n and "No space left on device" in n for n in r.notes), r.notes
    assert wait_until_gone(marker) == []


async def test_a_bots_logs_are_capped_across_the_tournament(tmp_path, marker):
    bots = [bot("chatty", "--fault", "chatty", marker=marker), bot("quiet", "--seed", "2", marker=marker)]
    config = load_config(
        write_config(tmp_path, bots, concurrency=1, schedule={"kind": "round_robin", "games_per_pair": 4})
    )
    config = dataclasses.replace(config, logs=LogSpec(max_per_game=100_000, max_per_bot=150_000))
    with trio.fail_after(60):
        result = await Tournament(config, out=io.StringIO(), bootstrap=50).run()
    assert result.played == 4
    chatty = sum(p.stat().st_size for p in (config.output / "logs").glob("*-chatty.stderr.log"))
    assert 150_000 <= chatty < 151_000  # the cap, and one note
    notes = [n for r in records(config.output) for n in r.notes if "total cap" in n]
    assert notes == ["bot chatty: its logs reached their total cap of 150000 bytes; later output is dropped"]
    assert wait_until_gone(marker) == []
