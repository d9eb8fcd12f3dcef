"""What reading a long run costs: ``python benchmarks/big_run.py [--games N] [--folder PATH]
[--tree PATH]``.

Makes (or, with ``--folder`` holding one, reuses) the output folder of a run of ``--games``
games of two instant C replay bots (``benchmarks/replay_bot.c``, a seeded 110-turn size-7
game; 20,000 by default, about 4 minutes), then times, each in a process of its own, what a
user does with it: ``vastuz report --format html``, ``vastuz export`` (PGN, SGF),
``vastuz show --game`` of its last game and ``vastuz show --html`` of all of them, and
``vastuz serve``'s game page of that game and its run listing (asked twice). For each it
prints the wall time and the peak memory of the process (the server's for the served rows).
``--tree PATH`` measures another checkout on the same folder.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.referee import build_replay_bot, scripted_game  # noqa: E402
from benchmarks.tournament import config_text  # noqa: E402


def _env(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def make_run(folder: Path, games: int, tree: Path) -> Path:
    """The run's output folder, made unless it holds a run already."""
    out = folder / "out"
    if (out / "results.jsonl").is_file():
        return out
    folder.mkdir(parents=True, exist_ok=True)
    binary = build_replay_bot(folder)
    script = folder / "game.txt"
    script.write_text("".join(t + "\n" for t in scripted_game(7, 1)))
    config = folder / "run.yaml"
    config.write_text(config_text("big", [str(binary), str(script)], games, 1, out))
    print(f"playing {games:,} games into {out} ...", flush=True)
    subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(config), "-q"],
        cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL, check=True,
    )  # fmt: skip
    return out


def timed(tree: Path, *args: str) -> tuple[float, float]:
    """(wall s, peak RSS MB) of ``vastuz ARGS`` in a process of its own."""
    began = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=tree, env=_env(tree), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.stderr is not None
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"vastuz {' '.join(args)} exited {process.returncode}: {errors[-500:]}")
    return wall, usage.ru_maxrss / 1024


def served(tree: Path, out: Path, game_id: str) -> list[tuple[str, float, float]]:
    """The server's game page of ``game_id`` and its run listing, twice: (what, wall s,
    the server's peak RSS MB so far)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", str(out), "--port", str(port)],
        cwd=tree, env=_env(tree), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    rows = []
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "serving on ..."
        name = urllib.parse.quote(out.name)
        for what, path in (
            ("serve: the game's page", f"/runs/{name}/games/{urllib.parse.quote(game_id)}"),
            ("serve: the game's page again", f"/runs/{name}/games/{urllib.parse.quote(game_id)}"),
            ("serve: /api/runs", "/api/runs"),
            ("serve: /api/runs again", "/api/runs"),
        ):
            began = time.perf_counter()
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=600).read()
            wall = time.perf_counter() - began
            with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
                peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
            rows.append((what, wall, peak / 1024))
    finally:
        process.terminate()
        process.wait()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument(
        "--folder", type=Path, default=None, help="where the run is (made if it is not there)"
    )
    parser.add_argument("--tree", type=Path, default=HERE.parent, help="the project checkout to measure")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="vastuz-big-") as tmp:
        out = make_run(args.folder if args.folder is not None else Path(tmp) / "run", args.games, tree)
        with open(out / "results.jsonl", "rb") as fh:
            fh.seek(max(0, os.path.getsize(out / "results.jsonl") - 1_000_000))
            last = json.loads(fh.read().splitlines()[-1])["game_id"]
        with open(out / "results.jsonl", "rb") as fh:
            games = sum(1 for _ in fh)
        results = out / "results.jsonl"
        rows = [
            ("report --format html", *timed(tree, "report", str(out), "--format", "html")),
            (
                "export --format pgn",
                *timed(tree, "export", str(out), "--format", "pgn", "--out", f"{tmp}/g.pgn"),
            ),
            (
                "export --format sgf",
                *timed(tree, "export", str(out), "--format", "sgf", "--out", f"{tmp}/sgf"),
            ),
            (f"show --game {last}", *timed(tree, "show", str(results), "--game", last)),
            ("show --html (every game)", *timed(tree, "show", str(results), "--html", f"{tmp}/a.html")),
            *served(tree, out, last),
        ]
    print(f"a run of {games:,} games ({tree})")
    for what, wall, peak in rows:
        print(f"  {what:<34} {wall:7.2f} s  {peak:7.0f} MB peak")


if __name__ == "__main__":
    main()
