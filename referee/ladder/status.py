"""What ``vastuz ladder status`` prints and ``vastuz ladder export`` writes, from the store.

Status: a header (entries, games, rounds, a round under way) and a line per entry, best
first: its rating (``?`` after it while provisional, ``> X`` a bound), the 95% interval,
games, W-D-L, its protocol name and version, its last game, and its state: ``anchor``,
``active`` (a bot of the config), ``connected`` or ``not connected`` (a remote bot, with
when it was last seen), ``retired`` (replaced by a new entry, or no longer in the config:
its games stay in every rating). Export: the records as JSON lines, as a
tournament's results file, with a manifest beside it, so ``vastuz report`` and ``vastuz
export`` read the folder like a tournament's.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from referee.ladder.config import LadderConfig
from referee.ladder.entries import current_entries
from referee.ladder.ratings import Line, rating_list
from referee.ladder.store import Entry, LadderStore
from referee.text import printable
from referee.tournament.store.files import MANIFEST, RESULTS
from referee.tournament.store.manifest import Manifest


def anchor_of(config: LadderConfig, entries: Mapping[str, Entry]) -> tuple[str, float] | None:
    """(label, rating) of the anchor's current entry, None without one (or before it has one)."""
    if not config.anchors:
        return None
    anchor = config.anchors[0]
    entry = entries.get(anchor.bot)
    return None if entry is None else (entry.label, anchor.rating)


def status_lines(config: LadderConfig, store: LadderStore) -> tuple[list[Line], list[Entry]]:
    """The rating list of every entry (with intervals) and the entries."""
    entries = store.entries()
    lines = rating_list(
        store.results(),
        [e.label for e in entries],
        anchor=anchor_of(config, current_entries(entries)),
        min_games=config.min_games,
    )
    return lines, entries


def status_text(config: LadderConfig, store: LadderStore) -> str:
    lines, entries = status_lines(config, store)
    by_label = {e.label: e for e in entries}
    active = current_entries([e for e in entries if e.name in {b.name for b in config.bots}])
    active_labels = {e.label for e in active.values()}
    remote = {e.label for e in current_entries([e for e in entries if e.remote]).values()}
    active_labels |= remote
    presence = store.presence()
    last = store.last_played()
    counts = store.counts()
    games = counts.get("done", 0)
    pending = counts.get("pending", 0)
    under_way = store.last_round()
    head = (
        f"ladder {config.name}: {len(entries)} entries ({len(active_labels)} active), {games:,} games in "
        f"{counts['rounds']:,} rounds"
    )
    if under_way is not None and not under_way[1]:
        head += f" (round {under_way[0]} under way: {pending} game(s) to play)"
    if counts.get("void"):
        head += f", {counts['void']} void"
    head += f"; a rating is provisional (?) until {config.min_games} games"
    rows = [["rank", "bot", "rating", "95% interval", "games", "W-D-L", "version", "last game", "state"]]
    for k, line in enumerate(lines, 1):
        entry = by_label.get(line.label)
        version = "" if entry is None else " ".join(p for p in (entry.protocol_name, entry.version) if p)
        state = "anchor" if line.anchor else ("active" if line.label in active_labels else "retired")
        if line.label in remote:
            connected, _, seen = presence.get(line.label, (False, None, None))
            state = "connected" if connected else "not connected"
            if not connected and seen is not None:
                state += f" (last seen {seen[:19].replace('T', ' ')})"
        rows.append(
            [
                str(k),
                line.label,
                line.shown(),
                line.interval(),
                str(line.games),
                f"{line.wins}-{line.draws}-{line.losses}",
                printable(version)[:40],
                last.get(line.label, "-")[:19].replace("T", " "),
                state,
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    table = "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)
    return f"{head}\n\n{table}\n"


def write_records(store: LadderStore, out: TextIO) -> int:
    """Every counted game's record as one JSON line; how many."""
    n = 0
    for line in store.records():
        out.write(line + "\n")
        n += 1
    return n


def export_folder(config: LadderConfig, store: LadderStore, folder: Path) -> int:
    """``folder/results.jsonl`` (the records) and ``folder/tournament.json`` (a manifest
    naming the ladder, its entries and its anchor), each replaced whole; the games written."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = store.entries()
    tmp = folder / (RESULTS + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        n = write_records(store, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, folder / RESULTS)
    anchor = anchor_of(config, current_entries(entries))
    Manifest(
        fingerprint={"ladder": config.settings()},
        name=config.name,
        config=str(config.source),
        bots=tuple(e.label for e in entries),
        anchor=None if anchor is None else anchor[0],
        anchor_rating=0.0 if anchor is None else anchor[1],
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        names=(config.name,),
    ).save(folder)
    assert (folder / MANIFEST).exists()
    return n


__all__ = ["anchor_of", "export_folder", "status_lines", "status_text", "write_records"]
