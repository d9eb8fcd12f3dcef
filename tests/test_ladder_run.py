"""``vastuz ladder`` as a process with real bot processes: rounds played and stored, a
SIGKILL mid-round then a restart (no game lost, none repeated: counted by slot key), a
stop file and SIGTERM (the games in flight finish first), a changed program refused (and
``on_change: new-entry``), the anchor fixed and provisional marks cleared at the minimum,
the export read by ``vastuz report``. Small boards and quick bots; every wait is bounded."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml
from processes import wait_until_gone
from runs import reaped, vastuz, wait_for

from referee.ladder.config import load_ladder
from referee.ladder.status import status_lines
from referee.ladder.store import LadderStore
from referee.play.records import GameRecord

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"
GAME_LINE = "(B) - "


def write(tmp_path: Path, marker: str, *, n: int = 4, slow: bool = False, **overrides: object) -> Path:
    """A ladder of ``n`` fake bots, each its own copy of the fake bot's script (so one
    program can change), board 3; ``slow``: each genmove waits (games stay in flight)."""
    bots = []
    for i in range(n):
        script = tmp_path / f"bot{i}.py"
        if not script.exists():
            script.write_text(FAKEBOT.read_text())
        argv = [sys.executable, str(script), "--seed", str(i)]
        if slow:
            argv += ["--fault", "slow", "--delay", "0.03"]
        bots.append(
            {"name": f"b{i}", "command": argv, "cwd": str(ROOT), "env": {"VASTUZ_TEST_MARKER": marker}}
        )
    data: dict[str, object] = {
        "name": "lad",
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "concurrency": 2,
        "min_games": 4,
        "anchors": [{"bot": "b0", "rating": 100}],
        "pairing": {"noise": 50, "seed": 3},
        "bots": bots,
    }
    data.update(overrides)
    path = tmp_path / "lad.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "ladder", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def counted(store: Path) -> list[str]:
    """The slot keys of the counted games, read beside a running ladder (WAL readers)."""
    if not store.exists():
        return []
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    try:
        return [r[0] for r in db.execute("SELECT slot FROM games ORDER BY seq")]
    except sqlite3.OperationalError:  # the schema is being created
        return []
    finally:
        db.close()


def records(store: Path) -> dict[str, str]:
    with LadderStore(store) as s:
        return {GameRecord.from_json(text).slot: text for text in s.records()}


def test_rounds_are_played_stored_rated_and_exported(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker)
    proc = run(str(path), "--rounds", "2")
    assert proc.returncode == 0, proc.stderr
    assert "round 1: " in proc.stdout and "round 2: " in proc.stdout
    config = load_ladder(path)
    slots = counted(config.store)
    assert len(slots) == len(set(slots)) == 8  # 2 pairings x 2 games x 2 rounds
    assert {s.split("-")[0] for s in slots} == {"r1", "r2"}
    lines, entries = status_lines(config, LadderStore(config.store))
    by = {line.label: line for line in lines}
    assert by["b0"].elo == 100 and by["b0"].anchor  # the anchor stays at its rating
    assert all(line.games == 4 and not line.provisional for line in lines)  # 4 games: established
    assert {e.version for e in entries} == {"1.0"}  # the protocol's answers, learnt at the start
    status = run("status", str(path))
    assert status.returncode == 0 and "8 games in 2 rounds" in status.stdout
    assert "?" not in status.stdout.split("\n\n", 1)[1].replace("(?)", "")
    # The export is a results folder that vastuz report rates like the ladder.
    out = tmp_path / "export"
    exported = run("export", str(path), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert len((out / "results.jsonl").read_text().splitlines()) == 8
    report = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(out)], capture_output=True, text=True, timeout=60
    )
    assert report.returncode == 0, report.stderr
    assert "8 games rated" in report.stdout and "anchor" in report.stdout
    pgn = subprocess.run(
        [sys.executable, "-m", "referee.cli", "export", str(out), "--format", "pgn"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert pgn.returncode == 0 and pgn.stdout.count("[Event ") == 8, pgn.stderr
    stream = run("export", str(path))
    played = [GameRecord.from_json(x) for x in stream.stdout.splitlines()]
    assert [r.slot for r in played] == slots
    # A new round only when the last has ended: round 2's first start after round 1's last end.
    ends = max(r.ended_at for r in played if r.slot.startswith("r1-"))
    assert min(r.started_at for r in played if r.slot.startswith("r2-")) >= ends
    assert wait_until_gone(marker) == []


def test_over_referee_processes(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker)
    proc = run(str(path), "--rounds", "2", "--processes", "2")
    assert proc.returncode == 0, proc.stderr
    assert "referee processes: " in proc.stdout
    slots = counted(load_ladder(path).store)
    assert len(slots) == len(set(slots)) == 8
    assert wait_until_gone(marker) == []


def test_provisional_until_the_minimum(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker, min_games=4)
    assert run(str(path), "--rounds", "1", "--quiet").returncode == 0
    config = load_ladder(path)
    lines, _ = status_lines(config, LadderStore(config.store))
    assert all(line.games == 2 for line in lines)
    assert [line.provisional for line in lines if not line.anchor] == [True, True, True]
    assert "?" in run("status", str(path)).stdout.split("\n\n", 1)[1].replace("(?)", "")
    assert run(str(path), "--rounds", "1", "--quiet").returncode == 0
    lines, _ = status_lines(config, LadderStore(config.store))
    assert all(line.games == 4 and not line.provisional for line in lines)
    assert next(line for line in lines if line.anchor).elo == 100


def test_a_sigkill_mid_round_then_a_restart_loses_no_game_and_repeats_none(
    tmp_path: Path, marker: str
) -> None:
    path = write(tmp_path, marker, slow=True)
    config = load_ladder(path)
    with reaped(vastuz("ladder", str(path), "--rounds", "3")) as proc:
        wait_for(
            lambda: len(counted(config.store)) >= 5, "five games", proc, seconds=120
        )  # round 2 under way
        proc.kill()  # SIGKILL: no cleanup at all
        proc.communicate()
    before = records(config.store)
    assert 5 <= len(before) < 12
    assert wait_until_gone(marker) == []
    with LadderStore(config.store) as store:
        assert store.counts()["pending"] > 0  # the games in flight have no record: they are played again
    proc2 = run(str(path), "--rounds", "2")
    assert proc2.returncode == 0, proc2.stderr
    assert "resumed" in proc2.stdout
    after = records(config.store)
    assert {slot: after[slot] for slot in before} == before  # nothing written before was touched
    slots = counted(config.store)
    assert len(slots) == len(set(slots)) == 12  # three whole rounds, each game once
    with LadderStore(config.store) as store:
        counts = store.counts()
        assert counts["rounds"] == 3 and counts.get("pending", 0) == 0
    assert wait_until_gone(marker) == []


def _stopped_after_games_in_flight(stdout: str) -> None:
    """The games said to be in progress at the stop are the games recorded after it."""
    _, _, tail = stdout.partition("stopping (")
    assert tail, stdout
    in_flight = int(tail.split("the ", 1)[1].split(" game(s)", 1)[0])
    finished = [line for line in tail.splitlines()[1:] if GAME_LINE in line]
    assert len(finished) == in_flight


def test_a_stop_file_ends_it_after_the_games_in_flight(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker, slow=True)
    config = load_ladder(path)
    stop = tmp_path / "stop"
    with reaped(vastuz("ladder", str(path), "--stop-file", str(stop))) as proc:
        wait_for(lambda: len(counted(config.store)) >= 1, "a game", proc, seconds=120)
        stop.touch()
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    _stopped_after_games_in_flight(stdout)
    assert wait_until_gone(marker) == []
    # The stop file is still there: a start is refused until it is removed.
    again = run(str(path), "--stop-file", str(stop))
    assert again.returncode == 1 and "stop file" in again.stderr
    stop.unlink()
    assert run(str(path), "--rounds", "1", "--quiet").returncode == 0
    slots = counted(config.store)
    assert len(slots) == len(set(slots))


def test_sigterm_ends_it_after_the_games_in_flight(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker, slow=True)
    config = load_ladder(path)
    with reaped(vastuz("ladder", str(path))) as proc:
        wait_for(lambda: len(counted(config.store)) >= 1, "a game", proc, seconds=120)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "stopping (SIGTERM)" in stdout
    _stopped_after_games_in_flight(stdout)
    assert wait_until_gone(marker) == []


def test_a_changed_program_is_refused_and_new_entry_retires_the_old(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker)
    assert run(str(path), "--rounds", "1", "--quiet").returncode == 0
    script = tmp_path / "bot1.py"
    script.write_text(script.read_text() + "\n# a stronger version\n")
    refused = run(str(path), "--rounds", "1")
    assert refused.returncode == 1
    assert "bot b1: its program's fingerprint" in refused.stderr and "on_change: new-entry" in refused.stderr
    assert GAME_LINE not in refused.stdout  # refused before any game
    config = load_ladder(path)
    assert len(counted(config.store)) == 4
    data = yaml.safe_load(path.read_text())
    data["bots"][1]["on_change"] = "new-entry"
    path.write_text(yaml.safe_dump(data))
    proc = run(str(path), "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    assert "new entry b1.v2; b1 is retired with its games" in proc.stdout
    status = run("status", str(path)).stdout
    rows = {line.split()[1]: line for line in status.splitlines() if line[:1].isdigit()}
    assert rows["b1"].endswith("retired") and rows["b1.v2"].endswith("active")
    assert " 2 " in rows["b1"]  # its games kept
    lines, _ = status_lines(load_ladder(path), LadderStore(config.store))
    assert sum(line.games for line in lines) == 16  # 8 games, two bots each
    assert wait_until_gone(marker) == []


def test_a_bot_that_does_not_start_sits_out(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker, n=5)
    data = yaml.safe_load(path.read_text())
    data["bots"][4]["command"] = [sys.executable, str(tmp_path / "bot4.py"), "--fault", "exit-at-start"]
    path.write_text(yaml.safe_dump(data))
    proc = run(str(path), "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    assert "warning: bot b4 does not start" in proc.stdout
    assert not any("b4" in slot for slot in counted(load_ladder(path).store))
    assert wait_until_gone(marker) == []


def test_a_bot_that_stops_starting_sits_out_and_the_others_play_on(tmp_path: Path, marker: str) -> None:
    """A bot that started for the ladder's first look, then cannot start for its games: after
    3 failed starts in a row it sits out, its pending games are cancelled, the ladder goes on."""
    path = write(tmp_path, marker, n=5)
    started = tmp_path / "started-once"
    wrapper = tmp_path / "flaky.sh"
    wrapper.write_text(
        f'#!/bin/sh\nif [ -e "{started}" ]; then exit 3; fi\n: > "{started}"\n'
        f"exec {sys.executable} {tmp_path / 'bot4.py'} --seed 4\n"
    )
    wrapper.chmod(0o755)
    data = yaml.safe_load(path.read_text())
    data["bots"][4]["command"] = [str(wrapper)]
    path.write_text(yaml.safe_dump(data))
    proc = run(str(path), "--rounds", "4")
    assert proc.returncode == 0, proc.stderr
    assert "warning: bot b4 could not start 3 times in a row" in proc.stdout
    assert "it sits out the rest of this run, the others play on" in proc.stdout
    with LadderStore(load_ladder(path).store) as store:
        counts = store.counts()
        slots = store.slot_keys()
    assert counts["rounds"] == 4
    assert not any("b4" in slot for slot in slots)  # its games were void, none counted
    assert 3 <= counts.get("void", 0) <= 4  # the starts that failed (a pair's two at once)
    assert {s.split("-")[0] for s in slots} >= {"r3", "r4"}  # the others played on
    assert wait_until_gone(marker) == []


def test_only_the_last_rounds_logs_are_kept(tmp_path: Path, marker: str) -> None:
    path = write(tmp_path, marker, keep_logs=2)
    data = yaml.safe_load(path.read_text())
    for bot in data["bots"]:  # a line on stderr at every genmove: a log file for every game
        bot["command"] += ["--fault", "chatty", "--at", "genmove"]
    path.write_text(yaml.safe_dump(data))
    logs = load_ladder(path).logs
    logs.mkdir(parents=True)
    (logs / "notes.txt").write_text("an operator's file: not a round's\n")
    assert run(str(path), "--rounds", "4", "--quiet").returncode == 0
    rounds = {name.split("-")[0] for name in (p.name for p in logs.iterdir()) if name.startswith("r")}
    assert rounds == {"r3", "r4"}
    assert {"-".join(p.name.split("-")[:3]) for p in logs.iterdir() if p.name.startswith("r4-")} == {
        slot for slot in counted(load_ladder(path).store) if slot.startswith("r4-")
    }  # every game of the rounds kept has its logs
    assert (logs / "notes.txt").exists()
    # keep_logs: 0 keeps every round's.
    data = yaml.safe_load(path.read_text())
    data["keep_logs"] = 0
    path.write_text(yaml.safe_dump(data))
    assert run(str(path), "--rounds", "1", "--quiet").returncode == 0
    rounds = {p.name.split("-")[0] for p in logs.iterdir() if p.name.startswith("r")}
    assert rounds == {"r3", "r4", "r5"}
    assert wait_until_gone(marker) == []
