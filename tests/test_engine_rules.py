"""One hand-built position per rule of rules.md, and every error message."""

import random

import pytest

from referee.engine import BadNotation, Color, IllegalTurn, Position, TurnError, score_of


def pos(black, white, to_move="black", size=5):
    return Position.from_stones(size, black, white, to_move)


def turns_from(p, placement):
    return [t for t in p.legal_turns() if t.split(",")[0] == placement]


def error(p, turn, cls=IllegalTurn):
    with pytest.raises(cls) as info:
        p.play(turn)
    return str(info.value)


# -- the empty board and the pie rule ------------------------------------------------
def test_new_position():
    p = Position.new()
    assert p.size == 7 and p.to_move is Color.BLACK and p.to_move == "black"
    assert p.is_empty and not p.is_over
    assert p.score() == (0.0, 0.0) and p.result() == "0"


def test_setup_puts_the_two_pie_stones_black_to_move():
    p = Position.new(5).setup("c3", "G7")
    assert p.stones("black") == ["c3"] and p.stones("white") == ["g7"]
    assert p.to_move is Color.BLACK
    assert p.score() == (2.0, 2.0)


def test_setup_errors():
    p = Position.new(5)
    with pytest.raises(IllegalTurn, match="the two points must differ"):
        p.setup("c3", "c3")
    with pytest.raises(IllegalTurn, match="only allowed on an empty board"):
        p.setup("c3", "d4").setup("e5", "f6")
    with pytest.raises(BadNotation, match="off the size-5 board"):
        p.setup("a9", "c3")


# -- placement -------------------------------------------------------------------------
def test_placement_may_start_or_grow_a_group_but_never_merge():
    p = pos(["c3", "e3"], ["g7"])
    placements = p.legal_placements()
    assert "a1" in placements  # touches no group: a new group
    assert "c4" in placements  # touches c3 only: grows it
    assert "d3" not in placements  # touches c3 and e3: would merge
    assert p.play("c4").groups("black") == [["c3", "c4"], ["e3"]]
    assert error(p, "d3") == "placement d3 touches 2 groups of black (it would merge them)"
    assert error(p, "c3") == "placement c3 is occupied"
    assert error(p, "g7") == "placement g7 is occupied"


def test_forced_pass_and_pass_only_then():
    # size 2, 7 points. White's four single stones leave b2 (touching all four) and c3
    # (touching b3 and c2): White has no placement, Black (a1) still has b2 and c3.
    p = pos(["a1"], ["b1", "a2", "b3", "c2"], "white", size=2)
    assert p.legal_placements() == [] and not p.is_over
    assert p.legal_turns() == ["pass"] and p.must_pass
    assert p.random_turn(random.Random(0)) == "pass"
    after = p.play("PASS")
    assert after.to_move is Color.BLACK and after.stones("white") == p.stones("white")
    assert error(pos([], [], size=5), "pass") == "pass while a legal placement exists"


def test_game_over_when_neither_side_can_place():
    p = pos(["a1", "c3"], ["b1", "a2", "b3", "c2"], "white", size=2)
    assert p.is_over and p.legal_turns() == [] and p.legal_placements() == []
    assert error(p, "pass") == "the game is over: no turn may be played"
    with pytest.raises(IllegalTurn, match="game is over"):
        p.random_turn(random.Random(1))


# -- steals ------------------------------------------------------------------------------
def test_a_brand_new_one_stone_group_steals_and_may_steal_onto_the_freed_point():
    p = pos([], ["f5"])
    assert turns_from(p, "e5") == [
        "e5,f5>d4",
        "e5,f5>d5",
        "e5,f5>e4",
        "e5,f5>e6",
        "e5,f5>f5",
        "e5,f5>f6",
    ]
    after = p.play("e5,f5>f5")
    assert after.stones("black") == ["e5", "f5"] and after.stones("white") == []
    assert after.to_move is Color.WHITE
    # removal may empty the enemy group; a player with no stones scores 0
    assert after.score() == (3.5, 0.0)  # sizes {2}: 2 + 1 + 0.5


def test_steal_target_never_touches_another_own_group():
    p = pos(["c3"], ["f5"])  # c3 touches d4
    assert "e5,f5>d4" not in turns_from(p, "e5")
    assert len(turns_from(p, "e5")) == 5
    assert (
        error(p, "e5,f5>d4")
        == "steal #1 f5>d4: d4 touches another group of the mover (stealing never merges)"
    )


def test_removal_may_split_an_enemy_group():
    p = pos(["c5", "d5"], ["c6", "d6", "e6"])
    turns = turns_from(p, "e5")
    assert len(turns) == 24  # 3 stones x (7 empty neighbours of G + their own point)
    after = p.play("e5,d6>d6")
    assert after.groups("white") == [["c6"], ["e6"]]
    assert after.groups("black") == [["c5", "d5", "d6", "e5"]]


def test_only_same_shape_groups_are_stolen_from_rotations_and_reflections_included():
    triangle = pos(["c5", "d5"], ["c6", "d6", "d7"])
    assert turns_from(triangle, "e5") == ["e5"]
    rotated_line = pos(["c5", "d5"], ["f6", "f7", "f8"])
    assert len(turns_from(rotated_line, "e5")) == 28
    smaller = pos(["c5", "d5"], ["f6", "f7"])  # size is part of shape
    assert turns_from(smaller, "e5") == ["e5"]


def test_rules_example_a_group_can_gain_a_steal_later_in_the_round():
    p = pos(["b3", "c3"], ["b1", "a2"])
    assert turns_from(p, "a1") == ["a1,b1>b1,a2>c1"]
    msg = error(p, "a1,b1>b1")
    assert msg == "missing compulsory steal after 1 steal(s), e.g. a2>c1 (1 legal steal open)"
    assert (
        error(p, "a1,a2>b2")
        == "steal #1 a2>b2: b2 touches another group of the mover (stealing never merges)"
    )


def test_a_group_with_no_legal_steal_is_passed_over():
    p = pos(["b3", "c3", "d1"], ["b1", "a2"])  # d1 now blocks c1
    assert turns_from(p, "a1") == ["a1,b1>b1"]
    assert error(p, "a1,b1>b1,a2>c1") == "extra steal #2 a2>c1: the turn was already complete"


def test_a_steal_may_use_up_another_groups_only_target_the_movers_order_decides():
    p = pos(["c1", "a3", "d4"], ["b1", "a2"])
    assert turns_from(p, "a1") == ["a1,a2>b2", "a1,b1>b2"]
    assert p.play("a1,b1>b2").stones("white") == ["a2"]
    assert p.play("a1,a2>b2").stones("white") == ["b1"]


def test_steal_rounds_continue_while_the_grown_group_meets_its_shape():
    # round 1: e5 steals the single f5; round 2: G is a domino and c4-d4 is one too
    p = pos([], ["f5", "c4", "d4"])
    turns = turns_from(p, "e5")
    assert len(turns) == 74
    assert all(t.count(">") == 2 for t in turns)
    after = p.play("e5,f5>f5,d4>d4")
    assert after.groups("black") == [["d4", "e5", "f5"]] and after.groups("white") == [["c4"]]
    assert (
        error(p, "e5,f5>f5") == "missing compulsory steal after 1 steal(s), e.g. c4>e4 (15 legal steals open)"
    )
    assert error(p, "e5,c4>f6") == "steal #1 c4>f6: c4 is not a stone of a group that must be stolen from now"
    assert error(p, "e5,f5>f5,c4>c4") == "steal #2 c4>c4: c4 is not next to the stealing group"
    assert error(p, "e5,f5>f5,d4>d4,c4>c5") == "extra steal #3 c4>c5: the turn was already complete"


def test_extra_steal_after_a_turn_that_steals_nothing():
    p = pos([], ["f5"])
    assert error(p, "a1,f5>b1") == "extra steal #1 f5>b1: the turn was already complete"


def test_steal_target_errors():
    p = pos(["h8"], ["f5", "i9"])
    assert error(p, "e5,f5>i9") == "steal #1 f5>i9: i9 is occupied"
    assert error(p, "e5,f5>a1") == "steal #1 f5>a1: a1 is not next to the stealing group"
    assert error(p, "e5,f5>e5") == "steal #1 f5>e5: e5 is occupied"


# -- notation -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "turn, message",
    [
        ("", "empty turn"),
        ("e5, f5>f5", "a turn contains no spaces: 'e5, f5>f5'"),
        ("e5,f5>>f5", "steal 'f5>>f5' is not FROM>TO"),
        ("e5,f5", "steal 'f5' is not FROM>TO"),
        ("e5,f5>", "not a point name: ''"),
        ("z9", "no point 'z9' on a size-5 board"),
        ("i1", "point 'i1' is off the size-5 board"),
        ("resign", "not a point name: 'resign'"),
    ],
)
def test_bad_notation_is_its_own_error(turn, message):
    p = pos([], ["f5"])
    with pytest.raises(BadNotation) as info:
        p.play(turn)
    assert str(info.value) == message
    assert isinstance(info.value, TurnError) and isinstance(info.value, ValueError)
    assert not isinstance(info.value, IllegalTurn)


def test_notation_is_case_insensitive_and_output_lowercase():
    p = pos([], ["f5"])
    assert p.play("E5,F5>F5") == p.play("e5,f5>f5")
    assert all(t == t.lower() for t in p.legal_turns())


# -- the stepwise turn builder -----------------------------------------------------------------
def test_turn_builder_walks_the_same_machine():
    p = pos([], ["f5", "c4", "d4"])
    tb = p.begin_turn("e5")
    assert not tb.is_complete and tb.round == 1
    assert tb.legal_steals()[0] == ("f5", "e4")  # d4 is White's
    with pytest.raises(IllegalTurn, match="c4 is not a stone of a group that must be stolen from now"):
        tb.steal("c4", "e4")
    tb.steal("f5", "f5")
    assert tb.round == 2 and len(tb.legal_steals()) == 15
    with pytest.raises(IllegalTurn, match="is not complete"):
        tb.position()
    branch = tb.copy()
    tb.steal("d4", "d4")
    assert tb.is_complete and tb.turn == "e5,f5>f5,d4>d4"
    assert tb.position() == p.play("e5,f5>f5,d4>d4")
    assert not branch.is_complete  # the copy did not move
    with pytest.raises(IllegalTurn, match="merge"):
        pos(["c3", "e3"], []).begin_turn("d3")


# -- score --------------------------------------------------------------------------------------
def test_score_formula_example_from_rules_md():
    assert score_of([5, 3, 3, 1], [4, 4, 2]) == 12.5
    assert score_of([4, 4, 2], [5, 3, 3, 1]) == 8
    assert score_of([], []) == 0
    assert score_of([2], [2]) == 3  # equal largest: nobody gets the half point


def test_score_and_result_of_a_position():
    # black groups 3 and 1 (sizes {3,1}: 4 + 2 + 0.5); white groups 2, 2 ({2}: 2 + 1)
    p = pos(["a1", "b1", "c1", "e5"], ["a4", "a5", "i9", "h9"])
    assert p.score() == (6.5, 3.0) and p.result() == "B+3.5" and p.winner is Color.BLACK
    q = pos(["a1"], ["e5", "e6"])
    assert q.score() == (2.0, 3.5) and q.result() == "W+1.5"
    r = pos(["a1"], ["e5"])
    assert r.result() == "0" and r.winner is None
    s = pos(["a1", "b1"], ["e5"])
    assert s.result() == "B+1.5"


def test_from_stones_rejects_overlaps_and_duplicates():
    with pytest.raises(ValueError, match="holds both"):
        pos(["a1"], ["A1"])
    with pytest.raises(ValueError, match="listed twice"):
        pos(["a1", "a1"], [])
    with pytest.raises(ValueError, match="not a colour"):
        pos([], [], to_move="red")


def test_diagram_shows_stones_coordinates_and_status():
    p = Position.new(3).setup("a1", "e5")
    text = p.diagram()
    lines = text.splitlines()
    assert lines[0].startswith("  5") and lines[-3].startswith("  1")
    assert "X" in lines[-3] and "O" in lines[0]
    assert "a b c d e" in lines[-2]
    assert lines[-1].strip() == "Black to move; score Black 2, White 2"
    assert str(p) == text
