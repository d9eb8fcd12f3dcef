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

``--bare`` adds a third row, *Python's floor*: the same least work (the write, the answers'
parse, the engine's ``play``) with no trio at all, N games in one plain ``epoll`` loop that
sleeps in the kernel until a bot answers. No Python referee can cost less a turn, whatever
it leaves out: what is above it is the price of trio and of the game loop's bookkeeping.
``--bare-only`` prints that row's figure alone, in microseconds (for
``benchmarks/tournament.py``, which runs it beside fastchess).
"""

from __future__ import annotations

import argparse
import os
import resource
import select
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


async def trio_games(argv: list[str], games: int) -> tuple[float, float, int]:
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


class _BareGame:
    """One game of :func:`bare_games`: its two bots, their command numbers, the position."""

    __slots__ = ("answers", "data", "first", "ids", "last", "left", "pos", "seat", "stage", "stdins")

    def __init__(self, stdins: list[int], games: int) -> None:
        self.stdins = stdins
        self.ids = [0, 0]
        self.left = games  # games still to start
        self.first = self.seat = self.stage = self.answers = 0
        self.pos = Position.new(7)
        self.last: bytes | None = None
        self.data = b""


def bare_games(argv: list[str], games: int, concurrency: int) -> tuple[float, int]:
    """(CPU s, turns) of ``games`` games, ``concurrency`` at a time, played by the least a
    Python program can do, without trio: one ``epoll`` of every bot's stdout, and per turn
    one write, the reads, the last answer's parse and the engine's ``play``."""
    procs = [
        subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        for _ in range(2 * concurrency)
    ]
    poller = select.epoll()
    try:
        seats: dict[int, tuple[_BareGame, int]] = {}
        slots = []
        for k in range(concurrency):
            pair = procs[2 * k : 2 * k + 2]
            stdins = []
            for proc in pair:
                assert proc.stdin is not None
                stdins.append(proc.stdin.fileno())
            game = _BareGame(stdins, games // concurrency + (k < games % concurrency))
            for seat, proc in enumerate(pair):
                assert proc.stdout is not None
                fd = proc.stdout.fileno()
                os.set_blocking(fd, False)
                poller.register(fd, select.EPOLLIN)
                seats[fd] = (game, seat)
            slots.append(game)

        def ask(game: _BareGame, seat: int, lines: list[bytes]) -> None:
            out = b""
            for line in lines:
                game.ids[seat] += 1
                out += b"%d %s\n" % (game.ids[seat], line)
            game.seat, game.answers, game.data = seat, len(lines), b""
            os.write(game.stdins[seat], out)

        def begin(game: _BareGame) -> None:  # stage 0, then 1: each bot told the board
            game.left -= 1
            game.first = game.left % 2
            game.stage = 0
            ask(game, 0, [b"boardsize 7", b"clear_board"])

        def decide(game: _BareGame) -> None:
            color = b"b" if game.seat == game.first else b"w"
            told = [] if game.last is None else [b"play " + game.last]
            ask(game, game.seat, [*told, b"genmove " + color])

        turns = 0
        playing = 0
        began = cpu()
        for game in slots:
            if game.left:
                playing += 1
                begin(game)
        while playing:
            for fd, _ in poller.poll():
                game, seat = seats[fd]
                if seat != game.seat:
                    raise RuntimeError("an answer from a bot nobody asked")
                game.data += os.read(fd, 1 << 16)
                if game.data.count(b"\n\n") < game.answers:
                    continue
                if game.stage == 0:
                    game.stage = 1
                    ask(game, 1, [b"boardsize 7", b"clear_board"])
                    continue
                if game.stage == 1:
                    game.stage, game.pos, game.seat, game.last = 2, Position.new(7), game.first, None
                    decide(game)
                    continue
                response = one_line_response(game.data.decode().split("\n")[-3], game.ids[seat])
                if response is None or not response.ok:
                    raise RuntimeError(f"an unexpected answer: {game.data!r}")
                turn = response.text.lower()
                color = b"b" if seat == game.first else b"w"
                game.pos = game.pos.play(turn)
                game.last = color + b" " + turn.encode()
                game.seat = 1 - seat
                turns += 1
                if not game.pos.is_over:
                    decide(game)
                elif game.left:
                    begin(game)
                else:
                    playing -= 1
        return cpu() - began, turns
    finally:
        poller.close()
        for proc in procs:
            proc.kill()
            proc.wait()


def bare_floor_us(games: int, concurrency: int, seed: int = 1) -> float:
    """Python's floor (:func:`bare_games`) in CPU microseconds a turn, on freshly built bots."""
    with tempfile.TemporaryDirectory(prefix="vastuz-floor-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        script.write_text("".join(t + "\n" for t in scripted_game(7, seed)))
        used, turns = bare_games([str(binary), str(script)], games, concurrency)
        return used / turns * 1e6


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="vastuz-floor-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        script.write_text("".join(t + "\n" for t in scripted_game(7, 1)))
        argv = [str(binary), str(script)]
        floor: list[float] = []
        loop: list[float] = []
        bare: list[float] = []
        n = args.concurrency
        for _ in range(args.reps):  # interleaved: the machine's speed drifts
            if args.bare:
                used, turns = bare_games(argv, args.games, n)
                bare.append(used / turns * 1e6)
            counts: list[int] = []

            async def one(games: int, counts: list[int] = counts) -> None:
                counts.append((await trio_games(argv, games))[2])

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
        rows = [("Python's floor (no trio)", bare)] if bare else []
        rows += [("the floor (protocol, trio, engine only)", floor), ("the game loop", loop)]
        for label, values in rows:
            print(f"  {label:<40} {statistics.median(values):.1f} us ({min(values):.1f}-{max(values):.1f})")
        pairs = [("loop / floor", loop, floor)]
        if bare:
            pairs += [("floor / Python's floor", floor, bare), ("loop / Python's floor", loop, bare)]
        for label, top, bottom in pairs:
            ratios = [t / b for t, b in zip(top, bottom, strict=True)]
            print(f"  {label}: {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--pinned", action="store_true", help="run on one core (the bots too)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at a time, in one trio loop")
    parser.add_argument("--bare", action="store_true", help="add Python's floor: no trio at all")
    parser.add_argument("--bare-only", action="store_true", help="print Python's floor alone (us a turn)")
    arguments = parser.parse_args()
    if arguments.games < 1 or arguments.reps < 1 or arguments.concurrency < 1:
        parser.error("--games, --reps and --concurrency must be at least 1")
    if arguments.pinned and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if arguments.bare_only:
        print(f"{bare_floor_us(arguments.games, arguments.concurrency):.2f}")
    else:
        trio.run(main, arguments)
