"""``vastuz book make``: candidates distinct under the board's 12 symmetries, a real
self-play measurement with a bot process, and a book the config reads, each opening's score
in its comment and within the band."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from referee.cli.main import main
from referee.engine import Color, Position, board_symmetries
from referee.tools.book import candidates, position_key
from referee.tournament.config.openings import read_book

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def _image(position: Position, image: dict[str, str]) -> Position:
    return Position.from_stones(
        position.size,
        [image[p] for p in position.stones(Color.BLACK)],
        [image[p] for p in position.stones(Color.WHITE)],
        to_move=position.to_move,
    )


@pytest.mark.parametrize("size", [3, 5, 7])
def test_the_symmetries_carry_the_game_onto_itself(size: int) -> None:
    maps = board_symmetries(size)
    assert len(maps) == 12 and len({tuple(sorted(m.items())) for m in maps}) == 12
    rng = random.Random(size)
    position = Position.new(size).setup(*rng.sample(sorted(maps[0]), 2))
    for _ in range(6):
        position = position.play(position.random_turn(rng))
    for image in maps:
        mirrored = _image(position, image)
        assert position_key(mirrored) == position_key(position)
        assert mirrored.score() == position.score()
        assert sorted(image[p] for p in position.legal_placements()) == sorted(mirrored.legal_placements())


def test_candidates_are_distinct_under_the_symmetries_and_reproducible() -> None:
    found = candidates(5, 2, 30, seed=7)
    assert found == candidates(5, 2, 30, seed=7) and len(found) == 30
    keys = set()
    for opening in found:
        position = Position.new(5).setup(opening.black, opening.white)
        for turn in opening.turns:
            position = position.play(turn)
        keys.add(position_key(position))
    assert len(keys) == 30
    # A tiny board has few distinct openings: the search stops at what there is.
    assert len(candidates(2, 0, 50, seed=1)) < 50


def test_book_make_measures_self_play_and_writes_a_book_the_config_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "book.txt"
    bot = f"{sys.executable} {FAKEBOT}"  # a random player, fresh randomness per process
    args = ["book", "make", "--bot", bot, "--size", "4", "--turns", "1", "--count", "6"]
    args += ["--games-per-opening", "4", "--balance", "0.25-0.75", "--per-move", "1", "--concurrency", "2"]
    args += ["--work", str(tmp_path / "work"), "--out", str(out)]
    assert main(args) == 0
    assert "candidate openings kept" in capsys.readouterr().out
    text = out.read_text()
    assert "# Made by: vastuz book make --bot " in text and "--size 4 --turns 1 --count 6" in text
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    for line in lines:
        score = re.search(r"# (\d\.\d{3}) \((\d+)-(\d+)-(\d+)\)$", line)
        assert score is not None, line
        wins, draws, losses = (int(x) for x in score.groups()[1:])
        assert wins + draws + losses == 4
        assert 0.25 <= float(score.group(1)) == (wins + draws / 2) / 4 <= 0.75
    if lines:
        assert len(read_book(out, 4)) == len(lines)
    # The measurement is a tournament folder: every candidate played 4 times.
    results = (tmp_path / "work" / "games" / "results.jsonl").read_text().splitlines()
    assert len(results) == 24


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--balance", "0.7-0.3"], "expected LOW-HIGH"),
        (["--games-per-opening", "3"], "expected an even number"),
        (["--size", "99"], "board size must be"),
    ],
)
def test_bad_arguments_exit_2(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "book",
        "make",
        "--bot",
        "python",
        "--size",
        "4",
        "--turns",
        "1",
        "--count",
        "2",
        "--out",
        str(tmp_path / "b"),
    ]
    with pytest.raises(SystemExit) as exc:
        main([*args, *extra])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert (
        main(
            [
                "book",
                "make",
                "--bot",
                "no-such-program-x",
                "--size",
                "4",
                "--turns",
                "1",
                "--count",
                "2",
                "--out",
                str(tmp_path / "b"),
            ]
        )
        == 2
    )
