"""``vastuz serve`` in a real headless Chromium (selenium), against the real server process:
the standings page of a finished run, the standings page of a run going on updating
itself in place (no reload) until the run stops, a whole game against the random bot
played by clicking the board's points (steals by clicking too) to its end with its record
in the results folder, and the live page following a running ``vastuz tournament --serve``.
Skipped, with the reason, only when Chromium, chromedriver or the serve extra is missing."""

# The browser is the pages' tests' fixture (imported: each test names it as a parameter).
# ruff: noqa: F811

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import Served, bots_file, finished_run, live_config, serving, tournament, until

from referee.engine import Position
from referee.tournament.store.results import ResultsFile

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install selenium)"
)
pytest.importorskip("hypercorn", reason="vastuz serve needs its extra: pip install -e '.[serve]'")
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "Chromium is not installed: apt-get install chromium chromium-driver (.ci/run does)",
        allow_module_level=True,
    )

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from test_render_browser import WebDriver, driver  # noqa: E402, F401  (the pages' one browser)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("serve-browser")
    finished_run(base / "runs" / "finished")
    bots_file(base)
    return base


@pytest.fixture(scope="module")
def served(folder: Path) -> Iterator[Served]:
    with serving(
        str(folder / "runs"), "--bots", str(folder / "bots.yaml"), "--human-results", str(folder / "human"),
        cwd=folder,
    ) as server:  # fmt: skip
        yield server


def console_errors(driver: WebDriver) -> list[str]:
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return [e["message"] for e in entries if e["level"] == "SEVERE" and "favicon" not in e["message"]]


def data(driver: WebDriver, key: str) -> str:
    value: str = driver.execute_script(f"return document.body.dataset.{key} || ''")
    return value


def test_the_standings_page_of_a_finished_run(driver: WebDriver, served: Served) -> None:
    driver.get(served.url + "/")
    link = until(lambda: driver.find_elements(By.CSS_SELECTOR, 'a[href="/runs/finished/"]'), "the run's link")
    link[0].click()
    until(lambda: data(driver, "ready") == "1", "the standings page is ready")
    names = {e.text for e in driver.find_elements(By.CSS_SELECTOR, "table td")}
    assert {"alpha", "beta", "gamma", "<b>x</b>"} <= names  # bot text shown as text
    assert not driver.find_elements(By.CSS_SELECTOR, "table b")
    assert "in progress" not in driver.page_source
    assert driver.find_elements(By.CSS_SELECTOR, '#board [data-point="c3"]')  # a replay's board
    assert not console_errors(driver)


def games_shown(driver: WebDriver) -> int:
    """The games the page says it has (the replay's "N games")."""
    found = re.fullmatch(r"([0-9]+) games?", driver.find_element(By.ID, "summary").text)
    assert found, driver.find_element(By.ID, "summary").text
    return int(found.group(1))


def marker(driver: WebDriver) -> object:
    return driver.execute_script("return window.__marker")


def test_a_running_runs_standings_update_in_place(driver: WebDriver, tmp_path: Path) -> None:
    out = tmp_path / "runs" / "going"
    out.parent.mkdir()
    config = live_config(tmp_path, out, games=20)  # still going on a loaded machine
    with serving(str(tmp_path / "runs"), cwd=tmp_path) as server:
        with tournament(str(config), cwd=tmp_path):
            until(lambda: server.get("/api/runs")[1], "the run starts", 60)
            driver.get(server.url + "/runs/going/")
            until(lambda: data(driver, "ready") == "1" and data(driver, "follow") == "following", "the page")
            assert not driver.find_elements(By.CSS_SELECTOR, 'meta[http-equiv="refresh"]')
            driver.execute_script("window.__marker = 1")  # gone if the page reloads
            until(lambda: games_shown(driver) >= 1, "a game recorded, shown without a reload", 120)
            assert marker(driver) == 1
            # open a replay at its first turn, scroll: an update keeps both
            driver.find_elements(By.CSS_SELECTOR, "#list .row")[0].click()
            driver.find_element(By.ID, "b-first").click()
            title = driver.find_element(By.ID, "g-title").text
            label = driver.find_element(By.ID, "turn-label").text
            assert title.startswith("Game ") and label.startswith(("setup", "start"))
            assert driver.find_elements(By.CSS_SELECTOR, "#board svg")  # the replay draws its board
            driver.execute_script("window.scrollTo(0, 120)")
            scrolled = driver.execute_script("return window.scrollY")
            shown = games_shown(driver)
            until(lambda: games_shown(driver) > shown, "the next game, shown without a reload", 120)
            assert marker(driver) == 1
            assert driver.find_element(By.ID, "g-title").text == title
            assert driver.find_element(By.ID, "turn-label").text == label
            assert driver.execute_script("return window.scrollY") == scrolled
            rated = driver.find_element(By.CSS_SELECTOR, "section.standings").text
            assert f"{games_shown(driver)} games rated" in rated  # the standings went with the games
            assert len(driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")) == 2
        # the run is stopped (Ctrl-C): the page shows the final standings and stops following
        until(lambda: data(driver, "follow") == "finished", "the page sees the run has ended", 60)
        assert marker(driver) == 1
        final = server.get("/api/runs")[1][0]
        assert final["running"] is False and games_shown(driver) == final["games"]
        assert driver.find_element(By.ID, "g-title").text == title
        assert not console_errors(driver)


def stones(driver: WebDriver) -> dict[str, str]:
    return {
        e.get_attribute("data-point") or "": e.get_attribute("data-color") or ""
        for e in driver.find_elements(By.CSS_SELECTOR, "#board .stone")
    }


def click_a_turn(driver: WebDriver) -> None:
    """Click a legal placement, then each steal the page offers (a red stone, a blue point)."""
    version = data(driver, "version")
    pass_button = driver.find_element(By.CSS_SELECTOR, '[data-action="pass"]')
    if pass_button.is_displayed():
        pass_button.click()
    else:
        legal = driver.find_elements(By.CSS_SELECTOR, "#board .hit.legal")
        assert legal, "your turn, and no legal point is shown"
        legal[len(legal) // 2].click()
    while True:
        state = until(
            lambda: (
                "moved"
                if data(driver, "version") != version
                else "steal"
                if driver.find_elements(By.CSS_SELECTOR, "#board .hit.from")
                else None
            ),
            "the turn goes in or a steal is offered",
        )
        if state == "moved":
            return
        driver.find_elements(By.CSS_SELECTOR, "#board .hit.from")[0].click()
        until(lambda: driver.find_elements(By.CSS_SELECTOR, "#board .hit.to"), "the steal's targets")
        driver.find_elements(By.CSS_SELECTOR, "#board .hit.to")[0].click()


def test_a_whole_game_against_the_random_bot_by_clicking(
    driver: WebDriver, served: Served, folder: Path
) -> None:
    driver.get(served.url + "/play")
    until(lambda: data(driver, "ready") == "1", "the form")
    Select(driver.find_element(By.ID, "bot")).select_by_value("random")
    Select(driver.find_element(By.ID, "size")).select_by_value("5")
    name = driver.find_element(By.ID, "name")
    name.clear()
    name.send_keys("clicker")
    driver.find_element(By.CSS_SELECTOR, '[data-action="start"]').click()
    until(lambda: "/play/human-" in driver.current_url, "the game's page")
    game_id = driver.current_url.rsplit("/", 1)[1]
    steals = 0
    for _ in range(200):
        until(lambda: data(driver, "status") == "over" or data(driver, "asked") == "turn", "your turn", 60)
        if data(driver, "status") == "over":
            break
        before = driver.find_element(By.ID, "turn-so-far").text
        click_a_turn(driver)
        steals += "," in before
    assert data(driver, "status") == "over"
    assert "game over" in driver.find_element(By.ID, "status").text
    record = next(
        r for r in ResultsFile(folder / "human" / "results.jsonl").load().records if r.game_id == game_id
    )
    assert record.labels == ("clicker", "random") and record.termination.value == "score"
    pos = Position.new(5)
    for turn in record.turns:
        pos = pos.play(turn.turn)
    shown = stones(driver)
    assert shown == {**{p: "black" for p in pos.stones("b")}, **{p: "white" for p in pos.stones("w")}}
    page_turns = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#turns li")]
    assert page_turns == [t.turn for t in record.turns]
    assert not console_errors(driver)


def test_the_person_makes_the_pie_setup_by_clicking(driver: WebDriver, served: Served, folder: Path) -> None:
    driver.get(served.url + "/play")
    until(lambda: data(driver, "ready") == "1", "the form")
    Select(driver.find_element(By.ID, "bot")).select_by_value("random")
    Select(driver.find_element(By.ID, "size")).select_by_value("3")
    Select(driver.find_element(By.ID, "side")).select_by_value("pie-setup")
    name = driver.find_element(By.ID, "name")
    name.clear()
    name.send_keys("setter")
    driver.find_element(By.CSS_SELECTOR, '[data-action="start"]').click()
    until(lambda: "/play/human-" in driver.current_url, "the game's page")
    game_id = driver.current_url.rsplit("/", 1)[1]
    until(lambda: data(driver, "asked") == "setup", "asked the pie setup", 60)
    assert "Black stone" in driver.find_element(By.ID, "status").text
    driver.find_element(By.CSS_SELECTOR, '#board .hit[data-point="c3"]').click()
    until(lambda: driver.find_elements(By.CSS_SELECTOR, '#board .hit.from[data-point="c3"]'), "c3 chosen")
    assert "White stone" in driver.find_element(By.ID, "status").text
    driver.find_element(By.CSS_SELECTOR, '#board .hit[data-point="b2"]').click()
    until(lambda: data(driver, "asked") != "setup", "the setup goes in", 60)
    for _ in range(100):
        until(lambda: data(driver, "status") == "over" or data(driver, "asked") == "turn", "your turn", 60)
        if data(driver, "status") == "over":
            break
        click_a_turn(driver)
    assert data(driver, "status") == "over"
    record = next(
        r for r in ResultsFile(folder / "human" / "results.jsonl").load().records if r.game_id == game_id
    )
    assert record.labels == ("setter", "random") and record.setup is not None
    assert (record.setup.black, record.setup.white, record.setup.by) == ("c3", "b2", 0)
    assert record.choice is not None and record.choice.by == 1
    assert not console_errors(driver)


def test_the_live_page_follows_a_running_tournament(driver: WebDriver, tmp_path: Path) -> None:
    config = live_config(tmp_path, tmp_path / "out", games=20)  # still going on a loaded machine
    with tournament(str(config), "--serve", "127.0.0.1:0", cwd=tmp_path) as run:
        assert run.stdout is not None
        line = run.stdout.readline()
        assert line.startswith("serving on http://127.0.0.1:"), line
        driver.get(line.split()[2] + "/live")
        until(lambda: data(driver, "ready") == "1", "the live page connects")
        game = until(lambda: driver.find_elements(By.CSS_SELECTOR, ".live-game"), "a game in progress")[0]
        seen = set()
        for _ in range(3):  # the board moves turn by turn, without a reload
            turns = until(lambda: int(game.get_attribute("data-turns") or 0) not in seen and
                          int(game.get_attribute("data-turns") or 0), "the next turn")  # fmt: skip
            seen.add(turns)
            assert game.find_elements(By.CSS_SELECTOR, ".stone")
        assert "mcts" in game.find_element(By.CSS_SELECTOR, "h3").text
        assert "score" in game.find_element(By.CSS_SELECTOR, ".info").text
        assert not console_errors(driver)
