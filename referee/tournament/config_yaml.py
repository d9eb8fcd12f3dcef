"""Tournament configs: YAML in, frozen :mod:`referee.tournament.config` values out, every
mistake reported with its place.

The whole file is validated before any bot starts, because a typo found after an hour of
games is an hour lost. Each error is a :class:`~referee.errors.ConfigError` that names the
file, the key path (``bots[2].command``, indices counting from 0) and what was expected.
Relative paths are relative to the config file's folder (see :mod:`referee.tournament.config`).
Openings are resolved here: the book is read and every line checked with the rules
engine, random setups are generated from their seed. This module reads files but starts no
process and needs no trio.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

import yaml

from referee.errors import ConfigError
from referee.play.programs import program_problem
from referee.play.spec import DEFAULT_MARGIN, OpeningKind, TimeControl
from referee.tournament.config import (
    DEFAULT_BOARD_SIZE,
    DEFAULT_GAMES_PER_PAIR,
    DEFAULT_RANDOM_SEED,
    MAX_BOARD_SIZE,
    MIN_BOARD_SIZE,
    NAME_PATTERN,
    BotSpec,
    EloSpec,
    OpeningSpec,
    ScheduleKind,
    ScheduleSpec,
    TournamentConfig,
)
from referee.tournament.openings import random_openings, read_book

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------- entry points


def load_config(path: str | os.PathLike[str], *, check_programs: bool = True) -> TournamentConfig:
    """Read and validate a config file. Raises :class:`ConfigError` on any problem.

    ``check_programs=False`` skips the checks that bot programs and working folders exist
    (for reading the config of an old run on a machine that cannot run its bots).
    """
    path = Path(path)
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("config file not found", file=shown) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the config file: {exc.strerror}", file=shown) from None
    data = parse_yaml(text, file=shown)
    resolved = path.resolve()
    return parse_config(
        data, file=shown, base_dir=resolved.parent, source=resolved, check_programs=check_programs
    )


def parse_yaml(text: str, *, file: str) -> object:
    """YAML text -> plain data. Syntax errors and duplicate keys become ConfigErrors with
    the line number (YAML itself would silently keep the last of two equal keys)."""
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except ConfigError as exc:
        raise ConfigError(exc.detail, file=file, key=exc.key) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "syntax error"
        key = f"line {mark.line + 1}" if mark is not None else None
        column = f" (column {mark.column + 1})" if mark is not None else ""
        raise ConfigError(f"invalid YAML: {problem}{column}", file=file, key=key) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=file) from None


def parse_config(
    data: object,
    *,
    file: str,
    base_dir: Path,
    source: Path | None = None,
    check_programs: bool = True,
) -> TournamentConfig:
    """Validate already-parsed YAML data. ``file`` is how errors name the config;
    ``base_dir`` is the folder relative paths are resolved against; ``source`` the config
    file's path (default ``base_dir / basename(file)``)."""
    return _Parser(file, Path(base_dir).resolve(), check_programs).config(data, source)


# --------------------------------------------------------------------------- YAML loading


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key written twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key; SafeLoader reports it properly below
                continue
            line = key_node.start_mark.line + 1
            if first is not None:
                raise ConfigError(
                    f"duplicate key {key!r} (first written on line {first})", key=f"line {line}"
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


# --------------------------------------------------------------------------- validation


_TOP_KEYS = (
    "name",
    "board_size",
    "opening",
    "time_control",
    "schedule",
    "concurrency",
    "output",
    "elo",
    "bots",
)
_TIME_KEYS = ("per_move", "main", "increment", "margin")
_SCHEDULE_KEYS = ("kind", "games_per_pair", "rounds", "challengers")
_ELO_KEYS = ("anchor", "anchor_rating")
_BOT_KEYS = ("name", "command", "cwd", "env")
_RANDOM_KEYS = ("count", "seed", "turns")
_OPENING_FORMS = "'pie', 'empty', {book: FILE} or {random: {count: N, seed: S}}"


def _describe(value: object) -> str:
    """``'abc' (str)``, ``3.5 (float)``, ``nothing (null)``: what the user actually wrote."""
    if value is None:
        return "nothing (null)"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Parser:
    """Walks the data once; every check knows its key path. Raising stops at the first
    error: later checks often depend on earlier ones (bot names before the anchor)."""

    def __init__(self, file: str, base_dir: Path, check_programs: bool) -> None:
        self.file = file
        self.base_dir = base_dir
        self.check_programs = check_programs

    # --- error and primitive helpers

    def fail(self, key: str | None, message: str) -> NoReturn:
        raise ConfigError(message, file=self.file, key=key or None)

    def mapping(
        self, value: object, path: str, allowed: Sequence[str], *, what: str = "a mapping"
    ) -> dict[str, object]:
        if not isinstance(value, dict):
            self.fail(path, f"expected {what}, got {_describe(value)}")
        for key in value:
            if not isinstance(key, str):
                self.fail(path, f"keys must be strings, got {_describe(key)}")
            if key not in allowed:
                hint = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
                maybe = f"; did you mean '{hint[0]}'?" if hint else ""
                self.fail(_join(path, key), f"unknown key{maybe} (expected one of: {', '.join(allowed)})")
        return value

    def integer(
        self, value: object, path: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        # bool is a subclass of int, but `rounds: yes` is a mistake, not the number 1.
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"expected an integer, got {_describe(value)}")
        if minimum is not None and maximum is not None and not minimum <= value <= maximum:
            self.fail(path, f"expected an integer from {minimum} to {maximum}, got {value}")
        if minimum is not None and value < minimum:
            self.fail(path, f"expected an integer >= {minimum}, got {value}")
        return value

    def number(self, value: object, path: str, *, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(path, f"expected a number of seconds, got {_describe(value)}")
        number = float(value)
        if not math.isfinite(number):
            self.fail(path, f"expected a finite number, got {value}")
        if positive and number <= 0:
            self.fail(path, f"expected a number > 0, got {value}")
        if number < 0:
            self.fail(path, f"expected a number >= 0, got {value}")
        return number

    def string(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {_describe(value)}")
        return value

    def name(self, value: object, path: str) -> str:
        text = self.string(value, path)
        if not NAME_PATTERN.fullmatch(text):
            self.fail(
                path,
                "expected a name made of letters, digits, '_', '.' and '-' "
                f"(it is used in file names), got {text!r}",
            )
        return text

    def path(self, value: object, key: str) -> Path:
        text = self.string(value, key)
        if not text.strip():
            self.fail(key, "expected a path, got an empty string")
        return (self.base_dir / Path(text).expanduser()).resolve()

    # --- sections

    def config(self, data: object, source: Path | None) -> TournamentConfig:
        if data is None:
            self.fail(None, "the config is empty; expected a mapping with at least 'time_control' and 'bots'")
        top = self.mapping(data, "", _TOP_KEYS, what="a mapping of settings at the top level")
        for required in ("time_control", "bots"):
            if required not in top:
                self.fail(required, "missing (this key is required)")
        if "name" in top:
            name = self.name(top["name"], "name")
        else:
            name = Path(self.file).stem
            if not NAME_PATTERN.fullmatch(name):
                self.fail(
                    "name",
                    f"missing, and the file name {name!r} is not a usable name "
                    "(letters, digits, '_', '.', '-'); give one",
                )
        board_size = (
            self.integer(top["board_size"], "board_size", minimum=MIN_BOARD_SIZE, maximum=MAX_BOARD_SIZE)
            if "board_size" in top
            else DEFAULT_BOARD_SIZE
        )
        bots = self.bots(top["bots"])
        names = tuple(bot.name for bot in bots)
        schedule = self.schedule(top.get("schedule", {}), names)
        time_control = self.time_control(top["time_control"])
        opening = self.opening(top.get("opening", "pie"), board_size)
        concurrency = (
            self.integer(top["concurrency"], "concurrency", minimum=1)
            if "concurrency" in top
            else os.cpu_count() or 1
        )
        output = self.path(top["output"], "output") if "output" in top else self.base_dir / "results" / name
        elo = self.elo(top.get("elo", {}), names)
        return TournamentConfig(
            name=name,
            board_size=board_size,
            opening=opening,
            time_control=time_control,
            schedule=schedule,
            concurrency=concurrency,
            output=output,
            elo=elo,
            bots=bots,
            source=source if source is not None else self.base_dir / Path(self.file).name,
        )

    def time_control(self, value: object) -> TimeControl:
        tc = self.mapping(
            value,
            "time_control",
            _TIME_KEYS,
            what="{per_move: SECONDS} or {main: SECONDS, increment: SECONDS}",
        )
        margin = self.number(tc["margin"], "time_control.margin") if "margin" in tc else DEFAULT_MARGIN
        if "per_move" in tc:
            for other in ("main", "increment"):
                if other in tc:
                    self.fail(
                        f"time_control.{other}",
                        "not allowed with per_move (give either per_move, or main and increment)",
                    )
            return TimeControl.fixed(
                self.number(tc["per_move"], "time_control.per_move", positive=True), margin=margin
            )
        if "main" in tc:
            main = self.number(tc["main"], "time_control.main", positive=True)
            increment = self.number(tc["increment"], "time_control.increment") if "increment" in tc else 0.0
            return TimeControl.fischer(main, increment, margin=margin)
        self.fail(
            "time_control",
            "expected per_move (seconds per move) or main (seconds per game, with an optional increment)",
        )

    def schedule(self, value: object, names: tuple[str, ...]) -> ScheduleSpec:
        spec = self.mapping(value, "schedule", _SCHEDULE_KEYS)
        kind = ScheduleKind.ROUND_ROBIN
        if "kind" in spec:
            text = self.string(spec["kind"], "schedule.kind")
            try:
                kind = ScheduleKind(text)
            except ValueError:
                self.fail("schedule.kind", f"expected 'round_robin' or 'gauntlet', got {text!r}")
        games = DEFAULT_GAMES_PER_PAIR
        if "games_per_pair" in spec:
            games = self.integer(spec["games_per_pair"], "schedule.games_per_pair", minimum=1)
            if games % 2:
                self.fail(
                    "schedule.games_per_pair",
                    f"expected an even number (each pair plays both sides of every start), got {games}",
                )
        rounds = self.integer(spec["rounds"], "schedule.rounds", minimum=1) if "rounds" in spec else 1
        challengers: tuple[str, ...] = ()
        if kind is ScheduleKind.GAUNTLET:
            challengers = self.challengers(spec.get("challengers"), names)
        elif "challengers" in spec:
            self.fail("schedule.challengers", "only allowed with kind: gauntlet")
        return ScheduleSpec(kind, games, rounds, challengers)

    def challengers(self, value: object, names: tuple[str, ...]) -> tuple[str, ...]:
        key = "schedule.challengers"
        if value is None:
            self.fail(key, "a gauntlet needs its challengers: a list of bot names")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            self.fail(key, f"expected a non-empty list of bot names, got {_describe(value)}")
        chosen: list[str] = []
        for i, item in enumerate(value):
            who = self.string(item, f"{key}[{i}]")
            if who not in names:
                self.fail(f"{key}[{i}]", f"no bot is named {who!r} (bots: {', '.join(names)})")
            if who in chosen:
                self.fail(f"{key}[{i}]", f"{who!r} is listed twice")
            chosen.append(who)
        if len(chosen) == len(names):
            self.fail(key, "every bot is a challenger; a gauntlet needs at least one bot to play against")
        return tuple(chosen)

    def elo(self, value: object, names: tuple[str, ...]) -> EloSpec:
        spec = self.mapping(value, "elo", _ELO_KEYS)
        anchor = None
        if spec.get("anchor") is not None:
            anchor = self.string(spec["anchor"], "elo.anchor")
            if anchor not in names:
                self.fail("elo.anchor", f"expected the name of a bot ({', '.join(names)}), got {anchor!r}")
        rating = 0.0
        if "anchor_rating" in spec:
            raw = spec["anchor_rating"]
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
                self.fail("elo.anchor_rating", f"expected a number, got {_describe(raw)}")
            rating = float(raw)
        return EloSpec(anchor, rating)

    # --- bots

    def bots(self, value: object) -> tuple[BotSpec, ...]:
        if not isinstance(value, list):
            self.fail("bots", f"expected a list of bots, got {_describe(value)}")
        if len(value) < 2:
            self.fail("bots", f"expected at least 2 bots, got {len(value)}")
        bots: list[BotSpec] = []
        first_seen: dict[str, int] = {}
        for i, item in enumerate(value):
            path = f"bots[{i}]"
            spec = self.mapping(item, path, _BOT_KEYS, what="a mapping with name and command")
            for required in ("name", "command"):
                if required not in spec:
                    self.fail(_join(path, required), "missing (every bot needs a name and a command)")
            name = self.name(spec["name"], f"{path}.name")
            if name in first_seen:
                self.fail(f"{path}.name", f"duplicate bot name {name!r} (also bots[{first_seen[name]}].name)")
            first_seen[name] = i
            cwd = self.path(spec["cwd"], f"{path}.cwd") if "cwd" in spec else self.base_dir
            if self.check_programs and not cwd.is_dir():
                self.fail(f"{path}.cwd", f"directory not found: {cwd}")
            env = self.env(spec.get("env", {}), f"{path}.env")
            command = self.command(spec["command"], f"{path}.command")
            if self.check_programs:
                self.check_program(command[0], f"{path}.command", cwd, env)
            bots.append(BotSpec(name, command, cwd, MappingProxyType(env)))
        return tuple(bots)

    def command(self, value: object, path: str) -> tuple[str, ...]:
        if isinstance(value, str):
            try:
                words = shlex.split(value)
            except ValueError as exc:  # e.g. "No closing quotation"
                self.fail(path, f"cannot split the command into words: {exc}")
        elif isinstance(value, list):
            words = [self.string(word, f"{path}[{i}]") for i, word in enumerate(value)]
        else:
            self.fail(path, f"expected a string or a list of strings, got {_describe(value)}")
        if not words or not words[0]:
            self.fail(path, "expected a command, got an empty one")
        return tuple(words)

    def env(self, value: object, path: str) -> dict[str, str]:
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping of variable names to values, got {_describe(value)}")
        result: dict[str, str] = {}
        for key, raw in value.items():
            if not isinstance(key, str) or not _ENV_NAME.fullmatch(key):
                self.fail(path, f"expected variable names of letters, digits and '_', got {_describe(key)}")
            where = f"{path}.{key}"
            # Numbers are what the user means (`THREADS: 4`); YAML's yes/no/null are traps.
            if isinstance(raw, bool) or raw is None:
                self.fail(
                    where,
                    f"expected a string or a number, got {_describe(raw)}; quote it if you mean the text",
                )
            if isinstance(raw, (int, float)):
                raw = str(raw)
            if not isinstance(raw, str):
                self.fail(where, f"expected a string or a number, got {_describe(raw)}")
            if "\0" in raw:
                self.fail(where, "a variable's value cannot contain a NUL character")
            result[key] = raw
        return result

    def check_program(self, program: str, path: str, cwd: Path, env: Mapping[str, str]) -> None:
        problem = program_problem(program, cwd, env)
        if problem is not None:
            self.fail(path, problem)

    # --- openings

    def opening(self, value: object, size: int) -> OpeningSpec:
        if isinstance(value, str):
            if value in (OpeningKind.PIE.value, OpeningKind.EMPTY.value):
                return OpeningSpec(OpeningKind(value))
            self.fail("opening", f"expected {_OPENING_FORMS}, got {value!r}")
        spec = self.mapping(value, "opening", ("book", "random"), what=_OPENING_FORMS)
        if len(spec) != 1:
            self.fail("opening", f"expected exactly one of book, random; got {len(spec)} keys")
        if "book" in spec:
            book = self.path(spec["book"], "opening.book")
            return OpeningSpec(
                OpeningKind.BOOK, read_book(book, size, key="opening.book", config=self.file), book=book
            )
        settings = self.mapping(spec["random"], "opening.random", _RANDOM_KEYS, what="{count: N, seed: S}")
        if "count" not in settings:
            self.fail("opening.random.count", "missing (how many random openings to play)")
        count = self.integer(settings["count"], "opening.random.count", minimum=1)
        seed = (
            self.integer(settings["seed"], "opening.random.seed")
            if "seed" in settings
            else DEFAULT_RANDOM_SEED
        )
        turns = (
            self.integer(settings["turns"], "opening.random.turns", minimum=0) if "turns" in settings else 0
        )
        openings = random_openings(size, count, seed, turns=turns)
        return OpeningSpec(OpeningKind.RANDOM, openings, count=count, seed=seed, random_turns=turns)


# --------------------------------------------------------------------------- opening sources


__all__ = ["load_config", "parse_config", "parse_yaml"]
