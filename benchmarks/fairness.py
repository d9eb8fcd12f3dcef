"""Does the referee's own lateness ever decide a game? ``python benchmarks/fairness.py
[--games-per-pair 16] [--concurrency 16] [--processes N] [--load 2] [--runs 1]
[--per-move 0.05] [--margin 0.2] [--size 5] [--affinity] [--standings-every 10] [--keep DIR]``.

A real ``vastuz tournament`` (with ``--transcripts``) between four copies of
``benchmarks/stamping_bot.py``, time-using bots that burn CPU for a random share of the
whole window before each decision (so their answers land all over it, many just before
the deadline) and stamp every read and write on CLOCK_MONOTONIC, the referee's clock. It
runs at ``--concurrency`` games at once with ``--load`` busy processes beside it (each in a
session of its own, as other work on the machine is), so the referee competes for the cores
with the bots that think and with the load.

The truth of each decision comes from the two sides' stamps on the same clock:

* the bot's ``write`` stamp: when its whole answer was in the pipe;
* the referee's transcript: when it queued the command (``>``, no later than the write
  that sent it) and when it read the answer before it (``<``, the bot answers in order),
  so the deadline is no earlier than the later of the two plus the window
  (``per_move + margin``).

Printed per run: decisions; time losses; **harness-caused time losses** (the bot's answer
complete before that deadline: must be 0); answers the referee read after their deadline
(accepted, and by how much); the referee's read latency (its read of the answer minus the
bot's write) p50/p99/max; and the referee's own line about its late looks (the end of the
run's output), when it prints one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BOT = Path(__file__).resolve().parent / "stamping_bot.py"
_DECISIONS = ("genmove", "gensetup", "choose_color")
_LINE = re.compile(r"^\s*([0-9.]+) ([<>!]) (.*)$")
_ANSWER = re.compile(r"^[=?](\d+)")


@dataclass
class Tally:
    decisions: int = 0
    time_losses: int = 0
    harness_losses: list[str] = field(default_factory=list)
    read_late: list[float] = field(default_factory=list)  # seconds past the deadline bound
    latency: list[float] = field(default_factory=list)  # referee read - bot write
    referee_line: str = ""
    games: int = 0
    seconds: float = 0.0


def write_config(folder: Path, args: argparse.Namespace, stamps: Path) -> Path:
    deadline = args.per_move + args.margin
    bots = [
        {
            "name": f"s{k}",
            "command": [
                sys.executable,
                str(BOT),
                "--stamps",
                str(stamps),
                "--deadline",
                str(deadline),
                "--think",
                args.think,
                "--seed",
                str(k),
            ],
        }
        for k in range(1, 5)
    ]
    data: dict[str, object] = {
        "name": "fairness",
        "board_size": args.size,
        "opening": "empty",
        "time_control": {"per_move": args.per_move, "margin": args.margin},
        "schedule": {"kind": "round_robin", "games_per_pair": args.games_per_pair},
        "concurrency": args.concurrency,
        "output": str(folder / "out"),
        "bots": bots,
    }
    if args.processes:
        data["executor"] = {"processes": args.processes}
    if args.affinity:
        data["affinity"] = True
    path = folder / "fairness.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def stamps_of(folder: Path) -> dict[tuple[int, int], tuple[float, float]]:
    """(pid, command id) -> (bot's read, bot's write)."""
    out: dict[tuple[int, int], tuple[float, float]] = {}
    for path in folder.glob("*.stamps"):
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 5 and parts[1].isdigit():
                out[(int(parts[0]), int(parts[1]))] = (float(parts[3]), float(parts[4]))
    return out


def transcript_times(path: Path) -> tuple[dict[int, float], dict[int, float], dict[int, str]]:
    """Absolute times of each command's ``>`` line and of the last line of its answer, and
    each command's name, from a transcript whose header gives its clock."""
    sent: dict[int, float] = {}
    answered: dict[int, float] = {}
    names: dict[int, str] = {}
    origin: float | None = None
    current: int | None = None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("#"):
            found = re.search(r"monotonic clock ([0-9.]+)", line)
            if found:
                origin = float(found.group(1))
            continue
        match = _LINE.match(line)
        if match is None or origin is None:
            continue
        at = origin + float(match.group(1))
        direction, text = match.group(2), match.group(3)
        if direction == ">":
            words = text.split()
            if len(words) > 1 and words[0].isdigit():
                sent[int(words[0])] = at
                names[int(words[0])] = words[1]
        elif direction == "<":
            head = _ANSWER.match(text)
            if head:
                current = int(head.group(1))
            if current is not None:
                answered[current] = at  # the answer's last line so far (its blank end included)
    return sent, answered, names


def tally(out: Path, stamps: dict[tuple[int, int], tuple[float, float]], window: float) -> Tally:
    result = Tally()
    for line in (out / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        result.games += 1
        fault = record.get("fault") or {}
        lost_on_time = record["termination"] == "time"
        fault_id = None
        if lost_on_time:
            result.time_losses += 1
            words = str(fault.get("command", "")).split()
            fault_id = int(words[0]) if words and words[0].isdigit() else None
        for seat, bot in enumerate(record["bots"]):
            transcript = bot.get("transcript")
            pid = bot.get("pid")
            if not transcript or pid is None or not Path(transcript).exists():
                continue
            sent, answered, names = transcript_times(Path(transcript))
            for ident, name in names.items():
                if name not in _DECISIONS:
                    continue
                start = max(sent[ident], answered.get(ident - 1, 0.0))
                deadline = start + window
                stamp = stamps.get((pid, ident))
                if lost_on_time and seat == fault.get("seat") and ident == fault_id:
                    result.decisions += 1
                    if stamp is not None and stamp[1] < deadline:
                        result.harness_losses.append(
                            f"{record['game_id']} {bot['label']} id {ident}: answer complete "
                            f"{(deadline - stamp[1]) * 1e3:.1f} ms before the deadline"
                        )
                    continue
                if ident not in answered:
                    continue  # never answered: the game ended another way
                result.decisions += 1
                if answered[ident] > deadline:
                    result.read_late.append(answered[ident] - deadline)
                if stamp is not None:
                    result.latency.append(answered[ident] - stamp[1])
    return result


def busy_load(count: int) -> list[subprocess.Popen[bytes]]:
    """Busy processes, each in a session of its own as other work on the machine would be
    (Linux's autogroup shares the CPU between sessions first: a load in the referee's own
    session would take the referee's share, which no real user's other work does). Each
    dies with this benchmark (PR_SET_PDEATHSIG), even if the benchmark is killed."""
    code = (
        "import ctypes, signal\n"
        "ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n"  # PR_SET_PDEATHSIG
        "while True:\n    pass\n"
    )
    return [subprocess.Popen([sys.executable, "-c", code], start_new_session=True) for _ in range(count)]


def one_run(args: argparse.Namespace, keep: Path | None) -> Tally:
    folder = Path(tempfile.mkdtemp(prefix="fairness-"))
    stamps = folder / "stamps"
    stamps.mkdir()
    config = write_config(folder, args, stamps)
    load = busy_load(args.load)
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "referee.cli",
                "tournament",
                str(config),
                "--quiet",
                "--transcripts",
                "--standings-every",
                str(args.standings_every),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        for process in load:
            process.send_signal(signal.SIGKILL)
            process.wait()
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-2000:] + done.stderr[-2000:])
        raise SystemExit(f"the tournament exited {done.returncode}")
    result = tally(folder / "out", stamps_of(stamps), args.per_move + args.margin)
    result.seconds = seconds
    result.referee_line = next(
        (x for x in done.stdout.splitlines() if x.startswith("referee: looked late")), ""
    )
    if keep is not None:
        shutil.copytree(folder, keep / folder.name)
    shutil.rmtree(folder, ignore_errors=True)
    return result


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rows(results: list[Tally]) -> Iterator[str]:
    yield (
        "| run | games | decisions | time losses | harness-caused | read after deadline (max ms) "
        "| read latency p50 / p99 / max ms | wall s |"
    )
    yield "| --- | --- | --- | --- | --- | --- | --- | --- |"
    for k, r in enumerate(results, 1):
        late = f"{len(r.read_late)} ({max(r.read_late) * 1e3:.1f})" if r.read_late else "0"
        lat = r.latency
        p50, p99, worst = _quantile(lat, 0.5) * 1e3, _quantile(lat, 0.99) * 1e3, max(lat, default=0) * 1e3
        yield (
            f"| {k} | {r.games} | {r.decisions} | {r.time_losses} | {len(r.harness_losses)} | {late} | "
            f"{p50:.2f} / {p99:.1f} / {worst:.1f} | {r.seconds:.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-pair", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--processes", type=int, default=0, help="referee processes (executor), 0: in the run"
    )
    parser.add_argument("--load", type=int, default=2, help="busy processes beside the run")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--per-move", type=float, default=0.05)
    parser.add_argument("--margin", type=float, default=0.2)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument(
        "--think", default="0.2,0.95", help="the bots' thinking, fractions LO,HI of the window"
    )
    parser.add_argument("--keep", type=Path, default=None, help="copy each run's folder here")
    parser.add_argument("--affinity", action="store_true", help="affinity: true (bots kept off one core)")
    parser.add_argument(
        "--standings-every",
        type=int,
        default=10,
        help="the run's standings every N games (0: only at the end)",
    )
    args = parser.parse_args()
    print(
        f"fairness: 4 stamping bots, board {args.size}, {args.per_move} s per move + {args.margin} s margin, "
        f"concurrency {args.concurrency}, {args.processes or 'no'} referee processes, {args.load} busy "
        f"processes, {os.cpu_count()} cores" + (", affinity" if args.affinity else ""),
        flush=True,
    )
    results = []
    for _ in range(args.runs):
        results.append(one_run(args, args.keep))
        for line in results[-1].harness_losses[:5]:
            print(f"  harness-caused: {line}")
        if len(results[-1].harness_losses) > 5:
            print(f"  ... and {len(results[-1].harness_losses) - 5} more")
        if results[-1].referee_line:
            print(f"  {results[-1].referee_line}")
    for line in rows(results):
        print(line)
    if len(results) > 1:
        print(f"harness-caused in all runs: {sum(len(r.harness_losses) for r in results)}")
        p99 = statistics.median(_quantile(r.latency, 0.99) for r in results)
        print(f"median read latency p99: {p99 * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
