"""What the rules help costs: the rules helper per ``legal_turns`` on size 7, and random
games per second in libvastuz (C) against the Python engine.

    python -m benchmarks.rules_helper [--positions N] [--seconds S] [--size N]

* helper: positions from random games on size 7 (seeded); for each, ``set_position`` then
  ``legal_turns`` written to a real ``python -m protocol.rules`` process over pipes, the
  round trip timed alone; beside it the engine's own ``legal_turns`` on the same positions
  in this process (the helper's overhead is the difference: framing, pipes, a process
  switch);
* random games: a uniformly random placement then random steals each turn, from a random
  setup to the end, as many games as fit in S seconds: the C library in C
  (benchmarks/random_games.c, built with make and cc), the Python engine's ``random_turn``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.engine import Position

ROOT = Path(__file__).resolve().parent.parent


def positions(size: int, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.new(size)
        pos = pos.setup(*rng.sample(pos.legal_placements(), 2))
        while not pos.is_over and len(out) < count:
            out.append(pos)
            pos = pos.play(pos.random_turn(rng))
    return out


def helper_cost(found: list[Position]) -> tuple[list[float], list[float], list[int]]:
    """Seconds per legal_turns through the helper process, and in the engine; turns each."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "protocol.rules"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def ask(line: str) -> list[bytes]:
        stdin.write(line.encode() + b"\n")
        stdin.flush()
        lines = []
        while (got := stdout.readline()) not in (b"\n", b""):
            lines.append(got)
        return lines

    ask(f"boardsize {found[0].size}")
    via_helper, in_engine, counts = [], [], []
    for pos in found:
        black = ",".join(pos.stones("black")) or "-"
        white = ",".join(pos.stones("white")) or "-"
        ask(f"set_position {pos.to_move.letter} {black} {white}")
        began = time.perf_counter()
        answer = ask("legal_turns")
        via_helper.append(time.perf_counter() - began)
        fresh = Position.from_stones(pos.size, pos.stones("black"), pos.stones("white"), pos.to_move)
        began = time.perf_counter()
        turns = fresh.legal_turns()
        in_engine.append(time.perf_counter() - began)
        counts.append(len(turns))
        assert len(answer) == max(1, len(turns))
    ask("quit")
    proc.wait(timeout=10)
    return via_helper, in_engine, counts


def python_games(size: int, seconds: float, seed: int) -> tuple[int, int, float]:
    rng = random.Random(seed)
    games = turns = 0
    began = time.perf_counter()
    while (took := time.perf_counter() - began) < seconds or games == 0:
        pos = Position.new(size)
        pos = pos.setup(*rng.sample(pos.legal_placements(), 2))
        while not pos.is_over:
            pos = pos.play(pos.random_turn(rng))
            turns += 1
        games += 1
    return games, turns, took


def c_games(size: int, seconds: float, seed: int) -> tuple[int, int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["make", "-s", "-C", str(ROOT / "sample_bots" / "c"), f"BUILD={tmp}"], check=True)
        exe = Path(tmp) / "random_games"
        c_dir = ROOT / "sample_bots" / "c"
        subprocess.run(
            ["cc", "-std=c11", "-O2", f"-I{c_dir}", "-o", str(exe),
             str(ROOT / "benchmarks" / "random_games.c"), f"{tmp}/libvastuz.a"],
            check=True,
        )  # fmt: skip
        out = subprocess.run(
            [str(exe), str(size), str(seconds), str(seed)], capture_output=True, text=True, check=True
        )
    games, turns, took = out.stdout.split()
    return int(games), int(turns), float(took)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument(
        "--size", type=int, action="append", help="sizes of the random games (default 5 and 7)"
    )
    args = parser.parse_args()
    found = positions(7, args.positions, 1)
    helper, engine, counts = helper_cost(found)
    us = 1e6
    print(f"legal_turns on size 7, {len(found)} positions from random games (turns per position: "
          f"median {statistics.median(counts):.0f}, max {max(counts)})")  # fmt: skip
    for label, times in (("via the helper process", helper), ("the engine in-process ", engine)):
        mean, median = statistics.mean(times) * us, statistics.median(times) * us
        print(f"  {label}: mean {mean:.0f} us, median {median:.0f} us")
    for size in args.size or [5, 7]:
        cg, ct, cs = c_games(size, args.seconds, 1)
        pg, pt, ps = python_games(size, args.seconds, 1)
        c_rate, p_rate = cg / cs, pg / ps
        print(f"random games on size {size}: libvastuz {c_rate:,.0f} games/s ({ct / cs:,.0f} turns/s), "
              f"Python engine {p_rate:,.0f} games/s ({pt / ps:,.0f} turns/s): "
              f"{c_rate / p_rate:.0f}x")  # fmt: skip


if __name__ == "__main__":
    main()
