"""``vastuz serve`` showing ladders, over loopback HTTP: a real ladder made by the test
(``vastuz ladder --rounds N`` with real bot processes), its rating list exactly as ``vastuz
ladder status`` computes it (``?`` while provisional), a bot's history and games with
their replays, 404s and 400s, the store never written, an older store (schema v2, no
``presence``), a remote entry's presence, labels escaped, and a running ladder's live
games (``vastuz ladder --serve`` in its own process, ``--live`` followed by another
server, the stamp's long poll). No mocks: real processes, real stores."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from processes import processes_with, wait_until_gone
from serving import ROOT, Served, serving, until

from referee.ladder.config import load_ladder
from referee.ladder.ratings import rating_list
from referee.ladder.reading import LadderModel, StoreReader, read_view
from referee.ladder.status import status_lines
from referee.ladder.store import SCHEMA_V1, LadderStore, Result
from referee.serve.ladder_pages import rating_chart

pytest.importorskip("hypercorn", reason="vastuz serve needs its extra: pip install -e '.[serve]'")
pytest.importorskip("starlette", reason="vastuz serve needs its extra: pip install -e '.[serve]'")

FAKEBOT = ROOT / "tests" / "fake_bots" / "fakebot.py"


def write_ladder(
    base: Path, name: str, marker: str, *, delay: float = 0.0, min_games: int = 10, **extra: object
) -> Path:
    """A ladder of 4 fake bots (board 3, the anchor b0 at +100) writing ``base/ladders/NAME``;
    ``delay``: each genmove waits that long (games stay in progress a while)."""
    bots = []
    for i in range(4):
        argv = [sys.executable, str(FAKEBOT), "--seed", str(i)]
        if delay:
            argv += ["--fault", "slow", "--delay", str(delay)]
        else:
            # Each game replays from the seats' seeds, whichever process plays it: the same
            # results every run (a random run left b1 at times with only a bound to chart).
            argv += ["--fault", "replay"]
        bots.append(
            {"name": f"b{i}", "command": argv, "cwd": str(ROOT), "env": {"VASTUZ_TEST_MARKER": marker}}
        )
    data = {
        "name": name,
        "board_size": 3,
        "opening": "pie",
        "time_control": {"per_move": 2.0, "margin": 0.5},
        "concurrency": 2,
        "min_games": min_games,
        "anchors": [{"bot": "b0", "rating": 100}],
        "pairing": {"noise": 50, "seed": 3},
        "output": str(base / "ladders" / name),
        "bots": bots,
        **extra,
    }
    path = base / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run_ladder(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "ladder", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


@contextmanager
def ladder_process(*args: str) -> Iterator[subprocess.Popen[str]]:
    """``vastuz ladder ARGS`` running until the block ends (then SIGTERM, as a person stops it)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "ladder", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            _, errors = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, errors = proc.communicate()
        assert "Traceback" not in errors, errors[-3000:]


def played(base: Path, name: str, rounds: int, **kw: Any) -> Path:
    """``base/ladders/NAME`` after ``rounds`` rounds of a real ladder; its config beside."""
    marker = uuid.uuid4().hex
    try:
        proc = run_ladder(str(write_ladder(base, name, marker, **kw)), "--rounds", str(rounds), "-q")
        assert proc.returncode == 0, proc.stderr
        assert not wait_until_gone(marker)
    finally:
        for pid in processes_with(marker):
            subprocess.run(["kill", "-9", str(pid)], check=False)
    return base / "ladders" / name


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("serve-ladder")
    played(folder, "lad", 4)
    return folder


@pytest.fixture(scope="module")
def served(base: Path) -> Iterator[Served]:
    with serving(str(base / "ladders"), cwd=base) as server:
        yield server


def test_the_rating_list_is_the_status_one_and_the_store_is_not_written(base: Path) -> None:
    store = base / "ladders" / "lad" / "ladder.sqlite"
    before = digest(store)
    with serving(str(base / "ladders"), cwd=base) as server:
        status, ladders = server.get("/api/ladders")
        assert status == 200 and [(x["ladder"], x["games"], x["rounds"]) for x in ladders] == [("lad", 16, 4)]
        status, data = server.get("/api/ladders/lad")
        assert status == 200, data
        status, page = server.get("/ladders/lad/")
        assert status == 200 and 'id="ratings"' in page
        status, index = server.get("/")
        assert status == 200 and 'href="/ladders/lad/"' in index
    assert digest(store) == before  # read-only: never migrated, never written
    config = load_ladder(base / "lad.yaml", check_programs=False)
    with LadderStore(config.store) as s:
        lines, _ = status_lines(config, s)
    assert [b["label"] for b in data["bots"]] == [line.label for line in lines]
    for row, line in zip(data["bots"], lines, strict=True):
        assert row["rating"] == line.shown()  # +123? while provisional, as vastuz ladder status
        assert (row["games"], row["wins"], row["draws"], row["losses"]) == (
            line.games, line.wins, line.draws, line.losses,
        )  # fmt: skip
        assert row["provisional"] == line.provisional and row["anchor"] == line.anchor
        assert row["remote"] is False and row["connected"] is None  # local bots
        assert row["state"] == ("anchor" if line.anchor else "active")
        assert row["last_game"] and row["version"] == "fakebot-replay 1.0"
        assert f'<td class="rating">{escape(line.shown())}</td>' in page
    anchor = next(b for b in data["bots"] if b["anchor"])
    assert anchor["label"] == "b0" and anchor["rating"] == "+100" and anchor["interval"] == "anchor"
    others = [b for b in data["bots"] if not b["anchor"]]
    assert all(b["games"] == 8 and b["provisional"] and b["rating"].endswith("?") for b in others)
    assert data["games"] == 16 and data["rounds"] == 4 and data["min_games"] == 10
    assert data["config_known"] and data["anchor"] == {"label": "b0", "rating": 100.0}
    assert data["running"] is False and data["live"] == [] and data["as_of_game"] == 16


def test_a_bots_history_games_and_replays(served: Served, base: Path) -> None:
    status, data = served.get("/api/ladders/lad/bots/b1")
    assert status == 200, data
    line = data["line"]
    history = data["history"]
    assert history and [p["round"] for p in history] == sorted({p["round"] for p in history})
    # After round 1, b1 had beaten b0 twice and b2, b3 had not met either: its rating was
    # only a lower bound, so that round has no point; from round 2 (a draw with b3) it has.
    assert [p["round"] for p in history] == [2, 3, 4]
    assert history[-1]["round"] == 4 and history[-1]["games"] == 16
    assert abs(history[-1]["elo"] - line["elo"]) < 0.11  # the last point is the list's estimate
    assert all(p["provisional"] for p in history)  # 8 games < 10
    games = data["games"]
    assert len(games) == line["games"] == 8 and data["next_before"] is None
    assert [g["seq"] for g in games] == sorted((g["seq"] for g in games), reverse=True)  # newest first
    with StoreReader(base / "ladders" / "lad" / "ladder.sqlite") as reader:
        for g in games:
            record = reader.record(g["slot"])
            assert record is not None and "b1" in record.labels
            status, got = served.get(f"/api/ladders/lad/games/{quote(g['slot'])}")
            assert status == 200 and got == record.to_dict()
            seat = record.labels.index("b1")
            assert g["seat"] == seat and g["opponent"] == record.labels[1 - seat]
            assert g["result"] == (
                "draw" if record.winner is None else "win" if record.winner == seat else "loss"
            )
    status, page = served.get("/ladders/lad/bots/b1")
    assert status == 200 and '<svg id="rating-chart"' in page and 'class="provisional"' in page
    assert f'href="/ladders/lad/games/{quote(games[0]["slot"], safe="")}"' in page
    status, replay = served.get(f"/ladders/lad/games/{quote(games[0]['slot'])}")
    assert status == 200 and 'id="vastuz-data"' in replay and games[0]["slot"] in replay
    status, anchor = served.get("/api/ladders/lad/bots/b0")
    assert status == 200 and {p["elo"] for p in anchor["history"]} == {100.0}
    assert not any(p["provisional"] for p in anchor["history"])  # the anchor is never provisional


def test_a_bots_games_are_paged_newest_first(base: Path) -> None:
    with StoreReader(base / "ladders" / "lad" / "ladder.sqlite") as reader:
        every = reader.bot_games("b2", before=None, limit=100)
        pages, before = [], None
        while True:
            page = reader.bot_games("b2", before=before, limit=3)
            if not page:
                break
            pages.append(page)
            before = page[-1].seq
    assert len(every) == 8 and [len(p) for p in pages] == [3, 3, 2]
    assert [g for p in pages for g in p] == every


def test_unknown_and_bad_paths(served: Served) -> None:
    for path in (
        "/api/ladders/nope", "/ladders/nope/", "/api/ladders/lad/bots/nope", "/ladders/lad/bots/nope",
        "/api/ladders/lad/games/nope", "/ladders/lad/games/r1-b0+b1-09", "/api/ladders/lad/bots/" + "x" * 400,
    ):  # fmt: skip
        status, answer = served.get(path)
        assert status == 404 and "error" in answer, (path, answer)
    for query in ("abc", "-1", "1" * 30):
        status, answer = served.get(f"/api/ladders/lad/bots/b1?before={query}")
        assert status == 400 and "before" in answer["error"]
    status, answer = served.get("/api/ladders/lad/bots/b1?before=3")
    assert status == 200 and all(g["seq"] < 3 for g in answer["games"])


def _copy(folder: Path, to: Path, *, view: bool) -> Path:
    to.mkdir(parents=True)
    shutil.copy(folder / "ladder.sqlite", to / "ladder.sqlite")
    if view:
        shutil.copy(folder / "ladder.json", to / "ladder.json")
    return to


def test_an_older_store_a_remote_entry_escaping_and_a_broken_store(base: Path, tmp_path: Path) -> None:
    source = base / "ladders" / "lad"
    old = _copy(source, tmp_path / "stores" / "old", view=False)
    db = sqlite3.connect(old / "ladder.sqlite")
    with db:  # schema v2: no presence, no remote entries (what the store was before)
        db.execute("DROP TABLE IF EXISTS presence")
        columns = {r[1] for r in db.execute("PRAGMA table_info(entries)")}
        for column in ("remote", "token_hash"):
            if column in columns:
                db.execute(f"ALTER TABLE entries DROP COLUMN {column}")
        db.execute("UPDATE schema_version SET version = 2")
    db.close()
    remote = _copy(source, tmp_path / "stores" / "remote", view=True)
    db = sqlite3.connect(remote / "ladder.sqlite")
    with db:
        columns = {r[1] for r in db.execute("PRAGMA table_info(entries)")}
        if "remote" not in columns:
            db.execute("ALTER TABLE entries ADD COLUMN remote INTEGER NOT NULL DEFAULT 0")
        db.execute("CREATE TABLE IF NOT EXISTS presence (label TEXT PRIMARY KEY, connected INTEGER NOT NULL, "
                   "since TEXT, last_seen TEXT)")  # fmt: skip
        db.execute(
            "INSERT INTO entries (label, name, fingerprint, command, registered, remote) "
            "VALUES ('<i>evil</i>', '<i>evil</i>', '', '', '2026-01-01T00:00:00+00:00', 1)"
        )
        db.execute("INSERT INTO presence VALUES ('<i>evil</i>', 1, '2026-01-01T00:00:00+00:00', "
                   "'2026-01-02T03:04:05+00:00')")  # fmt: skip
    db.close()
    db = sqlite3.connect(remote / "ladder.sqlite")
    with db:  # b3 replaced by a new program: its entry retired, its games kept
        db.execute("UPDATE entries SET retired = '2026-01-03T00:00:00+00:00' WHERE label = 'b3'")
    db.close()
    broken = tmp_path / "stores" / "broken"
    broken.mkdir()
    (broken / "ladder.sqlite").write_bytes(b"not an sqlite file at all" * 100)
    first = tmp_path / "stores" / "first"
    first.mkdir()
    db = sqlite3.connect(first / "ladder.sqlite")
    db.executescript(SCHEMA_V1)  # a store of the first schema: records as text, no seq
    db.close()
    digests = {p: digest(p / "ladder.sqlite") for p in (old, remote)}
    with serving(str(tmp_path / "stores"), cwd=tmp_path) as server:
        status, ladders = server.get("/api/ladders")
        assert status == 200 and {x["ladder"] for x in ladders} == {"old", "remote", "broken", "first"}
        assert "error" in next(x for x in ladders if x["ladder"] == "broken")
        status, answer = server.get("/api/ladders/broken")
        assert status == 500 and "ladder store" in answer["error"]
        status, answer = server.get("/api/ladders/first")
        assert status == 500 and "schema version 1: run the ladder once" in answer["error"]
        status, data = server.get("/api/ladders/old")
        assert status == 200 and [b["games"] for b in data["bots"]] == [8, 8, 8, 8]
        assert not data["config_known"] and data["anchor"] is None  # no ladder.json: the defaults
        assert all(b["connected"] is None and b["state"] == "active" for b in data["bots"])
        status, page = server.get("/ladders/old/")
        assert status == 200 and 'id="no-config"' in page
        status, data = server.get("/api/ladders/remote")
        evil = next(b for b in data["bots"] if b["label"] == "<i>evil</i>")
        assert evil["rating"] == "?" and evil["games"] == 0 and evil["remote"] and evil["connected"] is True
        assert evil["last_seen"] == "2026-01-02T03:04:05+00:00" and evil["state"] == "active"
        assert next(b for b in data["bots"] if b["label"] == "b3")["state"] == "retired"
        status, page = server.get("/ladders/remote/")
        assert "&lt;i&gt;evil&lt;/i&gt;" in page and "<i>evil" not in page
        assert 'href="/ladders/remote/bots/%3Ci%3Eevil%3C%2Fi%3E"' in page
        assert ">connected<" in page and ">local<" in page
        status, page = server.get("/ladders/remote/bots/%3Ci%3Eevil%3C%2Fi%3E")
        assert status == 200 and 'id="no-history"' in page and "<i>evil" not in page
    assert {p: digest(p / "ladder.sqlite") for p in (old, remote)} == digests


def test_a_ladder_served_while_it_runs_shows_its_live_games(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    config = write_ladder(tmp_path, "going", marker, delay=0.25)
    try:
        with ladder_process(str(config), "--rounds", "2", "--serve", "127.0.0.1:0") as proc:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("serving on "), line
            server = Served(line.split()[2].rstrip(","), proc)

            def live() -> list[dict[str, Any]]:
                status, games = server.get("/api/live")
                return [g for g in games if g["run"] == "going"] if status == 200 else []

            games = until(live, "a game of the ladder in progress", 120)
            assert games[0]["game_id"].startswith("r1-")
            status, data = server.get("/api/ladders/going")
            assert status == 200 and data["running"] is True
            status, page = server.get("/ladders/going/")
            assert status == 200 and 'id="live-games"' in page
            until(lambda: server.get("/api/ladders/going")[1]["live"], "the ladder page's live games", 60)
            until(lambda: server.get("/api/ladders/going")[1]["games"] >= 1, "a game counted", 120)
            proc.wait(timeout=240)  # two rounds, then the ladder (and its server) stop
            assert proc.returncode == 0
    finally:
        assert not wait_until_gone(marker, 30)


def test_a_live_ladder_followed_by_another_server_and_the_stamps_long_poll(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    config = write_ladder(tmp_path, "followed", marker, delay=0.25)
    (tmp_path / "ladders").mkdir()
    try:
        with (
            serving(str(tmp_path / "ladders"), cwd=tmp_path) as server,
            ladder_process(str(config), "--rounds", "1", "--live"),
        ):
            folder = tmp_path / "ladders" / "followed"
            until(lambda: (folder / "live.json").exists(), "the live file", 120)

            def live() -> list[dict[str, Any]]:
                status, games = server.get("/api/live")
                return [g for g in games if g["run"] == "followed"] if status == 200 else []

            until(live, "the ladder's game, read from its live file", 120)
            status, stamp = server.get("/api/ladders/followed/stamp")
            assert status == 200 and stamp["running"] is True
            for _ in range(10):  # each waits up to 20 s for the next game or game started
                status, later = server.get(f"/api/ladders/followed/stamp?after={quote(stamp['stamp'])}")
                assert status == 200
                if later["stamp"] != stamp["stamp"]:
                    break
            assert later["stamp"] != stamp["stamp"]
            until(lambda: server.get("/api/ladders/followed")[1]["games"] == 4, "the round", 180)
    finally:
        assert not wait_until_gone(marker, 30)


def test_serve_and_live_go_with_running_the_ladder(base: Path) -> None:
    proc = run_ladder("status", str(base / "lad.yaml"), "--live")
    assert proc.returncode == 2 and "--serve and --live go with running the ladder" in proc.stderr
    proc = run_ladder(str(base / "lad.yaml"), "--serve", "0.0.0.0:0")
    assert proc.returncode == 2 and "--serve" in proc.stderr and "Traceback" not in proc.stderr


def test_the_chart_draws_provisional_then_established_and_escapes(tmp_path: Path) -> None:
    points = [
        {"round": r, "games": 4 * r, "elo": 10.0 * r, "bot_games": 2 * r, "provisional": r < 3}
        for r in range(1, 6)
    ]
    svg = rating_chart(points, label="<b>x</b>")
    dashed = re.search(r'class="provisional"[^>]*points="([^"]+)"', svg)
    solid = re.search(r'class="established"[^>]*points="([^"]+)"', svg)
    assert dashed is not None and solid is not None
    assert len(dashed.group(1).split()) == 3  # rounds 1, 2 and the first established one, joined
    assert len(solid.group(1).split()) == 3  # rounds 3, 4, 5
    assert "<b>x</b>" not in svg and "&lt;b&gt;x&lt;/b&gt;" in svg
    assert ">round</text>" in svg and ">Elo</text>" in svg
    one = rating_chart(points[:1], label="a")  # a single point: still a chart, no error
    assert '<svg id="rating-chart"' in one and 'class="established"' not in one
    assert 'id="no-history"' in rating_chart([], label="a")


def test_the_model_counts_only_new_games_and_keeps_the_list_exact(base: Path, tmp_path: Path) -> None:
    """A store copied round by round: each update adds the new games to the kept model, and
    its rating list is rating_list's over every game so far, exactly."""
    source = base / "ladders" / "lad" / "ladder.sqlite"
    folder = tmp_path / "growing"
    folder.mkdir()
    shutil.copy(source.parent / "ladder.json", folder / "ladder.json")
    model = LadderModel()
    view = read_view(folder)
    for upto in (1, 2, 4):
        db = sqlite3.connect(source)
        target = sqlite3.connect(folder / "ladder.sqlite")
        with target:
            db.backup(target)
            target.execute("DELETE FROM records WHERE seq IN (SELECT g.seq FROM games g JOIN slots s "
                           "ON s.slot = g.slot WHERE s.round > ?)", (upto,))  # fmt: skip
            target.execute(
                "DELETE FROM games WHERE slot IN (SELECT slot FROM slots WHERE round > ?)", (upto,)
            )
        db.close()
        target.close()
        seen = model.seq
        snapshot = model.update(folder, view)
        assert snapshot.seq == 4 * upto and seen < snapshot.seq  # only the new games were read
        with StoreReader(folder / "ladder.sqlite") as reader:
            results = [Result(r.a, r.b, r.winner, r.pair_key) for r in reader.games_after(0, 1000)]
            labels = [e.label for e in reader.entries()]
        assert snapshot.lines == rating_list(results, labels, anchor=("b0", 100.0), min_games=10)
        assert [p.round for p in model.history()] == list(range(1, upto + 1))


def test_a_remote_bot_shown_connected_then_not(tmp_path: Path) -> None:
    """A real remote bot (``vastuz connect``) on a ladder served while it runs: its row says
    connected while its client is, then not connected with its last seen."""
    marker = uuid.uuid4().hex
    config = write_ladder(tmp_path, "far", marker, delay=0.05, remote={"listen": "127.0.0.1:0"})
    added = run_ladder("add-bot", str(config), "r1", timeout=60)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    try:
        with ladder_process(str(config), "--serve", "127.0.0.1:0") as proc:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("serving on "), line
            server = Served(line.split()[2].rstrip(","), proc)
            remote = tmp_path / "ladders" / "far" / "remote.json"
            until(remote.exists, "the ladder's remote.json", 60)
            client = subprocess.Popen(
                [sys.executable, "-m", "referee.cli", "connect", json.loads(remote.read_text())["url"],
                 "--name", "r1", "--program", str(FAKEBOT), "--once", "--", sys.executable, str(FAKEBOT),
                 "--seed", "9"],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "VASTUZ_TOKEN": token, "VASTUZ_TEST_MARKER": marker},
            )  # fmt: skip
            try:

                def row() -> dict[str, Any]:
                    status, data = server.get("/api/ladders/far")
                    assert status == 200, data
                    return next(b for b in data["bots"] if b["label"] == "r1")

                until(lambda: row()["connected"] is True, "r1 connected", 90)
                assert row()["remote"] is True and row()["state"] == "active"
                status, page = server.get("/ladders/far/")
                assert status == 200 and '<td class="connected">connected</td>' in page
                client.send_signal(signal.SIGTERM)  # it closes its connection and reaps its bot
                client.communicate(timeout=60)
                until(lambda: row()["connected"] is False, "r1 not connected", 90)
                assert row()["last_seen"]
                status, page = server.get("/ladders/far/")
                assert '<td class="connected">not connected</td>' in page
            finally:
                if client.poll() is None:
                    client.kill()
                client.communicate()
    finally:
        assert not wait_until_gone(marker, 30)
