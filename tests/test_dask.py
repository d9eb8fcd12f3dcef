"""Tournaments on a real Dask cluster: a ``distributed.LocalCluster`` with two worker
processes on this machine, driven through the runner's executor seam.

The same config played here and on the cluster gives the same games (every slot once, the
same bots in each); a reactive schedule (an SPRT) runs there too; a bot that vanishes
from the workers after the probe makes every worker refuse its batch and stops the run with
their messages; an unreachable scheduler is one clear error. The command line with
separately started ``dask scheduler`` / ``dask worker`` processes, a worker killed mid-run,
and the probe's refusal are in ``tests/test_dask_cli.py``.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import runs
import trio
import yaml
from processes import processes_with, wait_until_gone
from runs import FAST, build_schedule

from referee.errors import ClusterError, RunStopped
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

if os.environ.get("VASTUZ_REQUIRE_DASK"):  # CI: the cluster tests must run, not skip
    import distributed
else:
    distributed = pytest.importorskip("distributed", reason="the cluster extra: pip install -e '.[cluster]'")

from referee.tournament.executors.batch import GameSettings
from referee.tournament.executors.dask_cluster import DaskExecutor, batch_task

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"

# Dask's own shutdown chatter (a closed comm, a worker that left) is not ours to fail on.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local


def bot(name: str, *args: str, marker: str, program: str | None = None) -> dict[str, object]:
    return {
        "name": name,
        "command": [program or sys.executable, *([] if program else [str(FAKEBOT)]), *args],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
    }


def write_config(
    tmp_path: Path, bots: list[dict[str, object]], out: str = "out", **overrides: object
) -> Path:
    return runs.write_config(tmp_path, bots, out=out, name="t", **{**FAST, **overrides})


def run(path: Path, **options: object) -> tuple[str, object]:
    out = io.StringIO()
    result = trio.run(lambda: Tournament(load_config(path), out=out, standings_every=0, **options).run())
    return out.getvalue(), result


def on(cluster: distributed.LocalCluster, **executor: object) -> dict[str, object]:
    return {"executor": {"dask": cluster.scheduler_address, **executor}}


def test_a_cluster_plays_the_same_games_as_the_local_executor(tmp_path, cluster, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(3)]
    local = write_config(tmp_path, bots, "local")
    remote = write_config(tmp_path, bots, "remote", **on(cluster))
    _, _here = run(local)
    text, _there = run(remote)
    local_records = ResultsFile(tmp_path / "local" / "results.jsonl").load().records
    remote_records = ResultsFile(tmp_path / "remote" / "results.jsonl").load().records
    schedule = build_schedule(load_config(remote))

    def games(records):
        return sorted((r.slot, r.tournament.pair_key, tuple(sorted(r.labels))) for r in records)

    assert len(remote_records) == len(local_records) == len(schedule) == 12
    assert games(remote_records) == games(local_records)
    assert sorted(r.slot for r in remote_records) == sorted(g.slot for g in schedule)
    assert all(not r.is_void for r in remote_records), [r.reason for r in remote_records]
    # Both games of a pair went to one worker, and both workers played.
    workers = {address: 0 for address in cluster.scheduler_info["workers"]}
    for line in text.splitlines():
        if " on tcp://" in line:
            workers[line.rsplit(" on ", 1)[1]] += 1
    assert sorted(workers.values()) != [0, 12] and sum(workers.values()) == 12, workers
    assert "cluster: 12 game(s) in 6 batch(es) on 2 worker(s)" in text
    assert "dispatch overhead" in text and "ms per game" in text
    # The coordinator wrote every bot's log, named as a local run names them.
    assert sorted(p.name for p in (tmp_path / "remote" / "logs").iterdir()) == sorted(
        p.name for p in (tmp_path / "local" / "logs").iterdir()
    )
    # A resume on the cluster plays nothing more.
    text, again = run(remote)
    assert again.played == 0 and again.resumed == 12
    assert wait_until_gone(marker) == []


def test_an_sprt_runs_on_the_cluster_until_it_decides(tmp_path, cluster, marker):
    bots = [
        {"name": "greedy", "command": [sys.executable, "-m", "sample_bots.greedy_bot", "--seed", "1"]},
        {"name": "random", "command": [sys.executable, "-m", "sample_bots.random_bot", "--seed", "2"]},
    ]
    for b in bots:
        b.update(cwd=str(ROOT), env={"VASTUZ_TEST_MARKER": marker})
    schedule = {"kind": "sprt", "elo0": 0, "elo1": 150, "alpha": 0.1, "beta": 0.1, "max_games": 400}
    path = write_config(tmp_path, bots, schedule=schedule, time_control={"per_move": 0.2, "margin": 0.3})
    path.write_text(path.read_text() + yaml.safe_dump(on(cluster, batch=4)))
    text, _ = run(path)
    assert "SPRT: H1 accepted" in text
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    pairs = Counter(r.tournament.pair_key for r in records)
    assert len(records) == len({r.slot for r in records}) < 400  # every game once
    assert set(pairs.values()) == {2}  # complete pairs only
    assert "batches of 4 game(s)" in text
    assert wait_until_gone(marker) == []


class VanishingBots(DaskExecutor):
    """The probe passes, then a bot's program disappears from every worker (a shared folder
    unmounted, say): every worker refuses the batches that need it."""

    program: Path

    async def _probe(self) -> None:
        await super()._probe()
        self.program.unlink()


def test_a_batch_every_worker_refuses_stops_the_run_with_their_messages(tmp_path, cluster, marker):
    program = tmp_path / "vanishing-bot"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKEBOT} "$@"\n')
    program.chmod(0o755)
    bots = [bot("a", marker=marker), bot("gone", marker=marker, program=str(program))]
    path = write_config(tmp_path, bots, **on(cluster))
    config = load_config(path)

    def executor(t: Tournament) -> DaskExecutor:
        made = VanishingBots(
            t.settings,
            cluster.scheduler_address,
            t.folder / "logs",
            say=t.say,
            stop=t.stop_after_games_in_flight,
        )
        made.program = program
        return made

    out = io.StringIO()
    with pytest.raises(RunStopped) as caught:
        trio.run(lambda: Tournament(config, out=out, standings_every=0, executor=executor).run())
    message = str(caught.value)
    assert re.search(r"no worker could play r1-a\+gone-0[13] and 1 more: ", message), message
    for address in cluster.scheduler_info["workers"]:
        assert f"{address}: bot gone: program {str(program)!r} not found" in message
    assert "cannot play" in out.getvalue()
    assert (
        not (tmp_path / "out" / "results.jsonl").exists()
        or not ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    )
    assert wait_until_gone(marker) == []


def test_a_batch_nobody_wants_any_more_closes_its_bots_without_the_stop_event(tmp_path, cluster, marker):
    """A coordinator killed or cut off never sets its stop event; its client's tasks are
    released, and a batch whose task is cancelled on its worker stops at once (Dask cannot
    stop a running task): else it plays its games out, holding a worker thread the
    scheduler counts as free, and a resume's tasks wait behind it."""
    slow = ["--fault", "slow", "--delay", "2"]  # two games of this last well over a minute
    bots = [bot("a", *slow, marker=marker), bot("b", *slow, marker=marker)]
    config = load_config(write_config(tmp_path, bots, time_control={"per_move": 5, "margin": 1}))
    games = build_schedule(config)[:2]
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        future = client.submit(
            batch_task, GameSettings.of(config, False), games, "vastuz-stop-never-set", pure=False
        )
        deadline = time.monotonic() + 60
        while len(processes_with(marker)) < 2:
            assert time.monotonic() < deadline and not future.done(), "the batch did not start its bots"
            time.sleep(0.05)
        future.cancel()
        assert wait_until_gone(marker, 15) == []


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, marker):
    path = write_config(tmp_path, [bot("a", marker=marker), bot("b", marker=marker)])
    config = load_config(path)

    def executor(t: Tournament) -> DaskExecutor:
        return DaskExecutor(
            t.settings,
            "tcp://127.0.0.1:9",
            t.folder / "logs",
            say=t.say,
            stop=t.stop_after_games_in_flight,
            connect_timeout=1,
        )

    with pytest.raises(ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"):
        trio.run(lambda: Tournament(config, out=io.StringIO(), executor=executor).run())


def test_without_dask_a_dask_run_says_how_to_install_it_and_a_local_run_never_imports_it(tmp_path, marker):
    path = write_config(tmp_path, [bot("a", marker=marker), bot("b", marker=marker)])
    hide = "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
    cli = "from referee.cli import main; sys.exit(main(sys.argv[1:]))"
    asked = subprocess.run(
        [sys.executable, "-c", hide + cli, "tournament", str(path), "--dask", "tcp://127.0.0.1:8786"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert asked.returncode == 2, asked.stderr
    assert "--dask needs Dask distributed" in asked.stderr and "pip install" in asked.stderr
    assert "Traceback" not in asked.stderr
    local = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom referee.cli import main\ncode = main(sys.argv[1:])\n"
            "assert 'distributed' not in sys.modules and 'dask' not in sys.modules\nsys.exit(code)",
            "tournament",
            str(path),
            "-q",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert local.returncode == 0, local.stderr
    assert len(ResultsFile(tmp_path / "out" / "results.jsonl").load().records) == 4


def test_an_adaptive_run_plays_its_budget_on_the_cluster_in_whole_pairs(tmp_path, cluster, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(4)]
    path = write_config(tmp_path, bots, schedule={"kind": "adaptive", "games": 20}, **on(cluster))
    text, result = run(path)
    assert result.played == 20
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    assert len({r.slot for r in records}) == 20
    assert set(Counter(r.tournament.pair_key for r in records).values()) == {2}
    assert "cluster: 20 game(s) in 10 batch(es)" in text
    assert wait_until_gone(marker) == []


def test_a_ladder_plays_its_rounds_on_the_cluster(tmp_path, cluster, marker):
    """A ladder's rounds on the cluster's workers: every game committed once, the round
    barrier kept, the ratings from them."""
    from referee.ladder.config import load_ladder
    from referee.ladder.loop import Ladder
    from referee.ladder.store import LadderStore

    data = {
        "name": "lad",
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "concurrency": 2,
        "min_games": 4,
        "anchors": [{"bot": "b0", "rating": 0}],
        "output": str(tmp_path / "lad"),
        "bots": [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(4)],
        **on(cluster),
    }
    path = tmp_path / "lad.yaml"
    path.write_text(yaml.safe_dump(data))
    out = io.StringIO()
    result = trio.run(lambda: Ladder(load_ladder(path), out=out, rounds=3).run())
    assert (result.played, result.rounds) == (12, 3), out.getvalue()
    header = next(line for line in out.getvalue().splitlines() if line.startswith("ladder lad:"))
    assert "dask" in header.lower(), header
    with LadderStore(load_ladder(path).store) as store:
        slots = store.slot_keys()
        assert len(slots) == len(set(slots)) == 12
        assert {s.split("-")[0] for s in slots} == {"r1", "r2", "r3"}
        assert store.counts()["done"] == 12
