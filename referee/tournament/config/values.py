"""Tournament configs as frozen values: what :mod:`referee.tournament.config.loading` builds.

The YAML loader and its validation live in :mod:`referee.tournament.config.loading`; this
module has no YAML in it, so the schedule and the runner can use a config without the
parser. The whole file is validated before any bot starts, because a typo found after an hour of
games is an hour lost. Each error is a :class:`~referee.errors.ConfigError` that names the
file, the key path (``bots[2].command``, indices counting from 0) and what was expected.

One rule for paths, so a config means the same thing whichever directory it is run from:
**a relative path in a config (``output``, ``bots[].cwd``, ``opening.book``) is relative to
the folder that holds the config file**, and the defaults follow the same rule (``cwd``
defaults to that folder, ``output`` to ``results/<name>`` inside it). The format is
documented for users in ``configs/README.md``.

Openings are resolved by the loader (with :mod:`referee.tournament.config.openings`: the book is
read and every line checked with the rules engine; random setups are generated from their
seed), so the list of openings is part of the config's :meth:`TournamentConfig.fingerprint`
and a resumed run can prove it plays the same openings. This module reads no file, starts
no process and needs neither YAML nor trio.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from referee.play.limits import DEFAULT_LIMITS, Limits
from referee.play.records import GameSummary
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_MARGIN,
    DEFAULT_STARTUP_TIMEOUT,
    Opening,
    OpeningKind,
    TimeControl,
)
from referee.tournament.plans.kinds import ScheduleSpec
from referee.tournament.plans.plan import Field, OpeningPolicy, Plan

DEFAULT_BOARD_SIZE = 7
DEFAULT_RANDOM_SEED = 0
DEFAULT_LOG_MAX_PER_GAME = 1 << 20
DEFAULT_LOG_MAX_PER_BOT = 100 << 20

NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]+")
"""Tournament and bot names become parts of file names and game ids, hence this set."""


# --------------------------------------------------------------------------- value objects


@dataclass(frozen=True)
class OpeningSpec:
    """The ``opening`` key. ``openings`` is the resolved list, non-empty exactly for
    ``BOOK`` and ``RANDOM``; ``book`` is the resolved book path; ``count``/``seed``/
    ``random_turns`` echo the ``random`` settings. ``openings`` are in the order they are
    dealt (a book with ``order: random`` is shuffled by ``order_seed`` when read), and
    ``policy`` says how (:class:`~referee.tournament.plans.plan.OpeningPolicy`)."""

    kind: OpeningKind
    openings: tuple[Opening, ...] = ()
    book: Path | None = None
    count: int | None = None
    seed: int | None = None
    random_turns: int = 0
    policy: OpeningPolicy = OpeningPolicy.ROUND
    order: str = "sequential"
    order_seed: int | None = None


@dataclass(frozen=True)
class EloSpec:
    """Where the rating scale sits: ``anchor`` is rated ``anchor_rating``; without an
    anchor the mean rating of all bots is ``anchor_rating``."""

    anchor: str | None = None
    anchor_rating: float = 0.0


@dataclass(frozen=True)
class LogSpec:
    """The ``logs`` key: caps on the bots' log files (stderr and transcripts). Each file
    (one per game, bot and kind) holds at most ``max_per_game`` bytes, and all the files of
    one bot together at most ``max_per_bot`` over the whole run, resumes each counting
    afresh; past a cap, output is dropped with a note."""

    max_per_game: int = DEFAULT_LOG_MAX_PER_GAME
    max_per_bot: int = DEFAULT_LOG_MAX_PER_BOT


DEFAULT_BATCH = 2
"""Games per cluster task: one colour-reversed pair."""
MAX_BATCH = 1000
MAX_PROCESSES = 256


@dataclass(frozen=True)
class ExecutorSpec:
    """The ``executor`` key: where games run. Without ``dask``, here (``concurrency`` games
    at once, in ``processes`` referee processes); with ``dask: ADDRESS``, on that Dask
    scheduler's workers, ``batch`` games per task. Not part of the fingerprint: a run may be
    resumed on another executor."""

    dask: str | None = None
    batch: int = DEFAULT_BATCH
    processes: int = 1
    """Referee processes on this machine (without ``dask``): 1 plays every game in the
    run's own process; more spread ``concurrency`` over that many (fast bots, many cores)."""


class Restart(str, enum.Enum):
    """When a bot gets a fresh process for its next game (``bots[].restart``): ``on-fault``
    (a process that faulted is replaced; a healthy one plays on), ``always`` (a fresh
    process every game), ``never`` (kept after a fault too, as long as its protocol is in
    step: an illegal turn, a resignation; a process whose pipe broke (a timeout, a crash, a
    garbled answer) is always replaced, since nothing it says next can be trusted)."""

    ON_FAULT = "on-fault"
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True)
class BotSpec:
    """How to start one bot. ``env`` holds only the config's variables; whoever spawns the
    bot merges them over ``os.environ``. ``limits`` and ``sandbox`` are the bot's (its own
    or the config's): not part of the fingerprint, since they bound a bot rather than say
    what a game is."""

    name: str
    command: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    limits: Limits = DEFAULT_LIMITS
    sandbox: bool = False
    time_control: TimeControl | None = None
    """This bot's own clock (time odds; its own ``margin``), None: the config's."""
    startup_commands: tuple[str, ...] = ()
    """Protocol commands sent in order after each process start's handshake."""
    restart: Restart = Restart.ON_FAULT
    startup_timeout: float | None = None
    """Its own start-up deadline, None: the config's (not in the fingerprint)."""
    command_timeout: float | None = None
    """Its own deadline for commands that are not decisions, None: the config's."""


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    board_size: int
    opening: OpeningSpec
    time_control: TimeControl
    schedule: ScheduleSpec
    concurrency: int
    output: Path
    elo: EloSpec
    bots: tuple[BotSpec, ...]
    source: Path
    logs: LogSpec = field(default_factory=LogSpec)
    executor: ExecutorSpec = field(default_factory=ExecutorSpec)
    affinity: frozenset[int] | None = None
    """The CPUs to pin the referee and the bots to (``affinity``), None for no pinning; an
    empty set where it was asked for on a platform that cannot pin (the run says so). Not
    part of the fingerprint: it changes where games run, not what they are."""
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    """Seconds a bot has to start and answer its handshake (``vastuz match --startup-timeout``).
    Not part of the fingerprint: it decides whether a bot starts, not what a game is."""
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    """Seconds a bot has for a command that is not a decision; fingerprinted when not the
    default (a game played with another is another game)."""

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(bot.name for bot in self.bots)

    @property
    def field(self) -> Field:
        """What the schedule deals out: the bots in config order and the openings."""
        return Field(self.bot_names, self.opening.kind, self.opening.openings, self.opening.policy)

    def make_plan(self, recorded: Iterable[GameSummary] = ()) -> Plan:
        """The schedule's plan, given the games already recorded (see
        :meth:`~referee.tournament.plans.plan.ScheduleSpec.make_plan`)."""
        return self.schedule.make_plan(self.field, recorded)

    @property
    def time_odds(self) -> str | None:
        """Words for the bots that play at a clock of their own (time odds), None if none
        does: for the run's header and a note beside its ratings."""
        own = [(b.name, b.time_control) for b in self.bots if b.time_control is not None]
        if not own:
            return None
        shown = ", ".join(f"{name} at {clock_words(tc)}" for name, tc in own if tc is not None)
        return f"time odds: {shown}, the others at {clock_words(self.time_control)}"

    def bot(self, name: str) -> BotSpec:
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    def fingerprint(self) -> dict[str, object]:
        """The settings that decide what each game *is*, as plain JSON-ready data.

        A run records this; a resume compares it and refuses to mix results when it
        differs. Included: bots (in order, since order fixes the pairings) with their
        commands, working folders and extra environment; board size; time control; the
        resolved openings; the schedule kind, challengers and games per pair (they decide
        which opening and colours each game slot has). Left out on purpose: ``rounds`` (so a
        finished tournament can be extended with more rounds), ``concurrency``, ``output``,
        ``name``, ``elo`` and ``logs`` (they change how results are produced or shown, not the
        games)."""
        return {
            "board_size": self.board_size,
            "time_control": {"kind": self.time_control.kind.value, **self.time_control.as_dict()},
            "opening": {
                "kind": self.opening.kind.value,
                "openings": [[o.black, o.white, list(o.turns)] for o in self.opening.openings],
                # Only when not the default, so the folders of earlier runs still resume.
                **(
                    {}
                    if self.opening.policy is OpeningPolicy.ROUND
                    else {"policy": self.opening.policy.value}
                ),
            },
            "schedule": self.schedule.fingerprint(),
            # Only when set: the folders of earlier runs have no such key and still resume.
            **(
                {}
                if self.command_timeout == DEFAULT_COMMAND_TIMEOUT
                else {"command_timeout": self.command_timeout}
            ),
            "bots": [
                {
                    "name": bot.name,
                    "command": list(bot.command),
                    "cwd": str(bot.cwd),
                    "env": dict(sorted(bot.env.items())),
                    # Only when set, so the folders of earlier runs still resume.
                    **_bot_extras(bot),
                }
                for bot in self.bots
            ],
        }


def _bot_extras(bot: BotSpec) -> dict[str, object]:
    """A bot's settings that change what its games are, for the fingerprint, when set: its
    own clock, its start-up commands, its command deadline (``restart`` and
    ``startup_timeout`` decide how a game is run, not what it is)."""
    extras: dict[str, object] = {}
    if bot.time_control is not None:
        extras["time_control"] = {"kind": bot.time_control.kind.value, **bot.time_control.as_dict()}
    if bot.startup_commands:
        extras["startup_commands"] = list(bot.startup_commands)
    if bot.command_timeout is not None:
        extras["command_timeout"] = bot.command_timeout
    return extras


def clock_words(tc: TimeControl) -> str:
    """``0.5 s per move`` or ``60 s + 0.5 s per move``, with the margin when not the default."""
    words = (
        f"{tc.per_move:g} s per move"
        if tc.per_move is not None
        else f"{tc.main:g} s + {tc.increment:g} s per move"
    )
    return words if tc.margin == DEFAULT_MARGIN else f"{words} (margin {tc.margin:g} s)"
