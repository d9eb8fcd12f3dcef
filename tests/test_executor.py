"""The runner's executor seam, with no cluster: the runner records what an executor
delivers (each slot once, whatever arrives), batches come from the plan in schedule order,
and the ``executor`` key is validated and left out of the fingerprint (a run resumes on
another executor)."""

from __future__ import annotations

import dataclasses
import io
import sys
from collections.abc import Sequence
from pathlib import Path

import runs
import trio
from runs import FAST, build_schedule

from referee.tournament.config.loading import load_config
from referee.tournament.config.values import ExecutorSpec
from referee.tournament.executors.batch import GameSettings, play_batch, probe
from referee.tournament.executors.local import Deliver, LocalExecutor
from referee.tournament.runner import Tournament
from referee.tournament.slots import ScheduledGame
from referee.tournament.store.results import ResultsFile

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def write_config(tmp_path: Path, n: int = 3, **overrides: object) -> Path:
    bots = [
        {"name": f"b{i}", "command": [sys.executable, str(FAKEBOT), "--seed", str(i)], "cwd": str(ROOT)}
        for i in range(n)
    ]
    settings = {**FAST, "schedule": {"kind": "round_robin", "games_per_pair": 2}, **overrides}
    return runs.write_config(tmp_path, bots, name="t", **settings)


class Twice(LocalExecutor):
    """Plays batches of three games and delivers every game twice (a result that arrives
    again, as a retried task could)."""

    batch_size = 3

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.batches: list[list[str]] = []

    async def play(self, games: Sequence[ScheduledGame], deliver: Deliver) -> None:
        self.batches.append([g.slot for g in games])

        async def again(played, worker):
            await deliver(played, "w")
            await deliver(played, "w")

        await super().play(games, again)


def test_the_runner_records_a_slot_once_whatever_an_executor_delivers(tmp_path):
    config = load_config(write_config(tmp_path))
    made: list[Twice] = []

    def executor(t: Tournament) -> Twice:
        made.append(Twice(t.settings, t.folder / "logs", 2))
        return made[0]

    out = io.StringIO()
    result = trio.run(lambda: Tournament(config, out=out, standings_every=0, executor=executor).run())
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    schedule = [g.slot for g in build_schedule(config)]
    assert sorted(r.slot for r in records) == sorted(schedule) and result.played == len(schedule) == 6
    assert out.getvalue().count("arrived again (from w); the first result is kept") == 6
    # Batches of three, in schedule order, two in flight at a time.
    assert sorted(slot for batch in made[0].batches for slot in batch) == sorted(schedule)
    assert [len(b) for b in made[0].batches] == [3, 3]
    assert " on w" in out.getvalue()  # progress lines name the worker


def test_the_executor_key_is_validated_and_not_part_of_the_fingerprint(tmp_path):
    plain = load_config(write_config(tmp_path))
    assert plain.executor == ExecutorSpec()
    on_cluster = load_config(write_config(tmp_path, executor={"dask": "tcp://10.0.0.1:8786", "batch": 10}))
    assert on_cluster.executor == ExecutorSpec(dask="tcp://10.0.0.1:8786", batch=10)
    assert on_cluster.fingerprint() == plain.fingerprint()
    assert load_config(write_config(tmp_path, executor={"dask": "scheduler:8786"})).executor.batch == 2
    spread = load_config(write_config(tmp_path, executor={"processes": 3}))
    assert spread.executor == ExecutorSpec(processes=3) and spread.fingerprint() == plain.fingerprint()


def test_a_batch_reuses_its_bots_and_a_probe_names_the_bots_that_cannot_start(tmp_path):
    config = load_config(write_config(tmp_path, n=2))
    settings = GameSettings.of(config, transcripts=False)
    games = build_schedule(config)
    played, abandoned = trio.run(play_batch, settings, games, tmp_path / "logs")
    assert not abandoned and [p.game.slot for p in played] == [g.slot for g in games]
    # Two processes started once each, both reported once, by the game that started them.
    assert [p.starts for p in played] == [[("b0", None), ("b1", None)], []]
    assert all(p.record.tournament is not None and p.record.tournament.name == "t" for p in played)
    assert trio.run(probe, settings) == []
    broken = dataclasses.replace(
        settings,
        commands={
            **settings.commands,
            "b1": dataclasses.replace(settings.commands["b1"], command=(str(tmp_path / "nope"),)),
        },
    )
    problems = trio.run(probe, broken)
    assert problems == [f"bot b1: program {str(tmp_path / 'nope')!r} not found (looked in {ROOT})"]
    crashing = dataclasses.replace(
        settings,
        commands={
            **settings.commands,
            "b0": dataclasses.replace(
                settings.commands["b0"], command=(sys.executable, str(FAKEBOT), "--fault", "exit-at-start")
            ),
        },
    )
    (problem,) = trio.run(probe, crashing)
    assert problem.startswith("bot b0: does not start: ")
