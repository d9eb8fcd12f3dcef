"""The time of a ladder's pages in ``vastuz serve`` at 100,000 games:
``python benchmarks/ladder_web.py [--synthetic 100000] [--keep DIR]``.

A store filled as ``benchmarks/ladder.py`` fills one (20 bots rated 0, 50, ...; results
drawn from those ratings; the records a short real ladder's, renamed), its ``ladder.json``
written, then ``vastuz serve`` started on it as a process on 127.0.0.1 and timed over
HTTP: the rating list page first (the server's first fit: every game read and counted,
the rating list with its intervals), again (nothing changed: no fit), a bot's page (the
history's points fitted, once, its chart and its first 100 games), the JSON of the list,
then the list again after one more round of 20 games was committed to the store: at once
(the last fit, marked behind: the fits rest four times their length) and once the next fit
is made (a catch-up: the new games counted, the list fitted again). ``--keep DIR`` keeps the
store there (and reuses one found there).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.ladder import build_replay_bot, scripted_game, synthetic, throughput, write_config
from referee.ladder.config import load_ladder
from referee.ladder.pairing import pair_round, round_games
from referee.ladder.reading import write_view
from referee.ladder.store import LadderStore
from referee.play.records import GameRecord, SlotInfo
from referee.play.spec import OpeningKind

ROOT = Path(__file__).resolve().parent.parent


def one_round(path: Path, bots: int) -> int:
    """Commit one more round of the synthetic ladder ``path`` (as the ladder would); its games."""
    config = load_ladder(path, check_programs=False)
    rng = random.Random(7)
    with LadderStore(config.store, durable=False) as store:
        template = GameRecord.from_json(next(iter(store.records())))
        last = store.last_round()
        number = 1 if last is None else last[0] + 1
        truth = {f"bot{i}": 50.0 * i for i in range(bots)}
        games = round_games(
            pair_round(number, truth, {}, config.pairing), 2, OpeningKind.EMPTY, (), index=store.scheduled()
        )
        store.new_round(number, games)
        for game in games:
            record = dataclasses.replace(template)
            record.bots = [dataclasses.replace(record.bots[0], label=game.first),
                           dataclasses.replace(record.bots[1], label=game.second)]  # fmt: skip
            record.winner = rng.randrange(2)
            record.game_id = game.slot
            record.tournament = SlotInfo(config.name, game.slot, game.index, number, game.pair_key)
            store.commit(record)
        store.end_round(number)
    return len(games)


def timed(url: str) -> tuple[float, int]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        size = len(response.read())
    return time.perf_counter() - started, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="keep (or reuse) the store in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vastuz-ladder-web-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        big = folder / "big.yaml"
        if not (folder / "big" / "ladder.sqlite").exists():
            binary = build_replay_bot(folder)
            script = folder / "game.txt"
            script.write_text("".join(t + "\n" for t in scripted_game(7, 1)))
            argv = [str(binary), str(script)]
            _, _, _, records = throughput(write_config(folder, argv, 4, 2), 3)
            write_config(folder, argv, args.bots, 1, name="big")
            filled = synthetic(big, records, args.synthetic, args.bots)
            print(f"store filled in {filled:.0f} s")
        write_view(load_ladder(big, check_programs=False))
        server = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", str(folder / "big"), "--port", "0"],
            cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        try:
            assert server.stdout is not None
            url = server.stdout.readline().split()[2].rstrip(",")
            games = subprocess.run(
                [sys.executable, "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("
                 "'SELECT COUNT(*) FROM games').fetchone()[0])", str(folder / "big" / "ladder.sqlite")],
                capture_output=True, text=True, check=True,
            ).stdout.strip()  # fmt: skip
            print(f"load average {os.getloadavg()[0]:.2f}; {int(games):,} games, {args.bots} bots")
            for what, path in [
                ("rating list page, first view (the server's first fit)", "/ladders/big/"),
                ("rating list page, again (store unchanged)", "/ladders/big/"),
                ("a bot's page (chart, 100 games)", "/ladders/big/bots/bot7"),
                ("the list's JSON", "/api/ladders/big"),
            ]:
                seconds, size = timed(url + path)
                print(f"{what}: {seconds:.3f} s ({size:,} bytes)")
            added = one_round(big, args.bots)
            seconds, size = timed(url + "/api/ladders/big")
            print(f"the list's JSON right after {added} more games (the last fit, behind): {seconds:.3f} s")
            while True:  # the next fit comes once the last one's rest is over (FIT_SHARE)
                time.sleep(1.0)
                started = time.perf_counter()
                with urllib.request.urlopen(url + "/api/ladders/big", timeout=600) as response:
                    behind = json.loads(response.read())["behind"]
                seconds = time.perf_counter() - started
                if not behind:
                    break
            print(f"the list's JSON with those games (a catch-up and a refit): {seconds:.3f} s")
            seconds, size = timed(url + "/ladders/big/bots/bot7")
            print(f"a bot's page, then: {seconds:.3f} s")
            print(f"load average {os.getloadavg()[0]:.2f}")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
