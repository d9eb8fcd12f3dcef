"""``vastuz match`` and ``vastuz show`` end to end, in-process (``main`` runs trio itself,
so these tests are synchronous)."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from conftest import check_gone, fakebot_argv

from referee.cli import main
from referee.play.records import GameRecord, Termination
from referee.play.spec import Opening, OpeningKind
from referee.tournament.plans.match import MatchSpec
from referee.tournament.plans.plan import Field
from referee.tournament.store.duplicates import Repeat, repeat_warning, repeated_games
from referee.tournament.store.results import ResultsFile

DATA = Path(__file__).parent / "data"
GAME_LINE = re.compile(r"^\[ *(\d+)/\d+\] (g\d{4}): ")


def command(*args: str) -> str:
    return shlex.join(fakebot_argv(*args))


def game_lines(printed: str) -> list[str]:
    """The runner's line per finished game (``[1/3] g0001: A (B) - B (W) ...``)."""
    return [line for line in printed.splitlines() if GAME_LINE.match(line)]


def game_ids(printed: str) -> list[str]:
    return [m.group(2) for line in game_lines(printed) if (m := GAME_LINE.match(line))]


def test_match_with_a_faulty_bot_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    code = main(
        [
            "match", command("--seed", "1"), command("--seed", "2", "--fault", "crash", "--after", "1"),
            "--games", "3", "--size", "4", "--opening", "pie", "--per-move", "0.5", "--margin", "0.3",
            "--out", str(out), "--transcripts", "--name-a", "A", "--name-b", "B",
        ]
    )  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    printed = text.splitlines()
    assert sorted(game_ids(text)) == ["g0001", "g0002", "g0003"]
    assert all(" crash: " in line for line in game_lines(text))
    assert "A: 3 won, 0 drawn, 0 lost" in printed
    assert "B lost 3 game(s) by crash" in printed
    records = (lambda path: ResultsFile(path).load().records)(out / "results.jsonl")
    assert [r.game_id for r in records] == ["g0001", "g0002", "g0003"]
    # A makes the setup in odd games, B in even ones.
    assert [r.bots[0].label for r in records] == ["A", "B", "A"]
    for r in records:
        assert r.termination is Termination.CRASH and r.bots[r.loser or 0].label == "B"
        for entry in r.bots:
            assert entry.transcript is not None and Path(entry.transcript).exists()
            check_gone(entry.pid)
    assert (out / "logs" / "g0002-0-B.transcript.log").exists()
    assert not (out / "logs" / "g0002-0-B.stderr.log").exists()  # nothing on stderr: no empty log


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
    assert len(game_lines(printed)) == 4
    records = (lambda path: ResultsFile(path).load().records)(out / "results.jsonl")
    assert sorted(r.game_id for r in records) == ["g0001", "g0002", "g0003", "g0004"]
    assert all(r.termination is Termination.SCORE for r in records)
    assert all(
        r.time_control == {"kind": "fischer", "main": 3.0, "increment": 0.1, "margin": 0.2} for r in records
    )


def test_match_random_openings_are_played_from_both_sides() -> None:
    openings = (Opening("a1", "b2"), Opening("c3", "d4"))
    games = MatchSpec(4).games_of(Field(("A", "B"), OpeningKind.RANDOM, openings))
    assert [g.first for g in games] == ["A", "B", "A", "B"]
    assert games[0].opening == games[1].opening != games[2].opening == games[3].opening
    # An odd number of games: the last has no partner.
    assert [g.slot for g in MatchSpec(3).games_of(Field(("A", "B"), OpeningKind.PIE))] == [
        "g0001",
        "g0002",
        "g0003",
    ]


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
    records = (lambda path: ResultsFile(path).load().records)(out / "results.jsonl")

    assert main(["show", str(out / "results.jsonl"), "--game", "2"]) == 0
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

    assert main(["show", str(out / "results.jsonl"), "--game", "g0001"]) == 0
    assert capsys.readouterr().out.startswith("game g0001")


def test_show_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A record that is not there, or not a record: bad input, exit 2.
    assert main(["show", str(tmp_path / "nothing.jsonl")]) == 2
    assert "nothing.jsonl: no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 99}')
    assert main(["show", str(bad)]) == 2
    assert "unsupported record schema" in capsys.readouterr().err
    assert main(["show", str(bad), "--svg", str(tmp_path / "x.svg")]) == 2
    assert "unsupported record schema" in capsys.readouterr().err and not (tmp_path / "x.svg").exists()


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


# ---------------------------------------------------------------- processes, resume, report


def records_of(folder: Path) -> list[GameRecord]:
    return ResultsFile(folder / "results.jsonl").load().records


def seat_of(record: GameRecord, label: str) -> int:
    return record.labels.index(label)


def test_match_reuses_bot_processes_so_seeded_bots_do_not_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    code = main(
        ["match", command("--seed", "1"), command("--seed", "2"), "--games", "6", "--size", "3",
         "--opening", "pie", "--out", str(out), "--name-a", "A", "--name-b", "B"]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    records = records_of(out)
    # One process per bot for the whole match (before: a new process, the same seed and so
    # the same game, for every game).
    for label in ("A", "B"):
        assert len({r.bots[seat_of(r, label)].pid for r in records}) == 1
    assert repeated_games(records) == []
    assert "repeat an earlier game" not in printed


def test_a_faulty_bot_is_replaced_by_a_fresh_process(tmp_path: Path) -> None:
    out = tmp_path / "m"
    code = main(
        ["match", command("--seed", "1"), command("--seed", "2", "--fault", "crash", "--after", "1"),
         "--games", "4", "--size", "3", "--out", str(out), "--name-a", "A", "--name-b", "B"]
    )  # fmt: skip
    assert code == 0
    records = records_of(out)
    assert all(r.termination is Termination.CRASH for r in records)
    assert len({r.bots[seat_of(r, "B")].pid for r in records}) == 4
    assert len({r.bots[seat_of(r, "A")].pid for r in records}) == 1
    for r in records:
        for entry in r.bots:
            check_gone(entry.pid)


def test_match_records_carry_pair_keys_and_end_with_the_elo_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    code = main(
        ["match", command("--seed", "1"), command("--seed", "2"), "--games", "4", "--size", "3",
         "--opening", "random", "--out", str(out), "--name-a", "A", "--name-b", "B"]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out.splitlines()
    records = records_of(out)
    keys = [r.pair_key for r in records]
    assert keys[0] == keys[1] != keys[2] == keys[3] and None not in keys
    assert records[0].setup == records[1].setup
    elo = [line for line in printed if line.startswith("Elo difference A - B: ")]
    assert len(elo) == 1 and "95% interval [" in elo[0] and "LOS " in elo[0], printed
    assert any(line.startswith("colour-reversed pairs: 2 (A's points per pair") for line in printed), printed


def test_repeated_games_are_counted_at_the_end_and_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    # Bots that restart their generator at every game: the same seats replay one game.
    replay_a, replay_b = command("--fault", "replay"), command("--seed", "2", "--fault", "replay")
    code = main(["match", replay_a, replay_b, "--games", "6", "--size", "3", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    repeats = "warning: 4 games repeat an earlier game move for move: they are not independent evidence"
    assert repeats in printed
    assert "g0003 = g0001" in printed
    assert main(["report", str(out)]) == 0
    assert "4 games repeat an earlier game move for move" in capsys.readouterr().out


def test_repeated_games_is_a_pure_function_of_the_records(tmp_path: Path) -> None:
    out = tmp_path / "m"
    assert main(["match", command("--seed", "1"), command("--seed", "2"), "--games", "2", "--size", "3",
                 "--out", str(out)]) == 0  # fmt: skip
    first, second = records_of(out)
    copy = dataclasses.replace(first, game_id="g0009", wall_seconds=first.wall_seconds + 1)
    assert repeated_games([first, second, copy]) == [Repeat("g0009", "g0001")]
    # The same turns with the seats swapped is another game; so is a void one.
    swapped = dataclasses.replace(first, game_id="g0010", bots=first.bots[::-1])
    void = dataclasses.replace(first, game_id="g0011", termination=Termination.VOID)
    assert repeated_games([first, swapped, void]) == []
    warning = repeat_warning([first, copy, dataclasses.replace(first, game_id="g0012")])
    assert warning is not None and warning.startswith("2 games repeat an earlier game move for move")


def test_match_into_a_folder_with_games_resumes_or_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    a, b = command("--seed", "1"), command("--seed", "2")
    assert main(["match", a, b, "--games", "2", "--size", "3", "--out", str(out)]) == 0
    capsys.readouterr()
    # The same match with more games plays only the missing ones.
    assert main(["match", a, b, "--games", "4", "--size", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "resuming: 2 of 4 games already played" in printed
    assert game_ids(printed) == ["g0003", "g0004"]
    assert [r.game_id for r in records_of(out)] == ["g0001", "g0002", "g0003", "g0004"]
    # Named by their answers to 'name' (both 'fakebot-good': told apart), kept on resume.
    assert "fakebot-good-1: " in printed and "4 games rated" in printed
    # Nothing left to play: nothing is played, and the summary covers the four games.
    assert main(["match", a, b, "--games", "4", "--size", "3", "--out", str(out)]) == 0
    assert game_lines(capsys.readouterr().out) == []
    # Another match into the folder is refused, saying what differs; nothing is written.
    code = main(["match", a, command("--seed", "3"), "--games", "4", "--size", "3", "--out", str(out)])
    assert code == 1
    err = capsys.readouterr().err
    assert "holds results of a different tournament" in err and 'was "2", now "3"' in err
    code = main(["match", a, b, "--games", "4", "--size", "4", "--out", str(out)])
    assert code == 1 and "size: was 3, now 4" in capsys.readouterr().err
    assert len(records_of(out)) == 4
    # results.jsonl with no manifest (a copied file): refused.
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "results.jsonl").write_bytes((out / "results.jsonl").read_bytes())
    assert main(["match", a, b, "--games", "4", "--size", "3", "--out", str(bare)]) == 1
    assert "holds results but no tournament.json" in capsys.readouterr().err
    assert len(records_of(bare)) == 4


def test_report_names_every_record_it_does_not_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    a, b = command("--seed", "1"), command("--seed", "2")
    assert main(["match", a, b, "--games", "4", "--size", "3", "--out", str(out)]) == 0
    capsys.readouterr()
    # What an older referee did: a second match appended records with the same ids.
    other = tmp_path / "other"
    assert main(["match", a, command("--seed", "5"), "--games", "4", "--size", "3", "--out", str(other)]) == 0
    capsys.readouterr()
    with open(out / "results.jsonl", "ab") as fh:
        fh.write((other / "results.jsonl").read_bytes())
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 games rated" in text
    assert "warning: 4 records not rated: 4 game ids are recorded more than once with a result" in text
    assert "g0001 (x2)" in text


def test_report_of_a_file_says_a_folder_is_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    assert main(["match", command(), command("--seed", "2"), "--games", "2", "--size", "3",
                 "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["report", str(out / "results.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" not in err
    assert "results.jsonl: not a folder; expected a tournament's output folder" in err
    assert "try " in err


def test_a_bot_that_cannot_start_stops_the_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nosuch = shlex.join((sys.executable, "-m", "sample_bots.nosuch"))
    code = main(["match", nosuch, command(), "--games", "20", "--size", "3", "--out", str(tmp_path / "m")])
    assert code == 1
    captured = capsys.readouterr()
    assert len(game_lines(captured.out)) == 3
    assert "could not start 3 times in a row" in captured.err and "No module named" in captured.err


def test_a_match_folder_of_an_earlier_version_is_read_but_not_added_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tests/data/old_match: ``games.jsonl`` + ``match.json``, written by the match runner of
    earlier versions (4 games between two fake bots, random openings)."""
    old = tmp_path / "old"
    shutil.copytree(DATA / "old_match", old)
    assert main(["report", str(old)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("match old: A vs B") and "4 games rated" in text
    assert "A vs B     2        1-0-0-0-1" in text  # its pairs are pairs (the keys are kept)
    assert main(["report", str(old), "--format", "html"]) == 0
    assert "<html" in capsys.readouterr().out
    assert main(["show", str(old / "games.jsonl"), "--game", "g0002"]) == 0
    assert capsys.readouterr().out.startswith("game g0002")
    before = {p.name: p.read_bytes() for p in old.iterdir() if p.is_file()}
    code = main(["match", command(), command(), "--games", "6", "--size", "3", "--out", str(old)])
    assert code == 1
    assert "a match folder of an earlier version" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in old.iterdir() if p.is_file() and p.name != ".lock"} == before
