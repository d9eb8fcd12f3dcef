"""A tournament's output folder: its files, the manifest that guards resumes, standings.

``OUTPUT/results.jsonl`` holds the records (:mod:`referee.tournament.store.results`);
``OUTPUT/tournament.json`` the config's fingerprint, so that a resume that would mix
incompatible games (other commands, board size, clock, openings) is refused;
``standings.md``/``standings.json`` are rewritten atomically. :func:`load_standings`
rebuilds the standings from these files alone (``vastuz report``). A match's folder
(``vastuz match --out``) holds ``games.jsonl`` and ``match.json``, the match's fingerprint,
checked the same way by :func:`check_match_manifest`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from referee.errors import ResultsError
from referee.play.records import GameSummary
from referee.play.spec import OpeningKind
from referee.ratings.report import Standings, render, standings
from referee.ratings.sprt import Model, Sprt
from referee.tournament.config.values import TournamentConfig
from referee.tournament.plans.fixed import ScheduledGame
from referee.tournament.plans.sprt import SprtPlan, SprtSchedule
from referee.tournament.store.duplicates import repeat_warning
from referee.tournament.store.results import ResultsFile


class _Slotted(Protocol):
    @property
    def slot(self) -> str: ...

    @property
    def is_void(self) -> bool: ...


G = TypeVar("G", bound=_Slotted)

RESULTS = "results.jsonl"
MANIFEST = "tournament.json"
MATCH_RESULTS = "games.jsonl"
MATCH_MANIFEST = "match.json"
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


def check_manifest(config: TournamentConfig, folder: Path, *, adopt: bool = False) -> dict[str, Any]:
    """Create ``tournament.json`` or check that this config may add to the folder's results.

    Results without a manifest (it was deleted, or the file was copied in) may belong to
    any tournament: they are refused unless ``adopt``, and then the runner checks every
    game against this config's schedule (:func:`check_adopted`) before a game is played.
    """
    path = folder / MANIFEST
    fingerprint = config.fingerprint()
    results = folder / RESULTS
    if not path.exists() and not adopt and results.is_file() and results.stat().st_size > 0:
        raise ResultsError(
            f"{folder} holds results but no {MANIFEST} (deleted?), so nothing shows they come from this "
            "config; mixing them in could rate games that are not comparable. Use another output folder, "
            "restore the manifest, or run with --adopt to take them as this config's (every game is then "
            "checked against its schedule)."
        )
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


def latest_records(records: Iterable[G], warnings: list[str] | None = None) -> list[G]:
    """One record per schedule slot: the first non-void one, else the last void one.

    A void game (the referee could not run it) is retried on resume; its record stays in
    the file as history but does not hide the replay. A second record *with a result* for
    a slot is not something one run writes (two runs appended to one file, or a file
    pasted together): it is dropped, and when ``warnings`` is given a line saying which
    ids and how many records is appended to it, so no record goes unrated unannounced.
    Records or their summaries: anything with a ``slot`` and ``is_void``.
    """
    best: dict[str, G] = {}
    dropped: dict[str, int] = {}
    for r in records:
        slot = r.slot
        kept = best.get(slot)
        if kept is None or kept.is_void:
            best[slot] = r
        elif not r.is_void:
            dropped[slot] = dropped.get(slot, 0) + 1
    if dropped and warnings is not None:
        warnings.append(duplicate_ids_warning(dropped))
    return list(best.values())


def duplicate_ids_warning(dropped: dict[str, int], *, shown: int = 5) -> str:
    """The warning for records dropped because their game id was already rated."""
    total = sum(dropped.values())
    ids = ", ".join(f"{slot} (x{n + 1})" for slot, n in list(dropped.items())[:shown])
    more = f" and {len(dropped) - shown} more" if len(dropped) > shown else ""
    return (
        f"{total} record{'s' if total != 1 else ''} not rated: {len(dropped)} game id"
        f"{'s are' if len(dropped) != 1 else ' is'} recorded more than once with a result ({ids}{more}); "
        "only the first record of each id is rated. Two runs wrote to one results file: "
        "keep each run in its own folder."
    )


def check_adopted(records: Iterable[GameSummary], schedule: Iterable[ScheduledGame], folder: Path) -> None:
    """Adopted results must fit the schedule: every game's slot is one of its slots, played
    by the bots the slot names in the seats it names. Otherwise they are refused."""
    seats = {game.slot: (game.first, game.second) for game in schedule}
    wrong = [
        f"{r.slot} ({r.labels[0]} vs {r.labels[1]})" for r in records if seats.get(r.slot) != tuple(r.labels)
    ]
    if wrong:
        listed = ", ".join(wrong[:5]) + (f" and {len(wrong) - 5} more" if len(wrong) > 5 else "")
        raise ResultsError(
            f"{folder}: cannot adopt these results: {len(wrong)} game(s) are not in this config's schedule "
            f"with those bots: {listed}. Use another output folder."
        )


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
    tournament folder (``results.jsonl`` + ``tournament.json``) or a match (``games.jsonl``,
    with ``match.json`` since matches have one). Every record that is not rated is named
    in the standings' warnings, and so are games that repeat an earlier game move for move."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ResultsError(
            f"{folder}: not a folder; expected a tournament's output folder (holding {RESULTS}) "
            f"or a match's (holding {MATCH_RESULTS})"
            + (f": try {shown(folder.parent)}" if folder.name in (RESULTS, MATCH_RESULTS) else "")
        )
    manifest_path = folder / MANIFEST
    bots: list[str] | None = None
    sprt: dict[str, Any] | None = None
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
            sprt = manifest["fingerprint"]["schedule"].get("sprt")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ResultsError(f"{manifest_path}: not a tournament manifest ({exc})") from None
    elif (folder / MATCH_MANIFEST).exists():
        title = f"match {folder.name}: A vs B"
        bots = ["A", "B"]
    for name in (RESULTS, MATCH_RESULTS):
        path = folder / name
        if path.exists():
            break
    else:
        if not folder.exists():
            raise ResultsError(f"{folder}: no such folder")
        raise ResultsError(f"{folder}: no results here (expected {RESULTS} or {MATCH_RESULTS})")
    warnings: list[str] = []
    records = latest_records(ResultsFile(path).summaries().records, warnings)
    st = standings(records, bots, anchor=anchor, anchor_rating=anchor_rating, bootstrap=bootstrap)
    repeats = repeat_warning(records)
    if repeats is not None:
        warnings.append(repeats)
    st.warnings.extend(warnings)
    if sprt is not None and bots is not None:
        _add_sprt(st, sprt, bots, records, manifest_path)
    return st, title


def _add_sprt(
    st: Standings, sprt: dict[str, Any], bots: list[str], records: list[GameSummary], manifest: Path
) -> None:
    """The test of an SPRT run, rebuilt from its manifest and its recorded games."""
    try:
        test = Sprt(sprt["elo0"], sprt["elo1"], sprt["alpha"], sprt["beta"], Model(sprt["model"]))
        plan = SprtPlan(test, bots[0], bots[1], OpeningKind.PIE, max_games=int(sprt["max_games"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsError(f"{manifest}: not a tournament manifest (its SPRT: {exc})") from None
    schedule = SprtSchedule(plan, [r for r in records if not r.is_void])
    status = schedule.status()
    st.sprt = status.to_json()
    st.sprt_words = status.words(capped=schedule.capped)


# ------------------------------------------------------------------------------ matches


def check_match_manifest(fingerprint: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Create ``match.json`` or check that a match with this ``fingerprint`` may add to the
    folder's games (a resume of the same match). Refuses a folder of another match, a
    tournament's folder, and a ``games.jsonl`` that no manifest vouches for."""
    path = folder / MATCH_MANIFEST
    fingerprint = json.loads(json.dumps(fingerprint))
    if (folder / MANIFEST).exists():
        raise ResultsError(
            f"{folder} holds a tournament's results ({MANIFEST}); a match needs a folder of its own (--out)"
        )
    if path.exists():
        try:
            manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            old = manifest["fingerprint"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ResultsError(f"{path}: not a match manifest ({exc})") from None
        diffs = _differences(old, fingerprint)
        if diffs:
            listed = "\n  ".join(diffs[:12]) + ("\n  ..." if len(diffs) > 12 else "")
            raise ResultsError(
                f"{folder} holds games of a different match; they would not be comparable:\n  {listed}\n"
                "Use another output folder (--out), or repeat the earlier match's options to resume it."
            )
        return manifest
    if (folder / MATCH_RESULTS).exists() and (folder / MATCH_RESULTS).stat().st_size:
        raise ResultsError(
            f"{folder} already holds {MATCH_RESULTS} but no {MATCH_MANIFEST} saying which match played it, "
            "so a resume could mix different games; use another output folder (--out)"
        )
    manifest = {"format": MANIFEST_FORMAT, "created": _now(), "fingerprint": fingerprint}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return manifest
