"""A ladder's pages in a real headless Chromium (selenium), against the real server process
and a real ladder: the rating list shows ``?`` on the provisional entries and not on the
anchor, a bot's page draws its rating history as an SVG chart (provisional stretch
dashed), and the rating list of a ladder going on updates itself in place (no reload).
Skipped, with the reason, only when Chromium, chromedriver or the serve extra is missing."""

# The browser is the pages' tests' fixture (imported: each test names it as a parameter).
# ruff: noqa: F811

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from processes import wait_until_gone
from serving import serving, until
from test_serve_ladder import ladder_process, played, write_ladder

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
from test_render_browser import WebDriver, driver  # noqa: E402, F401  (the pages' one browser)


def console_errors(driver: WebDriver) -> list[str]:
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return [e["message"] for e in entries if e["level"] == "SEVERE" and "favicon" not in e["message"]]


def data(driver: WebDriver, key: str) -> str:
    value: str = driver.execute_script(f"return document.body.dataset.{key} || ''")
    return value


def ratings(driver: WebDriver) -> dict[str, str]:
    """Each row's bot and its rating as the page shows them (read at once: the page may
    replace its table any time)."""
    rows: list[list[str]] = driver.execute_script(
        "return [...document.querySelectorAll('#ratings tbody tr')].map("
        "(r) => [...r.querySelectorAll('td')].map((c) => c.textContent))"
    )
    return {cells[1]: cells[2] for cells in rows}


def summary(driver: WebDriver) -> str:
    text: str = driver.execute_script(
        "const e = document.getElementById('ladder-summary'); return e ? e.textContent : ''"
    )
    return text


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("serve-ladder-browser")
    played(folder, "lad", 3)
    return folder


def test_the_rating_list_marks_provisional_ratings_and_a_bot_page_draws_its_chart(
    driver: WebDriver, base: Path
) -> None:
    with serving(str(base / "ladders"), cwd=base) as server:
        driver.get(server.url + "/")
        link = until(lambda: driver.find_elements(By.CSS_SELECTOR, 'a[href="/ladders/lad/"]'), "the link")
        link[0].click()
        until(lambda: data(driver, "ready") == "1", "the ladder page is ready")
        shown = ratings(driver)
        assert set(shown) == {"b0", "b1", "b2", "b3"}
        assert shown["b0"] == "+100"  # the anchor: never provisional
        assert all(shown[b].endswith("?") for b in ("b1", "b2", "b3")), shown  # 6 games < 10
        # A bot whose rating is a bound at every round (its games all won or all lost, as the
        # games fall) has no point to draw: take a provisional bot with a line of its own.
        drawn = [
            b
            for b in ("b1", "b2", "b3")
            if sum(p["provisional"] for p in server.get(f"/api/ladders/lad/bots/{b}")[1]["history"]) >= 2
        ]
        assert drawn, "no provisional bot has two points of history"
        driver.find_element(By.CSS_SELECTOR, f'a[href="/ladders/lad/bots/{drawn[0]}"]').click()
        until(lambda: data(driver, "ready") == "1" and data(driver, "page") == "ladder-bot", "the bot page")
        chart = driver.find_element(By.ID, "rating-chart")
        box = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", chart
        )
        assert box[0] > 100 and box[1] > 50  # drawn, at a size
        line = chart.find_element(By.CSS_SELECTOR, "polyline.provisional")
        assert len(line.get_attribute("points").split()) >= 2
        assert {t.text for t in chart.find_elements(By.CSS_SELECTOR, "text.axis")} == {"round", "Elo"}
        assert len(driver.find_elements(By.CSS_SELECTOR, "#games tbody tr")) == 6
        driver.find_elements(By.CSS_SELECTOR, "#games tbody tr a")[0].click()  # the newest game's replay
        until(lambda: data(driver, "ready") == "1" and driver.find_elements(By.CSS_SELECTOR, "#board svg"),
              "the replay draws its board")  # fmt: skip
        assert not console_errors(driver)


def test_the_rating_list_of_a_ladder_going_on_updates_in_place(driver: WebDriver, tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    config = write_ladder(tmp_path, "going", marker, delay=0.1)
    (tmp_path / "ladders").mkdir()
    try:
        with (
            serving(str(tmp_path / "ladders"), cwd=tmp_path) as server,
            ladder_process(str(config), "--rounds", "2"),
        ):
            until(lambda: server.get("/api/ladders")[1], "the ladder's store", 120)
            driver.get(server.url + "/ladders/going/")
            until(lambda: data(driver, "ready") == "1" and data(driver, "follow") == "following", "the page")
            driver.execute_script("window.__marker = 1")  # gone if the page reloads
            first = summary(driver)
            until(lambda: summary(driver) != first, "an update", 180)
            until(lambda: "8 games in 2 rounds" in summary(driver), "the ladder's last game, shown", 240)
            assert driver.execute_script("return window.__marker") == 1
            assert int(data(driver, "updates")) >= 1
            assert set(ratings(driver)) == {"b0", "b1", "b2", "b3"}
            assert not console_errors(driver)
    finally:
        assert not wait_until_gone(marker, 30)
