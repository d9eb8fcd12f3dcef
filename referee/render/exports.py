"""Game records in the formats the established tools read: PGN (Ordo, BayesElo, any PGN
reader), a BayesElo script, and CSV. SGF, which carries whole games, is
:mod:`referee.render.sgf`.

Pure: records in, text out. Colours: chess calls the side that moves first White, Vastuz
calls it Black. A PGN's ``White`` is therefore the bot that moved first (Vastuz's Black), so
that a rating tool's first-move advantage (Ordo's ``-W``, BayesElo's ``advantage``) means
what it means in chess; every PGN says so in its header comment. Void games (the referee
could not run them) have no result and are left out of PGN and BayesElo; the caller names
them.

Round numbers: ``Round`` is ``<pair>.<game in pair>``. The pairs are numbered from 1 in
schedule order (``tournament.index``, else file order) over the games exported, so the two
colour-reversed games of one opening share the pair number (gahtan-syarif's
Pentanomial-Ordo groups games by it); a game without a pair key is a pair of its own.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.play.records import GameRecord, Outcome

PGN_COMMENT = (
    "Vastuz games exported by vastuz export. White is the bot that moved first (Vastuz's Black, "
    "which makes the pie setup or plays first from a book), Black the other; Score is White's "
    "points-Black's points by the rules engine. No moves: results only."
)


@dataclass(frozen=True)
class Numbered:
    """A record with its place: ``pair`` (from 1) and ``game`` within the pair (from 1),
    and its number of turns (``plies``: what the record's turns count, or were counted
    before they were let go, see :func:`numbered`)."""

    record: GameRecord
    pair: int
    game: int
    plies: int

    @property
    def round(self) -> str:
        return f"{self.pair}.{self.game}"


def numbered(records: Sequence[GameRecord], plies: Sequence[int] | None = None) -> list[Numbered]:
    """The records in schedule order, each with its pair and game number (see the module).
    ``plies``: each record's number of turns, for records read without them (an export of
    a long run keeps no game's turns); else their ``turns`` are counted."""

    def order(item: tuple[int, GameRecord]) -> tuple[int, int]:
        at, r = item
        return (r.tournament.index if r.tournament is not None else at, at)

    pairs: dict[str, int] = {}
    games: dict[int, int] = {}
    out = []
    for at, record in sorted(enumerate(records), key=order):
        key = record.pair_key if record.pair_key is not None else f"\0{at}"
        number = pairs.setdefault(key, len(pairs) + 1)
        games[number] = games.get(number, 0) + 1
        count = len(record.turns) if plies is None else plies[at]
        out.append(Numbered(record, number, games[number], count))
    return out


def first_mover(record: GameRecord) -> tuple[str, str]:
    """The labels of the bot that moved first (Vastuz's Black) and of the other."""
    if record.black is None or record.white is None:
        raise ValueError(f"game {record.game_id} has no colours (a void game)")
    return record.label_of(record.black), record.label_of(record.white)


def pgn_result(record: GameRecord) -> str:
    """``1-0`` when the first mover won, ``0-1`` when the other did, ``1/2-1/2`` a draw."""
    if record.outcome is Outcome.BLACK_WINS:
        return "1-0"
    if record.outcome is Outcome.WHITE_WINS:
        return "0-1"
    if record.outcome is Outcome.DRAW:
        return "1/2-1/2"
    raise ValueError(f"game {record.game_id} is void: it has no result")


def pgn_time_control(tc: dict[str, Any]) -> str:
    """The PGN standard's ``TimeControl``: ``1/0.5`` (one move in 0.5 s) for a per-move
    limit, ``60+0.5`` for Fischer; ``?`` for anything else."""

    def n(value: object) -> str:
        return f"{value:g}" if isinstance(value, (int, float)) else "?"

    if tc.get("kind") == "per_move":
        return f"1/{n(tc.get('per_move'))}"
    if tc.get("kind") == "fischer":
        return f"{n(tc.get('main'))}+{n(tc.get('increment', 0))}"
    return "?"


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'[{name} "{escaped}"]'


def _date(started_at: str) -> str:
    """``2025.01.31`` from an ISO timestamp, ``????.??.??`` when there is none."""
    day = started_at[:10]
    return day.replace("-", ".") if len(day) == 10 and day[4] == "-" else "????.??.??"


def pgn_game(item: Numbered, event: str, site: str = "vastuz arena") -> str:
    """One results-only PGN game: the seven-tag roster first (BayesElo's reader wants
    it), then ours, then the result as the movetext."""
    r = item.record
    white, black = first_mover(r)
    result = pgn_result(r)
    score = "?" if r.score is None else f"{r.score[0]:g}-{r.score[1]:g}"
    tags = [
        _tag("Event", event),
        _tag("Site", site),
        _tag("Date", _date(r.started_at)),
        _tag("Round", item.round),
        _tag("White", white),
        _tag("Black", black),
        _tag("Result", result),
        _tag("GameId", r.game_id),
        _tag("Termination", r.termination.value),
        _tag("Score", score),
        _tag("BoardSize", str(r.size)),
        _tag("TimeControl", pgn_time_control(r.time_control)),
        _tag("Opening", r.opening),
        _tag("PlyCount", str(item.plies)),
    ]
    return "\n".join(tags) + f"\n\n{result}\n"


def render_pgn(records: Sequence[GameRecord], event: str, plies: Sequence[int] | None = None) -> str:
    """Every non-void record as a PGN game, in schedule order, after the header comment
    (PGN's ``;`` rest-of-line comment, which Ordo's and BayesElo's readers skip).
    ``plies``: as :func:`numbered`'s."""
    head = "".join(f"; {line}\n" for line in _wrap(PGN_COMMENT, 90)) + "\n"
    played = [k for k, r in enumerate(records) if not r.is_void]  # numbered among themselves
    counts = None if plies is None else [plies[k] for k in played]
    games = [pgn_game(item, event) for item in numbered([records[k] for k in played], counts)]
    return head + "\n".join(games)


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def render_bayeselo(records: Sequence[GameRecord], bots: Sequence[str] = ()) -> str:
    """A script for BayesElo's console (``bayeselo < script``): ``addplayer`` for each bot
    (``bots`` first, in that order, then any other label met), ``addresult W B R`` per game
    (the first mover as White; R 2 a White win, 1 a draw, 0 a Black win, as BayesElo reads
    it), then the commands that print the ratings. BayesElo's console has no comments."""
    played = [r for r in records if not r.is_void]
    names = list(dict.fromkeys([*bots, *(label for r in played for label in first_mover(r))]))
    index = {name: i for i, name in enumerate(names)}
    lines = [f"addplayer {name}" for name in names]
    for item in numbered(played):
        white, black = first_mover(item.record)
        code = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}[pgn_result(item.record)]
        lines.append(f"addresult {index[white]} {index[black]} {code}")
    lines += ["elo", "mm", "exactdist", "ratings", "x", "x"]
    return "\n".join(lines) + "\n"


CSV_COLUMNS = (
    "round",
    "game_id",
    "pair_key",
    "first",
    "second",
    "black",
    "white",
    "result",
    "outcome",
    "winner",
    "termination",
    "fault_bot",
    "score_black",
    "score_white",
    "turns",
    "size",
    "opening",
    "opening_source",
    "time_control",
    "started_at",
    "wall_seconds",
    "black_thinking_seconds",
    "white_thinking_seconds",
)


def render_csv(records: Sequence[GameRecord], plies: Sequence[int] | None = None) -> str:
    """One row per record (void games included, with empty colours), in schedule order:
    ids, bots by seat and by colour, result, termination, turns and times. ``plies``: as
    :func:`numbered`'s."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for item in numbered(records, plies):
        r = item.record

        def thinking(seat: int | None, r: GameRecord = r) -> str:
            return "" if seat is None else f"{r.bots[seat].stats.thinking_seconds:.6f}"

        w.writerow(
            [
                item.round,
                r.game_id,
                r.pair_key or "",
                r.bots[0].label,
                r.bots[1].label,
                "" if r.black is None else r.label_of(r.black),
                "" if r.white is None else r.label_of(r.white),
                r.result,
                r.outcome.value,
                "" if r.winner is None else r.label_of(r.winner),
                r.termination.value,
                "" if r.fault is None else r.label_of(r.fault.seat),
                "" if r.score is None else f"{r.score[0]:g}",
                "" if r.score is None else f"{r.score[1]:g}",
                item.plies,
                r.size,
                r.opening,
                "" if r.tournament is None or r.tournament.opening is None else r.tournament.opening,
                pgn_time_control(r.time_control),
                r.started_at,
                f"{r.wall_seconds:.3f}",
                thinking(r.black),
                thinking(r.white),
            ]
        )
    return buf.getvalue()
