"""Tournament configs: YAML in, frozen :mod:`referee.tournament.config.values` values out, every
mistake reported with its place.

The whole file is validated before any bot starts, because a typo found after an hour of
games is an hour lost. Each error is a :class:`~referee.errors.ConfigError` that names the
file, the key path (``bots[2].command``, indices counting from 0) and what was expected.
Relative paths are relative to the config file's folder (see :mod:`referee.tournament.config.values`).
Openings are resolved here: the book is read and every line checked with the rules
engine, random setups are generated from their seed. This module reads files but starts no
process and needs no trio.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from referee.errors import ConfigError
from referee.tournament.config.checks import _clip, _short_repr
from referee.tournament.config.validation import ConfigParser
from referee.tournament.config.values import TournamentConfig

# A config is written by a person: past these it is a mistake or an attack (a YAML alias
# bomb), refused before it costs memory or time.
MAX_YAML_NODES = 100_000
"""Values in the file once aliases are expanded (``*name`` repeats the value it names)."""
MAX_YAML_DEPTH = 50
"""How deeply lists and mappings may nest."""

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
    except RecursionError:
        raise ConfigError(
            f"the file nests lists or mappings too deeply (at most {MAX_YAML_DEPTH} levels)", file=file
        ) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ConfigError(f"invalid value: {_clip(str(exc))}", file=file) from None


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
    return ConfigParser(file, Path(base_dir).resolve(), check_programs).config(data, source)


# --------------------------------------------------------------------------- YAML loading


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key written twice in one mapping, a document that nests
    deeper than :data:`MAX_YAML_DEPTH`, and one that aliases expand to more than
    :data:`MAX_YAML_NODES` values (a "billion laughs" bomb is a few lines that stand for
    billions of values: anything that walks or prints them would never finish)."""

    _depth = 0

    def get_single_node(self) -> yaml.Node | None:
        node = super().get_single_node()
        if node is not None:
            _check_size(node)
        return node

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        # The composer recurses once per level: stop at a sane depth with the line, long
        # before Python's recursion limit would.
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
                raise ConfigError(
                    f"lists or mappings nest more than {MAX_YAML_DEPTH} levels deep", key=f"line {line}"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # more digits than Python converts (sys.int_info.str_digits_check_threshold)
            raise ConfigError(
                f"a number of {len(node.value):,} digits; no setting needs one that large",
                key=f"line {node.start_mark.line + 1}",
            ) from None

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
                    f"duplicate key {_short_repr(key)} (first written on line {first})", key=f"line {line}"
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _check_size(root: yaml.Node) -> None:
    """Count the values under ``root`` as if every alias were written out, and measure the
    nesting, without expanding anything: each node's expanded size is computed once
    (aliases share node objects) in a loop, not by recursion."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, children_done = stack.pop()
        if id(node) in sizes and not children_done:
            continue
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if depth > MAX_YAML_DEPTH:
            line = node.start_mark.line + 1
            raise ConfigError(
                f"lists or mappings nest more than {MAX_YAML_DEPTH} levels deep", key=f"line {line}"
            )
        if children_done:
            size = 1 + sum(sizes[id(child)] for child in children)
            if size > MAX_YAML_NODES:
                line = node.start_mark.line + 1
                raise ConfigError(
                    f"with its aliases (*name) expanded, this value holds more than {MAX_YAML_NODES:,} "
                    "values; a config needs nowhere near that many (a YAML alias bomb?)",
                    key=f"line {line}",
                )
            sizes[id(node)] = size
            continue
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in children if id(child) not in sizes)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)


__all__ = ["MAX_YAML_DEPTH", "MAX_YAML_NODES", "load_config", "parse_config", "parse_yaml"]
