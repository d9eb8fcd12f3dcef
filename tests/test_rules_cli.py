"""``vastuz rules``: the helper served by the CLI, and ``--vectors`` running an
implementation against the conformance vectors (a correct one agrees on all 300; a wrong
one is told each mismatch)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "data" / "engine-vectors.jsonl"
WRONG = ROOT / "tests" / "fake_bots" / "wrong_rules.py"


def vastuz(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "rules", *args],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip


def test_vastuz_rules_serves_the_helper() -> None:
    done = vastuz(stdin="1 boardsize 5\n2 set_position b b3,c3 b1,a2\n3 legal_turns 1\n4 quit\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "=1\n\n=2\n\n=3 a1,b1>b1,a2>c1\n\n=4\n\n"


def test_the_helper_agrees_with_every_vector() -> None:
    done = vastuz("--vectors", str(VECTORS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "300 of 300 positions agree; 0 mismatch(es)"
    assert "FAIL" not in done.stdout


def test_a_wrong_implementation_is_told_each_mismatch(tmp_path: Path) -> None:
    few = tmp_path / "few.jsonl"
    few.write_text(
        "".join(VECTORS.read_text(encoding="utf-8").splitlines(keepends=True)[:10]), encoding="utf-8"
    )
    done = vastuz("--vectors", str(few), shlex.join([sys.executable, str(WRONG)]))
    assert done.returncode == 1, done.stdout + done.stderr
    fails = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert any("legal_turns after 'set_position" in f and "missing " in f for f in fails), fails
    assert any("answered '=', expected '?'" in f and "missing_steal" in f for f in fails), fails
    assert done.stdout.splitlines()[-1].startswith("0 of 10 positions agree")


def test_a_program_that_is_not_a_rules_implementation_is_refused() -> None:
    bot = shlex.join([sys.executable, "-m", "sample_bots.random_bot"])
    done = vastuz("--vectors", str(VECTORS), bot)
    assert done.returncode == 1
    assert "does not list set_position, legal_turns, is_over" in done.stderr
    assert vastuz("./mybot").returncode == 2  # a COMMAND without --vectors
