"""Swiss and knockout events (issue 25, items 3 and 4): the pairing and the bracket as pure
plans, tie-breaks computed by hand, then real bots, in process and as ``vastuz tournament``
killed mid-round with SIGKILL and run again."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import runs
import trio
from games import played
from processes import wait_until_gone

from referee.errors import ConfigError
from referee.play.records import GameSummary
from referee.play.spec import OpeningKind
from referee.tournament.config.loading import load_config
from referee.tournament.plans.knockout import KnockoutSpec, bracket_order
from referee.tournament.plans.plan import Field
from referee.tournament.plans.swiss import SwissSpec
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def field(names: str) -> Field:
    return Field(tuple(names), OpeningKind.PIE)


def result(game, winner: str | None) -> GameSummary:
    """``game`` (a scheduled game) won by ``winner`` (None: a draw)."""
    seat = None if winner is None else (game.first, game.second).index(winner)
    summary = played(game.slot, game.first, game.second, seat)
    return dataclasses.replace(summary, pair_key=game.pair_key)


def play_round(plan, decide) -> list[str]:
    """Hand out every available game, record ``decide(game)``'s winner for each."""
    games = plan.games(set())
    slots = []
    for game in list(games):
        slots.append(game.slot)
        plan.record(result(game, decide(game)))
    return slots


# --------------------------------------------------------------------------- Swiss, pure


def test_round_one_is_top_half_against_bottom_half_as_fide_dutch_pairs_it():
    # FIDE Handbook C.04.3 (Dutch system): in round 1 the ranked list is split in halves
    # and S1[i] meets S2[i]: with 8 players 1-5, 2-6, 3-7, 4-8.
    plan = SwissSpec(3).make_plan(field("abcdefgh"))
    assert plan.rounds[0].pairs == (("a", "e"), ("b", "f"), ("c", "g"), ("d", "h"))
    assert plan.rounds[0].bye is None
    # Seeds reorder the initial ranking.
    seeded = SwissSpec(3, seeds=tuple("hgfedcba")).make_plan(field("abcdefgh"))
    assert seeded.rounds[0].pairs == (("h", "d"), ("g", "c"), ("f", "b"), ("e", "a"))


def test_the_next_round_is_paired_only_when_the_last_has_ended():
    plan = SwissSpec(2).make_plan(field("abcd"))
    games = plan.games(set())
    first = [next(games) for _ in range(4)]
    assert [g.slot for g in first] == ["s1-a+c-01", "s1-a+c-02", "s1-b+d-01", "s1-b+d-02"]
    assert not games.available() and plan.waits_for_games_in_flight
    for game in first[:3]:
        plan.record(result(game, game.first))
    assert not games.available()  # one game of round 1 still in flight
    plan.record(result(first[3], first[3].first))
    assert games.available() and len(plan.rounds) == 2
    assert any("round 2:" in line for line in plan.after_game(10))


def test_seven_bots_over_four_rounds_never_meet_twice_and_the_bye_goes_down_the_table():
    names = "abcdefg"
    plan = SwissSpec(4).make_plan(field(names))
    seed = {n: k for k, n in enumerate(names)}
    byes = []
    for number in range(1, 5):
        r = plan.rounds[number - 1]
        # The bye: the lowest-ranked (points, then seed) of those without one.
        score = plan.scores(number - 1)
        ranked = sorted(names, key=lambda n: (-score[n], seed[n]))
        assert r.bye == [n for n in ranked if n not in byes][-1]
        byes.append(r.bye)
        play_round(plan, lambda g: min(g.first, g.second, key=seed.__getitem__))  # the better seed wins
    pairings = [frozenset(p) for r in plan.rounds for p in r.pairs]
    assert len(pairings) == 12 and len(set(pairings)) == 12  # no pairing twice
    assert len(set(byes)) == 4
    assert plan.finished and plan.total == 24 and len(plan.results) == 24


def test_tie_breaks_match_a_hand_computation():
    # 4 bots, 2 rounds of 2 games. Round 1: a-c (a wins both), b-d (one each).
    # Points a 2, b 1, d 1, c 0: round 2 pairs a with b (the top of the next group), d-c.
    # Round 2: a-b one each, d wins both against c. Final: a 3, d 3, b 2, c 0.
    plan = SwissSpec(2).make_plan(field("abcd"))
    assert plan.rounds[0].pairs == (("a", "c"), ("b", "d"))
    play_round(plan, lambda g: "a" if "a" in g.bots else g.first)
    assert plan.rounds[1].pairs == (("a", "b"), ("d", "c"))
    play_round(plan, lambda g: "d" if "d" in g.bots else g.first)
    assert plan.scores() == {"a": 3, "b": 2, "c": 0, "d": 3}
    tb = plan.tie_breaks()
    # Buchholz: opponents' final scores. a: c 0 + b 2; b: d 3 + a 3; c: a 3 + d 3; d: b 2 + c 0.
    assert {n: tb[n]["buchholz"] for n in "abcd"} == {"a": 2, "b": 6, "c": 6, "d": 2}
    # Sonneborn-Berger: points against each opponent times its score.
    # a: 2*0 + 1*2; b: 1*3 + 1*3; c: 0; d: 1*2 + 2*0.
    assert {n: tb[n]["sonneborn_berger"] for n in "abcd"} == {"a": 2, "b": 6, "c": 0, "d": 2}
    # Head to head among equal scores: a and d (3) never met.
    assert {n: tb[n]["head_to_head"] for n in "abcd"} == dict.fromkeys("abcd", 0)
    assert plan.ranking() == ["a", "d", "b", "c"]  # a and d level on all three: seed decides
    section = plan.section()
    assert section.bot_fields["b"]["buchholz"] == 6 and section.data["rounds_complete"] == 2


def test_a_swiss_resumes_from_its_records_alone():
    spec = SwissSpec(3)
    plan = spec.make_plan(field("abcde"))
    seen = []
    for _ in range(2):
        seen += [result(g, g.second) for g in plan.games(set())]
        for s in seen[-4:]:
            plan.record(s)
    again = spec.make_plan(field("abcde"), seen[:-1])  # the last game of round 2 lost
    assert again.rounds == plan.rounds[:2]
    assert [g.slot for g in again.games({s.slot for s in seen[:-1]})] == [seen[-1].slot]


def test_swiss_config_mistakes_name_their_key(tmp_path):
    bots = [{"name": n, "command": [sys.executable, str(FAKEBOT)]} for n in "abcd"]
    for schedule, message in [
        ({"kind": "swiss"}, "schedule.rounds: missing"),
        ({"kind": "swiss", "rounds": 4}, "schedule.rounds: a Swiss of 4 bots has at most 3 rounds"),
        ({"kind": "swiss", "rounds": 2, "games_per_pairing": 3}, "schedule.games_per_pairing: expected an"),
        ({"kind": "swiss", "rounds": 2, "seeds": ["a", "x"]}, "schedule.seeds[1]: no bot is named 'x'"),
        ({"kind": "swiss", "rounds": 2, "tie_breaks": ["median"]}, "schedule.tie_breaks[0]: expected one of"),
        ({"kind": "knockout", "tiebreak_pairs": -1}, "schedule.tiebreak_pairs"),
        ({"kind": "knockout", "rounds": 2}, "schedule.rounds: unknown key"),
    ]:
        path = runs.write_config(tmp_path, bots, schedule=schedule)
        with pytest.raises(ConfigError) as error:
            load_config(path)
        assert message in str(error.value), str(error.value)


# --------------------------------------------------------------------------- knockout, pure


def test_a_bracket_of_six_gives_the_byes_to_the_top_seeds_and_a_level_match_goes_on():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    plan = KnockoutSpec(tiebreak_pairs=1).make_plan(field("abcdef"))
    first = plan.matches()[:4]
    assert [(m.a, m.b, m.how) for m in first] == [
        ("a", None, "bye"),
        ("d", "e", ""),
        ("b", None, "bye"),
        ("c", "f", ""),
    ]
    seed = {n: k for k, n in enumerate("abcdef")}

    # d-e: each wins as the first bot (level 1-1), then again in the further pair (2-2):
    # with tiebreak_pairs 1 the higher seed, d, goes on. Elsewhere the better seed wins.
    def decide(g):
        return g.first if {"d", "e"} == set(g.bots) else min(g.bots, key=seed.get)

    assert play_round(plan, decide) == ["k1-d+e-01", "k1-d+e-02", "k1-c+f-01", "k1-c+f-02"]
    assert any("level 1-1: a further pair" in line for line in plan.after_game(10))
    # The further pair, and the semi-final whose bots are known: it need not wait.
    assert play_round(plan, decide) == ["k1-d+e-03", "k1-d+e-04", "k2-b+c-01", "k2-b+c-02"]
    de = plan.matches()[1]
    assert de.winner == "d" and de.how == "level after 4 games: d goes on as the higher seed"
    assert play_round(plan, decide) == ["k2-a+d-01", "k2-a+d-02"]
    assert play_round(plan, lambda g: "b") == ["k3-a+b-01", "k3-a+b-02"]
    assert plan.finished and plan.end_lines() == ["knockout: b wins (final: b beats a 2-0)"]
    text = plan.bracket_text()
    assert "[4] d  2-2  [5] e  -> d (level after 4 games: d goes on as the higher seed)" in text
    assert text.endswith("winner: b")
    again = KnockoutSpec(tiebreak_pairs=1).make_plan(field("abcdef"), list(plan.results.values()))
    assert again.matches() == plan.matches() and not list(again.games(set(plan.results)))


# --------------------------------------------------------------------------- real bots


def bot(name, *args, marker):
    return {
        "name": name,
        "command": [sys.executable, str(FAKEBOT), *args],
        "cwd": str(ROOT),
        "env": {"VASTUZ_TEST_MARKER": marker},
    }


def records(folder: Path):
    return ResultsFile(folder / "results.jsonl").load().records


def pairings_by_round(recs) -> dict[int, set[frozenset[str]]]:
    out: dict[int, set[frozenset[str]]] = {}
    for r in recs:
        number = int(r.slot.split("-", 1)[0][1:])
        out.setdefault(number, set()).add(frozenset(r.labels))
    return out


async def test_a_swiss_of_seven_real_bots(tmp_path, marker):
    bots = [bot(f"b{i}", "--seed", str(i), marker=marker) for i in range(7)]
    path = runs.write_config(tmp_path, bots, name="sw", **runs.FAST, schedule={"kind": "swiss", "rounds": 4})
    config = load_config(path)
    out = io.StringIO()
    with trio.fail_after(120):
        result = await Tournament(config, out=out, standings_every=0).run()
    assert result.played == 24
    recs = records(config.output)
    by_round = pairings_by_round(recs)
    assert sorted(by_round) == [1, 2, 3, 4] and all(len(p) == 3 for p in by_round.values())
    every = [p for ps in by_round.values() for p in ps]
    assert len(set(every)) == 12  # no pairing twice
    players = {n for ps in by_round.values() for p in ps for n in p}
    byes = [next(iter(players - {n for p in ps for n in p})) for ps in by_round.values()]
    assert len(set(byes)) == 4
    standings = json.loads((config.output / "standings.json").read_text())
    swiss = standings["sections"]["swiss"]
    assert [p["bye"] for p in swiss["pairings"]] == byes
    entry = {b["name"]: b for b in standings["bots"]}
    fields = {"buchholz", "sonneborn_berger", "head_to_head", "swiss_points"}
    assert all(fields <= set(e) for e in entry.values())
    # The points add up: 2 per game pair played plus 2 per bye.
    assert sum(e["swiss_points"] for e in entry.values()) == 24 + 2 * 4
    text = out.getvalue()
    assert "a Swiss of 4 rounds" in text and "Swiss: round 4 of 4 complete" in text
    assert "Swiss after 4 of 4 rounds" in (config.output / "standings.md").read_text()
    assert 'id="section-swiss"' in (config.output / "standings.html").read_text()


async def test_a_knockout_of_six_real_bots_with_a_level_match(tmp_path, marker):
    # d and e resign their first move, so the first bot of each game (Black) loses: their
    # match is level however long it goes, and d, the higher seed, goes on.
    resigner = ("--fault", "resign", "--after", "0")
    bots = [
        bot("a", "--seed", "1", marker=marker),
        bot("b", "--seed", "2", marker=marker),
        bot("c", "--seed", "3", marker=marker),
        bot("d", *resigner, marker=marker),
        bot("e", *resigner, marker=marker),
        bot("f", "--seed", "4", marker=marker),
    ]
    path = runs.write_config(
        tmp_path,
        bots,
        name="ko",
        **runs.FAST,
        opening="empty",
        schedule={"kind": "knockout", "games_per_match": 2, "tiebreak_pairs": 1},
    )
    config = load_config(path)
    out = io.StringIO()
    with trio.fail_after(120):
        await Tournament(config, out=out, standings_every=0).run()
    slots = {r.slot for r in records(config.output)}
    assert {"k1-d+e-01", "k1-d+e-02", "k1-d+e-03", "k1-d+e-04"} <= slots
    assert "k2-a+d-01" in slots  # d went on
    text = out.getvalue()
    assert "knockout: quarter-finals: d - e level 1-1: a further pair" in text
    assert "d - e level after 4 games: d goes on as the higher seed" in text
    assert "wins (final:" in text
    standings = json.loads((config.output / "standings.json").read_text())
    assert standings["sections"]["knockout"]["winner"] is not None
    assert {b["name"]: b["seed"] for b in standings["bots"]} == {n: k + 1 for k, n in enumerate("abcdef")}
    md = (config.output / "standings.md").read_text()
    assert "[4] d  2-2  [5] e  -> d" in md
    assert 'id="section-knockout-text"' in (config.output / "standings.html").read_text()


def vastuz(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_records(folder: Path, n: int, proc, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    path = folder / "results.jsonl"
    while not (path.exists() and len(ResultsFile(path).load().records) >= n):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the tournament made no progress"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("schedule", "names", "kill_after", "total"),
    [
        ({"kind": "swiss", "rounds": 3}, 5, 6, 12),  # round 2 of 3 under way (4 games a round)
        ({"kind": "knockout", "tiebreak_pairs": 0}, 6, 3, 10),  # round 1 (4 games) under way
    ],
)
def test_resumed_after_a_sigkill_mid_round(tmp_path, marker, schedule, names, kill_after, total):
    (tmp_path / "delay").write_text("0.03")
    delay = ["--fault", "slow", "--delay-file", str(tmp_path / "delay")]
    bots = [bot(f"s{i}", "--seed", str(i), *delay, marker=marker) for i in range(names)]
    path = runs.write_config(tmp_path, bots, name="k", **runs.FAST, board_size=3, schedule=schedule)
    config = load_config(path)
    proc = vastuz("tournament", str(path))
    try:
        wait_for_records(config.output, kill_after, proc)
    finally:
        proc.kill()  # SIGKILL: no cleanup at all
        proc.communicate()
    kept = records(config.output)
    assert kill_after <= len(kept) < total
    assert wait_until_gone(marker) == []
    (tmp_path / "delay").unlink()
    proc = vastuz("tournament", str(path), "--quiet")
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    final = records(config.output)
    assert final[: len(kept)] == kept  # nothing written before was touched
    slots = [r.slot for r in final]
    assert len(slots) == len(set(slots))  # nothing played twice
    plan = config.make_plan([r for r in (GameSummary.of(x) for x in final) if not r.is_void])
    assert plan.finished  # type: ignore[attr-defined]
    if schedule["kind"] == "swiss":
        assert len(final) == total
        every = [p for ps in pairings_by_round(final).values() for p in ps]
        assert len(every) == len(set(every)) == 6
    else:
        assert len(final) == total  # no tie-break pairs: 5 matches of 2 games
