"""A ladder's throughput, its store's growth and the time of its rating list:
``python benchmarks/ladder.py [--rounds 100] [--bots 4] [--concurrency 2] [--synthetic 100000]``.

1. **Throughput**: ``vastuz ladder``'s loop (:class:`referee.ladder.loop.Ladder`: the store,
   pairing, the executor, a commit with an fsync per game) over ``--rounds`` rounds between
   ``--bots`` copies of the *instant* C replay bot of ``benchmarks/referee.py --mode c``
   (compiled here into a temporary folder; it replays a scripted legal size-7 game, so the
   bots cost next to nothing and the referee and the store are the work). Printed: games/s
   over the whole run, beside a tournament of the same bots and as many games right after
   it (the same machine, the same load: what the rounds' barrier and the store cost), and
   the bytes per game of the store (after a WAL checkpoint) beside the records' JSON size.
2. **At 100,000 games**: a store filled with ``--synthetic`` games made from the run's
   records (other bots, slots and results drawn from known ratings, 20 bots), then the
   time of ``vastuz ladder status``'s rating list (the rating fit with intervals, and the
   table), of the estimate each round's pairing makes (from the summed results), and the
   store's bytes per game.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import trio
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.referee import build_replay_bot, scripted_game
from referee.ladder.config import load_ladder
from referee.ladder.loop import Ladder
from referee.ladder.pairing import pair_round, round_games
from referee.ladder.ratings import pairing_ratings
from referee.ladder.status import status_text
from referee.ladder.store import LadderStore
from referee.play.records import GameRecord, SlotInfo
from referee.play.spec import OpeningKind
from referee.ratings.elo import expected_score
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament


def write_config(folder: Path, argv: list[str], bots: int, concurrency: int, name: str = "bench") -> Path:
    data = {
        "name": name,
        "board_size": 7,
        "opening": "empty",
        "time_control": {"per_move": 10},
        "concurrency": concurrency,
        "output": str(folder / name),
        "min_games": 100,
        "anchors": [{"bot": "bot0", "rating": 0}],
        "bots": [{"name": f"bot{i}", "command": argv} for i in range(bots)],
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def store_bytes(path: Path) -> int:
    """The store's size once its write-ahead log is checkpointed into the file."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


def throughput(path: Path, rounds: int) -> tuple[float, int, int, list[str]]:
    """(seconds, games, store bytes, records) of a ladder of ``rounds`` rounds."""
    config = load_ladder(path)
    started = time.perf_counter()
    result = trio.run(Ladder(config, out=io.StringIO(), quiet=True, rounds=rounds).run)
    seconds = time.perf_counter() - started
    with LadderStore(config.store) as store:
        records = list(store.records())
    return seconds, result.played, store_bytes(config.store), records


def tournament(folder: Path, argv: list[str], bots: int, games: int, concurrency: int) -> tuple[float, int]:
    """(seconds, games) of a round robin of the same bots, about ``games`` games."""
    pairs = bots * (bots - 1) // 2
    per_pair = max(2, 2 * round(games / pairs / 2))
    data = {
        "name": "same",
        "board_size": 7,
        "opening": "empty",
        "time_control": {"per_move": 10},
        "schedule": {"kind": "round_robin", "games_per_pair": per_pair},
        "concurrency": concurrency,
        "output": str(folder / "same"),
        "bots": [{"name": f"bot{i}", "command": argv} for i in range(bots)],
    }
    path = folder / "same.yaml"
    path.write_text(yaml.safe_dump(data))
    started = time.perf_counter()
    result = trio.run(Tournament(load_config(path), out=io.StringIO(), quiet=True, standings_every=0).run)
    return time.perf_counter() - started, result.played


def synthetic(path: Path, templates: list[str], games: int, bots: int, seed: int = 1) -> float:
    """Fill the ladder ``path`` with ``games`` games between ``bots`` bots rated 0, 50, ...
    (results drawn from their ratings, the records the templates' with other names and
    slots), round by round as the ladder would; the seconds it took."""
    config = load_ladder(path, check_programs=False)
    rng = random.Random(seed)
    truth = {f"bot{i}": 50.0 * i for i in range(bots)}
    started = time.perf_counter()
    with LadderStore(config.store, durable=False) as store:
        store.check_settings(config.name, config.settings())
        for name in truth:
            store.register(name, name, "sha256:synthetic", "replay_bot")
        parsed = [GameRecord.from_json(t) for t in templates]
        number = 0
        while store.scheduled() < games:
            number += 1
            pairings = pair_round(number, truth, {}, config.pairing)
            scheduled = round_games(pairings, 2, OpeningKind.EMPTY, (), index=store.scheduled())
            store.new_round(number, scheduled)
            for game in scheduled:
                record = dataclasses.replace(rng.choice(parsed))
                record.bots = [dataclasses.replace(record.bots[0], label=game.first),
                               dataclasses.replace(record.bots[1], label=game.second)]  # fmt: skip
                p = expected_score(truth[game.first] - truth[game.second])
                record.winner = 0 if rng.random() < p else 1
                record.game_id = game.slot
                record.tournament = SlotInfo(config.name, game.slot, game.index, number, game.pair_key)
                store.commit(record)
            store.end_round(number)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--synthetic-bots", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vastuz-ladder-bench-") as tmp:
        folder = Path(tmp)
        binary = build_replay_bot(folder)
        script = folder / "game.txt"
        turns = scripted_game(7, 1)
        script.write_text("".join(t + "\n" for t in turns))
        path = write_config(folder, [str(binary), str(script)], args.bots, args.concurrency)
        seconds, games, size, records = throughput(path, args.rounds)
        json_bytes = sum(len(r) + 1 for r in records) / len(records)
        print(
            f"throughput: {games} games ({args.rounds} rounds, {args.bots} instant C bots, size 7, "
            f"{len(turns)} turns a game, concurrency {args.concurrency}) in {seconds:.1f} s: "
            f"{games / seconds:.1f} games/s, an fsync'd commit each"
        )
        t_seconds, t_games = tournament(
            folder, [str(binary), str(script)], args.bots, games, args.concurrency
        )
        print(
            f"the same bots as a round robin of {t_games} games, right after: "
            f"{t_games / t_seconds:.1f} games/s"
        )
        print(f"store: {size / games:,.0f} bytes per game (the record's JSON: {json_bytes:,.0f} bytes)")
        big = write_config(folder, [str(binary), str(script)], args.synthetic_bots, 1, name="big")
        filled = synthetic(big, records, args.synthetic, args.synthetic_bots)
        config = load_ladder(big, check_programs=False)
        with LadderStore(config.store) as store:
            n = len(store.results())
            started = time.perf_counter()
            text = status_text(config, store)
            status_seconds = time.perf_counter() - started
            started = time.perf_counter()
            labels = [f"bot{i}" for i in range(args.synthetic_bots)]
            pairing_ratings(store.tallies(), labels, anchor=("bot0", 0.0), prior=0.0)
            quick = time.perf_counter() - started
        size = store_bytes(config.store)
        print(
            f"\nat {n:,} games ({args.synthetic_bots} bots; synthetic, filled in {filled:.0f} s): store "
            f"{size / 1e6:,.1f} MB, {size / n:,.0f} bytes per game; rating list (vastuz ladder status) "
            f"{status_seconds:.2f} s; a round's pairing fit {quick:.2f} s"
        )
        print("\n" + "\n".join(text.splitlines()[:6]))


if __name__ == "__main__":
    main()
