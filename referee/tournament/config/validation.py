"""The validation of a tournament config: plain data (parsed YAML) in, frozen
:mod:`referee.tournament.config.values` values out, every mistake a
:class:`~referee.errors.ConfigError` naming the file, the key path and what was expected.
The limits below keep a config from asking for what no one could mean (a billion games).
The primitive checks (a mapping's keys, an integer's range, a name, a size) are
:mod:`referee.tournament.config.checks`; the YAML side (duplicate keys, alias bombs,
depth) is :mod:`referee.tournament.config.loading`."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from referee.play.cpu import available_cpus, describe_cpus, parse_cpus
from referee.play.programs import program_problem
from referee.play.spec import DEFAULT_MARGIN, OpeningKind, TimeControl
from referee.ratings.sprt import Model, Sprt
from referee.tournament.config.checks import (
    MAX_NAME_LENGTH,
    FieldChecks,
    _describe,
    _join,
    _short_repr,
    dask_address,
)
from referee.tournament.config.openings import random_openings, read_book
from referee.tournament.config.values import (
    DEFAULT_BATCH,
    DEFAULT_BOARD_SIZE,
    DEFAULT_GAMES_PER_PAIR,
    DEFAULT_RANDOM_SEED,
    DEFAULT_SPRT_MAX_GAMES,
    MAX_BATCH,
    MAX_BOARD_SIZE,
    MAX_PROCESSES,
    MIN_BOARD_SIZE,
    NAME_PATTERN,
    BotSpec,
    EloSpec,
    ExecutorSpec,
    LogSpec,
    OpeningSpec,
    ScheduleKind,
    ScheduleSpec,
    TournamentConfig,
)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Limits: a config is written by a person, so anything past these is a mistake or an
# attack (a YAML alias bomb), and is refused before it costs memory or time.
MAX_YAML_NODES = 100_000
"""Values in the file once aliases are expanded (``*name`` repeats the value it names)."""
MAX_YAML_DEPTH = 50
"""How deeply lists and mappings may nest."""
MAX_SCHEDULE_GAMES = 1_000_000
"""Games in a schedule: rounds x games_per_pair x pairings."""
MAX_RANDOM_OPENINGS = 100_000
"""Random openings (``opening.random.count``); they are generated before the first game."""


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
    "logs",
    "executor",
    "affinity",
)
_EXECUTOR_KEYS = ("dask", "batch", "processes")
_TIME_KEYS = ("per_move", "main", "increment", "margin")
_SCHEDULE_KEYS = ("kind", "games_per_pair", "rounds", "challengers")
_SPRT_KEYS = ("kind", "elo0", "elo1", "alpha", "beta", "model", "max_games")
_ADAPTIVE_KEYS = ("kind", "games", "floor")
_LOG_KEYS = ("max_per_game", "max_per_bot")
_ELO_KEYS = ("anchor", "anchor_rating")
_BOT_KEYS = ("name", "command", "cwd", "env")
_RANDOM_KEYS = ("count", "seed", "turns")
_OPENING_FORMS = "'pie', 'empty', {book: FILE} or {random: {count: N, seed: S}}"


class ConfigParser(FieldChecks):
    """Walks the data once; every check knows its key path. Raising stops at the first
    error: later checks often depend on earlier ones (bot names before the anchor)."""

    def __init__(self, file: str, base_dir: Path, check_programs: bool) -> None:
        super().__init__(file, base_dir)
        self.check_programs = check_programs

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
            if not NAME_PATTERN.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
                self.fail(
                    "name",
                    f"missing, and the file name {_short_repr(name)} is not a usable name "
                    f"(letters, digits, '_', '.', '-'; at most {MAX_NAME_LENGTH}); give one",
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
        logs = self.logs(top["logs"]) if "logs" in top else LogSpec()
        executor = self.executor(top["executor"]) if "executor" in top else ExecutorSpec()
        affinity = self.affinity(top["affinity"]) if "affinity" in top else None
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
            logs=logs,
            executor=executor,
            affinity=affinity,
        )

    def affinity(self, value: object) -> frozenset[int] | None:
        """``true`` (every CPU this process may use), ``false``, or the CPUs to use, as a
        string like ``"0-3,6"`` or a list of numbers; every CPU must be one this process may
        run on. An empty set: asked for where the platform cannot pin (the run notes it)."""
        available = available_cpus()
        if isinstance(value, bool):
            if not value:
                return None
            return frozenset() if available is None else available
        if isinstance(value, list) and value and all(type(x) is int for x in value):
            cpus = frozenset(value)
        elif isinstance(value, str):
            try:
                cpus = parse_cpus(value)
            except ValueError as exc:
                self.fail("affinity", f'expected CPUs like "0-3,6": {exc}')
        else:
            self.fail(
                "affinity",
                f'expected true, false, CPUs like "0-3,6" or a list of CPU numbers, got {_describe(value)}',
            )
        if available is None:
            return frozenset()
        missing = sorted(cpus - available)
        if missing:
            self.fail(
                "affinity",
                f"CPU {', '.join(str(c) for c in missing)} not available to this process "
                f"(it may use {describe_cpus(sorted(available))})",
            )
        return cpus

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
        if isinstance(value, Mapping) and value.get("kind") == ScheduleKind.SPRT.value:
            return self.sprt(value, names)
        if isinstance(value, Mapping) and value.get("kind") == ScheduleKind.ADAPTIVE.value:
            return self.adaptive(value, names)
        spec = self.mapping(value, "schedule", _SCHEDULE_KEYS)
        kind = ScheduleKind.ROUND_ROBIN
        if "kind" in spec:
            text = self.string(spec["kind"], "schedule.kind")
            try:
                kind = ScheduleKind(text)
            except ValueError:
                self.fail(
                    "schedule.kind",
                    f"expected 'round_robin', 'gauntlet', 'sprt' or 'adaptive', got {_short_repr(text)}",
                )
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
        if kind is ScheduleKind.GAUNTLET:
            pairs = len(challengers) * (len(names) - len(challengers))
        else:
            pairs = len(names) * (len(names) - 1) // 2
        total = pairs * games * rounds
        if total > MAX_SCHEDULE_GAMES:
            key = "schedule.rounds" if rounds >= games else "schedule.games_per_pair"
            self.fail(
                key,
                f"the schedule would have {total:,} games ({pairs:,} pairings x {games:,} games per pair "
                f"x {rounds:,} rounds); the most a tournament can have is {MAX_SCHEDULE_GAMES:,}",
            )
        return ScheduleSpec(kind, games, rounds, challengers)

    def sprt(self, value: Mapping[str, object], names: tuple[str, ...]) -> ScheduleSpec:
        """``{kind: sprt, elo0, elo1, alpha, beta, model, max_games}`` with exactly two bots:
        the first listed is the candidate, the second the baseline."""
        spec = self.mapping(value, "schedule", _SPRT_KEYS)
        if len(names) != 2:
            self.fail(
                "bots",
                "an SPRT is between exactly two bots (the candidate first, then the baseline), "
                f"got {len(names)}",
            )
        for required in ("elo0", "elo1"):
            if required not in spec:
                self.fail(f"schedule.{required}", "missing (an SPRT needs elo0 and elo1)")
        elo0, elo1 = (self.elo_value(spec[k], f"schedule.{k}") for k in ("elo0", "elo1"))
        if not elo0 < elo1:
            self.fail("schedule.elo1", f"expected elo1 above elo0, got [{elo0:g}, {elo1:g}]")
        alpha, beta = (self.probability(spec.get(k, 0.05), f"schedule.{k}") for k in ("alpha", "beta"))
        if alpha + beta >= 1:
            self.fail("schedule.beta", f"expected alpha + beta below 1, got {alpha:g} + {beta:g}")
        model = Model.NORMALIZED
        if "model" in spec:
            text = self.string(spec["model"], "schedule.model")
            try:
                model = Model(text)
            except ValueError:
                self.fail("schedule.model", f"expected 'normalized' or 'logistic', got {_short_repr(text)}")
        max_games = DEFAULT_SPRT_MAX_GAMES
        if "max_games" in spec:
            max_games = self.integer(
                spec["max_games"], "schedule.max_games", minimum=2, maximum=MAX_SCHEDULE_GAMES
            )
            if max_games % 2:
                self.fail(
                    "schedule.max_games", f"expected an even number (games come in pairs), got {max_games}"
                )
        test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, model=model)
        return ScheduleSpec(ScheduleKind.SPRT, sprt=test, max_games=max_games)

    def adaptive(self, value: Mapping[str, object], names: tuple[str, ...]) -> ScheduleSpec:
        """``{kind: adaptive, games: N, floor: F}``: N games (even), each next pair where
        it buys the most certainty about the ranking, after F games per bot."""
        spec = self.mapping(value, "schedule", _ADAPTIVE_KEYS)
        if "games" not in spec:
            self.fail("schedule.games", "missing (an adaptive run needs its game budget)")
        games = self.integer(spec["games"], "schedule.games", minimum=2, maximum=MAX_SCHEDULE_GAMES)
        if games % 2:
            self.fail("schedule.games", f"expected an even number (games come in pairs), got {games}")
        floor = None
        if "floor" in spec:
            floor = self.integer(spec["floor"], "schedule.floor", minimum=0)
        return ScheduleSpec(ScheduleKind.ADAPTIVE, adaptive_games=games, adaptive_floor=floor)

    def logs(self, value: object) -> LogSpec:
        """``{max_per_game: BYTES, max_per_bot: BYTES}``; sizes may be written ``50MB`` or
        ``100MiB`` too."""
        spec = self.mapping(value, "logs", _LOG_KEYS)
        out = LogSpec()
        for key in _LOG_KEYS:
            if key in spec:
                out = dataclasses.replace(out, **{key: self.byte_size(spec[key], f"logs.{key}")})
        return out

    def executor(self, value: object) -> ExecutorSpec:
        """``{dask: "tcp://HOST:8786", batch: GAMES}``: play on a Dask cluster; or
        ``{processes: N}``: spread the games over N referee processes on this machine."""
        spec = self.mapping(
            value,
            "executor",
            _EXECUTOR_KEYS,
            what='a mapping like {processes: 4} or {dask: "tcp://HOST:8786"}',
        )
        if "processes" in spec:
            for other in ("dask", "batch"):
                if other in spec:
                    self.fail(
                        f"executor.{other}",
                        "not with executor.processes (processes: here; dask: on a cluster)",
                    )
            processes = self.integer(
                spec["processes"], "executor.processes", minimum=1, maximum=MAX_PROCESSES
            )
            return ExecutorSpec(processes=processes)
        if "dask" not in spec:
            self.fail(
                "executor.dask",
                'missing: the scheduler\'s address, like "tcp://HOST:8786" (or executor.processes: N)',
            )
        address = dask_address(spec["dask"])
        if address is None:
            self.fail(
                "executor.dask",
                f'expected a scheduler address like "tcp://HOST:8786", got {_describe(spec["dask"])}',
            )
        batch = (
            self.integer(spec["batch"], "executor.batch", minimum=1, maximum=MAX_BATCH)
            if "batch" in spec
            else DEFAULT_BATCH
        )
        return ExecutorSpec(dask=address, batch=batch)

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
                self.fail(f"{key}[{i}]", f"no bot is named {_short_repr(who)} (bots: {', '.join(names)})")
            if who in chosen:
                self.fail(f"{key}[{i}]", f"{_short_repr(who)} is listed twice")
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
                self.fail(
                    "elo.anchor",
                    f"expected the name of a bot ({', '.join(names)}), got {_short_repr(anchor)}",
                )
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
            if self.check_programs:
                try:
                    found = cwd.is_dir()
                except OSError as exc:
                    self.fail(f"{path}.cwd", f"cannot access the directory {cwd}: {exc.strerror or exc}")
                if not found:
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
        try:
            problem = program_problem(program, cwd, env)
        except OSError as exc:  # a folder on the way that we may not look into
            where = f" ({exc.filename})" if exc.filename else ""
            problem = f"cannot access the program {_short_repr(program)}{where}: {exc.strerror or exc}"
        if problem is not None:
            self.fail(path, problem)

    # --- openings

    def opening(self, value: object, size: int) -> OpeningSpec:
        if isinstance(value, str):
            if value in (OpeningKind.PIE.value, OpeningKind.EMPTY.value):
                return OpeningSpec(OpeningKind(value))
            self.fail("opening", f"expected {_OPENING_FORMS}, got {_short_repr(value)}")
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
        if count > MAX_RANDOM_OPENINGS:
            self.fail(
                "opening.random.count",
                f"expected at most {MAX_RANDOM_OPENINGS:,} random openings (they are all generated "
                f"before the first game), got {count:,}",
            )
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


__all__ = [
    "MAX_RANDOM_OPENINGS",
    "MAX_SCHEDULE_GAMES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "ConfigParser",
]
