"""A ladder's config: YAML in, a frozen :class:`LadderConfig` out, every mistake a
:class:`~referee.errors.ConfigError` naming the file, the key and what was expected.

A ladder plays games like a tournament does, so everything about a game (board, clock,
opening, bots, limits, timeouts, concurrency, executor, logs, ``bots_file`` with ``use:``)
is the tournament's key, read by the tournament's own validation
(:class:`~referee.tournament.config.validation.ConfigParser`): one definition of each key.
What is the ladder's own is declared here: ``anchors``, ``min_games``, ``pairing``,
``games_per_pairing``, ``on_change``, ``remote`` (where remote bots connect, see
:class:`RemoteSpec`), and per bot ``program`` (what its fingerprint covers) and
``on_change``. The games' settings become a :class:`TournamentConfig` (``games``) whose
schedule is never used: the ladder pairs its own rounds, the executors only need the rest.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ConfigError
from referee.tournament.config import keys
from referee.tournament.config.checks import FieldChecks, _describe, _short_repr
from referee.tournament.config.keys import Check, Key, choice, integer
from referee.tournament.config.loading import parse_yaml, with_bots_files
from referee.tournament.config.reading import read_user_text
from referee.tournament.config.validation import ConfigParser
from referee.tournament.config.values import TournamentConfig

STORE = "ladder.sqlite"
"""The store's file name in the ladder's ``output`` folder."""
DEFAULT_MIN_GAMES = 100
DEFAULT_KEEP_LOGS = 1000
"""Rounds whose bot logs a ladder keeps (see :mod:`referee.ladder.logs`)."""
DEFAULT_NOISE = 100.0
MAX_GAMES_PER_PAIRING = 100


class OnChange(str, enum.Enum):
    """What a bot whose program changed under the same name gets: refused (``refuse``, the
    default: its strength must not change under one name), or a new entry (``new-entry``:
    the old one is retired with its history, the new one starts provisional)."""

    REFUSE = "refuse"
    NEW_ENTRY = "new-entry"


@dataclass(frozen=True)
class Anchor:
    """A bot held at a fixed rating."""

    bot: str
    rating: float


@dataclass(frozen=True)
class PairingSpec:
    """How a round pairs the bots (:mod:`referee.ladder.pairing`): ``rating-noise``
    (CGOS's: sorted by rating plus Gaussian noise of ``noise`` Elo standard deviation,
    neighbours paired; the noise drawn from ``seed`` and the round's number, so a round's
    pairings are the same whoever computes them), or ``information`` (where the games
    settle the most about the order; no noise, no seed)."""

    kind: str = "rating-noise"
    noise: float = DEFAULT_NOISE
    seed: int = 0


@dataclass(frozen=True)
class LadderBot:
    """A bot's ladder settings: ``program`` (a file or a folder) is what its fingerprint
    covers besides its command (None: the command's own files); ``on_change`` its rule."""

    name: str
    program: Path | None
    on_change: OnChange


DEFAULT_LISTEN_PORT = 8760
DEFAULT_NETWORK_MARGIN = 0.5
DEFAULT_MAX_CONNECTIONS = 32
DEFAULT_MAX_MESSAGE = 65536
DEFAULT_HELLO_TIMEOUT = 10.0
DEFAULT_REJOIN_WAIT = 10.0


@dataclass(frozen=True)
class RemoteSpec:
    """Where remote bots connect (``vastuz connect``) and the limits of their connections.

    ``listen`` is HOST:PORT (port 0: any free port; the ladder writes the URL to
    ``OUTPUT/remote.json``). Tokens travel in clear over ``ws://``: on a host other than
    loopback, put a TLS proxy in front. ``network_margin`` is added to a remote bot's
    deadline per command (its clock is charged the whole round trip); ``max_connections``
    counts connections at once, pending hellos included; ``max_message`` bytes per websocket
    message (a larger one closes the connection); ``hello_timeout`` seconds to say hello;
    ``rejoin_wait`` seconds a restarted ladder waits for the remote bots of an unfinished
    round to reconnect before it cancels their games."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_LISTEN_PORT
    network_margin: float = DEFAULT_NETWORK_MARGIN
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_message: int = DEFAULT_MAX_MESSAGE
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT
    rejoin_wait: float = DEFAULT_REJOIN_WAIT


@dataclass(frozen=True)
class LadderConfig:
    name: str
    source: Path
    games: TournamentConfig
    """The games' settings (board, clock, opening, bots, executor); its schedule is unused."""
    bots: tuple[LadderBot, ...]
    anchors: tuple[Anchor, ...]
    min_games: int
    pairing: PairingSpec
    games_per_pairing: int
    on_change: OnChange = OnChange.REFUSE
    """The top-level rule (the bots' default, and the remote bots' rule)."""
    remote: RemoteSpec | None = None
    """None: the ladder accepts no connections."""
    keep_logs: int = DEFAULT_KEEP_LOGS
    """Rounds whose bot logs are kept (0: all)."""

    @property
    def output(self) -> Path:
        return self.games.output

    @property
    def store(self) -> Path:
        return self.games.output / STORE

    @property
    def logs(self) -> Path:
        return self.games.output / "logs"

    def bot(self, name: str) -> LadderBot:
        return next(b for b in self.bots if b.name == name)

    def settings(self) -> dict[str, Any]:
        """What makes two games comparable on this ladder (board, clock, openings, command
        deadline): a store keeps the first run's, and a config that changes them is refused."""
        fingerprint = self.games.fingerprint()
        return {k: v for k, v in fingerprint.items() if k not in ("schedule", "bots")}


# ------------------------------------------------------------------------------ the keys

ANCHOR_BOT = Key("bot", Check[str]("a bot's name"), "the anchored bot", required="an anchor names its bot")
ANCHOR_RATING = Key("rating", Check[float]("a number"), "its fixed rating", default=0)
ANCHORS = Key(
    "anchors",
    Check[tuple[Anchor, ...]]("a list of `{bot: NAME, rating: R}` (one, for now)"),
    "the bot whose rating is fixed; without one, the mean rating is 0",
    default=[],
    shown="none",
    keys=(ANCHOR_BOT, ANCHOR_RATING),
    what="a mapping {bot: NAME, rating: R}",
    items=True,
)
MIN_GAMES = Key(
    "min_games",
    integer(1),
    "games before a rating is established (shown with `?` before)",
    default=DEFAULT_MIN_GAMES,
)
PAIRING = Key(
    "pairing",
    Check[PairingSpec]("`{kind: rating-noise, noise: ELO, seed: N}` or `{kind: information}`"),
    "how each round pairs the bots: sorted by rating plus Gaussian noise, neighbours paired "
    "(rating-noise), or where the games settle the most about the order (information)",
    default={},
    shown="",
    keys=(
        Key(
            "kind",
            choice("rating-noise", "information"),
            "rating-noise (CGOS) or information (the adaptive planner's)",
            default="rating-noise",
        ),
        Key("noise", Check[float]("Elo >= 0"), "the noise's standard deviation", default=DEFAULT_NOISE),
        Key("seed", integer(), "the noise's seed (with the round's number)", default=0),
    ),
    what="{kind: rating-noise, noise: ELO, seed: N} or {kind: information}",
)
GAMES_PER_PAIRING = Key(
    "games_per_pairing",
    Check[int](f"an even integer 2..{MAX_GAMES_PER_PAIRING}"),
    "games each pairing plays per round: colour-reversed pairs",
    default=2,
)
ON_CHANGE = Key(
    "on_change",
    Check[OnChange]("`refuse` or `new-entry`"),
    "a bot whose program changed under the same name: refused, or registered as a new entry",
    default=OnChange.REFUSE.value,
)
REMOTE = Key(
    "remote",
    Check[RemoteSpec](
        "`{listen: HOST:PORT, network_margin: S, max_connections: N, max_message: BYTES, hello_timeout: S}`"
    ),
    "where remote bots connect (vastuz connect); without it the ladder accepts no connections",
    default=None,
    shown="none",
    keys=(
        Key("listen", Check[str]("HOST:PORT"), "the address to listen on (port 0: any free port)",
            default=f"127.0.0.1:{DEFAULT_LISTEN_PORT}"),
        Key("network_margin", Check[float]("seconds >= 0"), "added to a remote bot's deadline per command",
            default=DEFAULT_NETWORK_MARGIN),
        Key("max_connections", integer(1, 10_000), "connections at once, pending hellos included",
            default=DEFAULT_MAX_CONNECTIONS),
        Key("max_message", integer(1024, 1 << 26), "bytes per websocket message",
            default=DEFAULT_MAX_MESSAGE),
        Key("hello_timeout", Check[float]("seconds > 0"), "seconds to authenticate after connecting",
            default=DEFAULT_HELLO_TIMEOUT),
        Key("rejoin_wait", Check[float]("seconds >= 0"),
            "seconds a restarted ladder waits for the remote bots of an unfinished round",
            default=DEFAULT_REJOIN_WAIT),
    ),
    what="a mapping {listen: HOST:PORT, network_margin: S, ...}",
)  # fmt: skip
BOT_PROGRAM = "program"
BOT_ON_CHANGE = "on_change"
KEEP_LOGS = Key(
    "keep_logs",
    integer(0),
    "the rounds whose bot logs are kept: after each round, older rounds' logs are deleted (0: all kept)",
    default=DEFAULT_KEEP_LOGS,
)
LADDER_ONLY = (ANCHORS, MIN_GAMES, PAIRING, GAMES_PER_PAIRING, ON_CHANGE, REMOTE, KEEP_LOGS)
TOP = Key(
    "",
    Check[object]("a ladder config"),
    keys=(
        *(k for k in keys.TOP.keys if k.name not in ("schedule", "elo")),
        *LADDER_ONLY,
    ),
    what="a mapping of settings at the top level",
)


# ------------------------------------------------------------------------------ loading


def load_ladder(path: str | os.PathLike[str], *, check_programs: bool = True) -> LadderConfig:
    """Read and validate a ladder config; :class:`ConfigError` on any problem.
    ``check_programs=False``: bot programs need not exist (``status`` and ``export`` of a
    ladder whose bots are elsewhere)."""
    path = Path(path)
    shown = str(path)
    try:
        text = read_user_text(path, "config")
    except FileNotFoundError:
        raise ConfigError("config file not found", file=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the config file: {exc}", file=shown) from None
    except ValueError as exc:
        raise ConfigError(str(exc), file=shown) from None
    resolved = path.resolve()
    return parse_ladder(
        parse_yaml(text, file=shown),
        file=shown,
        base_dir=resolved.parent,
        source=resolved,
        check_programs=check_programs,
    )


def parse_ladder(
    data: object, *, file: str, base_dir: Path, source: Path, check_programs: bool = True
) -> LadderConfig:
    checks = FieldChecks(file, base_dir)
    if data is None:
        checks.fail(None, "the config is empty; expected a mapping with at least 'time_control' and 'bots'")
    top = TOP.read(checks, data, "")
    assert isinstance(data, dict)
    games_per_pairing = top.get(GAMES_PER_PAIRING, lambda v, where: _even(checks, v, where))
    default_change = top.get(ON_CHANGE, lambda v, where: _on_change(checks, v, where))
    merged = with_bots_files(data, file=file, base_dir=base_dir, check_programs=check_programs)
    assert isinstance(merged, dict)
    raw_bots = merged.get("bots")
    own: list[tuple[object, object]] = []  # each bot's (program, on_change) as written
    if isinstance(raw_bots, list):
        stripped = []
        for item in raw_bots:
            if isinstance(item, dict):
                own.append((item.get(BOT_PROGRAM), item.get(BOT_ON_CHANGE)))
                item = {k: v for k, v in item.items() if k not in (BOT_PROGRAM, BOT_ON_CHANGE)}
            else:
                own.append((None, None))
            stripped.append(item)
        merged = {**merged, "bots": stripped}
    tournament = {k: v for k, v in merged.items() if k not in {key.name for key in LADDER_ONLY}}
    tournament["schedule"] = {"kind": "round_robin", "games_per_pair": games_per_pairing}
    games = ConfigParser(file, base_dir, check_programs).config(tournament, source)
    names = games.bot_names
    bots = []
    for i, (bot, (program, change)) in enumerate(zip(games.bots, own, strict=True)):
        where = f"bots[{i}]"
        path = None
        if program is not None:
            path = checks.path(program, f"{where}.{BOT_PROGRAM}")
            if check_programs and not path.exists():
                checks.fail(f"{where}.{BOT_PROGRAM}", f"no such file or folder: {path}")
        rule = default_change
        if change is not None:
            rule = _on_change(checks, change, f"{where}.{BOT_ON_CHANGE}")
        bots.append(LadderBot(bot.name, path, rule))
    anchors = _anchors(checks, top.values.get("anchors", []), names)
    pairing = top.get(PAIRING, lambda v, where: _pairing(checks, v, where))
    remote = None
    if top.values.get("remote") is not None:
        remote = _remote(checks, top.values["remote"], "remote")
        problem = remote_executor_problem(games)
        if problem is not None:
            checks.fail("remote", problem)
    return LadderConfig(
        name=games.name,
        source=source,
        games=games,
        bots=tuple(bots),
        anchors=anchors,
        min_games=top.get(MIN_GAMES),
        keep_logs=top.get(KEEP_LOGS),
        pairing=pairing,
        games_per_pairing=games_per_pairing,
        on_change=default_change,
        remote=remote,
    )


def remote_executor_problem(games: TournamentConfig) -> str | None:
    """Why remote bots cannot play with this executor (their connections live in the
    ladder's process, so their games must too), or None."""
    spec = games.executor
    if spec.dask is not None or (spec.processes > 1 and games.concurrency > 1):
        return (
            "remote bots play in the ladder's own process: remove `executor` "
            "(referee processes or a Dask cluster) or `remote`"
        )
    return None


def _remote(checks: FieldChecks, value: object, where: str) -> RemoteSpec:
    spec = REMOTE.read(checks, value, where)
    listen = checks.string(spec.values.get("listen", REMOTE.keys[0].default), f"{where}.listen")
    host, sep, port_text = listen.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        checks.fail(f"{where}.listen", f"expected HOST:PORT (port 0..65535), got {_short_repr(listen)}")

    def seconds(name: str, *, positive: bool) -> float:
        key = next(k for k in REMOTE.keys if k.name == name)
        return checks.number(spec.values.get(name, key.default), f"{where}.{name}", positive=positive)

    return RemoteSpec(
        host=host,
        port=int(port_text),
        network_margin=seconds("network_margin", positive=False),
        max_connections=spec.get(REMOTE.keys[2]),
        max_message=spec.get(REMOTE.keys[3]),
        hello_timeout=seconds("hello_timeout", positive=True),
        rejoin_wait=seconds("rejoin_wait", positive=False),
    )


def _even(checks: FieldChecks, value: object, where: str) -> int:
    number = checks.integer(value, where, minimum=2, maximum=MAX_GAMES_PER_PAIRING)
    if number % 2:
        checks.fail(where, f"expected an even number (colour-reversed pairs), got {number}")
    return number


def _on_change(checks: FieldChecks, value: object, where: str) -> OnChange:
    text = checks.string(value, where)
    try:
        return OnChange(text)
    except ValueError:
        choices = " or ".join(repr(c.value) for c in OnChange)
        checks.fail(where, f"expected {choices}, got {_short_repr(text)}")


def _anchors(checks: FieldChecks, value: object, names: tuple[str, ...]) -> tuple[Anchor, ...]:
    if not isinstance(value, list):
        checks.fail("anchors", f"expected a list like [{{bot: random, rating: 0}}], got {_describe(value)}")
    if len(value) > 1:
        # compute_ratings fixes one bot; several fixed bots need a constrained fit.
        checks.fail("anchors", f"expected one anchor (several are not supported yet), got {len(value)}")
    out = []
    for i, item in enumerate(value):
        where = f"anchors[{i}]"
        spec = ANCHORS.read(checks, item, where)
        bot = checks.string(spec.values.get("bot"), f"{where}.bot")
        if bot not in names:
            checks.fail(f"{where}.bot", f"no bot is named {_short_repr(bot)} (bots: {', '.join(names)})")
        rating = spec.values.get("rating", 0)
        if isinstance(rating, bool) or not isinstance(rating, (int, float)) or abs(rating) > 10_000:
            checks.fail(f"{where}.rating", f"expected a rating from -10000 to 10000, got {_describe(rating)}")
        out.append(Anchor(bot, float(rating)))
    return tuple(out)


def _pairing(checks: FieldChecks, value: object, where: str) -> PairingSpec:
    spec = PAIRING.read(checks, value, where)
    noise = spec.values.get("noise", DEFAULT_NOISE)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0 <= noise <= 2000:
        checks.fail(f"{where}.noise", f"expected Elo from 0 to 2000, got {_describe(noise)}")
    kind = spec.get(PAIRING.keys[0])
    seed = spec.get(PAIRING.keys[2])
    if kind == "information":
        given = [k for k in ("noise", "seed") if k in spec.values]
        if given:
            checks.fail(
                f"{where}.{given[0]}", "goes with kind: rating-noise; information pairing has no noise"
            )
    return PairingSpec(kind, float(noise), seed)


__all__ = [
    "STORE",
    "Anchor",
    "LadderBot",
    "LadderConfig",
    "OnChange",
    "PairingSpec",
    "RemoteSpec",
    "load_ladder",
    "remote_executor_problem",
]
