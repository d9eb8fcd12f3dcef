"""A match: N games between two bot commands, for ``vastuz match``.

Scheduling is deliberately minimal (tournaments have :mod:`referee.tournament.schedule`): game ``i``
(from 1) has bot A as the first bot when ``i`` is odd and bot B when it is even, so the
two alternate who makes the pie setup (or plays Black). Random openings are dealt one per
couple of games, so each is played once from each side.

Each record is appended to ``OUT/games.jsonl`` as soon as its game ends (flushed and
synced), bot logs go to ``OUT/logs/``. Games run concurrently up to ``concurrency``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.play.game import run_game
from referee.play.process import BotCommand
from referee.play.records import GameRecord, Termination
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT,
    GameSpec,
    Opening,
    OpeningKind,
    TimeControl,
)
from referee.tournament.openings import random_openings
from referee.tournament.results import ResultsFile

RESULTS_FILE = "games.jsonl"
LOGS_DIR = "logs"


@dataclass(frozen=True)
class MatchSpec:
    """Everything ``vastuz match`` needs. ``bots`` are A and B; ``opening`` is PIE, EMPTY or
    RANDOM (random setups drawn from ``seed``)."""

    bots: tuple[BotCommand, BotCommand]
    games: int
    out: Path
    size: int = 7
    opening: OpeningKind = OpeningKind.PIE
    time_control: TimeControl = field(default_factory=lambda: TimeControl.fixed(1.0))
    concurrency: int = 1
    seed: int = 0
    command_timeout: float = DEFAULT_COMMAND_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    transcripts: bool = False

    def __post_init__(self) -> None:
        if self.games < 1 or self.concurrency < 1:
            raise ValueError("games and concurrency must be at least 1")
        if self.opening is OpeningKind.BOOK:
            raise ValueError("a match has no opening book; use pie, empty or random")
        if self.bots[0].label == self.bots[1].label:
            raise ValueError("the two bots need different labels")


@dataclass(frozen=True)
class PlannedGame:
    number: int
    first: int  # 0: bot A is seat 0; 1: bot B is
    spec: GameSpec


def plan(match: MatchSpec) -> list[PlannedGame]:
    """The games of a match, in order (a pure function of the spec)."""
    openings: tuple[Opening, ...] = ()
    if match.opening is OpeningKind.RANDOM:
        openings = random_openings(match.size, (match.games + 1) // 2, match.seed)
    games = []
    for i in range(match.games):
        spec = GameSpec(
            size=match.size,
            opening=match.opening,
            setup=openings[i // 2] if openings else None,
            time_control=match.time_control,
            command_timeout=match.command_timeout,
            game_id=f"g{i + 1:04d}",
        )
        games.append(PlannedGame(i + 1, i % 2, spec))
    return games


@dataclass
class MatchSummary:
    """Wins, draws and losses per bot label, void games, and forfeits by (loser, kind)."""

    labels: tuple[str, str]
    wins: Counter[str] = field(default_factory=Counter)
    losses: Counter[str] = field(default_factory=Counter)
    draws: int = 0
    voids: int = 0
    failures: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, record: GameRecord) -> None:
        if record.termination is Termination.VOID:
            self.voids += 1
        elif record.winner is None:
            self.draws += 1
        else:
            winner = record.bots[record.winner].label
            loser = record.bots[1 - record.winner].label
            self.wins[winner] += 1
            self.losses[loser] += 1
            if record.termination is not Termination.SCORE:
                self.failures[(loser, record.termination.value)] += 1

    def lines(self) -> list[str]:
        out = []
        for label in self.labels:
            out.append(f"{label}: {self.wins[label]} won, {self.draws} drawn, {self.losses[label]} lost")
        if self.voids:
            out.append(f"void games: {self.voids}")
        for (label, kind), count in sorted(self.failures.items()):
            out.append(f"{label} lost {count} game(s) by {kind}")
        return out


def game_line(number: int, record: GameRecord) -> str:
    """One line per finished game: number, colours, result, reason, turns, seconds."""
    black, white = record.label_of(record.black), record.label_of(record.white)
    reason = record.reason if len(record.reason) <= 120 else record.reason[:117] + "..."
    return (
        f"game {number}: black {black}, white {white}: {record.result} ({record.termination.value}) "
        f"{len(record.turns)} turns, {record.wall_seconds:.2f} s; {reason}"
    )


async def run_match(
    match: MatchSpec, on_record: Callable[[int, GameRecord], None] | None = None
) -> MatchSummary:
    """Play the match; call ``on_record(number, record)`` as each game ends (in finishing
    order, after its record is on disk)."""
    match.out.mkdir(parents=True, exist_ok=True)
    log_dir = match.out / LOGS_DIR
    log_dir.mkdir(exist_ok=True)
    results = ResultsFile(match.out / RESULTS_FILE)
    summary = MatchSummary((match.bots[0].label, match.bots[1].label))
    queue = iter(plan(match))

    async def worker() -> None:
        # Workers take games in order from one iterator, so games start in order.
        for game in queue:
            first, second = match.bots if game.first == 0 else match.bots[::-1]
            record = await run_game(
                first,
                second,
                game.spec,
                log_dir=log_dir,
                transcripts=match.transcripts,
                startup_timeout=match.startup_timeout,
            )
            await trio.to_thread.run_sync(results.append, record)
            summary.add(record)
            if on_record is not None:
                on_record(game.number, record)

    async with trio.open_nursery() as nursery:
        for _ in range(min(match.concurrency, match.games)):
            nursery.start_soon(worker)
    return summary
