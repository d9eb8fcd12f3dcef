"""What the ``vastuz`` command says: usage errors in the user's words (never argparse's
internal names), no doubled prefixes, and bot-supplied text escaped before it reaches the
terminal."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import fakebot_argv

from referee.cli import main

ESC = "\x1b"


def command(*args: str) -> str:
    return shlex.join(fakebot_argv(*args))


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["match", "a", "b", "--size", "x"], "argument --size: expected a board size from 2 to 13, got 'x'"),
        (["match", "a", "b", "--games", "two"], "argument --games: expected a whole number, got 'two'"),
        (["match", "a", "b", "--per-move", "fast"], "argument --per-move: expected a number of seconds"),
        (["match", "a", "b", "--main", "nan"], "argument --main: expected a finite number of seconds"),
        (["match", "a", "b", "--seed", "1.5"], "argument --seed: expected a whole number, got '1.5'"),
        (["check", "bot", "--size", "1"], "argument --size: board size must be 2..13, got 1"),
        (["report", "out", "--bootstrap", "-5"], "argument --bootstrap: must be 0 or more, got -5"),
        (["report", "out", "--bootstrap", "many"], "argument --bootstrap: expected a whole number"),
        (
            ["tournament", "t.yaml", "--standings-every", "-1"],
            "argument --standings-every: must be 0 or more",
        ),
    ],
)
def test_usage_errors_speak_the_users_language(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = usage_error(argv, capsys)
    assert message in err
    assert "invalid" not in err and "_size" not in err and "_count" not in err


def test_an_odd_number_of_match_games_is_allowed_and_said_to_break_colour_balance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    assert main(["match", command(), command("--seed", "2"), "--games", "3", "--size", "3",
                 "--out", str(out)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "note: 3 games is an odd number" in printed and "colours are not balanced" in printed
    assert main(["match", command(), command("--seed", "2"), "--games", "4", "--size", "3",
                 "--out", str(tmp_path / "even")]) == 0  # fmt: skip
    assert "odd number" not in capsys.readouterr().out


def test_match_lines_do_not_repeat_the_kind_of_forfeit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["match", command(), command("--seed", "2", "--fault", "crash"), "--games", "2",
                 "--size", "3", "--out", str(tmp_path / "m")])  # fmt: skip
    assert code == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if " g000" in line and "(B) - " in line]
    assert len(lines) == 2 and all(" crash: " in line for line in lines)
    assert not any("crash: crash" in line for line in lines), lines
    assert all(" crash: bot fakebot-crash" in line for line in lines), lines  # its own name


@pytest.fixture
def match_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "m"
    code = main(["match", command("--fault", "escape-name"), command("--seed", "2"), "--games", "2",
                 "--size", "3", "--main", "5", "--increment", "0.5", "--out", str(out)])  # fmt: skip
    assert code == 0
    capsys.readouterr()
    return out


def test_show_says_which_game_it_shows_and_names_the_file_once(
    match_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = match_folder / "results.jsonl"
    assert main(["show", str(games)]) == 0
    captured = capsys.readouterr()
    assert captured.err == (f"showing game 1 of 2 in {games} (choose another with --game NUMBER or ID)\n")
    assert captured.out.startswith("game g0001")
    assert main(["show", str(games), "--game", "2"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["show", str(games), "--game", "99"]) == 2
    err = capsys.readouterr().err
    assert err.count(str(games)) == 1
    assert err.startswith(f"vastuz show: {games}: no game '99': the file holds 2 game(s)")
    assert main(["show", str(games), "--game", "g0002"]) == 0  # by id
    assert capsys.readouterr().out.startswith("game g0002")
    # a damaged line keeps its number, and showing it says so
    lines = games.read_text(encoding="utf-8").splitlines(keepends=True)
    games.write_text(lines[0] + "not a record\n" + lines[1], encoding="utf-8")
    assert main(["show", str(games), "--game", "2"]) == 2
    assert "game 2 of the file is damaged (not a game record)" in capsys.readouterr().err
    assert main(["show", str(games), "--game", "3"]) == 0
    assert capsys.readouterr().out.startswith("game g0002")


def test_show_prints_the_time_control_in_words(
    match_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.tools.show import time_control_text

    assert main(["show", str(match_folder / "results.jsonl"), "--game", "1"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert (
        header == "game g0001: size 3, opening pie, time Fischer 5 s per game + 0.5 s per move (margin 0.2 s)"
    )
    assert "{" not in header
    assert (
        time_control_text({"kind": "per_move", "per_move": 0.5, "margin": 0.2})
        == "0.5 s per move (margin 0.2 s)"
    )
    assert time_control_text({"kind": "fischer", "main": 60.0, "increment": 0.0, "margin": 0.0}) == (
        "Fischer 60 s per game (margin 0 s)"
    )


def test_bot_supplied_text_is_escaped_everywhere_it_is_shown(
    match_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = match_folder / "results.jsonl"
    assert "\\u001b]0;pwned" in games.read_text()  # recorded as the bot said it (JSON-escaped)
    assert main(["show", str(games)]) == 0
    shown = capsys.readouterr().out
    assert ESC not in shown and "\x07" not in shown and "\x9b" not in shown
    assert "fakebot-escape-name\\x1b]0;pwned\\x07\\x1b[31mred" in shown
    # vastuz check prints the bot's name in its start-up line.
    assert main(["check", command("--fault", "escape-name"), "--size", "3", "--games", "1"]) == 0
    checked = capsys.readouterr().out
    assert ESC not in checked and "\x07" not in checked
    # A results file may hold anything: a report escapes what it prints from it.
    record = json.loads(games.read_text().splitlines()[0])
    record["game_id"] = record["tournament"]["slot"] = "g0001\x1b[2J"
    with open(games, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    assert main(["report", str(match_folder)]) == 0
    report = capsys.readouterr().out
    # Those two are another id than the schedule's: named as not this tournament's, escaped.
    assert "g0001\\x1b[2J (fakebot vs fakebot-good)" in report and ESC not in report
