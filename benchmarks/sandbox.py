"""The sandbox's cost per game start: ``python -m benchmarks.sandbox [--starts N]``.

A bot start as a game sees it (spawn, the handshake of ``protocol_version``, ``name``,
``version``, ``list_commands``, then the close), timed for the instant fake bot
(``tests/fake_bots/fakebot.py``) without and with ``sandbox: true`` (bubblewrap), the two
interleaved start by start so that a machine's drift hits both alike. Prints the median and
the quartiles of each, and the median difference: the cost of the sandbox per start. Needs
``bwrap``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import trio

from referee.play.process import BotProcess
from referee.play.sandbox import Sandbox, missing

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, str(ROOT / "tests" / "fake_bots" / "fakebot.py")]


async def one_start(sandbox: Sandbox | None) -> float:
    began = time.perf_counter()
    async with BotProcess(COMMAND, label="bench", cwd=ROOT, sandbox=sandbox):
        pass
    return time.perf_counter() - began


async def measure(starts: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"plain": [], "sandbox": []}
    await one_start(None)  # warm the caches once
    for _ in range(starts):
        times["plain"].append(await one_start(None))
        times["sandbox"].append(await one_start(Sandbox()))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--starts", type=int, default=40)
    args = parser.parse_args()
    problem = missing()
    if problem is not None:
        sys.exit(problem)
    times = trio.run(measure, args.starts)
    for name, values in times.items():
        q1, median, q3 = statistics.quantiles(values, n=4)
        print(f"{name:8} median {median * 1e3:6.1f} ms  quartiles {q1 * 1e3:6.1f} - {q3 * 1e3:6.1f} ms")
    cost = [b - a for a, b in zip(times["plain"], times["sandbox"], strict=True)]
    print(f"sandbox cost per start: median {statistics.median(cost) * 1e3:.1f} ms ({args.starts} pairs)")


if __name__ == "__main__":
    main()
