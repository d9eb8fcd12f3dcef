"""A tournament's output folder: its files, the manifest that guards resumes, standings.

``OUTPUT/results.jsonl`` holds the records (:mod:`referee.tournament.results`);
``OUTPUT/tournament.json`` the config's fingerprint, so that a resume that would mix
incompatible games (other commands, board size, clock, openings) is refused;
``standings.md``/``standings.json`` are rewritten atomically. :func:`load_standings`
rebuilds the standings from these files alone (``vastuz report``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from referee.errors import ResultsError
from referee.play.records import GameRecord
from referee.ratings.report import Standings, render, standings
from referee.tournament.config import TournamentConfig
from referee.tournament.results import ResultsFile

RESULTS = "results.jsonl"
MANIFEST = "tournament.json"
LOGS = "logs"
MANIFEST_FORMAT = 1


def shown(path: Path) -> str:
    """``path`` as the user would write it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Human-readable paths where two fingerprints differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in old:
                out.append(f"{sub}: added")
            elif key not in new:
                out.append(f"{sub}: removed")
            else:
                out.extend(_differences(old[key], new[key], sub))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            out.extend(_differences(a, b, f"{path}[{i}]"))
        return out
    if old != new:
        return [f"{path}: was {json.dumps(old)}, now {json.dumps(new)}"]
    return []


def check_manifest(config: TournamentConfig, folder: Path) -> dict[str, Any]:
    """Create ``tournament.json`` or check that this config may add to the folder's results."""
    path = folder / MANIFEST
    fingerprint = config.fingerprint()
    if path.exists():
        try:
            manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            old = manifest["fingerprint"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ResultsError(f"{path}: not a tournament manifest ({exc})") from None
        diffs = _differences(old, json.loads(json.dumps(fingerprint)))
        if diffs:
            shown = "\n  ".join(diffs[:12]) + ("\n  ..." if len(diffs) > 12 else "")
            raise ResultsError(
                f"{folder} holds results of a different tournament; the games would not be comparable:\n  "
                f"{shown}\nUse another output folder (the `output` key), or restore the config."
            )
        manifest.update(_manifest_view(config))
    else:
        manifest = {
            "format": MANIFEST_FORMAT,
            "created": _now(),
            "fingerprint": fingerprint,
            **_manifest_view(config),
        }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return manifest


def _manifest_view(config: TournamentConfig) -> dict[str, Any]:
    """What ``vastuz report`` needs besides the results (may change between resumes)."""
    return {
        "name": config.name,
        "config": str(config.source),
        "bots": list(config.bot_names),
        "elo": {"anchor": config.elo.anchor, "anchor_rating": config.elo.anchor_rating},
    }


def latest_records(records: Iterable[GameRecord]) -> list[GameRecord]:
    """One record per schedule slot: the first non-void one, else the last void one.

    A void game (the referee could not run it) is retried on resume; its record stays in
    the file as history but does not hide the replay.
    """
    best: dict[str, GameRecord] = {}
    for r in records:
        slot = r.slot
        if slot not in best or best[slot].is_void:
            best[slot] = r
    return list(best.values())


def write_standings(folder: Path, st: Standings, title: str) -> None:
    """``standings.md`` and ``standings.json``, each replaced atomically."""
    for name, text in (
        ("standings.md", render(st, "markdown", title=title)),
        ("standings.json", render(st, "json")),
    ):
        tmp = folder / (name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, folder / name)


def load_standings(folder: Path, *, bootstrap: int = 1000) -> tuple[Standings, str]:
    """Standings of a results folder from its files alone (``vastuz report``): a
    tournament folder (``results.jsonl`` + ``tournament.json``) or a match (``games.jsonl``)."""
    folder = Path(folder)
    manifest_path = folder / MANIFEST
    bots: list[str] | None = None
    anchor = None
    anchor_rating = 0.0
    title = folder.name
    if manifest_path.exists():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            bots = list(manifest["bots"])
            anchor = manifest.get("elo", {}).get("anchor")
            anchor_rating = float(manifest.get("elo", {}).get("anchor_rating") or 0.0)
            title = f"{manifest.get('name', title)}: standings"
        except (ValueError, KeyError, TypeError) as exc:
            raise ResultsError(f"{manifest_path}: not a tournament manifest ({exc})") from None
    for name in (RESULTS, "games.jsonl"):
        path = folder / name
        if path.exists():
            break
    else:
        if not folder.is_dir():
            raise ResultsError(f"{folder}: no such folder")
        raise ResultsError(f"{folder}: no results here (expected {RESULTS} or games.jsonl)")
    records = latest_records(ResultsFile(path).load().records)
    st = standings(records, bots, anchor=anchor, anchor_rating=anchor_rating, bootstrap=bootstrap)
    return st, title
