"""``OUTPUT/standings.html``: the standings page of a results folder, and its writer.

Reads the folder's results (whole records: the page replays every game), computes the
charts' histories, renders with :mod:`referee.render.standings_html` and replaces the file
atomically. Blocking: the runner calls it in a worker thread, so no bot's clock waits on
it.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from referee.errors import ResultsError
from referee.play.records import GameSummary
from referee.ratings.history import Histories, llr_history, rating_history
from referee.ratings.report import Standings
from referee.ratings.sprt import Sprt
from referee.render.standings_html import RatingPoint, standings_frame
from referee.tournament.store.files import MAX_REPLAYS, OLD_MATCH_RESULTS, RESULTS, open_nofollow
from referee.tournament.store.folder import latest_records, loaded_lines, loaded_summaries
from referee.tournament.store.replays import REPLAYS, ReplayWindow

PAGE = "standings.html"
__all__ = ["MAX_REPLAYS", "PAGE", "page_is_final", "report_page", "standings_html", "write_page"]


def write_page(
    out: IO[str],
    replays: ReplayWindow,
    st: Standings,
    *,
    title: str,
    names: Sequence[str],
    summaries: Sequence[GameSummary],
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    sprt: tuple[Sprt, str] | None = None,
    progress: tuple[int, int] | None = None,
    running: bool = False,
    histories: Histories | None = None,
) -> None:
    """Write to ``out`` the page whose standings are ``st``, over ``summaries`` (the latest
    record of each slot: the charts' histories, unless ``histories`` gives their points)
    and the replays of ``replays`` (read up to date first), an entry at a time. ``sprt``
    is the test and its candidate when the run is an SPRT (for the LLR chart)."""
    replays.update()
    kept = replays.kept()
    if histories is None:
        points = rating_history(summaries, names, anchor=anchor, anchor_rating=anchor_rating)
        llr = [] if sprt is None else llr_history(summaries, sprt[0], sprt[1])
    else:
        points, llr = histories
    history = [RatingPoint(games, elo) for games, elo in points]
    note = None
    # The replays embed every turn: past MAX_REPLAYS games the page shows the latest ones
    # (it grows by about a kilobyte a game).
    if len(summaries) > len(kept):
        note = (
            f"The replays are of the latest {len(kept):,} of {len(summaries):,} games; "
            f"vastuz show {replays.results.name} --html FILE makes a page of them all."
        )
    head, tail = standings_frame(
        st,
        (line.size for line in kept),
        title=title,
        history=history,
        llr=llr,
        progress=progress,
        running=running,
        replay_note=note,
    )
    out.write(head)
    for k, entry in enumerate(replays.entries(kept)):
        if k:
            out.write(",")
        out.write(entry)
    out.write(tail)


def standings_html(
    results: Path,
    st: Standings,
    *,
    title: str,
    names: Sequence[str],
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    sprt: tuple[Sprt, str] | None = None,
    progress: tuple[int, int] | None = None,
    running: bool = False,
    summaries: Sequence[GameSummary] | None = None,
) -> str:
    """The page of the results file ``results`` whose standings are ``st``, as text (see
    :func:`write_page`): its replays made again, or taken from the folder's
    ``page-replays.jsonl`` where that has them right."""
    if summaries is None:  # the runner has them already; a report reads them
        summaries = latest_records(loaded_summaries(results))
    out = io.StringIO()
    with ReplayWindow(results, cache=results.with_name(REPLAYS), seen=loaded_lines(results)) as replays:
        write_page(
            out,
            replays,
            st,
            title=title,
            names=names,
            summaries=summaries,
            anchor=anchor,
            anchor_rating=anchor_rating,
            sprt=sprt,
            progress=progress,
            running=running,
        )
    return out.getvalue()


def page_is_final(page: Path) -> bool:
    """Whether the page at ``page`` is one of a run that has ended (it does not reload
    itself). Only its head is read: the reload is a ``<meta>`` there, and the page can be
    megabytes of replays. A page of a run that was killed, or of a version that wrote a
    decided SPRT's page as in progress, is not final, and the next run replaces it."""
    try:
        with os.fdopen(open_nofollow(page, os.O_RDONLY), "rb") as file:
            head = file.read(8192)
    except (OSError, ResultsError):  # gone, unreadable, a link: write a new one
        return False
    return b'http-equiv="refresh"' not in head


def report_page(folder: Path, st: Standings, title: str) -> str:
    """The page of a results folder for ``vastuz report --format html``: the standings
    :func:`~referee.tournament.store.folder.load_standings` made, over its games."""
    results = folder / RESULTS if (folder / RESULTS).exists() else folder / OLD_MATCH_RESULTS
    names = [line.name for line in st.lines]
    sprt = None if st.sprt is None else (st.sprt.status.test, st.sprt.candidate)
    return standings_html(results, st, title=title, names=names, anchor=st.anchor, sprt=sprt)
