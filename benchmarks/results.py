"""Results at scale: ``python benchmarks/results.py [--games 100000] [--bots 5] [--size 7]``.

Builds a finished tournament of ``--games`` games in a temporary folder (a config, its
manifest and a ``results.jsonl`` whose records are real games of the size given, played
by the real game loop between in-memory random bots, each reused under many schedule
slots with its labels, slot and winner set), then measures, each in a fresh process so
memory is its own:

* loading the file's summaries (what resume and reports read), time and memory per record;
* resuming the finished tournament (``vastuz tournament``: manifest check, load, repair,
  schedule, standings with their intervals; plays nothing), twice: the
  first resume also writes standings.html (replays of the latest 10,000 games), the second
  finds it current;
* ``vastuz report`` of the folder;
* a page's rating history and an SPRT's LLR history of the run (its charts), CPU: read
  from the summaries' columns, and with a summary made a game (as before);
* the page the run's standings process writes while it runs (``Worker.files``), 256 games
  after the one before, at the end of the run: CPU, and the peak of the memory it
  allocates (``tracemalloc``, a second time);
* loading whole records, for comparison, on the first ``--whole`` games.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

from referee.play.game import play_game  # noqa: E402
from referee.play.memory import MemoryPlayer  # noqa: E402
from referee.play.records import GameRecord, Outcome, SlotInfo, Termination  # noqa: E402
from referee.play.spec import GameSpec, OpeningKind, TimeControl  # noqa: E402
from referee.tournament.config.loading import load_config  # noqa: E402
from referee.tournament.store.folder import check_manifest  # noqa: E402
from sample_bots.random_bot import RandomBot  # noqa: E402

TEMPLATES = 40


async def templates(size: int) -> list[GameRecord]:
    out = []
    for seed in range(TEMPLATES):
        a = MemoryPlayer(RandomBot(seed=2 * seed), label="x")
        b = MemoryPlayer(RandomBot(seed=2 * seed + 1), label="y")
        spec = GameSpec(size=size, opening=OpeningKind.PIE, time_control=TimeControl.fixed(1.0))
        async with trio.open_nursery() as nursery:
            out.append(await play_game(a, b, spec, start_in=nursery))
    return out


def build(folder: Path, games: int, bots: int, size: int) -> Path:
    pairs = bots * (bots - 1) // 2
    per_pair = max(2, round(games / pairs / 2) * 2)
    names = [f"bot{i}" for i in range(bots)]
    config_path = folder / "big.yaml"
    lines = [
        "name: big",
        f"board_size: {size}",
        "opening: pie",
        "time_control: {per_move: 1}",
        f"schedule: {{kind: round_robin, games_per_pair: {per_pair}}}",
        "output: out",
        "bots:",
    ]
    for name in names:
        lines += [
            f"  - name: {name}",
            f"    command: {sys.executable} -m sample_bots.random_bot",
            f"    cwd: {ROOT}",
        ]
    config_path.write_text("\n".join(lines) + "\n")
    config = load_config(config_path)
    config.output.mkdir(parents=True)
    check_manifest(config, config.output)
    models = trio.run(templates, size)
    rng = random.Random(1)
    with open(config.output / "results.jsonl", "w", encoding="utf-8") as fh:
        for game in config.make_plan().games(set()):
            record = rng.choice(models)
            record.game_id = game.slot
            record.bots[0].label, record.bots[1].label = game.first, game.second
            record.winner = rng.choice((0, 1, 1, 0, None))
            record.outcome = Outcome.DRAW if record.winner is None else Outcome.BLACK_WINS
            record.termination = Termination.SCORE
            record.tournament = SlotInfo("big", game.slot, game.index, game.round, game.pair_key)
            fh.write(record.to_json() + "\n")
    return config_path


MEASURE = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
what, folder, config_path, whole = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
from pathlib import Path

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

out = {}
if what in ("summaries", "whole"):
    from referee.play.records import parse_line
    from referee.tournament.store.results import ResultsFile
    rf = ResultsFile(Path(folder) / "results.jsonl")
    before = rss()
    start = time.perf_counter()
    if what == "summaries":
        kept = rf.summaries().records
    else:
        kept = []
        with open(rf.path, "rb") as fh:
            for raw in fh:
                if len(kept) == whole:
                    break
                kept.append(parse_line(raw))
    seconds = time.perf_counter() - start
    out.update(records=len(kept), kb_per_record=round((rss() - before) / len(kept) / 1024, 2))
else:
    start = time.perf_counter()
    if what == "resume":
        import io, trio
        from referee.tournament.config.loading import load_config
        from referee.tournament.runner import Tournament
        result = trio.run(Tournament(load_config(config_path), out=io.StringIO(), quiet=True).run)
        out.update(played=result.played, resumed=result.resumed)
    elif what == "history":
        from referee.ratings.history import rating_history
        from referee.tournament.config.loading import load_config
        from referee.tournament.store.folder import latest_records
        from referee.tournament.store.results import ResultsFile
        names = load_config(config_path).bot_names
        view = latest_records(ResultsFile(Path(folder) / "results.jsonl").summaries().records)
        from referee.ratings.history import llr_history
        from referee.ratings.sprt import Sprt
        test = Sprt(0.0, 10.0)
        cpu = time.process_time
        t0 = cpu()
        columns = rating_history(view, names), llr_history(view, test, names[0])
        t1 = cpu()
        made = (  # a summary made a game, as before
            rating_history((s for s in view), names),
            llr_history((s for s in view), test, names[0]),
        )
        t2 = cpu()
        out.update(
            games=len(view),
            columns_cpu_s=round(t1 - t0, 3),
            summaries_cpu_s=round(t2 - t1, 3),
            same=columns == made,
        )
    elif what == "page":
        import gc, tracemalloc
        from referee.tournament.config.loading import load_config
        from referee.tournament.store.results import ResultsFile
        from referee.tournament.store.standings_process import Worker
        names = load_config(config_path).bot_names
        log = ResultsFile(Path(folder) / "results.jsonl").summaries().records
        n = len(log)
        settings = dict(
            folder=Path(folder), name="t", names=names, anchor=None, anchor_rating=0.0,
            bootstrap=200, warning=None,
        )
        worker = Worker(settings, log[: n - 256])
        worker.files(n - 256, n, n - 256, None)  # the first page: every count, the window's replays
        for r in log[n - 256 :]:
            worker.add(r)
        gc.collect()
        t0 = time.process_time()
        worker.files(n, n, n, None)  # the next: 256 games more
        t1 = time.process_time()
        tracemalloc.start()
        worker.files(n, n, n, None)  # and again, its memory traced
        peak = tracemalloc.get_traced_memory()[1]
        out.update(games=n, page_cpu_s=round(t1 - t0, 3), page_peak_mb=round(peak / 2**20, 1))
    else:
        from referee.tournament.store.folder import load_standings
        st, _ = load_standings(Path(folder))
        out.update(rated=st.games)
    seconds = time.perf_counter() - start
out["seconds"] = round(seconds, 2)
out["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
print(json.dumps(out))
"""


def measure(what: str, folder: Path, config_path: Path, whole: int) -> dict[str, object]:
    args = [sys.executable, "-c", MEASURE, str(ROOT), what, str(folder), str(config_path), str(whole)]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=5)
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--whole", type=int, default=10_000, help="whole records to load for comparison")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        config_path = build(Path(tmp), args.games, args.bots, args.size)
        folder = Path(tmp) / "out"
        size_mb = (folder / "results.jsonl").stat().st_size / 2**20
        with open(folder / "results.jsonl", "rb") as fh:
            lines = sum(1 for _ in fh)
        per_record = size_mb * 2**20 / lines / 1024
        print(
            f"{lines} records of size-{args.size} games, {args.bots} bots, results.jsonl {size_mb:.0f} MB "
            f"({per_record:.1f} KB per record); built in {time.perf_counter() - started:.0f} s"
        )
        for what, label in (
            ("summaries", "load summaries (resume, report)"),
            ("resume", "resume (writes standings.html first)"),
            ("resume", "resume again (the page is current)"),
            ("report", "vastuz report (with intervals)"),
            ("history", "a page's rating and LLR histories"),
            ("page", "a running run's page, 256 games after the last"),
            ("whole", f"load whole records, first {args.whole}"),
        ):
            result = measure(what, folder, config_path, args.whole)
            print(f"{label:<42} {json.dumps(result)}")


if __name__ == "__main__":
    main()
