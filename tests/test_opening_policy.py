"""``opening: {book: FILE, order, seed, policy}``: how a book's openings are dealt.

``policy: encounter`` gives every pairing the same openings in the same order (shown on the
schedule and on the records of a real run); ``order: random`` shuffles the book once, by its
seed; a config without the new keys deals exactly as before (same slots, same openings,
same fingerprint keys), so an existing folder resumes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from referee.errors import ConfigError
from referee.tournament.config.loading import load_config
from referee.tournament.plans.fixed import schedule_games
from referee.tournament.store.results import ResultsFile

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"
BOOK = ["a1 d4", "b2 e5", "c3 f6", "d1 a4", "g7 d4"]


def _config(tmp_path: Path, opening: dict[str, object], *, schedule: dict[str, object] | None = None) -> Path:
    book = tmp_path / "book.txt"
    book.write_text("\n".join(BOOK) + "\n")
    data = {
        "name": "policy",
        "board_size": 4,
        "opening": {"book": str(book), **opening},
        "time_control": {"per_move": 1.0, "margin": 0.5},
        "schedule": schedule or {"kind": "round_robin", "games_per_pair": 6},
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "bots": [
            {"name": f"b{i}", "command": [sys.executable, str(FAKEBOT), "--seed", str(i)], "cwd": str(ROOT)}
            for i in range(3)
        ],
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _openings_by_pairing(games: list[tuple[tuple[str, str], str | None]]) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for pairing, opening in games:
        out[tuple(sorted(pairing))].append(opening or "")  # type: ignore[arg-type]
    return dict(out)


def test_encounter_deals_every_pairing_the_same_openings_in_a_real_run(tmp_path: Path) -> None:
    path = _config(tmp_path, {"policy": "encounter"})
    config = load_config(path)
    assert config.fingerprint()["opening"]["policy"] == "encounter"  # type: ignore[index]
    proc = subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(path), "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    records = sorted(ResultsFile(tmp_path / "out" / "results.jsonl").load().records, key=lambda r: r.slot)
    assert len(records) == 18
    by_pairing = _openings_by_pairing(
        [
            ((r.bots[0].label, r.bots[1].label), r.tournament.opening if r.tournament else None)
            for r in records
        ]
    )
    sequences = list(by_pairing.values())
    assert len(sequences) == 3 and all(s == sequences[0] for s in sequences)
    # Each couple (two games, colours reversed) plays one opening: book lines 1, 2, 3.
    assert sequences[0] == [
        "book.txt:1",
        "book.txt:1",
        "book.txt:2",
        "book.txt:2",
        "book.txt:3",
        "book.txt:3",
    ]
    for r in records:  # the game really started from its opening
        line = int(r.tournament.opening.split(":")[1])  # type: ignore[union-attr]
        assert f"{r.setup.black} {r.setup.white}" == BOOK[line - 1]  # type: ignore[union-attr]


def test_round_is_the_default_and_deals_as_before(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, {}))
    games = list(config.make_plan().games(set()))
    spec = config.schedule
    before = schedule_games(config.bot_names, spec, config.opening.kind, config.opening.openings)  # type: ignore[arg-type]
    assert [(g.slot, g.opening) for g in games] == [(g.slot, g.opening) for g in before]
    # The pairings get different openings (one per couple in schedule order)...
    by_pairing = _openings_by_pairing([(g.pair, g.opening.label if g.opening else None) for g in games])
    assert len({tuple(v) for v in by_pairing.values()}) > 1
    # ...and the fingerprint has the keys an earlier version wrote, so its folders resume.
    assert set(config.fingerprint()["opening"]) == {"kind", "openings"}  # type: ignore[arg-type]
    assert set(
        load_config(_config(tmp_path, {"policy": "round", "order": "sequential"})).fingerprint()["opening"]
    ) == {  # type: ignore[arg-type]
        "kind",
        "openings",
    }


def test_an_existing_folder_resumes(tmp_path: Path) -> None:
    path = _config(tmp_path, {}, schedule={"kind": "round_robin", "games_per_pair": 2})
    manifest = tmp_path / "out" / "tournament.json"
    run = [sys.executable, "-m", "referee.cli", "tournament", str(path), "-q"]
    first = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    written = json.loads(manifest.read_text())
    assert set(written["fingerprint"]["opening"]) == {"kind", "openings"}  # as an earlier version wrote it
    again = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert len(ResultsFile(tmp_path / "out" / "results.jsonl").load().records) == 6


def test_random_order_shuffles_the_book_once_by_its_seed(tmp_path: Path) -> None:
    sequential = load_config(_config(tmp_path, {})).opening.openings
    one = load_config(_config(tmp_path, {"order": "random", "seed": 3})).opening.openings
    two = load_config(_config(tmp_path, {"order": "random", "seed": 3})).opening.openings
    other = load_config(_config(tmp_path, {"order": "random", "seed": 4})).opening.openings
    assert one == two and sorted(one, key=lambda o: o.label) == list(sequential)
    assert one != sequential or other != sequential
    fingerprint = load_config(_config(tmp_path, {"order": "random", "seed": 3})).fingerprint()
    assert fingerprint["opening"]["openings"] == [[o.black, o.white, []] for o in one]  # type: ignore[index]


@pytest.mark.parametrize(
    ("opening", "schedule", "key", "message"),
    [
        ({"policy": "pairwise"}, None, "opening.policy", "expected 'round' or 'encounter'"),
        ({"order": "shuffled"}, None, "opening.order", "expected 'sequential' or 'random'"),
        ({"seed": 3}, None, "opening.seed", "goes with order: random"),
        (
            {"policy": "encounter"},
            {"kind": "adaptive", "games": 20},
            "opening.policy",
            "an adaptive schedule plays its pairings unevenly",
        ),
    ],
)
def test_bad_opening_keys(
    tmp_path: Path, opening: dict[str, object], schedule: dict[str, object] | None, key: str, message: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        load_config(_config(tmp_path, opening, schedule=schedule))
    assert key in str(exc.value) and message in str(exc.value)


def test_order_goes_with_a_book_only(tmp_path: Path) -> None:
    path = _config(tmp_path, {})
    data = yaml.safe_load(path.read_text())
    data["opening"] = {"random": {"count": 4}, "order": "random"}
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"opening\.order.*goes with book"):
        load_config(path)
