"""The starter bots (sample_bots/perl, rust, java): a legal bot in a few dozen lines on the
rules helper (protocol/rules.py), for real.

Each is run the way its author would run it: Perl by ``perl``, Rust compiled by ``rustc``
(std only, no crates), Java compiled by ``javac`` and run by ``java``, each given the
helper's command (``python -m protocol.rules`` with the referee's own Python). A test is
skipped, saying why, only when that language's tool is missing (``.ci/run`` installs them).
For each bot: ``vastuz check`` passes with no FAIL and no WARN (the CLI, as a subprocess),
and all of them play a real ``vastuz tournament`` against the random sample bot in which
every game ends on the board (no illegal turn, crash, time or protocol loss).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "sample_bots"
HELPER = [sys.executable, "-m", "protocol.rules"]
LANGUAGES = ("perl", "rust", "java")
MAX_LINES = {"perl": 40, "rust": 45, "java": 55}
"""Each starter's length, comments and blank lines included (what the docs quote)."""


def build(language: str, out: Path) -> list[str]:
    """The starter's command (skipped when its tool is missing); compiled into ``out``."""
    if language == "perl":
        perl = shutil.which("perl")
        if perl is None:
            pytest.skip("perl is not on PATH (apt-get install perl)")
        return [perl, str(BOTS / "perl" / "starter.pl")]
    if language == "rust":
        rustc = shutil.which("rustc")
        if rustc is None:
            pytest.skip("rustc is not on PATH (apt-get install rustc)")
        done = subprocess.run(
            [rustc, "-O", "-o", str(out / "starter"), str(BOTS / "rust" / "starter.rs")],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
        return [str(out / "starter")]
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("javac/java are not on PATH (apt-get install default-jdk-headless)")
    done = subprocess.run(
        [javac, "-Xlint:all", "-d", str(out), str(BOTS / "java" / "Starter.java")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    return [java, "-cp", str(out), "Starter"]


@pytest.fixture(scope="module")
def starters(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str] | str]:
    """Each language's bot command with the helper's, or the reason it cannot run."""
    out: dict[str, list[str] | str] = {}
    for language in LANGUAGES:
        try:
            out[language] = [*build(language, tmp_path_factory.mktemp(language)), *HELPER]
        except pytest.skip.Exception as skipped:
            out[language] = str(skipped)
    return out


def command(starters: dict[str, list[str] | str], language: str) -> list[str]:
    found = starters[language]
    if isinstance(found, str):
        pytest.skip(found)
    return found


def vastuz(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, timeout=600, cwd=ROOT
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_starter_is_short(language: str) -> None:
    source = next((BOTS / language).glob("[sS]tarter.*"))
    assert len(source.read_text(encoding="utf-8").splitlines()) <= MAX_LINES[language]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_starter_passes_vastuz_check(starters: dict[str, list[str] | str], language: str) -> None:
    argv = command(starters, language)
    done = vastuz("check", shlex.join(argv), "--size", "3", "--size", "2", "--size", "13", "--per-move", "1")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "FAIL" not in out and "WARN" not in out, out
    assert "11 checks: 11 passed" in out, out


def test_the_starters_play_a_tournament(starters: dict[str, list[str] | str], tmp_path: Path) -> None:
    bots = {language: found for language, found in starters.items() if not isinstance(found, str)}
    if not bots:
        pytest.skip("no starter bot can run here: " + "; ".join(str(s) for s in starters.values()))
    entries = [{"name": "random", "command": shlex.join([sys.executable, "-m", "sample_bots.random_bot"])}]
    entries += [{"name": language, "command": shlex.join(argv)} for language, argv in bots.items()]
    config = {
        "name": "starters",
        "board_size": 4,
        "opening": "pie",
        "time_control": {"per_move": 1.0},
        "schedule": {"kind": "round_robin", "games_per_pair": 2},
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "bots": [{**entry, "cwd": str(ROOT)} for entry in entries],
    }
    path = tmp_path / "starters.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    done = vastuz("tournament", str(path), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    pairs = len(entries) * (len(entries) - 1) // 2
    assert len(records) == 2 * pairs
    for record in records:
        assert record["termination"] == "score", record
        assert {bot["label"] for bot in record["bots"]} <= {e["name"] for e in entries}
        assert all(
            bot["final_score"] == record["result"] for bot in record["bots"]
        )  # each counted as the engine
