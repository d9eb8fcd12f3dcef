"""An SPRT played for real: sample bot processes through the runner, until the test
decides; a resumed run after the decision plays nothing; the decision reaches
standings.json and the report."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import trio
import yaml

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

ROOT = Path(__file__).resolve().parent.parent


def sample(name: str, bot: str, seed: int) -> dict[str, object]:
    return {
        "name": name,
        "command": [sys.executable, "-m", f"sample_bots.{bot}", "--seed", str(seed)],
        "cwd": str(ROOT),
    }


def write(tmp_path: Path, bots: list[dict[str, object]], schedule: dict[str, object], size: int = 3) -> Path:
    config = {
        "name": "sprt",
        "board_size": size,
        "opening": "pie",
        "time_control": {"per_move": 0.2, "margin": 0.3},
        "schedule": {"kind": "sprt", **schedule},
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "bots": bots,
    }
    path = tmp_path / "sprt.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def run(path: Path) -> tuple[str, object]:
    out = io.StringIO()
    result = trio.run(lambda: Tournament(load_config(path), out=out, standings_every=4, bootstrap=100).run())
    return out.getvalue(), result


def test_a_much_stronger_candidate_is_accepted_in_few_pairs_and_a_resume_plays_nothing(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        [sample("greedy", "greedy_bot", 1), sample("random", "random_bot", 2)],
        {"elo0": 0, "elo1": 150, "alpha": 0.1, "beta": 0.1, "model": "logistic", "max_games": 600},
    )
    text, _result = run(path)
    assert "SPRT: H1 accepted: the candidate is stronger" in text
    assert "    SPRT games " in text  # the live line, every few pairs
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    sprt = standings["sprt"]
    assert sprt["decision"] == "H1" and sprt["llr"] >= sprt["upper"] and sprt["model"] == "logistic"
    records = ResultsFile(tmp_path / "out" / "results.jsonl").load().records
    # Complete pairs only, and few: about ten pairs typically (which games each reused
    # process plays varies with scheduling, so the count does too), far from the cap.
    assert len(records) == sprt["games"] == 2 * sprt["pairs"] < 200
    assert sum(sprt["pentanomial"]) == sprt["pairs"]
    keys = [r.pair_key for r in records]
    assert all(keys.count(k) == 2 for k in keys)  # every game has its colour-reversed twin
    # Decided: running again plays nothing and says the same.
    again, result2 = run(path)
    assert result2.played == 0 and "SPRT: H1 accepted" in again  # type: ignore[attr-defined]
    assert len(ResultsFile(tmp_path / "out" / "results.jsonl").load().records) == len(records)
    # The report rebuilds the test from the files alone.
    report = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(tmp_path / "out"), "--format", "json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["sprt"] == sprt


def test_equal_bots_with_wide_bounds_accept_h0(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [sample("new", "random_bot", 3), sample("old", "random_bot", 4)],
        # True Elo 0 is well below elo0: accepting H1 here has a chance far under alpha (at
        # elo0 itself it would be alpha), so the test decides H0 every time in practice.
        {"elo0": 100, "elo1": 400, "alpha": 0.05, "beta": 0.2, "model": "logistic", "max_games": 400},
        size=2,
    )
    text, _ = run(path)
    assert "SPRT: H0 accepted: the candidate is not stronger by 400 Elo or more" in text, text[-2000:]
    sprt = json.loads((tmp_path / "out" / "standings.json").read_text())["sprt"]
    assert sprt["decision"] == "H0" and sprt["llr"] <= sprt["lower"]


def test_match_runs_the_same_test_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "m"
    command = [
        sys.executable, "-m", "referee.cli", "match",
        f"{sys.executable} -m sample_bots.greedy_bot --seed 5",
        f"{sys.executable} -m sample_bots.random_bot --seed 6",
        "--size", "3", "--per-move", "0.2", "--concurrency", "2", "--out", str(out),
        "--sprt", "elo0=0,elo1=150", "--model", "logistic",
        "--alpha", "0.1", "--beta", "0.1", "--max-games", "200",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "SPRT: H1 accepted" in done.stdout
    sprt = json.loads((out / "standings.json").read_text())["sprt"]
    assert sprt["decision"] == "H1" and sprt["alpha"] == 0.1 and sprt["model"] == "logistic"
    bad = subprocess.run([*command[:6], "--sprt", "elo0=5,elo1=1"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "E0 < E1" in bad.stderr
