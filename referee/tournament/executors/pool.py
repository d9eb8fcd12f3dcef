"""Bot processes kept between the games of a tournament.

A healthy bot is reused for its next game (``boardsize`` + ``clear_board`` reset it), so
a tournament does not pay a start-up per game and seeded bots do not replay one game; any
fault retires the process and the next game starts a fresh one. A bot's ``restart`` policy
changes that: ``always`` starts a process per game; ``never`` keeps a process through every
fault its protocol survives: an illegal turn or a resignation (answered in step), and a loss
on time whose late answer then comes within the bot's ``command_timeout`` (taken and
dropped; the record keeps how late it was, ``fault.overshoot``), as cutechess and fastchess
keep an engine. A process that crashed, broke the protocol or stayed silent is replaced
whatever the policy: there is nothing left to keep.

Every process of one bot shares one :class:`~referee.play.logs.LogBudget` (the config's
``logs.max_per_bot``), so a chatty bot cannot fill the disk over a long run. And
:class:`StartFailures` counts the bots that cannot start, game after game, so that a run
stops instead of voiding or forfeiting its whole schedule to a missing program.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import trio

from referee.errors import RunStopped
from referee.play.command import BotCommand
from referee.play.game import play_game
from referee.play.logs import LogBudget
from referee.play.options import DEFAULT_OPTIONS, BotOptions
from referee.play.player import Player
from referee.play.process import BotProcess
from referee.play.records import GameRecord, Termination
from referee.play.spec import GameSpec
from referee.tournament.config.values import DEFAULT_LOG_MAX_PER_BOT, Restart

Starts = list[tuple[str, str | None]]
"""Bot processes whose start a game saw: (label, why it could not start, or None)."""


class PlayerSource(Protocol):
    """Players of a bot that are not this pool's processes (a remote bot's connection, see
    :mod:`referee.ladder.remote`): the pool asks the source of a label for its player and
    gives it back after the game, as it takes and releases its own processes."""

    def take(self, label: str, game_id: str, seat: int) -> Player:
        """The bot's player for this game (already started: the source ran its handshake)."""
        ...

    async def give_back(self, player: Player, keep: bool) -> None:
        """After the game: ``keep`` False when the player faulted (or the game was void), so
        the source retires it as the pool closes a faulty process."""
        ...


DEFAULT_START_FAILURE_LIMIT = 3
"""Start failures in a row after which a run stops (see :class:`StartFailures`)."""


class StartFailures:
    """Consecutive start failures per bot label, to stop a run whose bot cannot start.

    A start failure is anything that goes wrong with a new process before its game's first
    decision: a program that cannot be executed (:class:`BotStartError`), a handshake that
    dies (a missing module, a bad interpreter), times out or answers wrongly (a banner on
    stdout), a ``boardsize`` it refuses. Each voids its game (it is played again on
    resume), so without this count a bot that can never start would void the whole
    schedule, and loop on every resume; a bot that starts resets its count.

    Call :meth:`count` for every start a game reports (:meth:`BotPool.play` reports each
    process once, the first game after its start was tried, whether it was started there or
    on a cluster worker). Once a label reaches ``limit`` failures in a row, :attr:`error` is
    set (and returned by that call): the caller stops taking new games and raises it at the
    end.
    """

    def __init__(self, limit: int = DEFAULT_START_FAILURE_LIMIT) -> None:
        self.limit = limit
        self.in_a_row: Counter[str] = Counter()
        self.error: RunStopped | None = None

    def count(self, label: str, failure: str | None) -> RunStopped | None:
        """Count one start of bot ``label``: ``failure`` says why it could not start (see
        :func:`start_failure_text`), None if it started."""
        if failure is None:
            self.in_a_row[label] = 0
            return None
        self.in_a_row[label] += 1
        if self.in_a_row[label] >= self.limit and self.error is None:
            self.error = RunStopped(
                f"bot {label} could not start {self.in_a_row[label]} times in a row "
                f"(last: {failure}); its games are void, not rated: fix its command, cwd or env in the "
                "config (allowed while it has no rated game) and run again, and they are played"
            )
            return self.error
        return None


def start_failure_text(
    bot: BotProcess, record: GameRecord | None = None, seat: int | None = None
) -> str | None:
    """What counts as a start failure of ``bot`` (see :class:`StartFailures`), in words;
    None if it started and reached its game's first decision. ``record`` and ``seat``: the
    game its start was part of, whose void record names a fault before the first decision
    (after a handshake that went well)."""
    failure = bot.start_failure
    if failure is not None:
        return str(failure)
    if record is not None and record.is_void and record.fault is not None and record.fault.seat == seat:
        return record.reason
    return None


class BotPool:
    """Bot processes by bot name: idle ones waiting for their next game, and all live ones.
    Tournaments (:meth:`~referee.tournament.executors.batch.GameSettings.pool`) and matches keep
    their bots here alike.

    Every process is started in ``nursery`` (its reader and stderr tasks live there) and
    is closed by :meth:`release` or :meth:`aclose` before that nursery ends. ``options``
    are every new :class:`BotProcess`'s (board size, log cap, start-up deadline); each bot
    has one :class:`LogBudget` of ``log_max_per_bot`` bytes over the pool's life.

    ``sources``: the labels whose players come from elsewhere (:class:`PlayerSource`); every
    other label is a process of its command. The mapping may change while the pool runs (a
    remote bot connecting), so it is kept, not copied.
    """

    def __init__(
        self,
        commands: Mapping[str, BotCommand],
        nursery: trio.Nursery,
        log_dir: Path,
        transcripts: bool,
        *,
        log_max_per_bot: int = DEFAULT_LOG_MAX_PER_BOT,
        options: BotOptions = DEFAULT_OPTIONS,
        bot_options: Mapping[str, BotOptions] | None = None,
        restart: Mapping[str, Restart] | None = None,
        sources: dict[str, PlayerSource] | None = None,
    ) -> None:
        """``bot_options``: a bot's own options in place of ``options`` (its start-up
        deadline and commands); ``restart``: a bot's restart policy (default on-fault)."""
        self.commands = dict(commands)
        self.bot_options = dict(bot_options or {})
        self.restart = dict(restart or {})
        self.nursery = nursery
        self.log_dir = log_dir
        self.transcripts = transcripts
        self.options = options
        self.sources: dict[str, PlayerSource] = {} if sources is None else sources
        self.idle: dict[str, list[BotProcess]] = {name: [] for name in self.commands}
        self.live: set[BotProcess] = set()
        self.started = 0
        self.log_budgets = {name: LogBudget(log_max_per_bot) for name in self.commands}
        self._reported: weakref.WeakSet[BotProcess] = weakref.WeakSet()  # starts :meth:`play` reported

    def take(self, name: str, game_id: str, seat: int, cpus: frozenset[int] | None = None) -> BotProcess:
        """An idle healthy process of bot ``name`` or a new (not yet started) one, logging
        to this game's files. With ``cpus`` (affinity), only a process pinned to those
        cores is taken, or a new one is pinned to them: a process stays on its cores for
        life (a running program's threads cannot all be moved safely)."""
        stem = f"{game_id}-{seat}-{name}"
        stderr_log = self.log_dir / f"{stem}.stderr.log"
        transcript = self.log_dir / f"{stem}.transcript.log" if self.transcripts else None
        idle = self.idle[name]
        for k in range(len(idle) - 1, -1, -1):
            if idle[k].cpus != cpus:
                continue
            bot = idle.pop(k)
            if bot.reusable:
                bot.set_logs(stderr_log, transcript)
                return bot
            self.nursery.start_soon(self._close, bot)
        bot = BotProcess.of(
            self.commands[name],
            self.bot_options.get(name, self.options),
            stderr_log=stderr_log,
            transcript=transcript,
            log_budget=self.log_budgets[name],
            cpus=cpus,
        )
        self.live.add(bot)
        self.started += 1
        return bot

    async def play(
        self, first: str, second: str, spec: GameSpec, cpus: frozenset[int] | None = None
    ) -> tuple[GameRecord, Starts]:
        """Play one game between bots ``first`` and ``second`` (seat 0 and 1) with this
        pool's processes (on ``cpus``, see :meth:`take`), and give them back: a healthy bot
        is kept for its next game, a faulty one (or both, if the game was void) is closed.
        Returns the record (with the notes of logs given up) and the starts the game saw
        (see :class:`StartFailures`)."""
        bots = (self._player(first, spec.game_id, 0, cpus), self._player(second, spec.game_id, 1, cpus))
        record: GameRecord | None = None
        try:
            record = await play_game(bots[0], bots[1], spec, start_in=self.nursery)
            starts: Starts = []
            for seat, bot in enumerate(bots):
                if not isinstance(bot, BotProcess):
                    continue
                record.notes.extend(bot.log_notes())  # a log given up, a bot's log cap reached
                if bot not in self._reported and (bot.ready or bot.start_failure is not None):
                    self._reported.add(bot)
                    starts.append((bot.label, start_failure_text(bot, record, seat)))
            return record, starts
        finally:
            with trio.CancelScope(shield=True):
                faulty = record.fault.seat if record is not None and record.fault is not None else None
                keep = record is not None and record.termination is not Termination.VOID
                for seat, bot in enumerate(bots):
                    if not isinstance(bot, BotProcess):
                        await self.sources[bot.label].give_back(bot, keep and seat != faulty)
                        continue
                    policy = self.restart.get(bot.label, Restart.ON_FAULT)
                    # ``never`` keeps a faulted process whose protocol is in step (release
                    # still closes one that is not reusable); ``always`` keeps none.
                    kept = keep and (seat != faulty or policy is Restart.NEVER)
                    if kept and policy is Restart.NEVER and seat == faulty and not bot.reusable:
                        assert record is not None and record.fault is not None
                        await self._resync(bot, record, spec.command_timeout_of(seat))
                    await self.release(bot, kept and policy is not Restart.ALWAYS)

    def _player(self, name: str, game_id: str, seat: int, cpus: frozenset[int] | None) -> Player:
        source = self.sources.get(name)
        return self.take(name, game_id, seat, cpus) if source is None else source.take(name, game_id, seat)

    async def _resync(self, bot: BotProcess, record: GameRecord, grace: float) -> None:
        """A ``restart: never`` bot that lost on time: its process is kept if its late
        answer comes within ``grace`` (its ``command_timeout``), and the record says how far
        past its deadline it came (``fault.overshoot``); a crash, a broken answer or silence
        past the grace leave it unfit, and :meth:`release` closes it."""
        if record.termination is not Termination.TIME or bot.returncode is not None:
            return
        overshoot = await bot.pipes.resync(grace)
        assert record.fault is not None
        if overshoot is not None:
            record.fault.overshoot = round(overshoot, 6)
            record.notes.append(
                f"bot {bot.label}: its late answer came {overshoot * 1e3:,.0f} ms past its deadline; "
                "its process is kept (restart: never)"
            )
        else:
            record.notes.append(
                f"bot {bot.label}: no late answer within {grace:g} s after its loss on time (or not in "
                "step): its process is replaced, as for a crash (restart: never keeps only a process in step)"
            )

    async def release(self, bot: BotProcess, keep: bool) -> None:
        """After a game: keep a healthy process for the next game, or close it."""
        if keep and bot.reusable:
            bot.set_logs(None, None)
            self.idle[bot.label].append(bot)
        else:
            await self._close(bot)

    async def _close(self, bot: BotProcess) -> None:
        try:
            await bot.aclose()
        finally:
            self.live.discard(bot)

    async def aclose(self) -> None:
        """Close every process, idle or not, concurrently (shielded)."""
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as closer:
                for bot in list(self.live):
                    closer.start_soon(self._close, bot)
            for name in self.idle:
                self.idle[name].clear()

    def kill_all(self) -> None:
        """SIGKILL every live process group now (the second Ctrl-C)."""
        for bot in list(self.live):
            bot.kill()
