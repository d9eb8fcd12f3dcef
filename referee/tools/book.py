"""``vastuz book make``: a balanced opening book, measured by a bot's self-play.

Candidates are random pie setups followed by ``turns`` random legal turns, kept only when
their position is new under the board's 12 symmetries (two openings that lead to mirror or
rotated positions are one opening: :func:`position_key`). Each candidate is then played
``games_per_opening`` times by the bot against itself, as an ordinary two-bot tournament
with the candidates as its book (so clocks, forfeits, concurrency and resume are the
tournament's own), and kept when the first mover's (Black's) score lies in the band. The
book written lists each kept opening with its measured score as a comment, under a header
that gives the command that made it.

The bot plays both seats, so its games from one opening differ only if it does: give a
bot that draws fresh randomness per process (the sample bots without ``--seed``).
"""

from __future__ import annotations

import io
import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import yaml

from referee.engine import Color, Position, board_symmetries, iter_points
from referee.play.records import GameRecord
from referee.play.spec import Opening
from referee.tournament.config.loading import load_config
from referee.tournament.config.openings import check_opening
from referee.tournament.runner import Tournament
from referee.tournament.store.folder import latest_records
from referee.tournament.store.results import ResultsFile


def position_key(position: Position) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The same for two positions that one of the board's 12 symmetries carries onto each
    other (stones and side to move): the smallest image's sorted stones."""
    black, white = position.stones(Color.BLACK), position.stones(Color.WHITE)
    return min(
        (tuple(sorted(m[p] for p in black)), tuple(sorted(m[p] for p in white)), position.to_move.value)
        for m in board_symmetries(position.size)
    )


def candidates(size: int, turns: int, count: int, seed: int) -> list[Opening]:
    """Up to ``count`` openings (a setup, then ``turns`` random legal turns), distinct under
    the board's symmetries, a pure function of the arguments. Fewer when the board has fewer
    (a small board, few turns): the search gives up after ``50 * count`` tries."""
    rng = random.Random(seed)
    points = list(iter_points(size))
    seen: set[object] = set()
    out: list[Opening] = []
    for _ in range(50 * count):
        if len(out) == count:
            break
        black, white = rng.sample(points, 2)
        position = Position.new(size).setup(black, white)
        played: list[str] = []
        for _ in range(turns):
            turn = position.random_turn(rng)
            after = position.play(turn)
            if after.is_over:
                break
            position = after
            played.append(turn)
        if len(played) < turns:
            continue
        key = position_key(position)
        if key in seen:
            continue
        seen.add(key)
        out.append(check_opening(size, black, white, played, label=f"candidate-{len(out) + 1}"))
    return out


def book_line(opening: Opening) -> str:
    return " ".join((opening.black, opening.white, *opening.turns))


@dataclass(frozen=True)
class Measured:
    """One candidate and the first mover's results from it (wins, draws, losses)."""

    opening: Opening
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else float("nan")


def measure(openings: Sequence[Opening], records: Sequence[GameRecord], book: str) -> list[Measured]:
    """Black's results per opening (a record's ``tournament.opening`` is ``BOOK:LINE``)."""
    tally = {f"{book}:{n}": [0, 0, 0] for n in range(1, len(openings) + 1)}
    for r in records:
        where = None if r.tournament is None else r.tournament.opening
        if r.is_void or where not in tally:
            continue
        counts = tally[where]
        counts[0 if r.winner == r.black else 1 if r.winner is None else 2] += 1
    return [Measured(o, *tally[f"{book}:{n}"]) for n, o in enumerate(openings, start=1)]


@dataclass(frozen=True)
class BookSettings:
    bot: str
    size: int
    turns: int
    count: int
    games_per_opening: int
    balance: tuple[float, float]
    seed: int
    per_move: float
    concurrency: int

    def command_line(self, out: Path) -> str:
        """The ``vastuz book make`` command that makes this book (for its header)."""
        low, high = self.balance
        return (
            f"vastuz book make --bot {shlex.quote(self.bot)} --size {self.size} --turns {self.turns} "
            f"--count {self.count} --games-per-opening {self.games_per_opening} --balance {low:g}-{high:g} "
            f"--seed {self.seed} --per-move {self.per_move:g} --out {out}"
        )


async def make_book(settings: BookSettings, work: Path, out: Path, say: TextIO | None = None) -> str:
    """Play the candidates in ``work`` (a tournament folder: running again resumes) and
    return the book's text (every kept opening, its score as a comment)."""
    found = candidates(settings.size, settings.turns, settings.count, settings.seed)
    if not found:
        raise ValueError(f"no opening of {settings.turns} turns on a size-{settings.size} board")
    work.mkdir(parents=True, exist_ok=True)
    book = work / "candidates.txt"
    book.write_text("".join(book_line(o) + "\n" for o in found), encoding="utf-8")
    words = shlex.split(settings.bot)
    config = {
        "name": "book",
        "board_size": settings.size,
        "opening": {"book": str(book)},
        "time_control": {"per_move": settings.per_move},
        "schedule": {"kind": "round_robin", "games_per_pair": settings.games_per_opening * len(found)},
        "concurrency": settings.concurrency,
        "output": str(work / "games"),
        "bots": [{"name": "a", "command": words, "cwd": "."}, {"name": "b", "command": words, "cwd": "."}],
    }
    path = work / "book.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    sink = say if say is not None else io.StringIO()
    await Tournament(load_config(path), out=sink, quiet=say is None, standings_every=0).run()
    records = latest_records(ResultsFile(work / "games" / "results.jsonl").load().records)
    measured = measure(found, records, book.name)
    low, high = settings.balance
    kept = [m for m in measured if m.games and low <= m.score <= high]
    scores = [m.score for m in kept]
    head = [
        f"# A balanced opening book for size {settings.size}: {len(kept)} of {len(found)} candidates kept.",
        f"# Candidates: a random setup and {settings.turns} random turns, distinct under the board's 12",
        f"# symmetries. Kept: the first mover (Black) scored {low:g}-{high:g} in {settings.games_per_opening}"
        " games of",
        f"#   {settings.bot}",
        "# against itself (each line's comment: that score, and its wins-draws-losses).",
        f"# Made by: {settings.command_line(out)}",
    ]
    every = [m.score for m in measured if m.games]
    if scores and every:
        head.append(
            f"# First mover's mean score: {sum(scores) / len(scores):.3f} over the kept openings, "
            f"{sum(every) / len(every):.3f} over all {len(every)} candidates."
        )
    lines = [f"{book_line(m.opening)}  # {m.score:.3f} ({m.wins}-{m.draws}-{m.losses})" for m in kept]
    return "\n".join(head) + "\n\n" + "\n".join(lines) + "\n"
