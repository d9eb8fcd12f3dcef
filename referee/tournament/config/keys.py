"""Every config key, declared once: its name, what it takes (and how that is checked), its
default, and whether it is required.

:mod:`.validation` reads each mapping of a config through these declarations (unknown keys
with a "did you mean", required keys, each key's check or its default), and the key table
of ``configs/README.md`` is rendered from them, so the table cannot drift from the code:
``tests/test_config_keys.py`` compares the two. After changing a key, rewrite the table
with ``python -m referee.tournament.config.keys configs/README.md`` (without a file it prints
the table). The ``schedule`` key's sub-keys belong to the plans (see
:mod:`.validation`); here it is one row.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from referee.engine import MAX_SIZE, MIN_SIZE
from referee.play.limits import Limits
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_MARGIN, DEFAULT_STARTUP_TIMEOUT, TimeControl
from referee.tournament.config.checks import MAX_NAME_LENGTH, FieldChecks, _describe, _join
from referee.tournament.config.values import (
    DEFAULT_BATCH,
    DEFAULT_BOARD_SIZE,
    DEFAULT_LOG_MAX_PER_BOT,
    DEFAULT_LOG_MAX_PER_GAME,
    DEFAULT_RANDOM_SEED,
    MAX_BATCH,
    MAX_PROCESSES,
    BotSpec,
    EloSpec,
    ExecutorSpec,
    LogSpec,
    OpeningSpec,
)
from referee.tournament.plans.fixed import DEFAULT_GAMES_PER_PAIR
from referee.tournament.plans.kinds import ScheduleSpec

T = TypeVar("T")

MAX_RANDOM_OPENINGS = 100_000
"""Random openings (``opening.random.count``); they are generated before the first game."""

NO_DEFAULT: Any = object()
"""The default of a key that is required, or whose default depends on the rest of the
config (its section computes it)."""

Reader = Callable[[FieldChecks, object, str], T]  # (checks, value, key path) -> the value, or fail


@dataclass(frozen=True)
class Check(Generic[T]):
    """What a key takes, in the README's words, and the reader that checks it; a key
    without a reader is read by its section (it needs the rest of the config)."""

    text: str
    read: Reader[T] | None = None


def integer(minimum: int | None = None, maximum: int | None = None) -> Check[int]:
    if minimum is not None and maximum is not None:
        text = f"integer {minimum:,}..{maximum:,}"
    else:
        text = "integer" if minimum is None else f"integer >= {minimum:,}"
    return Check(text, lambda c, v, path: c.integer(v, path, minimum=minimum, maximum=maximum))


SECONDS = Check("seconds >= 0", FieldChecks.number)
POSITIVE_SECONDS = Check("seconds > 0", lambda c, v, path: c.number(v, path, positive=True))
SIZE = Check("bytes (or `50MB`, `100MiB`), at least 1024", FieldChecks.byte_size)
NAME = Check(
    f"letters, digits, `_`, `.`, `-` (it names files), at most {MAX_NAME_LENGTH} characters",
    FieldChecks.name,
)
PATH = Check("a path", FieldChecks.path)
MAX_PROCESS_LIMIT = 100_000
"""The most processes a bot may be allowed (``limits.processes``)."""


def _memory(checks: FieldChecks, value: object, path: str) -> int | None:
    if value is None or value == "none":
        return None
    size = checks.byte_size(value, path)
    if size < 1 << 20:
        checks.fail(path, f"expected at least 1 MiB (or none), got {size} bytes")
    return size


def _process_count(checks: FieldChecks, value: object, path: str) -> int | None:
    if value is None or value == "none":
        return None
    return checks.integer(value, path, minimum=1, maximum=MAX_PROCESS_LIMIT)


def _boolean(checks: FieldChecks, value: object, path: str) -> bool:
    if not isinstance(value, bool):
        checks.fail(path, f"expected true or false, got {_describe(value)}")
    return value


MEMORY_LIMIT = Check("bytes (`512MiB`, `2GiB`), at least 1 MiB, or `none`", _memory)
PROCESS_LIMIT = Check(f"integer 1..{MAX_PROCESS_LIMIT:,} or `none`", _process_count)
BOOLEAN = Check("`true` or `false`", _boolean)


@dataclass(frozen=True)
class Key(Generic[T]):
    """One key. ``default`` is what an absent key means, written as in a config and read
    by the same check as a value the user gives (``shown``: the README's words for it,
    where the value would not do); ``required`` is the reason given with "missing";
    ``keys`` are the sub-keys of a mapping (``what`` names it in errors), or of each item of
    a list with ``items``; ``doc`` says what the key is for."""

    name: str
    check: Check[T]
    doc: str = ""
    default: object = NO_DEFAULT
    shown: str | None = None
    required: str | None = None
    keys: tuple[Key[Any], ...] = ()
    what: str = "a mapping"
    items: bool = False

    def read(self, checks: FieldChecks, value: object, path: str) -> Given:
        """``value`` as this key's mapping at ``path``: a mapping of known keys (a close
        one suggested), with every required key present."""
        names = [key.name for key in self.keys]
        spec = checks.mapping(value, path, names, what=self.what)
        for key in self.keys:
            if key.required is not None and key.name not in spec:
                checks.fail(_join(path, key.name), f"missing ({key.required})")
        return Given(checks, self, spec, path)


class Given:
    """A mapping read against its key's table: each value checked when asked for, in the
    order the section asks (later checks may depend on earlier values)."""

    def __init__(self, checks: FieldChecks, key: Key[Any], values: dict[str, object], path: str) -> None:
        self.checks = checks
        self.key = key
        self.values = values
        self.path = path

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def get(self, key: Key[T], read: Callable[[object, str], T] | None = None) -> T:
        """The key's value (or its default) checked by ``read``, by default its own check."""
        where = _join(self.path, key.name)
        value = self.values.get(key.name, key.default)
        if value is NO_DEFAULT:
            raise LookupError(f"{where} has no default: its section computes it")
        if read is not None:
            return read(value, where)
        if key.check.read is None:
            raise LookupError(f"{where} is read by its section")
        return key.check.read(self.checks, value, where)

    def build(self, target: Callable[..., T], **readers: Callable[[object, str], Any]) -> T:
        """``target`` made of every sub-key's value (by its name), in the table's order."""
        return target(**{key.name: self.get(key, readers.get(key.name)) for key in self.key.keys})


# --------------------------------------------------------------------------- the keys

BOARD_SIZE = Key(
    "board_size", integer(MIN_SIZE, MAX_SIZE), "points on each side of the board", default=DEFAULT_BOARD_SIZE
)
OPENING_FORMS = "'pie', 'empty', {book: FILE} or {random: {count: N, seed: S}}"
COUNT = "how many random openings to play"
RANDOM_COUNT = Key("count", Check[int](f"integer 1..{MAX_RANDOM_OPENINGS:,}"), COUNT, required=COUNT)
RANDOM_SEED = Key("seed", integer(), "the same seed gives the same openings everywhere", DEFAULT_RANDOM_SEED)
RANDOM_TURNS = Key("turns", integer(0), "random legal turns after each setup", default=0)
RANDOM = Key(
    "random",
    Check[object]("`{count: N, seed: S, turns: T}`"),
    "N random setups of two distinct points",
    shown="",
    keys=(RANDOM_COUNT, RANDOM_SEED, RANDOM_TURNS),
    what="{count: N, seed: S}",
)
BOOK = Key("book", PATH, "a file of fixed openings, one a line: `BLACK WHITE [TURN ...]`", shown="")


def choice(*values: str) -> Check[str]:
    """One of ``values``, as a string."""

    def read(checks: FieldChecks, value: object, path: str) -> str:
        text = checks.string(value, path)
        if text not in values:
            shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
            checks.fail(path, f"expected {' or '.join(repr(v) for v in values)}, got {shown}")
        return text

    return Check(" or ".join(f"`{v}`" for v in values), read)


ORDER = Key(
    "order",
    choice("sequential", "random"),
    "with `book`: the book's order, or shuffled by `seed` once before the first game",
    default="sequential",
)
ORDER_SEED = Key("seed", integer(), "with `order: random`: the shuffle's seed", default=DEFAULT_RANDOM_SEED)
POLICY = Key(
    "policy",
    choice("round", "encounter"),
    "`round`: one opening per colour-reversed couple in schedule order; `encounter`: every pairing "
    "plays the same openings in the same order (round robin, gauntlet; not `adaptive`)",
    default="round",
)
CLOCK = "`per_move` or `main` is required"
PER_MOVE = Key(
    "per_move", POSITIVE_SECONDS, "each move must come within this; unused time is lost", shown=CLOCK
)
MAIN = Key("main", POSITIVE_SECONDS, "for the whole game (a Fischer clock)", shown=CLOCK)
INCREMENT = Key("increment", SECONDS, "added after each move, with `main`", default=0)
MARGIN = Key(
    "margin", SECONDS, "allowed on top of each limit for process and pipe overhead", default=DEFAULT_MARGIN
)
BOT = "every bot needs a name and a command"
BOT_NAME = Key("name", NAME, "unique among the bots", required=BOT)
WORDS = Check[tuple[str, ...]]("a string, split like a shell does, or a list of words")
COMMAND = Key("command", WORDS, "the program and its arguments", required=BOT)
CWD = Key("cwd", PATH, "the bot's working folder (must exist)", shown="the config's folder")
VARIABLES = Check[dict[str, str]]("a mapping of names to strings or numbers")
ENV = Key("env", VARIABLES, "added to the referee's environment", default={}, shown="none")
MEMORY_DOC = "resident memory of all the bot's processes together; over it, the bot loses by `memory`"
PROCESSES_DOC = "the bot's processes at once; over it, the bot loses by `processes`"
MEMORY = Key("memory", MEMORY_LIMIT, MEMORY_DOC, default="1GiB", shown="1 GiB")
PROCESS_COUNT = Key("processes", PROCESS_LIMIT, PROCESSES_DOC, default=256)
LIMITS_CHECK = Check[Limits]("`{memory: SIZE, processes: N}`")
TRUST = "see the README's [Running bots you do not trust](../README.md#running-bots-you-do-not-trust)"
LIMITS = Key(
    "limits",
    LIMITS_CHECK,
    f"what each bot may use; {TRUST}",
    default={},
    shown="",
    keys=(MEMORY, PROCESS_COUNT),
    what="{memory: SIZE, processes: N}",
)
SANDBOX = Key(
    "sandbox",
    BOOLEAN,
    "run every bot under bubblewrap (`bwrap`): the system read-only, its `cwd` writable, a private "
    f"`/tmp`, no network, the results and the other bots' folders hidden; {TRUST}",
    default=False,
)
BOT_LIMITS = Key(
    "limits",
    LIMITS_CHECK,
    "this bot's own, key by key over the config's `limits`",
    default={},
    shown="",
    keys=(
        Key("memory", MEMORY_LIMIT, MEMORY_DOC, shown="the config's `limits.memory`"),
        Key("processes", PROCESS_LIMIT, PROCESSES_DOC, shown="the config's `limits.processes`"),
    ),
    what="{memory: SIZE, processes: N}",
)
BOT_SANDBOX = Key("sandbox", BOOLEAN, "this bot under bubblewrap, or not", shown="the config's `sandbox`")
TIME_CONTROL = Key(
    "time_control",
    Check[TimeControl]("`{per_move: S}` or `{main: S, increment: S}`, optional `margin: S`"),
    required="this key is required",
    keys=(PER_MOVE, MAIN, INCREMENT, MARGIN),
    what="{per_move: SECONDS} or {main: SECONDS, increment: SECONDS}",
)
NAME_KEY = Key("name", NAME, shown="the config file's name without `.yaml`")
OPENING = Key(
    "opening",
    Check[OpeningSpec](
        "`pie`, `empty`, `{book: FILE, order, seed, policy}` or "
        "`{random: {count: N, seed: S, turns: T}, policy}`"
    ),
    default="pie",
    keys=(BOOK, RANDOM, ORDER, ORDER_SEED, POLICY),
    what=OPENING_FORMS,
)
SCHEDULE = Key(
    "schedule",
    Check[ScheduleSpec](
        "`{kind, games_per_pair, rounds, challengers}`, an SPRT `{kind: sprt, elo0, elo1, alpha, beta, "
        "model, max_games}`, `{kind: adaptive, games, floor}`, a Swiss `{kind: swiss, rounds, "
        "games_per_pairing, seeds, tie_breaks}` or a knockout `{kind: knockout, games_per_match, seeds, "
        "tiebreak_pairs}` (`seeds`: `config`, a list of names or `{rating: STANDINGS}`)"
    ),
    default={},
    shown=f"round robin, {DEFAULT_GAMES_PER_PAIR} games per pair, 1 round",
)
CONCURRENCY = Key("concurrency", integer(1), "games played at once", shown="the number of CPU cores")
STARTUP_TIMEOUT = Key(
    "startup_timeout",
    POSITIVE_SECONDS,
    "each bot's time to start and answer its handshake (a bot that warms up for long); not in the "
    "fingerprint",
    default=DEFAULT_STARTUP_TIMEOUT,
)
COMMAND_TIMEOUT = Key(
    "command_timeout",
    POSITIVE_SECONDS,
    "each bot's time for a command that is not a decision (`boardsize`, `play`, ...); in the "
    "fingerprint when set",
    default=DEFAULT_COMMAND_TIMEOUT,
)
OUTPUT = Key("output", PATH, "the results folder", shown="`results/<name>`")
ELO = Key(
    "elo",
    Check[EloSpec]("`{anchor: BOT, anchor_rating: R}`"),
    "where the rating scale sits",
    default={},
    shown="",
    keys=(
        Key("anchor", Check[str | None]("a bot's name"), "the bot rated `anchor_rating`", None, "none"),
        Key(
            "anchor_rating", Check[float]("a number"), "the anchor's rating; without one, the mean rating", 0
        ),
    ),
)
BOT_MARGIN_DOC = "allowed on top of each of this bot's limits (network or start-up lag)"
BOT_MARGIN = Key("margin", SECONDS, BOT_MARGIN_DOC, shown="the config's `time_control.margin`")
BOT_TIME_CONTROL = Key(
    "time_control",
    Check[TimeControl]("`{per_move: S}` or `{main: S, increment: S}`, optional `margin: S`"),
    "this bot's own clock (time odds): records and standings say who played at which",
    shown="the config's `time_control`",
    keys=(
        PER_MOVE,
        MAIN,
        INCREMENT,
        Key("margin", SECONDS, BOT_MARGIN_DOC, shown="`bots[].margin`, else the config's"),
    ),
    what="{per_move: SECONDS} or {main: SECONDS, increment: SECONDS}",
)
STARTUP_COMMANDS = Key(
    "startup_commands",
    Check[tuple[str, ...]]("a list of protocol command lines"),
    "sent in order after the handshake of each process start (`set_strength 3`); a `?` answer is a "
    "start failure naming the command",
    default=[],
    shown="none",
)
RESTART = Key(
    "restart",
    choice("on-fault", "always", "never"),
    "when the bot gets a fresh process: `on-fault` (after a fault), `always` (every game), `never` (kept "
    "through every fault its protocol survives, as cutechess and fastchess keep an engine: an illegal "
    "turn, a resignation, and a loss on time whose late answer comes within its `command_timeout`, "
    "the record saying how late, `fault.overshoot`; a process that crashed, garbled an answer or "
    "stayed silent is replaced whatever the policy: there is nothing to keep)",
    default="on-fault",
)
BOT_STARTUP_TIMEOUT = Key(
    "startup_timeout", POSITIVE_SECONDS, "this bot's own", shown="the config's `startup_timeout`"
)
BOT_COMMAND_TIMEOUT = Key(
    "command_timeout", POSITIVE_SECONDS, "this bot's own", shown="the config's `command_timeout`"
)
USE = Key(
    "use",
    Check[str]("a bot's name in `bots_file`"),
    "this bot is that definition, with the other keys given here over it (`name` renames it)",
    shown="none",
)
BOTS = Key(
    "bots",
    Check[tuple[BotSpec, ...]](
        "a list of at least 2 bots (exactly 2 for an SPRT: the candidate first, then the baseline)"
    ),
    required="this key is required",
    keys=(
        BOT_NAME,
        COMMAND,
        CWD,
        ENV,
        BOT_LIMITS,
        BOT_SANDBOX,
        BOT_TIME_CONTROL,
        BOT_MARGIN,
        STARTUP_COMMANDS,
        RESTART,
        BOT_STARTUP_TIMEOUT,
        BOT_COMMAND_TIMEOUT,
        USE,
    ),
    what="a mapping with name and command",
    items=True,
)
BOTS_FILE = Key(
    "bots_file",
    Check[tuple[str, ...]]("a path, or a list of paths"),
    "YAML files of bot definitions (`bots: [...]`, each as in `bots`) that `bots[].use` names; a "
    "definition's `cwd` is relative to its own file",
    shown="none",
)
LOGS = Key(
    "logs",
    Check[LogSpec]("`{max_per_game: SIZE, max_per_bot: SIZE}`"),
    "caps on the bots' log files (stderr and transcripts); past a cap, output is dropped with a note",
    default={},
    shown="",
    keys=(
        Key(
            "max_per_game", SIZE, "each file (one per game, bot and kind)", DEFAULT_LOG_MAX_PER_GAME, "1 MiB"
        ),
        Key("max_per_bot", SIZE, "all of one bot's files over the run", DEFAULT_LOG_MAX_PER_BOT, "100 MiB"),
    ),
)
AFFINITY = Key(
    "affinity",
    Check[frozenset[int] | None](
        '`true` (every CPU this process may use), `false`, or the CPUs to use, `"0-3,6"` or `[0, 1, 2]`'
    ),
    "pin each game slot's bots to cores of their own and keep one core (the lowest) free of bots for "
    "the referee, as fastchess's `-use-affinity`; see [CPUs and fair clocks](#cpus-and-fair-clocks)",
    default=False,
)
DASK = Key(
    "dask",
    Check[str]('a scheduler\'s address, `"tcp://HOST:8786"`'),
    "play on the workers of that Dask scheduler, see [docs/cluster.md](../docs/cluster.md); not with "
    "`processes`",
    shown="none",
)
PAIR = f"{DEFAULT_BATCH} (a colour-reversed pair)"
BATCH = Key("batch", integer(1, MAX_BATCH), "games per task on a Dask cluster", DEFAULT_BATCH, PAIR)
PROCESSES = Key(
    "processes",
    integer(1, MAX_PROCESSES),
    "referee processes on this machine that share the `concurrency` games (for fast bots on several "
    'cores, see the README\'s "Past one core")',
    default=1,
)
EXECUTOR = Key(
    "executor",
    Check[ExecutorSpec]('`{processes: N}` or `{dask: "tcp://HOST:8786", batch: GAMES}`'),
    "where games run; `--processes` / `--dask` / `--batch` override it",
    default={"processes": 1},
    shown="this machine, `concurrency` games at once in this process",
    keys=(DASK, BATCH, PROCESSES),
    what='a mapping like {processes: 4} or {dask: "tcp://HOST:8786"}',
)
TOP = Key(
    "",
    Check[object]("a config"),
    keys=(
        NAME_KEY,
        BOARD_SIZE,
        OPENING,
        TIME_CONTROL,
        SCHEDULE,
        CONCURRENCY,
        STARTUP_TIMEOUT,
        COMMAND_TIMEOUT,
        OUTPUT,
        ELO,
        BOTS,
        BOTS_FILE,
        LOGS,
        LIMITS,
        SANDBOX,
        EXECUTOR,
        AFFINITY,
    ),
    what="a mapping of settings at the top level",
)


# --------------------------------------------------------------------------- the README's table

TABLE_START = "| key | value | default |"


def default_text(key: Key[Any]) -> str:
    if key.shown is not None:
        return key.shown
    if key.required is not None:
        return "required"
    value = key.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f"`{value}`"
    if isinstance(value, (int, float)):
        return f"{value:,}" if isinstance(value, int) else f"{value:g}"
    raise TypeError(f"{key.name}: give the README's wording of its default in `shown`")


def _rows(keys: tuple[Key[Any], ...], prefix: str) -> Iterator[str]:
    for key in keys:
        value = f"{key.check.text}: {key.doc}" if key.doc else key.check.text
        yield f"| `{prefix}{key.name}` | {value} | {default_text(key)} |"
        yield from _rows(key.keys, f"{prefix}{key.name}{'[].' if key.items else '.'}")


def table() -> str:
    """The key table of ``configs/README.md``: every key of :data:`TOP` and its sub-keys."""
    return "\n".join([TABLE_START, "| --- | --- | --- |", *_rows(TOP.keys, "")]) + "\n"


def with_table(readme: str) -> str:
    """``readme`` with its key table (from :data:`TABLE_START` to the next blank line)
    replaced by :func:`table`."""
    start = readme.index(TABLE_START)
    end = readme.index("\n\n", start) + 1
    return readme[:start] + table() + readme[end:]


if __name__ == "__main__":
    if len(sys.argv) > 1:
        target = Path(sys.argv[1])
        target.write_text(with_table(target.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(table(), end="")


__all__ = ["MAX_RANDOM_OPENINGS", "TOP", "Check", "Given", "Key", "table", "with_table"]
