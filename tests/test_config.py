"""Tournament config validation: every kind of mistake gives a message naming the file,
the key path and what was expected; valid configs become the right dataclasses."""

from __future__ import annotations

import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from referee.errors import ConfigError
from referee.play.spec import DEFAULT_MARGIN, Opening, OpeningKind, TimeControl, TimeControlKind
from referee.tournament.config.loading import load_config, parse_config
from referee.tournament.config.openings import random_openings, read_book
from referee.tournament.config.reading import MAX_YAML_BYTES
from referee.tournament.config.values import BotSpec, EloSpec, TournamentConfig
from referee.tournament.plans.adaptive import AdaptiveSpec
from referee.tournament.plans.fixed import GauntletSpec, RoundRobinSpec
from referee.tournament.plans.sprt import SprtSpec

PY = sys.executable
REPO = Path(__file__).resolve().parent.parent

BOTS = f"""\
bots:
  - name: alpha
    command: {PY} -c pass
  - name: beta
    command: [{PY}, -c, pass]
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def config_text(extra: str = "", bots: str = BOTS) -> str:
    return "time_control: {per_move: 0.5}\n" + textwrap.dedent(extra) + textwrap.dedent(bots)


def load_error(tmp_path: Path, text: str, name: str = "t.yaml") -> ConfigError:
    path = write(tmp_path, text, name)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value


def data(**top: object) -> dict[str, object]:
    """Config data as parsed YAML, for parse_config tests that need no file."""
    base: dict[str, object] = {
        "time_control": {"per_move": 1},
        "bots": [{"name": "a", "command": [PY]}, {"name": "b", "command": [PY]}],
    }
    base.update(top)
    return base


def parse(tmp_path: Path, **top: object) -> TournamentConfig:
    return parse_config(data(**top), file="x.yaml", base_dir=tmp_path)


def parse_error(tmp_path: Path, **top: object) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse(tmp_path, **top)
    return info.value


# --------------------------------------------------------------------------- valid configs


def test_minimal_config_gets_the_documented_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, config_text(), "demo.yaml")
    config = load_config(path)
    assert config.name == "demo"  # from the file name
    assert config.board_size == 7
    assert config.opening.kind is OpeningKind.PIE and config.opening.openings == ()
    assert config.time_control == TimeControl.fixed(0.5)
    assert config.time_control.margin == DEFAULT_MARGIN
    assert config.schedule == RoundRobinSpec(2, 1)
    assert config.concurrency == (os.cpu_count() or 1)
    assert config.output == tmp_path.resolve() / "results" / "demo"
    assert config.elo == EloSpec(None, 0.0)
    assert config.source == path.resolve()
    assert config.bots == (
        BotSpec("alpha", (PY, "-c", "pass"), tmp_path.resolve()),
        BotSpec("beta", (PY, "-c", "pass"), tmp_path.resolve()),
    )


def test_full_config_round_trips_to_dataclasses(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    text = f"""\
    name: full.run_1
    board_size: 5
    opening: empty
    time_control: {{main: 60, increment: 0.5, margin: 0}}
    schedule: {{kind: gauntlet, games_per_pair: 4, rounds: 3, challengers: [c]}}
    concurrency: 3
    output: out/here
    elo: {{anchor: b, anchor_rating: 1500}}
    bots:
      - name: a
        command: "{PY} -c 'print(1)'"
        cwd: bots
        env: {{THREADS: 4, RATIO: 0.5, MODE: fast}}
      - {{name: b, command: [{PY}]}}
      - {{name: c, command: [{PY}]}}
    """
    config = load_config(write(tmp_path, text))
    base = tmp_path.resolve()
    assert config.name == "full.run_1"
    assert config.board_size == 5
    assert config.opening.kind is OpeningKind.EMPTY
    assert config.time_control == TimeControl(TimeControlKind.FISCHER, main=60.0, increment=0.5, margin=0.0)
    assert config.schedule == GauntletSpec(4, 3, ("c",))
    assert config.concurrency == 3
    assert config.output == base / "out" / "here"
    assert config.elo == EloSpec("b", 1500.0)
    first = config.bots[0]
    assert first.command == (PY, "-c", "print(1)")  # shell-like splitting
    assert first.cwd == base / "bots"
    assert dict(first.env) == {"THREADS": "4", "RATIO": "0.5", "MODE": "fast"}
    assert config.bot_names == ("a", "b", "c")
    assert config.bot("c").command == (PY,)


def test_relative_paths_are_relative_to_the_config_folder_not_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = tmp_path / "conf"
    (sub / "work").mkdir(parents=True)
    path = write(
        sub,
        config_text(
            "output: res\n",
            bots=f"""\
    bots:
      - {{name: a, command: [{PY}], cwd: work}}
      - {{name: b, command: [{PY}]}}
    """,
        ),
    )
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("conf") / path.name)
    assert config.output == sub.resolve() / "res"
    assert config.bots[0].cwd == sub.resolve() / "work"
    assert config.bots[1].cwd == sub.resolve()


def test_yaml_integers_are_accepted_as_seconds(tmp_path: Path) -> None:
    config = parse(tmp_path, time_control={"per_move": 2})
    assert config.time_control.per_move == 2.0 and isinstance(config.time_control.per_move, float)


def test_relative_program_is_found_from_the_bot_cwd(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    script = tmp_path / "dir" / "mybot"
    script.write_text("#!/bin/sh\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    bots = [{"name": "a", "command": "./mybot", "cwd": "dir"}, {"name": "b", "command": [PY]}]
    assert parse(tmp_path, bots=bots).bots[0].command == ("./mybot",)


def test_program_is_found_on_the_bot_own_path(tmp_path: Path) -> None:
    script = tmp_path / "onlyhere"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    bots = [
        {"name": "a", "command": "onlyhere", "env": {"PATH": str(tmp_path)}},
        {"name": "b", "command": [PY]},
    ]
    assert parse(tmp_path, bots=bots).bots[0].env["PATH"] == str(tmp_path)


def test_check_programs_false_skips_filesystem_checks(tmp_path: Path) -> None:
    bots = [{"name": "a", "command": "no-such-program-xyz", "cwd": "gone"}, {"name": "b", "command": [PY]}]
    config = parse_config(data(bots=bots), file="x.yaml", base_dir=tmp_path, check_programs=False)
    assert config.bots[0].cwd == tmp_path.resolve() / "gone"


def test_example_configs_in_the_repo_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # The examples run bots with `python`; make it the interpreter running the tests.
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    # configs/bots.yaml is a bots file the examples share (bots_file), not a config.
    examples = sorted(p for p in (REPO / "configs").glob("*.yaml") if p.name != "bots.yaml")
    assert examples, "the repo ships example configs"
    for path in examples:
        # A config of the C sample bot runs the binary `make -C sample_bots/c` builds; on a
        # fresh clone it is not there yet, so only its programs go unchecked.
        built = "sample_bots/c/build/" in path.read_text(encoding="utf-8")
        config = load_config(path, check_programs=not built)
        assert config.name == path.stem


# --------------------------------------------------------------------------- error messages


def test_error_names_file_key_and_expectation(tmp_path: Path) -> None:
    err = load_error(tmp_path, config_text("board_size: abc\n"), "demo.yaml")
    assert err.file is not None and err.file.endswith("demo.yaml")
    assert err.key == "board_size"
    assert str(err) == f"{err.file}: board_size: expected an integer, got 'abc' (str)"


@pytest.mark.parametrize(
    ("top", "key", "message"),
    [
        ({"board_size": 1}, "board_size", "expected an integer from 2 to 13, got 1"),
        ({"board_size": 14}, "board_size", "expected an integer from 2 to 13, got 14"),
        ({"board_size": True}, "board_size", "expected an integer, got True (bool)"),
        ({"board_size": 7.0}, "board_size", "expected an integer, got 7.0 (float)"),
        ({"concurrency": 0}, "concurrency", "expected an integer >= 1, got 0"),
        ({"name": "my run"}, "name", "letters, digits, '_', '.' and '-'"),
        ({"name": 12}, "name", "expected a string, got 12 (int)"),
        ({"output": ""}, "output", "expected a path, got an empty string"),
        ({"gamez": 1}, "gamez", "unknown key (expected one of: name, board_size"),
        ({"concurency": 1}, "concurency", "unknown key; did you mean 'concurrency'?"),
    ],
)
def test_top_level_errors(tmp_path: Path, top: dict[str, object], key: str, message: str) -> None:
    err = parse_error(tmp_path, **top)
    assert err.key == key
    assert message in err.detail
    assert str(err).startswith(f"x.yaml: {key}: ")


@pytest.mark.parametrize(
    ("schedule", "key", "message"),
    [
        (
            {"gamez": 2},
            "schedule.gamez",
            "unknown key (expected one of: kind, games_per_pair, rounds, challengers)",
        ),
        ({"games_per_pair": 3}, "schedule.games_per_pair", "expected an even number"),
        ({"games_per_pair": 0}, "schedule.games_per_pair", "expected an integer >= 1, got 0"),
        ({"games_per_pair": "4"}, "schedule.games_per_pair", "expected an integer, got '4' (str)"),
        ({"rounds": 0}, "schedule.rounds", "expected an integer >= 1, got 0"),
        ({"rounds": True}, "schedule.rounds", "expected an integer, got True (bool)"),
        (
            {"kind": "swizz"},
            "schedule.kind",
            "expected 'round_robin', 'gauntlet', 'sprt', 'adaptive', 'match', 'swiss' or 'knockout', "
            "got 'swizz'",
        ),
        ({"kind": "gauntlet"}, "schedule.challengers", "a gauntlet needs its challengers"),
        (
            {"kind": "gauntlet", "challengers": ["zed"]},
            "schedule.challengers[0]",
            "no bot is named 'zed' (bots: a, b)",
        ),
        ({"kind": "gauntlet", "challengers": ["a", "a"]}, "schedule.challengers[1]", "'a' is listed twice"),
        (
            {"kind": "gauntlet", "challengers": ["a", "b"]},
            "schedule.challengers",
            "at least one bot to play against",
        ),
        (
            {"kind": "gauntlet", "challengers": []},
            "schedule.challengers",
            "expected a non-empty list of bot names",
        ),
        ({"challengers": ["a"]}, "schedule.challengers", "only allowed with kind: gauntlet"),
        ([1, 2], "schedule", "expected a mapping, got [1, 2] (list)"),
    ],
)
def test_schedule_errors(tmp_path: Path, schedule: object, key: str, message: str) -> None:
    err = parse_error(tmp_path, schedule=schedule)
    assert err.key == key
    assert message in err.detail


def test_gauntlet_accepts_a_single_challenger_name(tmp_path: Path) -> None:
    config = parse(tmp_path, schedule={"kind": "gauntlet", "challengers": "b"})
    assert config.schedule.challengers == ("b",)


@pytest.mark.parametrize(
    ("tc", "key", "message"),
    [
        ({}, "time_control", "expected per_move (seconds per move) or main"),
        ({"per_move": 0}, "time_control.per_move", "expected a number > 0, got 0"),
        ({"per_move": -1.5}, "time_control.per_move", "expected a number > 0, got -1.5"),
        ({"per_move": "fast"}, "time_control.per_move", "expected a number of seconds, got 'fast' (str)"),
        ({"per_move": 1, "main": 60}, "time_control.main", "not allowed with per_move"),
        ({"per_move": 1, "increment": 1}, "time_control.increment", "not allowed with per_move"),
        ({"main": 0}, "time_control.main", "expected a number > 0, got 0"),
        ({"main": 60, "increment": -1}, "time_control.increment", "expected a number >= 0, got -1"),
        ({"increment": 1}, "time_control", "expected per_move"),
        ({"per_move": 1, "margin": -0.1}, "time_control.margin", "expected a number >= 0"),
        ({"per_move": float("inf")}, "time_control.per_move", "expected a finite number"),
        ({"per_move": 1, "byoyomi": 3}, "time_control.byoyomi", "unknown key"),
        (
            0.5,
            "time_control",
            "expected {per_move: SECONDS} or {main: SECONDS, increment: SECONDS}, got 0.5 (float)",
        ),
    ],
)
def test_time_control_errors(tmp_path: Path, tc: object, key: str, message: str) -> None:
    err = parse_error(tmp_path, time_control=tc)
    assert err.key == key
    assert message in err.detail


def test_fischer_increment_defaults_to_zero(tmp_path: Path) -> None:
    assert parse(tmp_path, time_control={"main": 30}).time_control == TimeControl.fischer(30.0, 0.0)


def test_time_control_dataclass_rejects_inconsistent_values() -> None:
    with pytest.raises(ValueError):
        TimeControl(TimeControlKind.PER_MOVE)
    with pytest.raises(ValueError):
        TimeControl(TimeControlKind.FISCHER, main=10, per_move=1)
    with pytest.raises(ValueError):
        TimeControl.fixed(1, margin=-1)


@pytest.mark.parametrize(
    ("elo", "key", "message"),
    [
        ({"anchor": "zed"}, "elo.anchor", "expected the name of a bot (a, b), got 'zed'"),
        ({"anchor": 3}, "elo.anchor", "expected a string, got 3 (int)"),
        ({"anchor_rating": "high"}, "elo.anchor_rating", "expected a number, got 'high' (str)"),
        ({"anchr": "a"}, "elo.anchr", "did you mean 'anchor'?"),
    ],
)
def test_elo_errors(tmp_path: Path, elo: object, key: str, message: str) -> None:
    err = parse_error(tmp_path, elo=elo)
    assert err.key == key
    assert message in err.detail


def bots_error(tmp_path: Path, *bots: object) -> ConfigError:
    return parse_error(tmp_path, bots=list(bots))


GOOD = {"name": "good", "command": [PY]}


@pytest.mark.parametrize(
    ("bot", "key", "message"),
    [
        ({"command": [PY]}, "bots[1].name", "missing (every bot needs a name and a command)"),
        ({"name": "x"}, "bots[1].command", "missing"),
        ({"name": "", "command": [PY]}, "bots[1].name", "expected a name made of letters"),
        ({"name": "a/b", "command": [PY]}, "bots[1].name", "it is used in file names"),
        (
            {"name": "x", "command": 5},
            "bots[1].command",
            "expected a string or a list of strings, got 5 (int)",
        ),
        ({"name": "x", "command": [PY, 5]}, "bots[1].command[1]", "expected a string, got 5 (int)"),
        ({"name": "x", "command": ""}, "bots[1].command", "expected a command, got an empty one"),
        ({"name": "x", "command": []}, "bots[1].command", "expected a command, got an empty one"),
        ({"name": "x", "command": "bot 'unclosed"}, "bots[1].command", "cannot split the command into words"),
        (
            {"name": "x", "command": "no-such-program-xyz --fast"},
            "bots[1].command",
            "program 'no-such-program-xyz' not found (looked in PATH)",
        ),
        ({"name": "x", "command": [PY], "cwd": "nowhere"}, "bots[1].cwd", "directory not found: "),
        (
            {"name": "x", "command": [PY], "env": ["A=1"]},
            "bots[1].env",
            "expected a mapping of variable names",
        ),
        (
            {"name": "x", "command": [PY], "env": {"A": True}},
            "bots[1].env.A",
            "expected a string or a number, got True (bool); quote it",
        ),
        ({"name": "x", "command": [PY], "env": {"A": None}}, "bots[1].env.A", "got nothing (null)"),
        (
            {"name": "x", "command": [PY], "env": {"A": [1]}},
            "bots[1].env.A",
            "expected a string or a number, got [1] (list)",
        ),
        (
            {"name": "x", "command": [PY], "env": {"A-B": "1"}},
            "bots[1].env",
            "expected variable names of letters",
        ),
        (
            {"name": "x", "command": [PY], "argv": []},
            "bots[1].argv",
            "unknown key (expected one of: name, command, cwd, env, limits, sandbox, time_control, margin, "
            "startup_commands, restart, startup_timeout, command_timeout, use)",
        ),
        ("python bot.py", "bots[1]", "expected a mapping with name and command, got 'python bot.py' (str)"),
    ],
)
def test_bot_errors(tmp_path: Path, bot: object, key: str, message: str) -> None:
    err = bots_error(tmp_path, GOOD, bot)
    assert err.key == key
    assert message in err.detail


def test_duplicate_bot_name_names_both_entries(tmp_path: Path) -> None:
    err = bots_error(tmp_path, GOOD, {"name": "other", "command": [PY]}, {"name": "good", "command": [PY]})
    assert err.key == "bots[2].name"
    assert err.detail == "duplicate bot name 'good' (also bots[0].name)"


@pytest.mark.parametrize(
    ("bots", "message"), [([], "got 0"), ([GOOD], "got 1"), ("x", "expected a list of bots")]
)
def test_too_few_bots(tmp_path: Path, bots: object, message: str) -> None:
    err = parse_error(tmp_path, bots=bots)
    assert err.key == "bots"
    assert message in err.detail


def test_missing_relative_program_says_where_it_looked(tmp_path: Path) -> None:
    err = bots_error(tmp_path, GOOD, {"name": "x", "command": "./mybot"})
    assert err.detail == f"program './mybot' not found (looked in {tmp_path.resolve()})"


def test_non_executable_program_is_reported(tmp_path: Path) -> None:
    (tmp_path / "mybot").write_text("#!/bin/sh\n")
    (tmp_path / "mybot").chmod(0o644)
    err = bots_error(tmp_path, GOOD, {"name": "x", "command": "./mybot"})
    assert "is not an executable file" in err.detail


def test_bare_name_in_cwd_suggests_dot_slash(tmp_path: Path) -> None:
    (tmp_path / "mybot-xyz").write_text("#!/bin/sh\n")
    (tmp_path / "mybot-xyz").chmod(0o755)
    err = bots_error(tmp_path, GOOD, {"name": "x", "command": "mybot-xyz"})
    assert "write './mybot-xyz'" in err.detail


def test_missing_python_suggests_the_referee_interpreter(tmp_path: Path) -> None:
    empty = tmp_path / "emptybin"
    empty.mkdir()
    err = bots_error(tmp_path, GOOD, {"name": "x", "command": "python3 bot.py", "env": {"PATH": str(empty)}})
    assert err.key == "bots[1].command"
    assert "program 'python3' not found" in err.detail
    assert sys.executable in err.detail


def test_missing_required_keys(tmp_path: Path) -> None:
    err = load_error(tmp_path, BOTS)
    assert (err.key, err.detail) == ("time_control", "missing (this key is required)")
    err = load_error(tmp_path, "time_control: {per_move: 1}\n")
    assert err.key == "bots"


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    err = load_error(tmp_path, "- a\n- b\n")
    assert err.key is None
    assert "expected a mapping of settings at the top level, got ['a', 'b'] (list)" in str(err)


def test_empty_file(tmp_path: Path) -> None:
    err = load_error(tmp_path, "# nothing here\n")
    assert "the config is empty" in str(err)


def test_yaml_syntax_error_gives_the_line(tmp_path: Path) -> None:
    err = load_error(tmp_path, "time_control: {per_move: 1}\nbots: [\n  {name: a\n")
    assert err.file is not None and err.file.endswith("t.yaml")
    assert err.key is not None and err.key.startswith("line ")
    assert err.detail.startswith("invalid YAML: ")


def test_yaml_duplicate_key_is_an_error(tmp_path: Path) -> None:
    err = load_error(tmp_path, config_text("concurrency: 1\nconcurrency: 2\n"))
    assert err.key == "line 3"
    assert err.detail == "duplicate key 'concurrency' (first written on line 2)"


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_non_utf8_config_file(tmp_path: Path) -> None:
    (tmp_path / "bin.yaml").write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(tmp_path / "bin.yaml")


def test_what_is_not_a_config_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A device, a pipe or a file of megabytes is not read into memory (``/dev/zero``
    never ends; a pipe with no writer would wait forever): each is a clear error."""
    with pytest.raises(ConfigError, match="not a regular file, not a config file"):
        load_config("/dev/zero")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file, not a config file"):
        load_config(fifo)
    big = tmp_path / "results.jsonl"
    with open(big, "wb") as fh:
        fh.truncate(MAX_YAML_BYTES + 1)  # sparse: nothing written
    with pytest.raises(ConfigError, match=r"4\.0 MB, past the 4 MB read for a config file"):
        load_config(big)
    path = write(tmp_path, config_text("bots_file: pipe.yaml\n"))
    with pytest.raises(ConfigError, match="not a regular file, not a bots file"):
        load_config(path)
    at_limit = write(tmp_path, config_text() + "#" * (MAX_YAML_BYTES - len(config_text()) - 1) + "\n")
    assert at_limit.stat().st_size == MAX_YAML_BYTES and load_config(at_limit).name


def test_name_from_a_file_with_an_unsafe_stem_must_be_given(tmp_path: Path) -> None:
    err = load_error(tmp_path, config_text(), "my tourney.yaml")
    assert err.key == "name"
    assert "the file name 'my tourney' is not a usable name" in err.detail
    path = write(tmp_path, config_text("name: ok\n"), "my tourney.yaml")
    assert load_config(path).name == "ok"


# --------------------------------------------------------------------------- openings


@pytest.mark.parametrize(
    ("opening", "key", "message"),
    [
        (
            "book",
            "opening",
            "expected 'pie', 'empty', {book: FILE} or {random: {count: N, seed: S}}, got 'book'",
        ),
        (3, "opening", "got 3 (int)"),
        ({"bok": "x.txt"}, "opening.bok", "did you mean 'book'?"),
        ({"book": "a.txt", "random": {"count": 1}}, "opening", "expected exactly one of book, random"),
        ({"book": "missing.txt"}, "opening.book", "opening book not found: "),
        ({"book": "/dev/zero"}, "opening.book", "not a regular file, not an opening book file"),
        ({"random": {"seed": 1}}, "opening.random.count", "missing"),
        ({"random": {"count": 0}}, "opening.random.count", "expected an integer >= 1, got 0"),
        ({"random": {"count": 2, "seed": "x"}}, "opening.random.seed", "expected an integer, got 'x' (str)"),
        ({"random": {"count": 2, "turns": -1}}, "opening.random.turns", "expected an integer >= 0"),
        ({"random": 5}, "opening.random", "expected {count: N, seed: S}, got 5 (int)"),
    ],
)
def test_opening_errors(tmp_path: Path, opening: object, key: str, message: str) -> None:
    err = parse_error(tmp_path, opening=opening)
    assert err.key == key
    assert message in err.detail
    assert err.file == "x.yaml"


def book(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "book.txt"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_book_is_read_validated_and_normalised(tmp_path: Path) -> None:
    book(
        tmp_path,
        """\
    # comment line

    G7 D4          # setup only, upper case is fine
    g7 d10 j10 c3
    g7 d10 e10,d10>e11
    """,
    )
    config = parse(tmp_path, opening={"book": "book.txt"})
    assert config.opening.kind is OpeningKind.BOOK
    assert config.opening.book == tmp_path.resolve() / "book.txt"
    assert config.opening.openings == (
        Opening("g7", "d4", (), "book.txt:3"),
        Opening("g7", "d10", ("j10", "c3"), "book.txt:4"),
        Opening("g7", "d10", ("e10,d10>e11",), "book.txt:5"),
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("g7", "expected 'BLACK WHITE [TURN ...]'"),
        ("g7 g7", "bad setup g7 g7: "),
        ("g7 z99", "bad setup g7 z99: "),
        ("g7 d10 e10", "turn 1 (e10, black): "),  # a compulsory steal is missing
        ("g7 d10 j10 j10", "turn 2 (j10, white): "),
        ("g7 d10 j10 q42", "turn 2 (q42, white): "),
    ],
)
def test_bad_book_lines_name_the_book_and_line(tmp_path: Path, line: str, message: str) -> None:
    book(tmp_path, f"g7 d4\n# fine so far\n{line}\n")
    err = parse_error(tmp_path, opening={"book": "book.txt"})
    assert err.file is not None and err.file.endswith("book.txt")
    assert err.key == "line 3"
    assert message in err.detail


def test_book_opening_that_ends_the_game_is_rejected(tmp_path: Path) -> None:
    # Size 2 has 7 points; fill them so nobody can place any more.
    from referee.engine import Position

    position = Position.new(2).setup("a1", "c3")
    turns: list[str] = []
    while not position.is_over:
        turn = position.legal_turns()[0]
        turns.append(turn)
        position = position.play(turn)
    book(tmp_path, "a1 c3 " + " ".join(turns) + "\n")
    err = parse_error(tmp_path, board_size=2, opening={"book": "book.txt"})
    assert "an opening must leave a game to play" in err.detail


def test_book_duplicate_line_and_empty_book(tmp_path: Path) -> None:
    book(tmp_path, "g7 d4\nd4 g7\ng7  D4  # again\n")
    err = parse_error(tmp_path, opening={"book": "book.txt"})
    assert (err.key, err.detail) == ("line 3", "the same opening as line 1")
    book(tmp_path, "# only comments\n\n")
    err = parse_error(tmp_path, opening={"book": "book.txt"})
    assert err.file == "x.yaml" and err.key == "opening.book"
    assert "has no openings" in err.detail


def test_book_is_checked_against_the_board_size(tmp_path: Path) -> None:
    book(tmp_path, "g7 d4\n")  # g7 is off a size-3 board
    err = parse_error(tmp_path, board_size=3, opening={"book": "book.txt"})
    assert err.key == "line 1" and "bad setup" in err.detail


def test_the_example_book_is_valid() -> None:
    openings = read_book(REPO / "configs" / "book-example.txt", 7)
    assert len(openings) >= 6
    assert any(o.turns for o in openings)


def test_random_openings_are_deterministic_distinct_and_legal(tmp_path: Path) -> None:
    config = parse(tmp_path, opening={"random": {"count": 30, "seed": 5}})
    openings = config.opening.openings
    assert config.opening.kind is OpeningKind.RANDOM
    assert (config.opening.count, config.opening.seed) == (30, 5)
    assert len(openings) == 30
    assert len({(o.black, o.white) for o in openings}) == 30
    assert all(o.black != o.white and o.turns == () for o in openings)
    assert openings == random_openings(7, 30, 5)
    assert openings != random_openings(7, 30, 6)
    assert [o.label for o in openings[:2]] == ["random-1", "random-2"]


def test_random_openings_use_every_setup_before_repeating() -> None:
    # Size 2: 7 points, 42 ordered setups.
    openings = random_openings(2, 50, 1)
    first = {(o.black, o.white) for o in openings[:42]}
    assert len(first) == 42
    assert len(openings) == 50


def test_random_openings_with_turns_replay_legally() -> None:
    from referee.tournament.config.openings import check_opening

    openings = random_openings(5, 10, 3, turns=3)
    for opening in openings:
        assert len(opening.turns) == 3
        assert check_opening(5, opening.black, opening.white, opening.turns, label=opening.label) == opening


# --------------------------------------------------------------------------- fingerprint


def test_fingerprint_changes_with_what_decides_the_games(tmp_path: Path) -> None:
    base = parse(tmp_path).fingerprint()
    other_command = [{"name": "a", "command": [PY, "-O"]}, {"name": "b", "command": [PY]}]
    swapped = [{"name": "b", "command": [PY]}, {"name": "a", "command": [PY]}]
    with_env = [{"name": "a", "command": [PY], "env": {"X": "1"}}, {"name": "b", "command": [PY]}]
    (tmp_path / "w").mkdir()
    with_cwd = [{"name": "a", "command": [PY], "cwd": "w"}, {"name": "b", "command": [PY]}]
    changed = [
        parse(tmp_path, bots=other_command),
        parse(tmp_path, bots=swapped),
        parse(tmp_path, bots=with_env),
        parse(tmp_path, bots=with_cwd),
        parse(tmp_path, board_size=5),
        parse(tmp_path, time_control={"per_move": 2}),
        parse(tmp_path, time_control={"per_move": 1, "margin": 1}),
        parse(tmp_path, opening="empty"),
        parse(tmp_path, opening={"random": {"count": 4, "seed": 1}}),
        parse(tmp_path, opening={"random": {"count": 4, "seed": 2}}),
        parse(tmp_path, schedule={"games_per_pair": 4}),
    ]
    for config in changed:
        assert config.fingerprint() != base


def test_fingerprint_ignores_how_results_are_produced_or_shown(tmp_path: Path) -> None:
    base = parse(tmp_path).fingerprint()
    same = [
        parse(tmp_path, concurrency=7),
        parse(tmp_path, output="elsewhere"),
        parse(tmp_path, name="renamed"),
        parse(tmp_path, elo={"anchor": "a", "anchor_rating": 100}),
        parse(tmp_path, schedule={"rounds": 5}),  # extending a run with more rounds
    ]
    for config in same:
        assert config.fingerprint() == base


def test_fingerprint_is_plain_json(tmp_path: Path) -> None:
    import json

    config = parse(tmp_path, opening={"random": {"count": 2, "seed": 1}})
    fingerprint = config.fingerprint()
    assert json.loads(json.dumps(fingerprint)) == fingerprint


def test_config_values_are_frozen(tmp_path: Path) -> None:
    config = parse(tmp_path, bots=[{"name": "a", "command": [PY], "env": {"K": "v"}}, GOOD])
    with pytest.raises(AttributeError):
        config.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.bots[0].env["K"] = "w"  # type: ignore[index]


# ---------------------------------------------------------------------------- bombs and limits


def run_check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from referee.cli import main

    code = main(["tournament", "--check", str(path)])
    return code, capsys.readouterr().err


def laughs(levels: int = 9) -> str:
    """A "billion laughs": 9 ** levels copies of one string in a few lines of YAML."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The bomb sits in a value that fails validation: before, the error message repr()ed the
    # expanded value and never finished.
    path = write(tmp_path, config_text(laughs() + "name: *l8\n"))
    code, err = run_check(path, capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert f"{path}: line " in err and "aliases (*name) expanded" in err and "alias bomb" in err


def test_aliases_of_a_sane_size_still_work(tmp_path: Path) -> None:
    text = """\
        time_control: &tc {per_move: 0.5}
        bots:
          - &bot {name: alpha, command: [PY, -c, pass]}
          - {name: beta, command: [PY, -c, pass]}
    """.replace("PY", PY)
    config = load_config(write(tmp_path, text))
    assert config.time_control.per_move == 0.5 and config.bot_names == ("alpha", "beta")


def test_error_messages_quote_a_bounded_part_of_a_big_value(tmp_path: Path) -> None:
    big = [list(range(1000)) for _ in range(90)]  # within the limits, but long to print
    with pytest.raises(ConfigError) as info:
        parse(tmp_path, name=big)
    error = info.value
    assert error.key == "name" and len(str(error)) < 200 and "..." in str(error)


@pytest.mark.parametrize(
    ("schedule", "key", "size"),
    [
        ("{games_per_pair: 1000000000}", "schedule.games_per_pair", "1,000,000,000 games"),
        ("{rounds: 1000000000}", "schedule.rounds", "2,000,000,000 games"),
        ("{games_per_pair: 2000, rounds: 1000}", "schedule.games_per_pair", "2,000,000 games"),
    ],
)
def test_a_schedule_no_one_could_mean_is_refused_with_its_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], schedule: str, key: str, size: str
) -> None:
    path = write(tmp_path, config_text(f"schedule: {schedule}\n"))
    code, err = run_check(path, capsys)
    assert code == 2
    assert err.startswith(f"vastuz tournament: {path}: {key}: the schedule would have {size}")
    assert "at most" in err or "the most" in err


def test_too_many_random_openings_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, config_text("opening: {random: {count: 100000000}}\n"))
    code, err = run_check(path, capsys)
    assert code == 2
    assert f"{path}: opening.random.count: expected at most 100,000 random openings" in err
    assert "got 100,000,000" in err


def test_deep_nesting_is_a_config_error_not_a_recursion_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for nested in ("[" * 5000 + "]" * 5000, "{a: " * 3000 + "1" + "}" * 3000):
        path = write(tmp_path, config_text(f"name: {nested}\n"))
        code, err = run_check(path, capsys)
        assert code == 2 and "Traceback" not in err
        assert f"{path}: line 2: lists or mappings nest more than 50 levels deep" in err


def test_a_number_too_long_to_convert_is_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, config_text("board_size: " + "9" * 5000 + "\n"))
    code, err = run_check(path, capsys)
    assert code == 2 and f"{path}: line 2: a number of 5,000 digits" in err


def test_long_names_are_refused_before_they_reach_a_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = BOTS.replace("name: alpha", "name: " + "x" * 300)
    code, err = run_check(write(tmp_path, config_text(bots=bots)), capsys)
    assert code == 2
    assert "bots[0].name: expected a name of at most 64 characters" in err and "got 300" in err
    assert len(err) < 300
    code, err = run_check(write(tmp_path, config_text("name: " + "n" * 65 + "\n")), capsys)
    assert code == 2 and ": name: expected a name of at most 64 characters" in err
    assert load_config(write(tmp_path, config_text(bots=BOTS.replace("alpha", "a" * 64)))).bots[0].name


def test_a_program_that_cannot_be_accessed_names_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root may read anything, so the refusal a user would get is simulated where it happens.
    import referee.play.programs as config_fields

    def refuse(program: str, cwd: Path, env: object = None) -> str | None:
        raise PermissionError(13, "Permission denied", "/secret/bin")

    monkeypatch.setattr(config_fields, "_problem", refuse)
    path = write(tmp_path, config_text())
    code, err = run_check(path, capsys)
    assert code == 2
    assert err.strip() == (
        f"vastuz tournament: {path}: bots[0].command: cannot access the program {PY!r} (/secret/bin): "
        "Permission denied"
    )

    def cannot_stat(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(config_fields.Path, "is_dir", cannot_stat)
    code, err = run_check(path, capsys)
    assert code == 2 and f"{path}: bots[0].cwd: cannot access the directory" in err


# --------------------------------------------------------------------------- SPRT and logs


def test_an_sprt_schedule(tmp_path: Path) -> None:
    from referee.ratings.sprt import Model

    config = parse(
        tmp_path, schedule={"kind": "sprt", "elo0": -2, "elo1": 3, "model": "logistic", "max_games": 600}
    )
    assert isinstance(config.schedule, SprtSpec) and config.schedule.max_games == 600
    test = config.schedule.sprt
    assert test is not None and (test.elo0, test.elo1, test.alpha, test.beta) == (-2, 3, 0.05, 0.05)
    assert test.model is Model.LOGISTIC
    assert config.fingerprint()["schedule"]["sprt"]["elo1"] == 3  # type: ignore[index]
    assert (
        parse(tmp_path, schedule={"kind": "sprt", "elo0": 0, "elo1": 5}).schedule.sprt.model
        is Model.NORMALIZED
    )  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("schedule", "key", "message"),
    [
        ({"kind": "sprt", "elo1": 5}, "schedule.elo0", "missing"),
        ({"kind": "sprt", "elo0": 5, "elo1": 5}, "schedule.elo1", "expected elo1 above elo0, got [5, 5]"),
        ({"kind": "sprt", "elo0": 0, "elo1": 5, "alpha": 1.5}, "schedule.alpha", "expected a probability"),
        ({"kind": "sprt", "elo0": 0, "elo1": 5, "alpha": 0.6, "beta": 0.5}, "schedule.beta", "alpha + beta"),
        (
            {"kind": "sprt", "elo0": 0, "elo1": 5, "model": "bayes"},
            "schedule.model",
            "'normalized' or 'logistic'",
        ),
        ({"kind": "sprt", "elo0": 0, "elo1": 5, "max_games": 7}, "schedule.max_games", "an even number"),
        ({"kind": "sprt", "elo0": 0, "elo1": 5, "rounds": 2}, "schedule.rounds", "unknown key"),
        ({"kind": "sprt", "elo0": "x", "elo1": 5}, "schedule.elo0", "expected a number of Elo"),
    ],
)
def test_sprt_errors(tmp_path: Path, schedule: dict[str, object], key: str, message: str) -> None:
    err = parse_error(tmp_path, schedule=schedule)
    assert err.key == key and message in str(err), str(err)


def test_an_sprt_needs_exactly_two_bots(tmp_path: Path) -> None:
    bots = [{"name": n, "command": f"{PY} -c pass"} for n in ("a", "b", "c")]
    err = parse_error(tmp_path, schedule={"kind": "sprt", "elo0": 0, "elo1": 5}, bots=bots)
    assert err.key == "bots" and "exactly two bots" in str(err)


def test_the_logs_key(tmp_path: Path) -> None:
    config = parse(tmp_path, logs={"max_per_game": "2MiB", "max_per_bot": "50MB"})
    assert (config.logs.max_per_game, config.logs.max_per_bot) == (2 * 2**20, 50 * 10**6)
    assert parse(tmp_path, logs={"max_per_bot": 4096}).logs.max_per_bot == 4096
    for bad in ("lots", 10, True):
        err = parse_error(tmp_path, logs={"max_per_bot": bad})
        assert err.key == "logs.max_per_bot", str(err)
    assert parse_error(tmp_path, logs={"per_bot": 1}).key == "logs.per_bot"


def test_an_adaptive_schedule(tmp_path: Path) -> None:
    config = parse(tmp_path, schedule={"kind": "adaptive", "games": 40, "floor": 4})
    assert config.schedule == AdaptiveSpec(40, 4)
    assert config.fingerprint()["schedule"]["games"] == 40  # type: ignore[index]
    assert parse_error(tmp_path, schedule={"kind": "adaptive"}).key == "schedule.games"
    assert "even" in str(parse_error(tmp_path, schedule={"kind": "adaptive", "games": 7}))
    assert (
        parse_error(tmp_path, schedule={"kind": "adaptive", "games": 8, "rounds": 2}).key == "schedule.rounds"
    )


def test_limits_and_sandbox_config_wide_and_per_bot(tmp_path):
    # The config's limits for every bot, a bot's own key by key over them; sizes as in `logs`.
    import yaml

    from referee.play.limits import Limits

    data = {
        "time_control": {"per_move": 1},
        "limits": {"memory": "512MiB"},
        "bots": [
            {"name": "a", "command": "python3 -c pass"},
            {"name": "b", "command": "python3 -c pass", "limits": {"processes": 4, "memory": "none"}},
        ],
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    config = load_config(path)
    assert config.bots[0].limits == Limits(512 << 20, 256)
    assert config.bots[1].limits == Limits(None, 4)
    assert not config.bots[0].sandbox
    for limits, where, what in (
        ({"memory": "lots"}, "limits.memory", "expected a size in bytes"),
        ({"memory": 4096}, "limits.memory", "at least 1 MiB"),
        ({"processes": 0}, "limits.processes", "expected an integer"),
        ({"cpu": 1}, "limits.cpu", "unknown key"),
    ):
        path.write_text(yaml.safe_dump({**data, "limits": limits}))
        with pytest.raises(ConfigError) as caught:
            load_config(path)
        assert caught.value.key == where and what in str(caught.value), (limits, str(caught.value))
    path.write_text(yaml.safe_dump({**data, "sandbox": "yes"}))
    with pytest.raises(ConfigError, match="expected true or false"):
        load_config(path)
