"""A match: N games between two bot commands, for ``vastuz match``.

Scheduling is deliberately minimal (tournaments have :mod:`referee.tournament.plans.fixed`): game ``i``
(from 1) has bot A as the first bot when ``i`` is odd and bot B when it is even, so the
two alternate who makes the pie setup (or plays Black). Games ``2k - 1`` and ``2k`` are a
colour-reversed couple: they share a pair key (so reports get pair statistics), and with
random openings they share the setup, played once from each side.

Bot processes are kept between games, as in a tournament: a healthy bot is reused for its
next game (``boardsize`` + ``clear_board`` reset it), so a seeded bot does not replay the
same game every time; any fault retires the process and the next game starts a fresh one.

Each record is appended to ``OUT/games.jsonl`` as soon as its game ends (flushed and
synced), bot logs go to ``OUT/logs/``. ``OUT/match.json`` holds the match's fingerprint:
running the same match into the same folder plays only the games still missing, and a
different match there is refused. Games run concurrently up to ``concurrency``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.errors import RunStopped
from referee.play.command import BotCommand
from referee.play.lateness import Lateness
from referee.play.records import GameRecord, SlotInfo, Termination
from referee.play.spec import (
    DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT,
    GameSpec,
    Opening,
    OpeningKind,
    TimeControl,
)
from referee.ratings.report import standings
from referee.text import printable
from referee.tournament.config.openings import random_openings
from referee.tournament.executors.pool import DEFAULT_START_FAILURE_LIMIT, BotPool, StartFailures
from referee.tournament.store.duplicates import repeat_warning
from referee.tournament.store.folder import LOGS, MATCH_RESULTS, check_match_manifest, latest_records, shown
from referee.tournament.store.results import FolderLock, ResultsFile

RESULTS_FILE = MATCH_RESULTS
LOGS_DIR = LOGS
MATCH_NAME = "match"


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

    def fingerprint(self) -> dict[str, object]:
        """What decides what each game *is*, as JSON-ready data (kept in ``match.json``):
        the bots' commands (with their folder and extra environment), board size, opening,
        clock and command timeout. The number of games is left out, so a match can be
        extended, except with random openings, where it decides the list of setups.
        Concurrency, transcripts and the start-up timeout change how games are run, not
        what they are."""
        bots = []
        for bot in self.bots:
            bots.append(
                {
                    "label": bot.label,
                    "command": bot.argv,
                    "cwd": str(Path(bot.cwd or Path.cwd()).resolve()),
                    "env": dict(sorted((bot.env or {}).items())),
                }
            )
        fingerprint: dict[str, object] = {
            "kind": "match",
            "bots": bots,
            "size": self.size,
            "opening": self.opening.value,
            "time_control": {"kind": self.time_control.kind.value, **self.time_control.as_dict()},
            "command_timeout": self.command_timeout,
        }
        if self.opening is OpeningKind.RANDOM:
            fingerprint["random"] = {"seed": self.seed, "games": self.games}
        return fingerprint


@dataclass(frozen=True)
class PlannedGame:
    number: int
    first: int  # 0: bot A is seat 0; 1: bot B is
    spec: GameSpec
    slot: SlotInfo | None = None


def plan(match: MatchSpec) -> list[PlannedGame]:
    """The games of a match, in order (a pure function of the spec)."""
    openings: tuple[Opening, ...] = ()
    if match.opening is OpeningKind.RANDOM:
        openings = random_openings(match.size, (match.games + 1) // 2, match.seed)
    a, b = match.bots[0].label, match.bots[1].label
    games = []
    for i in range(match.games):
        setup = openings[i // 2] if openings else None
        game_id = f"g{i + 1:04d}"
        spec = GameSpec(
            size=match.size,
            opening=match.opening,
            setup=setup,
            time_control=match.time_control,
            command_timeout=match.command_timeout,
            game_id=game_id,
        )
        slot = SlotInfo(
            name=MATCH_NAME,
            slot=game_id,
            index=i,
            round=1,
            pair_key=f"{a}+{b}-c{i // 2 + 1:04d}",
            opening=None if setup is None else setup.label,
        )
        games.append(PlannedGame(i + 1, i % 2, spec, slot))
    return games


@dataclass
class MatchSummary:
    """Wins, draws and losses per bot label, void games, and forfeits by (loser, kind).
    ``records`` are the match's rated games (resumed ones included), ``resumed`` how many
    of them an earlier run had played, ``warnings`` what the report must not leave out."""

    labels: tuple[str, str]
    wins: Counter[str] = field(default_factory=Counter)
    losses: Counter[str] = field(default_factory=Counter)
    draws: int = 0
    voids: int = 0
    failures: Counter[tuple[str, str]] = field(default_factory=Counter)
    records: list[GameRecord] = field(default_factory=list)
    resumed: int = 0
    warnings: list[str] = field(default_factory=list)
    stopped: RunStopped | None = None  # why the match ended before its last game

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


def _elo(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "?"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"


def elo_lines(summary: MatchSummary, *, bootstrap: int = 1000) -> list[str]:
    """The end of a match report, as cutechess and fastchess print it: the Elo difference
    of A over B with its 95% interval and the likelihood of superiority, the colour-
    reversed pairs, and every warning (records not rated, games that repeat)."""
    a, b = summary.labels
    rated = [r for r in summary.records if not r.is_void]
    out: list[str] = []
    if rated:
        st = standings(summary.records, list(summary.labels), anchor=b, bootstrap=bootstrap)
        line = {bot.name: bot for bot in st.lines}[a]
        los = st.lines[0].los_next
        if los is not None and st.lines[0].name != a:
            los = 1.0 - los
        los_text = "?" if los is None else f"{100 * los:.1f}%"
        out.append(
            f"Elo difference {a} - {b}: {_elo(line.elo)}, 95% interval [{_elo(line.elo_low)}, "
            f"{_elo(line.elo_high)}], LOS {los_text} ({a} stronger than {b}); {len(rated)} games rated"
        )
        for p in st.pairs:
            counts = "-".join(str(c) for c in p.counts)
            out.append(f"colour-reversed pairs: {p.pairs} ({p.a}'s points per pair 0-0.5-1-1.5-2: {counts})")
        warnings = [*summary.warnings, *st.warnings]
    else:
        out.append("Elo difference: no rated games")
        warnings = list(summary.warnings)
    late = Lateness.of(summary.records).line()
    if late is not None:
        out.append(late)
    out.extend(f"warning: {w}" for w in warnings)
    return out


def game_line(number: int, record: GameRecord) -> str:
    """One line per finished game: number, colours, result, reason, turns, seconds."""
    black, white = record.label_of(record.black), record.label_of(record.white)
    reason = printable(record.reason)
    # A forfeit's reason starts with its kind, which the line already shows in brackets.
    reason = reason.removeprefix(f"{record.termination.value}: ")
    reason = reason if len(reason) <= 120 else reason[:117] + "..."
    return (
        f"game {number}: black {black}, white {white}: {record.result} ({record.termination.value}) "
        f"{len(record.turns)} turns, {record.wall_seconds:.2f} s; {reason}"
    )


async def run_match(
    match: MatchSpec,
    on_record: Callable[[int, GameRecord], None] | None = None,
    say: Callable[[str], None] | None = None,
    *,
    start_failure_limit: int = DEFAULT_START_FAILURE_LIMIT,
) -> MatchSummary:
    """Play the match's missing games; call ``on_record(number, record)`` as each game ends
    (in finishing order, after its record is on disk) and ``say(text)`` for notes (a
    resume, a torn last line repaired). The summary covers every game of the match in the
    folder, resumed ones included. A bot that cannot start ``start_failure_limit`` times in
    a row stops the match (no new game starts): the summary's ``stopped`` says why."""
    note = say or (lambda _text: None)
    match.out.mkdir(parents=True, exist_ok=True)
    with FolderLock(match.out):
        check_match_manifest(match.fingerprint(), match.out)
        results = ResultsFile(match.out / RESULTS_FILE)
        loaded = results.repair()
        if loaded.torn_tail:
            note(
                f"note: dropped a torn last line of {shown(results.path)} ({len(loaded.torn_tail)} bytes): "
                "the game in flight when the previous run was killed; it will be replayed"
            )
        planned = plan(match)
        ids = {game.spec.game_id for game in planned}
        # Whole records, not summaries: a match is small, and its report (repeated games)
        # compares the turns themselves.
        recorded = results.load().records if loaded.records else []
        records = [r for r in recorded if r.slot in ids]
        beyond = len({r.slot for r in recorded} - ids)
        done = {r.slot for r in latest_records(records) if not r.is_void}
        pending = [game for game in planned if game.spec.game_id not in done]
        if done:
            note(f"resuming: {len(done)} of {len(planned)} games already played")
        if beyond:
            note(f"note: {beyond} recorded game(s) beyond game {match.games} are not part of this report")
        log_dir = match.out / LOGS_DIR
        log_dir.mkdir(exist_ok=True)
        queue = iter(pending)
        start_failures = StartFailures(start_failure_limit)

        async def play_one(pool: BotPool, game: PlannedGame) -> GameRecord:
            first, second = match.bots if game.first == 0 else match.bots[::-1]
            record, starts = await pool.play(first.label, second.label, game.spec)
            for label, failure in starts:
                if start_failures.count(label, failure) is not None:
                    note(f"stopping: {start_failures.error}; the games in progress finish first")
            return record

        async def worker(pool: BotPool) -> None:
            # Workers take games in order from one iterator, so games start in order.
            for game in queue:
                if start_failures.error is not None:  # a bot that cannot start: no new game
                    break
                record = await play_one(pool, game)
                record.tournament = game.slot
                # Shielded: once a game has finished, its record is written whatever happens.
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(results.append, record)
                records.append(record)
                if on_record is not None:
                    on_record(game.number, record)

        if pending:
            async with trio.open_nursery() as bots_nursery:
                pool = BotPool(
                    {bot.label: bot for bot in match.bots},
                    bots_nursery,
                    log_dir,
                    match.transcripts,
                    startup_timeout=match.startup_timeout,
                    board_size=match.size,
                )
                try:
                    async with trio.open_nursery() as workers:
                        for _ in range(min(match.concurrency, len(pending))):
                            workers.start_soon(worker, pool)
                finally:
                    await pool.aclose()
    summary = MatchSummary(
        (match.bots[0].label, match.bots[1].label), resumed=len(done), stopped=start_failures.error
    )
    latest = latest_records(records, summary.warnings)
    order = {game.spec.game_id: game.number for game in planned}
    latest.sort(key=lambda r: order.get(r.slot, 0))
    for record in latest:
        summary.add(record)
    summary.records = latest
    repeats = repeat_warning(latest)
    if repeats is not None:
        summary.warnings.append(repeats)
    return summary
