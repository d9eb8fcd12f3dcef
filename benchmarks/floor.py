"""The floor under the game loop: ``python benchmarks/floor.py [--games N] [--pinned]``.

The same games as ``benchmarks/referee.py --mode c`` (two instant C replay bots, a seeded
110-turn size-7 game, bots started once), played by the least a referee must do: per turn
one write of the opponent's ``play`` and the ``genmove``, trio's ``wait_readable`` until both
answers are in, the answers' one-line parse and the engine's ``play`` of the turn. No
records, clocks, deadlines, fault checks, logs or stats: none of what makes a referee. It
prints the referee CPU and wall time per turn beside the real loop's (``play_game``) in the
same process, so the difference is what the game loop's bookkeeping costs a turn.
``--concurrency N`` plays N games at a time in the one trio loop, both ways.
``--pinned`` runs both on one core (``sched_setaffinity``, inherited by the bots), where the
figures spread least.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import trio

from benchmarks.referee import build_replay_bot, c_games, scripted_game
from protocol.messages import one_line_response
from referee.engine import Position


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def bare_games(argv: list[str], games: int) -> tuple[float, float, int]:
    """(CPU s, wall s, turns) of ``games`` games played with nothing but the protocol."""
    procs = [
        await trio.lowlevel.open_process(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in (0, 1)
    ]
    try:
        fds = []
        for proc in procs:
            assert isinstance(proc.stdin, trio.lowlevel.FdStream)
            assert isinstance(proc.stdout, trio.lowlevel.FdStream)
            fds.append((proc.stdin.fileno(), proc.stdout.fileno()))
        ids = [0, 0]

        async def ask(seat: int, lines: list[bytes]) -> bytes:
            out = b""
            for line in lines:
                ids[seat] += 1
                out += b"%d %s\n" % (ids[seat], line)
            write, read = fds[seat]
            os.write(write, out)
            data = b""
            while data.count(b"\n\n") < len(lines):
                await trio.lowlevel.wait_readable(read)
                data += os.read(read, 1 << 16)
            return data

        turns = 0
        began, used = time.perf_counter(), cpu()
        for game in range(games):
            first = game % 2
            for seat in (0, 1):
                await ask(seat, [b"boardsize 7", b"clear_board"])
            pos = Position.new(7)
            seat, last = first, None
            while not pos.is_over:
                color = b"b" if seat == first else b"w"
                lines = [] if last is None else [b"play " + last]
                data = await ask(seat, [*lines, b"genmove " + color])
                response = one_line_response(data.decode().split("\n")[-3], ids[seat])
                assert response is not None and response.ok
                turn = response.text.lower()
                pos = pos.play(turn)
                last = color + b" " + turn.encode()
                seat = 1 - seat
                turns += 1
        return cpu() - used, time.perf_counter() - began, turns
    finally:
        for proc in procs:
            proc.kill()
            await proc.wait()


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="vastuz-floor-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        script.write_text("".join(t + "\n" for t in scripted_game(7, 1)))
        argv = [str(binary), str(script)]
        floor: list[float] = []
        loop: list[float] = []
        n = args.concurrency
        for _ in range(args.reps):  # interleaved: the machine's speed drifts
            counts: list[int] = []

            async def one(games: int, counts: list[int] = counts) -> None:
                counts.append((await bare_games(argv, games))[2])

            began = cpu()
            async with trio.open_nursery() as nursery:
                for k in range(n):
                    nursery.start_soon(one, args.games // n + (k < args.games % n))
            floor.append((cpu() - began) / sum(counts) * 1e6)
            _, used, records = await c_games(argv, args.games, n)
            loop.append(used / sum(len(r.turns) for r in records) * 1e6)
        where = "pinned to one core" if args.pinned else "unpinned"
        where += f", {n} game{'s' if n > 1 else ''} at a time"
        print(f"referee CPU per turn, {args.games} games a run, {args.reps} interleaved runs, {where}:")
        for label, values in (("the floor (protocol, trio, engine only)", floor), ("the game loop", loop)):
            print(f"  {label:<40} {statistics.median(values):.1f} us ({min(values):.1f}-{max(values):.1f})")
        ratios = [lo / fl for lo, fl in zip(loop, floor, strict=True)]
        print(f"  loop / floor: {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--pinned", action="store_true", help="run on one core (the bots too)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at a time, in one trio loop")
    arguments = parser.parse_args()
    if arguments.pinned and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    trio.run(main, arguments)
