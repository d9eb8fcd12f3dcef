"""Playing scheduled games with a pool of bots: what every executor runs, wherever it runs.

The local executor plays one scheduled game at a time per worker task with the run's own
:class:`~referee.tournament.executors.pool.BotPool`; a cluster worker plays a *batch* (a few games,
by default one colour-reversed pair) in one ``trio.run`` with a pool of its own, and sends
the records back to the coordinator, which alone writes the results file. Both go through
:func:`play_scheduled`, so a game is played the same way on a laptop and on a cluster.

Nothing here knows about Dask: a batch is plain values in (:class:`GameSettings`, the
games) and plain values out (:class:`BatchResult`), so the cluster glue
(:mod:`referee.tournament.executors.dask_cluster`) only moves them.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.play.command import BotCommand
from referee.play.options import BotOptions
from referee.play.process import BotProcess
from referee.play.programs import program_problem
from referee.play.records import GameRecord, SlotInfo, parse_line
from referee.play.sandbox import Sandbox
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT,
    GameSpec,
    OpeningKind,
    TimeControl,
)
from referee.tournament.config.values import BotSpec, Restart, TournamentConfig
from referee.tournament.executors.pool import BotPool, Starts
from referee.tournament.slots import ScheduledGame

STOP_POLL_SECONDS = 1.0
"""How often a batch asks whether the run was stopped (a cluster worker's Ctrl-C)."""


def _command(config: TournamentConfig, bot: BotSpec) -> BotCommand:
    """How to start ``bot``: in a sandbox, the results folder and the other bots' folders
    are hidden from it."""
    sandbox = None
    if bot.sandbox:
        others = (other.cwd for other in config.bots if other.cwd != bot.cwd)
        sandbox = Sandbox(hidden=(config.output, *others))
    return BotCommand(bot.command, bot.name, bot.cwd, dict(bot.env), bot.limits, sandbox)


@dataclass(frozen=True)
class BotSettings:
    """A bot's own settings that playing its games needs (``bots[]`` of the config; None:
    the config's). Plain values: it crosses to referee processes and cluster workers."""

    time_control: TimeControl | None = None
    startup_commands: tuple[str, ...] = ()
    restart: Restart = Restart.ON_FAULT
    startup_timeout: float | None = None
    command_timeout: float | None = None

    @classmethod
    def of(cls, bot: BotSpec) -> BotSettings:
        return cls(
            bot.time_control, bot.startup_commands, bot.restart, bot.startup_timeout, bot.command_timeout
        )


@dataclass(frozen=True)
class GameSettings:
    """What playing a tournament's games needs beyond the games themselves: the bots'
    commands, the board, the clock and the log caps. Small and picklable (a config may
    hold 100,000 random openings; a batch carries only its own games')."""

    tournament: str
    board_size: int
    time_control: TimeControl
    commands: dict[str, BotCommand]
    log_max_per_game: int
    log_max_per_bot: int
    transcripts: bool = False
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    bots: dict[str, BotSettings] = field(default_factory=dict)
    """Each bot's own settings (clock, timeouts, start-up commands, restart policy)."""

    @classmethod
    def of(cls, config: TournamentConfig, transcripts: bool) -> GameSettings:
        return cls(
            tournament=config.name,
            board_size=config.board_size,
            time_control=config.time_control,
            commands={b.name: _command(config, b) for b in config.bots},
            log_max_per_game=config.logs.max_per_game,
            log_max_per_bot=config.logs.max_per_bot,
            transcripts=transcripts,
            startup_timeout=config.startup_timeout,
            command_timeout=config.command_timeout,
            bots={b.name: BotSettings.of(b) for b in config.bots},
        )

    def options(self, name: str | None = None) -> BotOptions:
        """The options of bot ``name``'s processes (its own start-up deadline and commands)."""
        bot = self.bots.get(name or "")
        return BotOptions(
            board_size=self.board_size,
            log_cap=self.log_max_per_game,
            startup_timeout=self.startup_timeout
            if bot is None or bot.startup_timeout is None
            else bot.startup_timeout,
            startup_commands=() if bot is None else bot.startup_commands,
        )

    def pool(self, nursery: trio.Nursery, log_dir: Path) -> BotPool:
        return BotPool(
            self.commands,
            nursery,
            log_dir,
            self.transcripts,
            log_max_per_bot=self.log_max_per_bot,
            options=self.options(),
            bot_options={name: self.options(name) for name in self.bots},
            restart={name: bot.restart for name, bot in self.bots.items()},
        )

    def spec(self, game: ScheduledGame) -> GameSpec:
        return GameSpec(
            size=self.board_size,
            opening=game.mode,
            setup=game.opening if game.mode in (OpeningKind.BOOK, OpeningKind.RANDOM) else None,
            time_control=self.time_control,
            command_timeout=self.command_timeout,
            game_id=game.slot,
            seat_time_controls=(self._own(game.first).time_control, self._own(game.second).time_control),
            seat_command_timeouts=(
                self._own(game.first).command_timeout,
                self._own(game.second).command_timeout,
            ),
        )

    def _own(self, name: str) -> BotSettings:
        return self.bots.get(name) or BotSettings()

    def slot_info(self, game: ScheduledGame) -> SlotInfo:
        return SlotInfo(
            name=self.tournament,
            slot=game.slot,
            index=game.index,
            round=game.round,
            pair_key=game.pair_key,
            opening=None if game.opening is None else game.opening.label,
        )


@dataclass
class Played:
    """One finished game: its record, and the starts of the bot processes it was the first
    to see (label, and why it could not start or None), for
    :meth:`~referee.tournament.executors.pool.StartFailures.count`."""

    game: ScheduledGame
    record: GameRecord
    starts: Starts = field(default_factory=list)


async def play_scheduled(
    pool: BotPool, settings: GameSettings, game: ScheduledGame, cpus: frozenset[int] | None = None
) -> Played:
    """Play one scheduled game with ``pool``'s bots (see :meth:`BotPool.play`)."""
    record, starts = await pool.play(game.first, game.second, settings.spec(game), cpus)
    record.tournament = settings.slot_info(game)
    return Played(game, record, starts)


# ------------------------------------------------------------------ a batch on a worker
class BatchRefused(Exception):
    """A worker cannot play a batch: a bot's program is missing there, or the batch broke
    on our side. ``worker`` is the worker's address; the coordinator tries the batch on the
    other workers and stops the run once every worker has refused it."""

    def __init__(self, worker: str, message: str) -> None:
        super().__init__(worker, message)
        self.worker = worker
        self.message = message

    def __str__(self) -> str:
        return f"worker {self.worker}: {self.message}"


@dataclass
class BatchResult:
    """What a worker sends back: each game's record as its results-file line (the one
    codec), the processes' starts, the log files' contents, and how long the batch took
    there (the coordinator's own measure minus this is the dispatch overhead)."""

    worker: str
    games: list[tuple[str, str, list[tuple[str, str | None]]]]
    """(slot, record line, starts) per finished game, in the order played."""
    logs: list[tuple[str, str, bytes]]
    """(file name, bot name, contents) of every log file the batch wrote."""
    seconds: float
    abandoned: bool = False

    def played(self, games: Sequence[ScheduledGame]) -> list[Played]:
        """The records, matched back to the scheduled games (by slot)."""
        by_slot = {g.slot: g for g in games}
        return [Played(by_slot[slot], parse_line(line), starts) for slot, line, starts in self.games]


def missing_program(settings: GameSettings, names: Sequence[str]) -> str | None:
    """Why one of the bots ``names`` cannot be started here, or None: the same check as
    config validation, made where the bots will run."""
    for name in dict.fromkeys(names):
        command = settings.commands[name]
        argv = command.argv
        cwd = Path(command.cwd) if command.cwd is not None else Path.cwd()
        if command.cwd is not None and not Path(command.cwd).is_dir():
            return f"bot {name}: working folder {str(command.cwd)!r} does not exist"
        problem = program_problem(argv[0], cwd, command.env)
        if problem is not None:
            return f"bot {name}: {problem}"
    return None


async def play_batch(
    settings: GameSettings,
    games: Sequence[ScheduledGame],
    log_dir: Path,
    stopped: Callable[[float], bool] | None = None,
) -> tuple[list[Played], bool]:
    """Play ``games`` one after the other with one pool (bots started once, reused), then
    close every bot. ``stopped(timeout)`` (blocking, run in a thread) says whether the run
    was stopped: the batch then abandons its game in progress, as a Ctrl-C does locally.
    Returns the finished games and whether the batch was abandoned."""
    played: list[Played] = []
    abandoned = False
    async with trio.open_nursery() as nursery:
        games_scope = trio.CancelScope()
        if stopped is not None:

            async def watch() -> None:
                nonlocal abandoned
                while not await trio.to_thread.run_sync(stopped, STOP_POLL_SECONDS, abandon_on_cancel=True):
                    await trio.sleep(0)
                abandoned = True
                games_scope.cancel()

            nursery.start_soon(watch)
        async with trio.open_nursery() as bots:
            pool = settings.pool(bots, log_dir)
            try:
                with games_scope:
                    for game in games:
                        played.append(await play_scheduled(pool, settings, game))
            finally:
                await pool.aclose()
        nursery.cancel_scope.cancel()
    return played, abandoned


def run_batch(
    settings: GameSettings,
    games: Sequence[ScheduledGame],
    worker: str,
    stopped: Callable[[float], bool] | None = None,
) -> BatchResult:
    """A batch as a worker runs it (blocking: one ``trio.run`` in the worker's thread): the
    bots' programs checked, the games played with logs in a temporary folder, the logs read
    back for the coordinator. Any failure on our side is a :class:`BatchRefused`."""
    started = time.monotonic()
    names = [name for game in games for name in game.bots]
    problem = missing_program(settings, names)
    if problem is not None:
        raise BatchRefused(worker, problem)
    try:
        with tempfile.TemporaryDirectory(prefix="vastuz-batch-") as tmp:
            log_dir = Path(tmp)
            played, abandoned = trio.run(play_batch, settings, games, log_dir, stopped)
            logs = []
            for game in games:  # the files the pool named (see BotPool.take)
                for seat, name in enumerate(game.bots):
                    for kind in ("stderr", "transcript"):
                        path = log_dir / f"{game.slot}-{seat}-{name}.{kind}.log"
                        if path.is_file():
                            logs.append((path.name, name, path.read_bytes()))
    except BatchRefused:
        raise
    except Exception as exc:  # a bug or an environment problem of ours: refuse, say why
        raise BatchRefused(worker, f"the batch failed: {type(exc).__name__}: {exc}") from None
    return BatchResult(
        worker=worker,
        games=[(p.game.slot, p.record.to_json(), p.starts) for p in played],
        logs=logs,
        seconds=time.monotonic() - started,
        abandoned=abandoned,
    )


async def probe(settings: GameSettings, timeout: float | None = None) -> list[str]:
    """Start each bot once (program found, handshake answered) and close it: what a worker
    runs before the first game. The problems found, one per bot that cannot start."""
    names = list(settings.commands)
    problems: dict[str, str] = {}

    async def one(name: str) -> None:
        missing = missing_program(settings, [name])
        if missing is not None:
            problems[name] = missing
            return
        startup_timeout = settings.startup_timeout if timeout is None else timeout
        options = BotOptions(board_size=settings.board_size, startup_timeout=startup_timeout)
        bot = BotProcess.of(settings.commands[name], options)
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
            except Exception as exc:
                problems[name] = f"bot {name}: does not start: {exc}"
            finally:
                await bot.aclose()

    async with trio.open_nursery() as nursery:
        for name in names:
            nursery.start_soon(one, name)
    return [problems[name] for name in names if name in problems]


def run_probe(settings: GameSettings) -> list[str]:
    """:func:`probe` as a worker runs it (blocking)."""
    return trio.run(probe, settings)
