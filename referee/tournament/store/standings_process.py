"""A run's periodic standings in a process of their own, so that no game waits for them.

A thread would not do: while a Python thread computes, the run's game loop waits for the
interpreter's lock at every bot answer (up to its 5 ms switch interval each time), and
games of quick bots slow down about four times. This process is started by the runner
(``python -m referee.tournament.store.standings_process``), is given the run's records and
then each new one as it is recorded, and on request prints a table or writes the standings
files and the page (:class:`~referee.tournament.store.publish.Publisher`, with its replays
made once a game), saying when it ran. Between requests it makes the replays of the games
recorded so far, so that neither the next page nor the run's own final one has them all to
make at once. It ends when its input ends. Each table and page
counts only the records new since the last one (:class:`Prefix`), so their cost does not
grow with the run; so are the page's charts (a rating history and an SPRT's LLR, their
points made as the games are counted, never a pass over the run).

The messages both ways are frames: a 4-byte big-endian length, then a pickle (between two
processes of this program over their own pipes). In: ``("init", settings, records)``,
``("games", log, digests)`` (the games recorded since the last frame, a
:class:`~referee.tournament.store.summary_log.SummaryLog`: its arrays pickle in a fraction
of the time the summaries would; and the digests of their results lines, so that their
replays need not check their turns again: :class:`~.replays.Vouched`),
``("table", done, count, lines, tables, test)``, ``("files", done, total, count, test)``.
Out: ``("say", text, seconds)`` for a table (the CPU seconds it took),
``("wrote", start, end, count, made)`` after the files, ``("failed", words)``.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Iterable
from typing import Any

from referee.errors import VastuzError
from referee.play.records import GameSummary
from referee.ratings.history import LlrTrail, RatingTrail
from referee.ratings.report import RunningStandings, SprtStanding, Standings
from referee.render.standings_text import render, summary_line
from referee.tournament.config.odds import TimeOdds
from referee.tournament.plans.plan import TestView
from referee.tournament.store.folder import has_sections, latest_records, plan_sections
from referee.tournament.store.manifest import Manifest
from referee.tournament.store.publish import Publisher
from referee.tournament.store.replays import Vouched
from referee.tournament.store.summary_log import SummaryLog

HEADER = struct.Struct(">I")
READ_SIZE = 1 << 16
LOOK = 0.5
"""Seconds between two looks at the results file for games to replay, while nothing is
asked (the runner sends the games with its requests, which can be seconds apart)."""


def frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


class Frames:
    """The frames read from the pipe at ``fd``, and whether one is waiting (so that this
    process knows when it has time on its hands)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.ended = False

    def _whole(self) -> bool:
        if len(self.buffer) < HEADER.size:
            return False
        size: int = HEADER.unpack_from(self.buffer)[0]
        return len(self.buffer) >= HEADER.size + size

    def waiting(self, timeout: float = 0.0) -> bool:
        """Whether a frame (or the end of input) can be had at once, or comes within
        ``timeout`` seconds."""
        if self.ended or self._whole():
            return True
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return bool(ready)

    def next(self) -> Any:
        """The next message, or None at the end of the input (or of a frame cut short: the
        runner stopped mid-frame, its run ended)."""
        while not self._whole():
            chunk = b"" if self.ended else os.read(self.fd, READ_SIZE)
            if not chunk:
                self.ended = True
                return None
            self.buffer += chunk
        size = HEADER.unpack_from(self.buffer)[0]
        data = bytes(self.buffer[HEADER.size : HEADER.size + size])
        del self.buffer[: HEADER.size + size]
        return pickle.loads(data)  # our own parent's frames, over our own pipe


class Prefix:
    """The standings of a run's first records as it grows, kept as they arrive
    (:class:`~referee.ratings.report.RunningStandings`): asked for the first ``count``
    records, it counts only those it has not yet, so a table costs the same however long
    the run. The latest record of each slot is rated, as
    :func:`~referee.tournament.store.folder.latest_records` keeps it; a record that
    replaces one already counted (a void game played again) starts the counts afresh from
    the latest records, once. With ``trails`` (the pages' counts), the charts' histories
    are kept along the way too (:class:`~referee.ratings.history.RatingTrail`, and an
    SPRT's :class:`~referee.ratings.history.LlrTrail` from the first page that has a
    test), so that a page takes no pass over the run's games."""

    def __init__(self, worker: Worker, trails: bool = False) -> None:
        self.worker = worker
        self.trails = trails
        self.count = 0  # records counted, of worker.records
        self.llr: LlrTrail | None = None
        self._start()

    def _start(self) -> None:
        publisher = self.worker.publisher
        self.running = RunningStandings(publisher.names)
        self.ratings = RatingTrail(
            self.running.counts,
            publisher.names,
            anchor=publisher.anchor,
            anchor_rating=publisher.anchor_rating,
        )
        if self.llr is not None:
            self.llr = LlrTrail(self.llr.test, self.llr.candidate)

    def _add(self, record: GameSummary) -> None:
        running = self.running
        rated = running.records - running.void
        running.add(record)
        if self.trails:
            if running.records - running.void != rated:
                self.ratings.counted()
            if self.llr is not None:
                self.llr.add(record)

    def advance(self, count: int) -> RunningStandings:
        """The counts of the first ``count`` records (``count`` never less than the last)."""
        records = self.worker.records
        replaced = False
        for k in range(self.count, count):
            earlier = records.rows_like(k)
            if earlier[0] == k:  # the slot's first record
                if not replaced:
                    self._add(records.row(k))
            elif all(records.is_void(j) for j in earlier if j < k):
                replaced = True  # it replaces a void one (latest_records)
            # else a record after one with a result: not rated (latest_records drops it)
        self.count = max(self.count, count)
        if replaced:
            self._again()
        return self.running

    def _again(self) -> None:
        """Count the latest records of the first :attr:`count` afresh."""
        self._start()
        for r in latest_records(self.worker.records[: self.count]):
            self._add(r)

    def llr_of(self, test: TestView) -> LlrTrail:
        """The SPRT's LLR trail of the records counted so far (made at the first ask, or
        when the test's candidate changes, from the latest records)."""
        llr = self.llr
        if llr is None or llr.test != test.test or llr.candidate != test.candidate:
            self.llr = llr = LlrTrail(test.test, test.candidate)
            for r in latest_records(self.worker.records[: self.count]):
                llr.add(r)
        return llr


class Worker:
    """The standings of one run's folder, from the records its runner sends."""

    def __init__(self, settings: dict[str, Any], records: Iterable[GameSummary]) -> None:
        self.publisher = Publisher(
            settings["folder"],
            settings["name"],
            settings["names"],
            anchor=settings["anchor"],
            anchor_rating=settings["anchor_rating"],
            bootstrap=settings["bootstrap"],
        )
        self.warning: str | None = settings["warning"]
        # The run's lines from here on come with their digests (the "games" frames).
        since = settings.get("vouched_from")
        self.vouched = None if since is None else Vouched(since)
        self.publisher.vouched = self.vouched
        manifest = Manifest.load(settings["folder"])
        self.schedule = None if manifest is None else manifest.schedule
        self.sectioned = self.schedule is not None and has_sections(self.schedule, list(self.publisher.names))
        # Time odds as the run's own standings and vastuz report give them (the note and
        # each bot's clock), from the manifest; the runner's warning only without one.
        self.odds = None if manifest is None else TimeOdds.of_fingerprint(manifest.fingerprint)
        # And each slot's records (SummaryLog.rows_of). The runner sends its own log.
        self.records = records if isinstance(records, SummaryLog) else SummaryLog(records)
        # Tables and pages are each asked for in order, but a table can be of fewer games
        # than the page before it (it waited for its turn): each has its own counts.
        self.tables = Prefix(self)
        self.pages = Prefix(self, trails=True)

    def add(self, record: GameSummary) -> None:
        self.records.append(record)

    def vouch(self, digests: Iterable[str]) -> None:
        """The digests of the results lines of the games just sent (see :class:`Vouched`)."""
        if self.vouched is not None:
            self.vouched.add(digests)

    def standings(
        self, count: int, test: TestView | None, prefix: Prefix | None = None, *, brief: bool = False
    ) -> Standings:
        """The standings of the first ``count`` records, as the run's end gives them but
        for the warm-started fit (:class:`~referee.ratings.report.RunningStandings`), from
        the tables' counts or ``prefix``'s. ``brief``: only what the one-line view shows
        (the estimates, intervals only for a bound, no pairs' statistics)."""
        running = (prefix or self.tables).advance(count)
        publisher = self.publisher

        def of(bootstrap: int) -> Standings:
            return running.standings(
                anchor=publisher.anchor,
                anchor_rating=publisher.anchor_rating,
                bootstrap=bootstrap,
                sprt=None if test is None else SprtStanding(test.status, test.candidate, test.words),
                pairs=not brief,
            )

        st = of(0 if brief else publisher.bootstrap)
        if brief and any(line.elo_bound is not None for line in st.lines):
            st = of(publisher.bootstrap)  # a bound is shown by its finite end: an interval's
        st.warnings.extend(running.time_losses.warnings(publisher.names))
        if self.sectioned:  # a Swiss's tie-breaks, a bracket, as vastuz report has them
            assert self.schedule is not None
            kept = list(latest_records(self.records[:count]))
            st.sections.extend(plan_sections(self.schedule, list(publisher.names), kept))
        if self.odds is not None:
            self.odds.apply(st)
        elif self.warning is not None:
            st.warnings.append(self.warning)
        return st

    def table(self, done: int, count: int, one_line: bool, tables: bool, test: TestView | None) -> str | None:
        if not (tables or one_line):
            return None
        st = self.standings(count, test, brief=not tables)
        if tables:
            return "\n" + render(st, "text", title=f"standings after {done} games").rstrip() + "\n"
        return f"    standings after {done} games: {summary_line(st)}"

    def prepare(self) -> None:
        """With nothing asked of it, make the replays of the games recorded so far (read
        from the results file, whose lines are there before their games are sent here), a
        few at a time as the games come: the next page, and the run's own at its end, find
        them made instead of making them all at once. A file that cannot be read now is
        left for the next page to report."""
        with contextlib.suppress(OSError, ValueError, VastuzError):
            self.publisher.prepare()

    def files(
        self, done: int, total: int, count: int, test: TestView | None
    ) -> tuple[float, float, int, float]:
        started = time.time()
        st = self.standings(count, test, self.pages)
        self.publisher.write(st, f"{self.publisher.name}: standings after {done} of {total} games")
        pages = self.pages
        histories = (pages.ratings.history(), [] if test is None else pages.llr_of(test).history())
        made = self.publisher.page(st, self.records[:count], test, (done, total), True, histories)
        return started, time.time(), count, made


NICE = 10
"""How many steps of niceness this process runs below the runner (and its bots): see
:func:`yield_to_the_bots`."""


def yield_to_the_bots() -> None:
    """Run at a background priority, :data:`NICE` steps below the runner's (at most 19). The
    bots' clocks run while they wait for a core, and this process's work can wait: against
    a busy bot on a core it gets about a tenth of the time where it would get half. Not the
    lowest: the run's last table waits for it, and on a machine busy with other work it
    still comes in seconds. Its tables are paced by its own CPU time, so the wait does not
    space them out; its pages are paced by the wall, so they come later. The runner and the
    bots keep their priority, a run started with ``nice`` included."""
    with contextlib.suppress(AttributeError, OSError):  # no os.nice (Windows), or refused
        os.nice(min(NICE, 19 - os.nice(0)))


def main() -> None:
    yield_to_the_bots()
    # Ctrl-C is the runner's to handle: this process ends when the runner closes its input.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    frames, out = Frames(sys.stdin.fileno()), sys.stdout.buffer
    first = frames.next()
    if first is None:
        return
    _, settings, records = first
    worker = Worker(settings, records)
    try:
        while True:
            wait = 0.0
            while not frames.waiting(wait):  # time on its hands: the replays of the games so far
                worker.prepare()
                wait = LOOK
            message = frames.next()
            if message is None:
                break
            kind = message[0]
            if kind == "games":
                for record in message[1]:
                    worker.add(record)
                if len(message) > 2:
                    worker.vouch(message[2])
                continue
            try:
                if kind == "table":
                    # Its cost is this process's CPU: on a busy machine the wall time also
                    # counts the waits for a core, and would pace the tables by others' work.
                    started = time.process_time()
                    text = worker.table(*message[1:])
                    reply: tuple[object, ...] = ("say", text, time.process_time() - started)
                else:
                    reply = ("wrote", *worker.files(*message[1:]))
            except (OSError, ValueError, VastuzError) as exc:  # a full disk: say so, go on
                reply = ("failed", str(exc))
            out.write(frame(reply))
            out.flush()
    finally:
        worker.publisher.close()


if __name__ == "__main__":
    main()
