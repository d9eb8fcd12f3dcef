"""A real ``vastuz serve`` for the tests: started as a process on 127.0.0.1 with a free
port, driven over loopback HTTP (urllib), stopped with SIGTERM and reaped. Also a finished
run to serve (real games of the in-memory random bots through the game loop) and a bots
file of a random bot and one that crashes at its second turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import trio

from referee.play.game import play_game
from referee.play.memory import MemoryPlayer
from referee.play.spec import GameSpec, OpeningKind, TimeControl
from referee.tournament.store.results import ResultsFile
from sample_bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def bots_file(folder: Path) -> Path:
    path = folder / "bots.yaml"
    path.write_text(
        "bots:\n"
        f"  - name: random\n    command: {sys.executable} -m sample_bots.random_bot --seed 1\n"
        f"    cwd: {ROOT}\n"
        f"  - name: crasher\n    command: {sys.executable} {FAKEBOT} --fault crash --after 1\n"
        f"    cwd: {ROOT}\n",
        encoding="utf-8",
    )
    return path


async def _games(results: Path) -> None:
    for k, (a, b) in enumerate(
        [("alpha", "beta"), ("beta", "gamma"), ("gamma", "alpha"), ("alpha", "<b>x</b>")]
    ):
        players = [MemoryPlayer(RandomBot(seed=k + seat), label=label) for seat, label in enumerate((a, b))]
        spec = GameSpec(
            size=5, opening=OpeningKind.PIE, time_control=TimeControl.fixed(1.0), game_id=f"g{k + 1}"
        )
        async with trio.open_nursery() as nursery:
            record = await play_game(players[0], players[1], spec, start_in=nursery)
        ResultsFile(results).append(record)


def finished_run(folder: Path) -> Path:
    """A results folder of four finished games (ids g1..g4), no manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    trio.run(_games, folder / "results.jsonl")
    return folder


class Served:
    def __init__(self, url: str, process: subprocess.Popen[str]) -> None:
        self.url = url
        self.process = process

    def call(
        self, method: str, path: str, data: object = None, *, headers: dict[str, str] | None = None,
        raw: bytes | None = None, timeout: float = 30.0,
    ) -> tuple[int, Any, dict[str, str]]:  # fmt: skip
        """(status, the JSON answer or the text, the headers)."""
        body = raw if raw is not None else None if data is None else json.dumps(data).encode()
        all_headers = {"Content-Type": "application/json"} if body is not None else {}
        all_headers.update(headers or {})
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text, got = response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as exc:
            status, text, got = exc.code, exc.read().decode(), dict(exc.headers)
        try:
            return status, json.loads(text), got
        except ValueError:
            return status, text, got

    def get(self, path: str, **kw: Any) -> tuple[int, Any]:
        status, answer, _ = self.call("GET", path, **kw)
        return status, answer

    def post(self, path: str, data: object = None, **kw: Any) -> tuple[int, Any]:
        status, answer, _ = self.call("POST", path, {} if data is None else data, **kw)
        return status, answer


@contextmanager
def serving(*args: str, cwd: Path) -> Iterator[Served]:
    """``vastuz serve ARGS --port 0`` until the block ends."""
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - the server's stderr, read back when it fails
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", *args, "--port", "0"],
        cwd=cwd, stdout=subprocess.PIPE, stderr=log, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("serving on "):
            process.kill()
            process.wait()
            log.seek(0)
            raise AssertionError(f"the server did not start: {line!r} {log.read()[-2000:]}")
        yield Served(line.split()[2].rstrip(","), process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        assert process.stdout is not None
        process.stdout.close()
        log.seek(0)
        errors = log.read()
        log.close()
        assert "Traceback" not in errors, errors[-3000:]


def a_turn(served: Served, game_id: str, state: dict[str, Any], *, last: bool = False) -> str:
    """A legal turn for the person, built as the page builds it: a placement, then the
    steals the engine offers, one at a time."""
    if state["must_pass"]:
        return "pass"
    placements = state["legal_placements"]
    turn = placements[-1 if last else 0]
    while True:
        status, answer = served.get(f"/api/play/{game_id}/steals?turn={urllib.request.quote(turn)}")
        assert status == 200, answer
        if answer["complete"]:
            return turn
        frm, to = answer["legal_steals"][0]
        turn += f",{frm}>{to}"


def wait_for(
    served: Served, game_id: str, *, asked: str | None = None, limit: float = 30.0
) -> dict[str, Any]:
    """The game's state once the person is asked ``asked`` (any question when None) or it is over."""
    deadline = time.monotonic() + limit
    version = -1
    while time.monotonic() < deadline:
        status, state = served.get(f"/api/play/{game_id}?after={version}")
        assert status == 200, state
        if state["status"] == "over" or (state["asked"] is not None and asked in (None, state["asked"])):
            return state
        version = state["version"]
    raise AssertionError(f"game {game_id}: never asked {asked}")


def live_config(folder: Path, output: Path, *, games: int = 2) -> Path:
    """A short tournament whose games last a few seconds (mcts thinks its 0.15 s a move)."""
    path = folder / "live.yaml"
    path.write_text(
        "name: live\nboard_size: 5\nopening: pie\ntime_control: {per_move: 0.15}\n"
        f"schedule: {{kind: round_robin, games_per_pair: {games}}}\nconcurrency: 1\n"
        f"output: {output}\n"
        "bots:\n"
        f"  - name: mcts\n    command: {sys.executable} -m sample_bots.mcts_bot --seed 1\n    cwd: {ROOT}\n"
        f"  - name: random\n    command: {sys.executable} -m sample_bots.random_bot\n    cwd: {ROOT}\n",
        encoding="utf-8",
    )
    return path


@contextmanager
def tournament(*args: str, cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """``vastuz tournament ARGS`` until the block ends (then Ctrl-C, as a person stops it)."""
    run = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "tournament", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        yield run
    finally:
        run.send_signal(signal.SIGINT)
        try:
            run.wait(timeout=30)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
        assert run.stdout is not None and run.stderr is not None
        run.stdout.close()
        errors = run.stderr.read()
        run.stderr.close()
        assert "Traceback" not in errors, errors[-3000:]


def until(check: Callable[[], Any], what: str, limit: float = 30.0) -> Any:
    """``check()`` once it is true (polled every 50 ms for at most ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")
