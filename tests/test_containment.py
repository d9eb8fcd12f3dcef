"""Bots you do not trust (issue 21): limits, containment and the sandbox, with real hostile
bots (``tests/fake_bots/hostile.py``). Each run must go on, record every scheduled game
exactly once with the right termination, and leave no process of a bot behind (its
processes carry the test's marker in their environment, see ``tests/processes.py``)."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import trio
from processes import processes_with, wait_until_gone
from runs import FAKEBOT, ROOT, build_schedule, reaped, recorded, vastuz, wait_for, write_config

from referee.errors import ConfigError
from referee.play import containment
from referee.play.records import Termination
from referee.play.sandbox import missing as missing_sandbox
from referee.tournament.config.loading import load_config
from referee.tournament.executors import processes as process_executor
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

HOSTILE = ROOT / "tests" / "fake_bots" / "hostile.py"
pytestmark = pytest.mark.skipif(not containment.available(), reason="needs Linux's /proc children files")


def hostile(name: str, kind: str, marker: str, cwd: Path = ROOT, **env: str) -> dict[str, object]:
    return {
        "name": name,
        "command": [sys.executable, str(HOSTILE)],
        "cwd": str(cwd),
        "env": {"HOSTILE_KIND": kind, "VASTUZ_TEST_MARKER": marker, **env},
    }


def good(name: str, marker: str, *extra: str) -> dict[str, object]:
    return {
        "name": name,
        "command": [sys.executable, str(FAKEBOT), *extra],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
    }


def records(folder: Path):
    return ResultsFile(folder / "results.jsonl").load().records


def run_to_end(path: Path, *args: str) -> str:
    run = vastuz("tournament", str(path), "--standings-every", "0", *args)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    return out


def each_game_once(path: Path, folder: Path) -> list:
    done = records(folder)
    counts = Counter(r.slot for r in done)
    assert sorted(counts) == sorted(g.slot for g in build_schedule(load_config(path)))
    assert set(counts.values()) == {1}, counts
    return done


def losses(done: list, bot: str) -> list:
    return [r for r in done if r.fault is not None and r.bots[r.fault.seat].label == bot]


# A long clock: a bot that is not stopped by its limit would lose on time instead, which the
# assertions on the termination tell apart.
SLOW_CLOCK = {"time_control": {"per_move": 30.0}, "concurrency": 2}


def test_a_memory_hog_loses_by_memory_and_the_run_goes_on(tmp_path, marker):
    bots = [
        {**hostile("hog", "memory", marker, HOSTILE_MB="400"), "limits": {"memory": "64MiB"}},
        good("fair", marker),
    ]
    path = write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2}, **SLOW_CLOCK)
    out = run_to_end(path)
    done = each_game_once(path, tmp_path / "out")
    lost = losses(done, "hog")
    assert len(lost) == 2 and {r.termination for r in lost} == {Termination.MEMORY}, out
    assert all("over its memory limit of 64 MiB" in r.reason for r in lost), [r.reason for r in lost]
    assert "memory" in out.split("rank", 1)[1].splitlines()[0]  # the standings' column
    assert wait_until_gone(marker, 10) == []


def test_a_fork_bomb_is_bounded_by_the_process_limit(tmp_path, marker):
    bots = [
        {**hostile("bomb", "fork", marker), "limits": {"processes": 10, "memory": "none"}},
        good("fair", marker),
    ]
    path = write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2}, **SLOW_CLOCK)
    run_to_end(path)
    done = each_game_once(path, tmp_path / "out")
    lost = losses(done, "bomb")
    assert len(lost) == 2 and {r.termination for r in lost} == {Termination.PROCESSES}
    assert all("over its limit of 10 processes" in r.reason for r in lost)
    assert wait_until_gone(marker, 10) == []  # each of the children in a session of its own too


def test_a_setsid_daemon_does_not_outlive_its_game(tmp_path, marker):
    bots = [hostile("daemon", "daemon", marker), good("fair", marker)]
    path = write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2}, concurrency=1)
    run_to_end(path)
    done = each_game_once(path, tmp_path / "out")
    assert all(r.termination is Termination.SCORE for r in done), [r.reason for r in done]
    # The run has ended: nothing with the marker is left (the daemons ignore TERM and HUP,
    # closed their descriptors and left the bot's session).
    assert wait_until_gone(marker, 10) == []


@pytest.mark.skipif(missing_sandbox() is not None, reason="needs bubblewrap (bwrap)")
def test_a_sandboxed_bot_reaches_neither_the_network_nor_outside_its_folder(tmp_path, marker):
    home, other = tmp_path / "home", tmp_path / "other"
    home.mkdir()
    other.mkdir()
    (other / "secret").write_text("theirs\n")
    outside = other / "secret"  # another bot's file (under /tmp here, the sandbox's own)
    # The sandbox's /tmp is its own: a checkout or a venv under /tmp (as a CI clone may be)
    # is not visible inside it. So the boxed bot runs from its own folder: the code it
    # needs copied there, on the interpreter the venv was made from.
    for package in ("referee", "protocol"):
        shutil.copytree(ROOT / package, home / package, ignore=shutil.ignore_patterns("__pycache__"))
    for script in (ROOT / "tests" / "fake_bots").glob("*.py"):
        shutil.copy(script, home)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        boxed = hostile("boxed", "reach", marker, home, HOSTILE_PORT=str(port), HOSTILE_PATH=str(outside))
        boxed["command"] = [os.path.realpath(sys.executable), str(home / "hostile.py")]
        boxed["env"] = {**boxed["env"], "PYTHONPATH": str(home)}  # type: ignore[dict-item]
        bots = [
            {**boxed, "sandbox": True},
            {**good("fair", marker), "cwd": str(other)},
        ]
        path = write_config(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2})
        run_to_end(path)
        with pytest.raises(BlockingIOError):
            listener.accept()  # no connection came
    done = each_game_once(path, tmp_path / "out")
    assert all(r.termination is Termination.SCORE for r in done), [r.reason for r in done]
    assert outside.read_text() == "theirs\n"
    assert sorted(p.name for p in other.iterdir()) == ["secret"]
    # The attempt was made and refused (the bot says so on stderr).
    logs = "".join(p.read_text() for p in (tmp_path / "out" / "logs").rglob("*boxed*"))
    assert "no connection" in logs, logs
    assert wait_until_gone(marker, 10) == []


def test_a_sandbox_without_bubblewrap_is_a_config_error(tmp_path, monkeypatch):
    path = write_config(tmp_path, [good("a", "m"), {**good("b", "m"), "sandbox": True}])
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "bots[1].sandbox" in str(caught.value) and "bubblewrap" in str(caught.value)


def bots_of(parent: int, marker: str) -> list[int]:
    found = []
    for pid in processes_with(marker):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == parent:
            found.append(pid)
    return found


def referee_children(parent: int) -> list[int]:
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


def test_the_hung_bots_of_a_killed_referee_process_are_killed(tmp_path, marker):
    # Hung bots never read their input again: nothing but the run can end them.
    bots = [good("hung", marker, "--fault", "hang"), good("fair", marker)]
    path = write_config(
        tmp_path,
        bots,
        schedule={"kind": "round_robin", "games_per_pair": 4},
        time_control={"per_move": 2.0, "margin": 0.2},
        concurrency=2,
        executor={"processes": 2},
    )
    with reaped(vastuz("tournament", str(path), "--standings-every", "0")) as run:
        victims: list[tuple[int, list[int]]] = []

        def hanging() -> bool:
            for child in referee_children(run.pid):
                hung = [p for p in bots_of(child, marker) if "hang" in Path(f"/proc/{p}/cmdline").read_text()]
                if hung:
                    victims[:] = [(child, hung)]
                    return True
            return False

        wait_for(hanging, "a referee process with a hung bot", run)
        child, hung = victims[0]
        os.kill(child, signal.SIGKILL)
        wait_for(lambda: not any(Path(f"/proc/{p}").exists() and p in processes_with(marker) for p in hung),
                 "the killed process's hung bot gone", run)  # fmt: skip
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    done = each_game_once(path, tmp_path / "out")
    assert {r.termination for r in losses(done, "hung")} == {Termination.TIME}
    assert "playing it again" in out, out
    assert wait_until_gone(marker, 10) == []


def test_a_frozen_referee_process_is_given_up_and_its_games_played_again(tmp_path, marker, monkeypatch):
    monkeypatch.setattr(process_executor, "FROZEN_AFTER", 3.0)
    slow = [sys.executable, str(FAKEBOT), "--fault", "slow", "--delay", "0.05"]
    env = {"VASTUZ_TEST_MARKER": marker}
    bots = [
        {"name": f"s{i}", "command": [*slow, "--seed", str(i)], "cwd": str(ROOT), "env": env}
        for i in range(2)
    ]
    path = write_config(
        tmp_path,
        bots,
        schedule={"kind": "round_robin", "games_per_pair": 6},
        concurrency=2,
        executor={"processes": 2},
    )
    stopped: list[int] = []

    def freeze() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not stopped:
            for child in referee_children(os.getpid()):
                if bots_of(child, marker) and recorded(tmp_path / "out") >= 1:
                    os.kill(child, signal.SIGSTOP)
                    stopped.append(child)
                    return
            time.sleep(0.02)

    thread = threading.Thread(target=freeze, daemon=True)
    thread.start()
    out = io.StringIO()
    trio.run(lambda: Tournament(load_config(path), out=out, standings_every=0).run())
    thread.join(5)
    assert stopped, "no referee process was frozen"
    assert not Path(f"/proc/{stopped[0]}").exists() or referee_children(os.getpid()) == []
    each_game_once(path, tmp_path / "out")
    assert "(frozen) and was killed" in out.getvalue(), out.getvalue()
    assert wait_until_gone(marker, 10) == []


@pytest.mark.skipif(missing_sandbox() is not None, reason="needs bubblewrap (bwrap)")
def test_vastuz_check_runs_the_checks_inside_the_sandbox():
    run = vastuz("check", "--sandbox", f"{sys.executable} {FAKEBOT}")
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, (out, err)
    assert "0 failed" in out, out
