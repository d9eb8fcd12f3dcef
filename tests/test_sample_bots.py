"""The sample bots: whole games between real bot processes over the protocol, with every
turn checked by the engine; the greedy bot's choice, the MCTS bot finding a forced win
one ply cannot see, and the time-budget rule."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from protocol.messages import ResponseParser
from referee.engine import Color, Position
from sample_bots.evaluate import margin, move_budget, turn_outcomes
from sample_bots.greedy_bot import GreedyBot
from sample_bots.mcts_bot import MctsBot, Search
from sample_bots.random_bot import RandomBot

REPO = Path(__file__).resolve().parent.parent
PROCESS_DEADLINE = 120.0  # a wedged bot is killed, so a broken bot fails the test instead of hanging it


class GtpBot:
    """A bot process and a strict, one-command-at-a-time GTP client for it."""

    def __init__(self, module: str, *args: str) -> None:
        self.label = module
        self.proc = subprocess.Popen(
            [sys.executable, "-m", f"sample_bots.{module}", *args],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._watchdog = threading.Timer(PROCESS_DEADLINE, self.proc.kill)
        self._watchdog.start()
        self._next_id = 1

    def send(self, command: str) -> str:
        """Send one command, return the text of its ``=`` answer (fail on ``?``)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        cid = self._next_id
        self._next_id += 1
        self.proc.stdin.write(f"{cid} {command}\n".encode())
        self.proc.stdin.flush()
        parser = ResponseParser(cid)
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                parser.close()
                raise AssertionError(f"{self.label} closed its output after {command!r}")
            response = parser.feed(raw.decode().rstrip("\n"))
            if response is not None:
                assert response.ok, f"{self.label} refused {command!r}: {response.text}"
                return response.text

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        finally:
            self._watchdog.cancel()
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()


@contextmanager
def bots(*specs: tuple[str, ...]) -> Iterator[list[GtpBot]]:
    started: list[GtpBot] = []
    try:
        for module, *args in specs:
            started.append(GtpBot(module, *args))
        yield started
    finally:
        for bot in started:
            bot.close()


def play_gtp_game(first: GtpBot, second: GtpBot, size: int, move_limit: float | None = None) -> Position:
    """A pie-rule game: ``first`` answers gensetup, ``second`` choose_color; every answer
    is checked with the engine and relayed to the other bot. With ``move_limit``, both
    get a per-move clock (``time_settings 0 LIMIT 1``, ``time_left`` before each genmove)."""
    for bot in (first, second):
        bot.send(f"boardsize {size}")
        bot.send("clear_board")
        if move_limit is not None:
            bot.send(f"time_settings 0 {move_limit} 1")
    black_point, white_point = first.send("gensetup").split()
    position = Position.new(size).setup(black_point, white_point)
    second.send(f"setup {black_point} {white_point}")
    color = Color.parse(second.send("choose_color"))
    sides = {color: second, color.opponent: first}
    while not position.is_over:
        mover = position.to_move
        bot, other = sides[mover], sides[mover.opponent]
        if move_limit is not None:
            bot.send(f"time_left {mover.letter} {move_limit} 1")
        turn = bot.send(f"genmove {mover.letter}")
        assert turn != "resign"
        position = position.play(turn)  # raises if the turn is not legal
        other.send(f"play {mover.letter} {turn}")
    for bot in (first, second):
        assert bot.send("final_score") == position.result()
    return position


@pytest.mark.parametrize(
    ("first", "second", "size"),
    [
        (("random_bot", "--seed", "1"), ("greedy_bot", "--seed", "2"), 4),
        (("greedy_bot", "--seed", "3", "--max-turns", "50"), ("random_bot", "--seed", "4"), 4),
        (("mcts_bot", "--seed", "5", "--move-time", "0.05"), ("greedy_bot", "--seed", "6"), 3),
        (
            ("random_bot", "--seed", "7"),
            ("mcts_bot", "--seed", "8", "--move-time", "0.05", "--playout", "random"),
            4,
        ),
    ],
)
def test_complete_games_between_bot_processes(
    first: tuple[str, ...], second: tuple[str, ...], size: int
) -> None:
    with bots(first, second) as (a, b):
        final = play_gtp_game(a, b, size)
        assert final.is_over
        # Play on the same processes again, roles swapped and with a per-move clock.
        final = play_gtp_game(b, a, size, move_limit=0.1)
        assert final.is_over


def test_same_seed_same_game() -> None:
    with bots(("greedy_bot", "--seed", "11"), ("random_bot", "--seed", "12")) as (a, b):
        once = play_gtp_game(a, b, 4)
    with bots(("greedy_bot", "--seed", "11"), ("random_bot", "--seed", "12")) as (a, b):
        again = play_gtp_game(a, b, 4)
    assert once == again


# -- the greedy bot ---------------------------------------------------------------------

# rules.md's two-round example: Black's a1 steals b1 and then a2, ending with a group of 3
# against none (+7.5); nothing else comes close (+3.5 at best).
STEAL_EXAMPLE = Position.from_stones(5, ["b3", "c3"], ["b1", "a2"], "black")


def test_greedy_takes_the_turn_with_the_best_margin() -> None:
    for seed in range(5):
        assert GreedyBot(seed=seed).choose_turn(STEAL_EXAMPLE, None) == "a1,b1>b1,a2>c1"


def test_greedy_breaks_ties_at_random_among_the_best() -> None:
    position = Position.new(4).setup("a1", "g7")
    outcomes = turn_outcomes(position, 1000, RandomBot(0).rng)
    best = max(margin(o.position, Color.BLACK) for o in outcomes)
    best_turns = {o.turn for o in outcomes if margin(o.position, Color.BLACK) == best}
    chosen = {GreedyBot(seed=seed).choose_turn(position, None) for seed in range(20)}
    assert chosen <= best_turns
    assert len(chosen) > 1


def test_turn_outcomes_caps_steal_completions_but_keeps_every_placement() -> None:
    position = STEAL_EXAMPLE
    full = turn_outcomes(position, 10_000, RandomBot(0).rng)
    assert sorted(o.turn for o in full) == position.legal_turns()
    capped = turn_outcomes(position, 1, RandomBot(0).rng)
    assert {o.turn.split(",")[0] for o in capped} == set(position.legal_placements())


# -- the MCTS bot -----------------------------------------------------------------------

# Found by solving size-3 positions exactly: Black wins only with a2 (no steal), while
# one ply prefers the steals d2/d4/e5 (+1.5 now, against -2.5 for a2) which all lose.
FORCED_WIN = Position.from_stones(3, ["a1", "b2", "d5", "e3"], ["a3", "b3", "b4", "c5", "d3", "e4"], "black")


def test_the_forced_win_is_a_trap_for_one_ply() -> None:
    assert GreedyBot(seed=0).choose_turn(FORCED_WIN, None) != "a2"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcts_finds_the_forced_win(seed: int) -> None:
    bot = MctsBot(seed=seed, move_time=60.0, max_playouts=3000)
    assert bot.choose_turn(FORCED_WIN, None) == "a2"
    assert bot.last_playouts == 3000


def test_mcts_plays_the_only_winning_reply_in_a_tiny_endgame() -> None:
    # Also from the exact solver: e3 is Black's only win; one ply prefers c1.
    position = Position.from_stones(
        3, ["a2", "b2", "b3", "c3", "e4", "e5"], ["a1", "a3", "b4", "c5", "d3", "d5"], "black"
    )
    assert GreedyBot(seed=0).choose_turn(position, None) != "e3"
    for playout in ("random", "light"):
        assert MctsBot(seed=1, playout=playout, max_playouts=500).choose_turn(position, None) == "e3"


def test_search_is_deterministic_given_the_seed() -> None:
    position = Position.new(4).setup("d4", "c3")
    turns = {MctsBot(seed=9, max_playouts=200, move_time=60.0).choose_turn(position, None) for _ in range(2)}
    assert len(turns) == 1


def test_root_value_is_seen_from_either_side() -> None:
    search = Search(FORCED_WIN, RandomBot(3).rng)
    search.run(60.0, max_playouts=3000)
    black, white = search.root_value(Color.BLACK), search.root_value(Color.WHITE)
    assert black == pytest.approx(1.0 - white)
    assert black > 0.6  # Black has a forced win (a2), which the search finds


def test_pie_rule_choices_are_legal() -> None:
    bot = MctsBot(seed=4, max_playouts=60)
    empty = Position.new(4)
    black, white = bot.choose_setup(empty)
    position = empty.setup(black, white)  # raises if illegal
    assert bot.choose_color(position) in (Color.BLACK, Color.WHITE)


def test_mcts_takes_the_side_with_the_forced_win() -> None:
    # choose_color looks at the setup from Black's view; here Black (to move) is winning.
    assert MctsBot(seed=0, move_time=60.0, max_playouts=3000).choose_color(FORCED_WIN) is Color.BLACK


# -- time ---------------------------------------------------------------------------------


def test_budget_without_a_clock_is_the_default() -> None:
    assert move_budget(None, stones=None, empty_points=50, default=0.7) == 0.7


def test_budget_per_move_limit_uses_most_of_it() -> None:
    assert move_budget(0.2, stones=1, empty_points=50, default=5.0) == pytest.approx(0.15)


def test_budget_running_clock_spreads_time_over_the_game() -> None:
    # 60 s over 50 / 2 + 5 = 30 expected turns, plus 80% of a 1 s increment.
    assert move_budget(60.0, stones=0, increment=1.0, empty_points=50, default=5.0) == pytest.approx(2.8)


def test_budget_running_clock_never_takes_more_than_forty_percent() -> None:
    assert move_budget(1.0, stones=0, increment=5.0, empty_points=0, default=5.0) == pytest.approx(0.4)
    assert move_budget(-0.5, stones=0, increment=1.0, empty_points=10, default=5.0) == 0.0


def test_mcts_bot_infers_a_per_move_clock_when_the_stones_are_unknown() -> None:
    bot = MctsBot(seed=0, move_time=1.0)
    position = Position.new(5).setup("c3", "e5")
    first = bot.budget(position, 0.5)
    assert first <= 0.4 * 0.5  # unknown clock: the cautious rule
    assert bot.budget(position, 0.5) == pytest.approx(0.375)  # same reading again: per-move
    bot.on_new_game()
    assert bot.budget(position, 0.5) == pytest.approx(first)


def test_mcts_bot_uses_the_announced_time_control() -> None:
    bot = MctsBot(seed=0, move_time=1.0)
    position = Position.new(5).setup("c3", "e5")
    bot.set_time_control(increment=0.0, stones=1)
    assert bot.budget(position, 0.2) == pytest.approx(0.15)
    bot.set_time_control(increment=2.0, stones=0)
    empty = len(position.legal_placements())
    assert bot.budget(position, 100.0) == pytest.approx(100.0 / (empty / 2 + 5) + 1.6)
    assert bot.budget(position, None) == 1.0
