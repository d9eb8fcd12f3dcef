"""Run a tournament: the schedule, concurrently, with durable and resumable results.

The pieces, each behind its seam: the config (:mod:`~referee.tournament.config`), the plan
that says what to play next (:mod:`~referee.tournament.plans`: every kind-specific word and
decision is there), the executor that plays games (:mod:`~referee.tournament.executors`),
the output folder (:mod:`~referee.tournament.store`), the ratings
(:mod:`referee.ratings.report`). This module only runs the plan on the executor:

* as many workers as the executor has slots take games in the plan's order (so the two
  games of an opening pair start together), each inside the one nursery of the run;
* each finished game is appended to ``OUTPUT/results.jsonl`` before the next line of
  output, at once (a write: a kill or crash of the run cannot lose it from then on), and
  synced to disk in a worker thread within :data:`SYNC_INTERVAL` and at the end, several
  games to a sync (a group commit: a sync a game cost each game a hop to a thread, and
  only a crash of the operating system could lose what it protects; such a crash loses at
  most the last tenth of a second's games, which a resume plays again). No bot's clock
  waits for our disk;
* running the same config again resumes: games already in the file are not played again.
  ``OUTPUT/tournament.json`` holds the config's fingerprint, and a config that would mix
  incompatible results (other commands, board size, clock, openings) is refused;
* the first Ctrl-C, SIGTERM or SIGHUP abandons the running games (they are not recorded),
  closes every bot and writes the standings of what was played; a second one kills the bots
  at once. A SIGKILL loses at most the games in flight: the results file is repaired on resume;
* two things stop a run more gently: no new game starts, the games in flight finish and are
  recorded, the standings are written, and :class:`~referee.errors.RunStopped` says why.
  One is a bot that cannot start several times in a row (:class:`~.executors.pool.StartFailures`:
  a missing program or module would otherwise void or forfeit the whole schedule); the other is the
  output closing under the run (``vastuz tournament ... | head``): output is then off.
* a bot's log that cannot be written (a full disk) is given up with a note in the game's
  record, and each bot's logs together are capped (``logs.max_per_bot``); only the results
  file's own write failure stops the run at once.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any, TextIO

import trio

from referee.errors import ResultsError, RunStopped, VastuzError, single_error
from referee.play.cpu import available_cpus
from referee.play.records import GameSummary
from referee.ratings.report import Standings
from referee.tournament.config.odds import TimeOdds
from referee.tournament.config.values import TournamentConfig
from referee.tournament.executors.batch import GameSettings, Played
from referee.tournament.executors.choose import executor_for
from referee.tournament.executors.local import Executor
from referee.tournament.executors.pool import DEFAULT_START_FAILURE_LIMIT, StartFailures
from referee.tournament.plans.fixed import NO_GAMES, FixedPlan
from referee.tournament.plans.plan import Pending, Plan, TestView
from referee.tournament.progress import Progress, TournamentResult, cpu_lines, game_line, header
from referee.tournament.slots import ScheduledGame
from referee.tournament.store.files import MAX_REPLAYS
from referee.tournament.store.folder import LOGS, RESULTS, latest_records, open_results, shown
from referee.tournament.store.pages import PAGE, page_is_final
from referee.tournament.store.publish import Cadence, Publisher
from referee.tournament.store.replays import Vouched, line_digest
from referee.tournament.store.results import FolderLock, ResultsFile
from referee.tournament.store.standings_process import HEADER, frame
from referee.tournament.store.summary_log import SummaryLog

SYNC_INTERVAL = 0.1
"""Seconds at most between a game's record written and its sync to disk (see :meth:`Tournament._sync`)."""


class Tournament:
    """One run of a config: plays the missing games, reports as it goes."""

    def __init__(
        self,
        config: TournamentConfig,
        *,
        out: TextIO | None = None,
        quiet: bool = False,
        standings_every: int = 10,
        tables: bool = True,
        transcripts: bool = False,
        bootstrap: int = 1000,
        adopt: bool = False,
        start_failure_limit: int = DEFAULT_START_FAILURE_LIMIT,
        executor: Callable[[Tournament], Executor] | None = None,
    ) -> None:
        """Every ``standings_every`` games (0: only at the end) the whole table is printed
        with ``tables``, else one line of it (none when the plan printed its own line then:
        an SPRT's test); the standings files and the page are rewritten as the run goes
        (unless 0) on a time cadence, off the games' path (:meth:`_publish`). ``executor``
        makes the run's executor (given the run, for its settings and its output); the
        default is the config's (:func:`~.executors.choose.executor_for`)."""
        self.config = config
        self.folder = config.output
        self.out: TextIO | None = sys.stdout if out is None else out  # looked up now: tests replace it
        self.quiet = quiet
        self.standings_every = standings_every
        self.tables = tables
        self.transcripts = transcripts
        self.bootstrap = bootstrap
        self.adopt = adopt
        self.results = ResultsFile(self.folder / RESULTS)
        # What the standings need of every game so far, not the records (a long game's
        # record is tens of kilobytes; a run may hold a million games), in columns.
        self.records = SummaryLog()
        self._resumed = 0  # records found in the folder: the ones after it are this run's
        self.stopping = False
        self.signals_seen = 0
        self.settings = GameSettings.of(config, transcripts)
        self.executor: Executor = (
            executor(self)
            if executor is not None
            else executor_for(
                config, self.settings, self.folder / LOGS, say=self.say, stop=self.stop_after_games_in_flight
            )
        )
        self.plan: Plan = FixedPlan(NO_GAMES)
        self._in_flight = 0  # games being played now
        self._game_recorded = trio.Event()  # set (and replaced) whenever a game ends
        self._written = trio.Event()  # set when a record is written and not synced yet (see _sync)
        self._news = trio.Event()  # set when a game recorded changes what _publish waits for
        self._tables_due: list[tuple[int, int, bool]] = []  # (games done, records, one line)
        self._table_pace = Cadence(every=0.0, share=0.1)
        self._file_pace = Cadence()
        self._to_standings: trio.MemorySendChannel[bytes] | None = None
        self._asked = False  # a request to the standings process awaits its answer
        # Games recorded and not sent to the standings process yet: they go in one write
        # with its next request (or once UNSENT_MAX are waiting), not a write and two task
        # wake-ups a game. Each with the digest of its results line (its replay then reads
        # its turns without the engine's check: Vouched).
        self._unsent: list[tuple[GameSummary, str]] = []
        self._published = 0  # records when the files were last asked for (see _pace)
        c = config
        self.publisher = Publisher(
            self.folder,
            c.name,
            c.bot_names,
            anchor=c.elo.anchor,
            anchor_rating=c.elo.anchor_rating,
            bootstrap=bootstrap,
        )
        self.start_failures = StartFailures(start_failure_limit)
        self.halt: RunStopped | None = None
        """Why no new game may start (the games in flight finish), raised at the end."""

    # -- output ----------------------------------------------------------------------------
    def say(self, text: str, *, always: bool = False) -> None:
        """Print a line, unless quiet. If the output is gone (a closed pipe, a hung-up
        terminal) output is off from then on and the run stops after the games in flight."""
        if self.out is None or not (always or not self.quiet):
            return
        try:
            print(text, file=self.out, flush=True)
        except OSError as exc:
            self.out = None
            what = "was closed (broken pipe)" if isinstance(exc, BrokenPipeError) else f"failed ({exc})"
            self.stop_after_games_in_flight(RunStopped(f"the output {what}"))

    def stop_after_games_in_flight(self, reason: RunStopped) -> None:
        """Start no new game; the games in flight finish and are recorded; ``run`` then
        writes the standings and raises ``reason``. A stop by signal needs none of it."""
        if self.halt is None and not self.stopping:
            self.halt = reason
            self.say(f"stopping: {reason}; the games in progress finish first", always=True)

    def standings(self, bootstrap: int | None = None) -> Standings:
        records = self.records
        st = self.publisher.standings(records, self.plan.test(), bootstrap)
        st.sections.extend(self.plan.sections(latest_records(records)))  # a Swiss's tie-breaks, a bracket
        odds = TimeOdds.of_config(self.config)  # each bot's clock, and the note
        if odds is not None:
            odds.apply(st)
        return st

    # -- the run -----------------------------------------------------------------------------
    async def run(self) -> TournamentResult:
        config = self.config
        self.folder.mkdir(parents=True, exist_ok=True)
        with FolderLock(self.folder), contextlib.ExitStack() as closing:
            opened = open_results(config, self.folder, adopt=self.adopt)
            self.appender = closing.enter_context(opened.appender)
            closing.callback(self.publisher.close)
            # The lines this run writes, for its own last page (those its standings process
            # did not replay): from here on, every line is one of them; a page shows the
            # latest MAX_REPLAYS lines, so no older digest is of use to it.
            self.publisher.vouched = Vouched(since=self.appender.length, limit=MAX_REPLAYS)
            for note in opened.notes:
                self.say(note, always=True)
            self.records = opened.records
            self._resumed = len(self.records)
            played = latest_records(self.records).rated()  # a view: kept for the run, it costs little
            plan = self.plan = config.make_plan(played)
            games = plan.games(set(played.slots()))
            # Games to play; None: the plan decides as it goes.
            to_play = games.remaining if games.available() else 0
            progress = Progress(total=plan.total, resumed=games.resumed, slots=lambda: self.executor.slots)
            progress.seed(played)  # the forfeits so far
            self._header(progress)
            (self.folder / LOGS).mkdir(exist_ok=True)
            if to_play != 0:
                try:
                    await self._play(games, to_play, progress)
                except BaseExceptionGroup as group:
                    # trio's nurseries wrap errors in groups; a user-facing error (the
                    # results file cannot be written, the cluster is gone) should reach the
                    # user as itself, after the standings of the games this run recorded.
                    error = single_error(group)
                    if isinstance(error, VastuzError):
                        with contextlib.suppress(OSError, VastuzError):
                            self.publisher.write(await trio.to_thread.run_sync(self.standings))
                    raise error from None
            self._sync_now()  # the games are over: nothing waits for the disk now
            st = await trio.to_thread.run_sync(self.standings)
            self.publisher.write(st)
            page = self.folder / PAGE
            current = (
                progress.played == 0
                and page.exists()
                and self.results.path.exists()
                and page.stat().st_mtime >= self.results.path.stat().st_mtime
                and page_is_final(page)
            )
            # A resume that played nothing keeps a final page newer than the results; every
            # other end of a run writes one that says how it ended and does not reload.
            if not current:
                await trio.to_thread.run_sync(self._write_page, st, progress, False)
        interrupted = self.stopping
        for line in [*self.executor.summary(), *plan.end_lines()]:
            self.say(line, always=True)
        if self.halt is not None and not interrupted:
            raise RunStopped(
                f"{self.halt}. The run stopped after {progress.done} of {progress.total} games; every "
                f"finished game is kept (standings: {shown(self.folder / 'standings.md')}). "
                "Run the same command again to resume."
            )
        return TournamentResult(
            total=progress.total,
            played=progress.played,
            resumed=progress.resumed,
            void=progress.void,
            interrupted=interrupted,
            standings=st,
            folder=self.folder,
        )

    def _header(self, progress: Progress) -> None:
        self.say(header(self.config, self.plan.describe(), self.executor.describe()))
        self.say(f"results: {shown(self.results.path)}")
        for line in cpu_lines(self.config, self.executor.cores):
            self.say(line, always=line.startswith("warning"))
        cpus = available_cpus()
        note = processes_note(self.config, len(cpus) if cpus else os.cpu_count() or 1)
        if note is not None:
            self.say(note)
        if progress.resumed:
            self.say(f"resuming: {progress.resumed} of {progress.total} games already played")

    async def _play(self, games: Pending, to_play: int | None, progress: Progress) -> None:
        """Play the games (``to_play`` of them, None if the plan decides as it goes) on the
        executor: as many worker tasks as it has slots, each taking a batch at a time."""
        games_scope = trio.CancelScope()
        executor = self.executor
        async with trio.open_nursery() as guard:
            # The signal watcher lives outside the games' scope, so that it still hears a
            # second Ctrl-C while the first one's shutdown is closing the bots.
            guard.start_soon(self._watch_signals, games_scope)
            guard.start_soon(self._sync)
            if self.standings_every:
                guard.start_soon(self._publish, progress)
            try:
                with games_scope:
                    async with executor.running():
                        workers = executor.slots
                        if to_play is not None:
                            workers = min(workers, -(-to_play // executor.batch_size))
                        async with trio.open_nursery() as nursery:
                            for _ in range(workers):
                                nursery.start_soon(self._worker, games, progress)
            finally:
                guard.cancel_scope.cancel()

    async def _watch_signals(self, scope: trio.CancelScope) -> None:
        # SIGHUP (the terminal went away) too: dying of it would orphan every bot's group.
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                self.signals_seen += 1
                name = signal.Signals(signum).name
                if self.signals_seen == 1:
                    self.stopping = True
                    self.say(
                        f"\n{name}: stopping; games in progress are abandoned (not recorded), finished games "
                        "are kept. Run the same command again to resume. Again to kill the bots at once.",
                        always=True,
                    )
                    scope.cancel()
                elif self.signals_seen == 2:
                    self.say(f"{name}: killing every bot now", always=True)
                    self.executor.kill_all()
                else:
                    os._exit(130)

    async def _worker(self, games: Pending, progress: Progress) -> None:
        while self.halt is None:
            batch: list[ScheduledGame] = []
            while len(batch) < self.executor.batch_size and games.available():
                batch.append(next(games))
            if not batch:
                if not self._in_flight or not self.plan.waits_for_games_in_flight:
                    return
                # The plan may go on once the games in flight are recorded (an SPRT's
                # results can take the LLR back between the bounds).
                await self._game_recorded.wait()
                continue
            self._in_flight += len(batch)
            try:
                await self.executor.play(batch, lambda played, worker: self._record(played, worker, progress))
            finally:
                self._in_flight -= len(batch)
                self._game_recorded.set()
                self._game_recorded = trio.Event()

    async def _record(self, played: Played, worker: str | None, progress: Progress) -> None:
        """Record a finished game (durably, then in memory, the plan, the output), count
        its bots' starts; called by the executor as each game's result arrives."""
        game, record = played.game, played.record
        if any(k >= self._resumed for k in self.records.rows_of(game.slot)):
            # Recorded by this run already: a batch delivered twice; the first one counts.
            self.say(f"note: {game.slot} arrived again (from {worker}); the first result is kept")
            return
        # Written here, at once (no await: a cancellation cannot come between the game's end
        # and its record); on disk by _sync's next turn.
        try:
            line = self.appender.write(record)
        except OSError as exc:  # disk full, permissions: stop, keep what is written
            raise ResultsError(
                f"cannot write the result of {game.slot} to {shown(self.results.path)}: {exc}; "
                "the run stops here (every earlier result is kept)"
            ) from None
        self._written.set()
        for label, failure in played.starts:
            cannot_start = self.start_failures.count(label, failure)
            if cannot_start is not None:
                self.stop_after_games_in_flight(cannot_start)
        summary = GameSummary.of(record)
        self.records.append(summary)
        self.plan.record(summary)
        progress.count(record)
        plan_lines = self.plan.after_game(self.standings_every)
        for text in [*progress.lines(game_line(game, record, worker), self.plan), *plan_lines]:
            self.say(text)
        self._game_recorded.set()
        self._game_recorded = trio.Event()
        if (
            self.standings_every
            and not progress.played % self.standings_every
            and progress.done < progress.total
        ):
            due = (progress.done, len(self.records), not plan_lines)
            # Each table in turn while they cost little; past their share, the latest only.
            if trio.current_time() >= self._table_pace.next:
                self._tables_due.append(due)
            else:
                self._tables_due = [due]
            self._news.set()  # the standings task (_publish) takes it from here
        digest = line_digest(line)
        vouched = self.publisher.vouched
        if vouched is not None:
            vouched.add((digest,))
        if self._to_standings is not None:
            self._unsent.append((summary, digest))
            if len(self._unsent) >= UNSENT_MAX:
                self._send_unsent()
            if len(self.records) == self._published + 1:  # the files are due again: wake _pace
                self._news.set()

    async def _sync(self) -> None:
        """The results file's group commit: a sync to disk (in a worker thread, so that no
        clock waits for the disk) once a record is written, then none for
        :data:`SYNC_INTERVAL` seconds, so the games recorded meanwhile share the next one.
        The run syncs once more when its games are over (and the file's close does, on
        every other way out)."""
        while True:
            await self._written.wait()
            self._written = trio.Event()
            await trio.to_thread.run_sync(self._sync_now)
            await trio.sleep(SYNC_INTERVAL)

    def _sync_now(self) -> None:
        """Sync the results file now (blocking; see :meth:`_sync`): a failure stops the run."""
        try:
            self.appender.sync()
        except OSError as exc:
            raise ResultsError(
                f"cannot sync {shown(self.results.path)} to disk: {exc}; "
                "the run stops here (every result so far is in the file)"
            ) from None

    async def _publish(self, progress: Progress) -> None:
        """The periodic standings, off the games' path, in a process of their own
        (:mod:`~.store.standings_process`: a thread would hold up the game loop at every
        bot answer), that is sent the records in one write with each request (see
        :meth:`_pace`). A table (or its line) is
        printed after every ``standings_every`` games, of exactly those games, while that
        costs at most a tenth of the wall time (else the next one printed is of the latest
        multiple); the files and the page are rewritten on a time cadence
        (:class:`~.store.publish.Cadence`: at most a twentieth of the wall time, however
        long the run). No game task waits for any of it."""
        try:
            process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "referee.tournament.store.standings_process"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        except OSError as exc:  # no process to spare: the standings at the end only
            self.say(f"note: no periodic standings ({exc}); they are written at the end")
            return
        assert process.stdin is not None and process.stdout is not None
        c = self.config
        settings = {
            "folder": self.folder,
            "name": c.name,
            "names": c.bot_names,
            "anchor": c.elo.anchor,
            "anchor_rating": c.elo.anchor_rating,
            "bootstrap": 200,  # a look at the table, not the final one
            "warning": None
            if c.time_odds is None
            else f"{c.time_odds}: ratings not comparable with those of even games",
        }
        send, outbox = trio.open_memory_channel[bytes](math.inf)
        self._to_standings = send
        # Every line from here on is this run's, and comes with its game (_unsent).
        settings["vouched_from"] = self.appender.length
        send.send_nowait(frame(("init", settings, self.records)))
        self._published = len(self.records)  # records sent (the process's log is a copy of ours)
        replies = _Replies(process.stdout)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._feed, process.stdin, outbox)
                await self._pace(progress, replies)
                nursery.cancel_scope.cancel()  # it ended: nothing more to send
        finally:
            alive, self._to_standings = self._to_standings is not None, None
            unsent, self._unsent = self._unsent, []
            with trio.CancelScope(shield=True):
                if alive and not self.stopping:
                    with trio.move_on_after(60):
                        await self._last_table(process.stdin, outbox, replies, unsent)
                # Its input closed, it ends after the work in hand (the final page is ours);
                # a page it was writing still says when it ran.
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await process.stdin.aclose()
                with trio.move_on_after(60):
                    while (reply := await replies.next()) is not None:
                        self._take(reply, print_tables=False)
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()

    async def _feed(self, stdin: trio.abc.SendStream, outbox: trio.MemoryReceiveChannel[bytes]) -> None:
        """Send the standings process its messages in order, waiting on its pipe here so
        that no game does."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            async for data in outbox:
                with trio.CancelScope(shield=True):  # a frame is sent whole, or the pipe is garbled
                    await stdin.send_all(data)

    async def _pace(self, progress: Progress, replies: _Replies) -> None:
        """Ask the standings process for a table or the files when each is due (see
        :meth:`_publish`), one request at a time, the games recorded since the last one
        sent with it. Woken by :meth:`_record` only when what is due may have changed (a
        table due, the first game since the files were last asked for)."""
        while True:
            self._news = trio.Event()  # before looking: a game recorded from now on wakes us
            now = trio.current_time()
            table = self._tables_due[0] if self._tables_due and now >= self._table_pace.next else None
            files = len(self.records) > self._published and progress.done < progress.total
            if table is None and not (files and now >= self._file_pace.next):
                wake = min(
                    self._table_pace.next if self._tables_due else math.inf,
                    self._file_pace.next if files else math.inf,
                )
                with trio.move_on_at(wake):
                    await self._news.wait()
                continue
            test = self.plan.test()
            if table is not None:
                del self._tables_due[0]
                done, count, one_line = table
                self._send(self._table_request(done, count, one_line, test))
            else:
                self._published = len(self.records)
                self._send(("files", progress.done, progress.total, self._published, test))
            self._asked = True
            reply = await replies.next()
            self._asked = False
            if reply is None:  # it ended: the run goes on, its end writes the standings
                self._to_standings = None
                self._unsent = []
                self.say("note: the periodic standings stopped (their process ended); the run goes on")
                return
            if reply[0] == "say":  # paced by what it cost there, not by the process's start
                if reply[1] is not None:
                    self.say(reply[1])
                self._table_pace.spent(now, now + reply[2])
            elif reply[0] == "wrote":
                started, ended, count, made = reply[1:]
                self.publisher.writes.append((started, ended, count))
                self._file_pace.spent(now, now + ended - started, made)
            else:  # a full disk: the run goes on, the end tries again
                self._file_pace.spent(now, trio.current_time() + 60.0)
                self.say(f"note: the standings could not be written ({reply[1]}); the run goes on")

    async def _last_table(
        self,
        stdin: trio.abc.SendStream,
        outbox: trio.MemoryReceiveChannel[bytes],
        replies: _Replies,
        unsent: list[tuple[GameSummary, str]],
    ) -> None:
        """Once the games are over (not stopped by a signal): the table being computed and
        the last one due, printed before the final one, so a run shorter than the standings
        process's start still prints one every ``standings_every`` games."""
        try:
            while True:  # what is queued first: the request being answered may be in it
                await stdin.send_all(outbox.receive_nowait())
        except trio.WouldBlock:
            pass
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.EndOfChannel, OSError):
            return
        try:
            while self._asked or self._tables_due:
                if not self._asked:
                    done, count, one_line = self._tables_due.pop(0)
                    request = self._table_request(done, count, one_line, self.plan.test())
                    await stdin.send_all(_frames(unsent, request))
                    unsent = []
                    self._asked = True
                reply = await replies.next()
                if reply is None:
                    return
                self._asked = False
                self._take(reply, print_tables=True)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return

    def _table_request(
        self, done: int, count: int, one_line: bool, test: TestView | None
    ) -> tuple[object, ...]:
        quiet = self.quiet
        return ("table", done, count, one_line and not quiet, self.tables and not quiet, test)

    def _take(self, reply: tuple[Any, ...], *, print_tables: bool) -> None:
        """What the standings process answered: a table to print, when it wrote."""
        if reply[0] == "say":
            if reply[1] is not None and print_tables:
                self.say(reply[1])
        elif reply[0] == "wrote":
            self.publisher.writes.append(reply[1:4])

    def _send(self, message: tuple[object, ...]) -> None:
        """Queue ``message`` for the standings process, after the games not sent yet."""
        if self._to_standings is not None:
            unsent, self._unsent = self._unsent, []
            self._to_standings.send_nowait(_frames(unsent, message))

    def _send_unsent(self) -> None:
        if self._to_standings is not None and self._unsent:
            unsent, self._unsent = self._unsent, []
            self._to_standings.send_nowait(_frames(unsent, None))

    def _write_page(self, st: Standings, progress: Progress, running: bool) -> None:
        self.publisher.page(st, self.records, self.plan.test(), (progress.done, progress.total), running)


UNSENT_MAX = 256
"""Games recorded that are sent to the standings process without waiting for its next
request (a run whose tables and files are far apart)."""


def _frames(games: list[tuple[GameSummary, str]], message: tuple[object, ...] | None) -> bytes:
    """The frames of ``games`` and their lines' digests (one ``("games", log, digests)``,
    as the standings process reads them: a log's arrays pickle in a fraction of the time
    its summaries take) and of ``message``, for one write."""
    parts = [frame(("games", SummaryLog([g for g, _ in games]), [d for _, d in games]))] if games else []
    if message is not None:
        parts.append(frame(message))
    return b"".join(parts)


class _Replies:
    """The standings process's answers, one frame at a time."""

    def __init__(self, stdout: trio.abc.ReceiveStream) -> None:
        self.stdout = stdout
        self.buffer = bytearray()

    async def _exactly(self, n: int) -> bytes | None:
        while len(self.buffer) < n:
            chunk = await self.stdout.receive_some()
            if not chunk:
                return None
            self.buffer += chunk
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

    async def next(self) -> tuple[Any, ...] | None:
        head = await self._exactly(HEADER.size)
        if head is None:
            return None
        data = await self._exactly(HEADER.unpack(head)[0])
        if data is None:
            return None
        reply: tuple[Any, ...] = pickle.loads(data)  # our own child's frames, over its pipe
        return reply


ONE_PROCESS_GAMES = 2
"""Games at once that keep one referee process's core busy when the bots answer at once
(instant C bots: one process plays about as many games a second at concurrency 2 as at 8;
the README's Speed table has the figures)."""


def processes_note(config: TournamentConfig, cores: int) -> str | None:
    """The header's note that a run plays more games at once in this process than one core
    can drive when its bots are quick, with the ``--processes`` that would spread them;
    None when it does not apply (a cluster, several processes already, one core)."""
    c = config
    if (
        c.executor.dask is not None
        or c.executor.processes > 1
        or cores < 2
        or c.concurrency <= ONE_PROCESS_GAMES
    ):
        return None
    suggest = min(cores, -(-c.concurrency // ONE_PROCESS_GAMES))
    return (
        f"note: {c.concurrency} games at once in one referee process, which runs on one core: with bots "
        f"that answer quickly that core is the limit from about {ONE_PROCESS_GAMES} games at once; "
        f"--processes {suggest} spreads them over {suggest} referee processes ({cores} cores here)"
    )


async def run_tournament(config: TournamentConfig, **options: Any) -> TournamentResult:
    """Play (or resume) ``config``'s tournament; see :class:`Tournament` for the options."""
    return await Tournament(config, **options).run()


__all__ = ["Progress", "Tournament", "TournamentResult", "game_line", "processes_note", "run_tournament"]
