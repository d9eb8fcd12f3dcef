"""The checks every config field is made of: a mapping with known keys, an integer in a
range, a number of seconds, a name, a path, a byte size. Each check knows the key path it
is at and fails with a :class:`~referee.errors.ConfigError` that says what was expected and
what the user wrote (quoted at most a line long: a value may be an alias bomb)."""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from referee.errors import ConfigError
from referee.tournament.config.reading import MAX_BOOK_BYTES, read_user_text
from referee.tournament.config.values import NAME_PATTERN

MAX_NAME_LENGTH = 64
"""Characters of a name (a tournament's, a bot's): names are used in file names."""
SHOWN_VALUE = 60
"""Characters of a value an error message quotes."""


def dask_address(value: object) -> str | None:
    """A Dask scheduler address (``tcp://HOST:PORT``, ``tls://...``, ``HOST:PORT``), as
    given; None if ``value`` is not one."""
    if not isinstance(value, str) or len(value) > 300:
        return None
    match = re.fullmatch(
        r"(?:(tcp|tls|inproc|ucx|ws|wss)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?", value
    )
    if match is None or (match.group(1) is None and match.group(3) is None):
        return None
    return value


def _short_repr(value: object, limit: int = SHOWN_VALUE) -> str:
    """``repr(value)`` cut to about ``limit`` characters, without building the whole text:
    a value may be huge (aliases), and a repr of it would be too."""
    out: list[str] = []
    used = 0
    stack: list[object] = [value]
    while stack and used <= limit:
        item = stack.pop()
        if isinstance(item, _Text):
            piece = item.text
        elif isinstance(item, dict):
            parts: list[object] = [_Text("{")]
            for i, (k, v) in enumerate(item.items()):
                if i:
                    parts.append(_Text(", "))
                parts.extend((k, _Text(": "), v))
                if i > limit:
                    break
            parts.append(_Text("}"))
            stack.extend(reversed(parts))
            continue
        elif isinstance(item, (list, tuple)):
            parts = [_Text("[")]
            for i, v in enumerate(item):
                if i:
                    parts.append(_Text(", "))
                parts.append(v)
                if i > limit:
                    break
            parts.append(_Text("]"))
            stack.extend(reversed(parts))
            continue
        elif isinstance(item, str):
            piece = repr(item[: limit + 1])
        else:
            piece = repr(item)[: limit + 1]
        out.append(piece)
        used += len(piece)
    text = "".join(out)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


class _Text:
    """A piece of punctuation in :func:`_short_repr`'s output, not a value to repr."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _clip(text: str, limit: int = SHOWN_VALUE) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(value: object) -> str:
    """``'abc' (str)``, ``3.5 (float)``, ``nothing (null)``: what the user actually wrote."""
    if value is None:
        return "nothing (null)"
    return f"{_short_repr(value)} ({type(value).__name__})"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class FieldChecks:
    """The primitive checks, for :class:`~referee.tournament.config.validation.ConfigParser`'s
    sections. ``file`` names the config in messages; relative paths are from ``base_dir``."""

    def __init__(self, file: str, base_dir: Path) -> None:
        self.file = file
        self.base_dir = base_dir

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
                f"(it is used in file names), got {_short_repr(text)}",
            )
        if len(text) > MAX_NAME_LENGTH:
            self.fail(
                path,
                f"expected a name of at most {MAX_NAME_LENGTH} characters (it is used in file names), "
                f"got {len(text)}: {_short_repr(text)}",
            )
        return text

    def path(self, value: object, key: str) -> Path:
        text = self.string(value, key)
        if not text.strip():
            self.fail(key, "expected a path, got an empty string")
        return (self.base_dir / Path(text).expanduser()).resolve()

    def rated_seeds(self, value: object, key: str, names: Sequence[str]) -> tuple[str, ...]:
        """``seeds: {rating: FILE}``: the bots ordered by their Elo in ``FILE``, a
        ``standings.json`` of an earlier run (or its folder), strongest first; a bound counts
        as beyond every estimate (``> X`` first, ``< X`` last); bots it does not rate follow
        in config order. Read once, when the config is loaded: the order is kept in the
        run's fingerprint, so a resume does not depend on the file staying the same."""
        path = self.path(value, key)
        if path.is_dir():
            path = path / "standings.json"
        try:
            text = read_user_text(path, "standings", MAX_BOOK_BYTES)
        except FileNotFoundError:
            self.fail(key, f"no such file: {path} (expected an earlier run's standings.json, or its folder)")
        except (OSError, ValueError) as exc:
            self.fail(key, f"cannot read {path}: {exc}")
        try:
            data = json.loads(text)
        except ValueError as exc:
            self.fail(
                key,
                f"{path}: not JSON ({exc}); expected a standings.json (`vastuz report DIR --format json`)",
            )
        bots = data.get("bots") if isinstance(data, dict) else None
        if not isinstance(bots, list):
            self.fail(key, f"{path}: not a standings.json (no `bots` list of ratings)")
        rating: dict[str, float] = {}
        for entry in bots:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            elo, bound = entry.get("elo"), entry.get("elo_bound")
            if bound in ("lower", "upper"):
                rating[entry["name"]] = math.inf if bound == "lower" else -math.inf
            elif isinstance(elo, (int, float)) and not isinstance(elo, bool) and math.isfinite(elo):
                rating[entry["name"]] = float(elo)
        rated = [n for n in names if n in rating]
        if not rated:
            self.fail(
                key,
                f"{path} rates none of this config's bots ({', '.join(names)})"[:300]
                + (f"; it rates {', '.join(sorted(rating))}"[:200] if rating else ""),
            )
        ranked = sorted(rated, key=lambda n: -rating[n])  # stable: ties in config order
        return (*ranked, *(n for n in names if n not in rating))

    def elo_value(self, value: object, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(path, f"expected a number of Elo, got {_describe(value)}")
        if abs(value) > 2000:
            self.fail(path, f"expected an Elo difference from -2000 to 2000, got {value}")
        return float(value)

    def probability(self, value: object, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            self.fail(path, f"expected a probability between 0 and 1 (exclusive), got {_describe(value)}")
        return float(value)

    def byte_size(self, value: object, path: str) -> int:
        if isinstance(value, str):
            match = re.fullmatch(r"\s*([0-9]+)\s*([kKmMgG]?)(i?)[bB]?\s*", value)
            if match is None:
                self.fail(
                    path, f"expected a size in bytes, like 1048576, 50MB or 100MiB, got {_describe(value)}"
                )
            number, unit, binary = int(match.group(1)), match.group(2).upper(), match.group(3)
            power = {"": 0, "K": 1, "M": 2, "G": 3}[unit]
            base: int = 1024 if binary or not unit else 1000
            size: int = number * base**power
        elif isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"expected a size in bytes, like 1048576, 50MB or 100MiB, got {_describe(value)}")
        else:
            size = int(value)
        if size < 1024:
            self.fail(path, f"expected at least 1024 bytes, got {size}")
        return size
