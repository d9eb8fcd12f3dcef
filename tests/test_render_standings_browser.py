"""The standings page of a real run in a real headless Chromium at 760 px (issue 24, item
7): it says what its columns and marks mean, holds its layout at that width, and labels
its charts' axes. Skipped, with the reason, when Chromium or chromedriver is missing."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import runs
import trio

# Its import skips this module too when Chromium or selenium is missing.
from test_render_browser import CHROMEDRIVER, CHROMIUM, ChromeOptions, ChromeService, WebDriver, open_page
from test_render_browser import logs as browser_logs

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament

FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
ROOT = Path(__file__).resolve().parent.parent
WIDTH = 760


@pytest.fixture(scope="module")
def narrow(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    options = ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                f"--window-size={WIDTH},1000",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):  # fmt: skip
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = WebDriver(options=options, service=ChromeService(executable_path=CHROMEDRIVER or ""))
    try:
        drv.set_window_size(WIDTH, 1000)
        yield drv
    finally:
        drv.quit()


@pytest.fixture(scope="module")
def standings_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of a real round robin: four bots with long names, two-digit W-D-L, forfeits."""
    tmp = tmp_path_factory.mktemp("run")
    names = ["a-rather-long-bot-name", "another-long-name-2", "third-bot-with-name", "crashy"]
    bots = [
        {"name": name, "command": [sys.executable, str(FAKEBOT), "--seed", str(k)], "cwd": str(ROOT)}
        for k, name in enumerate(names)
    ]
    bots[3]["command"] = [*bots[3]["command"], "--fault", "crash", "--after", "3"]  # type: ignore[list-item]
    path = runs.write_config(
        tmp, bots, name="wide", concurrency=2, schedule={"kind": "round_robin", "games_per_pair": 6}
    )

    async def run() -> None:
        with trio.fail_after(300):
            await Tournament(load_config(path), out=io.StringIO(), bootstrap=50).run()

    trio.run(run)
    return tmp / "out" / "standings.html"


def test_the_page_holds_its_layout_at_760_px(narrow: WebDriver, standings_page: Path) -> None:
    open_page(narrow, standings_page)
    assert narrow.execute_script("return window.innerWidth") <= WIDTH
    # Nothing makes the page wider than the window (a wide table scrolls in its own box).
    overflow = narrow.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, overflow
    # Every W-D-L (12-0-6) on one line, not "12- 0-6".
    lines = narrow.execute_script(
        """const cells = [...document.querySelectorAll('#leaderboard td.wdl')];
        return cells.map((td) => { const r = document.createRange(); r.selectNodeContents(td);
            return new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size; });"""
    )
    assert lines and set(lines) == {1}, lines
    assert browser_logs(narrow, "browser") == []


def test_the_page_says_what_its_columns_and_marks_mean(narrow: WebDriver, standings_page: Path) -> None:
    open_page(narrow, standings_page)
    legend = narrow.execute_script("return document.getElementById('legend').innerText")
    for term in ("Elo", "interval", "LOS next", "0-0.5-1-1.5-2", "time", "crash", "colour"):
        assert term in legend, term
    # The bars have a scale: its two ends are written in the bar column's head.
    head = narrow.execute_script("return document.querySelector('#leaderboard th.bars').innerText")
    assert "Elo" in head and "…" in head, head


def test_the_charts_label_their_axes(narrow: WebDriver, standings_page: Path) -> None:
    open_page(narrow, standings_page)
    chart = narrow.execute_script(
        """const svg = document.getElementById('rating-chart');
        return {x: [...svg.querySelectorAll('text.tick-x')].map((t) => t.textContent),
                y: [...svg.querySelectorAll('text.tick-y')].map((t) => t.textContent),
                labels: [...svg.querySelectorAll('text.axis')].map((t) => t.textContent)};"""
    )
    assert chart["labels"] == ["games played", "Elo"], chart
    assert len(chart["x"]) >= 3 and len(chart["y"]) >= 3, chart


def test_a_typed_link_with_a_plus_opens_its_game_and_an_unknown_one_says_so(
    narrow: WebDriver, standings_page: Path
) -> None:
    open_page(narrow, standings_page)
    ids = narrow.execute_script(
        "return [...document.querySelectorAll('#list .row')].map((r) => r.dataset.id)"
    )
    wanted = next(i for i in ids if "+" in i and i != ids[0])  # r1-a+b-02: a tournament's slot
    # Typed by hand, '+' as it is (not %2B): the game itself, not silently the first one.
    open_page(narrow, standings_page, f"#game={wanted}&turn=2")
    shown = narrow.execute_script("return document.querySelector('#board svg').dataset")
    assert shown["game"] == wanted and shown["turn"] == "2"
    open_page(narrow, standings_page, "#game=r9-nobody+none-01")
    note = narrow.execute_script("return document.getElementById('hash-note').textContent")
    assert note.startswith("No game r9-nobody+none-01 on this page; showing "), note
