"""Failure forensics of a real tournament (issue 26, item 4), reachable where a user looks:
``vastuz show --game ID`` prints a crashed bot's stderr tail and both bots' last protocol
lines, and the game's replay in ``standings.html`` (headless Chromium, from ``file://``)
shows them, folded, under the forfeit. The run has no ``--transcripts``; skipped only when
Chromium is not installed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from runs import write_config
from selenium.webdriver.common.by import By
from test_render_browser import WebDriver, driver, logs, open_page, select_game  # noqa: F401

from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament

ROOT = Path(__file__).resolve().parent.parent
FAKEBOT = Path(__file__).parent / "fake_bots" / "fakebot.py"
LAST_WORDS = "RuntimeError: fakebot: out of ideas"


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("forensics")
    bots = [
        {"name": "steady", "command": [sys.executable, str(FAKEBOT), "--seed", "3"]},
        {
            "name": "crashy",
            "command": [sys.executable, str(FAKEBOT), "--fault", "crash-loud", "--after", "1"],
        },
    ]
    path = write_config(
        folder,
        bots,
        name="forensics",
        time_control={"per_move": 0.5, "margin": 0.3},
        schedule={"kind": "round_robin", "games_per_pair": 2},
    )
    result = trio.run(lambda: Tournament(load_config(path), out=io.StringIO(), bootstrap=50).run())
    assert result.played == 2
    return folder / "out"


def crashes(out: Path) -> list[dict[str, object]]:
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    found = [r for r in records if r["termination"] == "crash"]
    assert found, "the crashy bot should have crashed in its games"
    return found


def test_show_prints_the_stderr_tail_and_the_protocol_lines(tournament: Path) -> None:
    for record in crashes(tournament):
        assert all(bot["transcript"] is None for bot in record["bots"])  # type: ignore[attr-defined]
        shown = subprocess.run(
            [sys.executable, "-m", "referee.cli", "show", str(tournament / "results.jsonl"),
             "--game", str(record["game_id"])],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        out = shown.stdout.splitlines()
        assert out[-1] == f"    {LAST_WORDS}"
        fault = record["fault"]
        assert isinstance(fault, dict)
        assert f"    > {fault['command']}" in out  # the command it crashed on, as sent


def test_the_replay_shows_them_under_the_forfeit(
    driver: WebDriver,  # noqa: F811
    tournament: Path,
) -> None:
    record = crashes(tournament)[0]
    fault = record["fault"]
    assert isinstance(fault, dict)
    logs(driver, "browser")  # drop what came before
    open_page(driver, tournament / "standings.html")
    select_game(driver, str(record["game_id"]))
    box = driver.find_element(By.ID, "forensics")
    assert box.tag_name == "details" and box.get_attribute("open") is None  # folded at first
    box.find_element(By.TAG_NAME, "summary").click()
    assert box.get_attribute("open") is not None
    stderr = box.find_element(By.CSS_SELECTOR, "pre.fx-stderr").text
    assert stderr.splitlines()[-1] == LAST_WORDS and "Traceback (most recent call last):" in stderr
    seat = fault["seat"]
    lines = box.find_element(By.CSS_SELECTOR, f'pre.fx-lines[data-seat="{seat}"]').text.splitlines()
    forensics = record["forensics"]
    assert isinstance(forensics, dict)
    assert [line.rstrip() for line in lines] == [line.rstrip() for line in forensics["lines"][seat]]
    assert f"> {fault['command']}" in lines
    assert [e for e in logs(driver, "browser") if e["level"] in ("SEVERE", "WARNING")] == []
    box.screenshot(str(tournament / "forensics.png"))  # for a person to look at
