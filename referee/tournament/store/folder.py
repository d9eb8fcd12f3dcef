"""A tournament's output folder: its files, the manifest that guards resumes, standings.

``OUTPUT/results.jsonl`` holds the records (:mod:`referee.tournament.store.results`);
``OUTPUT/tournament.json`` the config's fingerprint, so that a resume that would mix
incompatible games (other commands, board size, clock, openings) is refused;
``standings.md``/``standings.json`` are rewritten atomically. :func:`load_standings`
rebuilds the standings from these files alone (``vastuz report``). A match's folder
(``vastuz match --out``) is a tournament folder like any other. Earlier versions wrote
matches as ``games.jsonl`` and ``match.json``: such a folder is still read (reported,
shown), never added to.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar, overload

from referee.errors import ResultsError
from referee.play.records import GameRecord, GameSummary, parse_line
from referee.play.spec import OpeningKind
from referee.ratings.report import Section, SprtStanding, Standings, standings
from referee.render.standings_text import render
from referee.tournament.config.odds import TimeOdds
from referee.tournament.config.values import TournamentConfig
from referee.tournament.plans.kinds import spec_from_fingerprint
from referee.tournament.plans.plan import Field, Quiet
from referee.tournament.store.duplicates import repeat_warning
from referee.tournament.store.files import (
    LOGS,
    MANIFEST,
    MAX_REPLAYS,
    OLD_MATCH_MANIFEST,
    OLD_MATCH_RESULTS,
    RESULTS,
    STANDINGS_JSON,
    STANDINGS_MD,
    atomic_write,
    shown,
)
from referee.tournament.store.manifest import Manifest, check_manifest
from referee.tournament.store.results import Appender, LinesSeen, ResultsFile
from referee.tournament.store.summary_log import SummaryLog, SummaryView


class _Slotted(Protocol):
    @property
    def slot(self) -> str: ...

    @property
    def is_void(self) -> bool: ...


G = TypeVar("G", bound=_Slotted)

__all__ = ["LOGS", "MANIFEST", "OLD_MATCH_RESULTS", "RESULTS", "check_manifest", "shown"]


@overload
def latest_records(  # type: ignore[overload-overlap]  # a log is an iterable of summaries too
    records: SummaryLog | SummaryView, warnings: list[str] | None = None
) -> SummaryView: ...


@overload
def latest_records(records: Iterable[G], warnings: list[str] | None = None) -> list[G]: ...


def latest_records(
    records: Iterable[G] | SummaryLog | SummaryView, warnings: list[str] | None = None
) -> list[G] | SummaryView:
    """One record per schedule slot: the first non-void one, else the last void one.

    A void game (the referee could not run it) is retried on resume; its record stays in
    the file as history but does not hide the replay. A second record *with a result* for
    a slot is not something one run writes (two runs appended to one file, or a file
    pasted together): it is dropped, and when ``warnings`` is given a line saying which
    ids and how many records is appended to it, so no record goes unrated unannounced.
    Records or their summaries: anything with a ``slot`` and ``is_void``; of a run's
    :class:`~.summary_log.SummaryLog` (or a view of it), a view of its rows, by its index.
    """
    if isinstance(records, SummaryLog | SummaryView):
        return records.latest(warnings=warnings)
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


def listed(games: list[GameSummary], shown: int = 5) -> str:
    """``slot (a vs b), ...`` for the first ``shown`` games, and how many more."""
    names = ", ".join(f"{r.slot} ({r.labels[0]} vs {r.labels[1]})" for r in games[:shown])
    return names + (f" and {len(games) - shown} more" if len(games) > shown else "")


Adoptee = tuple[GameSummary, int, dict[str, object]]
"""What adopting needs of a record found: its summary, its board size and its clock (its
turns are let go as it is read)."""


def adoptee(record: GameRecord) -> Adoptee:
    return GameSummary.of(record), record.size, record.time_control


def check_adopted(found: Sequence[Adoptee], config: TournamentConfig, folder: Path) -> None:
    """Results found without a manifest are adopted only if every game fits this config: one
    of its schedule's slots with the bots that slot names (see
    :meth:`~referee.tournament.plans.plan.Plan.misfits`), on its board, at its clock."""
    summaries = [s for s, _, _ in found]
    misfits = config.make_plan().misfits(summaries)
    if misfits:
        raise ResultsError(
            f"{folder}: cannot adopt these results: {len(misfits)} game(s) are not in this config's schedule "
            f"with those bots: {listed(misfits)}. Use another output folder."
        )
    clock = {"kind": config.time_control.kind.value, **config.time_control.as_dict()}
    other = [s for s, size, time_control in found if size != config.board_size or time_control != clock]
    if other:
        raise ResultsError(
            f"{folder}: cannot adopt these results: {len(other)} game(s) were played on another board size "
            f"or at another time control than this config's (board {config.board_size}, {clock}): "
            f"{listed(other)}. Use another output folder."
        )


@dataclass
class Opened:
    """A results folder ready for a run: the records of its own games, what the run should
    say about the folder, and the writer of its results file (the run closes it)."""

    records: SummaryLog
    notes: list[str]
    appender: Appender


def open_results(config: TournamentConfig, folder: Path, *, adopt: bool = False) -> Opened:
    """Check the folder against the config (:func:`check_manifest`, and ``--adopt``'s
    checks when it has no manifest), set a torn tail aside, and leave out, naming them,
    the records that are not this tournament's. Call with the folder locked."""
    results = ResultsFile(folder / RESULTS)
    notes = []
    if adopt and not (folder / MANIFEST).exists():
        # Checked before the manifest is written: a refused adoption leaves the folder as it was.
        found: list[Adoptee] = []
        results.each(parse_line, lambda record: found.append(adoptee(record)))
        check_adopted(found, config, folder)
        notes.append(f"adopting {len(found)} game(s) found without a manifest")
    manifest = check_manifest(config, folder, adopt=adopt)
    loaded, aside = results.repair()
    if aside is not None:
        notes.append(
            f"note: set aside a torn last line of {shown(results.path)} ({loaded.torn:,} bytes) in "
            f"{shown(aside)}: the game in flight when the previous run was killed; it will be replayed"
        )
    skipped = loaded.skipped_line(results.path)
    if skipped is not None:
        notes.append(f"note: {skipped}")
    records, why = foreign(loaded.records, manifest.names, config.make_plan().misfits)
    if why is not None:
        notes.append(f"note: {why}")
    return Opened(
        records if isinstance(records, SummaryLog) else SummaryLog(records), notes, results.appender()
    )


def foreign(
    records: Sequence[GameSummary],
    names: Sequence[str],
    misfits: Callable[[Sequence[GameSummary]], list[GameSummary]],
) -> tuple[Sequence[GameSummary], str | None]:
    """The records of this folder's runs, and a warning naming the others: played under a
    name none of its runs had, or not in its schedule with those bots (``misfits`` of the
    records)."""

    def unfit_of(records: Sequence[GameSummary]) -> set[int]:
        events = (
            records.events() if isinstance(records, SummaryLog | SummaryView) else (r.event for r in records)
        )
        elsewhere = []
        if any(e is not None and e not in names for e in events):  # a log reads its column
            elsewhere = [r for r in records if r.event is not None and r.event not in names]
        return {id(r) for r in [*misfits(records), *elsewhere]}

    unfit = unfit_of(records)
    if not unfit:
        return records, None
    if isinstance(records, SummaryLog | SummaryView):
        # A log makes its summaries anew at each pass, so the ones named are told apart by
        # identity only among objects that stay: a list of them (a folder with others' games).
        records = list(records)
        unfit = unfit_of(records)
    bad = [r for r in records if id(r) in unfit]
    kept = [r for r in records if id(r) not in unfit]
    return kept, (
        f"{len(bad)} record(s) are not this tournament's and are not rated (another tournament's name, "
        f"a slot outside its schedule, or bots it does not have): {listed(bad)}"
    )


def write_standings(folder: Path, st: Standings, title: str) -> None:
    """``standings.md`` and ``standings.json``, each replaced atomically."""
    atomic_write(folder / STANDINGS_MD, render(st, "markdown", title=title))
    atomic_write(folder / STANDINGS_JSON, render(st, "json"))


def load_standings(folder: Path, *, bootstrap: int = 1000) -> tuple[Standings, str]:
    """Standings of a results folder from its files alone (``vastuz report``): a
    tournament folder (``results.jsonl`` + ``tournament.json``; a match's too) or a match
    folder of an earlier version (``games.jsonl``, ``match.json``). Every record that is not
    rated is named in the standings' warnings, and so are games that repeat an earlier game
    move for move."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ResultsError(
            f"{folder}: not a folder; expected a tournament's output folder (holding {RESULTS}) "
            f"or an earlier version's match folder (holding {OLD_MATCH_RESULTS})"
            + (f": try {shown(folder.parent)}" if folder.name in (RESULTS, OLD_MATCH_RESULTS) else "")
        )
    manifest_path = folder / MANIFEST
    bots: list[str] | None = None
    schedule: object = None
    anchor = None
    anchor_rating = 0.0
    title = folder.name
    manifest = Manifest.load(folder)
    if manifest is not None:
        bots = list(manifest.bots)
        anchor, anchor_rating = manifest.anchor, manifest.anchor_rating
        title = f"{manifest.name}: standings"
        schedule = manifest.fingerprint.get("schedule")
    elif (folder / OLD_MATCH_MANIFEST).exists():
        title = f"match {folder.name}: A vs B"
        bots = ["A", "B"]
    for name in (RESULTS, OLD_MATCH_RESULTS):
        path = folder / name
        if path.exists():
            break
    else:
        if not folder.exists():
            raise ResultsError(f"{folder}: no such folder")
        raise ResultsError(f"{folder}: no results here (expected {RESULTS} or {OLD_MATCH_RESULTS})")
    warnings: list[str] = []
    loaded = ResultsFile(path).summaries(positions=MAX_REPLAYS)
    _remember(path, loaded.records, loaded.lines)
    skipped = loaded.skipped_line(path)
    if skipped is not None:
        warnings.append(skipped)
    if loaded.torn:
        warnings.append(
            f"{path.name}: its last {loaded.torn:,} bytes are a torn line (a run was stopped mid-write), "
            "not a record; the next run sets them aside"
        )
    found = loaded.records
    if manifest is not None:
        found, why = foreign(found, manifest.names, lambda found: _misfits(manifest, found, manifest_path))
    elif bots is not None:
        found, why = foreign(
            found, ("match",), lambda found: [r for r in found if not set(r.labels) <= set(bots)]
        )
    else:
        why = None
    if why is not None:
        warnings.append(why)
    records = latest_records(found, warnings)
    sprt = None if schedule is None or bots is None else _test(schedule, bots, records, manifest_path)
    losses: list[str] = []  # the time-loss warnings, from the standings' pass
    st = standings(
        records,
        bots,
        anchor=anchor,
        anchor_rating=anchor_rating,
        bootstrap=bootstrap,
        sprt=sprt,
        time_losses=losses,
    )
    if schedule is not None and bots is not None:  # the kind's own parts (a gauntlet's challengers)
        st.sections.extend(plan_sections(schedule, bots, records))
    odds = None if manifest is None else TimeOdds.of_fingerprint(manifest.fingerprint)
    if odds is not None:  # which bot played at which clock, and the note, as the run said
        odds.apply(st)
    repeats = repeat_warning(records)
    if repeats is not None:
        warnings.append(repeats)
    warnings.extend(losses)
    st.warnings.extend(warnings)
    return st, title


_last: tuple[tuple[object, ...], Sequence[GameSummary], LinesSeen | None] | None = None
"""The summaries :func:`load_standings` read last, the identity of their file, and where
its last record lines are."""


def _identity(path: Path) -> tuple[object, ...]:
    st = os.stat(path)
    return (str(path.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _remember(path: Path, summaries: Sequence[GameSummary], lines: LinesSeen | None = None) -> None:
    global _last
    _last = (_identity(path), summaries, lines)


def loaded_summaries(results: Path) -> Sequence[GameSummary]:
    """The summary of every record of ``results``, in file order: the ones
    :func:`load_standings` read last if they are of this file as it is now (a report's
    page needs them again, and at 20,000 games they take seconds to read), else read."""
    if _last is not None and _last[0] == _identity(results):
        return _last[1]
    return ResultsFile(results).summaries().records


def loaded_lines(results: Path) -> LinesSeen | None:
    """Where the last :data:`MAX_REPLAYS` record lines of ``results`` are, as the scan of
    :func:`load_standings` found them (None if it read another file): a report's page
    replays those lines, and need not read the whole file again to find them. The page's
    reader checks that the file is still as that scan found it."""
    if _last is not None and _last[0][0] == str(results.resolve()):
        return _last[2]
    return None


def _misfits(manifest: Manifest, records: Sequence[GameSummary], path: Path) -> list[GameSummary]:
    """The records that cannot be the folder's: not in its schedule with those bots (with
    the schedule's extent in the manifest), or at least naming a bot it does not have."""
    if manifest.schedule is None:  # a manifest of an earlier version: the bots only
        return [r for r in records if not set(r.labels) <= set(manifest.bots)]
    try:
        plan = spec_from_fingerprint(manifest.schedule).make_plan(Field(manifest.bots, OpeningKind.PIE))
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsError(f"{path}: not a tournament manifest (its schedule: {exc})") from None
    return plan.misfits(records)


def has_sections(schedule: object, bots: list[str]) -> bool:
    """Whether the plan of ``schedule`` adds sections of its own to the standings (a
    gauntlet, a Swiss, a knockout): a round robin's and an SPRT's add none, and a run's
    periodic standings need not rebuild its plan from every record for each table. A kind
    with sections has them before its first game (an empty table, a bracket to play)."""
    try:
        plan = spec_from_fingerprint(schedule).make_plan(Field(tuple(bots), OpeningKind.PIE), [])
        return type(plan).sections is not Quiet.sections and bool(plan.sections([]))
    except (KeyError, TypeError, ValueError):
        return False  # plan_sections gives none either


def plan_sections(schedule: object, bots: list[str], records: list[GameSummary]) -> list[Section]:
    """The sections the run's plan adds to its standings, rebuilt from the manifest (none
    when its schedule cannot be rebuilt: the standings still stand without them)."""
    try:
        plan = spec_from_fingerprint(schedule).make_plan(Field(tuple(bots), OpeningKind.PIE), records)
        return plan.sections(records)
    except (KeyError, TypeError, ValueError):
        return []


def _test(
    schedule: object, bots: list[str], records: list[GameSummary], manifest: Path
) -> SprtStanding | None:
    """The sequential test of a run whose plan has one, rebuilt from its manifest and its
    recorded games."""
    try:
        test = spec_from_fingerprint(schedule).test(Field(tuple(bots), OpeningKind.PIE), records)
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsError(f"{manifest}: not a tournament manifest (its schedule: {exc})") from None
    return None if test is None else SprtStanding(test.status, test.candidate, test.words)
