"""A run's standings as files: ``standings.md`` and ``standings.json`` from the games so
far, and ``standings.html``, whose replays grow with the run (made once a game,
:mod:`~referee.tournament.store.replays`). Blocking; the runner calls it in a worker
thread, and paces it (:class:`Cadence`) so that its cost stays a small share of the run."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from referee.play.records import GameSummary
from referee.ratings.history import Histories
from referee.ratings.report import SprtStanding, Standings, standings
from referee.tournament.plans.plan import TestView
from referee.tournament.store.files import RESULTS, atomic_writer
from referee.tournament.store.folder import latest_records, write_standings
from referee.tournament.store.pages import PAGE, write_page
from referee.tournament.store.replays import REPLAYS, ReplayWindow, Vouched


class Cadence:
    """When the periodic standings may be written again: at least ``every`` seconds after
    the last time, and long enough after it that their cost is at most ``share`` of the
    wall time (a write that took 0.2 s waits 3.8 s at 5%), however long the run grows. What
    a write spends on each new game (its replay, made once) is a cost per game, flat over
    the run, and does not count: counted, a run whose games are quick would space its
    pages ever further apart (each would have more games to replay)."""

    def __init__(self, every: float = 2.0, share: float = 0.05) -> None:
        self.every = every
        self.share = share
        self.next = 0.0  # trio.current_time() or time.monotonic(): the caller's clock

    def spent(self, started: float, ended: float, per_game: float = 0.0) -> None:
        """A write ran from ``started`` to ``ended``, ``per_game`` seconds of it on its new
        games."""
        cost = max(0.0, ended - started - per_game)
        self.next = ended + max(self.every, cost * (1.0 - self.share) / self.share)


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
        self.replays: ReplayWindow | None = None  # the page's, opened with the first page
        self.vouched: Vouched | None = None  # the run's own lines (its standings process's)
        self.writes: list[tuple[float, float, int]] = []
        """(start, end, records) of each page written while the run goes on, in seconds since
        the epoch (the clock of the records' ``started_at`` and ``ended_at``): when they ran
        and how many records they covered."""

    def standings(
        self, records: Sequence[GameSummary], test: TestView | None, bootstrap: int | None = None
    ) -> Standings:
        """The standings of ``records`` (every record so far: the latest of each slot is
        rated), with the plan's sequential test if it runs one, and a warning for each bot
        that lost more than a few percent of its games on time."""
        losses: list[str] = []
        st = standings(
            latest_records(records),
            self.names,
            anchor=self.anchor,
            anchor_rating=self.anchor_rating,
            bootstrap=self.bootstrap if bootstrap is None else bootstrap,
            sprt=None if test is None else SprtStanding(test.status, test.candidate, test.words),
            time_losses=losses,
        )
        st.warnings.extend(losses)
        return st

    def write(self, st: Standings, title: str | None = None) -> None:
        write_standings(self.folder, st, title or f"{self.name}: standings")

    def page(
        self,
        st: Standings,
        records: Sequence[GameSummary],
        test: TestView | None,
        progress: tuple[int, int],
        running: bool,
        histories: Histories | None = None,
    ) -> float:
        """``standings.html``, replaced atomically; a decided test's page says the run is
        complete at ``done``. Only the games recorded since the last page are replayed:
        returns the seconds that took. ``histories``: the charts' rating and LLR points
        where the caller kept them as the games came (else a pass over ``records``)."""
        done, total = progress
        started = time.time()
        replays = self._window()
        making = replays.making
        with atomic_writer(self.folder / PAGE) as out:
            write_page(
                out,
                replays,
                st,
                title=f"{self.name}: standings",
                names=self.names,
                summaries=latest_records(records),
                anchor=self.anchor,
                anchor_rating=self.anchor_rating,
                sprt=None if test is None else (test.test, test.candidate),
                progress=(done, done if test is not None and test.decided else total),
                running=running,
                histories=histories,
            )
        if running:
            self.writes.append((started, time.time(), len(records)))
        return replays.making - making

    def prepare(self) -> None:
        """Make the page entries of the games recorded since the last look (each game's
        replay, made once), so that the next page, or the run's own at its end, finds them
        made. For a process with time on its hands between pages: a line of the run's
        whose digest has not come yet waits for a later look (:class:`Vouched`)."""
        self._window().update(wait=True)

    def _window(self) -> ReplayWindow:
        if self.replays is None:  # opened with the first page or look
            self.replays = ReplayWindow(
                self.folder / RESULTS, keep=self.folder / REPLAYS, vouched=self.vouched
            )
        return self.replays

    def close(self) -> None:
        if self.replays is not None:
            self.replays.close()
            self.replays = None
