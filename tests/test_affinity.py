"""CPU affinity (``affinity``) and the warning when more bots think at once than there are
cores: the config key, the core plan, and real runs whose bots report the CPUs they got."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
import trio
import yaml

from referee.errors import ConfigError
from referee.play.cpu import CorePlan, describe_cpus, parse_cpus
from referee.tournament.config.loading import load_config, parse_config
from referee.tournament.runner import Tournament

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"
CPUS = sorted(os.sched_getaffinity(0))
# A bot that says on stderr which CPUs it may run on, then becomes the fake bot.
REPORTER = (
    "import os, sys; print('cpus', sorted(os.sched_getaffinity(0)), file=sys.stderr, flush=True); "
    f"os.execv(sys.executable, [sys.executable, {str(FAKEBOT)!r}, '--seed', sys.argv[1]])"
)


def test_cpu_lists_read_as_fastchess_and_taskset_write_them() -> None:
    assert parse_cpus("0-3,6") == {0, 1, 2, 3, 6}
    assert parse_cpus("5") == {5}
    for bad in ("", "1,,2", "a", "3-1", "1-"):
        with pytest.raises(ValueError):
            parse_cpus(bad)
    assert describe_cpus([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"


def test_the_referee_gets_a_core_of_its_own_and_slots_share_the_rest() -> None:
    plan = CorePlan.of([0, 1, 2, 3, 4], 2)
    assert plan is not None and plan.referee == 0
    assert plan.slots == (frozenset({1, 2}), frozenset({3, 4}))
    plan = CorePlan.of([0, 1, 2], 4)  # fewer cores than slots: round robin, never core 0
    assert plan is not None and plan.slots == tuple(frozenset({c}) for c in (1, 2, 1, 2))
    assert CorePlan.of([3], 2) is None


def _data(**top: object) -> dict[str, object]:
    base: dict[str, object] = {
        "time_control": {"per_move": 1},
        "bots": [{"name": "a", "command": [sys.executable]}, {"name": "b", "command": [sys.executable]}],
    }
    base.update(top)
    return base


def test_the_affinity_key_is_validated(tmp_path: Path) -> None:
    parse = lambda **top: parse_config(_data(**top), file="x.yaml", base_dir=tmp_path)
    assert parse().affinity is None
    assert parse(affinity=False).affinity is None
    assert parse(affinity=True).affinity == frozenset(CPUS)
    assert parse(affinity=str(CPUS[0])).affinity == {CPUS[0]}
    assert parse(affinity=[CPUS[-1]]).affinity == {CPUS[-1]}
    for value, expected in (
        ("0-", "x.yaml: affinity: expected CPUs like"),
        (4.5, "x.yaml: affinity: expected true, false,"),
        ([], "x.yaml: affinity: expected true, false,"),
        ([max(CPUS) + 7], f"x.yaml: affinity: CPU {max(CPUS) + 7} not available to this process"),
    ):
        with pytest.raises(ConfigError) as info:
            parse(affinity=value)
        assert str(info.value).startswith(expected), str(info.value)


def _config(tmp_path: Path, **top: object) -> Path:
    data = {
        "name": "aff",
        "board_size": 3,
        "opening": "empty",
        "time_control": {"per_move": 0.5},
        "schedule": {"kind": "round_robin", "games_per_pair": 2},
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "bots": [
            {"name": n, "command": [sys.executable, "-c", REPORTER, str(k)], "cwd": str(ROOT)}
            for k, n in enumerate(("a", "b"))
        ],
        **top,
    }
    path = tmp_path / "aff.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _run(path: Path) -> str:
    out = io.StringIO()
    trio.run(Tournament(load_config(path), out=out).run)
    return out.getvalue()


def _reported(folder: Path) -> set[str]:
    return {line for log in (folder / "logs").glob("*.stderr.log") for line in log.read_text().splitlines()}


@pytest.mark.skipif(len(CPUS) < 2, reason="pinning needs two CPUs (one for the referee)")
@pytest.mark.parametrize("executor", [{}, {"executor": {"processes": 2}}], ids=["here", "processes"])
def test_with_affinity_the_bots_keep_off_the_referees_core(
    tmp_path: Path, executor: dict[str, object]
) -> None:
    printed = _run(_config(tmp_path, affinity=True, **executor))
    referee, rest = CPUS[0], CPUS[1:]
    assert f"affinity: bots on CPUs {describe_cpus(rest)}, CPU {referee} kept free for the referee" in printed
    reported = _reported(tmp_path / "out")
    assert reported, "no bot reported its CPUs"
    for line in reported:
        cpus = {int(c) for c in line.removeprefix("cpus [").removesuffix("]").split(",")}
        assert referee not in cpus and cpus <= set(rest), line


def test_without_affinity_bots_run_anywhere(tmp_path: Path) -> None:
    printed = _run(_config(tmp_path))
    assert "affinity:" not in printed
    assert _reported(tmp_path / "out") == {f"cpus {CPUS}"}


def test_more_games_at_once_than_cores_is_warned(tmp_path: Path) -> None:
    printed = _run(_config(tmp_path, concurrency=len(CPUS) + 1))
    assert f"warning: {len(CPUS) + 1} games at once on {len(CPUS)} CPU core(s) for bots" in printed
    (tmp_path / "fits").mkdir()
    printed = _run(_config(tmp_path / "fits", concurrency=len(CPUS)))
    assert "warning:" not in printed.split("\n\n")[0]  # the header (statistical warnings come at the end)
