"""What a run prints: its header (also ``vastuz tournament --check``'s), a line per finished
game, the progress and ETA. Words only; the runner decides when to print them."""

from __future__ import annotations

import math
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from referee.play.cpu import CorePlan, available_cpus
from referee.play.records import FaultEntry, GameRecord, GameSummary, Termination
from referee.ratings.report import Standings
from referee.text import printable
from referee.tournament.config.values import TournamentConfig
from referee.tournament.plans.plan import Plan
from referee.tournament.slots import ScheduledGame


@dataclass
class Progress:
    """Counts for the live output: games done, the real length of this run's games (the
    ETA's pace), each bot's forfeits so far. ``slots``: games played at once, or what says
    it as the run goes (a cluster's workers join and leave)."""

    total: int
    resumed: int
    played: int = 0
    void: int = 0
    slots: int | Callable[[], int] = 1
    started_at: float = field(default_factory=time.monotonic)
    walls: float = 0.0
    """Wall seconds of this run's rated games, summed (void games are not a game's length)."""
    timed: int = 0
    forfeits: dict[str, Counter[str]] = field(default_factory=dict)
    """Per bot, its forfeits so far by kind (``time``, ``crash``, ...), resumed games too."""

    @property
    def done(self) -> int:
        return self.resumed + self.played

    def seed(self, recorded: Iterable[GameSummary]) -> None:
        """The forfeits of the games already recorded (a resumed run's)."""
        for summary in recorded:
            self._forfeit(summary.labels, summary.fault, summary.is_void)

    def count(self, record: GameRecord) -> None:
        """A game of this run has finished."""
        self.played += 1
        if record.termination is Termination.VOID:
            self.void += 1
        else:
            self.walls += record.wall_seconds
            self.timed += 1
        self._forfeit(record.labels, record.fault, record.termination is Termination.VOID)

    def _forfeit(self, labels: tuple[str, str], fault: FaultEntry | None, void: bool) -> None:
        if fault is not None and not void:
            self.forfeits.setdefault(labels[fault.seat], Counter())[fault.kind.value] += 1

    def at_once(self) -> int:
        return max(1, self.slots if isinstance(self.slots, int) else self.slots())

    def mean_game(self) -> float | None:
        """The mean wall time of this run's rated games, None before the first."""
        return self.walls / self.timed if self.timed else None

    def eta(self, remaining: int | None = None) -> str:
        """The time ``remaining`` games (default: the rest of ``total``) take at this run's
        pace: the mean game's length, ``slots`` at a time."""
        mean = self.mean_game()
        left = self.total - self.done if remaining is None else remaining
        if mean is None:
            return "?"
        return clock(mean * math.ceil(max(0, left) / self.at_once()))

    def elapsed(self) -> str:
        return clock(time.monotonic() - self.started_at)

    def lines(self, game: str, plan: Plan) -> list[str]:
        """What is printed for a finished game (its ``game_line``) at this point of the run:
        a plan that usually ends early (open-ended) gets no "of total" and no ETA but the
        most it may still take; then the forfeits so far and where the plan stands (a
        Swiss's round, a knockout's bracket)."""
        open_ended, state = plan.open_ended, plan.state()
        total = max(plan.total, self.done)  # a knockout's shrinks as its matches are decided
        mean = self.mean_game()
        pace = "" if mean is None else f" (mean game {mean:.1f} s, {self.at_once()} at once)"
        extra = [part for part in (self.forfeit_words(), state) if part]
        if open_ended:
            out = [f"[{self.done}] {game}"]
            most = f", at most {total - self.done} more games ({self.eta(total - self.done)} at this pace)"
            played = f"{self.done} game" + ("" if self.done == 1 else "s")
            words = f"    progress: {played}, elapsed {self.elapsed()}{pace}; open-ended: no ETA"
            out.append(words + ("" if mean is None else most) + "".join(f"; {p}" for p in extra))
            return out
        out = [f"[{self.done:>{len(str(total))}}/{total}] {game}"]
        if self.done < total:
            out.append(
                f"    progress: {self.done}/{total} games, elapsed {self.elapsed()}, "
                f"ETA {self.eta(total - self.done)}{pace}" + "".join(f"; {p}" for p in extra)
            )
        return out

    def forfeit_words(self) -> str:
        """``forfeits so far: laggy 3 (time 3), b 1 (crash 1)``, or empty."""
        if not self.forfeits:
            return ""
        shown = []
        for name in sorted(self.forfeits, key=lambda n: (-sum(self.forfeits[n].values()), n)):
            kinds = self.forfeits[name]
            detail = ", ".join(
                f"{kind} {n}" for kind, n in sorted(kinds.items(), key=lambda t: (-t[1], t[0]))
            )
            shown.append(f"{printable(name)} {sum(kinds.values())} ({detail})")
        return "forfeits so far: " + ", ".join(shown)


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


def clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


START_FAILURE = re.compile(
    r"start-up failure: bot (?P<bot>.+?) failed before the game's first decision \((?P<what>.*)\); "
    r"the game is not rated and is played again on resume$",
    re.DOTALL,
)


def game_line(game: ScheduledGame, record: GameRecord, worker: str | None = None) -> str:
    """One line per finished game: the pairing with colours, result, how, turns, time, and
    the worker that played it (on a cluster). A void game has no colours or result: its
    line says what happened and that it is played again."""
    where = "" if worker is None else f" on {printable(worker)}"
    if record.termination is Termination.VOID:
        seats = f"{printable(game.first)} - {printable(game.second)}"
        return f"{game.slot}: {seats}  {void_words(record.reason)}{where}"
    black = printable(record.label_of(record.black))
    white = printable(record.label_of(record.white))
    how = record.termination.value
    if record.termination is not Termination.SCORE:
        # The reason starts with the kind already ("crash: bot ..."): said once.
        how += f": {_cut(printable(record.reason.removeprefix(f'{how}: ')))}"
    return (
        f"{game.slot}: {black} (B) - {white} (W)  {record.result:<6} {how}; "
        f"{len(record.turns)} turns, {record.wall_seconds:.1f} s{where}"
    )


def void_words(reason: str) -> str:
    """A void game's reason for its line: ``void: start-up failure of bot X (crash: ...),
    replayed on resume`` (every void game is played again by the next run)."""
    start = START_FAILURE.match(reason)
    if start is not None:
        what = f"start-up failure of bot {start['bot']} ({start['what']})"
    else:
        what = reason.removesuffix("; the game is not rated and is played again on resume")
    return f"void: {_cut(printable(what))}, not rated, replayed on resume"


def _cut(reason: str) -> str:
    """A reason cut in the middle: the end of a crash's reason quotes the bot's stderr."""
    return f"{reason[:110]} ... {reason[-85:]}" if len(reason) > 200 else reason


def header(config: TournamentConfig, what: str, where: str) -> str:
    """The run's one-line description: ``what`` is played (the plan's words), ``where``
    (the executor's)."""
    c = config
    tc = c.time_control
    if tc.per_move is not None:
        clock_words = f"{tc.per_move:g} s per move"
    else:
        clock_words = f"{tc.main:g} s + {tc.increment:g} s per move"
    odds = "" if c.time_odds is None else f" ({c.time_odds})"
    return (
        f"tournament {c.name}: {len(c.bots)} bots, board {c.board_size}, opening {c.opening.kind.value}, "
        f"{clock_words}{odds}, {what}, {where}"
    )


def cpu_lines(config: TournamentConfig, cores: CorePlan | None) -> list[str]:
    """The header's lines about CPUs: the affinity plan or why it is not used, and a
    warning when more bots think at once than there are cores for them. ``cores``: the
    executor's plan (None where it pins nothing)."""
    c = config
    lines = []
    local = c.executor.dask is None
    if c.affinity is not None:
        if not c.affinity:
            lines.append("note: affinity ignored: this platform cannot pin processes to CPUs")
        elif not local:
            lines.append("note: affinity ignored: it applies to games on this machine (not on a cluster)")
        elif cores is None:
            lines.append("note: affinity ignored: it needs at least two CPUs (one for the referee)")
        else:
            lines.append(cores.describe())
    if local:
        # One bot per game thinks at a time (the mover); a bot that ponders counts twice.
        if cores is not None:
            usable = len(set().union(*cores.slots))
        else:
            cpus = available_cpus()
            usable = len(cpus) if cpus else (os.cpu_count() or 1)
        if c.concurrency > usable:
            lines.append(
                f"warning: {c.concurrency} games at once on {usable} CPU core(s) for bots: more bots "
                "think at once than there are cores, so each gets a share of a core and the clocks "
                f"measure less thinking than on a quiet machine (concurrency {usable} or less keeps "
                "them apart; affinity pins them)"
            )
        if c.executor.processes > 1 and c.concurrency == 1:
            lines.append(
                f"note: {c.executor.processes} referee processes asked for, but concurrency 1 plays one "
                "game at a time: in this process"
            )
    return lines
