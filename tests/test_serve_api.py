"""``vastuz serve`` as a real process, over loopback HTTP: the runs, their standings and
records, a person's whole game against the random bot (an illegal turn refused with the
engine's reason, nothing changed), a bot crash, a resignation, a page that went away (the
person's clock runs out), the live feed, and every guard (sizes, clients, games, origin,
host, token). No mocks: the bots are real processes, the records real files."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import (
    ROOT,
    Served,
    a_turn,
    bots_file,
    finished_run,
    live_config,
    serving,
    tournament,
    until,
    wait_for,
)

from referee.play.records import GameRecord
from referee.tournament.store.results import ResultsFile

pytest.importorskip("hypercorn", reason="vastuz serve needs its extra: pip install -e '.[serve]'")
pytest.importorskip("starlette", reason="vastuz serve needs its extra: pip install -e '.[serve]'")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("serve")
    finished_run(base / "runs" / "finished")
    bots_file(base)
    return base


@pytest.fixture(scope="module")
def served(folder: Path) -> Iterator[Served]:
    with serving(
        str(folder / "runs"), "--bots", str(folder / "bots.yaml"), "--human-results", str(folder / "human"),
        "--max-games", "2", "--max-clients", "2", cwd=folder,
    ) as server:  # fmt: skip
        yield server


def human_records(folder: Path) -> list[GameRecord]:
    return ResultsFile(folder / "human" / "results.jsonl").load().records


def start(served: Served, **game: Any) -> str:
    body = {
        "bot": "random",
        "size": 3,
        "side": "black",
        "name": "ann",
        "time_control": {"per_move": 60},
        **game,
    }
    status, answer = served.post("/api/play", body)
    assert status == 201, answer
    return str(answer["id"])


def test_runs_standings_games_and_pages(served: Served) -> None:
    status, runs = served.get("/api/runs")
    assert status == 200 and [r["run"] for r in runs] == ["finished"] and runs[0]["games"] == 4
    status, standings = served.get("/api/runs/finished/standings")
    assert status == 200 and standings["games"] == 4
    assert {b["name"] for b in standings["bots"]} == {"alpha", "beta", "gamma", "<b>x</b>"}
    status, record = served.get("/api/runs/finished/games/g2")
    assert (
        status == 200
        and record["game_id"] == "g2"
        and [b["label"] for b in record["bots"]] == ["beta", "gamma"]
    )
    assert served.get("/api/runs/finished/games/nope")[0] == 404
    assert served.get("/api/runs/nope/standings")[0] == 404
    status, page, headers = served.call("GET", "/runs/finished/")
    assert (
        status == 200 and "Leaderboard" in page and "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    )
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "standings.js" not in page  # a finished run's page is the renderer's, as it is
    status, stamp = served.get("/api/runs/finished/stamp")
    assert status == 200 and stamp["running"] is False and stamp["stamp"].endswith("-stopped")
    status, page, headers = served.call("GET", "/runs/finished/games/g3")
    assert status == 200 and "vastuz-data" in page
    for path in ("/", "/live", "/play"):
        status, page, headers = served.call("GET", path)
        assert status == 200 and "script-src 'self'" in headers["content-security-policy"], path
    assert 'href="/runs/finished/"' in served.call("GET", "/")[1]
    assert 'value="random"' in served.call("GET", "/play")[1]


def test_a_whole_game_with_an_illegal_turn_refused(served: Served, folder: Path) -> None:
    game = start(served, name="ann")
    state = wait_for(served, game, asked="turn")
    assert state["color"] == "black" and state["legal_placements"] and 'data-point="a1"' in state["svg"]
    first = a_turn(served, game, state)
    state = served.post(f"/api/play/{game}/turn", {"turn": first})[1]
    state = wait_for(served, game, asked="turn")
    occupied = state["game"]["stones"]["black"][0]
    before = (state["version"], state["game"]["turns"])
    for bad, reason in ((occupied, "occupied"), ("z9", "no point"), ("pass", "pass while")):
        status, answer = served.post(f"/api/play/{game}/turn", {"turn": bad})
        assert status == 422 and reason in answer["error"], answer
    again = served.get(f"/api/play/{game}")[1]
    assert (again["version"], again["game"]["turns"]) == before and again["asked"] == "turn"
    assert served.get(f"/api/play/{game}/steals?turn={occupied}")[0] == 422
    while state["status"] != "over":
        status, answer = served.post(f"/api/play/{game}/turn", {"turn": a_turn(served, game, state)})
        assert status == 200, answer
        state = wait_for(served, game, asked="turn")
    assert served.post(f"/api/play/{game}/turn", {"turn": "a1"})[0] == 409
    record = next(r for r in human_records(folder) if r.game_id == game)
    assert record.labels == ("ann", "random") and record.termination.value == "score"
    assert [t.turn for t in record.turns] == state["game"]["turns"] and record.result == state["result"]
    # vastuz report rates the person like a bot
    report = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(folder / "human"), "--format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert "ann" in {b["name"] for b in json.loads(report.stdout)["bots"]}


def test_a_bot_crash_loses_the_game_to_the_person(served: Served, folder: Path) -> None:
    game = start(served, bot="crasher", name="bob", side="white")
    state = wait_for(served, game, asked="turn")
    served.post(f"/api/play/{game}/turn", {"turn": a_turn(served, game, state)})
    state = wait_for(served, game, asked="color")  # none is asked: the game ends
    assert state["status"] == "over" and state["winner"] == "bob", state
    record = next(r for r in human_records(folder) if r.game_id == game)
    assert record.termination.value == "crash" and record.label_of(record.winner) == "bob"


def test_the_pie_rule_resign_and_a_page_that_went_away(served: Served, folder: Path) -> None:
    game = start(served, side="pie", name="cy")
    state = wait_for(served, game, asked="color")
    assert len(state["game"]["stones"]["black"]) == 1 and len(state["game"]["stones"]["white"]) == 1
    assert served.post(f"/api/play/{game}/turn", {"turn": "purple"})[0] == 422
    assert served.post(f"/api/play/{game}/turn", {"turn": "white"})[0] == 200
    state = wait_for(served, game)
    assert state["color"] == "white"
    status, state = served.post(f"/api/play/{game}/resign")
    assert status == 200 and state["status"] == "over" and state["winner"] == "random"
    at_choice = start(served, side="pie", name="cy")
    wait_for(served, at_choice, asked="color")
    status, state = served.post(f"/api/play/{at_choice}/resign")  # while asked the pie choice
    assert status == 200 and state["status"] == "over" and state["winner"] == "random"
    # nobody answers: the person's clock runs out, a loss on time
    idle = start(served, name="dee", time_control={"per_move": 1})
    state = wait_for(served, idle, asked="color", limit=20)
    assert state["status"] == "over" and state["winner"] == "random"
    by_id = {r.game_id: r for r in human_records(folder)}
    assert by_id[game].termination.value == "resign" and by_id[idle].termination.value == "time"
    assert by_id[at_choice].termination.value == "resign"


def test_the_person_makes_the_pie_setup_and_the_bot_chooses(served: Served, folder: Path) -> None:
    game = start(served, side="pie-setup", name="gil")
    state = wait_for(served, game, asked="setup")
    assert state["seat"] == 0 and state["color"] is None and "a1" in state["legal_placements"]
    for bad, reason in (("c3 c3", "must differ"), ("z9 a1", "no point"), ("c3", "two points"), ("black", "")):
        status, answer = served.post(f"/api/play/{game}/turn", {"turn": bad})
        assert status == 422 and "illegal setup" in answer["error"] and reason in answer["error"], answer
    again = served.get(f"/api/play/{game}")[1]
    assert again["asked"] == "setup" and again["version"] == state["version"]  # nothing changed
    assert served.post(f"/api/play/{game}/turn", {"turn": "a1 B1"})[0] == 200
    state = wait_for(served, game, asked="turn")  # the bot has chosen a colour
    while state["status"] != "over":
        assert state["color"] in ("black", "white")
        status, answer = served.post(f"/api/play/{game}/turn", {"turn": a_turn(served, game, state)})
        assert status == 200, answer
        state = wait_for(served, game, asked="turn")
    record = next(r for r in human_records(folder) if r.game_id == game)
    assert record.labels == ("gil", "random") and record.termination.value == "score"
    assert record.setup is not None and (record.setup.black, record.setup.white, record.setup.by) == (
        "a1",
        "b1",
        0,
    )
    assert record.choice is not None and record.choice.by == 1
    assert state["color"] == ("white" if record.black == 1 else "black")
    assert record.black == (1 if record.choice.color.value == "black" else 0)


def test_the_live_feed_and_its_client_bound(served: Served) -> None:
    game = start(served, name="eve", size=4)
    state = wait_for(served, game, asked="turn")
    live = served.get("/api/live")[1]
    assert [g["game_id"] for g in live] == [game] and live[0]["bots"] == ["eve", "random"]
    host, port = served.url.removeprefix("http://").split(":")
    streams = []
    try:
        for _ in range(2):
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            conn.request("GET", "/api/events")
            response = conn.getresponse()
            assert response.status == 200 and response.getheader("content-type", "").startswith(
                "text/event-stream"
            )
            assert b"live games" in response.read1(65536)  # subscribed: its first line came
            streams.append((conn, response))
        assert served.get("/api/events")[0] == 503  # one client too many
        turn = a_turn(served, game, state)
        served.post(f"/api/play/{game}/turn", {"turn": turn})
        seen = b""
        events: list[bytes] = []
        while not events:  # whole events only (a read may end inside one)
            seen += streams[0][1].read1(65536)
            done = seen.split(b"\n\n")[:-1]
            # This game's: another test's game on the same server may still be live.
            events = [e for e in done if b'"turns":["' in e and game.encode() in e]
        event = next(line for line in events[0].split(b"\n") if line.startswith(b"data: "))
        data = json.loads(event[6:])
        assert data["game_id"] == game and data["svg"].startswith("<svg") and data["turns"][0] == turn
        assert len(data["score"]) == 2 and len(data["clocks"]) == 2 and data["to_move"] in ("black", "white")
    finally:
        for conn, _ in streams:
            conn.close()
        served.post(f"/api/play/{game}/resign")

    def reconnects() -> bool:  # the closed streams' places are free again: two at once
        conns = [http.client.HTTPConnection(host, int(port), timeout=10) for _ in range(2)]
        try:
            for conn in conns:
                conn.request("GET", "/api/events")
            return all(conn.getresponse().status == 200 for conn in conns)
        finally:
            for conn in conns:
                conn.close()

    until(reconnects, "two clients again after two left", 15)


def test_the_guards(served: Served) -> None:
    assert served.call("POST", "/api/play", raw=b"{}", headers={"Content-Type": "text/plain"})[0] == 415
    assert served.call("POST", "/api/play", raw=b" " * 5000)[0] == 413
    assert served.post("/api/play", {"bot": "random"}, headers={"Origin": "http://evil.example"})[0] == 403
    assert served.get("/api/runs", headers={"Host": "evil.example:80"})[0] == 421
    assert served.call("PUT", "/api/play", raw=b"{}")[0] == 405
    for bad, word in (
        ({"bot": "sh -c 'rm -rf /'"}, "no configured bot"),
        ({"bot": "random", "size": 99}, "size"),
        ({"bot": "random", "side": "green"}, "pie-setup"),
        ({"bot": "random", "name": "<script>"}, "name"),
        ({"bot": "random", "name": "random"}, "a bot's name"),
        ({"bot": "random", "time_control": {"per_move": 0}}, "per_move"),
        ({"bot": "random", "command": "ls"}, "unknown keys"),
    ):
        status, answer = served.post("/api/play", bad)
        assert status == 400 and word in answer["error"], (bad, answer)
    games = [start(served, name=f"p{k}") for k in range(2)]
    status, answer = served.post("/api/play", {"bot": "random", "name": "p3"})
    assert status == 503 and "2 people's games" in answer["error"]
    for game in games:
        assert served.post(f"/api/play/{game}/resign")[0] == 200
    assert served.get("/api/play/nope")[0] == 404


def test_another_host_needs_a_token(folder: Path) -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "referee.cli", "serve", str(folder / "runs"), "--host", "0.0.0.0",
         "--port", "0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2 and "--token" in refused.stderr and "Traceback" not in refused.stderr
    with serving(
        str(folder / "runs"), "--host", "0.0.0.0", "--token", "s3cret-token",
        "--bots", str(folder / "bots.yaml"), "--human-results", str(folder / "human-token"), cwd=folder,
    ) as server:  # fmt: skip
        body = {"bot": "random", "size": 3, "name": "fay"}
        assert server.post("/api/play", body)[0] == 401
        assert server.post("/api/play", body, headers={"X-Vastuz-Token": "wrong-token"})[0] == 401
        status, answer = server.post("/api/play", body, headers={"X-Vastuz-Token": "s3cret-token"})
        assert status == 201
        assert server.get("/api/runs")[0] == 200  # reading needs no token
        assert (
            server.post(f"/api/play/{answer['id']}/resign", headers={"X-Vastuz-Token": "s3cret-token"})[0]
            == 200
        )


def test_bad_command_lines_are_clear(folder: Path) -> None:
    for args, word in (
        (["/no/such/folder"], "not a folder"),
        ([str(folder / "runs"), "--bots", "/no/such.yaml"], "bots file not found"),
        ([str(folder / "runs"), "--token", "short"], "at least 8"),
        ([str(folder / "runs"), "--port", "99999"], "0..65535"),
        ([str(folder / "runs"), "--pages-every", "-1"], "--pages-every: must be >= 0"),
        ([str(folder / "runs"), "--token-file", "/dev/zero"], "not a regular file, not a token file"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "referee.cli", "serve", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and word in done.stderr and "Traceback" not in done.stderr, (
            args,
            done.stderr,
        )


def test_a_run_in_another_process_is_followed_through_its_live_file(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "elsewhere"
    # enough games that the run is still going once a loaded machine has started the server
    with tournament(str(live_config(tmp_path, out, games=20)), "--live", cwd=tmp_path):
        until(lambda: (out / "results.jsonl").exists(), "the run starts", 60)
        with serving(str(tmp_path / "runs"), cwd=tmp_path) as server:
            live = until(lambda: server.get("/api/live")[1], "a game in progress in the other process", 60)
            assert live[0]["run"] == "elsewhere" and sorted(live[0]["bots"]) == ["mcts", "random"]
            seen = len(live[0]["turns"])
            until(
                lambda: any(len(g["turns"]) > seen for g in server.get("/api/live")[1]),
                "its next turns, read from OUTPUT/live.json",
                60,
            )
            assert server.get("/api/runs")[1][0]["running"] is True
            # its standings page updates itself in place (no reload), long-polling the run's stamp
            status, page = server.get("/runs/elsewhere/")
            assert status == 200 and 'http-equiv="refresh"' not in page
            assert '<script src="/static/standings.js" data-run="elsewhere" data-stamp="' in page
            assert "connect-src &#x27;self&#x27;" in page
            status, stamp = server.get("/api/runs/elsewhere/stamp")
            assert status == 200 and stamp["running"] is True and stamp["run"] == "elsewhere"
            until(  # a long poll: answered when the next game is recorded (or the run ends)
                lambda: (
                    server.get(f"/api/runs/elsewhere/stamp?after={stamp['stamp']}")[1]["stamp"]
                    != stamp["stamp"]
                ),
                "the stamp changes",
                90,
            )
            assert server.get("/static/standings.js")[0] == 200
    assert json.loads((out / "live.json").read_text()) == {"games": []}  # the run has stopped


def test_a_running_runs_standings_are_the_ones_it_publishes(tmp_path: Path) -> None:
    """While a run goes on, the server sends the standings page and standings.json the run
    writes on its cadence (a mark put into each file comes back), and its stamp is the
    page's, which changes on that cadence rather than at every game; once the run has
    stopped, the standings are made from its results again (the marks are gone)."""
    out = tmp_path / "runs" / "going"
    page, table = out / "standings.html", out / "standings.json"
    with tournament(str(live_config(tmp_path, out, games=20)), cwd=tmp_path):
        until(
            lambda: (
                page.exists() and table.exists() and page.stat().st_mtime >= (out / ".lock").stat().st_mtime
            ),
            "the run's first page",
            90,
        )
        with serving(str(tmp_path / "runs"), cwd=tmp_path) as server:

            def sent_back(path: Path, mark: str, url: str, text: str) -> bool:
                # the run may write the file again between the mark and the request: try again
                path.write_text(text, encoding="utf-8")
                status, answer = server.get(url)
                assert status == 200
                return mark in (answer if isinstance(answer, str) else json.dumps(answer))

            until(
                lambda: sent_back(page, "a-mark-of-the-test", "/runs/going/",
                                  page.read_text(encoding="utf-8") + "<!-- a-mark-of-the-test -->"),
                "the run's own page, served",
            )  # fmt: skip
            until(
                lambda: sent_back(table, "a-mark-of-the-test", "/api/runs/going/standings",
                                  json.dumps({**json.loads(table.read_text(encoding="utf-8")),
                                              "mark": "a-mark-of-the-test"})),
                "the run's own standings.json, served",
            )  # fmt: skip
            status, stamp = server.get("/api/runs/going/stamp")
            assert status == 200 and stamp["running"] is True
            assert stamp["stamp"].startswith("standings.html-")  # the page's, not the results'
    # stopped (Ctrl-C): the standings made from the results, with no mark
    with serving(str(tmp_path / "runs"), cwd=tmp_path) as server:
        status, stamp = server.get("/api/runs/going/stamp")
        assert stamp["running"] is False and stamp["stamp"].startswith("results.jsonl-")
        page.write_text(page.read_text(encoding="utf-8") + "<!-- a-mark-of-the-test -->", encoding="utf-8")
        status, text = server.get("/runs/going/")
        assert status == 200 and "a-mark-of-the-test" not in text
        status, answer = server.get("/api/runs/going/standings")
        assert status == 200 and "mark" not in answer
