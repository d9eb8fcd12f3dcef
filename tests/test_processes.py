"""``executor: {processes: N}`` / ``--processes N``: the games spread over N referee
processes on this machine, run the way a user runs them (``vastuz tournament`` as a
process, real bots).

The same games are recorded as in one process, each exactly once, with the same logs; a
bot's faults are judged the same; a referee process killed (SIGKILL) in the middle of its
games loses only those, which a new one plays again; Ctrl-C stops every referee process
and every bot, and a resume completes the run; the options are checked like the others.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections import Counter
from pathlib import Path

from processes import processes_with, wait_until_gone
from runs import FAKEBOT, ROOT, build_schedule, reaped, recorded, slow_bots, vastuz, wait_for, write_config

from referee.play.records import Termination
from referee.tournament.config.loading import load_config
from referee.tournament.store.results import ResultsFile


def referee_processes(parent: int) -> list[int]:
    """The referee processes ``parent`` started (by their command line)."""
    found = []
    for pid in (int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = b"referee.tournament.executors.referee_process" in cmdline
        if child and int(stat[1]) == parent and stat[0] != "Z":
            found.append(pid)
    return found


def _in_genmove(pid: int) -> bool:
    """Whether the slow fake bot ``pid`` is asleep in its genmove delay (not reading stdin)."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text() == "hrtimer_nanosleep"
    except OSError:
        return False


def bots_of(parent: int, marker: str) -> list[int]:
    """Marked bot processes whose parent is ``parent``."""
    found = []
    for pid in processes_with(marker):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == parent:
            found.append(pid)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (exists and is not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def asleep(pid: int) -> bool:
    """Whether ``pid`` is in a sleep system call (nanosleep, clock_nanosleep on x86-64)."""
    try:
        call = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    return bool(call) and call[0] in ("35", "230")


def slots(folder: Path) -> Counter[str]:
    return Counter(r.slot for r in ResultsFile(folder / "results.jsonl").load().records)


def test_the_same_games_as_in_one_process_each_once_with_the_same_logs(tmp_path, marker):
    bots = slow_bots(marker, 3)
    (tmp_path / "one").mkdir()
    (tmp_path / "many").mkdir()
    here = write_config(tmp_path / "one", bots, concurrency=3)
    spread = write_config(tmp_path / "many", bots, concurrency=3, executor={"processes": 2})
    for path in (here, spread):
        # Transcripts: a log of every game (a bot's stderr log is made only when it writes).
        run = vastuz("tournament", str(path), "--standings-every", "0", "--transcripts")
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    assert "concurrency 3 over 2 referee processes" in out
    summary = [line for line in out.splitlines() if line.startswith("referee processes:")]
    assert len(summary) == 1 and "p1 " in summary[0] and "p2 " in summary[0], out
    one, many = tmp_path / "one" / "out", tmp_path / "many" / "out"
    schedule = {g.slot: g for g in build_schedule(load_config(spread))}
    assert slots(many) == slots(one) == Counter({slot: 1 for slot in schedule})
    for record in ResultsFile(many / "results.jsonl").load().records:
        assert not record.is_void, record.reason
        assert record.tournament is not None
        assert record.tournament.pair_key == schedule[record.slot].pair_key
        assert [b.label for b in record.bots] == list(schedule[record.slot].bots)
    logs = [sorted(p.name for p in (folder / "logs").iterdir()) for folder in (one, many)]
    assert logs[0] == logs[1] and logs[0]
    assert wait_until_gone(marker) == []


def test_a_bots_faults_are_judged_as_in_one_process(tmp_path, marker):
    crasher = {
        "name": "crasher",
        "command": [sys.executable, str(FAKEBOT), "--fault", "crash", "--at", "genmove"],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
    }
    path = write_config(tmp_path, [*slow_bots(marker, 1), crasher], concurrency=2, executor={"processes": 2})
    run = vastuz("tournament", str(path), "-q")
    _out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    assert len(records) == 4
    for record in records:
        assert record.winner is not None and record.bots[record.winner].label == "s0", record.reason
        assert record.termination is Termination.CRASH, record.termination
        assert "crasher" in record.reason
    assert wait_until_gone(marker) == []


def test_a_referee_process_killed_mid_game_loses_only_its_games(tmp_path, marker):
    path = write_config(tmp_path, slow_bots(marker), concurrency=2, executor={"processes": 2})
    with reaped(vastuz("tournament", str(path), "--standings-every", "0")) as run:
        wait_for(lambda: recorded(tmp_path / "out") >= 1, "a first recorded game", run)
        # A referee process with a game in flight: one of its bots is asleep in its genmove's
        # delay (a bot between games waits on its stdin), so the kill surely loses a game.
        victims: list[int] = []

        def thinking() -> bool:
            victims[:] = [p for p in referee_processes(run.pid) if any(map(_in_genmove, bots_of(p, marker)))]
            return bool(victims)

        wait_for(thinking, "a bot thinking in a game", run)
        os.kill(victims[0], signal.SIGKILL)
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    counts = slots(tmp_path / "out")
    schedule = build_schedule(load_config(path))
    assert sorted(counts) == sorted(g.slot for g in schedule)
    assert set(counts.values()) == {1}, counts  # every game exactly once
    assert "playing it again" in out and "was killed by signal 9" in out, out
    # The killed process's bots saw their stdin close and left; no bot is left anywhere.
    assert wait_until_gone(marker, 20) == []


def test_ctrl_c_stops_every_referee_process_and_bot_and_a_resume_completes_the_run(tmp_path, marker):
    path = write_config(tmp_path, slow_bots(marker), concurrency=2, executor={"processes": 2})
    with reaped(vastuz("tournament", str(path), "--standings-every", "0")) as run:
        wait_for(lambda: recorded(tmp_path / "out") >= 2, "two recorded games", run)
        wait_for(lambda: processes_with(marker), "bots in play", run)
        children = referee_processes(run.pid)
        assert len(children) == 2
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "stopped after" in out
    assert "Traceback" not in err
    assert wait_until_gone(marker, 20) == []
    assert all(not Path(f"/proc/{pid}").exists() for pid in children)  # exited and reaped
    kept = recorded(tmp_path / "out")
    assert 2 <= kept < 12
    # Resumed in this process (the executor is not part of the config's fingerprint).
    again = vastuz("tournament", str(path), "-q", "--processes", "1")
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    counts = slots(tmp_path / "out")
    assert len(counts) == 12 and set(counts.values()) == {1}
    assert wait_until_gone(marker) == []


def test_the_processes_options_are_checked(tmp_path, marker):
    path = write_config(tmp_path, slow_bots(marker, 2), concurrency=4)
    for args, message in [
        (["--processes", "0"], "--processes"),
        (["--processes", "2", "--dask", "tcp://10.1.2.3:8786"], "--processes: not with --dask"),
        (["--processes", "100000"], "--processes: at most 256"),
    ]:
        run = vastuz("tournament", str(path), "--check", *args)
        _out, err = run.communicate(timeout=60)
        assert run.returncode == 2 and message in err, (args, err)
        assert "Traceback" not in err
    run = vastuz("tournament", str(path), "--check", "--processes", "3")
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0 and "concurrency 4 over 3 referee processes" in out, err
    run = vastuz("tournament", str(path), "--processes", "3", "--concurrency", "1", "--standings-every", "0")
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    assert "concurrency 1" in out and "referee processes asked for, but concurrency 1" in out, out
    assert "referee processes:" not in out  # played here: no per-process summary
    for executor, message in [
        ({"processes": 0}, "executor.processes: expected an integer from 1 to 256, got 0"),
        ({"processes": "two"}, "executor.processes: expected an integer"),
        ({"processes": 2, "dask": "tcp://h:1"}, "executor.dask: not with executor.processes"),
        ({"processes": 2, "batch": 3}, "executor.batch: not with executor.processes"),
    ]:
        bad = write_config(tmp_path, slow_bots(marker, 2), executor=executor)
        run = vastuz("tournament", str(bad), "--check")
        _out, err = run.communicate(timeout=60)
        assert run.returncode == 2 and message in err, (executor, err)
        assert "Traceback" not in err


def hanging_config(tmp_path: Path, marker: str) -> Path:
    """Three bots that hang in their first genmove and ignore SIGTERM, two games at once
    over two referee processes, with a clock that never runs out in a test."""
    ignore_term = ["sh", "-c", 'trap "" TERM; exec "$0" "$@"', sys.executable, str(FAKEBOT)]
    bots = [
        {
            "name": f"h{i}",
            "command": [*ignore_term, "--seed", str(i), "--fault", "hang"],
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
        for i in range(3)
    ]
    return write_config(
        tmp_path, bots, concurrency=2, executor={"processes": 2}, time_control={"per_move": 60, "margin": 0.3}
    )


def test_a_second_ctrl_c_during_the_shutdown_ends_the_run_cleanly(tmp_path, marker):
    # Bots that hang in their first genmove and ignore SIGTERM: after the first Ctrl-C the
    # referee processes' orderly shutdown waits out the SIGTERM grace, and the second makes
    # each of them kill its bots' process groups at once (SIGTERM to it). The end state is
    # what the shutdown's own SIGKILL reaches a second later, so what is checked is that the
    # second signal breaks nothing: exit 130, the message, no bot or referee process left.
    path = hanging_config(tmp_path, marker)
    with reaped(vastuz("tournament", str(path))) as run:
        wait_for(lambda: len(processes_with(marker)) >= 4, "both games under way", run)
        children = referee_processes(run.pid)
        run.send_signal(signal.SIGINT)
        lines: list[str] = []
        while not any("stopping" in line for line in lines):
            assert run.stdout is not None
            lines.append(run.stdout.readline())
            assert lines[-1], "the tournament ended without saying it was stopping"
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert "SIGINT: killing every bot now" in "".join(lines) + out, (lines, out)
    assert wait_until_gone(marker, 5) == []
    assert all(not Path(f"/proc/{pid}").exists() for pid in children)
    assert recorded(tmp_path / "out") == 0  # nothing finished, nothing recorded


def test_a_referee_process_told_to_kill_its_bots_kills_them_at_once(tmp_path, marker):
    # SIGTERM is how the run's second Ctrl-C reaches a referee process: its bots (here
    # hanging in genmove and ignoring SIGTERM themselves) are SIGKILLed at once. Watched: a
    # bot asleep in its genmove, which nothing else would end (its opponent, reading its
    # input, leaves at the end of it when the referee process is gone).
    path = hanging_config(tmp_path, marker)
    with reaped(vastuz("tournament", str(path))) as run:

        def hanging() -> list[tuple[int, int]]:
            """(referee process, bot) for each bot asleep in its genmove: the one that would
            live on (its opponent, reading its input, leaves at the end of it)."""
            return [(p, b) for p in referee_processes(run.pid) for b in bots_of(p, marker) if asleep(b)]

        wait_for(lambda: hanging(), "a bot hanging in its genmove", run)
        victim, bot = hanging()[0]
        os.kill(victim, signal.SIGTERM)
        deadline = time.monotonic() + 10  # a bound on the wait, not a timing check
        while bot in processes_with(marker):
            assert time.monotonic() < deadline, "the referee process's bot outlived its SIGTERM"
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        run.communicate(timeout=60)
    assert wait_until_gone(marker, 10) == []


def test_referee_processes_whose_run_is_killed_close_their_bots_and_exit(tmp_path, marker):
    # SIGKILL of the run itself: its referee processes see the end of their input, abandon
    # their games, close their bots and exit, quietly (their stderr is the run's: read to
    # its end, which comes when the last of them has exited).
    path = write_config(tmp_path, slow_bots(marker), concurrency=2, executor={"processes": 2})
    with reaped(vastuz("tournament", str(path), "--standings-every", "0")) as run:
        wait_for(lambda: recorded(tmp_path / "out") >= 1, "a first recorded game", run)
        wait_for(lambda: len(processes_with(marker)) >= 4, "both games under way", run)
        children = referee_processes(run.pid)
        assert len(children) == 2
        run.kill()
        _out, err = run.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert [pid for pid in children if alive(pid)] == []  # stderr ended: they have exited
    assert wait_until_gone(marker, 20) == []
