"""``standings.html`` of a real tournament, in headless Chromium from ``file://``.

A tournament of three sample bot processes (one of them faulty) is played by the runner,
which writes the page; the page must show the report's numbers (the leaderboard in rank
order, the crosstable as a heat map, the pentanomial table), the charts, no "in progress"
once finished, and replay its games. Skipped only when Chromium is not installed.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from runs import write_config
from selenium.webdriver.common.by import By
from test_render_browser import WebDriver, driver, logs, open_page, select_game, shown  # noqa: F401

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tournament")
    bots = [
        {
            "name": "random",
            "command": [sys.executable, "-m", "sample_bots.random_bot", "--seed", "1"],
            "cwd": str(ROOT),
        },
        {
            "name": "greedy",
            "command": [sys.executable, "-m", "sample_bots.greedy_bot", "--seed", "2"],
            "cwd": str(ROOT),
        },
        {
            "name": "faulty",
            "command": [sys.executable, str(FAKEBOT), "--fault", "illegal-occupied", "--after", "1"],
        },
    ]
    path = write_config(
        folder,
        bots,
        name="page",
        time_control={"per_move": 0.5, "margin": 0.3},
        schedule={"kind": "round_robin", "games_per_pair": 2},
    )
    result = trio.run(lambda: Tournament(load_config(path), out=io.StringIO(), bootstrap=200).run())
    assert result.played == 6
    return folder / "out"


def test_the_page_shows_the_reports_numbers_and_replays_the_games(
    driver: WebDriver,  # noqa: F811
    tournament: Path,
) -> None:
    page = tournament / "standings.html"
    report = json.loads((tournament / "standings.json").read_text())
    logs(driver, "browser"), logs(driver, "performance")  # drop what came before
    open_page(driver, page)
    assert [e for e in logs(driver, "browser") if e["level"] in ("SEVERE", "WARNING")] == []
    requests = []
    for entry in logs(driver, "performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if (
                not url.startswith(("chrome", "data:"))
                and message["params"].get("documentURL") != "about:blank"
            ):
                requests.append(url)
    assert requests == [page.as_uri()]  # the page itself, and nothing it asked for
    rows = driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")
    assert [r.get_attribute("data-bot") for r in rows] == [b["name"] for b in report["bots"]]
    for row, bot in zip(rows, report["bots"], strict=True):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        assert cells[5] == str(bot["games"]) and cells[6] == f"{bot['wins']}-{bot['draws']}-{bot['losses']}"
        assert cells[7] == f"{bot['score_percent']:.1f}%"
        if bot["elo_low"] is not None or bot["elo_high"] is not None:
            # A bound's open end is null in the JSON and the infinity sign on the page; a
            # finite end is the JSON's to the nearest Elo (which rounds to 0.01 first).
            ends = re.fullmatch(r"\[(\S+), (\S+)\]", cells[3])
            assert ends is not None, cells[3]
            expected = ((bot["elo_low"], "-∞"), (bot["elo_high"], "∞"))
            for end, (value, infinite) in zip(ends.groups(), expected, strict=True):
                assert end == infinite if value is None else abs(int(end) - value) <= 0.51
            assert row.find_elements(By.CSS_SELECTOR, "svg.bar rect")  # the interval drawn
    heat = driver.find_elements(By.CSS_SELECTOR, "#crosstable td.heat")
    assert len(heat) == 6  # three bots, each against the two others
    assert driver.find_elements(By.CSS_SELECTOR, "#pairs tbody tr")
    series = driver.find_elements(By.CSS_SELECTOR, "#rating-chart polyline.series")
    assert {s.get_attribute("data-name") for s in series} <= {b["name"] for b in report["bots"]} and series
    assert driver.find_element(By.ID, "progress").text == "finished: 6 of 6 games"
    assert not driver.find_elements(By.CSS_SELECTOR, 'meta[http-equiv="refresh"]')
    # Every game is in the list and replays; the faulty bot's illegal answer is shown.
    ids = [r.get_attribute("data-id") for r in driver.find_elements(By.CSS_SELECTOR, "#list .row")]
    assert len(ids) == 6
    records = [json.loads(line) for line in (tournament / "results.jsonl").read_text().splitlines()]
    illegal = [r for r in records if r["termination"] == "illegal"]
    assert illegal, "the faulty bot should have lost by an illegal turn"
    select_game(driver, illegal[0]["game_id"])
    assert illegal[0]["fault"]["received"].strip("'") in driver.find_element(By.ID, "game").text
    board = shown(driver)
    assert board["turn"] == len(illegal[0]["turns"])
    # For a person to look at: the standings and the replay, in the test's output folder.
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(tournament / "standings-page.png"))
    driver.find_element(By.ID, "game").screenshot(str(tournament / "replay.png"))
    assert (tournament / "standings-page.png").stat().st_size > 10_000


def test_a_page_written_during_the_run_says_so_and_reloads() -> None:
    from referee.ratings.report import standings
    from referee.render.standings_html import standings_page

    page = standings_page(standings([], ["a", "b"]), [], title="t", progress=(3, 10), running=True)
    assert "in progress: 3 of 10 games" in page and 'http-equiv="refresh"' in page
    done = standings_page(standings([], ["a", "b"]), [], title="t", progress=(4, 10), running=False)
    assert "stopped: 4 of 10 games" in done and 'http-equiv="refresh"' not in done


def vastuz(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_show_writes_a_position_as_svg_and_games_as_a_page(tournament: Path, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from referee.render.html import game_page
    from referee.tools.show import position_after
    from referee.tournament.store.results import ResultsFile

    results = tournament / "results.jsonl"
    record = max(ResultsFile(results).load().records, key=lambda r: len(r.turns))
    assert len(record.turns) > 3
    svg = tmp_path / "b.svg"
    done = vastuz(
        "show", str(results), "--game", record.game_id, "--svg", str(svg), "--turn", "3", "--groups"
    )
    assert done.returncode == 0, done.stderr
    root = ET.fromstring(svg.read_text())
    stones = {
        c.get("data-point"): c.get("data-color")
        for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if "stone" in (c.get("class") or "").split()
    }
    pos, last = position_after(record, 3)
    assert stones == {
        **dict.fromkeys(pos.stones("black"), "black"),
        **dict.fromkeys(pos.stones("white"), "white"),
    }
    assert last == record.turns[2].turn
    page = tmp_path / "all.html"
    done = vastuz("show", str(results), "--html", str(page))
    assert done.returncode == 0 and "(6 game(s))" in done.stdout
    assert all(r.game_id in page.read_text() for r in ResultsFile(results).load().records)
    # written a game at a time, it is the page made of all the records at once, past a
    # damaged line as load() passes it
    damaged = tmp_path / "damaged.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged.write_text(lines[0] + "not a record\n" + "".join(lines[1:]), encoding="utf-8")
    done = vastuz("show", str(damaged), "--html", str(page))
    assert done.returncode == 0 and "(6 game(s))" in done.stdout
    whole = game_page(ResultsFile(damaged).load().records, title="damaged.jsonl: games")
    assert page.read_text(encoding="utf-8") == whole
    folder = vastuz("show", str(results.parent), "--html", str(page))
    assert folder.returncode == 2 and "a folder, not a file: try vastuz show" in folder.stderr
    bad = vastuz("show", str(results), "--turn", "3")
    assert bad.returncode == 2 and "--turn and --groups go with --svg" in bad.stderr
    beyond = vastuz("show", str(results), "--svg", str(svg), "--turn", "999")
    assert beyond.returncode == 2 and "has turns 0 to" in beyond.stderr


def test_report_writes_the_standings_page(tournament: Path) -> None:
    done = vastuz("report", str(tournament), "--format", "html")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<!DOCTYPE html>") and 'id="leaderboard"' in done.stdout
    for bot in json.loads((tournament / "standings.json").read_text())["bots"]:
        assert f'data-bot="{bot["name"]}"' in done.stdout
