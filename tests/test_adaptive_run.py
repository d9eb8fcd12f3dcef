"""An adaptive rating run played for real: sample bot processes through the runner, the
warm-up round robin then pairs chosen by the ranking's uncertainty, resumable."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import trio
import yaml

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

ROOT = Path(__file__).resolve().parent.parent


def test_an_adaptive_run_plays_its_budget_in_pairs_and_resumes_to_nothing(tmp_path: Path) -> None:
    bots = [
        {
            "name": name,
            "command": [sys.executable, "-m", f"sample_bots.{bot}", "--seed", str(i)],
            "cwd": str(ROOT),
        }
        for i, (name, bot) in enumerate((("r1", "random_bot"), ("r2", "random_bot"), ("g", "greedy_bot")))
    ]
    config = {
        "name": "adaptive",
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 0.2, "margin": 0.3},
        "schedule": {"kind": "adaptive", "games": 16},
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "bots": bots,
    }
    path = tmp_path / "adaptive.yaml"
    path.write_text(yaml.safe_dump(config))
    out = io.StringIO()
    result = trio.run(lambda: Tournament(load_config(path), out=out, bootstrap=100).run())
    assert result.played == 16 and "adaptive" in out.getvalue()
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    keys = [r.pair_key for r in records]
    assert len(records) == 16 and all(keys.count(k) == 2 for k in keys)  # colour-reversed pairs
    # The warm-up: one pair of every two bots, before any adaptive pair.
    first_six = {frozenset(r.labels) for r in sorted(records, key=lambda r: r.slot)[:6]}
    assert first_six == {frozenset(p) for p in (("r1", "r2"), ("r1", "g"), ("r2", "g"))}
    again = trio.run(lambda: Tournament(load_config(path), out=io.StringIO(), bootstrap=100).run())
    assert again.played == 0 and again.resumed == 16
