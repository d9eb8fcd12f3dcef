"""The results file: durable appends, torn tails set aside, damaged lines skipped and named,
symlinks refused, every line read in bounded memory."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runs import on_fsync

from referee.errors import ResultsError
from referee.play.records import BotEntry, GameRecord, SlotInfo, parse_line
from referee.tournament.store import results as results_module
from referee.tournament.store.manifest import Manifest
from referee.tournament.store.results import FolderLock, ResultsFile


def rec(slot: str, pad: str = "") -> GameRecord:
    return GameRecord(
        game_id=slot, size=3, opening="pie",
        time_control={"kind": "per_move", "per_move": 1.0, "margin": 0.2},
        bots=[BotEntry("a", "bot-a"), BotEntry("b", "bot-b")], notes=["é ünïcode", pad] if pad else [],
        tournament=SlotInfo("t", slot, int(slot[1:]) if slot[1:].isdigit() else 0, 1, "k"),
    )  # fmt: skip


def slots(loaded) -> list[str]:
    return [r.slot for r in loaded.records]


def test_append_and_load_round_trip(tmp_path):
    rf = ResultsFile(tmp_path / "out" / "results.jsonl")
    assert rf.load().records == []
    for i in range(5):
        rf.append(rec(f"s{i}", "x"))
    loaded = rf.load()
    assert slots(loaded) == ["s0", "s1", "s2", "s3", "s4"]
    assert loaded.records[3] == rec("s3", "x")  # typed, whole, equal to what was written
    assert loaded.torn == 0 and loaded.skipped == []
    assert rf.path.read_text(encoding="utf-8").count("\n") == 5


@pytest.mark.parametrize("tail", [b'{"schema": 1, "game_id": "s2", "res', b'{"slot": "s2"}', b"garbage"])
def test_a_torn_last_line_is_set_aside_and_named(tmp_path, tail):
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.append(rec("s0"))
    rf.append(rec("s1"))
    with open(rf.path, "ab") as fh:
        fh.write(tail)
    loaded = rf.load()
    assert slots(loaded) == ["s0", "s1"]
    assert loaded.torn == len(tail) and loaded.skipped == []
    _, aside = rf.repair()
    assert aside is not None and aside.read_bytes() == tail  # kept, beside the file
    rf.append(rec("s2"))
    assert slots(rf.load()) == ["s0", "s1", "s2"]
    assert rf.load().torn == 0


def test_damage_in_the_middle_is_skipped_and_named_with_its_line(tmp_path):
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.path.write_text(rec("s0").to_json() + "\nnot json\n" + rec("s2").to_json() + "\ngarbage\n\n")
    loaded = rf.load()
    assert slots(loaded) == ["s0", "s2"]
    assert [s.lineno for s in loaded.skipped] == [2, 4] and "not JSON" in loaded.skipped[0].why
    line = loaded.skipped_line(rf.path)
    assert line is not None and "2 line(s) are not game records and are not rated: line 2 (not JSON" in line


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("{}", "unsupported record schema None"),
        ('{"schema": 1, "game_id": "x"}', "record lacks the field 'setup'"),
        ("[1, 2]", "not a game record"),
        ('{"schema": 7}', "unsupported record schema 7"),
    ],
)
@pytest.mark.parametrize("where", ["middle", "last"])
def test_a_line_that_is_json_but_not_a_record_is_named_never_dropped(tmp_path, line, why, where):
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.append(rec("s0"))
    with open(rf.path, "a") as fh:
        fh.write(line + "\n")
    if where == "middle":
        rf.append(rec("s2"))
    loaded = rf.load()
    assert [(s.lineno, why in s.why) for s in loaded.skipped] == [(2, True)]
    assert line + "\n" in rf.path.read_text()  # named, and left where it is


def test_a_killed_writer_never_leaves_more_than_a_torn_tail(tmp_path):
    path = tmp_path / "results.jsonl"
    code = (
        "import sys; sys.path.insert(0, sys.argv[2]); from test_results_file import rec\n"
        "from referee.tournament.store.results import ResultsFile\n"
        "rf = ResultsFile(sys.argv[1])\n"
        "i = 0\n"
        "while True:\n"
        "    rf.append(rec(f's{i}', 'x' * 20000)); i += 1\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(path), str(Path(__file__).parent)])
    try:
        deadline = time.monotonic() + 60
        while not path.exists() or path.stat().st_size < 200_000:
            assert proc.poll() is None and time.monotonic() < deadline, "the writer did not get going"
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    rf = ResultsFile(path)
    loaded, _ = rf.repair()
    kept = slots(loaded)
    assert kept == [f"s{i}" for i in range(len(kept))] and len(kept) >= 10
    rf.append(rec("after"))
    assert rf.load().records[-1] == rec("after")


def test_folder_lock_is_exclusive_and_released(tmp_path):
    with FolderLock(tmp_path):
        code = (
            "import sys; from referee.tournament.store.results import FolderLock; "
            "FolderLock(sys.argv[1]).acquire()"
        )
        proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
        assert proc.returncode != 0 and "another run is writing to this folder" in proc.stderr
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_last_records_keeps_only_the_tail(tmp_path):
    rf = ResultsFile(tmp_path / "results.jsonl")
    assert rf.last_records(3) == []
    for i in range(10):
        rf.append(rec(f"s{i}"))
    with open(rf.path, "ab") as fh:
        fh.write(b'{"torn')  # a torn last line is left out, as load() leaves it out
    assert [r.slot for r in rf.last_records(3)] == ["s7", "s8", "s9"]
    assert len(rf.last_records(100)) == 10


def fsyncs_of(monkeypatch, path: Path) -> list[None]:
    """A list that gets one entry per real ``os.fsync`` of ``path`` (the call still runs)."""
    calls: list[None] = []
    on_fsync(monkeypatch, path, lambda: calls.append(None))
    return calls


def test_write_leaves_the_record_in_the_file_and_sync_puts_it_on_disk(tmp_path, monkeypatch):
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.append(rec("s0"))  # something already there is taken as on disk
    synced = fsyncs_of(monkeypatch, rf.path)
    with rf.appender() as appender:
        assert not appender.unsynced
        appender.sync()
        assert synced == []  # nothing written: nothing to sync
        for i in (1, 2, 3):
            appender.write(rec(f"s{i}"))
        assert appender.unsynced and synced == []
        assert slots(rf.load()) == ["s0", "s1", "s2", "s3"]  # readable before any sync
        appender.sync()
        assert not appender.unsynced and len(synced) == 1  # three records, one sync
        appender.append(rec("s4"))  # append: write and sync
        assert not appender.unsynced and len(synced) == 2
        appender.write(rec("s5"))
    assert len(synced) == 3  # the close synced what was written since
    assert slots(rf.load()) == [f"s{i}" for i in range(6)]


def test_a_killed_run_keeps_every_record_it_wrote_without_a_sync(tmp_path):
    # Written, not synced, then SIGKILL: the file keeps them (only a crash of the
    # operating system could lose what a sync protects).
    path = tmp_path / "results.jsonl"
    code = (
        "import os, sys; sys.path.insert(0, sys.argv[2]); from test_results_file import rec\n"
        "from referee.tournament.store.results import ResultsFile\n"
        "w = ResultsFile(sys.argv[1]).appender()\n"
        "for i in range(50): w.write(rec(f's{i}'))\n"
        "print(int(w.unsynced), flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(path), str(Path(__file__).parent)], capture_output=True, text=True
    )
    assert run.returncode == -signal.SIGKILL and run.stdout == "1\n", run.stderr
    assert slots(ResultsFile(path).load()) == [f"s{i}" for i in range(50)]


def test_pick_parses_only_the_game_asked_for(tmp_path, monkeypatch):
    """``pick`` (what ``vastuz show --game`` and the server's game pages use) finds a game
    by id and by number in one pass, numbering as ``load`` does, and parses no line but the
    ones it may pick: a line made unparseable after the fact is never parsed unless wanted."""
    rf = ResultsFile(tmp_path / "results.jsonl")
    for i in range(12):
        rf.append(rec(f"s{i}", "x"))
    picked = rf.pick("s1")
    assert picked.total == 12 and picked.first_id == "s0" and picked.numbered is None
    assert [(n, r.game_id) for n, r in picked.found] == [(2, "s1")]  # s10 and s11 hold "s1" too: not them
    assert picked.found[0][1] == rec("s1", "x")
    assert rf.pick("s10", 4).numbered == rec("s3", "x") and rf.pick("s10").found[0][0] == 11
    assert rf.pick("nope").found == [] and rf.pick("nope").total == 12
    parsed: list[str] = []

    def counted(raw: bytes) -> GameRecord:
        record = parse_line(raw)
        parsed.append(record.game_id)
        return record

    monkeypatch.setattr(results_module, "parse_line", counted)
    assert rf.pick("s7").found[0][0] == 8 and parsed == ["s0", "s7"]  # the first (for its id) and s7
    monkeypatch.undo()

    # Lines that are not the game's are not parsed: damage them (still valid JSON lines,
    # but not records) and the game is still found, its number the same.
    text = rf.path.read_text(encoding="utf-8").splitlines()
    for k in (3, 5, 7):
        text[k] = text[k].replace('"schema":1', '"schema":7', 1)
    rf.path.write_text("\n".join(text) + "\n\n", encoding="utf-8")  # and a blank line: no record
    picked = rf.pick("s9")
    assert [(n, r.game_id) for n, r in picked.found] == [(10, "s9")] and picked.total == 12
    assert rf.pick("s3").found == [] and rf.pick(None, 4).numbered is None  # damaged: never picked
    assert [r.slot for r in rf.load().records] == [f"s{i}" for i in range(12) if i not in (3, 5, 7)]
    with open(rf.path, "ab") as fh:
        fh.write(b'{"schema": 1, "game_id": "s9", "tor')  # a torn tail: not a record
    assert rf.pick("s9").total == 12 and len(rf.pick("s9").found) == 1


@pytest.mark.parametrize("game_id", ["a/b", "é-1", 'q"uote', "plain"])
def test_pick_finds_an_id_however_a_writer_escaped_it(tmp_path, game_id):
    """JSON may write any character of an id as ``\\uXXXX`` (and ``/`` as ``\\/``): a line
    written so is still the game's."""
    rf = ResultsFile(tmp_path / "results.jsonl")
    rf.append(rec("s0"))
    record = rec("s1")
    record.game_id = game_id
    escaped = "".join(f"\\u{ord(c):04x}" for c in game_id)
    line = record.to_json().replace(json.dumps(game_id, ensure_ascii=False)[1:-1], escaped, 1)
    assert json.loads(line)["game_id"] == game_id and game_id not in line
    with open(rf.path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    rf.append(rec("s2"))
    assert [(n, r.game_id) for n, r in rf.pick(game_id).found] == [(2, game_id)]


def test_the_manifest_is_read_as_the_arenas_own_file_or_not_at_all(tmp_path):
    """A pipe or a link put in place of ``tournament.json`` (a bot can reach the folder) is
    an error that names it, at once: ``vastuz report`` does not wait on the pipe."""
    folder = tmp_path / "run"
    folder.mkdir()
    ResultsFile(folder / "results.jsonl").append(rec("s0"))
    os.mkfifo(folder / "tournament.json")
    with pytest.raises(ResultsError, match="is not a regular file"):
        Manifest.load(folder)
    report = [sys.executable, "-m", "referee.cli", "report", str(folder)]
    done = subprocess.run(report, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "tournament.json is not a regular file" in done.stderr, done.stderr
    (folder / "tournament.json").unlink()
    (folder / "elsewhere.json").write_text("{}")
    (folder / "tournament.json").symlink_to(folder / "elsewhere.json")
    with pytest.raises(ResultsError, match="is a symbolic link"):
        Manifest.load(folder)
