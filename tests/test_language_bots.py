"""The sample bots in other languages: the C MCTS bot (sample_bots/c) and the JavaScript
greedy bot (sample_bots/js).

The C bot is compiled for real with the system C compiler into a temporary folder; the JS
bot runs under the system ``node``. A test is skipped (with the reason) only when that
tool is missing. For each bot:

- ``vastuz check`` (the referee's own protocol checker, as a subprocess) passes, accepting
  every board size from 2 to 13, with its games on the smallest and the standard board;
- engine agreement: random games are driven through the bot's protocol (``clear_board``,
  ``setup``, ``play`` of the engine's random turns) while the bot makes the other turns
  with ``genmove``; every turn the bot produces is judged by the rules engine
  (``Position.play`` must accept it), every engine turn must be accepted by the bot's
  ``play``, a truncated multi-steal turn must be refused, and at the end of each game the
  bot's ``final_score`` must equal the engine's result.
"""

from __future__ import annotations

import random
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from referee.engine import Position

ROOT = Path(__file__).resolve().parent.parent
C_SOURCE = ROOT / "sample_bots" / "c" / "vastuz_mcts.c"
C_LIBRARY = ROOT / "sample_bots" / "c" / "vastuz.c"  # libvastuz, the rules the bot is built on
JS_SOURCE = ROOT / "sample_bots" / "js" / "vastuz_greedy.js"
SIZES = range(2, 14)


# ------------------------------------------------------------------------------ the bots


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The C bot and the rules library it uses, compiled with the system compiler (``cc``,
    else ``gcc``) into tmp."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH: cannot build sample_bots/c")
    out = tmp_path_factory.mktemp("c_bot") / "vastuz_mcts"
    build = subprocess.run(
        [
            compiler,
            "-std=c11",
            "-O2",
            "-Wall",
            "-Wextra",
            "-o",
            str(out),
            str(C_SOURCE),
            str(C_LIBRARY),
            "-lm",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert build.returncode == 0, build.stderr
    assert "warning" not in build.stderr, build.stderr
    return [str(out)]


@pytest.fixture(scope="module")
def js_bot() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: cannot run sample_bots/js")
    return [node, str(JS_SOURCE)]


# `vastuz check` options per bot: the C bot caps its search so that a move takes a few
# milliseconds whatever the limit; the JS bot is one ply and needs no cap.
CHECK = {
    "c": (["--seed", "1", "--max-playouts", "30"], "0.2"),
    "js": (["--seed", "1"], "0.5"),
}


def vastuz_check(argv: list[str], sizes: list[int], per_move: str) -> subprocess.CompletedProcess[str]:
    """``vastuz check`` as a user runs it (a subprocess of the referee's CLI)."""
    args = [
        sys.executable,
        "-m",
        "referee.cli",
        "check",
        shlex.join(argv),
        "--per-move",
        per_move,
        "--games",
        "2",
    ]
    for size in sizes:
        args += ["--size", str(size)]
    return subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=ROOT)


GAME_SIZES = (2, 7)
"""Sizes the check's games are played on (the smallest board, and the standard one)."""


def assert_check_passes(argv: list[str], per_move: str) -> None:
    """The check plays its games (pie and empty openings, both colours) on the first size
    it is given and tries ``boardsize`` on all of them: here every size from 2 to 13 is
    given, with games on each of :data:`GAME_SIZES` (one run each, side by side: they
    mostly wait on pipes). Games on every size are what the engine-agreement tests below
    play; a check with games on each size in turn, which takes a minute, passed when the
    bots were written (sample_bots/README.md)."""

    def one(size: int) -> tuple[int, subprocess.CompletedProcess[str]]:
        return size, vastuz_check(argv, [size, *[s for s in SIZES if s != size]], per_move)

    with ThreadPoolExecutor(max_workers=len(GAME_SIZES)) as pool:
        runs = list(pool.map(one, GAME_SIZES))
    for size, result in runs:
        out = result.stdout + result.stderr
        assert result.returncode == 0, f"size {size}:\n{out}"
        assert "FAIL" not in out and "WARN" not in out, f"size {size}:\n{out}"
        assert "11 checks: 11 passed" in out, f"size {size}:\n{out}"
        accepted = ", ".join(str(s) for s in [size, *[s for s in SIZES if s != size]])
        assert f"accepted {accepted}" in out, f"size {size}:\n{out}"


def test_c_bot_passes_vastuz_check_at_every_size(c_bot: list[str]) -> None:
    options, per_move = CHECK["c"]
    assert_check_passes([*c_bot, *options], per_move)


def test_js_bot_passes_vastuz_check_at_every_size(js_bot: list[str]) -> None:
    options, per_move = CHECK["js"]
    assert_check_passes([*js_bot, *options], per_move)


# ------------------------------------------------------------------ talking to a bot


class Gtp:
    """A bot process driven line by line; a watchdog kills it if it hangs."""

    def __init__(self, argv: list[str], timeout: float = 120.0) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.watchdog = threading.Timer(timeout, self.proc.kill)
        self.watchdog.start()
        self.next_id = 1

    def send(self, command: str) -> tuple[bool, str]:
        """Send one command with an id; return (success, text) of the answer."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        cid = self.next_id
        self.next_id += 1
        self.proc.stdin.write(f"{cid} {command}\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"the bot closed its output (or was killed) after {command!r}"
            line = line.rstrip("\n")
            if not line:
                if lines:
                    break
                continue
            lines.append(line)
        head = lines[0]
        assert head[0] in "=?", f"{command!r}: bad answer {lines!r}"
        assert head[1:].startswith(str(cid)), f"{command!r}: id not echoed in {head!r}"
        text = "\n".join([head[1 + len(str(cid)) :].strip(), *lines[1:]]).strip()
        return head[0] == "=", text

    def ok(self, command: str) -> str:
        success, text = self.send(command)
        assert success, f"{command!r} answered '? {text}'"
        return text

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.send("quit")
                self.proc.wait(timeout=10)
        except (OSError, AssertionError):
            pass  # already dead: the test that saw it has failed with the reason
        finally:
            self.watchdog.cancel()
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass


@pytest.fixture
def gtp() -> Iterator[list[Gtp]]:
    started: list[Gtp] = []
    yield started
    for bot in started:
        bot.close()


# ----------------------------------------------------------------------- engine agreement

# Games per board size: many on the small boards (where steals are frequent and every
# kind of corner case comes up), at least one on every size.
GAMES = {2: 60, 3: 40, 4: 20, 5: 10, 6: 5, 7: 3, 8: 2, 9: 1, 10: 1, 11: 1, 12: 1, 13: 1}
COLOR = {"black": "b", "white": "w"}


def truncated(turn: str) -> str | None:
    """The turn without its last steal (illegal: a compulsory steal is missing), if it has steals."""
    if "," not in turn:
        return None
    return turn.rsplit(",", 1)[0]


def agreement(bot: Gtp, seed: int) -> dict[str, int]:
    """Play GAMES through the bot; return counts of what was judged."""
    rng = random.Random(seed)
    counts = {"bot turns": 0, "engine turns": 0, "steal turns": 0, "refused": 0, "scores": 0}
    for size, games in GAMES.items():
        bot.ok(f"boardsize {size}")
        for game in range(games):
            bot.ok("clear_board")
            position = Position.new(size)
            points = position.legal_placements()
            black, white = rng.sample(points, 2)
            bot.ok(f"setup {black} {white}")
            position = position.setup(black, white)
            # Who makes the turns: the bot for one side, both, or (every 4th game) the
            # engine for both, so that the bot's `play` sees every kind of turn.
            mode = game % 4
            while not position.is_over:
                mover = position.to_move.value
                bot_moves = mode == 2 or (mode == 0 and mover == "black") or (mode == 1 and mover == "white")
                if bot_moves:
                    turn = bot.ok(f"genmove {COLOR[mover]}")
                    # The judge: the engine must accept the bot's turn as it stands.
                    try:
                        position = position.play(turn)
                    except Exception as error:
                        pytest.fail(
                            f"size {size} game {game}: bot turn {turn!r} rejected by the engine: "
                            f"{error}\n{position}"
                        )
                    counts["bot turns"] += 1
                else:
                    turn = position.random_turn(rng)
                    short = truncated(turn)
                    if short is not None:
                        # A turn that stops before its last compulsory steal is illegal:
                        # the bot must refuse it and keep its board.
                        success, _text = bot.send(f"play {COLOR[mover]} {short}")
                        assert not success, (
                            f"size {size}: bot accepted the truncated turn {short!r} (full: {turn!r})"
                        )
                        counts["refused"] += 1
                    bot.ok(f"play {COLOR[mover]} {turn}")
                    position = position.play(turn)
                    counts["engine turns"] += 1
                if "," in turn:
                    counts["steal turns"] += 1
            assert bot.ok("final_score") == position.result(), f"size {size} game {game}:\n{position}"
            counts["scores"] += 1
    return counts


def check_counts(counts: dict[str, int]) -> None:
    # Thousands of turns, a good share of them with steals, all of them agreed on.
    assert counts["bot turns"] >= 2000, counts
    assert counts["engine turns"] >= 2000, counts
    assert counts["steal turns"] >= 300, counts
    assert counts["refused"] >= 100, counts
    assert counts["scores"] == sum(GAMES.values()), counts


def test_c_bot_agrees_with_the_engine(c_bot: list[str], gtp: list[Gtp]) -> None:
    bot = Gtp([*c_bot, "--seed", "5", "--max-playouts", "4", "--completions", "4"])
    gtp.append(bot)
    check_counts(agreement(bot, seed=12))


def test_js_bot_agrees_with_the_engine(js_bot: list[str], gtp: list[Gtp]) -> None:
    bot = Gtp([*js_bot, "--seed", "5", "--max-turns", "100"])  # sampled steal completions: faster
    gtp.append(bot)
    check_counts(agreement(bot, seed=13))


def test_c_bot_is_reproducible_with_a_seed(c_bot: list[str], gtp: list[Gtp]) -> None:
    """With --seed and --max-playouts the search is deterministic: same answers twice."""
    answers = []
    for _ in range(2):
        bot = Gtp([*c_bot, "--seed", "9", "--max-playouts", "200"])
        gtp.append(bot)
        bot.ok("boardsize 5")
        bot.ok("clear_board")
        seq = [bot.ok("gensetup")]
        for _ in range(10):
            for color in "bw":
                seq.append(bot.ok(f"genmove {color}"))
        answers.append(seq)
    assert answers[0] == answers[1]
