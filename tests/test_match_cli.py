"""``vastuz match`` and ``vastuz show`` end to end, in-process (``main`` runs trio itself,
so these tests are synchronous)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import check_gone, fakebot_argv

from referee.cli import main
from referee.play.process import BotCommand
from referee.play.records import Termination
from referee.play.spec import OpeningKind, TimeControl
from referee.tournament.match import MatchSpec, plan
from referee.tournament.results import ResultsFile


def command(*args: str) -> str:
    return shlex.join(fakebot_argv(*args))


def test_match_with_a_faulty_bot_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    code = main(
        [
            "match", command("--seed", "1"), command("--seed", "2", "--fault", "crash", "--after", "1"),
            "--games", "3", "--size", "4", "--opening", "pie", "--per-move", "0.5", "--margin", "0.3",
            "--out", str(out), "--transcripts",
        ]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out.splitlines()
    game_lines = [line for line in printed if line.startswith("game ")]
    assert [line.split(":")[0] for line in game_lines] == ["game 1", "game 2", "game 3"]
    assert all("(crash)" in line for line in game_lines)
    assert "A: 3 won, 0 drawn, 0 lost" in printed
    assert "B lost 3 game(s) by crash" in printed
    records = (lambda path: ResultsFile(path).load().records)(out / "games.jsonl")
    assert [r.game_id for r in records] == ["g0001", "g0002", "g0003"]
    # A makes the setup in odd games, B in even ones.
    assert [r.bots[0].label for r in records] == ["A", "B", "A"]
    for r in records:
        assert r.termination is Termination.CRASH and r.bots[r.loser or 0].label == "B"
        for entry in r.bots:
            assert entry.transcript is not None and Path(entry.transcript).exists()
            check_gone(entry.pid)
    assert (out / "logs" / "g0002-0-B.stderr.log").exists()


def test_match_fischer_empty_concurrent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    code = main(
        [
            "match", command("--seed", "1"), command("--seed", "2", "--minimal"),
            "--games", "4", "--size", "3", "--opening", "empty",
            "--main", "3", "--increment", "0.1", "--concurrency", "2", "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.count("\ngame ") == 4
    records = (lambda path: ResultsFile(path).load().records)(out / "games.jsonl")
    assert sorted(r.game_id for r in records) == ["g0001", "g0002", "g0003", "g0004"]
    assert all(r.termination is Termination.SCORE for r in records)
    assert all(
        r.time_control == {"kind": "fischer", "main": 3.0, "increment": 0.1, "margin": 0.2} for r in records
    )


def test_match_random_openings_are_played_from_both_sides(tmp_path: Path) -> None:
    spec = MatchSpec(
        bots=(BotCommand("a", "A"), BotCommand("b", "B")),
        games=4,
        out=tmp_path,
        size=4,
        opening=OpeningKind.RANDOM,
        time_control=TimeControl.fixed(1),
    )
    games = plan(spec)
    assert [g.first for g in games] == [0, 1, 0, 1]
    assert games[0].spec.setup == games[1].spec.setup != games[2].spec.setup == games[3].spec.setup


def test_void_game_sets_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an executable file whose interpreter does not exist: it passes the up-front check
    # but cannot be executed, which voids the game (the referee could not run it)
    broken = tmp_path / "broken-bot"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    code = main(
        ["match", command(), str(broken), "--games", "1", "--size", "3", "--out", str(tmp_path / "m")]
    )
    assert code == 1
    assert "void" in capsys.readouterr().out


def test_a_missing_program_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["match", command(), str(tmp_path / "missing-bot"), "--games", "1", "--out", str(tmp_path / "m")]
    )
    assert code == 2
    assert f"vastuz match: BOT_B: program '{tmp_path / 'missing-bot'}' not found" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()
    assert main(["match", "no-such-program-anywhere --x", command()]) == 2
    assert "BOT_A: program 'no-such-program-anywhere' not found (looked in PATH)" in capsys.readouterr().err


def test_show_replays_a_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    assert (
        main(
            [
                "match",
                command("--seed", "5"),
                command("--seed", "6"),
                "--games",
                "2",
                "--size",
                "3",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    records = (lambda path: ResultsFile(path).load().records)(out / "games.jsonl")

    assert main(["show", str(out / "games.jsonl"), "--game", "2"]) == 0
    shown = capsys.readouterr().out
    second = records[1]
    assert shown.startswith("game g0002: size 3, opening pie")
    for turn in second.turns:
        assert f"{turn.number}. {turn.color.value} {turn.turn} (" in shown
    assert shown.count("to move;") >= len(second.turns)  # a diagram after the setup and each turn
    assert f"result: {second.result} (score)" in shown

    single = tmp_path / "one.json"
    single.write_text(json.dumps(records[0].to_dict()))
    assert main(["show", str(single)]) == 0
    assert capsys.readouterr().out.startswith("game g0001")

    assert main(["show", str(out / "games.jsonl"), "--game", "g0001"]) == 0
    assert capsys.readouterr().out.startswith("game g0001")


def test_show_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(tmp_path / "nothing.jsonl")]) == 1
    assert "nothing.jsonl: no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 99}')
    assert main(["show", str(bad)]) == 1
    assert "unsupported record schema" in capsys.readouterr().err


def test_usage_errors() -> None:
    with pytest.raises(SystemExit) as info:
        main(["match", "a", "b", "--per-move", "1", "--main", "2"])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        main(["match", "a", "b", "--size", "99"])
    assert main(["match", "a", "b", "--increment", "1"]) == 2


def test_an_output_folder_that_cannot_be_made_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code = main(["match", command(), command(), "--games", "1", "--size", "3", "--out", str(blocker / "m")])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("vastuz match: ") and str(blocker) in err and "Traceback" not in err
