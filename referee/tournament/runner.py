"""Run a tournament: the schedule, concurrently, with durable and resumable results.

The pieces, each elsewhere: :mod:`~referee.tournament.config_yaml` validates the YAML,
:mod:`~referee.tournament.schedule` lists the games, :mod:`referee.play.game` plays one,
:mod:`~referee.tournament.results` keeps the results file, :mod:`~referee.tournament.folder`
the manifest, :mod:`~referee.tournament.pool` the bot processes, and
:mod:`referee.ratings.report` ranks the bots. This module only runs the list:

* ``concurrency`` workers take games in schedule order (so the two games of an opening
  pair start together), each inside the one nursery of the run;
* bot processes are kept in a :class:`BotPool` and reused for the bot's next game while
  they are healthy (``boardsize`` + ``clear_board`` reset them); any fault retires the
  process and the next game starts a fresh one;
* each finished game is appended to ``OUTPUT/results.jsonl`` and synced to disk before the
  next line of output, in a worker thread so no bot's clock is charged for our disk;
* running the same config again resumes: games already in the file are not played again.
  ``OUTPUT/tournament.json`` holds the config's fingerprint, and a config that would mix
  incompatible results (other commands, board size, clock, openings) is refused;
* the first Ctrl-C or SIGTERM abandons the running games (they are not recorded), closes
  every bot and writes the standings of what was played; a second one kills the bots at
  once. A SIGKILL loses at most the games in flight: the results file is repaired on resume.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import trio

from referee.errors import ResultsError
from referee.play.game import play_game
from referee.play.records import GameRecord, SlotInfo, Termination
from referee.play.spec import GameSpec, OpeningKind
from referee.ratings.report import Standings, render, standings
from referee.tournament.config import TournamentConfig
from referee.tournament.folder import LOGS, RESULTS, check_manifest, latest_records, shown, write_standings
from referee.tournament.pool import BotPool
from referee.tournament.results import FolderLock, ResultsFile
from referee.tournament.schedule import ScheduledGame, build_schedule


def _single(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error inside (nested) exception groups, or the group itself if there are more."""
    inner: BaseException = group
    while isinstance(inner, BaseExceptionGroup) and len(inner.exceptions) == 1:
        inner = inner.exceptions[0]
    return inner


# ------------------------------------------------------------------------------ the run
@dataclass
class Progress:
    """Counts for the live output."""

    total: int
    resumed: int
    played: int = 0
    void: int = 0
    started_at: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> int:
        return self.resumed + self.played

    def eta(self) -> str:
        if not self.played:
            return "?"
        per_game = (time.monotonic() - self.started_at) / self.played
        return _clock(per_game * (self.total - self.done))

    def elapsed(self) -> str:
        return _clock(time.monotonic() - self.started_at)


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


@dataclass
class TournamentResult:
    """What a run did: games played now and in total, whether it was stopped, the standings."""

    total: int
    played: int
    resumed: int
    void: int
    interrupted: bool
    standings: Standings | None
    folder: Path


def game_line(game: ScheduledGame, record: GameRecord) -> str:
    """One line per finished game: the pairing with colours, result, how, turns, time."""
    black = record.label_of(record.black)
    white = record.label_of(record.white)
    how = record.termination.value
    if record.termination is not Termination.SCORE:
        reason = record.reason if len(record.reason) <= 100 else record.reason[:97] + "..."
        how += f": {reason}"
    return (
        f"{game.slot}: {black} (B) - {white} (W)  {record.result:<6} {how}; "
        f"{len(record.turns)} turns, {record.wall_seconds:.1f} s"
    )


class Tournament:
    """One run of a config: plays the missing games, reports as it goes."""

    def __init__(
        self,
        config: TournamentConfig,
        *,
        out: TextIO = sys.stdout,
        quiet: bool = False,
        standings_every: int = 10,
        transcripts: bool = False,
        bootstrap: int = 1000,
    ) -> None:
        self.config = config
        self.folder = config.output
        self.out = out
        self.quiet = quiet
        self.standings_every = standings_every
        self.transcripts = transcripts
        self.bootstrap = bootstrap
        self.results = ResultsFile(self.folder / RESULTS)
        self.records: list[GameRecord] = []
        self.stopping = False
        self.signals_seen = 0
        self.pool: BotPool | None = None

    # -- output ----------------------------------------------------------------------------
    def say(self, text: str, *, always: bool = False) -> None:
        if always or not self.quiet:
            print(text, file=self.out, flush=True)

    def standings(self, bootstrap: int | None = None) -> Standings:
        return standings(
            latest_records(self.records),
            self.config.bot_names,
            anchor=self.config.elo.anchor,
            anchor_rating=self.config.elo.anchor_rating,
            bootstrap=self.bootstrap if bootstrap is None else bootstrap,
        )

    # -- the run -----------------------------------------------------------------------------
    async def run(self) -> TournamentResult:
        config = self.config
        self.folder.mkdir(parents=True, exist_ok=True)
        with FolderLock(self.folder):
            check_manifest(config, self.folder)
            loaded = self.results.repair()
            if loaded.torn_tail:
                self.say(
                    f"note: dropped a torn last line of {shown(self.results.path)} "
                    f"({len(loaded.torn_tail)} bytes): "
                    "the game in flight when the previous run was killed; it will be replayed",
                    always=True,
                )
            self.records = loaded.records
            schedule = build_schedule(config)
            done = {r.slot for r in latest_records(self.records) if not r.is_void}
            pending = [g for g in schedule if g.slot not in done]
            progress = Progress(total=len(schedule), resumed=len(schedule) - len(pending))
            self._header(progress)
            (self.folder / LOGS).mkdir(exist_ok=True)
            if pending:
                try:
                    await self._play(pending, progress)
                except BaseExceptionGroup as group:
                    # trio's nurseries wrap errors in groups; a user-facing error (the
                    # results file cannot be written) should reach the user as itself.
                    raise _single(group) from None
            st = await trio.to_thread.run_sync(self.standings)
            write_standings(self.folder, st, f"{config.name}: standings")
        interrupted = self.stopping
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
        c = self.config
        tc = c.time_control
        clock = (
            f"{tc.per_move:g} s per move"
            if tc.per_move is not None
            else f"{tc.main:g} s + {tc.increment:g} s per move"
        )
        self.say(
            f"tournament {c.name}: {len(c.bots)} bots, board {c.board_size}, opening {c.opening.kind.value}, "
            f"{clock}, {progress.total} games, concurrency {c.concurrency}"
        )
        self.say(f"results: {shown(self.results.path)}")
        if progress.resumed:
            self.say(f"resuming: {progress.resumed} of {progress.total} games already played")

    async def _play(self, pending: list[ScheduledGame], progress: Progress) -> None:
        games = iter(pending)
        games_scope = trio.CancelScope()
        async with trio.open_nursery() as guard:
            # The signal watcher lives outside the games' scope, so that it still hears a
            # second Ctrl-C while the first one's shutdown is closing the bots.
            guard.start_soon(self._watch_signals, games_scope)
            try:
                async with trio.open_nursery() as bots_nursery:
                    pool = self.pool = BotPool(
                        self.config, bots_nursery, self.folder / LOGS, self.transcripts
                    )
                    try:
                        with games_scope:
                            async with trio.open_nursery() as workers:
                                for _ in range(min(self.config.concurrency, len(pending))):
                                    workers.start_soon(self._worker, games, progress)
                    finally:
                        await pool.aclose()
            finally:
                guard.cancel_scope.cancel()

    async def _watch_signals(self, scope: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
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
                    if self.pool is not None:
                        self.pool.kill_all()
                else:
                    os._exit(130)

    async def _worker(self, games: Iterator[ScheduledGame], progress: Progress) -> None:
        for game in games:
            record = await self._play_one(game)
            record.tournament = SlotInfo(
                name=self.config.name,
                slot=game.slot,
                index=game.index,
                round=game.round,
                pair_key=game.pair_key,
                opening=None if game.opening is None else game.opening.label,
            )
            # Shielded: once a game has finished, its record is written whatever happens.
            with trio.CancelScope(shield=True):
                try:
                    await trio.to_thread.run_sync(self.results.append, record)
                except OSError as exc:  # disk full, permissions: stop, keep what is written
                    raise ResultsError(
                        f"cannot write the result of {game.slot} to {shown(self.results.path)}: {exc}; "
                        "the run stops here (every earlier result is on disk)"
                    ) from None
            self.records.append(record)
            progress.played += 1
            if record.termination is Termination.VOID:
                progress.void += 1
            self._report(game, record, progress)
            await self._maybe_standings(progress)

    async def _play_one(self, game: ScheduledGame) -> GameRecord:
        assert self.pool is not None
        c = self.config
        spec = GameSpec(
            size=c.board_size,
            opening=game.mode,
            setup=game.opening if game.mode in (OpeningKind.BOOK, OpeningKind.RANDOM) else None,
            time_control=c.time_control,
            game_id=game.slot,
        )
        first = self.pool.take(game.first, game.slot, 0)
        second = self.pool.take(game.second, game.slot, 1)
        record: GameRecord | None = None
        try:
            record = await play_game(first, second, spec, start_in=self.pool.nursery)
            return record
        finally:
            with trio.CancelScope(shield=True):
                faulty = record.fault.seat if record is not None and record.fault is not None else None
                keep = record is not None and record.termination is not Termination.VOID
                for seat, bot in ((0, first), (1, second)):
                    await self.pool.release(bot, keep and seat != faulty)

    def _report(self, game: ScheduledGame, record: GameRecord, progress: Progress) -> None:
        self.say(f"[{progress.done:>{len(str(progress.total))}}/{progress.total}] {game_line(game, record)}")
        if progress.done < progress.total:
            self.say(
                f"    progress: {progress.done}/{progress.total} games, "
                f"elapsed {progress.elapsed()}, ETA {progress.eta()}"
            )

    async def _maybe_standings(self, progress: Progress) -> None:
        if (
            self.quiet
            or not self.standings_every
            or progress.played % self.standings_every
            or progress.done >= progress.total
        ):
            return
        # Fewer bootstrap samples and a worker thread: a look at the table must not delay
        # the games in flight (their bots' clocks are running).
        st = await trio.to_thread.run_sync(self.standings, 200)
        self.say("\n" + render(st, "text", title=f"standings after {progress.done} games").rstrip() + "\n")


async def run_tournament(config: TournamentConfig, **options: Any) -> TournamentResult:
    """Play (or resume) ``config``'s tournament; see :class:`Tournament` for the options."""
    return await Tournament(config, **options).run()


__all__ = ["Progress", "Tournament", "TournamentResult", "game_line", "run_tournament"]
