"""``standings.json``: the standings of a run as one JSON object (schema 2, docs/records.md).

Pure: a :class:`~referee.ratings.report.Standings` in, JSON out. The format is a contract
with whatever reads the files (scripts, dashboards), so every value is written the same way
for the same standings: finite numbers rounded as documented, ``null`` for an infinite or
absent one, with ``elo_bound`` saying which way a bound goes.
"""

from __future__ import annotations

import json
import math
from typing import Any

from referee.ratings.elo import Pentanomial
from referee.ratings.report import BotLine, Standings, groups

SCHEMA = 2
"""The ``schema`` number of ``standings.json`` (docs/records.md, "standings.json")."""


def _finite(x: float | None) -> float | None:
    return round(x, 2) if x is not None and math.isfinite(x) else None


def line_json(line: BotLine) -> dict[str, Any]:
    """One leaderboard line as a ``"bots"`` entry (also the columns of the CSV)."""
    gap = line.gap_next
    return {
        "rank": line.rank,
        "group": line.group,
        "name": line.name,
        "elo": _finite(line.elo),
        "elo_error": _finite(line.elo_error),
        "elo_low": _finite(line.elo_low),
        "elo_high": _finite(line.elo_high),
        "elo_bound": line.elo_bound,
        "games": line.games,
        "wins": line.wins,
        "draws": line.draws,
        "losses": line.losses,
        "score": line.score,
        "score_percent": round(line.score_percent, 2),
        "los_next": None if line.los_next is None else round(line.los_next, 4),
        "gap_next": None
        if gap is None
        else {"elo": _finite(gap.elo), "elo_low": _finite(gap.low), "elo_high": _finite(gap.high)},
        "failures": {kind.value: n for kind, n in line.failures.items()},
    }


def _pair_json(p: Pentanomial) -> dict[str, Any]:
    return {
        "a": p.a,
        "b": p.b,
        "pairs": p.pairs,
        "counts": list(p.counts),
        "elo": _finite(p.elo),
        "elo_low": _finite(p.low),
        "elo_high": _finite(p.high),
        "elo_bound": "lower" if p.elo == math.inf else "upper" if p.elo == -math.inf else None,
        "los": round(p.los, 4),
    }


def standings_json(st: Standings) -> dict[str, Any]:
    """The ``standings.json`` object (schema 2, docs/records.md)."""
    return {
        "schema": SCHEMA,
        "games": st.games,
        "rated": st.games - st.void,
        "void": st.void,
        "anchor": st.anchor,
        "confidence": st.confidence,
        "groups": groups(st),
        "bots": [_with_fields(line_json(line), st) for line in st.lines],
        "pairs": [_pair_json(p) for p in st.pairs],
        "warnings": list(st.warnings),
        "overhead_us": {name: round(us, 1) for name, (us, _) in sorted(st.overhead.items())},
        "referee_lateness": st.lateness.to_json(),
        **({} if st.sprt is None else {"sprt": st.sprt.status.to_json()}),
        **({} if not st.sections else {"sections": {section.key: section.data for section in st.sections}}),
    }


def _with_fields(entry: dict[str, Any], st: Standings) -> dict[str, Any]:
    """A bot's entry with its fields from the schedule kind's sections (``buchholz``, ...)."""
    for section in st.sections:
        entry.update(section.bot_fields.get(entry["name"], {}))
    return entry


def render_json(st: Standings) -> str:
    """``standings.json``: :func:`standings_json`, indented."""
    return json.dumps(standings_json(st), indent=2) + "\n"
