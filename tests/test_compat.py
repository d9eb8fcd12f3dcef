"""Records written before the layers were cut still load unchanged, and every report of
them is byte for byte the stored golden output.

``tests/data/v0.1/`` holds a real tournament folder and a real match folder written by
the previous release (commit 2da7375); the records themselves are never rewritten and
must keep loading as they are. Next to them are golden files of ``vastuz report`` (every
format) and ``vastuz show``: ``show.2.txt`` is still that release's output, while the
``report.*.txt`` files are regenerated on purpose, with the new code, whenever the report
format changes (last: issue 21, the ``memory`` and ``processes`` failure columns and
keys; before that issue 29, likelihood-ratio intervals, and bounds instead of regularised
estimates where the maximum likelihood is infinite), after
checking that the diff is exactly the intended change. A change that alters what a user
sees of old results must change these files on purpose, never by accident.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main

DATA = Path(__file__).parent / "data" / "v0.1"


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "csv"])
def test_report_of_old_tournament_records_is_unchanged(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(DATA), "--format", fmt]) == 0
    assert capsys.readouterr().out == (DATA / f"report.{fmt}.txt").read_bytes().decode("utf-8")


def test_report_of_an_old_match_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(DATA / "match")]) == 0
    assert capsys.readouterr().out == (DATA / "match" / "report.text.txt").read_text(encoding="utf-8")


def test_show_of_an_old_record_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(DATA / "results.jsonl"), "--game", "2"]) == 0
    assert capsys.readouterr().out == (DATA / "show.2.txt").read_text(encoding="utf-8")
