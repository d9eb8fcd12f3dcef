"""``vastuz sprt``: the test from typed-in counts prints what a real run with those games
printed; bad counts are a usage error (exit 2)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from referee.cli.main import main
from referee.ratings.sprt import Model, Sprt, llr_games

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def test_the_offline_sprt_prints_the_runs_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "name": "sprt",
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "schedule": {"kind": "sprt", "elo0": -20, "elo1": 20, "alpha": 0.1, "beta": 0.2, "max_games": 16},
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "bots": [
            {
                "name": f"r{seed}",
                "command": [sys.executable, str(FAKEBOT), "--seed", str(seed)],
                "cwd": str(ROOT),
            }
            for seed in (1, 2)
        ],
    }
    path = tmp_path / "sprt.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    run_lines = [line for line in proc.stdout.splitlines() if line.startswith("SPRT: ")]
    assert len(run_lines) == 2
    sprt = json.loads((tmp_path / "out" / "standings.json").read_text())["sprt"]
    wdl = re.search(r"W-D-L (\d+)-(\d+)-(\d+)", run_lines[0])
    assert wdl is not None
    penta = ",".join(str(c) for c in sprt["pentanomial"])
    args = ["sprt", "--penta", penta, "--wdl", ",".join(wdl.groups())]
    args += ["--elo0", "-20", "--elo1", "20", "--alpha", "0.1", "--beta", "0.2", "--max-games", "16"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == run_lines
    # Without the W-D-L the pentanomial test is the same; only the W-D-L is unknown.
    assert (
        main(["sprt", "--penta", penta, "--elo0", "-20", "--elo1", "20", "--alpha", "0.1", "--beta", "0.2"])
        == 0
    )
    offline = capsys.readouterr().out.splitlines()
    assert offline[0] == re.sub(r"W-D-L \d+-\d+-\d+", "W-D-L ?", run_lines[0])


def test_the_wdl_test_is_the_same_test_on_single_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "--wdl", "60,20,40", "--elo0", "0", "--elo1", "10", "--model", "logistic"]) == 0
    lines = capsys.readouterr().out.splitlines()
    value = llr_games((60, 20, 40), 0, 10, Model.LOGISTIC)
    assert lines[0].startswith("SPRT: games 120 (single games, no pairs), W-D-L 60-20-40; Elo +58.5 ")
    assert f"LLR {value:.2f} " in lines[0]
    # An independent check: the normal approximation of the logistic LLR on games,
    # N (s1 - s0) (2 s - s0 - s1) / (2 var), is close for small Elo.
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    mean = (60 + 10) / 120
    var = (60 * (1 - mean) ** 2 + 20 * (0.5 - mean) ** 2 + 40 * mean**2) / 120
    assert value == pytest.approx(120 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), rel=0.05)
    assert llr_games((60, 20, 40), 0, 10) > 0 > llr_games((40, 20, 60), 0, 10)
    status = Sprt(0, 10, model=Model.LOGISTIC).status_of_games((60, 20, 40))
    assert status.decision is None and lines[1] == f"SPRT: {status.words()}"
    decided = Sprt(0, 10, model=Model.LOGISTIC).status_of_games((600, 200, 400))
    assert decided.decision is not None and decided.decision.value == "H1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--elo0", "0", "--elo1", "5"], "give --penta"),
        (["--penta", "1,2,3", "--elo0", "0", "--elo1", "5"], "expected 5 counts"),
        (["--wdl", "1,-2,3", "--elo0", "0", "--elo1", "5"], "expected 3 counts"),
        (
            ["--penta", "1,1,1,1,1", "--wdl", "1,1,1", "--elo0", "0", "--elo1", "5"],
            "5 pairs, which are 10 games",
        ),
        (["--penta", "1,1,1,1,1", "--elo0", "5", "--elo1", "0"], "elo0 must be below elo1"),
        (["--penta", "1,1,1,1,1", "--elo0", "0", "--elo1", "5", "--alpha", "2"], "between 0 and 1"),
        (["--penta", "1,1,1,1,1", "--elo0", "0", "--elo1", "5", "--max-games", "7"], "even number"),
    ],
)
def test_bad_counts_are_a_usage_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["sprt", *args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err
