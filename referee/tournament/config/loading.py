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
from referee.tournament.config.reading import read_user_text
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
        text = read_user_text(path, "config")
    except FileNotFoundError:
        raise ConfigError("config file not found", file=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the config file: {exc.strerror}", file=shown) from None
    except ValueError as exc:
        raise ConfigError(str(exc), file=shown) from None
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
    base = Path(base_dir).resolve()
    data = with_bots_files(data, file=file, base_dir=base, check_programs=check_programs)
    return ConfigParser(file, base, check_programs).config(data, source)


def with_bots_files(data: object, *, file: str, base_dir: Path, check_programs: bool) -> object:
    """``data`` with each ``bots[i]`` that says ``use: NAME`` replaced by that definition
    from ``bots_file`` (one file or a list, relative to the config's folder) with the
    entry's other keys over it. Each bots file is validated on its own first, so a mistake
    in a definition names its file and place (``engines.yaml: bots[1].command``); one in an
    override names the config's ``bots[i]``. Data without ``bots_file`` or ``use`` is
    returned as it is."""
    if not isinstance(data, dict):
        return data
    bots = data.get("bots")
    uses = (
        [i for i, b in enumerate(bots) if isinstance(b, dict) and "use" in b]
        if isinstance(bots, list)
        else []
    )
    if "bots_file" not in data:
        if uses:
            raise ConfigError(
                "`use` names a bot of a bots file, and there is no `bots_file`",
                file=file,
                key=f"bots[{uses[0]}].use",
            )
        return data
    raw = data["bots_file"]
    paths = [raw] if isinstance(raw, str) else raw
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        raise ConfigError(
            f"expected a path or a list of paths, got {_short_repr(raw)}", file=file, key="bots_file"
        )
    known: dict[str, tuple[dict[str, object], str]] = {}  # name -> (definition, its file)
    for k, entry in enumerate(paths):
        where = "bots_file" if isinstance(raw, str) else f"bots_file[{k}]"
        path = (base_dir / Path(entry).expanduser()).resolve()
        shown = str(Path(file).parent / entry) if not Path(entry).is_absolute() else entry
        try:
            text = read_user_text(path, "bots")
        except FileNotFoundError:
            raise ConfigError(f"bots file not found: {path}", file=file, key=where) from None
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the bots file {path}: {exc}", file=file, key=where) from None
        content = parse_yaml(text, file=shown)
        parser = ConfigParser(shown, path.parent, check_programs)
        if not isinstance(content, dict) or set(content) != {"bots"}:
            got = sorted(map(str, content)) if isinstance(content, dict) else type(content).__name__
            raise ConfigError(
                f"expected a mapping with one key, bots (a list of bots), got {got}", file=shown
            )
        defined = parser.bots(content["bots"], minimum=1)
        for spec, item in zip(defined, content["bots"], strict=True):
            if spec.name in known:
                raise ConfigError(
                    f"bot {spec.name!r} is defined twice (also in {known[spec.name][1]})",
                    file=shown,
                    key="bots",
                )
            # Its folder resolved against its own file, so the config's folder does not move it.
            known[spec.name] = ({**item, "cwd": str(spec.cwd)}, shown)
    merged: list[object] = []
    for i, item in enumerate(bots if isinstance(bots, list) else []):
        if not isinstance(item, dict) or "use" not in item:
            merged.append(item)
            continue
        name = item["use"]
        if not isinstance(name, str) or name not in known:
            have = ", ".join(sorted(known)) or "none"
            raise ConfigError(
                f"no bot {_short_repr(name)} in the bots file(s) (they define: {have})",
                file=file,
                key=f"bots[{i}].use",
            )
        merged.append({**known[name][0], **{k: v for k, v in item.items() if k != "use"}})
    out = {k: v for k, v in data.items() if k != "bots_file"}
    if isinstance(bots, list):
        out["bots"] = merged
    return out


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
