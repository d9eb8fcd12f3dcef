"""The Swiss pairing against the FIDE Dutch system's published procedure, beyond round 1.

The published example is FIDE Handbook C.04.1, section D ("Transposition and Exchange
Procedures"): with S1 = 1, 2, 3, 4 and S2 = 5, 6, 7, 8, the transpositions of S2 in the
order 5-6-7-8, 5-6-8-7, 5-7-6-8, 5-7-8-6, 5-8-6-7, 5-8-7-6, 6-5-7-8, 6-5-8-7, ...; the
exchanges of one player a) 4 and 5, b) 4 and 6, c) 3 and 5, d) 4 and 7, e) 3 and 6,
f) 2 and 5, g) 3 and 7, h) 2 and 6, i) 2 and 7; of two players j) 3+4 with 5+6, k) 3+4
with 5+7, l) 2+4 with 5+6, m) 3+4 with 6+7, n) 2+4 with 5+7, o) 2+3 with 5+6, p) 2+4 with
6+7, q) 2+3 with 5+7, r) 2+3 with 6+7. The matrices show only players 2-4 and 5-7; ours
orders every player by the same two rules, so the published ones are checked as the order
among those. Then whole rounds of a Swiss (its plan) paired as those rules pair them."""

from __future__ import annotations

import dataclasses

from games import played

from referee.play.records import GameSummary
from referee.play.spec import OpeningKind
from referee.tournament.plans.dutch import dutch_pairing, exchanges, transpositions
from referee.tournament.plans.plan import Field
from referee.tournament.plans.swiss import SwissSpec

S1, S2 = ("1", "2", "3", "4"), ("5", "6", "7", "8")


def test_transpositions_follow_the_published_order():
    published = ["5678", "5687", "5768", "5786", "5867", "5876", "6578", "6587"]
    assert ["".join(t) for t in transpositions(S2, 4)][: len(published)] == published
    # All 24, ascending as numbers: the hint of D.1 ("put all numbers ... in ascending order").
    every = ["".join(t) for t in transpositions(S2, 4)]
    assert every == sorted(every) and len(every) == 24


def test_exchanges_follow_the_published_matrices():
    shown = [
        (out, into)
        for out, into in exchanges(S1, S2)
        if set(out) <= {"2", "3", "4"} and set(into) <= {"5", "6", "7"}
    ]
    one = [f"{o[0]}-{i[0]}" for o, i in shown if len(o) == 1]
    assert one == ["4-5", "4-6", "3-5", "4-7", "3-6", "2-5", "3-7", "2-6", "2-7"]  # a) to i)
    two = ["+".join(sorted(o)) + " " + "+".join(i) for o, i in shown if len(o) == 2]
    assert two == [
        "3+4 5+6", "3+4 5+7", "2+4 5+6", "3+4 6+7", "2+4 5+7",
        "2+3 5+6", "2+4 6+7", "2+3 5+7", "2+3 6+7",
    ]  # j) to r)  # fmt: skip
    # Every one-player exchange comes before every two-player one.
    sizes = [len(o) for o, _ in exchanges(S1, S2)]
    assert sizes == sorted(sizes)


def met(*pairs: str) -> set[frozenset[str]]:
    return {frozenset(p.split("-")) for p in pairs}


def test_a_homogeneous_bracket_takes_the_first_transposition_without_a_repeat():
    players = [*S1, *S2]
    level = dict.fromkeys(players, 1.0)
    # Round 1 was 1-5, 2-6, 3-7, 4-8: every transposition from 5 repeats 1-5; 6-5-7-8 repeats
    # 3-7; 6-5-8-7 is the first that repeats nothing.
    assert dutch_pairing(players, level, met("1-5", "2-6", "3-7", "4-8")) == [
        ("1", "6"),
        ("2", "5"),
        ("3", "8"),
        ("4", "7"),
    ]
    # 2 has met everyone of S2 but 6, and 1 has met 5: a transposition still exists (7-6-5-8),
    # so no exchange is made (a simpler search pairs 1-6 and then 2 inside S1).
    assert dutch_pairing(players, level, met("1-5", "2-5", "2-7", "2-8")) == [
        ("1", "7"),
        ("2", "6"),
        ("3", "5"),
        ("4", "8"),
    ]


def test_an_exchange_is_made_only_when_no_transposition_works_and_in_the_published_order():
    players = [*S1, *S2]
    level = dict.fromkeys(players, 1.0)
    # 4 has met all of S2: no transposition pairs it; the first exchange, a) 4 and 5, makes
    # S1 = 1, 2, 3, 5 and S2 = 4, 6, 7, 8, and its first transposition works: 1-4, 2-6, 3-7, 5-8.
    assert dutch_pairing(players, level, met("4-5", "4-6", "4-7", "4-8")) == [
        ("1", "4"),
        ("2", "6"),
        ("3", "7"),
        ("5", "8"),
    ]


def test_a_lower_bracket_that_cannot_be_paired_sends_the_search_back_up():
    # Winners 1-4 (2 points), losers 5-8 (0). Among the losers 5 has met 6, 7 and 8: no
    # pairing of that bracket exists, so the search goes back to the winners' bracket, which
    # makes one pair fewer: S1 = 1, S2 = 2, 3, 4 gives 1-2 and moves 3 and 4 down, where they
    # are paired first (3-5, 4-6, residents in rank order), and the remainder 7-8.
    players = [*S1, *S2]
    score = {p: (2.0 if p in S1 else 0.0) for p in players}
    pairs = dutch_pairing(players, score, met("5-6", "5-7", "5-8"))
    assert pairs is not None
    assert not any(frozenset(p) in met("5-6", "5-7", "5-8") for p in pairs)
    assert pairs[0] == ("1", "2")  # the top bracket keeps the pair it can (1 against 2)
    assert {frozenset(p) for p in pairs[1:]} == {
        frozenset(("3", "5")),
        frozenset(("4", "6")),
        frozenset(("7", "8")),
    }


# ---------------------------------------------------------------------- whole rounds of a plan


def result(game, winner: str | None) -> GameSummary:
    seat = None if winner is None else (game.first, game.second).index(winner)
    return dataclasses.replace(played(game.slot, game.first, game.second, seat), pair_key=game.pair_key)


def play_round(plan, decide) -> None:
    for game in list(plan.games(set())):
        plan.record(result(game, decide(game)))


def test_rounds_two_and_three_of_eight_as_the_dutch_rules_pair_them():
    names = tuple("abcdefgh")  # seeds 1..8
    plan = SwissSpec(rounds=3).make_plan(Field(names, OpeningKind.PIE))
    assert plan.rounds[0].pairs == (("a", "e"), ("b", "f"), ("c", "g"), ("d", "h"))
    play_round(plan, lambda g: min(g.first, g.second))  # the higher seed wins both games
    # Winners a-d (2 points): S1 = a, b; S2 = c, d -> a-c, b-d. Losers e-h likewise: e-g, f-h.
    assert plan.rounds[1].pairs == (("a", "c"), ("b", "d"), ("e", "g"), ("f", "h"))
    play_round(plan, lambda g: min(g.first, g.second))
    score = plan.scores(2)
    assert score == {"a": 4, "b": 4, "c": 2, "d": 2, "e": 2, "f": 2, "g": 0, "h": 0}
    # 4 points: a-b (new). 2 points c, d, e, f: S1 = c, d; S2 = e, f -> c-e (new), d-f (new).
    # 0 points: g-h.
    assert plan.rounds[2].pairs == (("a", "b"), ("c", "e"), ("d", "f"), ("g", "h"))
