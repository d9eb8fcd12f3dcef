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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from referee.play.spec import Opening, OpeningKind, TimeControl
from referee.ratings.sprt import Sprt

DEFAULT_BOARD_SIZE = 7
DEFAULT_GAMES_PER_PAIR = 2
DEFAULT_SPRT_MAX_GAMES = 100_000
DEFAULT_RANDOM_SEED = 0
DEFAULT_LOG_MAX_PER_GAME = 1 << 20
DEFAULT_LOG_MAX_PER_BOT = 100 << 20

NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]+")
"""Tournament and bot names become parts of file names and game ids, hence this set."""


# --------------------------------------------------------------------------- value objects


class ScheduleKind(str, enum.Enum):
    ROUND_ROBIN = "round_robin"
    GAUNTLET = "gauntlet"
    SPRT = "sprt"
    ADAPTIVE = "adaptive"


@dataclass(frozen=True)
class OpeningSpec:
    """The ``opening`` key. ``openings`` is the resolved list, non-empty exactly for
    ``BOOK`` and ``RANDOM``; ``book`` is the resolved book path; ``count``/``seed``/
    ``random_turns`` echo the ``random`` settings."""

    kind: OpeningKind
    openings: tuple[Opening, ...] = ()
    book: Path | None = None
    count: int | None = None
    seed: int | None = None
    random_turns: int = 0


@dataclass(frozen=True)
class ScheduleSpec:
    """``round_robin``: every pair of bots meets. ``gauntlet``: each challenger meets every
    bot that is not a challenger (challengers do not meet each other). Each meeting is
    ``games_per_pair`` games (even, so colours and setups balance) per round."""

    kind: ScheduleKind = ScheduleKind.ROUND_ROBIN
    games_per_pair: int = DEFAULT_GAMES_PER_PAIR
    rounds: int = 1
    challengers: tuple[str, ...] = ()
    sprt: Sprt | None = None
    """``sprt``: the test (the first bot listed is the candidate, the second the baseline);
    ``max_games`` caps it."""
    max_games: int = DEFAULT_SPRT_MAX_GAMES
    adaptive_games: int = 0
    """``adaptive``: the game budget (each next pair where it buys the most certainty about
    the ranking); ``adaptive_floor`` the games every bot plays first (None: one pair
    against every other bot)."""
    adaptive_floor: int | None = None


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


@dataclass(frozen=True)
class BotSpec:
    """How to start one bot. ``env`` holds only the config's variables; whoever spawns the
    bot merges them over ``os.environ``."""

    name: str
    command: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}), hash=False)


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

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(bot.name for bot in self.bots)

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
            },
            "schedule": {
                "kind": self.schedule.kind.value,
                "games_per_pair": self.schedule.games_per_pair,
                "challengers": list(self.schedule.challengers),
                **(
                    {"games": self.schedule.adaptive_games, "floor": self.schedule.adaptive_floor}
                    if self.schedule.kind is ScheduleKind.ADAPTIVE
                    else {}
                ),
                **(
                    {}
                    if self.schedule.sprt is None
                    else {
                        "sprt": {
                            "elo0": self.schedule.sprt.elo0,
                            "elo1": self.schedule.sprt.elo1,
                            "alpha": self.schedule.sprt.alpha,
                            "beta": self.schedule.sprt.beta,
                            "model": self.schedule.sprt.model.value,
                            "max_games": self.schedule.max_games,
                        }
                    }
                ),
            },
            "bots": [
                {
                    "name": bot.name,
                    "command": list(bot.command),
                    "cwd": str(bot.cwd),
                    "env": dict(sorted(bot.env.items())),
                }
                for bot in self.bots
            ],
        }
