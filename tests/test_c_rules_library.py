"""libvastuz (sample_bots/c/vastuz.h), the C rules library, is the Python engine's equal.

The library is built for real with ``make`` into a temporary folder and loaded through
the ctypes binding of :mod:`sample_bots.ctypes_bot` (the FFI example). Two proofs:

* every conformance vector (tests/data/engine-vectors.jsonl): the legal turns, the end,
  the score and result, the legal placements, every illegal turn refused, the sample turn
  played to the position the vector gives;
* a differential of random games on every size 2..9: on every position of every game the
  library's legal turns, placements, end, score and stones equal the engine's. A game's
  turns are picked at random from that list (which reaches the steal-heavy turns often),
  or are the library's own ``vz_random_turn``, which the engine must accept. The default
  run plays 2 to 40 games per size (:data:`DEFAULT_GAMES`); ``-m slow`` plays the 200 per size of issue 22.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.engine import Position
from sample_bots.ctypes_bot import CPosition, CRules, Rng

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "data" / "engine-vectors.jsonl"
SIZES = range(2, 10)


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> CRules:
    """The library and the C bot, built by the Makefile (warnings are failures)."""
    if shutil.which("make") is None or (shutil.which("cc") or shutil.which("gcc")) is None:
        pytest.skip("make and a C compiler (cc or gcc) are needed to build sample_bots/c")
    build = tmp_path_factory.mktemp("libvastuz")
    done = subprocess.run(
        ["make", "-C", str(ROOT / "sample_bots" / "c"), f"BUILD={build}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr, done.stderr
    for name in ("libvastuz.a", "libvastuz.so", "vastuz_mcts"):
        assert (build / name).is_file(), name
    return CRules(build / "libvastuz.so")


def vectors() -> list[dict[str, object]]:
    with VECTORS.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def load(rules: CRules, size: int, black: list[str], white: list[str], to_move: str) -> CPosition:
    pos = rules.position(size)
    pos.set_stones(black, white, to_move)
    return pos


def test_every_conformance_vector(rules: CRules) -> None:
    cases = vectors()
    assert len(cases) == 300
    for v in cases:
        size, black, white = int(v["size"]), list(v["black"]), list(v["white"])  # type: ignore[call-overload]
        where = f"size {size} black {black} white {white} to move {v['to_move']}"
        pos = load(rules, size, black, white, str(v["to_move"]))
        assert pos.legal_turns() == v["turns"], where
        assert pos.is_over == v["game_over"], where
        assert pos.score() == (v["score_b"], v["score_w"]), where
        assert pos.result() == v["result"], where
        engine = Position.from_stones(size, black, white, str(v["to_move"]))
        assert pos.legal_placements() == engine.legal_placements(), where
        assert pos.stones("black") == sorted(black) and pos.stones("white") == sorted(white), where
        for bad in v["illegal"]:  # type: ignore[attr-defined]
            trial = pos.copy()
            with pytest.raises(ValueError, match=r"^(bad notation|illegal move): "):
                trial.play(bad["turn"])
            assert trial.legal_turns() == v["turns"], f"{where}: refusing {bad['turn']} changed the position"
        sample = v["sample"]
        assert isinstance(sample, dict)
        if not v["game_over"]:  # (a finished position's sample is a 'pass' not to be played)
            pos.play(sample["turn"])
            assert pos.stones("black") == sample["black"] and pos.stones("white") == sample["white"], where
            assert pos.is_over == sample["game_over"], where


def differential(rules: CRules, size: int, games: int) -> int:
    """Play ``games`` random games in both implementations; returns the positions compared."""
    rng = random.Random(size)
    crng = Rng(rules, size)
    compared = 0
    for game in range(games):
        engine = Position.new(size)
        pos = rules.position(size)
        black, white = rng.sample(engine.legal_placements(), 2)
        engine = engine.setup(black, white)
        pos.setup(black, white)
        while True:
            turns = engine.legal_turns()
            where = f"size {size} game {game}: {engine!r}"
            assert pos.legal_turns() == turns, where
            assert pos.legal_placements() == engine.legal_placements(), where
            assert pos.is_over == engine.is_over, where
            assert pos.score() == engine.score() and pos.result() == engine.result(), where
            assert pos.stones("black") == engine.stones("black"), where
            assert pos.stones("white") == engine.stones("white"), where
            compared += 1
            if not turns:
                break
            if game % 2:
                turn = pos.random_turn(crng)  # the library's own random play
                assert turn in turns, where
            else:
                turn = rng.choice(turns)
                pos.play(turn)
            engine = engine.play(turn)
    return compared


DEFAULT_GAMES = {2: 40, 3: 30, 4: 20, 5: 10, 6: 6, 7: 4, 8: 3, 9: 2}
"""Games per size in the default run (the engine's legal_turns is its cost: ~10 s in all)."""


@pytest.mark.parametrize("size", SIZES)
def test_random_games_agree_with_the_engine(rules: CRules, size: int) -> None:
    games = DEFAULT_GAMES[size]
    assert differential(rules, size, games) > games * 3


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_200_random_games_per_size_agree_with_the_engine(rules: CRules, size: int) -> None:
    assert differential(rules, size, 200) > 200 * 3


def test_bad_input_is_refused_with_a_reason(rules: CRules) -> None:
    with pytest.raises(ValueError):
        rules.position(1)
    with pytest.raises(ValueError):
        rules.position(14)
    pos = rules.position(3)
    for text, reason in [
        ("z9", "bad notation: "), ("", "bad notation: "), ("a1,", "bad notation: "),
        ("a1,b1", "bad notation: "),
        ("pass", "illegal move: pass while a legal placement exists"),
    ]:  # fmt: skip
        with pytest.raises(ValueError, match=f"^{reason}"):
            pos.play(text)
    pos.setup("a1", "b1")
    with pytest.raises(ValueError, match="illegal setup: setup is only allowed on an empty board"):
        pos.setup("c1", "c2")
    with pytest.raises(ValueError, match="occupied"):
        pos.play("a1")
    with pytest.raises(ValueError, match="listed twice"):
        pos.set_stones(["a1", "a1"], [], "b")
    # set_stones joins what touches: one black group of three here
    pos.set_stones(["a1", "c2", "b1"], ["e5"], "w")
    assert Position.from_stones(3, ["a1", "c2", "b1"], ["e5"], "w").legal_turns() == pos.legal_turns()
