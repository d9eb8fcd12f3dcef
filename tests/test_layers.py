"""The one-way rule of referee/__init__.py, enforced.

Two views of it: every ``import`` statement in the code base (also the ones inside
functions) points down the layer order, and importing each layer in a fresh interpreter
loads nothing it must not (trio, yaml, tabulate, or a layer above it).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. ``referee.errors`` and ``referee.text`` are beside the layers: anyone may import them.
LAYERS = [
    "referee.engine",
    "protocol",
    "referee.play",
    "referee.ratings",
    "referee.render",
    "referee.tournament",
    "referee.ladder",
    "referee.tools",
    "referee.serve",
    "referee.cli",
]


def layer_of(module: str) -> int | None:
    for rank, prefix in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return out


SOURCES = sorted(p for d in ("referee", "protocol") for p in (ROOT / d).rglob("*.py"))


def test_every_import_points_down_the_layers() -> None:
    wrong = []
    for path in SOURCES:
        me = module_name(path)
        if me in ("referee", "referee.errors", "referee.text"):  # beside the layers: import nothing of ours
            assert not [n for _, n in imported(path) if layer_of(n) is not None], me
            continue
        mine = layer_of(me)
        assert mine is not None, f"{me} is in no layer: add it to LAYERS and referee/__init__.py"
        for line, name in imported(path):
            theirs = layer_of(name)
            if theirs is not None and theirs > mine:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {me} imports {name}")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_relative_imports_are_not_used() -> None:
    """Absolute imports only, so the check above sees every edge."""
    relative = [
        f"{p.relative_to(ROOT)}:{n.lineno}"
        for p in SOURCES
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(n, ast.ImportFrom) and n.level and "engine" not in p.parts
    ]
    assert not relative, relative


# Inside referee.tournament, lowest first: each package imports only from packages before it
# (and from itself). So plans and store import no executor, and no executor imports a plan;
# the runner and the run's words sit on top of them all.
TOURNAMENT = [
    ("referee.tournament.slots",),
    ("referee.tournament.plans",),
    ("referee.tournament.config",),
    ("referee.tournament.store",),
    ("referee.tournament.executors",),
    ("referee.tournament.progress", "referee.tournament.runner"),
]
# What each package may not import although it is lower in the order: the store and the
# executors are each other's strangers.
STRANGERS = {"referee.tournament.executors": ["referee.tournament.plans", "referee.tournament.store"]}


def tournament_rank(module: str) -> int | None:
    for rank, prefixes in enumerate(TOURNAMENT):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def test_the_tournament_packages_import_down_their_own_order() -> None:
    wrong = []
    for path in SOURCES:
        me = module_name(path)
        if not me.startswith("referee.tournament."):
            continue
        mine = tournament_rank(me)
        assert mine is not None, f"{me} is in no tournament package: add it to TOURNAMENT"
        strangers = next((v for k, v in STRANGERS.items() if me.startswith(k + ".")), [])
        for line, name in imported(path):
            theirs = tournament_rank(name)
            if theirs is None:
                continue
            if theirs > mine or any(name == s or name.startswith(s + ".") for s in strangers):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {me} imports {name}")
    assert not wrong, "imports against the tournament packages' order:\n" + "\n".join(wrong)


def loaded_by(module: str) -> set[str]:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out))


def top(names: set[str], prefix: str) -> set[str]:
    return {n for n in names if n == prefix or n.startswith(prefix + ".")}


# (what is imported, what must not be loaded by it)
FORBIDDEN = [
    ("referee.engine", ["trio", "yaml", "tabulate", "protocol", "referee.play"]),
    ("protocol", ["referee", "trio", "yaml"]),
    ("protocol.framing", ["referee", "trio", "yaml"]),
    ("protocol.messages", ["referee", "trio", "yaml"]),
    ("protocol.bot", ["trio", "yaml", "tabulate", "referee.play"]),
    ("referee.play.game", ["yaml", "tabulate", "referee.tournament", "referee.ratings", "referee.tools"]),
    ("referee.play.memory", ["yaml", "tabulate", "referee.tournament", "referee.ratings", "referee.tools"]),
    ("referee.play.process", ["yaml", "tabulate", "referee.tournament", "referee.ratings"]),
    ("referee.play.command", ["trio", "referee.play.process", "referee.play.pipes"]),
    ("referee.play.records", ["trio", "yaml", "tabulate", "protocol"]),
    ("referee.ratings.elo", ["trio", "yaml", "tabulate", "protocol", "referee.tournament"]),
    (
        "referee.ratings.report",
        ["trio", "yaml", "tabulate", "protocol", "referee.tournament", "referee.play.game", "referee.render"],
    ),
    ("referee.tournament.config.values", ["yaml", "trio", "tabulate"]),
    ("referee.tournament.plans.kinds", ["yaml", "trio", "referee.tournament.config"]),
    ("referee.tournament.store.folder", ["trio", "referee.tournament.executors"]),
    ("referee.tournament.runner", ["referee.tools", "referee.cli", "dask", "distributed"]),
    ("referee.cli.main", ["dask", "distributed", "hypercorn", "starlette", "referee.serve"]),
    ("referee.serve.live", ["hypercorn", "starlette", "yaml", "referee.cli"]),
    ("referee.tools.check", ["referee.cli", "yaml"]),
]


@pytest.mark.parametrize(("module", "forbidden"), FORBIDDEN, ids=[m for m, _ in FORBIDDEN])
def test_a_layer_loads_nothing_above_it(module: str, forbidden: list[str]) -> None:
    names = loaded_by(module)
    assert module in names
    leaked = {f: sorted(top(names, f))[:5] for f in forbidden if top(names, f)}
    assert not leaked, f"importing {module} loads {leaked}"
