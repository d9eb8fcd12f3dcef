"""The page's replay entries (referee.render.html.game_json) are made from the engine's
stone bitsets, a turn's changes read off the two positions around it: they must be, byte
for byte, what the version that named, sorted and looked up every touched point made. That
version is kept here, verbatim, as the reference, and both are run on varied records:
games played to the end on several boards, pie setups, forfeits of every kind, void games,
resignations, hand-written records the engine refuses (the ``err`` text), notes, unicode
labels."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.engine import Color, Position, TurnError
from referee.play.records import (
    BotEntry,
    BotStats,
    ChoiceEntry,
    FaultEntry,
    Forensics,
    GameRecord,
    Outcome,
    SetupEntry,
    SlotInfo,
    Termination,
    TurnEntry,
    parse_line,
)
from referee.render.html import ALPHABET, _script_json, game_json, line_entry
from referee.render.svg import layout, read_turn

DATA = Path(__file__).parent / "data"

# ---------------------------------------------------------------------- the reference (verbatim)

_STATE = {None: 0, Color.BLACK: 1, Color.WHITE: 2}


def _code(point: int, state: int) -> str:
    v = 3 * point + state
    return ALPHABET[v >> 6] + ALPHABET[v & 63]


def _seconds(x: float | None) -> str:
    return "-" if x is None else str(round(x * 1000))


def _stones(position: Position) -> dict[str, Color]:
    out = {p: Color.BLACK for p in position.stones(Color.BLACK)}
    out.update({p: Color.WHITE for p in position.stones(Color.WHITE)})
    return out


def score_breakdown(position: Position) -> list[dict[str, Any]]:
    """Per colour (Black first): every group's size, the distinct sizes that score, their
    sum, their count, the half point for the strictly largest group, and the total."""
    sizes = [[len(g) for g in position.groups(c)] for c in (Color.BLACK, Color.WHITE)]
    totals = position.score()
    out = []
    for me in range(2):
        distinct = sorted(set(sizes[me]), reverse=True)
        half = max(sizes[me], default=0) > max(sizes[1 - me], default=0)
        out.append(
            {
                "groups": sizes[me],
                "sizes": distinct,
                "sum": sum(distinct),
                "count": len(distinct),
                "half": half,
                "total": totals[me],
            }
        )
    return out


def game_data(record: GameRecord) -> dict[str, Any]:
    """One game as the page's data: the record's facts plus, from the engine, the stones
    that change with the setup and with each turn (``d``: one space-separated token per
    position change, the setup's first) and the final position's score breakdown."""
    lay = layout(record.size)
    index = lay.index
    pos = Position.new(record.size)
    state: dict[str, Color] = {}
    tokens: list[str] = []
    replay_error = None
    if record.setup is not None:
        try:
            pos = pos.setup(record.setup.black, record.setup.white)
        except TurnError as exc:
            replay_error = f"setup {record.setup.black} {record.setup.white}: {exc}"
    state = _stones(pos)
    tokens.append(
        "".join(_code(index[p], _STATE[c]) for p, c in sorted(state.items(), key=lambda x: index[x[0]]))
    )
    if replay_error is None:
        for turn in record.turns:
            try:
                nxt = pos.play(turn.turn)
                placement, steals = read_turn(record.size, turn.turn)
            except TurnError as exc:
                replay_error = f"turn {turn.number} {turn.turn}: {exc}"
                break
            # A turn changes only the points its notation names; the engine says what
            # each of them holds afterwards (checked against the whole board at the end).
            touched = ([placement] if placement is not None else []) + [p for s in steals for p in s]
            changes = []
            for p in sorted(set(touched), key=index.__getitem__):
                after = nxt.stone_at(p)
                if after is not state.get(p):
                    changes.append(_code(index[p], _STATE[after]))
                    if after is None:
                        state.pop(p, None)
                    else:
                        state[p] = after
            tokens.append("".join(changes))
            pos = nxt
        if replay_error is None and state != _stones(
            pos
        ):  # pragma: no cover - a turn changed a point it does not name
            replay_error = "the replay's stones differ from the engine's"
    opening = 0
    while opening < len(record.turns) and record.turns[opening].opening:
        opening += 1
    fault = record.fault
    data: dict[str, Any] = {
        "id": record.game_id,
        "n": record.size,
        "b": [b.label for b in record.bots],
        "bn": [" ".join(x for x in (b.name, b.version) if x) for b in record.bots],
        "k": record.black,
        "st": None
        if record.setup is None
        else [record.setup.black, record.setup.white, record.setup.by, record.setup.seconds],
        "ch": None
        if record.choice is None
        else [record.choice.by, record.choice.color.value, record.choice.seconds],
        "op": opening,
        "r": record.result,
        "o": record.outcome.value,
        "m": record.termination.value,
        "w": record.winner,
        "re": record.reason,
        "f": None
        if fault is None
        else {
            "seat": fault.seat,
            "kind": fault.kind.value,
            "command": fault.command,
            "received": fault.received,
            "seconds": getattr(fault, "seconds", None),
        },
        "sc": None if record.score is None else list(record.score),
        "fs": score_breakdown(pos),
        "no": list(record.notes),
        "t": " ".join(t.turn for t in record.turns),
        "s": " ".join(_seconds(t.seconds) for t in record.turns),
        "d": " ".join(tokens),
    }
    colors = "".join(t.color.letter for t in record.turns)
    if colors != ("bw" * len(colors))[: len(colors)]:  # only when the colours do not simply alternate
        data["tc"] = colors
    if replay_error is not None:
        data["err"] = replay_error
    if record.forensics is not None:  # only games that ended in a fault have them
        data["fx"] = {"lines": record.forensics.lines, "stderr": record.forensics.stderr}
    return data


def old_game_json(record: GameRecord) -> str:
    return _script_json(game_data(record))


# ---------------------------------------------------------------------- records


def _bot(label: str, rng: random.Random) -> BotEntry:
    return BotEntry(
        label=label,
        command=f"./{label}",
        name=rng.choice([None, label.upper(), "ünï"]),
        version=rng.choice([None, "", "1.2"]),
        stats=BotStats(rng.randrange(100), rng.random(), rng.random(), rng.random() * 100),
    )


def played(
    size: int,
    seed: int,
    *,
    pie: bool = False,
    stop: int | None = None,
    labels: tuple[str, str] = ("alpha", "beta"),
) -> GameRecord:
    """A random game on ``size``, to the end (or ``stop`` turns), with or without the pie
    setup and choice."""
    rng = random.Random(seed)
    pos = Position.new(size)
    setup = choice = None
    if pie:
        points = sorted(pos.legal_placements())
        bp, wp = rng.sample(points, 2)
        setup = SetupEntry(bp, wp, by=rng.choice([None, 0]), seconds=rng.choice([None, 0.25]))
        pos = pos.setup(bp, wp)
        choice = ChoiceEntry(1, rng.choice(list(Color)), 0.125)
    turns: list[TurnEntry] = []
    while not pos.is_over and (stop is None or len(turns) < stop):
        color = pos.to_move
        turn = pos.random_turn(rng)
        pos = pos.play(turn)
        opening = len(turns) < 2 and seed % 3 == 0
        seconds = None if opening else rng.choice([0.0, 0.0004, 1.5, 0.0123456])
        turns.append(TurnEntry(len(turns) + 1, color, turn, seconds, None, opening))
    over = pos.is_over
    b, w = pos.score()
    outcome = Outcome.BLACK_WINS if b > w else Outcome.WHITE_WINS if w > b else Outcome.DRAW
    return GameRecord(
        game_id=f"g-{size}-{seed}",
        size=size,
        opening="pie" if pie else "none",
        time_control={"move": 1.0},
        bots=[_bot(labels[0], rng), _bot(labels[1], rng)],
        black=0,
        white=1,
        setup=setup,
        choice=choice,
        turns=turns,
        result=pos.result() if over else "void",
        outcome=outcome if over else Outcome.VOID,
        termination=Termination.SCORE if over else Termination.VOID,
        winner=None if not over or outcome is Outcome.DRAW else (0 if outcome is Outcome.BLACK_WINS else 1),
        reason="" if over else "stopped",
        score=(b, w) if over else None,
        tournament=SlotInfo("t", f"s-{seed}", seed, 1, f"p-{seed // 2}"),
    )


def forfeit(record: GameRecord, kind: Termination, seat: int, **fault: Any) -> GameRecord:
    winner = 1 - seat
    lines = [["> genmove b", "< = a1"], ["> play b a1", "<? partial"]]
    return replace(
        record,
        result=("W+" if winner else "B+") + kind.result_suffix,
        outcome=Outcome.WHITE_WINS if winner else Outcome.BLACK_WINS,
        termination=kind,
        winner=winner,
        reason=f"{kind.value} by seat {seat}: <b>&amp;",
        fault=FaultEntry(seat, kind, fault.get("command"), fault.get("received"), fault.get("seconds")),
        score=None,
        forensics=None if kind is Termination.RESIGN else Forensics(lines, fault.get("stderr")),
    )


def varied() -> list[GameRecord]:
    out: list[GameRecord] = []
    for size in (2, 3, 4, 5, 7, 9, 13):
        for seed in range(3 if size != 13 else 1):
            out.append(played(size, seed))
            out.append(played(size, 100 + seed, pie=True))
    base = played(7, 7)
    out.append(played(5, 8, labels=("bot é 漢字 🙂", 'q"u</script>\\te')))
    out.append(replace(played(5, 9), notes=["note <one>", "ünïcödé \u2028 line"]))
    out.append(forfeit(played(6, 10, stop=12), Termination.ILLEGAL, 0, command="genmove b", received="= zz9"))
    out.append(forfeit(played(6, 11, stop=7), Termination.TIME, 1, command="genmove w", seconds=1.0625))
    out.append(
        forfeit(played(5, 12, stop=3), Termination.CRASH, 0, command="genmove b", stderr="Traceback\nboom")
    )
    out.append(forfeit(played(5, 13, stop=0), Termination.PROTOCOL, 1, command="name", received="??"))
    out.append(forfeit(played(7, 14, stop=20, pie=True), Termination.RESIGN, 1, command="genmove w"))
    out.append(replace(played(5, 15, stop=0), reason="could not start: <no such file>"))
    out.append(replace(played(4, 16, stop=5), reason="harness fault"))
    # Hand-written records the engine refuses at some turn: the replay stops there.
    for at in (0, 1, 5, 30):
        turns = list(base.turns)
        pos = Position.new(7)
        for t in turns[:at]:
            pos = pos.play(t.turn)
        bad = "pass" if not pos.must_pass else turns[at].turn
        turns[at] = replace(turns[at], turn=bad if at != 5 else turns[0].turn)
        out.append(replace(base, game_id=f"bad-{at}", turns=turns))
    turns = list(base.turns)
    turns[3] = replace(turns[3], turn="not a turn")
    out.append(replace(base, game_id="bad-text", turns=turns))
    turns = list(base.turns)
    turns[2] = replace(turns[2], turn=turns[2].turn.upper())  # any case reads
    out.append(replace(base, game_id="upper", turns=turns))
    pie = played(5, 17, pie=True)
    assert pie.setup is not None
    out.append(replace(pie, game_id="bad-setup", setup=replace(pie.setup, white=pie.setup.black)))
    out.append(replace(pie, game_id="off-board-setup", setup=replace(pie.setup, black="z99")))
    # Colours that do not simply alternate (a pass-less record written by hand).
    out.append(replace(base, game_id="colors", turns=[replace(t, color=Color.BLACK) for t in base.turns]))
    steals = [r for r in out if any(" " in t.turn or ">" in t.turn for t in r.turns)]
    assert steals, "no game with a steal among the varied records"
    return out


def old_line_entry(line: bytes) -> tuple[str, object]:
    """What a run's replays made of a results line before (parse_line, then game_json):
    the record's slot, void and board and the entry, or the reason it is no record."""
    try:
        record = parse_line(line)
    except ValueError as exc:
        return "rejected", str(exc)
    return "entry", (record.slot, record.is_void, record.size, old_game_json(record))


def new_line_entry(line: bytes) -> tuple[str, object]:
    try:
        record, entry = line_entry(line)
    except ValueError as exc:
        return "rejected", str(exc)
    return "entry", (record.slot, record.is_void, record.size, entry)


@pytest.mark.parametrize("record", varied(), ids=lambda r: r.game_id)
def test_the_same_entry_as_the_reference(record: GameRecord) -> None:
    new = game_json(record)
    assert new == old_game_json(record)
    # And from a results line, as the run's replays read it.
    line = record.to_json().encode()
    assert (
        new_line_entry(line)
        == old_line_entry(line)
        == ("entry", (record.slot, record.is_void, record.size, new))
    )


def _odd_lines() -> list[bytes]:
    """Results lines whose turns are not all plain turn objects, or that are no record."""
    base = json.loads(played(5, 3).to_json())
    lines = [b"", b"[]", b"{", b"null", b'"text"', b"{}", json.dumps({**base, "schema": 2}).encode()]

    def with_turn(k: int, turn: object) -> None:
        turns = list(base["turns"])
        turns[k] = turn
        lines.append(json.dumps({**base, "turns": turns}).encode())

    first = base["turns"][0]
    with_turn(0, {**first, "late": 0.5})  # a field the referee writes only when late
    with_turn(1, {**base["turns"][1], "late": None})
    with_turn(0, {k: v for k, v in first.items() if k not in ("seconds", "left", "opening")})
    with_turn(0, {**first, "extra": 1})  # no such field: not a record
    with_turn(0, {k: v for k, v in first.items() if k != "turn"})
    with_turn(0, {k: v for k, v in first.items() if k != "color"})
    with_turn(0, {**first, "color": "b"})
    with_turn(0, {**first, "color": ["black"]})
    with_turn(0, {**first, "color": None})
    with_turn(0, [["number", 1], ["color", "black"], ["turn", first["turn"]]])  # dict() reads pairs
    with_turn(0, "a1")
    with_turn(0, 7)
    with_turn(0, None)
    with_turn(2, {**base["turns"][2], "turn": "zz99"})
    with_turn(2, {**base["turns"][2], "opening": 1, "seconds": None})
    turns: object
    for turns in ({}, "abc", 5, None, [], {"a": 1}):
        lines.append(json.dumps({**base, "turns": turns}).encode())
    lines.append(json.dumps({k: v for k, v in base.items() if k != "turns"}).encode())
    lines.append(json.dumps({k: v for k, v in base.items() if k != "bots"}).encode())
    lines.append(json.dumps({**base, "setup": {"black": "a1"}}).encode())
    lines.append(json.dumps({**base, "outcome": "nobody"}).encode())
    return lines


@pytest.mark.parametrize("line", _odd_lines())
def test_odd_lines_read_as_before(line: bytes) -> None:
    assert new_line_entry(line) == old_line_entry(line)


def test_errors_are_kept() -> None:
    errors = [json.loads(game_json(r)).get("err") for r in varied()]
    assert sum(e is not None for e in errors) >= 6
    assert any(e and e.startswith("setup ") for e in errors)


def test_the_shipped_records() -> None:
    """Every record kept under tests/data that reads."""
    seen = 0
    for path in sorted(DATA.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                record = parse_line(line)
            except ValueError:
                continue
            assert game_json(record) == old_game_json(record), (path, record.game_id)
            assert new_line_entry(line) == old_line_entry(line), (path, record.game_id)
            seen += 1
    assert seen > 0
