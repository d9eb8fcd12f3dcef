"""``OUTPUT/tournament.json``: what a folder's games are, so a resume that would mix
incompatible games (other commands, board size, clock, openings) is refused.

The fingerprint (:meth:`~referee.tournament.config.values.TournamentConfig.fingerprint`)
is written once, when the folder's first run starts, and compared on every resume; the rest
(name, config file, bots in order, the rating anchor) is what ``vastuz report`` needs
besides the results, and follows the latest run.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.errors import ResultsError
from referee.tournament.config.values import TournamentConfig
from referee.tournament.store.files import (
    MANIFEST,
    OLD_MATCH_MANIFEST,
    OLD_MATCH_RESULTS,
    RESULTS,
    atomic_write,
    read_own_text,
    shown,
)
from referee.tournament.store.results import ResultsFile

FORMAT = 1


@dataclass(frozen=True)
class Manifest:
    fingerprint: dict[str, Any]
    name: str
    config: str
    bots: tuple[str, ...]
    anchor: str | None = None
    anchor_rating: float = 0.0
    created: str = ""
    format: int = FORMAT
    names: tuple[str, ...] = ()
    """Every name the folder's runs have had (records carry the name they were played under)."""
    schedule: dict[str, Any] | None = None
    """The schedule's fingerprint and its extent (rounds, a match's games): every slot."""

    @classmethod
    def of(cls, config: TournamentConfig) -> Manifest:
        return cls(
            # Through JSON, so it compares equal to one read back (tuples become lists).
            fingerprint=json.loads(json.dumps(config.fingerprint())),
            name=config.name,
            config=str(config.source),
            bots=config.bot_names,
            anchor=config.elo.anchor,
            anchor_rating=config.elo.anchor_rating,
            created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            names=(config.name,),
            schedule=json.loads(json.dumps({**config.schedule.fingerprint(), **config.schedule.extent()})),
        )

    @classmethod
    def load(cls, folder: Path) -> Manifest | None:
        """The folder's manifest, None if it has none; a damaged one is a ResultsError."""
        path = folder / MANIFEST
        if not path.exists():
            return None
        try:
            data = json.loads(read_own_text(path))
            elo = data.get("elo") or {}
            return cls(
                fingerprint=dict(data["fingerprint"]),
                name=str(data.get("name", folder.name)),
                config=str(data.get("config", "")),
                bots=tuple(str(b) for b in data["bots"]),
                anchor=elo.get("anchor"),
                anchor_rating=float(elo.get("anchor_rating") or 0.0),
                created=str(data.get("created", "")),
                format=int(data.get("format", FORMAT)),
                names=tuple(str(n) for n in data.get("names") or [data.get("name", folder.name)]),
                schedule=data.get("schedule"),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ResultsError(f"{path}: not a tournament manifest ({exc})") from None

    def save(self, folder: Path) -> None:
        data = {
            "format": self.format,
            "created": self.created,
            "fingerprint": self.fingerprint,
            "name": self.name,
            "config": self.config,
            "bots": list(self.bots),
            "elo": {"anchor": self.anchor, "anchor_rating": self.anchor_rating},
            "names": list(self.names),
            **({} if self.schedule is None else {"schedule": self.schedule}),
        }
        atomic_write(folder / MANIFEST, json.dumps(data, indent=2) + "\n", durable=True)


def differences(old: Any, new: Any, path: str = "") -> list[str]:
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
                out.extend(differences(old[key], new[key], sub))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            out.extend(differences(a, b, f"{path}[{i}]"))
        return out
    if old != new:
        return [f"{path}: was {json.dumps(old)}, now {json.dumps(new)}"]
    return []


def check_manifest(config: TournamentConfig, folder: Path, *, adopt: bool = False) -> Manifest:
    """Create ``tournament.json`` or check that this config may add to the folder's results.

    Results without a manifest (it was deleted, or the file was copied in) may belong to
    any tournament: they are refused unless ``adopt``, and then the runner checks every
    game against this config's plan before a game is played.
    """
    if (folder / OLD_MATCH_MANIFEST).exists() or (folder / OLD_MATCH_RESULTS).exists():
        raise ResultsError(
            f"{folder} is a match folder of an earlier version ({OLD_MATCH_RESULTS}, {OLD_MATCH_MANIFEST}): "
            "vastuz report and show still read it, but new games go into a folder of their own "
            "(another --out or output)"
        )
    new = Manifest.of(config)
    old = Manifest.load(folder)
    results = folder / RESULTS
    if old is None and not adopt and results.is_file() and results.stat().st_size > 0:
        raise ResultsError(
            f"{folder} holds results but no {MANIFEST} (deleted?), so nothing shows they come from this "
            "config; mixing them in could rate games that are not comparable. Use another output folder, "
            "restore the manifest, or run with --adopt to take them as this config's (every game is then "
            "checked against its schedule)."
        )
    if old is not None:
        diffs = differences(old.fingerprint, new.fingerprint)
        fingerprint = old.fingerprint
        if diffs:
            fingerprint = _new_setup(old.fingerprint, new.fingerprint, diffs, results, folder)
        # The games' description stays the first run's (but for a new command of a bot that
        # has not played yet); what the report needs follows this one.
        names = old.names + tuple(n for n in new.names if n not in old.names)
        new = replace(new, fingerprint=fingerprint, created=old.created, format=old.format, names=names)
    new.save(folder)
    return new


_BOT_SETUP = re.compile(r"bots\[(\d+)\]\.(command|cwd|env)(\W|$)")
"""A difference in how a bot is started (not in what it is called, nor in the games)."""


def _new_setup(
    old: dict[str, Any], new: dict[str, Any], diffs: list[str], results: Path, folder: Path
) -> dict[str, Any]:
    """The fingerprint a resume with ``diffs`` against the folder's may go on with, or a
    ResultsError saying why not and how to start over.

    A bot's ``command``, ``cwd`` or ``env`` may change while that bot has no rated game:
    the usual first-day story is a bot that could not start (a missing module, a wrong
    working folder), whose games were void; fixing its command must not mean deleting the
    folder. Its name, the board, the clock, the openings and the schedule may not change,
    nor the set-up of a bot that has played: those games would not be comparable."""
    refusal = (
        f"\nTo start over, delete the folder (rm -r {shlex.quote(shown(folder))}) or play into another one "
        "(the config's `output` key, or --output DIR; vastuz match: --out DIR); or restore the config."
    )
    setup = [_BOT_SETUP.match(d) for d in diffs]
    same_bots = [b.get("name") for b in old.get("bots", [])] == [b.get("name") for b in new.get("bots", [])]
    if not same_bots or not all(setup):
        listed = "\n  ".join(diffs[:12]) + ("\n  ..." if len(diffs) > 12 else "")
        raise ResultsError(
            f"{folder} holds results of a different tournament; the games would not be comparable:\n  "
            f"{listed}{refusal}"
        )
    changed = sorted({int(m.group(1)) for m in setup if m is not None})
    names = {old["bots"][i]["name"] for i in changed}
    rated: dict[str, int] = {}
    for r in ResultsFile(results).summaries().records:
        if not r.is_void:
            for label in set(r.labels) & names:
                rated[label] = rated.get(label, 0) + 1
    if rated:
        played = ", ".join(f"{name} has {n} rated game(s)" for name, n in sorted(rated.items()))
        listed = "\n  ".join(diffs[:12]) + ("\n  ..." if len(diffs) > 12 else "")
        raise ResultsError(
            f"{folder} holds results of a different tournament: a bot's command, cwd or env changed "
            f"after it played ({played}; its games would not be comparable):\n  {listed}{refusal}"
        )
    bots = [new["bots"][i] if i in changed else bot for i, bot in enumerate(old["bots"])]
    return {**old, "bots": bots}
