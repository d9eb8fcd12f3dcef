"""Referee overhead: ``python benchmarks/referee.py [--games N] [--size S] [--rtt N]``.

Games between *instant* bots (random legal turns from the engine: microseconds of work)
at concurrency 1 and 2, reporting:

- per-turn referee overhead in microseconds: the game's wall time minus the bots' own time
  as the referee measures it (write of the command to the end of the response), divided by
  the turns played; also per request, and the part spent inside ``BotProcess.request``;
- games per second, with the bots started once and reused (``play_game``), and with fresh
  processes per game as ``vastuz match`` runs them (``run_game``, process start included).

In the same run it measures a bare request/response round trip over a pipe with trio (one
line out, ``=`` and an empty line back, to a minimal Python echo process) and reports the
ratio of the referee's per-turn and per-request overhead to it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.play.game import play_game, run_game
from referee.play.process import BotCommand, BotProcess
from referee.play.records import GameRecord, Termination
from referee.play.spec import GameSpec, OpeningKind, TimeControl

# The instant bot: the protocol by hand, a random legal turn per genmove.
INSTANT_BOT = r"""
import random, sys
from referee.engine import Position
rng = random.Random(int(sys.argv[1]))
pos = Position.new(7)
out = sys.stdout
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    cid, name, args = parts[0], parts[1], parts[2:]
    text = ""
    if name == "protocol_version": text = "2"
    elif name in ("name", "version"): text = "instant"
    elif name == "list_commands": text = "boardsize\nclear_board\nplay\ngenmove\nquit"
    elif name == "boardsize": pos = Position.new(int(args[0]))
    elif name == "clear_board": pos = Position.new(pos.size)
    elif name == "play": pos = pos.play(args[1])
    elif name == "genmove":
        text = pos.random_turn(rng)
        pos = pos.play(text)
    out.write(f"={cid} {text}\n\n" if text else f"={cid}\n\n")
    out.flush()
    if name == "quit":
        break
"""

ECHO = r"""
import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(b"=\n\n")
    out.flush()
"""


def bot_command(seed: int, label: str) -> BotCommand:
    return BotCommand((sys.executable, "-c", INSTANT_BOT, str(seed)), label)


def overhead(records: list[GameRecord]) -> tuple[float, float, float, int]:
    """(per-turn µs, per-request µs, in-request µs, turns) over ``records``."""
    turns = sum(len(r.turns) for r in records)
    requests = sum(b.stats.requests for r in records for b in r.bots)
    # Game wall time minus bot time; referee_overhead_us is that per request of the game.
    total = sum((r.referee_overhead_us or 0.0) * sum(b.stats.requests for b in r.bots) for r in records) / 1e6
    inside = sum(b.stats.overhead_us * b.stats.requests for r in records for b in r.bots) / max(requests, 1)
    return total / turns * 1e6, total / requests * 1e6, inside, turns


async def reused(games: int, size: int, concurrency: int) -> tuple[float, list[GameRecord]]:
    """``games`` games split over ``concurrency`` pairs of long-lived bots, started (and
    handshaken) before the clock starts."""
    spec = GameSpec(size=size, opening=OpeningKind.EMPTY, time_control=TimeControl.fixed(10))
    records: list[GameRecord] = []
    counts = [games // concurrency + (1 if i < games % concurrency else 0) for i in range(concurrency)]

    async def pair(a: BotProcess, b: BotProcess, count: int) -> None:
        for g in range(count):
            first, second = (a, b) if g % 2 == 0 else (b, a)
            records.append(await play_game(first, second, spec))

    async with trio.open_nursery() as nursery:
        bots = [bot_command(i + 1, f"bot{i}").process() for i in range(2 * concurrency)]
        try:
            for bot in bots:
                await bot.start(nursery)
            start = time.perf_counter()
            async with trio.open_nursery() as games_nursery:
                for i, count in enumerate(counts):
                    games_nursery.start_soon(pair, bots[2 * i], bots[2 * i + 1], count)
            elapsed = time.perf_counter() - start
        finally:
            for bot in bots:
                await bot.aclose()
    return elapsed, records


async def fresh(games: int, size: int, concurrency: int) -> tuple[float, list[GameRecord]]:
    """``games`` games, each with two newly started bot processes."""
    spec = GameSpec(size=size, opening=OpeningKind.EMPTY, time_control=TimeControl.fixed(10))
    records: list[GameRecord] = []
    queue = iter(range(games))

    async def worker() -> None:
        for g in queue:
            records.append(await run_game(bot_command(g, "a"), bot_command(g + 1000, "b"), spec))

    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for _ in range(concurrency):
            nursery.start_soon(worker)
    return time.perf_counter() - start, records


async def bare_round_trip(n: int) -> float:
    """Mean µs of one request/response over a pipe: write a line, read until ``\\n\\n``."""
    process = await trio.lowlevel.open_process(
        [sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for warm in (True, False):
            start = time.perf_counter()
            for i in range(n if not warm else n // 10 + 1):
                await process.stdin.send_all(b"%d genmove b\n" % i)
                data = b""
                while not data.endswith(b"\n\n"):
                    data += await process.stdout.receive_some(4096)
            elapsed = time.perf_counter() - start
        return elapsed / n * 1e6
    finally:
        await process.stdin.aclose()
        await process.wait()


async def main_async(args: argparse.Namespace) -> None:
    rtt = await bare_round_trip(args.rtt)
    print(f"bare pipe round trip (trio, Python echo process): {rtt:8.1f} us")
    print(f"board size {args.size}, {args.games} games per run, instant bots (random legal turns)\n")
    columns = (("run", "<28"), ("games/s", ">9"), ("turn us", ">10"), ("req us", ">9"), ("in-req us", ">11"))
    columns += (("turn/rtt", ">10"), ("req/rtt", ">9"))
    header = "".join(f"{name:{fmt}}" for name, fmt in columns)
    print(header)
    print("-" * len(header))
    for label, runner in (("reused bots", reused), ("fresh processes", fresh)):
        for concurrency in (1, 2):
            elapsed, records = await runner(args.games, args.size, concurrency)
            bad = [r for r in records if r.termination is not Termination.SCORE]
            if bad:
                raise SystemExit(f"a benchmark game did not end normally: {bad[0].reason}")
            per_turn, per_request, inside, _turns = overhead(records)
            print(
                f"{label + f', concurrency {concurrency}':<28}{args.games / elapsed:9.1f}{per_turn:10.1f}"
                f"{per_request:9.1f}{inside:11.1f}{per_turn / rtt:10.2f}{per_request / rtt:9.2f}"
            )
    print(
        "\nturn us / req us: game wall time minus the bots' measured time, per turn / per request;"
        "\nin-req us: the referee's own time inside BotProcess.request (outside the bot's window)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--rtt", type=int, default=2000, help="round trips for the bare pipe measurement")
    args = parser.parse_args()
    trio.run(main_async, args)


if __name__ == "__main__":
    main()
