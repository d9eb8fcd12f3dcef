"""``vastuz tournament CONFIG --dask ADDRESS`` against a cluster started the way a user
starts one: a ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1.

A worker killed (SIGKILL) in the middle of a batch loses only that batch, which the other
worker plays again: every scheduled game is recorded exactly once, the run completes, and
no bot process is left anywhere. A worker on which a bot's program cannot be found makes
the probe refuse the run, naming the worker and the program. Ctrl-C on the coordinator
stops the workers' batches too.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import trio
from processes import processes_with, wait_until_gone
from runs import (
    FAKEBOT,
    build_schedule,
    children_of,
    reaped,
    recorded,
    slow_bots,
    vastuz,
    wait_for,
    write_config,
)

from referee.tournament.config.loading import load_config
from referee.tournament.store.results import ResultsFile

if not os.environ.get("VASTUZ_REQUIRE_DASK"):  # CI: the cluster tests must run, not skip
    pytest.importorskip("distributed", reason="the cluster extra: pip install -e '.[cluster]'")

ROOT = Path(__file__).resolve().parent.parent
DASK = Path(sys.executable).parent / "dask"
TRACED = {**os.environ, "PYTHONFAULTHANDLER": "1"}
"""Every process here dumps its threads' stacks on SIGABRT (see :func:`finish`)."""


def stacks(pid: int) -> str:
    """Where process ``pid`` waits: py-spy's dump when it is installed (every thread, no
    harm done), else an empty string (then :func:`finish` sends SIGABRT)."""
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy is None:
        return ""
    try:
        dump = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"py-spy failed: {exc}"
    return dump.stdout + dump.stderr


def finish(proc: subprocess.Popen[str], timeout: float, what: str, cluster: Cluster) -> tuple[str, str]:
    """``proc.communicate(timeout=timeout)``; if it has not ended by then, the test fails
    with what makes the hang diagnosable: the stacks of the process and of the cluster's
    (py-spy, or faulthandler's dump on SIGABRT), its output so far and the cluster's logs."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    report = [f"{what} did not end within {timeout:g} s"]
    everyone = [("vastuz", proc.pid)] + [
        (p.args[1] if isinstance(p.args, list) else "?", p.pid) for p in cluster.processes
    ]
    dumps = {pid: stacks(pid) for _, pid in everyone}
    for name, pid in everyone:
        report.append(
            f"--- stacks of {name} (pid {pid}):\n{dumps[pid] or '(py-spy missing: see its stderr or log)'}"
        )
    for _, pid in everyone:
        if not dumps[pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGABRT)  # faulthandler writes every thread's stack
    if dumps[proc.pid]:
        proc.kill()
    out, err = proc.communicate()
    report += [f"--- its stdout:\n{out}", f"--- its stderr:\n{err}"]
    for log in sorted(cluster.folder.glob("*.log")):
        report.append(f"--- {log.name} (last 6000 characters):\n{log.read_text(errors='replace')[-6000:]}")
    pytest.fail("\n".join(report), pytrace=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A scheduler and workers as separate processes; everything is killed at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.file = folder / "scheduler.json"
        self.processes: list[subprocess.Popen[bytes]] = []
        self.scheduler = self._spawn(
            [
                str(DASK),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.file),
            ],
            "scheduler",
        )
        deadline = time.monotonic() + 60
        while not self.file.exists():
            assert self.scheduler.poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole, but give it a moment
        self.address = json.loads(self.file.read_text())["address"]

    def _spawn(
        self, argv: list[str], name: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - the child owns it
        env = {**(os.environ if env is None else env), "PYTHONFAULTHANDLER": "1"}
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.folder)
        log.close()
        self.processes.append(proc)
        return proc

    def worker(self, name: str, env: dict[str, str] | None = None) -> tuple[str, subprocess.Popen[bytes]]:
        """A worker without a nanny (so SIGKILL of this process is the worker's death), one
        thread: one batch at a time."""
        port = free_port()
        proc = self._spawn(
            [
                str(DASK),
                "worker",
                "--scheduler-file",
                str(self.file),
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--worker-port",
                str(port),
                "--name",
                name,
            ],
            name,
            env,
        )
        return f"tcp://127.0.0.1:{port}", proc

    def worker_without_the_project(self, name: str) -> str:
        """A worker whose Python cannot import this project (as if it were not installed)."""
        port = free_port()
        hide = (
            "import sys; sys.modules['referee'] = None; from distributed.cli.dask_worker import main; main()"
        )
        self._spawn(
            [sys.executable, "-c", hide, "--scheduler-file", str(self.file), "--nthreads", "1", "--no-nanny",
             "--no-dashboard", "--host", "127.0.0.1", "--worker-port", str(port), "--name", name],
            name,
        )  # fmt: skip
        return f"tcp://127.0.0.1:{port}"

    def wait_for_workers(self, n: int) -> None:
        script = (
            "import sys, distributed\n"
            "c = distributed.Client(sys.argv[1], timeout=30)\n"
            "c.wait_for_workers(int(sys.argv[2]), timeout=60)\nc.close()\n"
        )
        subprocess.run([sys.executable, "-c", script, self.address, str(n)], check=True, timeout=120)

    def close(self) -> None:
        for proc in self.processes:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


@pytest.fixture
def cluster(tmp_path):
    made = Cluster(tmp_path)
    try:
        yield made
    finally:
        made.close()


def test_a_worker_killed_mid_batch_loses_no_game_and_records_none_twice(tmp_path, cluster, marker):
    first, _ = cluster.worker("w1")
    second, victim = cluster.worker("w2")
    cluster.wait_for_workers(2)
    path = write_config(tmp_path, slow_bots(marker))
    with reaped(vastuz("tournament", str(path), "--dask", cluster.address, "--standings-every", "0")) as run:
        # Kill w2 while it is playing a batch (after the probe, which starts bots too): its
        # bots, children of the worker process, are running.
        wait_for(lambda: recorded(tmp_path / "out") >= 1, "a first recorded game", run)
        wait_for(lambda: children_of(victim.pid, marker), "w2 to play a batch", run)
        victim.kill()
        victim.wait()
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    schedule = build_schedule(load_config(path))
    counts = Counter(r.slot for r in records)
    assert sorted(counts) == sorted(g.slot for g in schedule)
    assert set(counts.values()) == {1}, counts  # every game exactly once
    assert all(not r.is_void for r in records), [r.reason for r in records]
    # The run went on on the surviving worker; the final report counts games per worker.
    assert f"on {first}" in out
    assert f"note: worker {second} left the cluster" in out
    assert f"{first} " in out.split("cluster: 12 game(s)", 1)[1]
    assert "dispatch overhead" in out
    # The killed worker's bots saw their stdin close and left; no bot is left anywhere.
    assert wait_until_gone(marker, 20) == []


def test_a_worker_without_a_bots_program_makes_the_probe_refuse_the_run(tmp_path, cluster, marker):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "vastuz-probe-bot"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKEBOT} "$@"\n')
    program.chmod(0o755)
    with_bot = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    good, _ = cluster.worker("has-it", env=with_bot)
    bad, _ = cluster.worker("lacks-it", env=dict(os.environ))
    cluster.wait_for_workers(2)
    bots = slow_bots(marker, 1) + [
        {
            "name": "probe",
            "command": "vastuz-probe-bot",
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
    ]
    path = write_config(tmp_path, bots)
    run = vastuz("tournament", str(path), "--dask", cluster.address, env=with_bot)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 2, (out, err)
    assert f"worker {bad}: bot probe: program 'vastuz-probe-bot' not found (looked in PATH)" in err
    assert good not in err  # only the worker that lacks it is named
    assert "bots must be reachable on every worker" in err
    assert "Traceback" not in err
    assert recorded(tmp_path / "out") == 0
    assert wait_until_gone(marker) == []


def test_a_worker_without_this_project_makes_the_probe_refuse_the_run(tmp_path, cluster, marker):
    cluster.worker("fine")
    bad = cluster.worker_without_the_project("bare")
    cluster.wait_for_workers(2)
    path = write_config(tmp_path, slow_bots(marker, 2))
    run = vastuz("tournament", str(path), "--dask", cluster.address)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 2, (out, err)
    # Dask's worker dies of a task it cannot unpickle: the probe says so, naming it.
    assert f"worker {bad}: left the cluster while it ran the probe" in err
    assert "is this project installed in the worker's Python environment?" in err
    assert "Traceback" not in err
    assert recorded(tmp_path / "out") == 0


def test_ctrl_c_stops_the_workers_batches_and_a_resume_completes_the_run(tmp_path, cluster, marker):
    cluster.worker("w1")
    cluster.worker("w2")
    cluster.wait_for_workers(2)
    path = write_config(tmp_path, slow_bots(marker))
    command = ("tournament", str(path), "--dask", cluster.address)
    with reaped(vastuz(*command, "--standings-every", "0", env=TRACED)) as run:
        wait_for(lambda: recorded(tmp_path / "out") >= 2, "two recorded games", run)
        wait_for(lambda: processes_with(marker), "bots in play", run)
        run.send_signal(signal.SIGINT)
        out, err = finish(run, 60, "the interrupted run", cluster)
    assert run.returncode == 130, err
    assert "stopped after" in out
    # The stop event reached the workers: their batches closed their bots.
    assert wait_until_gone(marker, 20) == []
    kept = recorded(tmp_path / "out")
    assert 2 <= kept < 12
    with reaped(vastuz(*command, "-q", env=TRACED)) as again:
        out, err = finish(again, 300, "the resume", cluster)
    assert again.returncode == 0, err
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    assert len(records) == len({r.slot for r in records}) == 12
    assert wait_until_gone(marker) == []


def test_cluster_options_are_checked(tmp_path, marker):
    path = write_config(tmp_path, slow_bots(marker, 2))
    for args, message in [
        (["--dask", "not an address"], "--dask: expected a scheduler address like tcp://HOST:8786"),
        (["--batch", "3"], "--batch: only with --dask"),
    ]:
        run = vastuz("tournament", str(path), *args)
        _out, err = run.communicate(timeout=60)
        assert run.returncode == 2 and message in err, (args, err)
    good = write_config(tmp_path, slow_bots(marker, 2), executor={"dask": "tcp://10.1.2.3:8786"})
    run = vastuz("tournament", str(good), "--check", "--batch", "8")
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0 and "on the Dask cluster at tcp://10.1.2.3:8786 (batches of 8)" in out, err
    for executor, message in [
        ({"dask": 8786}, 'executor.dask: expected a scheduler address like "tcp://HOST:8786", got 8786'),
        ({"batch": 4}, "executor.dask: missing"),
        ({"dask": "tcp://h:1", "batch": 0}, "executor.batch"),
        ({"dask": "tcp://h:1", "threads": 2}, "executor.threads: unknown key"),
    ]:
        bad = write_config(tmp_path, slow_bots(marker, 2), executor=executor)
        run = vastuz("tournament", str(bad), "--check")
        _out, err = run.communicate(timeout=60)
        assert run.returncode == 2 and message in err, (executor, err)
        assert "Traceback" not in err


def test_a_cluster_that_loses_every_worker_stops_the_run_and_keeps_its_games(tmp_path, cluster, marker):
    from referee.errors import ClusterError
    from referee.tournament.executors.dask_cluster import DaskExecutor
    from referee.tournament.runner import Tournament

    workers = [cluster.worker("w1")[1], cluster.worker("w2")[1]]
    cluster.wait_for_workers(2)
    config = load_config(write_config(tmp_path, slow_bots(marker)))

    def executor(t: Tournament) -> DaskExecutor:
        return DaskExecutor(
            t.settings,
            cluster.address,
            t.folder / "logs",
            say=t.say,
            stop=t.stop_after_games_in_flight,
            no_worker_timeout=3,
        )

    def kill_every_worker() -> None:
        deadline = time.monotonic() + 120
        while recorded(tmp_path / "out") < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        for proc in workers:
            proc.kill()

    killer = threading.Thread(target=kill_every_worker)
    killer.start()
    try:
        with pytest.raises(
            ClusterError, match=r"no Dask worker has been connected to tcp://127\.0\.0\.1:\d+ for 3 s"
        ):
            trio.run(
                lambda: Tournament(config, out=io.StringIO(), standings_every=0, executor=executor).run()
            )
    finally:
        killer.join()
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    assert 1 <= len(records) < 12 and len({r.slot for r in records}) == len(records)
    assert wait_until_gone(marker, 20) == []


def test_losing_the_scheduler_ends_the_run_with_one_message_and_its_standings(tmp_path, cluster, marker):
    _, worker = cluster.worker("w1")
    cluster.wait_for_workers(1)
    path = write_config(tmp_path, slow_bots(marker))
    with reaped(vastuz("tournament", str(path), "--dask", cluster.address, "--standings-every", "0")) as run:
        wait_for(lambda: recorded(tmp_path / "out") >= 2, "two recorded games", run)
        cluster.scheduler.kill()  # SIGKILL: no goodbye to the clients
        cluster.scheduler.wait()
        out, err = run.communicate(timeout=180)
    assert run.returncode == 2, (out, err)
    assert f"lost the Dask scheduler at {cluster.address}" in err and "Run the same command again" in err
    assert "Traceback" not in err and err.count("lost the Dask scheduler") == 1
    # The standings are those of every game recorded, not of the last periodic look.
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert standings["games"] == recorded(tmp_path / "out") >= 2
    worker.kill()  # it would wait for its scheduler; its bots then leave with it
    worker.wait()
    assert wait_until_gone(marker, 30) == []
