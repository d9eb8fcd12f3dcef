"""A run served while it plays, with a browser following its standings page: ``python
benchmarks/serve_follow.py [--games N] [--reps R] [--tree PATH]
[--standings-every N]``.

Runs ``vastuz tournament --serve 127.0.0.1:PORT`` of two instant C replay bots
(``benchmarks/replay_bot.c``, a seeded 110-turn size-7 game) at concurrency 1, alone and
with a client that does what the served page's script does (``/static/standings.js``):
long-poll ``/api/runs/RUN/stamp?after=STAMP`` and fetch the page again at each change.
Runs alternate, ``--reps`` times. For each it prints the wall time, the referee process's
CPU (read from ``/proc`` before it is reaped: its own, not the bots') and the pages the
client fetched. The server runs in the referee's process, so whatever a page costs to make
is paid there, beside the games. ``--tree PATH`` measures another checkout;
``--standings-every 0`` runs with no standings of the run's own, so the pages followed are
made by the server.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.referee import build_replay_bot, scripted_game  # noqa: E402
from benchmarks.tournament import _cpu_of, config_text  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _follow(base: str, stop: threading.Event, fetched: list[int]) -> None:
    """The page's script: wait for the run's stamp to change, fetch the page again."""
    runs: list[dict[str, object]] = []
    while not stop.is_set() and not runs:
        try:
            runs = json.load(urllib.request.urlopen(base + "/api/runs", timeout=5))
        except OSError:
            time.sleep(0.2)
    if not runs:
        return
    name = urllib.parse.quote(str(runs[0]["run"]))
    stamp = ""
    while not stop.is_set():
        try:
            query = urllib.parse.quote(stamp)
            answer = json.load(
                urllib.request.urlopen(f"{base}/api/runs/{name}/stamp?after={query}", timeout=30)
            )
            if answer["stamp"] == stamp:
                continue
            stamp = answer["stamp"]
            urllib.request.urlopen(f"{base}/runs/{name}/", timeout=120).read()
            fetched[0] += 1
            if not answer["running"]:
                return
        except OSError:
            time.sleep(0.5)


def run(tree: Path, config: Path, follow: bool, extra: list[str]) -> tuple[float, float, int]:
    """(wall s, referee CPU s, pages fetched) of one served run."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    began = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "tournament", str(config),
         "--serve", f"127.0.0.1:{port}", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tree, env=env,
    )  # fmt: skip
    stop = threading.Event()
    fetched = [0]
    client = threading.Thread(target=_follow, args=(f"http://127.0.0.1:{port}", stop, fetched), daemon=True)
    if follow:
        client.start()
    while os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        time.sleep(0.1)
    used = _cpu_of(process.pid)  # a zombie still has its times; reaping clears them
    if process.wait() != 0:
        raise SystemExit(f"vastuz tournament exited {process.returncode}")
    stop.set()
    if follow:
        client.join(timeout=30)
    return time.perf_counter() - began, used, fetched[0]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the project checkout to measure")
    parser.add_argument(
        "--standings-every",
        type=int,
        metavar="N",
        help="passed to vastuz tournament (0: no standings of its own)",
    )
    args = parser.parse_args()
    if args.games < 1 or args.reps < 1:
        parser.error("--games and --reps must be at least 1")
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="vastuz-serve-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        script.write_text("".join(t + "\n" for t in scripted_game(7, 1)))
        results: dict[bool, list[tuple[float, float, int]]] = {False: [], True: []}
        for rep in range(args.reps):
            for follow in (False, True):
                out = folder / f"out-{rep}-{follow}"
                config = folder / f"run-{rep}-{follow}.yaml"
                config.write_text(config_text(f"served{rep}", [str(binary), str(script)], args.games, 1, out))
                extra = (
                    [] if args.standings_every is None else ["--standings-every", str(args.standings_every)]
                )
                results[follow].append(run(tree, config, follow, extra))
                shutil.rmtree(out, ignore_errors=True)
        print(
            f"vastuz tournament --serve, {args.games} games of instant C bots, "
            f"{args.reps} alternating runs ({tree})"
            + ("" if args.standings_every is None else f", --standings-every {args.standings_every}")
        )
        for follow, label in ((False, "nobody following"), (True, "a page following the standings")):
            walls, cpus, pages = zip(*results[follow], strict=True)
            print(
                f"  {label:<32} wall {statistics.median(walls):6.1f} s ({min(walls):.1f}-{max(walls):.1f}), "
                f"referee CPU {statistics.median(cpus):6.1f} s ({min(cpus):.1f}-{max(cpus):.1f}), "
                f"pages fetched {'-'.join(str(p) for p in pages)}"
            )


if __name__ == "__main__":
    main()
