"""Tests for the rating intervals and bounds of referee.ratings: likelihood-ratio sets scaled
by the units' dispersion, and bounds where the maximum likelihood is infinite (issue 29)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from statistics import NormalDist

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ratings.elo import GameResult, Ratings, compute_ratings, expected_score
from referee.ratings.fit import (
    ELO_PER_NAT,
    fit_strengths,
    inverse_information,
    log_likelihood,
    sigmoid,
    strong_components,
    with_prior,
)
from referee.ratings.profile import Profile
from referee.ratings.units import (
    DISPERSION_PRIOR,
    dispersion,
    moments,
    outcome_counts,
    weighted_dispersion,
)


def _results(a: str, b: str, wins: int, draws: int, losses: int) -> list[GameResult]:
    return [GameResult(a, b, 1.0)] * wins + [GameResult(a, b, 0.5)] * draws + [GameResult(a, b, 0.0)] * losses


def _pairs_played(
    true: Mapping[str, float], pairs: int, rng: random.Random, colour: float = 30.0, draw_rate: float = 0.2
) -> list[GameResult]:
    """A round robin of colour-reversed opening pairs drawn from known ratings, as the
    ratings benchmark draws them (first seat ``colour`` Elo stronger, some draws)."""

    def score(diff: float) -> float:
        p = expected_score(diff + colour)
        draw = draw_rate * 4.0 * p * (1.0 - p)
        r = rng.random()
        return 1.0 if r < p - draw / 2 else 0.5 if r < p + draw / 2 else 0.0

    names = sorted(true)
    games = []
    key = 0
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            for _ in range(pairs):
                games.append(GameResult(x, y, score(true[x] - true[y]), pair=key))
                games.append(GameResult(y, x, score(true[y] - true[x]), pair=key))
                key += 1
    return games


def _coverage(true: Mapping[str, float], pairs: int, reps: int, seed: int) -> tuple[float, float]:
    """Per-bot and neighbour-gap coverage over ``reps`` tournaments, on the report's scale."""
    rng = random.Random(seed)
    bots = bot_hits = gaps = gap_hits = 0
    for _ in range(reps):
        r = compute_ratings(_pairs_played(true, pairs, rng), sorted(true))
        centre = sum(true[name] for name in r.scale[0]) / len(r.scale[0])
        for x in r.ratings:
            assert x.low is not None and x.high is not None
            if x.low == x.high:  # the reference is one bot: a point by construction
                continue
            bots += 1
            bot_hits += x.low <= true[x.name] - centre <= x.high
        for (a, b), gap in r.gaps.items():
            gaps += 1
            gap_hits += gap.low <= true[a] - true[b] <= gap.high
    return bot_hits / bots, gap_hits / gaps


# --------------------------------------------------------------------------- coverage


def test_intervals_cover_a_spread_field() -> None:
    """Eight bots 100 Elo apart, one opening pair per pairing: the field of issue 29, where
    the per-pairing bootstrap covered 73% of the bots (the outer ones half the time) and
    80% of the gaps. 30 tournaments are enough to tell those apart from about 95%."""
    true = {f"b{k}": 100.0 * k for k in range(8)}
    bots, gaps = _coverage(true, pairs=1, reps=30, seed=29)
    assert 0.88 <= bots <= 0.995
    assert 0.88 <= gaps <= 0.995


@pytest.mark.slow
def test_intervals_cover_spread_fields_closely() -> None:
    """The same with 200 tournaments, and five bots 400 apart (most results are bounds)."""
    eight = {f"b{k}": 100.0 * k for k in range(8)}
    five = {f"b{k}": 400.0 * k for k in range(5)}
    for true, pairs in ((eight, 1), (five, 10)):
        bots, gaps = _coverage(true, pairs=pairs, reps=200, seed=7)
        assert 0.92 <= bots <= 0.98 and 0.92 <= gaps <= 0.98, (true, bots, gaps)


# --------------------------------------------------------------------------- the intervals


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd"), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),
)
def test_an_interval_holds_its_estimate_without_stretching(
    raw: list[tuple[str, str, float]], paired: bool
) -> None:
    """Every finite estimate lies strictly inside its own interval (the old percentile
    bounds had to be widened to reach it: "+867 [+305, +867]"); a bound's finite end is on
    the side the data bound, and its estimate is infinite."""
    games = [
        GameResult(a, b, s, pair=i // 2 if paired else None) for i, (a, b, s) in enumerate(raw) if a != b
    ]
    r = compute_ratings(games)
    points = {names[0] for names in r.scale.values() if len(names) == 1}  # one bot fixes the scale
    for x in r.ratings:
        assert x.elo is not None and x.low is not None and x.high is not None
        if x.bound == "lower":
            assert x.elo == x.high == math.inf and math.isfinite(x.low)
        elif x.bound == "upper":
            assert x.elo == x.low == -math.inf and math.isfinite(x.high)
        elif math.isnan(x.elo):  # neither above nor below the reference
            assert (x.low, x.high) == (-math.inf, math.inf)
        elif x.name in points:
            assert x.low == x.elo == x.high
        else:
            assert x.low < x.elo < x.high
    for gap in r.gaps.values():
        if math.isfinite(gap.elo):
            assert gap.low < gap.elo < gap.high
            assert 0.5 <= gap.los < 1.0
        elif gap.elo == math.inf:
            assert gap.high == math.inf and math.isfinite(gap.low) and 0.5 <= gap.los < 1.0


def test_the_interval_is_the_likelihood_ratio_set() -> None:
    """Each end is where the profile deviance, divided by the contrast's dispersion, reaches
    the squared normal quantile; the estimate is where it is 0; the LOS is the one-sided
    test. The dispersion weighs each pairing's units by how much they move the contrast."""
    games = _results("a", "b", 9, 4, 7) + _results("b", "c", 5, 2, 3) + _results("a", "c", 6, 0, 4)
    r = compute_ratings(games, anchor="c")
    pairs = [(0, 1, 11.0, 20.0), (1, 2, 6.0, 10.0), (0, 2, 6.0, 10.0)]
    theta = fit_strengths(3, pairs)
    profile = Profile(3, pairs, theta)
    z2 = NormalDist().inv_cdf(0.975) ** 2
    for name, contrast in (("a", [1.0, 0.0, -1.0]), ("b", [0.0, 1.0, -1.0])):
        x = r.rating(name)
        phi = _dispersion_of(games, theta, contrast)
        assert 0.5 < phi < 1.0  # some draws: less variance than the model's
        assert profile.estimate(contrast) * ELO_PER_NAT == pytest.approx(x.elo, abs=1e-7)
        for end in (x.low, x.high):
            assert end is not None
            deviance, _ = profile.deviance(contrast, end / ELO_PER_NAT)
            assert deviance == pytest.approx(z2 * phi, rel=1e-5)
    gap = r.gaps[("a", "b")]
    phi = _dispersion_of(games, theta, [1.0, -1.0, 0.0])
    deviance, _ = profile.deviance([1.0, -1.0, 0.0], 0.0)
    assert gap.los == pytest.approx(NormalDist().cdf(math.sqrt(deviance / phi)), abs=1e-9)
    # Every unit weighted alike, the group's own figure is another value.
    assert dispersion(*_pairings_of(games, theta)) != pytest.approx(phi, abs=1e-3)


def _pairings_of(
    games: Sequence[GameResult], theta: Sequence[float]
) -> tuple[list[list[int]], list[float], list[float]]:
    """Outcome counts, fitted scores and resistances of the three pairings above."""
    index = {n: k for k, n in enumerate("abc")}
    rows = outcome_counts(games, index, {(0, 1): 0, (1, 2): 1, (0, 2): 2})
    pairs = [(0, 1, 11.0, 20.0), (1, 2, 6.0, 10.0), (0, 2, 6.0, 10.0)]
    v = inverse_information(theta, pairs)
    expected = [sigmoid(theta[i] - theta[j]) for i, j, _, _ in pairs]
    resistance = [v[i][i] + v[j][j] - 2 * v[i][j] for i, j, _, _ in pairs]
    return rows, expected, resistance


def _dispersion_of(games: Sequence[GameResult], theta: Sequence[float], contrast: Sequence[float]) -> float:
    """The contrast's dispersion, from the documented formula."""
    rows, expected, resistance = _pairings_of(games, theta)
    v = inverse_information(theta, [(0, 1, 11.0, 20.0), (1, 2, 6.0, 10.0), (0, 2, 6.0, 10.0)])
    reach = [sum(v[r][q] * contrast[q] for q in range(3)) for r in range(3)]
    weights = [(reach[i] - reach[j]) ** 2 for i, j in ((0, 1), (1, 2), (0, 2))]
    parts = [moments(row, p, h) for row, p, h in zip(rows, expected, resistance, strict=True)]
    return weighted_dispersion(parts, weights)


def test_los_agrees_with_the_gap_interval() -> None:
    """A LOS above 97.5% is exactly a 95% gap interval that excludes 0."""
    rng = random.Random(3)
    for _ in range(40):
        true = {"a": rng.uniform(0, 300), "b": 0.0, "c": rng.uniform(-300, 0)}
        r = compute_ratings(_pairs_played(true, 5, rng))
        for gap in r.gaps.values():
            assert (gap.los > 0.975) == (gap.low > 0)


def test_draws_and_opening_pairs_narrow_the_intervals() -> None:
    """The same points with different variance: ten draws against five wins and five
    losses, and opening pairs split 1-1 (the opening decides) against the same games
    without pair keys. The data's variance, not the model's, sets the width."""
    drawn = compute_ratings(_results("a", "b", 2, 20, 2)).rating("a")
    decisive = compute_ratings(_results("a", "b", 12, 0, 12)).rating("a")
    assert drawn.elo == decisive.elo == pytest.approx(0.0, abs=1e-9)
    assert drawn.error is not None and decisive.error is not None
    assert drawn.error < 0.7 * decisive.error
    split = []
    for key in range(20):
        split += [GameResult("a", "b", 1.0, pair=key), GameResult("b", "a", 1.0, pair=key)]
    by_pair = compute_ratings(split).rating("a")
    by_game = compute_ratings([GameResult(g.a, g.b, g.score_a) for g in split]).rating("a")
    assert by_pair.error is not None and by_game.error is not None
    assert 0 < by_pair.error < by_game.error / 2


def test_dispersion_is_the_models_without_data_and_the_datas_with_many() -> None:
    assert dispersion([], [], []) == 1.0
    # 400 lone games, all draws, between equals: no variance at all in the data, so only
    # the prior's units speak (each game's leverage is 1/400 here).
    freedom = 400 * (1 - 0.25 / 100)
    phi = dispersion([[0, 400, 0, 0, 0, 0, 0, 0]], [0.5], [1 / 100])
    assert phi == pytest.approx(DISPERSION_PRIOR / (freedom + DISPERSION_PRIOR))
    # Win/loss coin flips: the model's own variance.
    assert dispersion([[200, 0, 200, 0, 0, 0, 0, 0]], [0.5], [1 / 100]) == pytest.approx(1.0, abs=0.01)
    # Opening pairs that are all 1-1: the opening decided, the pairs have no variance.
    assert dispersion([[0, 0, 0, 0, 0, 100, 0, 0]], [0.5], [1 / 100]) < 0.05


# --------------------------------------------------------------------------- bounds


def test_a_perfect_score_is_a_bound_of_known_size() -> None:
    """Ten wins in ten lone games: no upper limit, and the lower one the exact one-sided
    bound of a perfect score, where the sweep's probability ``p ** 10`` is 2.5%; the LOS is
    one minus the sweep's probability between equals."""
    r = compute_ratings(_results("a", "b", 10, 0, 0))
    a, b = r.rating("a"), r.rating("b")
    p = 0.025 ** (1 / 10)
    assert a.bound == "lower" and a.elo == a.high == math.inf
    # To within the vanishing prior's effect (about 1e-3 Elo here).
    assert a.low == pytest.approx(ELO_PER_NAT * math.log(p / (1 - p)), abs=1e-2)
    # The weaker bot is the reference of the scale, a point; the gap is the same bound.
    assert (b.elo, b.low, b.high, b.bound) == (0.0, 0.0, 0.0, None) and r.scale == {0: ("b",)}
    gap = r.gaps[("a", "b")]
    assert gap.elo == gap.high == math.inf and gap.low == pytest.approx(a.low)
    assert gap.los == pytest.approx(1 - 0.5**10, abs=1e-6)
    assert any("a won every game: its rating is a lower bound" in w for w in r.warnings)


def test_the_finite_part_keeps_its_own_estimates() -> None:
    """A bot that won everything does not compress the others: they keep the estimates of
    their own games (the limit of the likelihood as the infinite gap opens), where one
    virtual draw per pairing pulled every gap in."""
    rest = _results("b", "c", 6, 2, 4) + _results("c", "d", 5, 3, 4) + _results("b", "d", 7, 1, 4)
    games = (
        rest + _results("top", "b", 6, 0, 0) + _results("top", "c", 6, 0, 0) + _results("top", "d", 6, 0, 0)
    )
    alone = compute_ratings(rest)
    r = compute_ratings(games)
    assert r.ratings[0].name == "top" and r.rating("top").bound == "lower"
    assert r.scale == {0: ("b", "c", "d")}
    for name in "bcd":
        assert r.rating(name).elo == pytest.approx(alone.rating(name).elo, abs=1e-6)
        low, high = r.rating(name).low, r.rating(name).high
        assert low == pytest.approx(alone.rating(name).low, abs=0.5)
        assert high == pytest.approx(alone.rating(name).high, abs=0.5)


def test_components_above_the_reference_keep_their_gap() -> None:
    """Two bots that never dropped a point to the other two: both are lower bounds, the gap
    between them is an ordinary estimate (they played each other), and the gap to the next
    is a bound. A set of bots and its bounds do not depend on the names."""
    games = (
        _results("a", "b", 4, 1, 2)
        + _results("c", "d", 3, 1, 3)
        + _results("a", "c", 5, 0, 0)
        + _results("b", "d", 5, 0, 0)
        + _results("a", "d", 2, 0, 0)
    )
    r = compute_ratings(games)
    assert [x.name for x in r.ratings] == ["a", "b", "c", "d"]
    assert [x.bound for x in r.ratings] == ["lower", "lower", None, None]
    top = r.gaps[("a", "b")]
    assert math.isfinite(top.elo) and top.low < top.elo < top.high
    assert top.elo == pytest.approx(400 * math.log10(4.5 / 2.5), abs=1e-6)
    middle = r.gaps[("b", "c")]
    assert middle.elo == middle.high == math.inf and math.isfinite(middle.low)
    assert any("never scored a point" in w for w in r.warnings)
    renamed = {"a": "w", "b": "x", "c": "y", "d": "z"}
    other = compute_ratings([GameResult(renamed[g.a], renamed[g.b], g.score_a) for g in games])
    for x in r.ratings:
        y = other.rating(renamed[x.name])
        assert (x.elo, x.low, x.high, x.bound) == pytest.approx((y.elo, y.low, y.high, y.bound), abs=1e-9)


def test_strong_components_and_a_chain_of_perfect_pairings() -> None:
    pairs = [(0, 1, 3.0, 3.0), (1, 2, 2.0, 4.0), (2, 1, 0.0, 0.0), (2, 3, 5.0, 5.0)]
    assert strong_components(4, [p for p in pairs if p[3]]) == [0, 1, 1, 2]
    # A chain in which every bot won all its games against the next: all bounds but the
    # reference (the lowest bot), every neighbour gap a lower bound.
    games = _results("p", "q", 8, 0, 0) + _results("q", "r", 8, 0, 0) + _results("r", "s", 8, 0, 0)
    r = compute_ratings(games)
    assert [(x.name, x.bound) for x in r.ratings] == [
        ("p", "lower"),
        ("q", "lower"),
        ("r", "lower"),
        ("s", None),
    ]
    lows = [x.low for x in r.ratings[:3]]
    assert all(low is not None for low in lows) and lows == sorted(lows, reverse=True)  # type: ignore[type-var]
    assert all(g.elo == math.inf and math.isfinite(g.low) for g in r.gaps.values())


def test_an_anchor_inside_a_bound_part() -> None:
    """Anchored on a bot that lost every game: every other bot is at least so much above it."""
    games = _results("a", "b", 3, 2, 3) + _results("a", "z", 6, 0, 0) + _results("b", "z", 6, 0, 0)
    r = compute_ratings(games, anchor="z", anchor_rating=1000)
    assert r.rating("z").elo == 1000 and r.scale == {0: ("z",)}
    for name in "ab":
        x = r.rating(name)
        assert x.bound == "lower" and x.low is not None and 1000 < x.low < math.inf
    gap = r.gaps[(r.ratings[0].name, r.ratings[1].name)]
    assert math.isfinite(gap.elo) and gap.low < gap.elo < gap.high


def test_mirrored_names_mirror_the_results() -> None:
    """Swapping every bot's name with another's permutes the table and nothing else, with
    and without infinite gaps."""
    rng = random.Random(11)
    for spread in (100.0, 400.0):
        true = {f"b{k}": spread * k for k in range(5)}
        games = _pairs_played(true, 3, rng)
        swap = {f"b{k}": f"b{4 - k}" for k in range(5)}
        one = compute_ratings(games)
        other = compute_ratings([GameResult(swap[g.a], swap[g.b], g.score_a, g.pair) for g in games])
        _same_up_to_names(one, other, swap)


def _same_up_to_names(one: Ratings, other: Ratings, swap: Mapping[str, str]) -> None:
    assert [swap[x.name] for x in one.ratings] == [x.name for x in other.ratings]
    for x in one.ratings:
        y = other.rating(swap[x.name])
        assert (x.bound, x.wins, x.losses) == (y.bound, y.wins, y.losses)
        for u, v in ((x.elo, y.elo), (x.low, y.low), (x.high, y.high)):
            assert u == pytest.approx(v, abs=1e-3)
    for (a, b), gap in one.gaps.items():
        mirror = other.gaps[(swap[a], swap[b])]
        assert (gap.elo, gap.low, gap.high, gap.los) == pytest.approx(
            (mirror.elo, mirror.low, mirror.high, mirror.los), abs=1e-3
        )


def test_the_vanishing_prior_does_not_show() -> None:
    """The bounds come from a likelihood kept finite by 1e-6 virtual games per pairing; its
    supremum and a constrained maximum agree with the limit's to far below a table's digit."""
    pairs = [(0, 1, 6.0, 6.0), (1, 2, 3.0, 5.0)]  # bot 0 won everything
    # In the limit the games bot 0 won contribute nothing: the rest is the others' own fit.
    limit = log_likelihood(fit_strengths(2, [(0, 1, 3.0, 5.0)]), [(0, 1, 3.0, 5.0)])
    theta = fit_strengths(3, with_prior(pairs, 1e-6))
    assert log_likelihood(theta, pairs) == pytest.approx(limit, abs=1e-4)
    assert theta[0] - theta[1] > 12  # about ln(2 * 6 / 1e-6) nats


def test_a_bot_neither_above_nor_below_the_scale_is_shown_as_unknown() -> None:
    """a and e each beat one bot at the bottom of the field and nothing links them to the
    bots that fix the scale, in either direction: their ratings are anything, "?"."""
    from dataclasses import dataclass

    from referee.play.records import BotStats, BotSummary, Termination
    from referee.ratings.report import standings
    from referee.render.standings_text import render

    @dataclass(frozen=True)
    class Record:
        labels: tuple[str, str]
        winner: int | None = 0
        pair_key: str | None = None
        termination: Termination = Termination.SCORE
        fault: None = None
        is_void: bool = False

        @property
        def bots(self) -> tuple[BotSummary, BotSummary]:
            return BotSummary(self.labels[0], BotStats()), BotSummary(self.labels[1], BotStats())

    played = [("a", "b"), ("c", "b"), ("c", "d"), ("e", "d")]
    records = [Record(pair) for pair in played for _ in range(3)]
    st = standings(records, ["a", "b", "c", "d", "e"])  # type: ignore[arg-type]  # stand-ins
    unknown = [line for line in st.lines if line.elo is not None and math.isnan(line.elo)]
    assert unknown and all((x.elo_low, x.elo_high) == (-math.inf, math.inf) for x in unknown)
    text = render(st, "text")
    for line in unknown:
        row = next(row.split() for row in text.splitlines() if row.split()[1:2] == [line.name])
        assert row[2:4] == ["?", "[-inf,"]
    assert "nan" not in text and "nan" not in render(st, "json").lower()


def test_the_rating_history_draws_a_bound_at_its_finite_end() -> None:
    """The chart of ratings over a run: a bot that has won everything so far is drawn at
    what the data say it is at least, rising with the evidence, not left out or drawn at a
    shrunk estimate."""
    from dataclasses import dataclass

    from referee.ratings.history import rating_history

    @dataclass(frozen=True)
    class Summary:
        labels: tuple[str, str]
        winner: int | None
        pair_key: str | None = None
        is_void: bool = False

    games = [Summary(("a", "b"), k % 2) for k in range(12)] + [Summary(("top", "a"), 0)] * 8
    games += [Summary(("top", "b"), 0)] * 8
    points = rating_history(games, ["a", "b", "top"], checkpoints=4)  # type: ignore[arg-type]  # stand-ins
    tops = [point["top"] for end, point in points if end > 12]
    assert len(tops) >= 2 and tops == sorted(tops) and tops[-1] > tops[0]
    final = compute_ratings(
        [GameResult(g.labels[0], g.labels[1], 1.0 if g.winner == 0 else 0.0) for g in games],
        ["a", "b", "top"],
    )
    assert final.rating("top").bound == "lower" and tops[-1] == pytest.approx(final.rating("top").low)
    assert all("a" in point and "b" in point for _, point in points)
