"""``OUTPUT/standings.html``: the standings page of a results folder, and its writer.

Reads the folder's results (whole records: the page replays every game), computes the
charts' histories, renders with :mod:`referee.render.standings_html` and replaces the file
atomically. Blocking: the runner calls it in a worker thread, so no bot's clock waits on
it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from referee.errors import ResultsError
from referee.play.records import GameSummary
from referee.ratings.history import llr_history, rating_history
from referee.ratings.report import Standings
from referee.ratings.sprt import Sprt
from referee.render.standings_html import RatingPoint, standings_page
from referee.tournament.store.files import OLD_MATCH_RESULTS, RESULTS, atomic_write
from referee.tournament.store.folder import latest_records
from referee.tournament.store.results import ResultsFile, open_nofollow

PAGE = "standings.html"
MAX_REPLAYS = 10_000
"""Games a standings page replays: the latest ones (``vastuz show RESULTS --html`` makes a
page of them all). 10,000 games make a page of about 11 MB that Chromium opens in well under
a second."""


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
    """The page of the results file ``results`` whose standings are ``st``. ``sprt`` is
    the test and its candidate when the run is an SPRT (for the LLR chart)."""
    rf = ResultsFile(results)
    if summaries is None:  # the runner has them already; a report reads them
        summaries = latest_records(rf.summaries().records)
    # The replays embed every turn: past MAX_REPLAYS games the page shows the latest ones
    # (it grows by about a kilobyte a game, and takes about a second a thousand to build).
    records = latest_records(rf.last_records(MAX_REPLAYS))
    history = [
        RatingPoint(games, elo)
        for games, elo in rating_history(summaries, names, anchor=anchor, anchor_rating=anchor_rating)
    ]
    llr = [] if sprt is None else llr_history(summaries, sprt[0], sprt[1])
    note = None
    if len(summaries) > len(records):
        note = (
            f"The replays are of the latest {len(records):,} of {len(summaries):,} games; "
            f"vastuz show {results.name} --html FILE makes a page of them all."
        )
    return standings_page(
        st,
        records,
        title=title,
        history=history,
        llr=llr,
        progress=progress,
        running=running,
        replay_note=note,
    )


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


def write_standings_html(folder: Path, text: str) -> Path:
    """Replace ``folder/standings.html`` with ``text`` atomically."""
    atomic_write(folder / PAGE, text)
    return folder / PAGE


def report_page(folder: Path, st: Standings, title: str) -> str:
    """The page of a results folder for ``vastuz report --format html``: the standings
    :func:`~referee.tournament.store.folder.load_standings` made, over its games."""
    results = folder / RESULTS if (folder / RESULTS).exists() else folder / OLD_MATCH_RESULTS
    names = [line.name for line in st.lines]
    sprt = None if st.sprt is None else (st.sprt.status.test, st.sprt.candidate)
    return standings_html(results, st, title=title, names=names, anchor=st.anchor, sprt=sprt)
