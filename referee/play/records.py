"""Game records: what one game produced, as a value, and its JSON form (schema version 1).

A :class:`GameRecord` is built by :mod:`referee.play.game`; a tournament adds its
:class:`SlotInfo`. The schema is documented for users in ``docs/records.md``;
:meth:`GameRecord.to_json` and :func:`parse_line` are the only writer and reader of a
results line (the results file, :mod:`referee.tournament.store.results`, moves whole lines and
calls them), so the two cannot drift apart. Bump :data:`SCHEMA_VERSION` on any change
that an old reader would misread. Pure: no file is opened here.

Bots are referred to by *seat*: 0 is the first bot of the game (the one that makes the
pie-rule setup, or Black in the other opening modes), 1 the second. The record stores who
played which colour, so the seat never has to be guessed from the result string.
"""

from __future__ import annotations

import enum
import json
import math
import re
import sys
from dataclasses import dataclass, field, fields
from json.encoder import encode_basestring
from typing import Any

from referee.engine import Color

SCHEMA_VERSION = 1


class Termination(str, enum.Enum):
    """How a game ended. ``SCORE`` is a game played to the end; ``VOID`` a game the referee
    could not run (its own fault, or a bot program that cannot be executed at all); every
    other value is a loss for the bot named in the record's ``fault``."""

    SCORE = "score"
    TIME = "time"
    ILLEGAL = "illegal"
    CRASH = "crash"
    PROTOCOL = "protocol"
    RESIGN = "resign"
    MEMORY = "memory"
    PROCESSES = "processes"
    VOID = "void"

    @property
    def is_forfeit(self) -> bool:
        return self not in (Termination.SCORE, Termination.VOID)

    @property
    def result_suffix(self) -> str:
        """The SGF-style letter after ``B+``/``W+`` for a forfeit: T(ime), R(esign), F(orfeit)."""
        if self is Termination.TIME:
            return "T"
        if self is Termination.RESIGN:
            return "R"
        if self.is_forfeit:
            return "F"
        raise ValueError(f"{self.value} is not a forfeit")


FORFEITS = tuple(t for t in Termination if t.is_forfeit)
"""The kinds of loss a bot can cause, in the order reports show them."""


class Outcome(str, enum.Enum):
    """The result from the board's point of view."""

    BLACK_WINS = "black"
    WHITE_WINS = "white"
    DRAW = "draw"
    VOID = "void"


VOID_RESULT = "void"


def forfeit_result(winner: Color, termination: Termination) -> str:
    """``B+T``, ``W+R``, ``B+F``...: the result string of a forfeit won by ``winner``."""
    return f"{winner.letter.upper()}+{termination.result_suffix}"


@dataclass(slots=True)
class BotStats:
    """What the referee measured for one bot during one game (slots: it is booked at every
    request, and every game's summary keeps two for the whole run).

    ``bot_seconds`` is the bot's time over all requests (from just before the command is
    written to the end of its response); ``thinking_seconds`` the part spent on decisions
    (``genmove``, ``gensetup``, ``choose_color``), which is what its clock is charged.
    ``overhead_us`` is the referee's own mean time per request inside the request call but
    outside the bot's window (formatting, logging, waking up), in microseconds.
    ``late`` counts the requests whose answer (or deadline) the referee looked at late
    (see :mod:`referee.play.watch`) and ``late_max`` is the worst of those, in seconds;
    both are left out of a record while ``late`` is 0."""

    requests: int = 0
    bot_seconds: float = 0.0
    thinking_seconds: float = 0.0
    overhead_us: float = 0.0
    late: int = 0
    late_max: float = 0.0

    def looked_late(self, seconds: float) -> None:
        """Count one request the referee looked at ``seconds`` late."""
        self.late += 1
        self.late_max = max(self.late_max, round(seconds, 6))


@dataclass
class BotEntry:
    """One bot as it took part in a game. ``name``/``version`` are what the bot said
    (``None`` if the handshake did not get that far); ``final_score`` is its answer to
    ``final_score`` when it was asked. ``returncode`` is the process's exit status once
    the referee closed it (0 after a clean ``quit``, negative: killed by that signal), or
    None when the caller owns the process (:func:`referee.game.play_game`)."""

    label: str
    command: str
    name: str | None = None
    version: str | None = None
    pid: int | None = None
    returncode: int | None = None
    stderr_log: str | None = None
    transcript: str | None = None
    final_score: str | None = None
    stats: BotStats = field(default_factory=BotStats)
    time_control: dict[str, Any] | None = None
    """This bot's own clock when it differs from the game's ``time_control`` (time odds);
    left out of the record otherwise."""


@dataclass
class SetupEntry:
    """The two pie-rule stones. ``by`` is the seat that made them, ``None`` when the
    referee gave them (book or random openings); ``seconds`` is the maker's time;
    ``late`` how late the referee looked (left out of a record when None: on time)."""

    black: str
    white: str
    by: int | None = None
    seconds: float | None = None
    late: float | None = None


@dataclass
class ChoiceEntry:
    """The pie-rule choice: seat ``by`` took ``color`` after ``seconds`` (``late`` as for a
    turn)."""

    by: int
    color: Color
    seconds: float
    late: float | None = None


@dataclass
class TurnEntry:
    """One turn. ``opening`` turns were given by the referee (``seconds`` is None);
    ``left`` is the mover's Fischer time left after the turn (None under per-move limits);
    ``late`` how late the referee looked at the answer, when it did (None: on time; left
    out of a record then)."""

    number: int
    color: Color
    turn: str
    seconds: float | None = None
    left: float | None = None
    opening: bool = False
    late: float | None = None


@dataclass
class FaultEntry:
    """The bot fault that ended a game: the seat, the command, what the bot sent, and how
    long that answer (or the wait for it) took; ``seconds`` is None in records written
    before it was kept. ``late``: for a loss on time, how long after the deadline the
    referee looked (None: on time, and left out of a record)."""

    seat: int
    kind: Termination
    command: str | None
    received: str | None
    seconds: float | None = None
    late: float | None = None
    overshoot: float | None = None
    """For a loss on time by a process that was kept (``restart: never``): how long after
    its deadline its late answer came (None: not known, and left out of a record)."""


@dataclass
class Forensics:
    """What led up to the fault that ended a game, kept in its record whether or not logs
    and transcripts were on (see :mod:`referee.play.forensics`): ``lines[seat]`` the last
    protocol lines the referee exchanged with each bot, oldest first (``> `` sent, ``< ``
    received, ``<? `` an unfinished line); ``stderr`` the end of the faulting bot's
    (``fault.seat``) stderr, None if it wrote none. Absent (None) in every other record,
    and in records written before it was kept."""

    lines: list[list[str]]
    stderr: str | None = None


@dataclass(frozen=True)
class SlotInfo:
    """Where a tournament game sits in its schedule. ``slot`` is unique and stable (it is
    also the record's ``game_id``); the two colour-swapped games of one opening share
    ``pair_key``; ``opening`` says where a book or random opening came from."""

    name: str
    slot: str
    index: int
    round: int
    pair_key: str | None
    opening: str | None = None


@dataclass
class GameRecord:
    """Everything about one game. See ``docs/records.md`` for each field's meaning."""

    game_id: str
    size: int
    opening: str
    time_control: dict[str, Any]
    bots: list[BotEntry]
    black: int | None = None
    white: int | None = None
    setup: SetupEntry | None = None
    choice: ChoiceEntry | None = None
    turns: list[TurnEntry] = field(default_factory=list)
    result: str = VOID_RESULT
    outcome: Outcome = Outcome.VOID
    termination: Termination = Termination.VOID
    winner: int | None = None
    reason: str = ""
    fault: FaultEntry | None = None
    score: tuple[float, float] | None = None
    started_at: str = ""
    ended_at: str = ""
    wall_seconds: float = 0.0
    referee_overhead_us: float | None = None
    notes: list[str] = field(default_factory=list)
    tournament: SlotInfo | None = None
    forensics: Forensics | None = None
    schema: int = SCHEMA_VERSION

    # ------------------------------------------------------------------ conveniences
    @property
    def loser(self) -> int | None:
        return None if self.winner is None else 1 - self.winner

    @property
    def is_void(self) -> bool:
        return self.termination is Termination.VOID

    @property
    def slot(self) -> str:
        """The schedule slot in a tournament, else the game id: what identifies the game
        when a run is resumed."""
        return self.tournament.slot if self.tournament is not None else self.game_id

    @property
    def pair_key(self) -> str | None:
        return None if self.tournament is None else self.tournament.pair_key

    @property
    def labels(self) -> tuple[str, str]:
        return (self.bots[0].label, self.bots[1].label)

    def seat_of(self, color: Color) -> int | None:
        return self.black if color is Color.BLACK else self.white

    def label_of(self, seat: int | None) -> str:
        return "-" if seat is None else self.bots[seat].label

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """The JSON object of schema :data:`SCHEMA_VERSION` (plain types only), ``turns``
        last."""
        out = self._head()
        out["turns"] = [_turn_to_dict(t) for t in self.turns]
        return out

    def _head(self) -> dict[str, Any]:
        """:meth:`to_dict` but the turns."""
        return {
            "schema": self.schema,
            "game_id": self.game_id,
            "size": self.size,
            "opening": self.opening,
            "time_control": dict(self.time_control),
            "bots": [_bot_to_dict(b) for b in self.bots],
            "black": self.black,
            "white": self.white,
            "setup": None if self.setup is None else _without_late(vars(self.setup)),
            "choice": None
            if self.choice is None
            else _without_late(
                {
                    "by": self.choice.by,
                    "color": self.choice.color.value,
                    "seconds": self.choice.seconds,
                    "late": self.choice.late,
                }
            ),
            "result": self.result,
            "outcome": self.outcome.value,
            "termination": self.termination.value,
            "winner": self.winner,
            "reason": self.reason,
            "fault": None
            if self.fault is None
            else _without_late(
                {
                    "seat": self.fault.seat,
                    "kind": self.fault.kind.value,
                    "command": self.fault.command,
                    "received": self.fault.received,
                    "seconds": self.fault.seconds,
                    "late": self.fault.late,
                    **({} if self.fault.overshoot is None else {"overshoot": self.fault.overshoot}),
                }
            ),
            "score": None if self.score is None else list(self.score),
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "wall_seconds": self.wall_seconds,
            "referee_overhead_us": self.referee_overhead_us,
            "notes": list(self.notes),
            **({} if self.tournament is None else {"tournament": vars(self.tournament).copy()}),
            **({} if self.forensics is None else {"forensics": _forensics_to_dict(self.forensics)}),
            # The turns come last (to_dict adds them) on purpose: a reader that needs no
            # turns (standings, resume) parses the line up to them only (see
            # parse_summary); readers of any key order still work.
        }

    def to_json(self) -> str:
        """One line of JSON, no trailing newline: ``json.dumps(self.to_dict())`` compact,
        byte for byte, with the turns (most of a record, one line per game of a run)
        written by :func:`_turn_json` rather than built as dicts first."""
        head = json.dumps(self._head(), ensure_ascii=False, separators=(",", ":"))
        return f'{head[:-1]},"turns":[{",".join([_turn_json(t) for t in self.turns])}]}}'

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Rebuild a record; ``ValueError`` for another schema version or a missing field."""
        version = data.get("schema")
        if version != SCHEMA_VERSION:
            raise ValueError(f"unsupported record schema {version!r} (this referee reads {SCHEMA_VERSION})")
        try:
            setup = data["setup"]
            choice = data["choice"]
            fault = data["fault"]
            score = data["score"]
            slot = data.get("tournament")
            return cls(
                schema=version,
                game_id=data["game_id"],
                size=data["size"],
                opening=data["opening"],
                time_control=dict(data["time_control"]),
                bots=[_bot_from_dict(b) for b in data["bots"]],
                black=data["black"],
                white=data["white"],
                setup=None if setup is None else SetupEntry(**setup),
                choice=None
                if choice is None
                else ChoiceEntry(choice["by"], Color(choice["color"]), choice["seconds"], choice.get("late")),
                turns=[_turn_from_dict(t) for t in data["turns"]],
                result=data["result"],
                outcome=Outcome(data["outcome"]),
                termination=Termination(data["termination"]),
                winner=data["winner"],
                reason=data["reason"],
                fault=None
                if fault is None
                else FaultEntry(
                    fault["seat"],
                    Termination(fault["kind"]),
                    fault["command"],
                    fault["received"],
                    fault.get("seconds"),
                    fault.get("late"),
                    fault.get("overshoot"),
                ),
                score=None if score is None else (score[0], score[1]),
                started_at=data["started_at"],
                ended_at=data["ended_at"],
                wall_seconds=data["wall_seconds"],
                referee_overhead_us=data["referee_overhead_us"],
                notes=list(data["notes"]),
                tournament=None if slot is None else SlotInfo(**slot),
                forensics=_forensics_from_dict(data.get("forensics")),
            )
        except KeyError as exc:
            raise ValueError(f"record lacks the field {exc.args[0]!r}") from None
        except (TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"a field has the wrong type ({exc})") from None

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a game record must be a JSON object")
        return cls.from_dict(data)


def _without_late(fields: dict[str, Any]) -> dict[str, Any]:
    """A copy without ``late`` when it is None: records of games the referee looked at on
    time read exactly as they did before the field was kept."""
    out = dict(fields)
    if out.get("late", 0) is None:
        del out["late"]
    return out


def _forensics_to_dict(forensics: Forensics) -> dict[str, Any]:
    return {"lines": [list(lines) for lines in forensics.lines], "stderr": forensics.stderr}


def _forensics_from_dict(data: dict[str, Any] | None) -> Forensics | None:
    if data is None:
        return None
    stderr = data.get("stderr")
    return Forensics(
        lines=[[str(line) for line in lines] for lines in data["lines"]],
        stderr=None if stderr is None else str(stderr),
    )


_STATS_FIELDS = tuple(f.name for f in fields(BotStats))  # in their order, as vars() gave them


def _bot_to_dict(bot: BotEntry) -> dict[str, Any]:
    out = {k: v for k, v in vars(bot).items() if k != "stats"}
    if bot.time_control is None:
        del out["time_control"]
    stats = out["stats"] = {name: getattr(bot.stats, name) for name in _STATS_FIELDS}
    if not bot.stats.late:
        del stats["late"], stats["late_max"]
    return out


def _bot_from_dict(data: dict[str, Any]) -> BotEntry:
    fields = dict(data)
    stats = BotStats(**fields.pop("stats"))
    return BotEntry(**fields, stats=stats)


def _turn_to_dict(turn: TurnEntry) -> dict[str, Any]:
    out = _without_late(vars(turn))
    out["color"] = turn.color.value
    return out


_COLOR_JSON = {color: f'"{color.value}"' for color in Color}
_INF = math.inf


def _turn_json(turn: TurnEntry) -> str:
    """``_turn_to_dict(turn)`` as compact JSON, the same bytes as ``json.dumps`` of it: the
    usual turn (an int, a plain string, finite floats or None, no lateness) by hand,
    json's own float and string encoders doing the values; any other through the dict."""
    seconds = turn.seconds
    left = turn.left
    if (
        turn.late is None
        and type(turn.number) is int
        and type(turn.turn) is str
        and type(turn.opening) is bool
        and (seconds is None or (type(seconds) is float and -_INF < seconds < _INF))
        and (left is None or (type(left) is float and -_INF < left < _INF))
    ):
        return (
            f'{{"number":{turn.number},"color":{_COLOR_JSON[turn.color]},"turn":{encode_basestring(turn.turn)},'
            f'"seconds":{"null" if seconds is None else float.__repr__(seconds)},'
            f'"left":{"null" if left is None else float.__repr__(left)},'
            f'"opening":{"true" if turn.opening else "false"}}}'
        )
    return json.dumps(_turn_to_dict(turn), ensure_ascii=False, separators=(",", ":"))


def _turn_from_dict(data: dict[str, Any]) -> TurnEntry:
    fields = dict(data)
    fields["color"] = Color(fields["color"])
    return TurnEntry(**fields)


# ---------------------------------------------------------------------- one results line


def parse_line(line: str | bytes) -> GameRecord:
    """One line of a results file -> its record. ``ValueError`` says what is wrong: not
    JSON, not an object, another schema, a missing field or one of the wrong type."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("not a game record (a JSON object was expected)")
    return GameRecord.from_dict(data)


# ---------------------------------------------------------------------- a game without its turns


@dataclass(frozen=True, slots=True)
class BotSummary:
    label: str
    stats: BotStats

    def __setstate__(self, state: list[Any]) -> None:
        """Unpickled (see :meth:`GameSummary.__setstate__`): its label shared."""
        object.__setattr__(self, "label", _shared(state[0]))
        object.__setattr__(self, "stats", state[1])


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What standings, resume and duplicate checks need of a game, without its turns: a few
    hundred bytes where a whole record of a long game is tens of kilobytes, so a run keeps
    these, not the records (in columns, a hundred-odd bytes a game:
    :class:`~referee.tournament.store.summary_log.SummaryLog`). ``moves`` is a hash of the
    seats' labels, the setup and every turn: two games with equal ``moves`` repeat each
    other move for move (hash collisions aside)."""

    game_id: str
    slot: str
    labels: tuple[str, str]
    winner: int | None
    termination: Termination
    fault: FaultEntry | None
    pair_key: str | None
    bots: tuple[BotSummary, BotSummary]
    moves: int
    event: str | None = None
    """The name of the tournament that played it (its record's ``tournament.name``)."""

    def __setstate__(self, state: list[Any]) -> None:
        """Unpickled (a log's summaries it could not keep in columns, a plan's): the text
        every summary repeats shared, as when read from a results file (see :func:`_shared`)."""
        values = dict(zip(_SUMMARY_FIELDS, state, strict=True))
        values["labels"] = tuple(_shared(label) for label in values["labels"])
        values["pair_key"] = _shared(values["pair_key"])
        values["event"] = _shared(values["event"])
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def is_void(self) -> bool:
        return self.termination is Termination.VOID

    @classmethod
    def of(cls, record: GameRecord) -> GameSummary:
        """The summary of a whole record (the same as parsing its line with
        :func:`parse_summary`)."""
        setup = None if record.setup is None else (record.setup.black, record.setup.white)
        game_id, slot = record.game_id, record.slot
        return cls(
            game_id=game_id,
            slot=game_id if slot == game_id else slot,  # one string kept, not two alike
            labels=record.labels,
            winner=record.winner,
            termination=record.termination,
            fault=None
            if record.fault is None
            else FaultEntry(
                record.fault.seat,
                record.fault.kind,
                None,
                None,
                late=record.fault.late,
                overshoot=record.fault.overshoot,
            ),
            pair_key=record.pair_key,
            bots=(_bot_summary(record.bots[0]), _bot_summary(record.bots[1])),
            moves=_moves_key(
                record.labels, record.black, setup, b"|".join(t.turn.encode() for t in record.turns)
            ),
            event=None if record.tournament is None else record.tournament.name,
        )


_SUMMARY_FIELDS = tuple(f.name for f in fields(GameSummary))


def _bot_summary(bot: BotEntry) -> BotSummary:
    stats = bot.stats
    return BotSummary(
        bot.label,
        BotStats(
            requests=stats.requests, overhead_us=stats.overhead_us, late=stats.late, late_max=stats.late_max
        ),
    )


def _moves_key(
    labels: tuple[str, str], black: int | None, setup: tuple[str, str] | None, turns: bytes
) -> int:
    """Equal for games with the same seats, colours, setup and turns (within one process:
    Python salts string hashes per process, and the key is never stored)."""
    return hash((labels, black, setup, turns))


_TURNS_LAST = b',"turns":['
_TURN_TEXT = re.compile(rb'"turn":"([^"\\]*)"')
_SPACE = frozenset(b" \t\n\r\x0b\x0c")  # what bytes.rstrip() strips
_DECODER = json.JSONDecoder()  # json.loads' own decoder, called without its type checks
_TERMINATIONS = {t.value: t for t in Termination}


def parse_summary(line: bytes) -> GameSummary:
    """One line of a results file -> its :class:`GameSummary`, ``ValueError`` if it is not
    a record. A line written with ``turns`` last (every line since that order was set) is
    parsed up to the turns only, and the turns' notation is picked out of the rest with a
    regular expression; any other line is parsed whole, as :func:`parse_line` would.

    A scan of a results file is mostly this function (20,000 records, 200 MB), so it reads
    each line in place: no copy of the turns (about nine tenths of a record) is made, and
    every test is one pass in C. What it accepts, and the reason it gives for what it
    rejects, are those of the version that sliced the line (tests/test_summary_fast_path.py
    holds the two side by side)."""
    at = line.find(_TURNS_LAST)
    start = end = 0
    turns_last = False
    if at != -1:
        if line.find(b"[", at + len(_TURNS_LAST)) != -1:  # another such key may follow:
            at = line.rfind(_TURNS_LAST)  # the last one is where the turns start
        start, end = at + len(_TURNS_LAST), len(line)
        while end > start and line[end - 1] in _SPACE:
            end -= 1
        # Turns last: the tail is the turn objects, which hold no bracket, then "]}" (its only
        # "]"). A line of the older order ends with other keys after the turns' "]".
        turns_last = line.endswith(b"]}", start, end) and line.find(b"]", start, end) == end - 2
    if turns_last:
        head = line[:at] + b"}"
        try:
            # json.loads(bytes) decodes a text that starts '{"' as UTF-8 ('surrogatepass'),
            # then parses it: the same, without the guess at its encoding.
            if head.startswith(b'{"'):
                data = _DECODER.decode(head.decode("utf-8", "surrogatepass"))
            else:
                data = json.loads(head)
        except ValueError as exc:
            raise ValueError(f"not JSON ({exc})") from None
        turns = b"|".join(_TURN_TEXT.findall(line, start, end))
    else:
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("not a game record (a JSON object was expected)")
        turns = b""
    return _summary_of(data, turns)


def _shared(text: Any) -> Any:
    """One string object for the text every summary repeats (a bot's label, the event, a
    pair's key), however many lines it is read from: a long run keeps its summaries."""
    return sys.intern(text) if type(text) is str else text


def _summary_of(data: Any, turns: bytes) -> GameSummary:
    """The summary of a parsed record (``turns``: its turns' notation joined by ``|``, or
    empty to take them from ``data``)."""
    if not isinstance(data, dict):
        raise ValueError("not a game record (a JSON object was expected)")
    version = data.get("schema")
    if version != SCHEMA_VERSION:
        raise ValueError(f"unsupported record schema {version!r} (this referee reads {SCHEMA_VERSION})")
    try:
        if not turns and data.get("turns"):
            turns = b"|".join(str(t["turn"]).encode() for t in data["turns"])
        bots = data["bots"]
        labels = (_shared(str(bots[0]["label"])), _shared(str(bots[1]["label"])))
        fault = data["fault"]
        slot = data.get("tournament")
        setup = data["setup"]
        game_id = data["game_id"]
        slot_id = slot["slot"] if slot is not None else game_id
        if slot_id == game_id:
            slot_id = game_id  # one string kept, not two alike
        winner = data["winner"]
        termination = data["termination"]
        try:
            ended = _TERMINATIONS[termination]
        except (KeyError, TypeError):  # not one of them: the enum says why
            ended = Termination(termination)
        return GameSummary(
            game_id=game_id,
            slot=slot_id,
            labels=labels,
            winner=winner,
            termination=ended,
            fault=None
            if fault is None
            else FaultEntry(
                fault["seat"],
                Termination(fault["kind"]),
                None,
                None,
                late=fault.get("late"),
                overshoot=fault.get("overshoot"),
            ),
            pair_key=None if slot is None else _shared(slot["pair_key"]),
            bots=(_bot_summary_of(bots[0]), _bot_summary_of(bots[1])),
            moves=_moves_key(
                labels, data["black"], None if setup is None else (setup["black"], setup["white"]), turns
            ),
            event=None if slot is None else _shared(str(slot["name"])),
        )
    except KeyError as exc:
        raise ValueError(f"record lacks the field {exc.args[0]!r}") from None
    except (TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"a field has the wrong type ({exc})") from None


def _bot_summary_of(data: dict[str, Any]) -> BotSummary:
    stats = data["stats"]
    return BotSummary(
        _shared(str(data["label"])),
        BotStats(
            requests=int(stats["requests"]),
            overhead_us=float(stats["overhead_us"]),
            late=int(stats.get("late", 0)),
            late_max=float(stats.get("late_max", 0.0)),
        ),
    )
