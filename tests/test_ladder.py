"""The ladder's parts without a ladder process: its config's errors (exit 2, file and key
named), the store (a game counted once, a v1 file migrated to the current schema with its
records intact), the pairing (seeded, neighbours by rating), bot identities (a changed
program refused, or a new entry), the rating list (anchor fixed, provisional marks)."""

from __future__ import annotations

import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio
import yaml

from referee.errors import ConfigError, ResultsError
from referee.ladder.config import PairingSpec, load_ladder
from referee.ladder.entries import apply, decide
from referee.ladder.identity import Identity, fingerprint
from referee.ladder.loop import Ladder
from referee.ladder.pairing import information_scores, pair_round, round_games
from referee.ladder.ratings import pairing_ratings, rating_list
from referee.ladder.store import SCHEMA_V1, SCHEMA_VERSION, LadderStore, Result
from referee.play.records import GameRecord
from referee.play.spec import Opening, OpeningKind

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def ladder_config(tmp_path: Path, n: int = 4, **overrides: object) -> Path:
    data: dict[str, object] = {
        "name": "t",
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "concurrency": 2,
        "min_games": 4,
        "anchors": [{"bot": "b0", "rating": 0}],
        "bots": [
            {"name": f"b{i}", "command": [sys.executable, str(FAKEBOT), "--seed", str(i)]} for i in range(n)
        ],
    }
    data.update(overrides)
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


# ------------------------------------------------------------------------------ config


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"games_per_pairing": 3}, "games_per_pairing", "expected an even number"),
        ({"anchors": [{"bot": "nobody"}]}, "anchors[0].bot", "no bot is named 'nobody'"),
        ({"anchors": [{"bot": "b0"}, {"bot": "b1"}]}, "anchors", "expected one anchor"),
        ({"pairng": {}}, "pairng", "did you mean 'pairing'"),
        ({"pairing": {"noise": -1}}, "pairing.noise", "expected Elo from 0 to 2000"),
        ({"pairing": {"kind": "information", "seed": 3}}, "pairing.seed", "goes with kind: rating-noise"),
        ({"pairing": {"kind": "swiss"}}, "pairing.kind", "expected 'rating-noise' or 'information'"),
        ({"min_games": 0}, "min_games", "expected an integer >= 1"),
        ({"keep_logs": -1}, "keep_logs", "expected an integer >= 0"),
        ({"on_change": "maybe"}, "on_change", "expected 'refuse' or 'new-entry'"),
        ({"board_size": 99}, "board_size", "expected an integer from"),
        ({"schedule": {"kind": "swiss"}}, "schedule", "unknown key"),
    ],
)
def test_a_bad_config_names_its_file_and_key(
    tmp_path: Path, change: dict[str, object], key: str, words: str
) -> None:
    path = ladder_config(tmp_path, **change)
    with pytest.raises(ConfigError) as caught:
        load_ladder(path)
    assert caught.value.key == key and words in caught.value.detail, str(caught.value)
    assert caught.value.file == str(path)


def test_a_bot_keys_errors_name_the_ladder_file(tmp_path: Path) -> None:
    path = ladder_config(tmp_path)
    data = yaml.safe_load(path.read_text())
    data["bots"][1]["command"] = "./no-such-bot"
    data["bots"][2]["program"] = "missing-folder"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"t\.yaml: bots\[1\]\.command: .*no-such-bot"):
        load_ladder(path)
    data["bots"][1]["command"] = [sys.executable, str(FAKEBOT)]
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"bots\[2\]\.program: no such file or folder"):
        load_ladder(path)


def test_the_cli_exits_2_on_a_bad_config(tmp_path: Path) -> None:
    path = ladder_config(tmp_path, games_per_pairing=3)
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "ladder", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert f"{path}: games_per_pairing: expected an even number" in proc.stderr


def test_bots_from_a_bots_file_and_their_ladder_keys(tmp_path: Path) -> None:
    (tmp_path / "bots.yaml").write_text(
        yaml.safe_dump({"bots": [{"name": "x", "command": [sys.executable, str(FAKEBOT)]}]})
    )
    path = ladder_config(tmp_path, bots_file="bots.yaml", on_change="new-entry")
    data = yaml.safe_load(path.read_text())
    data["bots"][1] = {"use": "x", "name": "b1", "program": str(FAKEBOT), "on_change": "refuse"}
    path.write_text(yaml.safe_dump(data))
    config = load_ladder(path)
    assert config.bot("b1").program == FAKEBOT and config.bot("b1").on_change.value == "refuse"
    assert config.bot("b0").on_change.value == "new-entry"
    assert config.games.bot("b1").command == (sys.executable, str(FAKEBOT))
    assert config.min_games == 4 and config.games_per_pairing == 2
    assert config.store == tmp_path / "results" / "t" / "ladder.sqlite"


# ------------------------------------------------------------------------------ pairing


def test_pairing_is_seeded_and_pairs_neighbours_without_noise() -> None:
    ratings = {"a": 300.0, "b": 290.0, "c": 0.0, "d": -10.0, "e": 5.0}
    games = {"a": 4, "b": 4, "c": 4, "d": 6, "e": 4}
    quiet = pair_round(3, ratings, games, PairingSpec(noise=0))
    assert quiet.out == ("d",)  # the most games sits out
    assert quiet.pairs == (("a", "b"), ("e", "c"))
    noisy = PairingSpec(noise=400, seed=7)
    assert pair_round(3, ratings, games, noisy) == pair_round(3, ratings, games, noisy)
    rounds = {pair_round(n, ratings, games, noisy).pairs for n in range(1, 30)}
    assert len(rounds) > 1  # the noise mixes the list


def test_information_pairing_spends_the_round_where_the_order_is_unsettled() -> None:
    information = PairingSpec(kind="information")
    ratings = {"a": 0.0, "b": 5.0, "c": 800.0, "d": 805.0}
    # a-c and b-d are settled (800 Elo, 40 games each); a-b and c-d never met.
    tallies = [("c", "a", 39.5, 40), ("d", "b", 39.5, 40)]
    games = dict.fromkeys(ratings, 40)
    round_ = pair_round(1, ratings, games, information, tallies=tallies)
    assert set(round_.pairs) == {("a", "b"), ("c", "d")} and round_.out == ()
    assert pair_round(1, ratings, games, information, tallies=tallies) == round_  # no randomness
    # Four equal bots: a-b and c-d have met 200 times each, the two halves never: the
    # round links the halves.
    level = dict.fromkeys("abcd", 0.0)
    often = [("a", "b", 100.0, 200), ("c", "d", 100.0, 200)]
    linked = pair_round(2, level, dict.fromkeys("abcd", 200), information, tallies=often)
    assert {frozenset(p) for p in linked.pairs} & {frozenset("ab"), frozenset("cd")} == set()


def test_information_pairing_gives_a_newcomer_its_nearest_rivals_first() -> None:
    scores = information_scores(
        {"new": 0.0, "near": 30.0, "far": 900.0, "x": -900.0},
        [("near", "far", 2.0, 40), ("far", "x", 39.0, 40), ("near", "x", 39.0, 40)],
        2,
    )
    # The newcomer's pairing with the bot at its estimate scores above one 900 Elo away.
    assert scores[("near", "new")] > scores[("far", "new")] > 0
    assert scores[("near", "new")] > scores[("new", "x")]
    assert all(v >= 0 for v in scores.values())


def test_information_pairing_config(tmp_path: Path) -> None:
    path = ladder_config(tmp_path, pairing={"kind": "information"})
    assert load_ladder(path).pairing.kind == "information"


def test_round_games_are_colour_reversed_pairs_with_their_openings() -> None:
    pairings = pair_round(2, {"a": 1.0, "b": 0.0}, {}, PairingSpec(noise=0))
    games = round_games(pairings, 4, OpeningKind.PIE, (), index=10)
    assert [g.slot for g in games] == ["r2-a+b-01", "r2-a+b-02", "r2-a+b-03", "r2-a+b-04"]
    assert [(g.first, g.second) for g in games] == [("a", "b"), ("b", "a")] * 2
    assert [g.pair_key for g in games] == ["r2-a+b-p1", "r2-a+b-p1", "r2-a+b-p2", "r2-a+b-p2"]
    assert [g.index for g in games] == [10, 11, 12, 13]
    openings = (Opening("a1", "b2", (), "o1"), Opening("c3", "a2", (), "o2"), Opening("b1", "c1", (), "o3"))
    dealt = round_games(pairings, 4, OpeningKind.RANDOM, openings, index=2)
    assert [g.opening.label for g in dealt if g.opening is not None] == ["o2", "o2", "o3", "o3"]


# ------------------------------------------------------------------------------ ratings


def test_the_anchor_stays_fixed_and_provisional_marks_clear_at_the_minimum() -> None:
    results = [Result("a", "b", 0, None), Result("b", "a", 1, None), Result("a", "c", None, None)]
    lines = {
        line.label: line for line in rating_list(results, ["a", "b", "c"], anchor=("c", 1500.0), min_games=3)
    }
    assert lines["c"].elo == 1500.0 and lines["c"].anchor and not lines["c"].provisional
    assert not lines["a"].provisional  # 3 games
    assert lines["b"].provisional and lines["b"].shown().endswith("?")
    more = [*results, Result("b", "c", 0, None)]
    lines = {
        line.label: line for line in rating_list(more, ["a", "b", "c"], anchor=("c", 1500.0), min_games=3)
    }
    assert lines["c"].elo == 1500.0 and not lines["b"].provisional and not lines["b"].shown().endswith("?")


def test_the_pairing_estimate_is_finite_and_near_the_rating_list() -> None:
    results = [Result("a", "b", 0 if k % 3 else 1, None) for k in range(300)]
    results += [Result("b", "c", 0 if k % 4 else 1, None) for k in range(300)]
    tallies: dict[tuple[str, str], list[float]] = {}
    for r in results:
        t = tallies.setdefault((r.a, r.b), [0.0, 0])
        t[0] += 1.0 if r.winner == 0 else 0.0
        t[1] += 1
    rows = [(a, b, s, int(n)) for (a, b), (s, n) in tallies.items()]
    quick = pairing_ratings(rows, ["a", "b", "c", "new"], anchor=("c", 100.0), prior=100.0)
    exact = {
        line.label: line.elo
        for line in rating_list(results, ["a", "b", "c"], anchor=("c", 100.0), min_games=1)
    }
    assert quick["c"] == 100.0
    for name in "ab":
        assert abs(quick[name] - exact[name]) < 10  # the virtual draws pull a little
    assert quick["a"] > quick["new"] > quick["c"]  # no games: the field's middle
    swept = pairing_ratings([("a", "b", 10.0, 10)], ["a", "b"], anchor=None, prior=0.0)
    assert swept["a"] > swept["b"] and all(abs(v) < 1000 for v in swept.values())


# ------------------------------------------------------------------------------ identity


def test_a_changed_program_is_refused_or_a_new_entry(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(FAKEBOT.read_text())
    path = ladder_config(tmp_path, n=2)
    data = yaml.safe_load(path.read_text())
    data["bots"][1]["command"] = [sys.executable, str(bot)]
    path.write_text(yaml.safe_dump(data))
    config = load_ladder(path)
    before = fingerprint(config.games.bot("b1"), None)
    assert before == fingerprint(config.games.bot("b1"), None)
    with LadderStore(tmp_path / "s.sqlite") as store:
        ids = {
            b.name: Identity(fingerprint(config.games.bot(b.name), None), "fake", "1") for b in config.bots
        }
        apply(store, config, decide(config, store.entries(), ids), ids)
        bot.write_text(bot.read_text() + "\n# stronger now\n")
        changed = {**ids, "b1": Identity(fingerprint(config.games.bot("b1"), None), "fake", "1")}
        assert changed["b1"] != ids["b1"] and changed["b0"] == ids["b0"]
        with pytest.raises(ResultsError, match=r"bot b1: its program.s fingerprint .* since entry b1"):
            decide(config, store.entries(), changed)
        version = {**ids, "b0": Identity(ids["b0"].fingerprint, "fake", "2")}
        with pytest.raises(ResultsError, match="bot b0: its answer to 'version' \\('1' -> '2'\\)"):
            decide(config, store.entries(), version)
        data["on_change"] = "new-entry"
        path.write_text(yaml.safe_dump(data))
        actions = decide(load_ladder(path), store.entries(), changed)
        assert [(a.name, a.label, a.retire is not None) for a in actions] == [
            ("b0", "b0", False),
            ("b1", "b1.v2", True),
        ]


def test_a_declared_program_folder_is_fingerprinted_whole(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "main.py").write_text("print(1)\n")
    path = ladder_config(tmp_path, n=2)
    bot = load_ladder(path).games.bot("b0")
    first = fingerprint(bot, folder)
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    assert fingerprint(bot, folder) == first  # caches do not count
    (folder / "weights.txt").write_text("0.5\n")
    assert fingerprint(bot, folder) != first


# ------------------------------------------------------------------------------ store


async def play_rounds(path: Path, rounds: int) -> str:
    out = io.StringIO()
    with trio.fail_after(120):
        await Ladder(load_ladder(path), out=out, rounds=rounds).run()
    return out.getvalue()


async def test_a_v1_store_is_migrated_with_its_records(tmp_path: Path) -> None:
    path = ladder_config(tmp_path)
    await play_rounds(path, 1)
    config = load_ladder(path)
    with LadderStore(config.store) as store:
        records = list(store.records())
        entries = store.entries()
        results = store.results()
        assert store.version() == SCHEMA_VERSION == 3
    assert len(records) == 4
    # The same ladder as a file of schema version 1 (records as text, no rating columns).
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript(SCHEMA_V1)
    db.executemany(
        "INSERT INTO entries VALUES (?,?,?,?,?,?,?,?,?)",
        [tuple(vars(e).values())[:9] for e in entries],  # version 1's columns: no remote, no token
    )
    db.execute("INSERT INTO rounds VALUES (1, 'then', 'then')")
    for k, text in enumerate(records):
        r = GameRecord.from_json(text)
        assert r.tournament is not None
        db.execute(
            "INSERT INTO slots VALUES (?,?,?,?,?,?,?,?,?,?)",
            (r.slot, 1, k, "x+y", k, r.labels[0], r.labels[1], r.pair_key, None, "done"),
        )
        db.execute("INSERT INTO games VALUES (?, ?)", (r.slot, text))
    db.commit()
    db.close()
    with LadderStore(old) as store:
        assert store.migrated_from == 1 and store.version() == SCHEMA_VERSION
        assert list(store.records()) == records
        assert store.results() == results
        assert store.entries() == entries
    with LadderStore(old) as store:  # opened again: nothing to migrate
        assert store.migrated_from == SCHEMA_VERSION


async def test_a_game_is_counted_once(tmp_path: Path) -> None:
    path = ladder_config(tmp_path)
    await play_rounds(path, 1)
    config = load_ladder(path)
    with LadderStore(config.store) as store:
        first = GameRecord.from_json(next(store.records()))
        assert store.commit(first) is False  # its slot has its result
        assert len(store.slot_keys()) == len(set(store.slot_keys())) == 4


def test_a_newer_schema_or_another_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    LadderStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE schema_version SET version = 99")
    db.commit()
    db.close()
    with pytest.raises(ResultsError, match="schema version 99, newer"):
        LadderStore(path)
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE x (y)")
    db.commit()
    db.close()
    with pytest.raises(ResultsError, match="not a ladder store"):
        LadderStore(other)


def test_the_example_ladder_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its bots run `python`: make it the interpreter running the tests.
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    examples = sorted((ROOT / "configs" / "ladders").glob("*.yaml"))
    assert examples
    for path in examples:
        config = load_ladder(path)
        assert config.name == path.stem and config.anchors and all(b.program is not None for b in config.bots)
