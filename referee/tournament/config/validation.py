"""The validation of a tournament config: plain data (parsed YAML) in, frozen
:mod:`referee.tournament.config.values` values out, every mistake a
:class:`~referee.errors.ConfigError` naming the file, the key path and what was expected.

Each key is declared once, in :mod:`referee.tournament.config.keys` (its check, default and
whether it is required); the sections here read their mappings through those declarations
and add what involves several keys (``per_move`` or ``main``, the bots an anchor may name).
The primitive checks are :mod:`referee.tournament.config.checks`; the YAML side (duplicate
keys, alias bombs, depth) is :mod:`referee.tournament.config.loading`."""

from __future__ import annotations

import dataclasses
import math
import os
import random
import re
import shlex
from pathlib import Path
from types import MappingProxyType

from referee.play.cpu import available_cpus, describe_cpus, parse_cpus
from referee.play.limits import DEFAULT_LIMITS, Limits
from referee.play.programs import program_problem
from referee.play.sandbox import missing as missing_sandbox
from referee.play.spec import OpeningKind, TimeControl
from referee.tournament.config import keys
from referee.tournament.config.checks import (
    MAX_NAME_LENGTH,
    FieldChecks,
    _describe,
    _short_repr,
    dask_address,
)
from referee.tournament.config.openings import random_openings, read_book
from referee.tournament.config.values import (
    NAME_PATTERN,
    BotSpec,
    EloSpec,
    ExecutorSpec,
    LogSpec,
    OpeningSpec,
    Restart,
    TournamentConfig,
)
from referee.tournament.plans.kinds import ScheduleSpec, parse_schedule
from referee.tournament.plans.plan import OpeningPolicy

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

MAX_SCHEDULE_GAMES = 1_000_000
"""Games in a schedule: rounds x games_per_pair x pairings. A config is written by a person,
so past this it is a mistake, refused before it costs memory or time."""


class ConfigParser(FieldChecks):
    """Walks the data once; every check knows its key path. Raising stops at the first
    error: later checks often depend on earlier ones (bot names before the anchor)."""

    def __init__(self, file: str, base_dir: Path, check_programs: bool) -> None:
        super().__init__(file, base_dir)
        self.check_programs = check_programs
        # Each bot's own clock keys, read once the config's clock is known (bot_clocks).
        self._clocks: dict[str, tuple[object, object, str]] = {}

    # --- sections

    def config(self, data: object, source: Path | None) -> TournamentConfig:
        if data is None:
            self.fail(None, "the config is empty; expected a mapping with at least 'time_control' and 'bots'")
        top = keys.TOP.read(self, data, "")
        if "name" in top:
            name = top.get(keys.NAME_KEY)
        else:
            name = Path(self.file).stem
            if not NAME_PATTERN.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
                self.fail(
                    "name",
                    f"missing, and the file name {_short_repr(name)} is not a usable name "
                    f"(letters, digits, '_', '.', '-'; at most {MAX_NAME_LENGTH}); give one",
                )
        board_size = top.get(keys.BOARD_SIZE)
        limits = top.get(keys.LIMITS, lambda value, path: keys.LIMITS.read(self, value, path).build(Limits))
        sandbox = top.get(keys.SANDBOX)
        bots = top.get(keys.BOTS, lambda value, _: self.bots(value, limits, sandbox))
        names = tuple(bot.name for bot in bots)
        # Arguments are evaluated in order: the order the keys are checked in (which error a
        # config with several mistakes gets first).
        config = TournamentConfig(
            name=name,
            board_size=board_size,
            bots=bots,
            schedule=top.get(keys.SCHEDULE, lambda value, _: self.schedule(value, names)),
            time_control=top.get(keys.TIME_CONTROL, lambda value, path: self.time_control(value, path)),
            opening=top.get(keys.OPENING, lambda value, _: self.opening(value, board_size)),
            concurrency=top.get(keys.CONCURRENCY) if "concurrency" in top else os.cpu_count() or 1,
            output=top.get(keys.OUTPUT) if "output" in top else self.base_dir / "results" / name,
            elo=top.get(keys.ELO, lambda value, path: self.elo(value, path, names)),
            source=source if source is not None else self.base_dir / Path(self.file).name,
            logs=top.get(keys.LOGS, lambda value, path: keys.LOGS.read(self, value, path).build(LogSpec)),
            executor=top.get(keys.EXECUTOR, self.executor),
            affinity=top.get(keys.AFFINITY, self.affinity),
            startup_timeout=top.get(keys.STARTUP_TIMEOUT),
            command_timeout=top.get(keys.COMMAND_TIMEOUT),
        )
        config = dataclasses.replace(config, bots=self.bot_clocks(config.bots, config.time_control))
        if config.opening.policy is OpeningPolicy.ENCOUNTER and config.schedule.kind == "adaptive":
            self.fail("opening.policy", "an adaptive schedule plays its pairings unevenly: use policy: round")
        return config

    def affinity(self, value: object, path: str) -> frozenset[int] | None:
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
                self.fail(path, f'expected CPUs like "0-3,6": {exc}')
        else:
            self.fail(
                path,
                f'expected true, false, CPUs like "0-3,6" or a list of CPU numbers, got {_describe(value)}',
            )
        if available is None:
            return frozenset()
        missing = sorted(cpus - available)
        if missing:
            self.fail(
                path,
                f"CPU {', '.join(str(c) for c in missing)} not available to this process "
                f"(it may use {describe_cpus(sorted(available))})",
            )
        return cpus

    def time_control(self, value: object, path: str) -> TimeControl:
        tc = keys.TIME_CONTROL.read(self, value, path)
        margin = tc.get(keys.MARGIN)
        if "per_move" in tc:
            for other in ("main", "increment"):
                if other in tc:
                    self.fail(
                        f"{path}.{other}",
                        "not allowed with per_move (give either per_move, or main and increment)",
                    )
            return TimeControl.fixed(tc.get(keys.PER_MOVE), margin=margin)
        if "main" in tc:
            return TimeControl.fischer(tc.get(keys.MAIN), tc.get(keys.INCREMENT), margin=margin)
        self.fail(
            path,
            "expected per_move (seconds per move) or main (seconds per game, with an optional increment)",
        )

    def schedule(self, value: object, names: tuple[str, ...]) -> ScheduleSpec:
        """Each kind parses its own keys (:mod:`referee.tournament.plans`)."""
        return parse_schedule(self, value, names)

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

    def elo(self, value: object, path: str, names: tuple[str, ...]) -> EloSpec:
        def anchor(raw: object, where: str) -> str | None:
            if raw is None:
                return None
            text = self.string(raw, where)
            if text not in names:
                self.fail(where, f"expected the name of a bot ({', '.join(names)}), got {_short_repr(text)}")
            return text

        def rating(raw: object, where: str) -> float:
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
                self.fail(where, f"expected a number, got {_describe(raw)}")
            return float(raw)

        return keys.ELO.read(self, value, path).build(EloSpec, anchor=anchor, anchor_rating=rating)

    # --- bots

    def bots(
        self, value: object, limits: Limits = DEFAULT_LIMITS, sandbox: bool = False, *, minimum: int = 2
    ) -> tuple[BotSpec, ...]:
        """The bots, each with the config's ``limits`` and ``sandbox`` unless it has its own
        (its ``limits`` key by key); a sandbox where bubblewrap is missing fails here,
        before any bot starts. ``minimum``: a bots file may hold a single bot."""
        if not isinstance(value, list):
            self.fail("bots", f"expected a list of bots, got {_describe(value)}")
        if len(value) < minimum:
            self.fail("bots", f"expected at least {minimum} bots, got {len(value)}")
        bots: list[BotSpec] = []
        first_seen: dict[str, int] = {}
        for i, item in enumerate(value):
            path = f"bots[{i}]"
            spec = keys.BOTS.read(self, item, path)
            name = spec.get(keys.BOT_NAME)
            if name in first_seen:
                self.fail(f"{path}.name", f"duplicate bot name {name!r} (also bots[{first_seen[name]}].name)")
            first_seen[name] = i
            cwd = spec.get(keys.CWD) if "cwd" in spec else self.base_dir
            if self.check_programs:
                try:
                    found = cwd.is_dir()
                except OSError as exc:
                    self.fail(f"{path}.cwd", f"cannot access the directory {cwd}: {exc.strerror or exc}")
                if not found:
                    self.fail(f"{path}.cwd", f"directory not found: {cwd}")
            env = spec.get(keys.ENV, self.env)
            command = spec.get(keys.COMMAND, self.command)
            if self.check_programs:
                problem = program_problem(command[0], cwd, env)
                if problem is not None:
                    self.fail(f"{path}.command", problem)
            own = keys.BOT_LIMITS.read(self, spec.values.get("limits", {}), f"{path}.limits")
            bot_limits = Limits(
                **{
                    key.name: own.get(key) if key.name in own else getattr(limits, key.name)
                    for key in keys.BOT_LIMITS.keys
                }
            )
            boxed = spec.get(keys.BOT_SANDBOX) if "sandbox" in spec else sandbox
            if boxed and self.check_programs:
                problem = missing_sandbox()
                if problem is not None:
                    self.fail(f"{path}.sandbox" if "sandbox" in spec else "sandbox", problem)
            bots.append(
                BotSpec(
                    name,
                    command,
                    cwd,
                    MappingProxyType(env),
                    bot_limits,
                    boxed,
                    startup_commands=spec.get(keys.STARTUP_COMMANDS, self.startup_commands),
                    restart=Restart(spec.get(keys.RESTART)),
                    startup_timeout=spec.get(keys.BOT_STARTUP_TIMEOUT) if "startup_timeout" in spec else None,
                    command_timeout=spec.get(keys.BOT_COMMAND_TIMEOUT) if "command_timeout" in spec else None,
                )
            )
            self._clocks[name] = (spec.values.get("time_control"), spec.values.get("margin"), path)
        return tuple(bots)

    def startup_commands(self, value: object, path: str) -> tuple[str, ...]:
        """A list of protocol command lines, each a command name and its arguments."""
        if not isinstance(value, list):
            self.fail(path, f"expected a list of protocol commands, got {_describe(value)}")
        lines: list[str] = []
        for k, item in enumerate(value):
            line = " ".join(self.string(item, f"{path}[{k}]").split())
            if not line or not re.fullmatch(r"[A-Za-z_][\x21-\x7e]*( [\x21-\x7e]+)*", line):
                self.fail(f"{path}[{k}]", f"expected a command name and its arguments, got {item!r}"[:200])
            lines.append(line)
        return tuple(lines)

    def bot_clocks(self, bots: tuple[BotSpec, ...], config_clock: TimeControl) -> tuple[BotSpec, ...]:
        """Each bot's own clock (``time_control``, ``margin``), read once the config's is
        known: a bot's ``margin`` replaces the config's, its ``time_control`` the whole
        clock (its margin: its own, else the bot's ``margin``, else the config's)."""
        out = []
        for bot in bots:
            value, margin_value, path = self._clocks.get(bot.name, (None, None, ""))
            margin = config_clock.margin
            if margin_value is not None:
                margin = self.number(margin_value, f"{path}.margin")
            clock = None
            if value is not None:
                own = keys.BOT_TIME_CONTROL.read(self, value, f"{path}.time_control")
                if "margin" not in own:
                    own.values["margin"] = margin
                clock = self.time_control(own.values, f"{path}.time_control")
            elif margin_value is not None:
                clock = dataclasses.replace(config_clock, margin=margin)
            out.append(dataclasses.replace(bot, time_control=clock) if clock is not None else bot)
        return tuple(out)

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

    # --- openings

    def opening(self, value: object, size: int) -> OpeningSpec:
        if isinstance(value, str):
            if value in (OpeningKind.PIE.value, OpeningKind.EMPTY.value):
                return OpeningSpec(OpeningKind(value))
            self.fail("opening", f"expected {keys.OPENING_FORMS}, got {_short_repr(value)}")
        spec = keys.OPENING.read(self, value, "opening")
        sources = [name for name in ("book", "random") if name in spec]
        if len(sources) != 1:
            self.fail("opening", f"expected exactly one of book, random; got {len(sources)}")
        policy = OpeningPolicy(spec.get(keys.POLICY))
        if "book" in spec:
            book = spec.get(keys.BOOK)
            openings = read_book(book, size, key="opening.book", config=self.file)
            order = spec.get(keys.ORDER)
            order_seed = spec.get(keys.ORDER_SEED) if order == "random" else None
            if order_seed is None and "seed" in spec:
                self.fail("opening.seed", "goes with order: random (a book is otherwise played in its order)")
            if order_seed is not None:
                shuffled = list(openings)
                random.Random(order_seed).shuffle(shuffled)
                openings = tuple(shuffled)
            return OpeningSpec(
                OpeningKind.BOOK, openings, book=book, policy=policy, order=order, order_seed=order_seed
            )
        for name in ("order", "seed"):
            if name in spec:
                self.fail(f"opening.{name}", "goes with book (random openings have their own seed)")
        settings = keys.RANDOM.read(self, spec.values["random"], "opening.random")
        count = settings.get(keys.RANDOM_COUNT, self.random_count)
        seed, turns = settings.get(keys.RANDOM_SEED), settings.get(keys.RANDOM_TURNS)
        openings = random_openings(size, count, seed, turns=turns)
        return OpeningSpec(
            OpeningKind.RANDOM, openings, count=count, seed=seed, random_turns=turns, policy=policy
        )

    def random_count(self, value: object, path: str) -> int:
        count = self.integer(value, path, minimum=1)
        if count > keys.MAX_RANDOM_OPENINGS:
            self.fail(
                path,
                f"expected at most {keys.MAX_RANDOM_OPENINGS:,} random openings (they are all generated "
                f"before the first game), got {count:,}",
            )
        return count

    def dask(self, value: object, path: str) -> str:
        address = dask_address(value)
        if address is None:
            self.fail(path, f'expected a scheduler address like "tcp://HOST:8786", got {_describe(value)}')
        return address

    def executor(self, value: object, path: str) -> ExecutorSpec:
        """``{dask: "tcp://HOST:8786", batch: GAMES}``: play on a Dask cluster; or
        ``{processes: N}``: spread the games over N referee processes on this machine."""
        spec = keys.EXECUTOR.read(self, value, path)
        if "processes" in spec:
            for other in ("dask", "batch"):
                if other in spec:
                    self.fail(
                        f"{path}.{other}", "not with executor.processes (processes: here; dask: on a cluster)"
                    )
            return ExecutorSpec(processes=spec.get(keys.PROCESSES))
        if "dask" not in spec:
            self.fail(
                f"{path}.dask",
                'missing: the scheduler\'s address, like "tcp://HOST:8786" (or executor.processes: N)',
            )
        return ExecutorSpec(dask=spec.get(keys.DASK, self.dask), batch=spec.get(keys.BATCH))


__all__ = ["MAX_SCHEDULE_GAMES", "ConfigParser"]
