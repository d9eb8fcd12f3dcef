"""What a run prints: its header (also ``vastuz tournament --check``'s), a line per finished
game, the progress and ETA. Words only; the runner decides when to print them."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from referee.play.cpu import CorePlan, available_cpus
from referee.play.records import GameRecord, Termination
from referee.ratings.report import Standings
from referee.text import printable
from referee.tournament.config.values import TournamentConfig
from referee.tournament.slots import ScheduledGame


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
        return clock(per_game * (self.total - self.done))

    def elapsed(self) -> str:
        return clock(time.monotonic() - self.started_at)

    def lines(self, game: str, open_ended: bool) -> list[str]:
        """What is printed for a finished game (its ``game_line``) at this point of the run:
        a plan that usually ends early gets no "of total" and no ETA towards its cap."""
        if open_ended:
            return [f"[{self.done}] {game}"]
        out = [f"[{self.done:>{len(str(self.total))}}/{self.total}] {game}"]
        if self.done < self.total:
            out.append(
                f"    progress: {self.done}/{self.total} games, elapsed {self.elapsed()}, ETA {self.eta()}"
            )
        return out


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


def game_line(game: ScheduledGame, record: GameRecord, worker: str | None = None) -> str:
    """One line per finished game: the pairing with colours, result, how, turns, time, and
    the worker that played it (on a cluster)."""
    black = printable(record.label_of(record.black))
    white = printable(record.label_of(record.white))
    how = record.termination.value
    if record.termination is not Termination.SCORE:
        # The reason starts with the kind already ("crash: bot ..."): said once. Cut in the
        # middle: the end of a crash's reason quotes the bot's stderr.
        reason = printable(record.reason.removeprefix(f"{how}: "))
        if len(reason) > 200:
            reason = f"{reason[:110]} ... {reason[-85:]}"
        how += f": {reason}"
    where = "" if worker is None else f" on {printable(worker)}"
    return (
        f"{game.slot}: {black} (B) - {white} (W)  {record.result:<6} {how}; "
        f"{len(record.turns)} turns, {record.wall_seconds:.1f} s{where}"
    )


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
