"""The shipped path: ``python benchmarks/tournament.py [--games N ...] [--long] [--reps R]
[--concurrency C ...] [--think-us N] [--fastchess PATH]``.

Runs real ``vastuz tournament`` processes (``python -m referee.cli tournament``, the default
output written to a file, as a user logging a run would) of two instant C bots
(``benchmarks/replay_bot.c``, compiled here: each replays one scripted legal size-7 game, the
same one ``benchmarks/referee.py --mode c`` plays) at 2,000 and 20,000 games (and 200,000 with
``--long``; ``--games N`` to choose), and beside each the same games in the benchmark loop of
``benchmarks/referee.py --mode c`` (``play_game`` on bots started once, no tournament around
it) and the same tournament with ``--standings-every 0``. Runs are interleaved, ``--reps``
times. With ``--think-us N`` the bots sleep N µs before each genmove's answer (their
``play`` answered at once): what waiting for bots that think costs the referee. For each it
prints:

- ``ms/game`` in the first and the last tenth of the run (from the records' ``ended_at``),
  and below the table the machine's steal time in each (``/proc/stat``: the CPU a
  hypervisor gave to other guests; on a shared VM it comes in spells that slow the wall);
- ``cpu ms/game`` likewise: the referee process's CPU per game in the first and the last
  tenth (from the samples below; the last tenth stops before the last game, so the final
  standings are not in it), which a busy machine moves less than the wall;
- ``ref us/turn``: the CPU of the referee process (``/proc/PID/stat`` read once it has
  exited, before it is reaped: its own threads, not the bots) per turn, over the whole run
  (start-up and the final standings included), and ``play``: the same between its first and
  last recorded game (sampled every 0.1 s), the figure comparable with the loop's;
- ``standings us/turn``: the CPU of the run's standings process (a child of the referee that
  rates the games and writes the page off the game path; sampled every 0.1 s, so at most
  0.1 s short of its whole);
- ``run us/turn``: the whole run's CPU (``wait4``: the referee and the bots it reaped);
- peak RSS of the referee (``ru_maxrss``), and the wall time;
- the standings' share of the wall: 1 - (wall with ``--standings-every 0``) / (wall by default),
  paired run by run; and the referee's CPU per turn over the loop's (paired, the goal 1.2x).

With ``--fastchess PATH`` (a fastchess binary of your own; it is never vendored) it also
runs fastchess with two copies of an instant UCI engine (``benchmarks/uci_replay.c``: one
fixed legal 111-ply game ending in mate) against ``vastuz tournament`` at concurrency 1, 2
and 4 (``--fastchess-concurrency``) for ``--fastchess-games`` games each, interleaved, and
prints the paired ratios Vastuz / fastchess of own CPU per move (each program's process
alone; Vastuz's also while playing, its start-up and final standings left out, and with its
standings process added, since fastchess rates the games in its own process) and of wall
per move. Beside them it runs Python's floor (``benchmarks/floor.py --bare-only``: the same
games at the same concurrency played by the least a Python program can do, one ``epoll`` and
no trio, no records, no clocks) and prints its ratio to fastchess: where that ratio is above
1, no Python referee can match fastchess's CPU per move on that machine.

Measure on a quiet machine where you can: the figures are ratios of runs made side by side
because a busy one moves every absolute figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# benchmarks.referee puts the project of ``--tree PATH`` (default: this one) first on sys.path.
from benchmarks.referee import build_replay_bot, scripted_game, warm_bytecode

HERE = Path(__file__).resolve().parent
TREE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv else HERE.parent
UCI_REPLAY = HERE / "uci_replay.c"
UCI_PLIES = 111  # the length of uci_replay.c's game
_TICK = os.sysconf("SC_CLK_TCK")
_ENDED = re.compile(rb'"ended_at":"([^"]+)"')


@dataclass
class Run:
    """One process watched to its end: wall seconds, its own CPU seconds (read from its
    zombie, so its children are not in it), the whole run's CPU seconds (``wait4``: itself
    and the children it reaped), peak RSS in MB, and the samples (seconds since the start,
    its CPU, lines in the file watched)."""

    wall: float
    own_cpu: float
    run_cpu: float
    rss_mb: float
    returncode: int
    samples: list[tuple[float, float, int]] = field(default_factory=list)
    helper_cpu: float = 0.0
    memory: list[tuple[int, float, float]] = field(default_factory=list)
    """(lines in the file watched, its RSS in MB, its standings process's), every second."""
    ticks: list[tuple[int, int, int]] = field(default_factory=list)
    """(lines in the file watched, the machine's steal ticks, all its ticks), every 0.1 s."""


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads, none of its children)."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _machine_ticks() -> tuple[int, int]:
    """(steal, all) clock ticks of the whole machine so far (``/proc/stat``'s first line).
    Steal is the time a hypervisor gave this VM's CPUs to other guests: on a shared VM it
    comes in spells that slow every process here, so a tenth of a run that had more of it
    is slower for that reason alone. (0, 0) where there is no such file."""
    try:
        with open("/proc/stat", "rb") as stat:
            words = stat.readline().split()[1:9]  # user nice system idle iowait irq softirq steal
    except OSError:
        return 0, 0
    values = [int(word) for word in words]
    return (values[7] if len(values) > 7 else 0), sum(values)


def steal_share(ticks: list[tuple[int, int, int]], lo: int, hi: int) -> float:
    """The machine's steal time, in percent of all its CPU time, between the first and the
    last sample that saw from ``lo`` to ``hi`` games recorded (nan without two)."""
    inside = [t for t in ticks if lo <= t[0] <= hi]
    if len(inside) < 2 or inside[-1][2] == inside[0][2]:
        return float("nan")
    return (inside[-1][1] - inside[0][1]) / (inside[-1][2] - inside[0][2]) * 100


_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def _rss_of(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (``/proc/PID/statm``)."""
    with open(f"/proc/{pid}/statm", "rb") as statm:
        return int(statm.read().split()[1]) * _PAGE_MB


def _helpers(pid: int, known: dict[int, bool]) -> list[int]:
    """The children of ``pid`` that are a run's standings process (``known`` caches which
    children are: a bot is told apart once, by its command line). A child is listed under
    the thread that started it (trio starts processes from worker threads)."""
    children: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                children += [int(word) for word in f.read().split()]
    except OSError:
        return []
    for child in children:
        if child not in known:
            try:
                with open(f"/proc/{child}/cmdline", "rb") as f:
                    known[child] = b"standings_process" in f.read()
            except OSError:
                known[child] = False
    return [child for child in children if known[child]]


def watch(argv: list[str], output: Path, counted: Path | None = None, cwd: Path | None = None) -> Run:
    """Run ``argv`` with its stdout and stderr to ``output``; every 0.1 s note its CPU and
    the lines in ``counted`` (a file it appends to), and the CPU of its standings process
    (``helper_cpu``: the last look before that process ended, so at most 0.1 s short)."""
    samples: list[tuple[float, float, int]] = []
    memory: list[tuple[int, float, float]] = []
    ticks: list[tuple[int, int, int]] = []
    known: dict[int, bool] = {}
    helper_seen: dict[int, float] = {}
    lines = 0
    offset = 0
    with open(output, "wb") as out:
        began = time.perf_counter()
        env = {**os.environ, "PYTHONPATH": str(TREE)}  # the project measured, not an install's
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's runs start from compiled modules
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env)
        while True:
            done = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if done is not None:
                break
            if counted is not None and counted.exists():
                with open(counted, "rb") as f:
                    f.seek(offset)
                    chunk = f.read()
                complete = chunk.rfind(b"\n") + 1
                lines += chunk.count(b"\n", 0, complete)
                offset += complete
            helper_rss = 0.0
            for helper in _helpers(process.pid, known):
                try:
                    helper_seen[helper] = _cpu_of(helper)
                    helper_rss = _rss_of(helper)
                except (FileNotFoundError, ProcessLookupError):
                    pass
            try:
                samples.append((time.perf_counter() - began, _cpu_of(process.pid), lines))
                ticks.append((lines, *_machine_ticks()))
                if len(samples) % 10 == 1:
                    memory.append((lines, _rss_of(process.pid), helper_rss))
            except (FileNotFoundError, ProcessLookupError):
                break
            time.sleep(0.1)
        wall = time.perf_counter() - began
        own = _cpu_of(process.pid)  # a zombie still has its times; reaping clears them
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    return Run(
        wall,
        own,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        process.returncode,
        samples,
        sum(helper_seen.values()),
        memory,
        ticks,
    )


# ------------------------------------------------------------------ the runs


def config_text(name: str, bot: list[str], games: int, concurrency: int, output: Path) -> str:
    command = json.dumps(bot)
    return (
        f"name: {name}\nboard_size: 7\nopening: empty\ntime_control: {{per_move: 10}}\n"
        f"schedule: {{kind: round_robin, games_per_pair: {games}}}\nconcurrency: {concurrency}\n"
        f"output: {output}\nbots:\n  - name: a\n    command: {command}\n  - name: b\n    command: {command}\n"
    )


def _stamp(text: bytes) -> float:
    return datetime.fromisoformat(text.decode()).timestamp()


def tenths(results: Path) -> tuple[int, int, float, float]:
    """(games, turns, ms per game in the first tenth, ms per game in the last tenth)."""
    ends: list[float] = []
    turns = 0
    with open(results, "rb") as f:
        for line in f:
            found = _ENDED.search(line)
            if found is None:
                continue
            ends.append(_stamp(found.group(1)))
            turns += line.count(b'{"number":')
    n = len(ends)
    tenth = max(1, n // 10)
    first = (ends[tenth] - ends[0]) / tenth * 1e3 if n > tenth else float("nan")
    last = (ends[-1] - ends[-1 - tenth]) / tenth * 1e3 if n > tenth else float("nan")
    return n, turns, first, last


def cpu_between(samples: list[tuple[float, float, int]], first: int, last: int) -> tuple[float, int]:
    """(CPU seconds, games) between the first samples that saw ``first`` and ``last`` games."""
    at_first = next((s for s in samples if s[2] >= first), None)
    at_last = next((s for s in samples if s[2] >= last), samples[-1] if samples else None)
    if at_first is None or at_last is None or at_last[2] <= at_first[2]:
        return float("nan"), 0
    return at_last[1] - at_first[1], at_last[2] - at_first[2]


def cpu_per_game(samples: list[tuple[float, float, int]], lo: int, hi: int) -> float:
    """The referee's CPU milliseconds per game between the first and the last sample that saw
    from ``lo`` to ``hi`` games recorded (nan with fewer than two such samples): the flatness
    of a long run measured by CPU, which a busy machine moves less than the wall."""
    inside = [s for s in samples if lo <= s[2] <= hi]
    if len(inside) < 2 or inside[-1][2] == inside[0][2]:
        return float("nan")
    return (inside[-1][1] - inside[0][1]) / (inside[-1][2] - inside[0][2]) * 1e3


def vastuz_run(
    folder: Path, bot: list[str], games: int, concurrency: int, standings_every: int | None, tag: str
) -> dict[str, Any]:
    out = folder / f"out-{tag}"
    shutil.rmtree(out, ignore_errors=True)
    config = folder / f"{tag}.yaml"
    config.write_text(config_text(f"bench-{tag}", bot, games, concurrency, out))
    argv = [sys.executable, "-m", "referee.cli", "tournament", str(config)]
    if standings_every is not None:
        argv += ["--standings-every", str(standings_every)]
    run = watch(argv, folder / f"{tag}.log", out / "results.jsonl", cwd=TREE)
    if run.returncode != 0:
        raise SystemExit(f"vastuz tournament exited {run.returncode}: see {folder / f'{tag}.log'}")
    n, turns, first, last = tenths(out / "results.jsonl")
    per_game = turns / n
    play_cpu, play_games = cpu_between(run.samples, 1, n)
    tenth = max(1, n // 10)
    # Memory after the first tenth and at the last sample before the end (the final
    # standings not yet begun), and its growth a game between, each process.
    early = next((m for m in run.memory if m[0] >= tenth), None)
    late = next((m for m in reversed(run.memory) if m[0] < n), None)
    grown = early is not None and late is not None and late[0] > early[0]
    shutil.rmtree(out, ignore_errors=True)  # a 200,000-game run's folder is gigabytes
    return {
        "games": n,
        "turns": turns,
        "wall": run.wall,
        "first_ms": first,
        "last_ms": last,
        # The last tenth ends before the last game: the final standings are not in it.
        "first_cpu_ms": cpu_per_game(run.samples, 1, tenth),
        "last_cpu_ms": cpu_per_game(run.samples, n - tenth, n - 1),
        "first_steal": steal_share(run.ticks, 1, tenth),
        "last_steal": steal_share(run.ticks, n - tenth, n - 1),
        "ref_us": run.own_cpu / turns * 1e6,
        "play_us": play_cpu / (play_games * per_game) * 1e6 if play_games else float("nan"),
        "run_us": run.run_cpu / turns * 1e6,
        "rss_mb": run.rss_mb,
        "wall_us": run.wall / turns * 1e6,
        "helper_us": run.helper_cpu / turns * 1e6,
        "memory": (early, late) if grown else None,
    }


def loop_run(folder: Path, bot: list[str], games: int) -> dict[str, float]:
    """The same games in ``benchmarks/referee.py``'s loop (concurrency 1), in a process of
    its own like the tournament's."""
    argv = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--loop-worker",
        json.dumps(bot),
        "--games",
        str(games),
    ]
    argv += ["--tree", str(TREE)]
    output = folder / "loop.json"
    run = watch(argv, output, cwd=TREE)
    if run.returncode != 0:
        raise SystemExit(f"the loop exited {run.returncode}: {output.read_text()[-2000:]}")
    figures = json.loads(output.read_text().strip().splitlines()[-1])
    turns = figures["turns"]
    return {
        "games": games,
        "turns": turns,
        "wall": run.wall,
        "first_ms": float("nan"),
        "last_ms": float("nan"),
        "first_cpu_ms": float("nan"),
        "last_cpu_ms": float("nan"),
        "ref_us": run.own_cpu / turns * 1e6,
        "play_us": figures["cpu"] / turns * 1e6,
        "run_us": run.run_cpu / turns * 1e6,
        "rss_mb": run.rss_mb,
        "wall_us": figures["wall"] / turns * 1e6,
        "helper_us": 0.0,  # the loop has no standings process
    }


def memory_line(memory: tuple[tuple[int, float, float], tuple[int, float, float]]) -> str:
    """The referee's and its standings process's resident memory after the first tenth
    and at the end, and what each grew a game between."""
    (g0, r0, s0), (g1, r1, s1) = memory
    games = g1 - g0
    return (
        f"memory: the referee {r0:.0f} MB at {g0:,} games, {r1:.0f} MB at {g1:,} "
        f"({(r1 - r0) * 2**20 / games:.0f} bytes a game); its standings process {s0:.0f} and {s1:.0f} MB "
        f"({(s1 - s0) * 2**20 / games:.0f} bytes a game)"
    )


def loop_worker(bot: list[str], games: int) -> None:
    import trio

    from benchmarks.referee import c_games

    wall, used, records = trio.run(c_games, bot, games, 1)
    print(json.dumps({"wall": wall, "cpu": used, "turns": sum(len(r.turns) for r in records)}))


def python_floor(games: int, concurrency: int) -> float:
    """Python's floor in CPU µs a turn (``benchmarks/floor.py --bare-only``, its own process)."""
    argv = [sys.executable, str(HERE / "floor.py"), "--bare-only", "--games", str(games),
            "--concurrency", str(concurrency)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks/floor.py --bare-only exited {done.returncode}: {done.stderr[-2000:]}")
    return float(done.stdout.split()[-1])


def fastchess_run(
    fastchess: str, engine: Path, games: int, concurrency: int, folder: Path
) -> dict[str, float]:
    pgn = folder / "fastchess.pgn"
    pgn.unlink(missing_ok=True)
    argv = [
        fastchess,
        "-engine", f"cmd={engine}", "name=a",
        "-engine", f"cmd={engine}", "name=b",
        "-each", "tc=10+0", "proto=uci",
        "-rounds", str(max(1, games // 2)), "-games", "2",
        "-concurrency", str(concurrency), "-force-concurrency",
        "-pgnout", f"file={pgn}",
    ]  # fmt: skip
    run = watch(argv, folder / "fastchess.log", cwd=folder)
    if run.returncode != 0:
        raise SystemExit(f"fastchess exited {run.returncode}: see {folder / 'fastchess.log'}")
    text = pgn.read_text(errors="replace")
    played = text.count('[Result "1-0"]')
    if played != max(1, games // 2) * 2 or text.count("[Result ") != played:
        raise SystemExit(f"fastchess: {played} games ended in mate, expected {games}: see {pgn}")
    moves = played * UCI_PLIES
    return {"games": played, "moves": moves, "wall": run.wall, "own_us": run.own_cpu / moves * 1e6,
            "run_us": run.run_cpu / moves * 1e6, "wall_us": run.wall / moves * 1e6}  # fmt: skip


# ------------------------------------------------------------------ the report


def spread(values: list[float], fmt: str = ".2f") -> str:
    values = [v for v in values if v == v]
    if not values:
        return "-"
    middle = format(statistics.median(values), fmt)
    if len(values) == 1:
        return middle
    return f"{middle} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--games", type=int, action="append", help="games per run (repeatable; default 2000 and 20000)"
    )
    parser.add_argument("--long", action="store_true", help="add a run of 200,000 games")
    parser.add_argument("--reps", type=int, default=1, help="interleaved repetitions of each run")
    parser.add_argument("--concurrency", type=int, default=1, help="of the tournaments (the loop plays at 1)")
    parser.add_argument("--fastchess", default=None, help="a fastchess binary: compare with it")
    parser.add_argument("--fastchess-games", type=int, default=200, help="games per run of the comparison")
    parser.add_argument("--fastchess-concurrency", type=int, action="append", help="default 1, 2 and 4")
    parser.add_argument("--only-fastchess", action="store_true", help="skip the tournament table")
    parser.add_argument(
        "--rows",
        default="loop,tournament,quiet",
        help="the tournament table's runs: loop, tournament (default output), quiet (--standings-every 0)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the scripted Vastuz game")
    parser.add_argument(
        "--think-us",
        type=int,
        default=0,
        help="the bots sleep this many microseconds before each genmove's answer (not with --fastchess)",
    )
    parser.add_argument("--tree", type=Path, default=None, help="the project checkout to measure")
    parser.add_argument("--loop-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.think_us and args.fastchess is not None:
        parser.error("--think-us applies to the Vastuz runs only: fastchess's engines do not think")
    if args.loop_worker is not None:
        loop_worker(json.loads(args.loop_worker), args.games[0])
        return
    sizes = args.games or [2000, 20000]
    if args.long:
        sizes.append(200_000)
    warm_bytecode(TREE)
    with tempfile.TemporaryDirectory(prefix="vastuz-tournament-bench-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        turns = scripted_game(7, args.seed)
        script.write_text("".join(t + "\n" for t in turns))
        bot = [str(binary), str(script)]
        if args.think_us:
            bot += ["--think-us", str(args.think_us)]
        kind = "instant C replay bots"
        if args.think_us:
            kind = f"C replay bots thinking {args.think_us} us a genmove"
        print(
            f"{kind}, size 7, a {len(turns)}-turn game; vastuz tournament at concurrency "
            f"{args.concurrency}, default output to a file; {os.cpu_count()} CPUs; "
            f"{args.reps} interleaved reps\n"
        )
        if not args.only_fastchess:
            tournament_table(folder, bot, sizes, args)
        if args.fastchess is not None:
            fastchess_table(folder, bot, args)


def tournament_table(folder: Path, bot: list[str], sizes: list[int], args: argparse.Namespace) -> None:
    columns = ("run", "games", "ms/game 1st", "ms/game last", "cpu ms/game 1st", "cpu ms/game last",
               "ref us/turn", "play us/turn", "standings us/turn", "run us/turn", "peak MB",
               "wall s")  # fmt: skip
    widths = (26, 8, 22, 22, 22, 22, 22, 22, 20, 22, 14, 18)
    header = "".join(
        f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(columns, widths, strict=True))
    )
    for games in sizes:
        rows: dict[str, list[dict[str, Any]]] = {
            "loop (referee.py --mode c)": [],
            "tournament": [],
            "--standings-every 0": [],
        }
        for rep in range(args.reps):
            if "loop" in args.rows:
                rows["loop (referee.py --mode c)"].append(loop_run(folder, bot, games))
            if "tournament" in args.rows:
                rows["tournament"].append(
                    vastuz_run(folder, bot, games, args.concurrency, None, f"default-{rep}")
                )
            if "quiet" in args.rows:
                rows["--standings-every 0"].append(
                    vastuz_run(folder, bot, games, args.concurrency, 0, f"quiet-{rep}")
                )
        print(header)
        print("-" * len(header))
        for label, runs in rows.items():
            if not runs:
                continue
            cells = [
                spread([r["first_ms"] for r in runs]),
                spread([r["last_ms"] for r in runs]),
                spread([r["first_cpu_ms"] for r in runs]),
                spread([r["last_cpu_ms"] for r in runs]),
                spread([r["ref_us"] for r in runs], ".1f"),
                spread([r["play_us"] for r in runs], ".1f"),
                spread([r["helper_us"] for r in runs], ".1f"),
                spread([r["run_us"] for r in runs], ".1f"),
                spread([r["rss_mb"] for r in runs], ".0f"),
                spread([r["wall"] for r in runs], ".1f"),
            ]
            print(
                f"{label:<{widths[0]}}{games:>{widths[1]}}"
                + "".join(f"{c:>{w}}" for c, w in zip(cells, widths[2:], strict=True))
            )
        loop, full, quiet = rows.values()
        if full:
            flat = [f["last_cpu_ms"] / f["first_cpu_ms"] for f in full]
            print(f"\nthe tournament's CPU a game, last tenth over first: {spread(flat)} (goal: at most 1.1)")
            print(
                "the machine's steal time (a hypervisor's other guests) in the first tenth: "
                f"{spread([f['first_steal'] for f in full], '.1f')}%, in the last: "
                f"{spread([f['last_steal'] for f in full], '.1f')}% (a tenth with more is slower for it)"
            )
            for f in full:
                if f["memory"] is not None:
                    print(memory_line(f["memory"]))
        if not (loop and full and quiet):
            print()
            continue
        share = [1 - q["wall"] / f["wall"] for f, q in zip(full, quiet, strict=True)]
        ratio = [f["play_us"] / lo["play_us"] for f, lo in zip(full, loop, strict=True)]
        ratio_quiet = [q["play_us"] / lo["play_us"] for q, lo in zip(quiet, loop, strict=True)]
        ratio_all = [f["ref_us"] / lo["play_us"] for f, lo in zip(full, loop, strict=True)]
        print(
            f"\nstandings' share of the wall: {spread([s * 100 for s in share], '.1f')}%; "
            f"referee CPU per turn over the loop's: {spread(ratio)} while playing, "
            f"{spread(ratio_all)} for the whole run, "
            f"{spread(ratio_quiet)} with --standings-every 0 (goal: 1.2)\n"
        )


def fastchess_table(folder: Path, bot: list[str], args: argparse.Namespace) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("--fastchess needs a C compiler (cc) for benchmarks/uci_replay.c")
    engine = folder / "uci_replay"
    subprocess.run([compiler, "-O2", "-o", str(engine), str(UCI_REPLAY)], check=True)
    games = args.fastchess_games
    print(f"against fastchess ({args.fastchess}): {games} games per run, {args.reps} interleaved reps")
    columns = ("concurrency", "vastuz cpu us", "fastchess cpu us", "cpu ratio", "playing ratio",
               "with standings", "whole machine", "vastuz wall us", "fastchess wall us",
               "wall ratio", "python floor us", "floor ratio")  # fmt: skip
    widths = (12, 22, 22, 20, 20, 20, 20, 24, 22, 20, 22, 20)  # a cell is 'median (min-max)'
    header = "".join(
        f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(columns, widths, strict=True))
    )
    print(header)
    print("-" * len(header))
    for concurrency in args.fastchess_concurrency or [1, 2, 4]:
        ours, theirs, floors = [], [], []
        for rep in range(args.reps):
            ours.append(vastuz_run(folder, bot, games, concurrency, None, f"fc-{concurrency}-{rep}"))
            theirs.append(fastchess_run(args.fastchess, engine, games, concurrency, folder))
            floors.append(python_floor(games, concurrency))
        cpu_ratio = [o["ref_us"] / t["own_us"] for o, t in zip(ours, theirs, strict=True)]
        playing = [o["play_us"] / t["own_us"] for o, t in zip(ours, theirs, strict=True)]
        helped = [(o["ref_us"] + o["helper_us"]) / t["own_us"] for o, t in zip(ours, theirs, strict=True)]
        machine = [o["run_us"] / t["run_us"] for o, t in zip(ours, theirs, strict=True)]
        wall_ratio = [o["wall_us"] / t["wall_us"] for o, t in zip(ours, theirs, strict=True)]
        cells = [
            spread([o["ref_us"] for o in ours], ".1f"),
            spread([t["own_us"] for t in theirs], ".1f"),
            spread(cpu_ratio),
            spread(playing),
            spread(helped),
            spread(machine),
            spread([o["wall_us"] for o in ours], ".1f"),
            spread([t["wall_us"] for t in theirs], ".1f"),
            spread(wall_ratio),
            spread(floors, ".1f"),
            spread([f / t["own_us"] for f, t in zip(floors, theirs, strict=True)]),
        ]
        print(
            f"{concurrency:<{widths[0]}}"
            + "".join(f"{c:>{w}}" for c, w in zip(cells, widths[1:], strict=True)),
            flush=True,
        )
    print(
        "\ncpu us: each program's own process CPU per move (turn), start to end of the run; playing ratio:"
        "\nVastuz's CPU per turn between its first and last recorded game (its start-up and final standings"
        "\nleft out) over fastchess's whole run; with standings: the cpu ratio with the CPU of Vastuz's"
        "\nstandings process added (it rates and pages the games off the game path; fastchess rates"
        "\nin its own process); whole machine: each run's CPU with its children's (wait4: the bots, the"
        "\nstandings process), which counts a wake-up where the kernel charges it, to the writer; it"
        "\nalso counts the bots, and a UCI engine reads the whole game again at every move, a GTP bot"
        "\none move; wall us: the run's wall time per move; ratios Vastuz / fastchess,"
        "\npaired run by run (goal 1.0 CPU per move); python floor us: the same games played by the least"
        "\na Python program does (benchmarks/floor.py --bare: one epoll, no trio, no records), its own CPU"
        "\nper turn; floor ratio: that over fastchess's, paired (above 1: no Python referee can match it)"
    )


if __name__ == "__main__":
    main()
