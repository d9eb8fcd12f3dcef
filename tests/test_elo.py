"""Tests for referee.ratings.elo: the Bradley-Terry fit, its intervals, LOS and pentanomial stats.

The intervals' method and its bounds have their own tests in tests/test_intervals.py."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ratings.elo import (
    GameResult,
    Ratings,
    compute_ratings,
    elo_from_score,
    expected_score,
    los,
    pentanomial,
)


def _results(a: str, b: str, wins: int, draws: int, losses: int) -> list[GameResult]:
    """``wins``/``draws``/``losses`` of ``a`` against ``b`` as lone games."""
    return [GameResult(a, b, 1.0)] * wins + [GameResult(a, b, 0.5)] * draws + [GameResult(a, b, 0.0)] * losses


def _simulate(
    true: Mapping[str, float], games_per_pairing: int, seed: int, paired: bool = False
) -> list[GameResult]:
    """Games drawn from the model itself, with draws: a draw takes probability from both
    sides equally, so the expected score of each game is exactly ``expected_score``."""
    rng = random.Random(seed)
    names = sorted(true)
    games: list[GameResult] = []
    key = 0
    for n, x in enumerate(names):
        for y in names[n + 1 :]:
            expected = expected_score(true[x] - true[y])
            draw = 0.4 * min(expected, 1.0 - expected)
            for g in range(games_per_pairing):
                r = rng.random()
                score = 1.0 if r < expected - draw / 2 else 0.5 if r < expected + draw / 2 else 0.0
                a, b = (x, y) if g % 2 == 0 else (y, x)
                games.append(GameResult(a, b, score if a == x else 1.0 - score, pair=key if paired else None))
                if g % 2 == 1:
                    key += 1
    return games


# --------------------------------------------------------------------------- scalar helpers


def test_expected_score_known_values() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)
    assert expected_score(1e6) == 1.0 and expected_score(-1e6) == 0.0  # no overflow


def test_elo_from_score_inverts_expected_score() -> None:
    for diff in (-800.0, -123.4, 0.0, 50.0, 400.0):
        assert elo_from_score(expected_score(diff)) == pytest.approx(diff, abs=1e-9)
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    with pytest.raises(ValueError):
        elo_from_score(1.5)


def test_los_normal_approximation() -> None:
    assert los(0, 0) == 0.5
    assert los(7, 7) == 0.5
    assert los(10, 0) == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(20))))
    for w, lost in [(3, 1), (12, 20), (0, 5)]:
        assert los(w, lost) + los(lost, w) == pytest.approx(1.0)
    assert los(30, 20) > los(15, 10) > 0.5  # same ratio, more evidence
    with pytest.raises(ValueError):
        los(-1, 2)


def test_game_result_validation() -> None:
    with pytest.raises(ValueError):
        GameResult("x", "x", 1.0)
    with pytest.raises(ValueError):
        GameResult("x", "y", 0.7)
    assert GameResult("x", "y", 0.0).score_b == 1.0


# --------------------------------------------------------------------------- point estimates


def test_two_bots_closed_form() -> None:
    games = _results("a", "b", wins=7, draws=2, losses=3)
    s = 8 / 12
    diff = 400 * math.log10(s / (1 - s))
    r = compute_ratings(games, bootstrap=0)
    assert r.rating("a").elo == pytest.approx(diff / 2, abs=1e-7)
    assert r.rating("b").elo == pytest.approx(-diff / 2, abs=1e-7)
    assert r.warnings == []
    a = r.rating("a")
    assert (a.games, a.score, a.wins, a.draws, a.losses) == (12, 8.0, 7, 2, 3)
    assert a.low == a.high == a.elo and a.error == 0.0 and r.los == {}


def test_mle_matches_scores_to_expectations() -> None:
    """The likelihood equations: at the maximum, each bot's points equal the sum of its
    expected scores against the opponents of all its games."""
    games = _simulate({"a": -200, "b": 0, "c": 100, "d": 300}, games_per_pairing=30, seed=3)
    r = compute_ratings(games, bootstrap=0)
    elo = {x.name: x.elo for x in r.ratings}
    for name in elo:
        expected = 0.0
        for g in games:
            if g.a == name:
                expected += expected_score(elo[name] - elo[g.b])
            elif g.b == name:
                expected += expected_score(elo[name] - elo[g.a])
        assert r.rating(name).score == pytest.approx(expected, abs=1e-6)
    assert sum(elo.values()) == pytest.approx(0.0, abs=1e-9)


def test_recovers_known_ratings() -> None:
    true = {"a": -200.0, "b": 0.0, "c": 100.0, "d": 300.0}
    games = _simulate(true, games_per_pairing=400, seed=11, paired=True)
    r = compute_ratings(games, anchor="b", bootstrap=200, seed=5)
    assert [x.name for x in r.ratings] == ["d", "c", "b", "a"]
    for x in r.ratings:
        assert abs(x.elo - true[x.name]) < 40
        if x.name != "b":
            # error is ~1.96 standard errors: twice that is a ~4-sigma band.
            assert 5 < x.error < 60
            assert abs(x.elo - true[x.name]) < 2 * x.error
    assert r.los[("d", "c")] > 0.99 and r.los[("c", "b")] > 0.99


def test_intervals_cover_the_truth_about_95_percent_of_the_time() -> None:
    """Calibration over repeated tournaments: each 95% interval should hold the true rating
    (relative to the anchor) in most of them; a few misses are expected by design."""
    true = {"a": -200.0, "b": 0.0, "c": 100.0, "d": 300.0}
    hits = trials = 0
    for seed in range(12):
        games = _simulate(true, games_per_pairing=40, seed=100 + seed, paired=True)
        r = compute_ratings(games, anchor="b", bootstrap=100, seed=seed)
        for x in r.ratings:
            if x.name != "b":
                trials += 1
                hits += x.low <= true[x.name] <= x.high
    assert hits >= 0.8 * trials


def test_anchoring_shifts_without_changing_gaps() -> None:
    games = _simulate({"a": -100, "b": 0, "c": 150}, games_per_pairing=20, seed=2)
    free = compute_ratings(games, bootstrap=50)
    anchored = compute_ratings(games, anchor="a", anchor_rating=1500, bootstrap=50)
    assert anchored.anchor == "a" and free.anchor is None
    assert anchored.rating("a").elo == 1500
    a = anchored.rating("a")
    assert a.low == a.high == 1500 and a.error == 0
    shift = 1500 - free.rating("a").elo
    for name in "bc":
        assert anchored.rating(name).elo == pytest.approx(free.rating(name).elo + shift)
    # Without an anchor, anchor_rating is the mean of the scale (0 by default).
    unanchored = compute_ratings(games, anchor_rating=1500, bootstrap=0)
    assert sum(x.elo for x in unanchored.ratings) == pytest.approx(3 * 1500, abs=1e-9)
    assert sum(x.elo for x in free.ratings) == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="anchor"):
        compute_ratings(games, anchor="zz")


def test_draws_count_as_half_points() -> None:
    only_draws = compute_ratings(_results("a", "b", 0, 10, 0), bootstrap=20)
    assert only_draws.rating("a").elo == pytest.approx(0, abs=1e-9)
    assert only_draws.warnings == []
    # Two draws carry the same points as one win plus one loss.
    mixed = _results("a", "b", 3, 4, 1) + _results("b", "c", 2, 0, 2) + _results("a", "c", 1, 2, 1)
    split = _results("a", "b", 5, 0, 3) + _results("b", "c", 2, 0, 2) + _results("a", "c", 2, 0, 2)
    x = compute_ratings(mixed, bootstrap=0)
    y = compute_ratings(split, bootstrap=0)
    for name in "abc":
        assert x.rating(name).elo == pytest.approx(y.rating(name).elo, abs=1e-7)


def test_perfect_scores_are_bounds_ordered_and_warned() -> None:
    """The maximum likelihood puts ``top`` infinitely high and ``bottom`` infinitely low:
    they are bounds, and ``mid`` and ``low`` keep the estimate of their own games (one
    virtual draw per pairing, the old regularisation, pulled every gap in)."""
    games = (
        _results("top", "mid", 10, 0, 0)
        + _results("top", "low", 10, 0, 0)
        + _results("mid", "low", 6, 2, 2)
        + _results("mid", "bottom", 10, 0, 0)
        + _results("low", "bottom", 10, 0, 0)
    )
    r = compute_ratings(games, bootstrap=100)
    assert [x.name for x in r.ratings] == ["top", "mid", "low", "bottom"]
    assert [x.bound for x in r.ratings] == ["lower", None, None, "upper"]
    top, mid, low, bottom = r.ratings
    assert top.elo == top.high == math.inf and top.low is not None and top.low > mid.elo
    assert bottom.elo == bottom.low == -math.inf and bottom.high is not None and bottom.high < low.elo
    diff = 400 * math.log10(7 / 3)
    assert mid.elo == pytest.approx(diff / 2, abs=1e-6) and low.elo == pytest.approx(-diff / 2, abs=1e-6)
    assert r.scale == {0: ("low", "mid")}
    assert any("top won every game" in w and "lower bound" in w for w in r.warnings)
    assert any("bottom lost every game" in w and "upper bound" in w for w in r.warnings)
    assert any("infinite by maximum likelihood" in w and "{low, mid} have estimates" in w for w in r.warnings)
    # Deterministic: same data, same answer.
    assert compute_ratings(games, bootstrap=100) == r


def test_group_that_never_lost_a_point_is_a_bound() -> None:
    """No single bot is perfect, yet {a, b} never dropped a point to {c, d}: the maximum
    likelihood gap is infinite, so {a, b} are lower bounds over {c, d}, with a warning;
    the gap between a and b, who played each other, is an ordinary estimate."""
    games = (
        _results("a", "b", 3, 1, 3)
        + _results("c", "d", 3, 1, 3)
        + _results("a", "c", 5, 0, 0)
        + _results("b", "d", 5, 0, 0)
    )
    r = compute_ratings(games, bootstrap=20)
    assert {x.name for x in r.ratings[:2]} == {"a", "b"}
    assert [x.bound for x in r.ratings] == ["lower", "lower", None, None]
    assert all(math.isfinite(x.elo) for x in r.ratings[2:])
    first, second = r.ratings[0].name, r.ratings[1].name
    gap = r.gaps[(first, second)]
    assert gap.elo == pytest.approx(0, abs=1e-9) and gap.low < 0 < gap.high
    assert any("never scored" in w for w in r.warnings)
    assert not any("every game" in w for w in r.warnings)


def test_disconnected_groups_warn_and_centre_separately() -> None:
    games = _results("a", "b", 6, 2, 2) + _results("c", "d", 1, 1, 8)
    r = compute_ratings(games, bootstrap=50, seed=1)
    assert any("{a, b} and {c, d}" in w and "not comparable" in w for w in r.warnings)
    assert r.rating("a").elo + r.rating("b").elo == pytest.approx(0, abs=1e-9)
    assert r.rating("c").elo + r.rating("d").elo == pytest.approx(0, abs=1e-9)
    names = [x.name for x in r.ratings]
    for better, nxt in r.los:
        assert {better, nxt} in ({"a", "b"}, {"c", "d"})
        assert names.index(nxt) == names.index(better) + 1
    # The anchor fixes its own group; the other is centred on the anchor rating.
    anchored = compute_ratings(games, anchor="c", anchor_rating=100, bootstrap=0)
    assert anchored.rating("c").elo == 100
    assert anchored.rating("a").elo + anchored.rating("b").elo == pytest.approx(200, abs=1e-9)


def test_bot_without_games() -> None:
    games = _results("a", "b", 2, 0, 1)
    r = compute_ratings(games, bots=["a", "b", "idle"], bootstrap=30)
    idle = r.rating("idle")
    # No rating at all, rather than a rating of 0 with an interval of width 0.
    assert (idle.elo, idle.low, idle.high, idle.error, idle.group) == (None, None, None, None, None)
    assert (idle.games, idle.score_fraction) == (0, 0.5)
    assert [x.name for x in r.ratings][-1] == "idle"
    assert any("idle played no games" in w for w in r.warnings)
    assert not any(k for k in r.los if "idle" in k)
    with pytest.raises(ValueError, match="ghost"):
        compute_ratings(games + [GameResult("a", "ghost", 1.0)], bots=["a", "b"])
    with pytest.raises(ValueError, match="unique"):
        compute_ratings(games, bots=["a", "b", "a"])


def test_empty_input() -> None:
    assert compute_ratings([]) == Ratings(ratings=[], los={}, warnings=[], anchor=None)
    lone = compute_ratings([], bots=["solo"], anchor="solo", anchor_rating=1000)
    assert lone.rating("solo").elo is None and lone.rating("solo").error is None
    assert lone.los == {}
    assert pentanomial([], "a", "b") is None


def test_ordering_ties_by_name() -> None:
    r = compute_ratings(_results("b", "a", 2, 1, 2) + _results("c", "a", 0, 4, 0), bootstrap=0)
    assert [x.name for x in r.ratings] == ["a", "b", "c"]


# --------------------------------------------------------------------------- bootstrap and LOS


def test_intervals_are_computed_not_sampled() -> None:
    """The intervals do not depend on the seed or on the number of resamples once asked
    for (``bootstrap`` is kept for its 0: no intervals)."""
    games = _simulate({"a": 0, "b": 50, "c": 120}, games_per_pairing=20, seed=4)
    first = compute_ratings(games, bootstrap=100, seed=7)
    assert compute_ratings(games, bootstrap=100, seed=7) == first
    assert compute_ratings(games, bootstrap=5, seed=8) == first
    for x in first.ratings:
        assert x.low < x.elo < x.high
        assert x.error == pytest.approx((x.high - x.low) / 2)


def test_opening_pairs_are_units() -> None:
    """Each opening pair is split 1-1 (the opening decides the winner): as pairs there is
    little variation (only the prior's), as lone games much more."""
    paired = []
    for key in range(20):
        paired += [GameResult("a", "b", 1.0, pair=key), GameResult("b", "a", 1.0, pair=key)]
    lone = [GameResult(g.a, g.b, g.score_a) for g in paired]
    by_pair = compute_ratings(paired, bootstrap=100)
    by_game = compute_ratings(lone, bootstrap=100)
    assert by_pair.rating("a").elo == by_game.rating("a").elo == pytest.approx(0, abs=1e-9)
    assert 0 < by_pair.rating("a").error < by_game.rating("a").error / 2
    assert by_game.rating("a").error > 10


def test_los_between_neighbours() -> None:
    # Identical records against a common opponent: a coin flip either way.
    games = _results("x", "z", 6, 2, 4) + _results("y", "z", 6, 2, 4) + _results("x", "y", 3, 0, 3)
    r = compute_ratings(games, bootstrap=400, seed=2)
    assert [x.name for x in r.ratings][:2] == ["x", "y"]
    assert 0.3 < r.los[("x", "y")] < 0.7
    # A clear gap gives a LOS near 1, and keys follow the ranking.
    strong = compute_ratings(_simulate({"p": 0, "q": 400}, 60, seed=9), bootstrap=200)
    assert list(strong.los) == [("q", "p")]
    assert strong.los[("q", "p")] > 0.99


def test_a_one_sided_pairing_is_not_certain() -> None:
    """A 2-0 match, and a tournament where one pairing is all wins: the game bootstrap
    resampled an all-win pairing to all wins, giving "+140 ±0, LOS 100.0%"."""
    two = compute_ratings(_results("a", "b", 2, 0, 0), bootstrap=1000)
    a = two.rating("a")
    assert a.bound == "lower" and a.elo == a.high == math.inf
    assert two.rating("b").elo == 0 and two.scale == {0: ("b",)}  # a is rated against b
    assert 0.6 < two.los[("a", "b")] < 0.97
    gap = two.gaps[("a", "b")]
    assert gap.low < 0 < gap.elo == gap.high  # two games do not even settle the sign
    games = (
        _results("top", "mid", 10, 0, 0) + _results("mid", "low", 5, 2, 3) + _results("top", "low", 6, 2, 2)
    )
    r = compute_ratings(games, bootstrap=300)
    for x in r.ratings:
        assert x.error is not None and x.error > 20


@pytest.mark.parametrize("paired", [False, True])
def test_los_does_not_depend_on_names(paired: bool) -> None:
    """The same 3-1 gives the same LOS whichever name won (ties between resamples used to
    be broken by rounding leftovers of the warm-started fit: 95.1% or 72.7%)."""

    def match(winner: str, loser: str) -> list[GameResult]:
        scores = [1.0, 0.0, 1.0, 1.0] if paired else [1.0, 1.0, 1.0, 0.0]
        return [GameResult(winner, loser, s, pair=k // 2 if paired else None) for k, s in enumerate(scores)]

    one = compute_ratings(match("a", "b"), bootstrap=500, seed=3)
    other = compute_ratings(match("b", "a"), bootstrap=500, seed=3)
    assert one.los[("a", "b")] == pytest.approx(other.los[("b", "a")], abs=1e-12)
    x, y = one.gaps[("a", "b")], other.gaps[("b", "a")]
    assert (x.elo, x.low, x.high) == pytest.approx((y.elo, y.low, y.high), abs=1e-9)
    assert 0.6 < one.los[("a", "b")] < 0.99


def test_los_between_equal_bots_is_not_overconfident() -> None:
    """A small seeded calibration check: two equal bots, 10 lone games, 150 matches. The
    old bootstrap claimed LOS >= 99% in 22.8% of such matches; about 2% is right (either
    bot may lead)."""
    rng = random.Random(5)
    confident = 0
    for rep in range(150):
        games = [GameResult("x", "y", rng.choice([1.0, 1.0, 0.5, 0.0, 0.0])) for _ in range(10)]
        r = compute_ratings(games, bootstrap=150, seed=rep)
        confident += any(v >= 0.99 for v in r.los.values())
    assert confident <= 6


def test_groups_that_never_met_are_ranked_apart() -> None:
    games = _results("a", "b", 6, 2, 2) + _results("c", "d", 8, 1, 1) + _results("c", "e", 5, 0, 5)
    r = compute_ratings(games, bots=["a", "b", "c", "d", "e", "idle"], bootstrap=50)
    # The larger group first, best first within each group, the bot without games last;
    # the leaderboard does not interleave c's group with a's, however the ratings fall.
    assert [(x.name, x.group) for x in r.ratings] == [
        ("c", 0), ("e", 0), ("d", 0), ("a", 1), ("b", 1), ("idle", None)
    ]  # fmt: skip
    assert set(r.los) == {("c", "e"), ("e", "d"), ("a", "b")}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde"), st.sampled_from([0.0, 0.5, 1.0])),
        max_size=25,
    ),
    st.integers(0, 3),
)
def test_any_results_give_a_consistent_table(raw: list[tuple[str, str, float]], seed: int) -> None:
    games = [GameResult(a, b, s, pair=i // 2) for i, (a, b, s) in enumerate(raw) if a != b]
    r = compute_ratings(games, bootstrap=15, seed=seed)
    groups = [x.group for x in r.ratings if x.group is not None]
    assert groups == sorted(groups) and all(x.group is None for x in r.ratings[len(groups) :])
    for x, y in itertools.pairwise(r.ratings):
        if x.group is not None and x.group == y.group and not (math.isnan(x.elo) or math.isnan(y.elo)):
            # Best first, bounds included; level to the fit's rounding, by name.
            assert x.elo >= y.elo or (abs(x.elo - y.elo) < 1e-6 and x.name < y.name)
    for x in r.ratings:
        assert x.wins + x.draws + x.losses == x.games
        if x.games == 0:
            assert x.elo is None and x.group is None
            continue
        assert x.elo is not None and x.low is not None and x.high is not None
        if math.isnan(x.elo):  # neither above nor below the bots that fix the scale: anything
            assert (x.low, x.high, x.bound) == (-math.inf, math.inf, None)
            continue
        assert math.isfinite(x.elo) == (x.bound is None)
        if x.bound is None and x.low != x.high:
            assert x.low < x.elo < x.high  # never narrower than the data allow
        elif x.bound is None:
            assert x.group is not None and r.scale[x.group] == (x.name,)  # a point: it fixes the scale
    assert all(0.0 <= v <= 1.0 for v in r.los.values())


# --------------------------------------------------------------------------- pentanomial


def test_pentanomial_counts_and_elo() -> None:
    games = [
        # pair 1: a wins both -> 2 points
        GameResult("a", "b", 1.0, pair=1),
        GameResult("b", "a", 0.0, pair=1),
        # pair 2: a wins one, loses one -> 1 point
        GameResult("a", "b", 1.0, pair=2),
        GameResult("b", "a", 1.0, pair=2),
        # pair 3: a draws and loses -> 0.5 points
        GameResult("b", "a", 0.5, pair=3),
        GameResult("a", "b", 0.0, pair=3),
        # pair 4: a wins and draws -> 1.5 points
        GameResult("a", "b", 0.5, pair=4),
        GameResult("b", "a", 0.0, pair=4),
        # pair 5: another 2 points
        GameResult("b", "a", 0.0, pair=5),
        GameResult("a", "b", 1.0, pair=5),
        # ignored: incomplete pair, lone game, other bots, a key mixing bots
        GameResult("a", "b", 1.0, pair=6),
        GameResult("a", "b", 0.0),
        GameResult("a", "c", 1.0, pair=7),
        GameResult("c", "a", 0.0, pair=7),
        GameResult("a", "b", 1.0, pair=8),
        GameResult("a", "c", 1.0, pair=8),
    ]
    p = pentanomial(games, "a", "b")
    assert p is not None
    assert p.counts == (0, 1, 1, 1, 2) and p.pairs == 5
    mean = (0.25 + 0.5 + 0.75 + 1.0 + 1.0) / 5
    assert p.elo == pytest.approx(elo_from_score(mean))
    assert p.low < p.elo < p.high and p.error == pytest.approx((p.high - p.low) / 2)
    assert 0.5 < p.los < 1.0
    mirror = pentanomial(games, "b", "a")
    assert mirror is not None
    assert mirror.counts == (2, 1, 1, 1, 0)
    assert mirror.elo == pytest.approx(-p.elo) and mirror.los == pytest.approx(1 - p.los)
    assert (mirror.low, mirror.high) == pytest.approx((-p.high, -p.low))
    assert pentanomial(games, "a", "c") is not None and pentanomial(games, "b", "c") is None


def test_pentanomial_degenerate_samples() -> None:
    even = [GameResult("a", "b", 0.5, pair=k) for k in range(3) for _ in range(2)]
    p = pentanomial(even, "a", "b")
    assert p is not None and (p.counts, p.elo) == ((0, 0, 3, 0, 0), 0.0)
    # Three equal pairs do not make the gap exactly 0: the interval is not of width 0.
    assert p.low == pytest.approx(-p.high) and p.high > 50 and p.los == pytest.approx(0.5)
    sweep = [GameResult("a", "b", 1.0, pair=k) for k in range(3) for _ in range(2)]
    q = pentanomial(sweep, "a", "b")
    # A perfect score is a lower bound, not a certainty.
    assert q is not None and q.elo == math.inf and q.high == math.inf
    assert math.isfinite(q.low) and 0.5 < q.los < 0.99


def test_pentanomial_interval_at_a_large_gap() -> None:
    """20 pairs, 19 won 2-0 and one 1.5-0.5: what a true gap of 800 typically gives. The
    old normal approximation reached a score of 1 (an infinite upper end, "±inf") and
    missed the truth at such gaps most of the time; the posterior interval is finite,
    holds 800, and has two different ends around the estimate."""
    pairs = [(1.0, 0.5)] + [(1.0, 1.0)] * 19  # a's score as first seat, as second seat
    games = []
    for key, (first, second) in enumerate(pairs):
        games += [GameResult("a", "b", first, pair=key), GameResult("b", "a", 1.0 - second, pair=key)]
    p = pentanomial(games, "a", "b")
    assert p is not None and p.counts == (0, 0, 0, 1, 19)
    assert math.isfinite(p.high) and p.low < 800 < p.high
    assert abs((p.high - p.elo) - (p.elo - p.low)) > 5


def test_beta_quantile_stops_where_bisection_stands_still() -> None:
    """The quantile's bisection stops once a step changes nothing (every further step is
    the same): the same bits as all of its 100 steps, in the tails and in the middle."""
    from referee.ratings.pentanomial import beta_cdf, beta_quantile

    def all_steps(q: float, a: float, b: float) -> float:
        lo, hi = -60.0, 60.0
        for _ in range(100):
            mid = (lo + hi) / 2.0
            if beta_cdf(1.0 / (1.0 + math.exp(-mid)), a, b) < q:
                lo = mid
            else:
                hi = mid
        return 1.0 / (1.0 + math.exp(-(lo + hi) / 2.0))

    rng = random.Random(11)
    for _ in range(60):
        q = rng.choice([1e-9, 0.025, 0.5, 0.975])
        a, b = rng.uniform(0.5, 3000.0), rng.uniform(0.5, 3000.0)
        assert beta_quantile(q, a, b) == all_steps(q, a, b)
