"""A run's standings as files: ``standings.md`` and ``standings.json`` from the games so
far, and ``standings.html``, whose rewrites are paced because it replays every game (its
cost grows with the run). Blocking; the runner calls it in a worker thread."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from referee.play.records import GameSummary
from referee.ratings.forfeits import time_loss_warnings
from referee.ratings.report import SprtStanding, Standings, standings
from referee.tournament.plans.plan import TestView
from referee.tournament.store.files import RESULTS
from referee.tournament.store.folder import latest_records, write_standings
from referee.tournament.store.pages import standings_html, write_standings_html


class Publisher:
    """The standings files of one run's folder, for the bots ``names`` (config order) rated
    around ``anchor``."""

    def __init__(
        self,
        folder: Path,
        name: str,
        names: Sequence[str],
        *,
        anchor: str | None,
        anchor_rating: float,
        bootstrap: int,
    ) -> None:
        self.folder = folder
        self.name = name
        self.names = tuple(names)
        self.anchor = anchor
        self.anchor_rating = anchor_rating
        self.bootstrap = bootstrap
        self._page_written = 0.0  # monotonic time of the last page, and what it cost
        self._page_cost = 0.0

    def standings(
        self, records: Sequence[GameSummary], test: TestView | None, bootstrap: int | None = None
    ) -> Standings:
        """The standings of ``records`` (every record so far: the latest of each slot is
        rated), with the plan's sequential test if it runs one, and a warning for each bot
        that lost more than a few percent of its games on time."""
        latest = latest_records(records)
        st = standings(
            latest,
            self.names,
            anchor=self.anchor,
            anchor_rating=self.anchor_rating,
            bootstrap=self.bootstrap if bootstrap is None else bootstrap,
            sprt=None if test is None else SprtStanding(test.status, test.candidate, test.words),
        )
        st.warnings.extend(time_loss_warnings(latest, self.names))
        return st

    def write(self, st: Standings, title: str | None = None) -> None:
        write_standings(self.folder, st, title or f"{self.name}: standings")

    @property
    def page_due(self) -> bool:
        """Whether the time since the last page is at least ten times what it took."""
        return time.monotonic() - self._page_written >= 10 * self._page_cost

    def page(
        self,
        st: Standings,
        records: Sequence[GameSummary],
        test: TestView | None,
        progress: tuple[int, int],
        running: bool,
    ) -> None:
        """``standings.html``; a decided test's page says the run is complete at ``done``."""
        started = time.monotonic()
        done, total = progress
        text = standings_html(
            self.folder / RESULTS,
            st,
            title=f"{self.name}: standings",
            names=self.names,
            anchor=self.anchor,
            anchor_rating=self.anchor_rating,
            sprt=None if test is None else (test.test, test.candidate),
            progress=(done, done if test is not None and test.decided else total),
            running=running,
            summaries=latest_records(records),
        )
        write_standings_html(self.folder, text)
        self._page_written = time.monotonic()
        self._page_cost = self._page_written - started
