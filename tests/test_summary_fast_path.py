"""parse_summary reads a results line in place (no copy of its turns, no guess at its
encoding, no count of its brackets): it must accept exactly the lines the plain version
accepted, give the same summary, and reject every other line with the same reason. The
plain version is kept here, verbatim, as the reference."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee.cli.main import main
from referee.engine import Color
from referee.play.records import (
    _TURN_TEXT,
    _TURNS_LAST,
    SCHEMA_VERSION,
    BotEntry,
    BotStats,
    FaultEntry,
    GameRecord,
    GameSummary,
    Outcome,
    SetupEntry,
    SlotInfo,
    Termination,
    TurnEntry,
    _bot_summary_of,
    _moves_key,
    parse_line,
    parse_summary,
)
from referee.tournament.store import folder as folder_module
from referee.tournament.store.folder import load_standings, loaded_lines
from referee.tournament.store.pages import report_page
from referee.tournament.store.replays import Line, ReplayWindow, _offset_of
from referee.tournament.store.results import ResultsFile

DATA = Path(__file__).parent / "data"


def plain_parse_summary(line: bytes) -> GameSummary:
    """parse_summary as it was before it read lines in place (the reference)."""
    at = line.rfind(_TURNS_LAST)
    tail = line[at + len(_TURNS_LAST) :].rstrip()
    if at != -1 and tail.endswith(b"]}") and tail.count(b"]") == 1:
        try:
            data = json.loads(line[:at] + b"}")
        except ValueError as exc:
            raise ValueError(f"not JSON ({exc})") from None
        turns = b"|".join(_TURN_TEXT.findall(tail))
    else:
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("not a game record (a JSON object was expected)")
        turns = b""
    if not isinstance(data, dict):
        raise ValueError("not a game record (a JSON object was expected)")
    version = data.get("schema")
    if version != SCHEMA_VERSION:
        raise ValueError(f"unsupported record schema {version!r} (this referee reads {SCHEMA_VERSION})")
    try:
        if not turns and data.get("turns"):
            turns = b"|".join(str(t["turn"]).encode() for t in data["turns"])
        bots = data["bots"]
        labels = (str(bots[0]["label"]), str(bots[1]["label"]))
        fault = data["fault"]
        slot = data.get("tournament")
        setup = data["setup"]
        return GameSummary(
            game_id=data["game_id"],
            slot=slot["slot"] if slot is not None else data["game_id"],
            labels=labels,
            winner=data["winner"],
            termination=Termination(data["termination"]),
            fault=None
            if fault is None
            else FaultEntry(
                fault["seat"],
                Termination(fault["kind"]),
                None,
                None,
                late=fault.get("late"),
                overshoot=fault.get("overshoot"),
            ),
            pair_key=None if slot is None else slot["pair_key"],
            bots=(_bot_summary_of(bots[0]), _bot_summary_of(bots[1])),
            moves=_moves_key(
                labels, data["black"], None if setup is None else (setup["black"], setup["white"]), turns
            ),
            event=None if slot is None else str(slot["name"]),
        )
    except KeyError as exc:
        raise ValueError(f"record lacks the field {exc.args[0]!r}") from None
    except (TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"a field has the wrong type ({exc})") from None


def outcome_of(parse: Any, line: bytes) -> tuple[str, object]:
    """What ``parse`` makes of ``line``: its summary, or the reason it gave (any other
    exception is the parser's bug, and fails the test)."""
    try:
        return "summary", parse(line)
    except ValueError as exc:
        return "rejected", f"{type(exc).__name__}: {exc}"


def agrees(line: bytes) -> tuple[str, object]:
    fast, plain = outcome_of(parse_summary, line), outcome_of(plain_parse_summary, line)
    assert fast == plain, line
    return fast


# ---------------------------------------------------------------------- records


text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
odd_text = st.one_of(
    text,
    st.sampled_from(
        ['q"uote', "back\\slash", "é ü 漢字 🙂", ',"turns":[', "]}", "[", "\u2028\n\t", '"turn":"x"']
    ),
)
# What a bot's turn can be in a record: notation (the referee validates it), rarely more.
notation = st.from_regex(r"[a-k][0-9]{1,2}( x [a-k][0-9]{1,2}){0,2}", fullmatch=True)


@st.composite
def records(draw: st.DrawFn, turn_text: st.SearchStrategy[str] = notation) -> GameRecord:
    labels = draw(st.sampled_from([("a", "b"), ("bot é", 'q"b'), ("x\\y", "漢字"), ("same", "same2")]))
    bots = []
    for label in labels:
        late = draw(st.integers(0, 3))  # a record leaves out late_max when late is 0
        stats = BotStats(
            draw(st.integers(0, 500)),
            draw(st.floats(0, 10)),
            draw(st.floats(0, 10)),
            draw(st.floats(0, 1e4)),
            late,
            draw(st.floats(0, 1)) if late else 0.0,
        )
        bots.append(BotEntry(label, draw(odd_text), name=draw(st.none() | odd_text), stats=stats))
    record = GameRecord(
        draw(odd_text),
        7,
        draw(st.sampled_from(["empty", "pie", "book"])),
        {"kind": "per_move", "per_move": 0.5},
        bots,
    )
    record.black = draw(st.sampled_from([0, 1, None]))
    record.white = None if record.black is None else 1 - record.black
    colors = [Color.BLACK, Color.WHITE]
    record.turns = [
        TurnEntry(
            n + 1,
            colors[n % 2],
            draw(turn_text),
            draw(st.none() | st.floats(0, 10)),
            draw(st.none() | st.floats(0, 100)),
            opening=draw(st.booleans()),
            late=draw(st.none() | st.floats(0, 1)),
        )
        for n in range(draw(st.integers(0, 12)))
    ]
    if draw(st.booleans()):
        record.setup = SetupEntry(draw(notation), draw(notation), by=draw(st.sampled_from([0, 1, None])))
    ended = draw(st.sampled_from(list(Termination)))
    record.termination = ended
    if ended is Termination.VOID:
        record.outcome, record.winner = Outcome.VOID, None
    else:
        record.winner = draw(st.sampled_from([0, 1, None]))
        record.outcome = Outcome.DRAW if record.winner is None else Outcome.BLACK_WINS
    if ended.is_forfeit:
        record.fault = FaultEntry(
            draw(st.sampled_from([0, 1])),
            ended,
            draw(st.none() | odd_text),
            draw(st.none() | odd_text),
            draw(st.none() | st.floats(0, 10)),
            late=draw(st.none() | st.floats(0, 1)),
            overshoot=draw(st.none() | st.floats(0, 1)),
        )
    record.reason = draw(odd_text)
    record.notes = draw(st.lists(odd_text, max_size=3))
    if draw(st.booleans()):
        record.tournament = SlotInfo(draw(odd_text), draw(odd_text), 0, 1, draw(st.none() | odd_text))
    return record


def older_order(record: GameRecord) -> bytes:
    """The record's line with its turns before the other keys' end (an earlier version's
    order: the whole line is parsed)."""
    data = record.to_dict()
    turns = data.pop("turns")
    keys = list(data)
    data = {**{k: data[k] for k in keys[:-2]}, "turns": turns, **{k: data[k] for k in keys[-2:]}}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_a_record_s_summary_is_that_of_the_whole_record(record: GameRecord) -> None:
    """Real records (notation for turns; odd names, notes, ids; void games, forfeits,
    setups, late turns): the summary of the line is the summary of the parsed record,
    whichever order its keys are in."""
    whole = GameSummary.of(record)
    for line in (record.to_json().encode(), record.to_json().encode() + b" \r\n", older_order(record)):
        assert agrees(line) == ("summary", whole)
        assert GameSummary.of(parse_line(line)) == whole


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(records(turn_text=odd_text))
def test_odd_turns_are_read_as_the_plain_version_reads_them(record: GameRecord) -> None:
    """Turns that are not notation (quotes, backslashes, brackets, the key "turns" in a
    turn): whatever the plain version made of them, the fast one makes the same."""
    agrees(record.to_json().encode())
    agrees(older_order(record))


SNIPPETS = [
    b"]",
    b"[",
    b"}",
    b"{",
    b'"',
    b"\\",
    b",",
    b" ",
    b"\n",
    b"\x00",
    b"\xff",
    b"\xef\xbb\xbf",
    b"\xfe\xff",
    b'"turn":"',
    b'"turn":"x"',
    b',"turns":[',
    b',"turns":[]',
    b"]}",
    b"\\u00e9",
    b"\\ud800",
    b"NaN",
]


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """A real line, damaged: cut, with bytes put in, taken out or replaced."""
    line = draw(records(turn_text=st.one_of(notation, odd_text))).to_json().encode() + draw(
        st.sampled_from([b"", b"\n", b" \n", b"\r\n"])
    )
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(line)))
        kind = draw(st.sampled_from(["cut", "insert", "delete", "replace", "start"]))
        if kind == "cut":
            line = line[:at]
        elif kind == "insert":
            line = line[:at] + draw(st.sampled_from(SNIPPETS) | st.binary(max_size=3)) + line[at:]
        elif kind == "delete":
            line = line[:at] + line[at + draw(st.integers(1, 20)) :]
        elif kind == "replace":
            line = line[:at] + draw(st.sampled_from(SNIPPETS)) + line[at + 1 :]
        else:
            line = draw(st.sampled_from(SNIPPETS)) + line[draw(st.integers(0, 3)) :]
    return line


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
@example(b"")
@example(b"{}")
@example(b"[1, 2]")
@example(b'{"schema": 7}')
@example(b'{"schema": 1, "game_id": "x"}')
@example(b',"turns":[]}')
@example(b'{"schema":1,"turns":[]}')
@example(b'{"schema":1,"turns":[]} \n')
@example(b'{"schema":1,"turns":[{"turn":"a1"}]},"turns":[]}')
@example(b'\x00{"schema":1,"turns":[]}')
@example(b'{\x00"schema":1,"turns":[]}')
@example(b'\xef\xbb\xbf{"schema":1,"turns":[]}')
@example(b'{"schema":1,"termination":["score"],"turns":[]}')
@example(b'{"schema":1,"termination":"nope","turns":[]}')
def test_damaged_lines_are_rejected_for_the_same_reason(line: bytes) -> None:
    agrees(line)


def test_the_records_of_earlier_versions_are_read_as_before() -> None:
    lines = [
        line
        for path in (DATA / "v0.1" / "results.jsonl", DATA / "old_match" / "games.jsonl")
        for line in path.read_bytes().splitlines(keepends=True)
    ]
    assert len(lines) >= 10
    for line in lines:
        kind, summary = agrees(line)
        assert kind == "summary" and summary == GameSummary.of(parse_line(line))


@pytest.mark.parametrize("end", [b"", b"\n", b"  \t\n", b"\x0b\x0c\r\n"])
def test_the_turns_after_a_second_turns_key_are_the_record_s(end: bytes) -> None:
    """A line whose head holds the bytes of the turns key (a note that is an object) is
    read from the last one, as the plain version did."""
    record = GameRecord("g", 7, "empty", {}, [BotEntry("a", "a"), BotEntry("b", "b")], black=0, white=1)
    record.turns = [TurnEntry(1, Color.BLACK, "c3", 0.1, None)]
    record.termination, record.outcome, record.winner = Termination.SCORE, Outcome.BLACK_WINS, 0
    line = record.to_json().encode()
    line = line.replace(b'"notes":[]', b'"notes":[{"x":{"y":1},"turns":[1]}]') + end
    kind, summary = agrees(line)
    assert kind == "summary" and summary == GameSummary.of(record)


# ---------------------------------------------------------------------- a report reads once


def a_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    shutil.copytree(DATA / "v0.1", folder, ignore=shutil.ignore_patterns("match", "*.txt"))
    return folder


def fresh_page(folder: Path) -> str:
    """The page of ``folder`` made as if nothing had been read before."""
    folder_module._last = None
    st, title = load_standings(folder)
    folder_module._last = None  # the page reads its summaries and its lines itself
    return report_page(folder, st, title)


def test_a_report_s_page_finds_its_replays_where_the_scan_found_the_lines(tmp_path: Path) -> None:
    folder = a_folder(tmp_path)
    results = folder / "results.jsonl"
    st, title = load_standings(folder)
    seen = loaded_lines(results)
    assert seen is not None and len(seen.positions) == 6 and seen.end == results.stat().st_size
    with ReplayWindow(results, seen=seen) as window, ReplayWindow(results) as scanned:
        assert window.update() == scanned.update() == 6
        assert [vars(a) for a in window.lines] == [vars(b) for b in scanned.lines]
    assert report_page(folder, st, title) == fresh_page(folder)


def test_lines_found_by_a_scan_are_not_taken_for_a_file_that_changed_since(tmp_path: Path) -> None:
    folder = a_folder(tmp_path)
    results = folder / "results.jsonl"
    st, title = load_standings(folder)
    lines = results.read_bytes().splitlines(keepends=True)
    # Rewritten (longer): the first game left out, another (in a slot of its own) at the end.
    results.write_bytes(b"".join(lines[1:]) + lines[0].replace(b"r1-r2+g-01", b"r10-r2+g-01"))
    with ReplayWindow(results, seen=loaded_lines(results)) as window, ReplayWindow(results) as scanned:
        assert window.update() == scanned.update() == 6
        assert [vars(a) for a in window.lines] == [vars(b) for b in scanned.lines]
        assert window.lines[-1].slot == "r10-r2+g-01"
    page = report_page(folder, st, title)
    assert "r10-r2+g-01" in page
    folder_module._last = None
    assert page == report_page(folder, st, title)


def test_a_window_longer_than_the_lines_a_scan_kept_reads_the_file_itself(tmp_path: Path) -> None:
    results = a_folder(tmp_path) / "results.jsonl"
    loaded = ResultsFile(results).summaries(positions=2)
    assert loaded.lines is not None
    with ReplayWindow(results) as scanned:
        scanned.update()
        assert [offset for offset, _ in loaded.lines.positions] == [line.offset for line in scanned.lines][
            -2:
        ]
    with ReplayWindow(results, window=3, seen=loaded.lines) as window:
        assert (
            window.update() == 3
            and [line.offset for line in window.lines] == [line.offset for line in scanned.lines][-3:]
        )


@pytest.mark.parametrize("offset", [0, 7, 123456789012])
def test_a_cache_line_s_offset_is_read_off_its_header(offset: int) -> None:
    """The page cache's lines before the window are passed over by the offset their
    header starts with; a header in any other form is parsed whole (None here)."""
    header = Line(offset, "d" * 32, "s", False, 7).header(b"{}")
    raw = header + b"\t{}\n"
    assert _offset_of(raw, raw.index(b"\t")) == offset == json.loads(header)["offset"]
    for other in (b'{"offset":7, "x": 1}\t{}\n', b'{"offset": -7, "x": 1}\t{}\n', b'{"offset": 7}\t{}\n'):
        assert _offset_of(other, other.index(b"\t")) is None


def test_a_report_runs_the_cyclic_collector_seldom_and_sets_it_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = a_folder(tmp_path)
    before = gc.get_threshold()
    assert main(["report", str(folder), "--format", "html"]) == 0
    assert gc.get_threshold() == before
    assert capsys.readouterr().out == fresh_page(folder)
