"""Settings cutechess and fastchess users expect (issue 25, item 1; issue 24 asks for the
timeouts): ``startup_timeout`` and ``command_timeout`` in the config, with real bots."""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
import runs
import trio
import yaml

from referee.errors import ConfigError, RunStopped
from referee.play.records import Termination
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_STARTUP_TIMEOUT
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def bot(name, *args, marker, warm_up: float = 0.0):
    """A fake bot; with ``warm_up`` it sleeps that long before it reads its first command."""
    words = [sys.executable, str(FAKEBOT), *args]
    command = ["sh", "-c", f"sleep {warm_up}; exec {shlex.join(words)}"] if warm_up else words
    return {"name": name, "command": command, "cwd": str(ROOT), "env": {"VASTUZ_TEST_MARKER": marker}}


def test_the_timeouts_default_as_before_and_a_set_command_timeout_is_fingerprinted(tmp_path):
    bots = [{"name": n, "command": [sys.executable, str(FAKEBOT)]} for n in "ab"]
    plain = load_config(runs.write_config(tmp_path, bots))
    assert (plain.startup_timeout, plain.command_timeout) == (
        DEFAULT_STARTUP_TIMEOUT,
        DEFAULT_COMMAND_TIMEOUT,
    )
    assert "command_timeout" not in plain.fingerprint()  # earlier folders still resume
    set_ = load_config(runs.write_config(tmp_path, bots, startup_timeout=30, command_timeout=2.5))
    assert (set_.startup_timeout, set_.command_timeout) == (30, 2.5)
    assert set_.fingerprint()["command_timeout"] == 2.5
    with pytest.raises(ConfigError, match="startup_timeout: expected a number > 0, got 0"):
        load_config(runs.write_config(tmp_path, bots, startup_timeout=0))


async def test_a_bot_that_warms_up_longer_than_startup_timeout_does_not_start(tmp_path, marker):
    bots = [
        bot("slow", "--seed", "1", marker=marker, warm_up=1.5),
        bot("quick", "--seed", "2", marker=marker),
    ]
    schedule = {"kind": "round_robin", "games_per_pair": 2}
    short = load_config(
        runs.write_config(tmp_path, bots, out="short", **runs.FAST, schedule=schedule, startup_timeout=0.3)
    )
    with trio.fail_after(60):
        try:
            await Tournament(short, out=io.StringIO(), start_failure_limit=2).run()
        except RunStopped:
            pass
    recs = ResultsFile(short.output / "results.jsonl").load().records
    assert recs and all(r.termination is not Termination.SCORE for r in recs)
    long = load_config(
        runs.write_config(tmp_path, bots, out="long", **runs.FAST, schedule=schedule, startup_timeout=10)
    )
    with trio.fail_after(60):
        result = await Tournament(long, out=io.StringIO()).run()
    recs = ResultsFile(long.output / "results.jsonl").load().records
    assert result.played == 2 and all(r.termination is Termination.SCORE for r in recs)


def records(config):
    return ResultsFile(config.output / "results.jsonl").load().records


async def run(config, **options):
    with trio.fail_after(90):
        return await Tournament(config, out=io.StringIO(), standings_every=0, **options).run()


async def test_time_odds_each_clock_is_its_own(tmp_path, marker):
    # Both sleep 0.3 s per move; "fast" plays at 0.1 s (+0.05 margin) and loses every game
    # on time, "odds" at the config's 1 s never does.
    slow = ("--fault", "slow", "--delay", "0.3")
    bots = [
        {**bot("fast", *slow, marker=marker), "time_control": {"per_move": 0.1, "margin": 0.05}},
        bot("odds", *slow, marker=marker),
    ]
    config = load_config(
        runs.write_config(
            tmp_path,
            bots,
            time_control={"per_move": 1.0, "margin": 0.5},
            schedule={"kind": "round_robin", "games_per_pair": 2},
            concurrency=1,
        )
    )
    assert config.bot("fast").time_control is not None and config.bot("odds").time_control is None
    assert config.fingerprint()["bots"][0]["time_control"]["per_move"] == 0.1
    assert "time_control" not in config.fingerprint()["bots"][1]
    await run(config)
    recs = records(config)
    assert len(recs) == 2
    for r in recs:
        fast = r.labels.index("fast")
        assert r.termination is Termination.TIME and r.fault is not None and r.fault.seat == fast
        assert r.bots[fast].time_control == {"kind": "per_move", "per_move": 0.1, "margin": 0.05}
        assert r.bots[1 - fast].time_control is None  # the game's own clock
        assert r.time_control["per_move"] == 1.0
    warnings = json.loads((config.output / "standings.json").read_text())["warnings"]
    assert any(w.startswith("time odds: fast at 0.1 s per move (margin 0.05 s)") for w in warnings)
    # Only a bot's margin: the config's clock with that margin.
    only = load_config(
        runs.write_config(tmp_path, [{**bots[0], "time_control": None, "margin": 0.7}, bots[1]], out="m")
    )
    assert only.bot("fast").time_control is not None and only.bot("fast").time_control.margin == 0.7


def logged(path: Path) -> dict[str, list[str]]:
    """The commands each process received, by pid, without command ids."""
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        pid, *words = line.split()
        if words and words[0].isdigit():
            words = words[1:]
        out.setdefault(pid, []).append(" ".join(words))
    return out


async def test_startup_commands_reach_the_bot_in_order_and_a_refused_one_is_named(tmp_path, marker):
    log = tmp_path / "received.log"
    bots = [
        {
            **bot("tuned", "--seed", "1", "--log", str(log), marker=marker),
            "startup_commands": ["set_strength 3", "set_style  calm"],
        },
        bot("plain", "--seed", "2", marker=marker),
    ]
    config = load_config(runs.write_config(tmp_path, bots, **runs.FAST, schedule={"kind": "round_robin"}))
    assert config.bot("tuned").startup_commands == ("set_strength 3", "set_style calm")
    await run(config)
    for received in logged(log).values():
        assert received[:7] == [
            "protocol_version",
            "name",
            "version",
            "list_commands",
            "boardsize 3",
            "set_strength 3",
            "set_style calm",
        ]
    bots[0] = {**bots[0], "startup_commands": ["set_strength bad"]}
    refused = load_config(
        runs.write_config(tmp_path, bots, out="bad", **runs.FAST, schedule={"kind": "round_robin"})
    )
    with pytest.raises(RunStopped) as stopped:
        await run(refused, start_failure_limit=1)
    assert "set_strength bad" in str(stopped.value) and "cannot set strength to bad" in str(stopped.value)
    for mistake, message in [
        ("set_strength 3", "bots[0].startup_commands: expected a list of protocol commands"),
        (["  "], "bots[0].startup_commands[0]: expected a command name and its arguments"),
    ]:
        bots[0] = {**bots[0], "startup_commands": mistake}
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_config(runs.write_config(tmp_path, bots, out="wrong"))


@pytest.mark.parametrize(
    ("policy", "quitter_processes", "steady_processes"),
    [("on-fault", 4, 1), ("never", 1, 1), ("always", 4, 4)],
)
async def test_restart_policies_by_process_ids(tmp_path, marker, policy, quitter_processes, steady_processes):
    # "quitter" resigns every game (a fault its protocol survives); "steady" never faults.
    bots = [
        {**bot("quitter", "--fault", "resign", marker=marker), "restart": policy},
        {**bot("steady", "--seed", "2", marker=marker), "restart": policy},
    ]
    four = {"kind": "round_robin", "games_per_pair": 4}
    config = load_config(runs.write_config(tmp_path, bots, **{**runs.FAST, "concurrency": 1}, schedule=four))
    await run(config)
    recs = records(config)
    assert len(recs) == 4 and all(r.termination is Termination.RESIGN for r in recs)
    pids = {name: {r.bots[r.labels.index(name)].pid for r in recs} for name in ("quitter", "steady")}
    assert (len(pids["quitter"]), len(pids["steady"])) == (quitter_processes, steady_processes)


def test_a_bots_file_shared_by_configs_with_overrides_and_its_mistakes_named(tmp_path):
    shared = tmp_path / "shared"
    (shared / "engines").mkdir(parents=True)
    engines = shared / "engines.yaml"
    fake = [sys.executable, str(FAKEBOT)]
    engines.write_text(
        yaml.safe_dump(
            {
                "bots": [
                    {"name": "alpha", "command": [*fake, "--seed", "1"]},  # cwd: the file's folder
                    {"name": "beta", "command": [*fake, "--seed", "2"], "cwd": "engines"},
                    {"name": "gamma", "command": [*fake, "--seed", "3"], "restart": "always"},
                ]
            }
        )
    )
    uses = [
        {"use": "alpha"},
        {"use": "beta", "time_control": {"per_move": 0.2}},
        {"use": "alpha", "name": "alpha-2", "startup_commands": ["set_level 2"]},
    ]
    config = load_config(runs.write_config(tmp_path, uses, bots_file="shared/engines.yaml"))
    assert config.bot_names == ("alpha", "beta", "alpha-2")
    assert config.bot("alpha").cwd == shared and config.bot("beta").cwd == shared / "engines"
    assert config.bot("beta").time_control is not None and config.bot("beta").time_control.per_move == 0.2
    assert config.bot("alpha-2").command == config.bot("alpha").command
    assert config.bot("alpha-2").startup_commands == ("set_level 2",)
    # A list of files; a definition's mistake names its file and place.
    (shared / "more.yaml").write_text(yaml.safe_dump({"bots": [{"name": "delta", "command": 42}]}))
    path = runs.write_config(tmp_path, uses, bots_file=["shared/engines.yaml", "shared/more.yaml"])
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(str(tmp_path / "shared/more.yaml") + ": bots[0].command: expected")
    # An override's mistake names the config's entry.
    wrong = [uses[0], {"use": "beta", "time_control": {"per_move": -1}}]
    with pytest.raises(ConfigError) as error:
        load_config(runs.write_config(tmp_path, wrong, bots_file="shared/engines.yaml"))
    assert "c.yaml: bots[1].time_control.per_move: expected a number > 0" in str(error.value)
    for data, message in [
        (
            {"bots_file": "shared/engines.yaml", "bots": [uses[0], {"use": "omega"}]},
            "bots[1].use: no bot 'omega'",
        ),
        ({"bots": [uses[0], uses[1]]}, "bots[0].use: `use` names a bot of a bots file, and there is no"),
        ({"bots_file": "shared/none.yaml", "bots": uses}, "bots_file: bots file not found"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_config(runs.write_config(tmp_path, **{"bots": [], **data}))


def test_the_shipped_bots_file_and_examples_load():
    for name in ("example-swiss.yaml", "example-knockout.yaml"):
        config = load_config(ROOT / "configs" / name)
        assert {b.cwd for b in config.bots} == {ROOT}
