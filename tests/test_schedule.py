"""The scheduler's promises: every pair plays its games, roles and openings balance,
couples are adjacent, slots are unique and stable, and the order is interleaved."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import pytest
from runs import build_schedule

from referee.play.spec import Opening, OpeningKind
from referee.tournament.config.loading import parse_config
from referee.tournament.plans.fixed import FixedSpec, GauntletSpec, RoundRobinSpec, pairings, schedule_games
from referee.tournament.slots import ScheduledGame

NAMES = ["alpha", "beta", "gamma", "delta", "eps-1", "z.6"]
OPENINGS = tuple(
    Opening(b, w, (), f"o{i}") for i, (b, w) in enumerate([("g7", "d4"), ("d4", "j10"), ("a1", "m13")])
)
MODES = [OpeningKind.PIE, OpeningKind.EMPTY, OpeningKind.BOOK, OpeningKind.RANDOM]


def spec_for(kind: str, n: int, games: int, rounds: int) -> FixedSpec:
    """A gauntlet has one challenger among 2 bots, two challengers among more."""
    if kind == GauntletSpec.kind:
        return GauntletSpec(games, rounds, tuple(NAMES[: 1 if n == 2 else 2]))
    return RoundRobinSpec(games, rounds)


def expected_pairs(names: list[str], spec: FixedSpec) -> set[frozenset[str]]:
    if isinstance(spec, RoundRobinSpec):
        return {frozenset(p) for p in combinations(names, 2)}
    return {frozenset((c, o)) for c in spec.challengers for o in names if o not in spec.challengers}


def make(mode: OpeningKind, names: list[str], spec: FixedSpec) -> list[ScheduledGame]:
    openings = OPENINGS if mode in (OpeningKind.BOOK, OpeningKind.RANDOM) else ()
    return schedule_games(names, spec, mode, openings)


CASES = [
    (kind, n, games, rounds, mode)
    for kind in (RoundRobinSpec.kind, GauntletSpec.kind)  # the fixed ones (SPRT: test_sprt_schedule)
    for n in range(2, 7)
    for games in (2, 4)
    for rounds in (1, 2)
    for mode in MODES
]


@pytest.mark.parametrize(("kind", "n", "games", "rounds", "mode"), CASES)
def test_schedule_balance(kind: str, n: int, games: int, rounds: int, mode: OpeningKind) -> None:
    names = NAMES[:n]
    spec = spec_for(kind, n, games, rounds)
    schedule = make(mode, names, spec)
    pairs = expected_pairs(names, spec)

    # Every expected pair, and only those, plays games_per_pair games in every round.
    per_round_pair = Counter((g.round, frozenset(g.pair)) for g in schedule)
    assert set(per_round_pair) == {(r, p) for r in range(1, rounds + 1) for p in pairs}
    assert set(per_round_pair.values()) == {games}
    assert len(schedule) == len(pairs) * games * rounds

    # Indices are the order; slots are unique; game numbers run 1..games per pair and round.
    assert [g.index for g in schedule] == list(range(len(schedule)))
    assert len({g.slot for g in schedule}) == len(schedule)
    for g in schedule:
        assert set(g.bots) == set(g.pair) and g.first != g.second
        assert g.mode is mode
        assert g.slot == f"r{g.round}-{g.pair[0]}+{g.pair[1]}-{g.game:02d}"
    numbers = Counter((g.round, g.pair, g.game) for g in schedule)
    assert set(numbers.values()) == {1}
    assert {g.game for g in schedule} == set(range(1, games + 1))

    # Couples: two adjacent games with roles swapped and the same opening share a pair_key.
    couples: dict[str, list[ScheduledGame]] = {}
    for g in schedule:
        couples.setdefault(g.pair_key, []).append(g)
    for key, couple in couples.items():
        assert len(couple) == 2, key
        a, b = couple
        assert b.index == a.index + 1
        assert (a.first, a.second) == (b.second, b.first)
        assert a.opening == b.opening

    # Per pair: each bot takes each role (setup maker / Black) equally often, on each opening.
    for pair in pairs:
        games_of_pair = [g for g in schedule if frozenset(g.pair) == pair]
        roles = Counter((g.first, g.opening) for g in games_of_pair)
        for bot in pair:
            for opening in {g.opening for g in games_of_pair}:
                other = next(iter(pair - {bot}))
                assert roles[(bot, opening)] == roles[(other, opening)]


@pytest.mark.parametrize("mode", MODES)
def test_roles_by_mode(mode: OpeningKind) -> None:
    schedule = make(mode, NAMES[:3], RoundRobinSpec(games_per_pair=2))
    game = schedule[0]
    if mode is OpeningKind.PIE:
        assert (game.setup_maker, game.chooser) == (game.first, game.second)
        with pytest.raises(ValueError, match="chosen during the game"):
            _ = game.black
        assert game.opening is None
    else:
        assert (game.black, game.white) == (game.first, game.second)
        with pytest.raises(ValueError, match="no pie setup"):
            _ = game.setup_maker
        assert (game.opening is not None) == (mode in (OpeningKind.BOOK, OpeningKind.RANDOM))


def test_order_interleaves_pairs() -> None:
    """A tournament stopped early has every pair at nearly the same number of games."""
    names = NAMES[:4]
    schedule = make(OpeningKind.PIE, names, RoundRobinSpec(games_per_pair=6, rounds=2))
    n_pairs = 6
    for stop in range(len(schedule) + 1):
        played = Counter(frozenset(g.pair) for g in schedule[:stop])
        counts = [played.get(frozenset(p), 0) for p in combinations(names, 2)]
        assert max(counts) - min(counts) <= 2, stop  # at most one couple apart
    # The first couple of every pair comes before any pair's second couple.
    first_couples = schedule[: 2 * n_pairs]
    assert len({frozenset(g.pair) for g in first_couples}) == n_pairs


def test_round_robin_sweeps_use_each_bot_once() -> None:
    names = NAMES[:6]
    pairs = pairings(names, RoundRobinSpec())
    assert len(pairs) == 15 and len(set(pairs)) == 15
    for sweep in range(5):
        bots = [b for pair in pairs[3 * sweep : 3 * sweep + 3] for b in pair]
        assert len(set(bots)) == 6
    # A pair is written in config order.
    assert all(names.index(x) < names.index(y) for x, y in pairs)


def test_gauntlet_pairs_challenger_first_and_no_challenger_meets_another() -> None:
    spec = GauntletSpec(2, 1, ("gamma", "alpha"))
    pairs = pairings(NAMES[:4], spec)
    assert pairs == [("gamma", "beta"), ("alpha", "beta"), ("gamma", "delta"), ("alpha", "delta")]


def test_openings_are_dealt_in_order_and_cycle() -> None:
    schedule = make(OpeningKind.BOOK, NAMES[:3], RoundRobinSpec(games_per_pair=4, rounds=2))
    dealt = [g.opening for g in schedule[::2]]
    assert dealt == [OPENINGS[i % 3] for i in range(len(dealt))]
    # Every opening is used, each by both bots of a pair with each colour.
    assert Counter(g.opening for g in schedule) == {o: 8 for o in OPENINGS}


def test_lead_alternates_between_rounds() -> None:
    schedule = make(OpeningKind.EMPTY, ["a", "b"], RoundRobinSpec(games_per_pair=2, rounds=3))
    assert [g.black for g in schedule] == ["a", "b", "b", "a", "a", "b"]


def test_adding_rounds_only_appends() -> None:
    short = make(OpeningKind.RANDOM, NAMES[:5], RoundRobinSpec(games_per_pair=4, rounds=1))
    long = make(OpeningKind.RANDOM, NAMES[:5], RoundRobinSpec(games_per_pair=4, rounds=3))
    assert long[: len(short)] == short


def test_schedule_is_deterministic() -> None:
    spec = RoundRobinSpec(4, 2)
    assert make(OpeningKind.BOOK, NAMES, spec) == make(OpeningKind.BOOK, NAMES, spec)


def test_names_with_dashes_cannot_collide_in_slots() -> None:
    # With '-' as the pair separator, (a-b, c) and (a, b-c) would share a slot id.
    schedule = make(OpeningKind.PIE, ["a", "a-b", "b-c", "c"], RoundRobinSpec())
    assert len({g.slot for g in schedule}) == len(schedule)


@pytest.mark.parametrize(
    ("names", "spec", "mode", "openings", "message"),
    [
        (["a"], RoundRobinSpec, OpeningKind.PIE, (), "at least two bots"),
        (["a", "a"], RoundRobinSpec, OpeningKind.PIE, (), "distinct names"),
        (["a", "b"], lambda: RoundRobinSpec(games_per_pair=3), OpeningKind.PIE, (), "even"),
        (["a", "b"], RoundRobinSpec, OpeningKind.BOOK, (), "needs at least one opening"),
        (
            ["a", "b"],
            lambda: GauntletSpec(2, 1, ("x",)),
            OpeningKind.PIE,
            (),
            "not among the bots",
        ),
    ],
)
def test_bad_pieces_are_rejected(
    names: list[str],
    spec: Callable[[], FixedSpec],
    mode: OpeningKind,
    openings: tuple[Opening, ...],
    message: str,
) -> None:
    with pytest.raises(ValueError, match=message):  # the spec itself, or the schedule of it
        schedule_games(names, spec(), mode, openings)


def test_build_schedule_from_a_config(tmp_path: Path) -> None:
    data = {
        "time_control": {"per_move": 1},
        "opening": {"random": {"count": 5, "seed": 3}},
        "schedule": {"kind": "gauntlet", "challengers": ["new"], "games_per_pair": 4},
        "bots": [{"name": n, "command": [sys.executable]} for n in ("new", "old1", "old2")],
    }
    config = parse_config(data, file="g.yaml", base_dir=tmp_path)
    schedule = build_schedule(config)
    assert len(schedule) == 8
    assert all("new" in g.pair and g.pair[0] == "new" for g in schedule)
    assert {g.opening for g in schedule} <= set(config.opening.openings)
    assert schedule[0].slot == "r1-new+old1-01"
