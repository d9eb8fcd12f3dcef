"""The key table of configs/README.md is the one the declarations in
referee/tournament/config/keys.py render, and the declarations are what validation does:
each default is valid and gives the value a config without the key gets.

After a deliberate change: ``python -m referee.tournament.config.keys configs/README.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from referee.engine import MAX_SIZE, MIN_SIZE
from referee.tournament.config import keys
from referee.tournament.config.checks import MAX_NAME_LENGTH
from referee.tournament.config.loading import MAX_YAML_DEPTH, MAX_YAML_NODES, parse_config
from referee.tournament.config.validation import MAX_SCHEDULE_GAMES
from referee.tournament.config.values import EloSpec, ExecutorSpec, LogSpec

README = Path(__file__).resolve().parent.parent / "configs" / "README.md"
PY = sys.executable


def test_the_readme_key_table_is_the_declared_one() -> None:
    text = README.read_text(encoding="utf-8")
    assert keys.with_table(text) == text, (
        "configs/README.md's key table differs from the declarations; rewrite it with "
        "`python -m referee.tournament.config.keys configs/README.md`. The table:\n" + keys.table()
    )


def test_the_readme_limits_are_the_code_s() -> None:
    text = README.read_text(encoding="utf-8")
    limits = text[text.index("### Limits") :]
    limits = limits[: limits.index("\n\n", limits.index("| what |"))]
    for shown in (
        f"| {MAX_YAML_NODES:,} |",
        f"| {MAX_YAML_DEPTH} levels |",
        f"| {MAX_NAME_LENGTH} characters |",
        f"| {MAX_SCHEDULE_GAMES:,} |",
        f"| {keys.MAX_RANDOM_OPENINGS:,} |",
    ):
        assert shown in limits


def test_the_board_size_limits_are_the_engine_s() -> None:
    assert f"integer {MIN_SIZE}..{MAX_SIZE}" in keys.BOARD_SIZE.check.text


def all_keys(key: keys.Key[Any] = keys.TOP) -> list[keys.Key[Any]]:
    return [key, *(k for sub in key.keys for k in all_keys(sub))]


@pytest.mark.parametrize("key", all_keys()[1:], ids=lambda k: k.name)
def test_every_key_says_what_it_takes_and_its_default(key: keys.Key[Any]) -> None:
    assert key.check.text
    assert isinstance(keys.default_text(key), str)
    assert key.default is keys.NO_DEFAULT or key.required is None, "a required key has no default"


def test_an_empty_section_means_the_values_defaults(tmp_path: Path) -> None:
    # The table's defaults, read by the keys' own checks, give the dataclasses' defaults.
    bots = [{"name": "a", "command": [PY]}, {"name": "b", "command": [PY]}]
    config = parse_config(
        {"time_control": {"per_move": 1}, "bots": bots, "logs": {}, "elo": {}},
        file="x.yaml",
        base_dir=tmp_path,
    )
    assert (config.logs, config.elo, config.executor, config.affinity) == (
        LogSpec(),
        EloSpec(),
        ExecutorSpec(),
        None,
    )
    assert config.board_size == 7 and config.time_control.margin == 0.2
