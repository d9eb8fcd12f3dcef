"""The ladder's loop: rounds, forever (or ``rounds`` of them), on a tournament executor.

One run: lock the output folder, open (and migrate) the store, check that the settings are
the store's, decide each bot's entry (a changed program under the same name is refused
before anything starts), start each bot once for its ``name``/``version`` answers (a bot
that does not start sits this run out), then round after round:

* a round is paired (:mod:`.pairing`, from the rating list of every game so far) and
  stored with all its games before the first starts; a round left unfinished by the last
  run (a stop, a kill) is finished first, its games that had no record played again;
* as many worker tasks as the executor has slots take the round's games; each finished
  game is committed to the store (in a worker thread: an fsync must not stall the clocks
  of the games in flight, and shielded: once a game has finished its record is written)
  before it counts, is printed or changes a rating;
* the next round starts only when the last has ended (every game recorded);
* a bot that could not start 3 times in a row (its games void) sits out the rest of the
  run, its pending games cancelled: a ladder runs for weeks, one broken bot must not stop
  the others' games (a tournament stops instead: its schedule needs every bot).

Remote bots (``remote:``, :mod:`.connections`): the ladder listens for ``vastuz connect``;
a round pairs the remote bots connected at its start beside the local ones, and a remote
bot plays one game at a time: a game starts only when its remote bots are connected and
free, and a game whose remote bot is not connected when its turn comes is cancelled. A
restarted ladder waits up to ``remote.rejoin_wait`` for the remote bots of its unfinished
round to reconnect. A lost connection during a game is that bot's crash; between games
the bot is idle until it reconnects.

A stop file (``--stop-file``), SIGTERM or SIGINT: no new game starts, the games in flight
finish and are recorded, the run exits. A second signal abandons the games in flight (not
recorded: the next run plays them), a third kills the bots at once. A SIGKILL loses at
most the games in flight, which the next run plays: a game is counted only by its commit.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import trio

from referee.errors import RunStopped, VastuzError, single_error
from referee.ladder.config import LadderConfig
from referee.ladder.connections import RemoteHub
from referee.ladder.entries import apply, decide
from referee.ladder.identity import Identity, fingerprint
from referee.ladder.logs import prune_logs
from referee.ladder.pairing import pair_round, round_games
from referee.ladder.ratings import pairing_ratings
from referee.ladder.status import anchor_of, status_text
from referee.ladder.store import Entry, LadderStore
from referee.play.faults import BotFault, BotStartError
from referee.play.process import BotProcess
from referee.tournament.config.values import TournamentConfig
from referee.tournament.executors.batch import GameSettings, Played
from referee.tournament.executors.choose import executor_for
from referee.tournament.executors.local import Executor, LocalExecutor
from referee.tournament.executors.pool import StartFailures
from referee.tournament.progress import game_line
from referee.tournament.slots import ScheduledGame
from referee.tournament.store.files import shown
from referee.tournament.store.results import FolderLock

STOP_FILE_POLL = 0.2
"""Seconds between two looks for the stop file."""
WAIT_POLL = 0.5
"""Seconds between two looks at a stop while waiting for remote bots."""


@dataclass
class LadderResult:
    played: int
    rounds: int
    stopped_by: str | None
    """``stop file``, a signal's name, or None (its rounds done)."""
    interrupted: bool
    """Stopped by a signal (the command's exit code 130)."""


class Ladder:
    def __init__(
        self,
        config: LadderConfig,
        *,
        out: TextIO | None = None,
        quiet: bool = False,
        stop_file: Path | None = None,
        rounds: int | None = None,
    ) -> None:
        self.config = config
        self.out: TextIO | None = sys.stdout if out is None else out
        self.quiet = quiet
        self.stop_file = stop_file
        self.rounds = rounds
        self.stopping: str | None = None
        self.signals_seen = 0
        self.halt: RunStopped | None = None
        self.played = 0
        self.rounds_played = 0
        self.in_flight = 0
        self.start_failures = StartFailures()
        self._executor: Executor | None = None
        self.hub: RemoteHub | None = None
        self.local: set[str] = set()
        """The labels of the local bots playing this run."""
        self.benched: set[str] = set()
        """Bots that could not start too often in a row: they sit out the rest of the run."""
        self._waiting_said = False

    # -- output -----------------------------------------------------------------------------
    def say(self, text: str, *, always: bool = False) -> None:
        if self.out is None or (self.quiet and not always):
            return
        try:
            print(text, file=self.out, flush=True)
        except OSError:
            self.out = None
            self.stop("the output was closed")

    def stop(self, why: str) -> None:
        """No new game starts; the games in flight finish and are recorded."""
        if self.stopping is None:
            self.stopping = why
            self.say(f"stopping ({why}): the {self.in_flight} game(s) in progress finish first", always=True)

    def _stop_run(self, reason: RunStopped) -> None:
        if self.halt is None:
            self.halt = reason
        self.stop(str(reason))

    # -- the run ----------------------------------------------------------------------------
    async def run(self) -> LadderResult:
        config = self.config
        if self.stop_file is not None and self.stop_file.exists():
            raise RunStopped(f"the stop file {shown(self.stop_file)} exists: remove it to start the ladder")
        config.output.mkdir(parents=True, exist_ok=True)
        with FolderLock(config.output), LadderStore(config.store) as store:
            self.store = store
            if store.migrated_from not in (0, store.version()):
                self.say(f"note: {shown(store.path)}: schema migrated from version {store.migrated_from}")
            store.check_settings(config.name, config.settings())
            entries = await self._entries(store)
            remote = [e for e in store.entries() if e.remote and e.retired is None]
            if config.remote is None:
                remote = []
            if len(entries) + len(remote) < 2:
                raise RunStopped("fewer than two bots can play: nothing to do")
            self.entries = entries
            self.local = {e.label for e in entries.values()}
            games = dataclasses.replace(
                config.games,
                bots=tuple(dataclasses.replace(b, name=entries[b.name].label) for b in config.games.bots
                           if b.name in entries),
            )  # fmt: skip
            self.settings = GameSettings.of(games, False)
            self.games = games
            config.logs.mkdir(exist_ok=True)
            executor = self._executor = executor_for(
                games, self.settings, config.logs, say=self.say, stop=self._stop_run
            )
            self.say(self._header(games, executor, len(remote)))
            if config.remote is not None:
                options = self.settings.options()
                self.hub = RemoteHub(
                    config, store, say=self.say, startup_timeout=options.startup_timeout,
                    max_line=options.max_line,
                )  # fmt: skip
            try:
                await self._rounds(executor)
            except BaseExceptionGroup as group:
                error = single_error(group)
                if isinstance(error, VastuzError):
                    raise error from None
                raise
            for line in executor.summary():
                self.say(line, always=True)
            if not self.quiet:
                self.say("\n" + await trio.to_thread.run_sync(status_text, config, store))
        if self.halt is not None:
            raise RunStopped(f"{self.halt}; every finished game is kept, run the ladder again to go on")
        return LadderResult(
            self.played,
            self.rounds_played,
            self.stopping,
            self.signals_seen > 0,
        )

    def _header(self, games: TournamentConfig, executor: Executor, remote: int) -> str:
        tc = games.time_control
        clock = (
            f"{tc.per_move:g} s per move"
            if tc.per_move is not None
            else f"{tc.main:g} s + {tc.increment:g} s"
        )
        c = self.config
        bots = f"{len(self.entries)} bots" + (f" and {remote} remote" if c.remote is not None else "")
        return (
            f"ladder {c.name}: {bots}, board {games.board_size}, "
            f"opening {games.opening.kind.value}, "
            f"{clock}, {c.games_per_pairing} games per pairing a round, {executor.describe()}; "
            f"store {shown(c.store)}"
        )

    async def _entries(self, store: LadderStore) -> dict[str, Entry]:
        """Each bot's entry by its config name: decided on fingerprints first (a refusal
        before any bot starts), then with the protocol answers of a start of each bot; a bot
        that does not start is left out of this run."""
        config = self.config
        prints = {b.name: Identity(fingerprint(config.games.bot(b.name), b.program)) for b in config.bots}
        decide(config, store.entries(), prints)
        answers = await probe(GameSettings.of(config.games, False), config.games.bot_names)
        identities = {}
        for name, identity in prints.items():
            answer = answers[name]
            if isinstance(answer, str):
                self.say(f"warning: bot {name} does not start ({answer}): it sits this run out", always=True)
                continue
            identities[name] = dataclasses.replace(identity, protocol_name=answer[0], version=answer[1])
        playing = dataclasses.replace(config, bots=tuple(b for b in config.bots if b.name in identities))
        actions = decide(playing, store.entries(), identities)
        for action in actions:
            if action.words is not None:
                self.say(action.words)
        return apply(store, playing, actions, identities)

    async def _rounds(self, executor: Executor) -> None:
        games_scope = trio.CancelScope()
        async with trio.open_nursery() as guard:
            guard.start_soon(self._watch_signals, games_scope)
            if self.stop_file is not None:
                guard.start_soon(self._watch_stop_file, self.stop_file)
            hub = self.hub
            if hub is not None:
                await guard.start(hub.run)
            try:
                with games_scope:
                    async with executor.running():
                        if hub is not None:
                            assert isinstance(executor, LocalExecutor) and executor.pool is not None
                            executor.pool.sources = hub.sources
                            await self._rejoin(hub)
                        while self.stopping is None and (
                            self.rounds is None or self.rounds_played < self.rounds
                        ):
                            playing = (
                                self.local | (set() if hub is None else hub.connected())
                            ) - self.benched
                            if len(playing) < 2 and hub is None:
                                self._stop_run(RunStopped("fewer than two bots can play"))
                                break
                            if len(playing) < 2 and hub is not None:
                                await self._wait_for_bots(hub, playing)
                                continue
                            number, games, words = await trio.to_thread.run_sync(self._next_round, playing)
                            for line in words:
                                self.say(line)
                            await self._play(executor, games)
                            if await trio.to_thread.run_sync(self.store.end_round, number):
                                self.rounds_played += 1
                                await trio.to_thread.run_sync(
                                    prune_logs, self.config.logs, number, self.config.keep_logs
                                )
            finally:
                guard.cancel_scope.cancel()

    async def _rejoin(self, hub: RemoteHub) -> None:
        """A restart: wait (``remote.rejoin_wait`` at most) for the remote bots that have
        games in the unfinished round to connect again, so that those games are played."""
        assert self.config.remote is not None
        last = await trio.to_thread.run_sync(self.store.last_round)
        if last is None or last[1]:
            return
        pending = await trio.to_thread.run_sync(self.store.pending, last[0], self.games.opening.kind)
        wanted = {label for g in pending for label in g.bots if label not in self.local}
        wanted &= {e.label for e in self.store.entries() if e.remote and e.retired is None}
        if not wanted:
            return
        self.say(
            f"waiting up to {self.config.remote.rejoin_wait:g} s for {', '.join(sorted(wanted))} to reconnect"
        )
        with trio.move_on_after(self.config.remote.rejoin_wait):
            while self.stopping is None and not wanted <= hub.connected():
                with trio.move_on_after(WAIT_POLL):  # a stop is seen within WAIT_POLL
                    await hub.wait_change()

    async def _wait_for_bots(self, hub: RemoteHub, playing: set[str]) -> None:
        if not self._waiting_said:
            self._waiting_said = True
            self.say(f"{len(playing)} bot(s) connected: waiting for remote bots to connect ({hub.url})")
        with trio.move_on_after(WAIT_POLL):
            await hub.wait_change()

    def _next_round(self, playing: set[str]) -> tuple[int, list[ScheduledGame], list[str]]:
        """The unfinished round's games, else a new round's (stored before it is played)
        between the ``playing`` labels, and what to say about it. Blocking: run in a worker
        thread."""
        store = self.store
        mode = self.games.opening.kind
        last = store.last_round()
        words = []
        if last is not None and not last[1]:
            number = last[0]
            pending = store.pending(number, mode)
            gone = [g.slot for g in pending if not set(g.bots) <= playing]
            if gone:
                store.cancel(gone)
                words.append(
                    f"round {number}: {len(gone)} game(s) cancelled: a bot of theirs does not play now"
                )
            pending = [g for g in pending if set(g.bots) <= playing]
            if pending:
                words.append(f"round {number} resumed: {len(pending)} game(s) to play")
                return number, pending, words
            store.end_round(number)
        number = 1 if last is None else last[0] + 1
        tallies = store.tallies()
        default = 0.0 if self.config.anchors == () else self.config.anchors[0].rating
        ratings = pairing_ratings(
            tallies, sorted(playing), anchor=anchor_of(self.config, self.entries), prior=default
        )
        counts = dict.fromkeys(playing, 0)
        for a, b, _, n in tallies:
            for label in (a, b):
                if label in counts:
                    counts[label] += n
        pairings = pair_round(
            number,
            ratings,
            counts,
            self.config.pairing,
            tallies=tallies,
            games_per_pairing=self.config.games_per_pairing,
        )
        games = round_games(
            pairings,
            self.config.games_per_pairing,
            mode,
            self.games.opening.openings,
            index=store.scheduled(),
        )
        store.new_round(number, games)
        words.append(f"round {number}: {pairings.words()}")
        return number, games, words

    async def _play(self, executor: Executor, games: Sequence[ScheduledGame]) -> None:
        if self.hub is not None:
            await self._play_with_remote(executor, self.hub, list(games))
            return
        queue = list(games)
        queue.reverse()

        async def worker() -> None:
            while self.stopping is None and queue:
                batch = [queue.pop() for _ in range(min(executor.batch_size, len(queue)))]
                benched = [g for g in batch if not self.benched.isdisjoint(g.bots)]
                if benched:
                    await self._cancel(benched, "a bot of theirs sits out (it could not start)")
                    batch = [g for g in batch if g not in benched]
                    if not batch:
                        continue
                self.in_flight += len(batch)
                try:
                    await executor.play(batch, self._record)
                finally:
                    self.in_flight -= len(batch)

        async with trio.open_nursery() as nursery:
            for _ in range(min(executor.slots, math.ceil(len(games) / executor.batch_size))):
                nursery.start_soon(worker)

    async def _play_with_remote(self, executor: Executor, hub: RemoteHub, queue: list[ScheduledGame]) -> None:
        """The round's games, each started once its remote bots are free (a remote bot plays
        one game at a time); one whose remote bot is not connected is cancelled."""

        async def next_game() -> ScheduledGame | None:
            while self.stopping is None and queue:
                benched = [g for g in queue if not self.benched.isdisjoint(g.bots)]
                if benched:
                    for g in benched:
                        queue.remove(g)
                    await self._cancel(benched, "a bot of theirs sits out (it could not start)")
                gone = [g for g in queue if any(b not in self.local and b not in hub.players for b in g.bots)]
                if gone:
                    for g in gone:
                        queue.remove(g)
                    await trio.to_thread.run_sync(self.store.cancel, [g.slot for g in gone])
                    self.say(
                        f"round {gone[0].round}: {len(gone)} game(s) cancelled: a remote bot of theirs is "
                        "not connected"
                    )
                    continue
                for k, game in enumerate(queue):
                    remote = [b for b in game.bots if b not in self.local]
                    if all(hub.free(b) for b in remote):
                        for b in remote:
                            hub.reserve(b)
                        return queue.pop(k)
                with trio.move_on_after(WAIT_POLL):
                    await hub.wait_change()
            return None

        async def worker() -> None:
            while (game := await next_game()) is not None:
                self.in_flight += 1
                try:
                    await executor.play([game], self._record)
                finally:
                    self.in_flight -= 1
                    for b in game.bots:
                        hub.unreserve(b)

        async with trio.open_nursery() as nursery:
            for _ in range(min(executor.slots, len(queue))):
                nursery.start_soon(worker)

    async def _record(self, played: Played, worker: str | None) -> None:
        """Commit a finished game (it counts from then on), then say it."""
        game, record = played.game, played.record
        with trio.CancelScope(shield=True):
            counted = await trio.to_thread.run_sync(self.store.commit, record)
        if not counted:
            self.say(f"note: {game.slot} arrived again (from {worker}); the first result is kept")
            return
        self.played += 1
        for label, failure in played.starts:
            self.start_failures.count(label, failure)
            times = self.start_failures.in_a_row[label]
            if failure is not None and times >= self.start_failures.limit and label not in self.benched:
                # A ladder runs for weeks: one broken bot must not stop the others' games.
                self.benched.add(label)
                self.say(
                    f"warning: bot {label} could not start {times} times in a row (last: {failure}); its "
                    "games are void, not rated: it sits out the rest of this run, the others play on. Fix "
                    "its command, cwd or env, then restart the ladder",
                    always=True,
                )
        self.say(game_line(game, record, worker))

    async def _cancel(self, games: Sequence[ScheduledGame], why: str) -> None:
        await trio.to_thread.run_sync(self.store.cancel, [g.slot for g in games])
        self.say(f"round {games[0].round}: {len(games)} game(s) cancelled: {why}")

    async def _watch_stop_file(self, path: Path) -> None:
        while not path.exists():
            await trio.sleep(STOP_FILE_POLL)
        self.stop("stop file")

    async def _watch_signals(self, scope: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                self.signals_seen += 1
                name = signal.Signals(signum).name
                if self.signals_seen == 1:
                    self.stop(name)
                elif self.signals_seen == 2:
                    self.say(
                        f"{name}: the games in progress are abandoned (the next run plays them)", always=True
                    )
                    scope.cancel()
                elif self.signals_seen == 3:
                    self.say(f"{name}: killing every bot now", always=True)
                    self.executor_kill()
                else:
                    os._exit(130)

    def executor_kill(self) -> None:
        if self._executor is not None:
            self._executor.kill_all()


async def probe(
    settings: GameSettings, names: Sequence[str]
) -> dict[str, tuple[str | None, str | None] | str]:
    """Start each bot once, all at once, for its ``name`` and ``version`` answers (and close
    it); for a bot that does not start, why."""
    out: dict[str, tuple[str | None, str | None] | str] = {}

    async def one(name: str) -> None:
        bot = BotProcess.of(settings.commands[name], settings.options(name))
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                out[name] = (bot.name, bot.version)
            except (BotFault, BotStartError, OSError) as exc:
                out[name] = str(exc) or type(exc).__name__
            finally:
                with trio.CancelScope(shield=True):
                    await bot.aclose()

    async with trio.open_nursery() as nursery:
        for name in names:
            nursery.start_soon(one, name)
    return out


__all__ = ["Ladder", "LadderResult", "probe"]
