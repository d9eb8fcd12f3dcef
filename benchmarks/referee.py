"""Referee overhead: ``python benchmarks/referee.py [--mode c|python] [--games N] ...``.

``--mode c`` (the measure of issue 14): games between two copies of an *instant* C bot
(``benchmarks/replay_bot.c``, compiled here with ``cc`` into a temporary folder) that
replays a scripted legal game (a seeded random size-7 game from the engine, written to a
temporary file). The bots think for no time at all, so everything measured is the
referee and the pipes. Bots are started once and reused (``play_game``), at concurrency 1
and 2, unpinned and pinned to one core (``os.sched_setaffinity``, like ``taskset -c 0``;
the bots inherit it). It reports per turn:

- the referee's own CPU time (``getrusage(RUSAGE_SELF)``: this process only, the bots are
  not in it) and the wall time, and the turns per second;
- ``cpu/rtt``: that CPU per turn over the parent CPU of one bare trio pipe round trip
  measured in the same run just before, to the same C bot (``send_all`` a line,
  ``receive_some`` until the empty line; the median over 5 fresh bot processes, since
  unpinned it depends on which core the scheduler gives the bot); ``wall/rtt`` likewise
  for wall time;
- ``ovh``: what the records say the referee's overhead per request was
  (``referee_overhead_us``), and ``bot``: the bots' time per turn as the records book it.

``--time-left`` makes the bot list ``time_left`` (as every SDK bot does): one more command per
turn. ``--json`` prints one JSON object per configuration instead of the table, for
comparisons; ``--tree PATH`` runs the same measurement against another checkout of the
project (e.g. ``git worktree add /tmp/before <commit>``).

``--mode python`` (the older measure, the default): games between instant Python bots
(random legal turns from the engine) at concurrency 1 and 2, reporting the game wall time
minus the bots' measured time per turn and per request, games per second with bots reused
and with fresh processes per game (``run_game``), and the ratio to a bare round trip to a
Python echo process.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path


def _use_tree() -> None:
    """Import the project from ``--tree PATH`` when given (before anything imports it): put
    the tree first on ``sys.path`` and drop an editable install's import hook."""
    if "--tree" in sys.argv:
        tree = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
        sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in type(f).__module__]
        sys.path.insert(0, str(tree))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


_use_tree()

import trio  # noqa: E402

from referee.engine import Position  # noqa: E402
from referee.play.command import BotCommand  # noqa: E402
from referee.play.game import play_game, run_game  # noqa: E402
from referee.play.process import BotProcess  # noqa: E402
from referee.play.records import GameRecord, Termination  # noqa: E402
from referee.play.spec import GameSpec, OpeningKind, TimeControl  # noqa: E402

REPLAY_BOT = Path(__file__).resolve().parent / "replay_bot.c"


# ------------------------------------------------------------------ --mode c


def cpu() -> float:
    """CPU seconds of this process (user + system), the bots not included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def scripted_game(size: int, seed: int) -> list[str]:
    """A legal game for the replay bot: random turns from the engine, to the end."""
    rng = random.Random(seed)
    pos = Position.new(size)
    turns = []
    while not pos.is_over:
        turn = pos.random_turn(rng)
        pos = pos.play(turn)
        turns.append(turn)
    return turns


def warm_bytecode(tree: Path) -> None:
    """Compile ``tree``'s modules now: a run that finds no bytecode cache (a fresh checkout,
    an edited module, ``PYTHONDONTWRITEBYTECODE`` set) compiles every module it imports, a
    few tenths of a second of CPU a run that no user's second run pays."""
    for package in ("referee", "protocol", "sample_bots"):
        compileall.compile_dir(str(tree / package), quiet=2)


def build_replay_bot(folder: Path) -> Path:
    """Compile ``replay_bot.c`` into ``folder``."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("--mode c needs a C compiler (cc)")
    binary = folder / "replay_bot"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(REPLAY_BOT)], check=True)
    return binary


async def c_round_trip(argv: list[str], n: int, blocks: int = 5) -> tuple[float, float]:
    """(wall us, parent CPU us) of one bare request/response with trio to the C bot: the
    medians over ``blocks`` fresh bot processes of ``n // blocks`` round trips each.

    Unpinned, the cost depends on where the scheduler puts the bot (on the referee's core a
    round trip costs about a third of one across cores, and a process tends to stay put),
    so one process gives a bimodal figure; the median over several is the usual case."""
    walls, cpus = [], []
    per_block = max(1, n // blocks)
    for _ in range(blocks):
        process = await trio.lowlevel.open_process(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert process.stdin is not None and process.stdout is not None
        try:
            for count in (per_block // 10 + 1, per_block):  # a warm-up, then the measure
                wall, used = time.perf_counter(), cpu()
                for i in range(count):
                    await process.stdin.send_all(b"%d name\n" % i)
                    data = b""
                    while not data.endswith(b"\n\n"):
                        data += await process.stdout.receive_some(4096)
                wall, used = time.perf_counter() - wall, cpu() - used
            walls.append(wall / per_block * 1e6)
            cpus.append(used / per_block * 1e6)
        finally:
            await process.stdin.aclose()
            await process.wait()
    return statistics.median(walls), statistics.median(cpus)


async def c_games(
    argv: list[str], games: int, concurrency: int, ready: Callable[[], Awaitable[None]] | None = None
) -> tuple[float, float, list[GameRecord]]:
    """(wall s, referee CPU s, records) of ``games`` games over ``concurrency`` pairs of
    replay bots started (and handshaken) before the clocks start (after ``ready``)."""
    spec = GameSpec(size=7, opening=OpeningKind.EMPTY, time_control=TimeControl.fixed(10))
    records: list[GameRecord] = []
    counts = [games // concurrency + (1 if i < games % concurrency else 0) for i in range(concurrency)]

    async def pair(a: BotProcess, b: BotProcess, count: int) -> None:
        for g in range(count):
            first, second = (a, b) if g % 2 == 0 else (b, a)
            records.append(await play_game(first, second, spec))

    async with trio.open_nursery() as nursery:
        bots = [BotProcess.of(BotCommand(tuple(argv), f"replay{i}")) for i in range(2 * concurrency)]
        try:
            for bot in bots:
                await bot.start(nursery)
            if ready is not None:
                await ready()
            wall, used = time.perf_counter(), cpu()
            async with trio.open_nursery() as games_nursery:
                for i, count in enumerate(counts):
                    games_nursery.start_soon(pair, bots[2 * i], bots[2 * i + 1], count)
            wall, used = time.perf_counter() - wall, cpu() - used
        finally:
            for bot in bots:
                await bot.aclose()
    bad = [r for r in records if r.termination is not Termination.SCORE]
    if bad:
        raise SystemExit(f"a benchmark game did not end normally: {bad[0].reason}")
    return wall, used, records


async def c_worker(args: argparse.Namespace) -> None:
    """One of the referee processes of the ``2 procs`` row: start the bots, say ``ready``,
    wait for ``go`` on stdin, play, print the figures as JSON."""
    stdin = trio.lowlevel.FdStream(os.dup(0))

    async def ready() -> None:
        print("ready", flush=True)
        await stdin.receive_some(16)

    wall, used, records = await c_games(json.loads(args.worker), args.games, 1, ready)
    await stdin.aclose()
    print(json.dumps({"wall": wall, "cpu": used, **totals(records)}), flush=True)


def totals(records: list[GameRecord]) -> dict[str, float]:
    """Turns, requests, and the records' overhead (µs x requests) and bot seconds."""
    return {
        "turns": sum(len(r.turns) for r in records),
        "requests": sum(b.stats.requests for r in records for b in r.bots),
        "ovh": sum((r.referee_overhead_us or 0.0) * sum(b.stats.requests for b in r.bots) for r in records),
        "bot": sum(b.stats.bot_seconds for r in records for b in r.bots),
    }


async def c_processes(
    args: argparse.Namespace, argv: list[str], games: int
) -> tuple[float, float, dict[str, float]]:
    """``games`` games split over two referee processes at concurrency 1 each, started
    together once both have their bots ready: (wall s of the slower, CPU s of both, totals)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--mode", "c", "--worker", json.dumps(argv)]
    if args.tree is not None:
        command += ["--tree", str(args.tree)]
    workers = []
    for share in (games // 2, games - games // 2):
        workers.append(
            await trio.lowlevel.open_process(
                [*command, "--games", str(share)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
        )
    outputs = [b"" for _ in workers]

    async def read_line(i: int) -> None:
        stream = workers[i].stdout
        assert stream is not None
        while not outputs[i].endswith(b"\n"):
            chunk = await stream.receive_some(4096)
            if not chunk:
                raise SystemExit("a benchmark worker ended early")
            outputs[i] += chunk

    try:
        async with trio.open_nursery() as nursery:
            for i in range(2):
                nursery.start_soon(read_line, i)
        for worker in workers:
            assert worker.stdin is not None
            await worker.stdin.send_all(b"go\n")
        outputs = [b"" for _ in workers]
        async with trio.open_nursery() as nursery:
            for i in range(2):
                nursery.start_soon(read_line, i)
    finally:
        for worker in workers:
            await worker.wait()
    results = [json.loads(out) for out in outputs]
    merged = {key: sum(r[key] for r in results) for key in ("turns", "requests", "ovh", "bot")}
    return max(r["wall"] for r in results), sum(r["cpu"] for r in results), merged


async def c_mode(args: argparse.Namespace) -> None:
    if args.worker is not None:
        await c_worker(args)
        return
    turns = scripted_game(7, args.seed)
    with tempfile.TemporaryDirectory(prefix="vastuz-bench-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        script.write_text("".join(t + "\n" for t in turns))
        argv = [str(binary), str(script), *(["--time-left"] if args.time_left else [])]
        columns = ("run", "rtt us", "rtt cpu", "turn cpu", "turn wall", "turns/s")
        columns += ("cpu/rtt", "wall/rtt", "ovh us", "bot us")
        widths = (20, 8, 9, 10, 11, 9, 9, 10, 8, 8)
        if not args.json and not args.pinned:
            print(
                f"instant C replay bot, size 7, a {len(turns)}-turn game, {args.games} games per run"
                f"{', bots list time_left' if args.time_left else ''}; referee {Path(sys.path[0])}\n"
            )
            header = "".join(
                f"{c:>{w}}" if i else f"{c:<{w}}"
                for i, (c, w) in enumerate(zip(columns, widths, strict=True))
            )
            print(header)
            print("-" * len(header))
        # Pinned runs happen in a copy of this program pinned from its start: trio starts
        # processes from worker threads, which a later sched_setaffinity would not reach.
        for pinned in (True,) if args.pinned else (False,):
            for concurrency in (1, 2, "2p"):
                # The round trip just before the games it is compared with: the machine
                # may be busier or quieter a minute later.
                rtt_wall, rtt_cpu = await c_round_trip(argv, args.rtt)
                if concurrency == "2p":
                    wall, used, sums = await c_processes(args, argv, args.games)
                else:
                    wall, used, records = await c_games(argv, args.games, int(concurrency))
                    sums = totals(records)
                n, requests, ovh, bot = sums["turns"], sums["requests"], sums["ovh"], sums["bot"]
                row = {
                    "pinned": pinned,
                    "concurrency": concurrency,
                    "time_left": args.time_left,
                    "rtt_us": rtt_wall,
                    "rtt_cpu_us": rtt_cpu,
                    "turn_cpu_us": used / n * 1e6,
                    "turn_wall_us": wall / n * 1e6,
                    "turns_per_s": n / wall,
                    "cpu_per_rtt": used / n * 1e6 / rtt_cpu,
                    "wall_per_rtt": wall / n * 1e6 / rtt_wall,
                    "record_overhead_us": ovh / requests,
                    "record_bot_us_per_turn": bot / n * 1e6,
                    "requests_per_turn": requests / n,
                }
                if args.json:
                    print(json.dumps(row), flush=True)
                    continue
                where = "pinned" if pinned else "unpinned"
                label = f"{where}, 2 procs" if concurrency == "2p" else f"{where}, c{concurrency}"
                values = (
                    f"{rtt_wall:.1f}", f"{rtt_cpu:.1f}", f"{row['turn_cpu_us']:.1f}",
                    f"{row['turn_wall_us']:.1f}", f"{row['turns_per_s']:.0f}",
                    f"{row['cpu_per_rtt']:.2f}",
                    f"{row['wall_per_rtt']:.2f}", f"{row['record_overhead_us']:.1f}",
                    f"{row['record_bot_us_per_turn']:.1f}",
                )  # fmt: skip
                print(
                    f"{label:<20}" + "".join(f"{v:>{w}}" for v, w in zip(values, widths[1:], strict=True)),
                    flush=True,
                )
    if args.pinned:
        return
    if hasattr(os, "sched_setaffinity"):
        await trio.run_process([sys.executable, str(Path(__file__).resolve()), *sys.argv[1:], "--pinned"])
    if not args.json:
        print(
            "\nrtt us / rtt cpu: wall and referee CPU of one bare trio round trip to the same bot;"
            "\nturn cpu / turn wall: the referee's CPU and the wall time per turn (all games of the run);"
            "\nturns/s at c2 over c1 is the gain of a second concurrent game in one referee;"
            "\n2 procs: two referee processes at concurrency 1 each, started together (CPU summed);"
            "\novh us: the records' referee_overhead_us (per request); bot us: the bots' time per turn."
        )


# ------------------------------------------------------------------ --mode python

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
        bots = [BotProcess.of(bot_command(i + 1, f"bot{i}")) for i in range(2 * concurrency)]
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


async def python_mode(args: argparse.Namespace) -> None:
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
    parser.add_argument("--mode", choices=("python", "c"), default="python")
    parser.add_argument("--games", type=int, default=None, help="games per run (default 20, --mode c 100)")
    parser.add_argument("--size", type=int, default=5, help="board size (--mode python; --mode c plays 7)")
    parser.add_argument("--rtt", type=int, default=2000, help="round trips for the bare pipe measurement")
    parser.add_argument("--seed", type=int, default=1, help="the scripted game (--mode c)")
    parser.add_argument("--time-left", action="store_true", help="the C bot lists time_left")
    parser.add_argument("--json", action="store_true", help="--mode c: one JSON object per configuration")
    parser.add_argument("--tree", type=Path, default=None, help="the project checkout to measure")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)  # a process of '2 procs'
    parser.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)  # the pinned half
    args = parser.parse_args()
    if args.pinned:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # before any thread or process
    if args.games is None:
        args.games = 100 if args.mode == "c" else 20
    trio.run(c_mode if args.mode == "c" else python_mode, args)


if __name__ == "__main__":
    main()
