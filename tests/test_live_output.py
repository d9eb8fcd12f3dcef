"""What a long event prints as it goes (issue 25, item 5; issue 24's void lines): the ETA
from the games' real lengths, each bot's forfeits so far, a Swiss's round and a knockout's
bracket, and void games that say what happened. Real bots, the run's own output."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import runs
import trio

from referee.tournament.config.loading import load_config
from referee.tournament.progress import clock
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

PROGRESS = re.compile(
    r"^    progress: (\d+)/(\d+) games, elapsed \S+, ETA (\S+) \(mean game (\S+) s, (\d+) at once\)(.*)$"
)


bot = runs.fake_bot


async def run(tmp_path: Path, bots, **overrides) -> tuple[str, list]:
    config = load_config(runs.write_config(tmp_path, bots, **{**runs.FAST, **overrides}))
    out = io.StringIO()
    with trio.fail_after(120):
        await Tournament(config, out=out, standings_every=0, start_failure_limit=100).run()
    return out.getvalue(), ResultsFile(config.output / "results.jsonl").load().records


async def test_the_eta_is_the_mean_real_game_times_the_games_left_per_slot_and_forfeits_are_counted(
    tmp_path, marker
):
    bots = [
        bot("a", "--seed", "1", marker=marker),
        bot("b", "--seed", "2", marker=marker),
        bot("crasher", "--fault", "crash", "--after", "1", marker=marker),  # crashes in every game
    ]
    text, records = await run(tmp_path, bots)
    lines = [m for line in text.splitlines() if (m := PROGRESS.match(line))]
    assert len(lines) == len(records) - 1 == 11  # none after the last game
    walls = [r.wall_seconds for r in records]  # in the order recorded, as the lines
    crashes = 0
    for k, m in enumerate(lines, start=1):
        done, total, eta, mean, slots = int(m[1]), int(m[2]), m[3], float(m[4]), int(m[5])
        assert (done, total, slots) == (k, 12, 2)
        pace = sum(walls[:k]) / k
        assert mean == round(pace, 1)
        assert eta == clock(pace * math.ceil((total - done) / slots))
        crashes += sum(1 for r in records[k - 1 : k] if r.fault is not None)
        tail = m[6]
        if crashes:
            assert f"; forfeits so far: crasher {crashes} (crash {crashes})" in tail
        else:
            assert "forfeits" not in tail


async def test_a_swiss_says_its_round_and_a_knockout_its_bracket(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(5)]
    text, _ = await run(tmp_path, bots, out="swiss", schedule={"kind": "swiss", "rounds": 2})
    assert "; Swiss round 1 of 2: 1 of 4 games; bye: b4" in text
    assert "; Swiss round 2 of 2: 1 of 4 games; bye: " in text
    text, _ = await run(
        tmp_path, bots[:4], out="ko", opening="empty", schedule={"kind": "knockout", "games_per_match": 2}
    )
    # Open-ended: no ETA, the most it may still take; then the bracket.
    first = next(line for line in text.splitlines() if line.startswith("    progress: 1 game,"))
    assert "open-ended: no ETA, at most " in first and " more games (" in first
    assert re.search(r"; knockout semi-finals: 0 of 2 decided; playing: b0 \S+ b3, b1 \S+ b2$", first)
    assert "knockout final: 0 of 1 decided; playing: " in text


async def test_a_void_game_says_what_happened_and_that_it_is_played_again(tmp_path, marker):
    bots = [
        bot("good", "--seed", "1", marker=marker),
        bot("broken", "--fault", "exit-at-start", marker=marker),
    ]
    text, records = await run(tmp_path, bots, schedule={"kind": "round_robin", "games_per_pair": 2})
    assert all(r.is_void for r in records) and len(records) == 2
    game_lines = [line for line in text.splitlines() if line.startswith("[")]
    assert len(game_lines) == 2
    for line in game_lines:
        assert " (B) " not in line and " - - " not in line
        assert re.search(
            r"r1-(good\+broken|broken\+good)-0\d: \w+ - \w+  void: start-up failure of bot broken \(crash: ",
            line,
        )
        assert line.endswith(", not rated, replayed on resume")
