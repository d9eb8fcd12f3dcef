"""``seeds: {rating: STANDINGS}`` (issue 25): a knockout or a Swiss seeded by the ratings of
an earlier run, read from its ``standings.json`` (or its folder), with clear errors."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
import runs
import trio

from referee.errors import ConfigError
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent


def bots(names: str, marker: str = "") -> list[dict[str, object]]:
    return [
        {
            "name": n,
            "command": [sys.executable, str(FAKEBOT), "--seed", str(k)],
            "cwd": str(ROOT),
            "env": {"VASTUZ_TEST_MARKER": marker},
        }
        for k, n in enumerate(names)
    ]


def standings(tmp_path: Path, lines: list[dict[str, object]]) -> Path:
    path = tmp_path / "earlier" / "standings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"schema": 2, "bots": lines}))
    return path


def knockout(seeds: object) -> dict[str, object]:
    return {"kind": "knockout", "games_per_match": 2, "seeds": seeds}


def test_seeds_by_rating_order_the_bots_strongest_first_bounds_beyond_and_unrated_last(tmp_path):
    path = standings(
        tmp_path,
        [
            {"name": "a", "elo": 10.0, "elo_bound": None},
            {"name": "b", "elo": None, "elo_bound": "upper"},  # < X: below every estimate
            {"name": "c", "elo": None, "elo_bound": "lower"},  # > X: above every estimate
            {"name": "d", "elo": 250.5, "elo_bound": None},
            {"name": "zz", "elo": 900, "elo_bound": None},  # not in this config
        ],
    )
    for where in (str(path), "earlier"):  # the file, or its folder (relative to the config)
        config = load_config(runs.write_config(tmp_path, bots("abcde"), schedule=knockout({"rating": where})))
        assert config.schedule.seeds == ("c", "d", "a", "b", "e")  # e: unrated, after, in config order
    swiss = {"kind": "swiss", "rounds": 2, "seeds": {"rating": str(path)}}
    assert load_config(runs.write_config(tmp_path, bots("abcde"), schedule=swiss)).schedule.seeds[0] == "c"


@pytest.mark.parametrize(
    ("seeds", "content", "message"),
    [
        ("rating", None, "schedule.seeds: `rating` needs the ratings to seed by: `seeds: {rating: "),
        ({"rating": "nowhere.json"}, None, "schedule.seeds.rating: no such file: "),
        ({"rating": "/dev/zero"}, None, "cannot read /dev/zero: not a regular file, not a standings file"),
        ({"rating": "earlier/standings.json"}, "{not json", "earlier/standings.json: not JSON"),
        ({"rating": "earlier/standings.json"}, '{"bots": 3}', "not a standings.json (no `bots` list"),
        (
            {"rating": "earlier"},
            '{"bots": [{"name": "x", "elo": 1}]}',
            "rates none of this config's bots (a, b, c, d); it rates x",
        ),
        ({"ratings": "earlier"}, None, "schedule.seeds.ratings: unknown key; did you mean 'rating'?"),
        (
            42,
            None,
            "schedule.seeds: expected `config`, a list of the bots' names (strongest first) or `{rating",
        ),
    ],
)
def test_bad_rating_seeds_name_the_key_and_what_was_expected(tmp_path, seeds, content, message):
    if content is not None:
        (tmp_path / "earlier").mkdir()
        (tmp_path / "earlier" / "standings.json").write_text(content)
    with pytest.raises(ConfigError, match=re.escape(message)) as error:
        load_config(runs.write_config(tmp_path, bots("abcd"), schedule=knockout(seeds)))
    assert str(error.value).startswith(str(tmp_path / "c.yaml"))


async def test_a_knockout_seeded_by_an_earlier_real_run(tmp_path, marker):
    field = bots("pqrs", marker)
    field[0]["command"] = [*field[0]["command"], "--fault", "resign"]  # p loses every game: seeded last
    earlier = runs.write_config(
        tmp_path, field, out="league", **runs.FAST, schedule={"kind": "round_robin", "games_per_pair": 2}
    )
    league = load_config(earlier)
    with trio.fail_after(120):
        await Tournament(league, out=io.StringIO(), standings_every=0).run()
    ranked = [b["name"] for b in json.loads((league.output / "standings.json").read_text())["bots"]]
    assert ranked[-1] == "p"
    cup = load_config(
        runs.write_config(tmp_path, field, out="cup", schedule=knockout({"rating": str(league.output)}))
    )
    assert list(cup.schedule.seeds) == ranked
    assert cup.fingerprint()["schedule"]["seeds"] == ranked  # kept: a resume needs no file
