"""The code base passes ruff's lint rules and is ruff-formatted (configured in
pyproject.toml: line length 110; pyflakes, pycodestyle, bugbear, pyupgrade, simplify,
import order, ruff's own rules). Run ``ruff format .`` and ``ruff check --fix .`` to fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ruff", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_lint_finds_nothing() -> None:
    proc = ruff("check", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_changes_nothing() -> None:
    proc = ruff("format", "--check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr
