"""The results file: durable appends, torn tails dropped and repaired, damage reported."""

import signal
import subprocess
import sys
import time

import pytest

from referee.errors import ResultsError
from referee.tournament.results import FolderLock, ResultsFile


def test_append_and_load_round_trip(tmp_path):
    rf = ResultsFile(tmp_path / "out" / "results.jsonl")
    assert rf.load().records == []
    for i in range(5):
        rf.append({"slot": f"s{i}", "text": "é ünïcode"})
    loaded = rf.load()
    assert [r["slot"] for r in loaded.records] == ["s0", "s1", "s2", "s3", "s4"]
    assert loaded.torn_tail == b""
    assert rf.path.read_text(encoding="utf-8").count("\n") == 5


@pytest.mark.parametrize("tail", [b'{"slot": "s2", "res', b'{"slot": "s2"}', b"garbage\n"])
def test_a_torn_last_line_is_dropped_and_repaired(tmp_path, tail):
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.append({"slot": "s0"})
    rf.append({"slot": "s1"})
    with open(rf.path, "ab") as fh:
        fh.write(tail)
    loaded = rf.load()
    assert [r["slot"] for r in loaded.records] == ["s0", "s1"]
    assert loaded.torn_tail == tail
    rf.repair()
    rf.append({"slot": "s2"})
    assert [r["slot"] for r in rf.load().records] == ["s0", "s1", "s2"]
    assert rf.load().torn_tail == b""


def test_damage_in_the_middle_is_reported_with_its_line(tmp_path):
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.path.write_text('{"slot": "s0"}\nnot json\n{"slot": "s2"}\n')
    with pytest.raises(ResultsError, match=r"line 2 is damaged"):
        rf.load()


def test_a_killed_writer_never_leaves_more_than_a_torn_tail(tmp_path):
    path = tmp_path / "results.jsonl"
    code = (
        "import sys; from referee.tournament.results import ResultsFile\n"
        "rf = ResultsFile(sys.argv[1])\n"
        "i = 0\n"
        "while True:\n"
        "    rf.append({'slot': f's{i}', 'pad': 'x' * 20000}); i += 1\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)])
    try:
        deadline = time.monotonic() + 60
        while not path.exists() or path.stat().st_size < 200_000:
            assert proc.poll() is None and time.monotonic() < deadline, "the writer did not get going"
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    rf = ResultsFile(path)
    loaded = rf.repair()
    slots = [r["slot"] for r in loaded.records]
    assert slots == [f"s{i}" for i in range(len(slots))] and len(slots) >= 10
    rf.append({"slot": "after"})
    assert rf.load().records[-1] == {"slot": "after"}


def test_folder_lock_is_exclusive_and_released(tmp_path):
    with FolderLock(tmp_path):
        code = "import sys; from referee.tournament.results import FolderLock; FolderLock(sys.argv[1]).acquire()"
        proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
        assert proc.returncode != 0 and "another run is writing to this folder" in proc.stderr
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
