"""One referee process against several: ``python benchmarks/processes.py [--games 400]
[--concurrency 2] [--processes 2] [--runs 3]``.

A whole tournament (``vastuz tournament``'s runner: results file, standings, everything)
between two copies of the *instant* C replay bot of ``benchmarks/referee.py --mode c``
(compiled here into a temporary folder; it replays a scripted legal size-7 game, so the
bots cost next to nothing and the referee is the work), played from an empty folder

* in the run's own process (``executor`` default), and
* over ``--processes`` referee processes (``executor: {processes: N}``),

both at ``--concurrency``, interleaved run by run (the machine is noisy). Printed per run:
games and turns per second over the whole run (start-up and the final standings page
included) and over the playing alone (first start to last end, from the records), and the
ratios of the two executors in the same run; then the median ratios.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import trio
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.referee import build_replay_bot, scripted_game, warm_bytecode
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament


def write_config(folder: Path, argv: list[str], games: int, concurrency: int, processes: int) -> Path:
    bot = {"command": argv, "cwd": str(folder)}
    data = {
        "name": "bench",
        "board_size": 7,
        "opening": "empty",
        "time_control": {"per_move": 10},
        "schedule": {"kind": "round_robin", "games_per_pair": games},
        "concurrency": concurrency,
        "executor": {"processes": processes},
        "output": str(folder / f"out-{processes}"),
        "bots": [{"name": "a", **bot}, {"name": "b", **bot}],
    }
    path = folder / f"bench-{processes}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run(path: Path) -> tuple[float, float, int, int]:
    """(seconds of the whole run, seconds from the first game's start to the last one's
    end, games, turns) of one run from an empty folder."""
    config = load_config(path)
    started = time.perf_counter()
    result = trio.run(Tournament(config, out=io.StringIO(), quiet=True, standings_every=0).run)
    seconds = time.perf_counter() - started
    assert result.played == result.total and not result.void, "a benchmark game did not end normally"
    records = [json.loads(line) for line in (Path(config.output) / "results.jsonl").read_text().splitlines()]
    first = min(datetime.fromisoformat(r["started_at"]) for r in records)
    last = max(datetime.fromisoformat(r["ended_at"]) for r in records)
    turns = sum(len(r["turns"]) for r in records)
    return seconds, (last - first).total_seconds(), result.played, turns


def main() -> None:
    warm_bytecode(Path(__file__).resolve().parent.parent)  # the referee processes import it
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1, help="the scripted game")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vastuz-bench-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        script.write_text("".join(t + "\n" for t in scripted_game(7, args.seed)))
        argv = [str(binary), str(script)]
        paths = {p: write_config(folder, argv, args.games, args.concurrency, p) for p in (1, args.processes)}
        print(
            f"{args.games} games of instant C bots (size 7), concurrency {args.concurrency}: "
            f"one referee process against {args.processes}\n"
        )
        header = (
            f"{'run':<5}{'executor':<22}{'games/s':>9}{'turns/s':>9}{'playing':>9}{'ratio':>7}{'playing':>9}"
        )
        print(header)
        print("-" * len(header))
        rates: dict[int, list[tuple[float, float]]] = {p: [] for p in paths}
        for i in range(1, args.runs + 1):
            for processes, path in paths.items():
                output = folder / f"out-{processes}"
                if output.exists():
                    shutil.rmtree(output)
                seconds, playing, games, turns = run(path)
                rates[processes].append((games / seconds, games / playing))
                label = "in-process" if processes == 1 else f"{processes} referee processes"
                ratios = ""
                if processes != 1:
                    (whole, play), (whole1, play1) = rates[processes][-1], rates[1][-1]
                    ratios = f"{whole / whole1:7.2f}{play / play1:9.2f}"
                row = f"{i:<5}{label:<22}{games / seconds:9.1f}{turns / seconds:9.0f}{games / playing:9.1f}"
                print(row + ratios, flush=True)
        n = args.processes
        whole = [a[0] / b[0] for a, b in zip(rates[n], rates[1], strict=True)]
        play = [a[1] / b[1] for a, b in zip(rates[n], rates[1], strict=True)]
        print(
            f"\ngames/s: the whole run (start-up and the final standings page included); playing: from the"
            f"\nfirst game's start to the last game's end (the records' times). Median ratios, {n} processes"
            f"\nover one: whole run {statistics.median(whole):.2f} ({min(whole):.2f}-{max(whole):.2f}), "
            f"playing {statistics.median(play):.2f} ({min(play):.2f}-{max(play):.2f})"
        )


if __name__ == "__main__":
    main()
