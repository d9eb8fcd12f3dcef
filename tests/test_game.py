"""The game loop on in-memory players: openings, clocks, forfeits, voids, notes, records.

Every game here is the real :func:`play_game` against :class:`MemoryPlayer` (the SDK's bot
session with no process), so a game takes milliseconds and time is trio's: tests that
need time to pass use ``autojump_clock``, and clock arithmetic is exact. Process faults
(crash, hang, flood, grandchild, signals) are in test_game_process.py.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing
from games import check_scored, replay

from protocol.bot import Bot
from referee.engine import Color, Position, iter_points
from referee.play.game import play_game
from referee.play.memory import Answer, Fault, Injection, MemoryPlayer
from referee.play.records import GameRecord, Outcome, Termination
from referee.play.spec import GameSpec, Opening, OpeningKind, TimeControl
from referee.tournament.config.openings import check_opening
from sample_bots.greedy_bot import GreedyBot
from sample_bots.random_bot import RandomBot

PER_MOVE = TimeControl.fixed(0.5, margin=0.3)
FISCHER = TimeControl.fischer(3.0, 0.1, margin=0.3)


def player(label: str, seed: int = 1, bot: Bot | None = None, **options: object) -> MemoryPlayer:
    return MemoryPlayer(bot if bot is not None else RandomBot(seed=seed), label=label, **options)  # type: ignore[arg-type]


async def play(first: MemoryPlayer, second: MemoryPlayer, spec: GameSpec) -> GameRecord:
    async with trio.open_nursery() as nursery:
        return await play_game(first, second, spec, start_in=nursery)


# ------------------------------------------------------------------ full games


@pytest.mark.parametrize(
    ("opening", "clock", "size"),
    [
        (OpeningKind.PIE, PER_MOVE, 4),
        (OpeningKind.PIE, FISCHER, 3),
        (OpeningKind.EMPTY, PER_MOVE, 3),
        (OpeningKind.EMPTY, FISCHER, 4),
        (OpeningKind.RANDOM, PER_MOVE, 4),
        (OpeningKind.BOOK, FISCHER, 3),
    ],
)
async def test_full_game(opening: OpeningKind, clock: TimeControl, size: int) -> None:
    setup = None
    if opening is OpeningKind.RANDOM:
        setup = check_opening(size, "a1", "d4", ["b2"])
    elif opening is OpeningKind.BOOK:
        setup = check_opening(size, "c3", "b2")
    spec = GameSpec(size=size, opening=opening, setup=setup, time_control=clock, game_id="full")
    a, b = player("A", 3), player("B", 4, bot=GreedyBot(seed=4))
    record = await play(a, b, spec)
    check_scored(record)
    if opening is OpeningKind.PIE:
        assert record.setup is not None and record.setup.by == 0
        assert record.choice is not None and record.choice.by == 1
        assert record.seat_of(record.choice.color) == 1
    else:
        assert (record.black, record.white) == (0, 1)
    if setup is not None:
        assert record.setup is not None and record.setup.by is None
        assert [t.turn for t in record.turns if t.opening] == list(setup.turns)
    fischer = clock.kind.value == "fischer"
    assert all((t.left is not None) == fischer for t in record.turns if not t.opening)
    assert all(t.opening or t.seconds is not None for t in record.turns)
    ra, rb = record.bots
    assert ra.final_score == record.result and rb.final_score == record.result
    assert (ra.name, rb.name) == ("random", "greedy")
    assert ra.stats.requests == len(a.sent) - 4  # all but the four handshake commands
    assert 0 <= ra.stats.thinking_seconds <= ra.stats.bot_seconds
    # Every turn reached both bots: the mover's genmove, the other's play.
    assert a.count("genmove") + b.count("genmove") == len([t for t in record.turns if not t.opening])
    given = len(setup.turns) if setup is not None else 0
    assert a.count("play") + b.count("play") == (len(record.turns) - given) + 2 * given
    assert record.bots[0].pid is None and record.bots[0].returncode is None


async def test_players_are_reused_from_game_to_game() -> None:
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    a, b = player("A", 5), player("B", 6)
    async with trio.open_nursery() as nursery:
        first = await play_game(a, b, spec, start_in=nursery)
        second = await play_game(b, a, spec)  # already started: no second handshake
    for record in (first, second):
        check_scored(record)
    assert [e.label for e in second.bots] == ["B", "A"]
    assert a.count("protocol_version") == 1 and a.count("clear_board") == 2


async def test_commands_a_game_sends_in_order() -> None:
    """The handshake, the per-game reset, time_settings, then time_left before genmove."""
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    a, b = player("A", 1, board_size=3), player("B", 2)
    record = await play(a, b, spec)
    check_scored(record)
    names = [line.split()[1] for line in a.sent]
    assert names[:5] == ["protocol_version", "name", "version", "list_commands", "boardsize"]
    assert names[5:8] == ["boardsize", "clear_board", "time_settings"]
    assert a.sent[7].endswith("time_settings 0 0.5 1")
    assert names[8:10] == ["time_left", "genmove"]
    assert names[-1] == "final_score"


# ------------------------------------------------------------------ the fault matrix


def _missing_steal(pos: Position) -> str | None:
    turns = [t for t in pos.legal_turns() if "," in t]
    return turns[0].rsplit(",", 1)[0] if turns else None


def _extra_steal(pos: Position) -> str | None:
    enemy = pos.stones(pos.to_move.opponent)
    turns = pos.legal_turns()
    if not enemy or turns == ["pass"]:
        return None
    return f"{turns[0]},{enemy[0]}>{enemy[0]}"


def _merge(pos: Position) -> str | None:
    legal = set(pos.legal_placements())
    occupied = set(pos.stones(Color.BLACK)) | set(pos.stones(Color.WHITE))
    merges = [p for p in iter_points(pos.size) if p not in legal and p not in occupied]
    return merges[0] if merges else None


# (command, injection, nth, seat of the faulty bot, opening, termination, text expected in the reason)
FAULTS: list[tuple[str, Injection, int, int, OpeningKind, Termination, str]] = [
    (
        "genmove",
        Fault.TIMEOUT,
        1,
        1,
        OpeningKind.EMPTY,
        Termination.TIME,
        "no complete answer within 0.800 s",
    ),
    ("play", Fault.TIMEOUT, 2, 0, OpeningKind.EMPTY, Termination.TIME, "no complete answer within 1.000 s"),
    ("gensetup", Fault.TIMEOUT, 1, 0, OpeningKind.PIE, Termination.TIME, "gensetup"),
    ("genmove", Fault.CRASH, 2, 0, OpeningKind.PIE, Termination.CRASH, "closed its output"),
    ("genmove", Fault.GARBAGE, 1, 0, OpeningKind.EMPTY, Termination.PROTOCOL, "'this is not a response'"),
    ("genmove", Fault.WRONG_ID, 1, 1, OpeningKind.EMPTY, Termination.PROTOCOL, "id"),
    ("genmove", Fault.REFUSE, 1, 0, OpeningKind.EMPTY, Termination.PROTOCOL, "answered '?'"),
    ("play", Fault.REFUSE, 1, 1, OpeningKind.EMPTY, Termination.PROTOCOL, "play black"),
    ("genmove", Fault.ILLEGAL, 1, 1, OpeningKind.PIE, Termination.ILLEGAL, "is occupied"),
    ("genmove", Answer(_merge), 0, 0, OpeningKind.EMPTY, Termination.ILLEGAL, "would merge"),
    (
        "genmove",
        Answer(_missing_steal),
        0,
        1,
        OpeningKind.EMPTY,
        Termination.ILLEGAL,
        "missing compulsory steal",
    ),
    ("genmove", Answer(_extra_steal), 0, 0, OpeningKind.PIE, Termination.ILLEGAL, "extra steal"),
    ("genmove", Answer("c2 c3"), 1, 0, OpeningKind.EMPTY, Termination.ILLEGAL, "not a turn"),
    ("genmove", Answer("zz99"), 1, 1, OpeningKind.PIE, Termination.ILLEGAL, "illegal turn"),
    ("gensetup", Fault.ILLEGAL, 1, 0, OpeningKind.PIE, Termination.ILLEGAL, "bad setup"),
    ("choose_color", Fault.ILLEGAL, 1, 1, OpeningKind.PIE, Termination.ILLEGAL, "bad colour choice"),
    ("genmove", Fault.RESIGN, 2, 1, OpeningKind.EMPTY, Termination.RESIGN, "resigned"),
]


@pytest.mark.parametrize(
    ("command", "injection", "nth", "seat", "opening", "termination", "fragment"),
    FAULTS,
    ids=[f"{f[0]}-{f[1].name if isinstance(f[1], Fault) else 'answer'}-{f[5].value}" for f in FAULTS],
)
async def test_fault(
    command: str,
    injection: Injection,
    nth: int,
    seat: int,
    opening: OpeningKind,
    termination: Termination,
    fragment: str,
    autojump_clock: trio.testing.MockClock,
) -> None:
    good, bad = player("good", 7), player("bad", 8, board_size=4 if command == "boardsize" else None)
    bad.inject(command, injection, nth=nth)
    pair = (bad, good) if seat == 0 else (good, bad)
    spec = GameSpec(size=4, opening=opening, time_control=PER_MOVE, command_timeout=1.0, game_id="f")
    record = await play(*pair, spec)
    assert record.termination is termination, record.reason
    assert record.winner == 1 - seat and record.loser == seat
    assert record.fault is not None and record.fault.seat == seat and record.fault.kind is termination
    assert record.fault.command  # names the command
    assert "bot bad" in record.reason and fragment in record.reason, record.reason
    winner_color = Color.BLACK if record.black == record.winner else Color.WHITE
    assert record.result == f"{winner_color.letter.upper()}+{termination.result_suffix}"
    replay(record)  # every turn before the fault was legal and is recorded
    assert GameRecord.from_json(record.to_json()) == record


async def test_a_pie_forfeit_before_the_choice_records_default_colours() -> None:
    bad = player("bad", 1)
    bad.inject("gensetup", Fault.ILLEGAL)
    record = await play(
        bad, player("good", 2), GameSpec(size=3, opening=OpeningKind.PIE, time_control=PER_MOVE)
    )
    assert (record.black, record.white) == (0, 1) and record.winner == 1 and record.result == "W+F"
    assert "the game ended before colours were chosen; seat 0 is recorded as Black" in record.notes


# ------------------------------------------------------------------ void games


async def test_a_program_that_cannot_start_voids_the_game() -> None:
    spec = GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    record = await play(player("good"), player("ghost", start_error="No such file or directory"), spec)
    assert (
        record.termination is Termination.VOID and record.result == "void" and record.outcome is Outcome.VOID
    )
    assert record.winner is None and "cannot start" in record.reason and "ghost" in record.reason


async def test_both_handshakes_failing_voids_the_game() -> None:
    a, b = player("A"), player("B")
    a.inject("protocol_version", Fault.GARBAGE)
    b.inject("name", Fault.REFUSE)
    record = await play(a, b, GameSpec(size=3, opening=OpeningKind.PIE, time_control=PER_MOVE))
    assert record.termination is Termination.VOID and record.winner is None
    assert record.reason.startswith("both bots failed to start: bot A") and "bot B" in record.reason


EARLY = [
    ("boardsize", Fault.REFUSE, 1, 0, Termination.PROTOCOL, "boardsize"),
    ("protocol_version", Answer("3"), 1, 0, Termination.PROTOCOL, "expected '2'"),
    ("list_commands", Answer("two words"), 0, 1, Termination.PROTOCOL, "list_commands"),
    ("clear_board", Fault.CRASH, 0, 1, Termination.CRASH, "clear_board"),
]


@pytest.mark.parametrize(
    ("command", "injection", "nth", "seat", "kind", "fragment"), EARLY, ids=[f[0] for f in EARLY]
)
async def test_a_fault_before_the_first_decision_voids_and_names_the_bot(
    command: str, injection: Injection, nth: int, seat: int, kind: Termination, fragment: str
) -> None:
    # Issue 24: a start-up failure (the handshake, boardsize, clear_board) is never rated.
    good, bad = player("good", 7), player("bad", 8, board_size=4 if command == "boardsize" else None)
    bad.inject(command, injection, nth=nth)
    pair = (bad, good) if seat == 0 else (good, bad)
    spec = GameSpec(size=4, opening=OpeningKind.PIE, time_control=PER_MOVE, command_timeout=1.0, game_id="f")
    record = await play(*pair, spec)
    assert record.termination is Termination.VOID and record.winner is None, record.reason
    assert record.reason.startswith("start-up failure: bot bad failed before the game's first decision")
    assert fragment in record.reason
    assert record.fault is not None and record.fault.seat == seat and record.fault.kind is kind
    assert GameRecord.from_json(record.to_json()) == record


async def test_a_referee_bug_voids_the_game_and_names_it() -> None:
    # An opening the engine rejects can only come from our side (configs are checked
    # before any game): the game is void with the error, never a bot's loss.
    spec = GameSpec(size=3, opening=OpeningKind.BOOK, setup=Opening("a1", "a1"), time_control=PER_MOVE)
    record = await play(player("A"), player("B"), spec)
    assert record.termination is Termination.VOID and record.reason.startswith("referee error: ")
    assert record.fault is None and record.winner is None


async def test_the_overall_guard_voids(autojump_clock: trio.testing.MockClock) -> None:
    # Per-request deadlines longer than the whole-game guard: only the guard can end it.
    spec = GameSpec(
        size=3,
        opening=OpeningKind.EMPTY,
        time_control=TimeControl.fixed(30),
        command_timeout=30,
        game_timeout=1.0,
    )
    stuck = player("stuck")
    stuck.inject("genmove", Fault.TIMEOUT)
    record = await play(stuck, player("good"), spec)
    assert record.termination is Termination.VOID and "overall guard of 1 s" in record.reason


def test_spec_checks_setup_against_mode_and_bounds_the_guard() -> None:
    with pytest.raises(ValueError):
        GameSpec(opening=OpeningKind.BOOK)
    with pytest.raises(ValueError):
        GameSpec(opening=OpeningKind.PIE, setup=check_opening(3, "a1", "b2"))
    assert GameSpec(game_timeout=12.5).guard() == 12.5
    # The guard must never fire before a game whose bots use every deadline to the full
    # could end: every turn (at most two per point, a pass each), the pie decisions, and
    # each turn's time_left and play.
    for size, clock in ((5, PER_MOVE), (7, FISCHER)):
        spec = GameSpec(size=size, time_control=clock)
        turns = 2 * len(list(iter_points(size))) + 3
        thinking = (
            turns * PER_MOVE.per_move if clock is PER_MOVE else 2 * (FISCHER.main + turns * FISCHER.increment)
        )
        longest = thinking + turns * (clock.margin + 2 * spec.command_timeout)
        assert spec.guard() > longest


# ------------------------------------------------------------------ final_score and optional commands


@pytest.mark.parametrize(
    ("injection", "note"),
    [
        (Fault.REFUSE, "final_score check failed: bot liar, command"),
        (Fault.GARBAGE, "final_score check failed: bot liar"),
        (Answer("B+99"), "bot liar says the result is B+99; the engine's"),
        (Answer("nonsense"), "bot liar: final_score check:"),
    ],
    ids=["refused", "garbage", "disagrees", "unreadable"],
)
async def test_final_score_problems_are_noted_never_change_the_result(
    injection: Injection, note: str
) -> None:
    liar = player("liar", 3)
    liar.inject("final_score", injection)
    record = await play(
        liar, player("good", 4), GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    )
    check_scored(record)  # the engine's score stands
    assert any(n.startswith(note) for n in record.notes), record.notes


@pytest.mark.parametrize("command", ["time_settings", "time_left"])
async def test_a_refused_optional_command_is_noted_once_not_a_fault(command: str) -> None:
    b = player("B", 2)
    b.inject(command, Fault.REFUSE, nth=0)
    record = await play(player("A", 1), b, GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE))
    check_scored(record)
    assert record.notes.count(f"bot B answered '?' to {command}; carrying on") == 1


async def test_an_optional_command_that_never_answers_is_a_loss_on_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    b = player("B", 2)
    b.inject("time_left", Fault.TIMEOUT, nth=3)
    record = await play(player("A", 1), b, GameSpec(size=4, opening=OpeningKind.EMPTY, time_control=PER_MOVE))
    assert record.termination is Termination.TIME and record.loser == 1 and "time_left" in record.reason


# ------------------------------------------------------------------ clocks


async def test_fischer_clock_charges_exactly_and_adds_the_increment_after_turns_only(
    autojump_clock: trio.testing.MockClock,
) -> None:
    clock = TimeControl.fischer(10.0, 1.0, margin=0.2)
    a, b = player("A", 1), player("B", 2)
    a.think("gensetup", 0.25)
    a.think("genmove", 0.5)
    b.think("choose_color", 0.75)
    b.think("genmove", 0.9)
    record = await play(a, b, GameSpec(size=3, opening=OpeningKind.PIE, time_control=clock))
    check_scored(record)
    left = {0: 10.0 - 0.25, 1: 10.0 - 0.75}  # the pie decisions cost time, earn nothing
    for turn in record.turns:
        seat = record.seat_of(turn.color)
        assert seat is not None
        think = 0.5 if seat == 0 else 0.9
        assert turn.seconds == pytest.approx(think, abs=1e-6)
        left[seat] = max(0.0, left[seat] - think) + 1.0
        assert turn.left == pytest.approx(left[seat], abs=1e-6)
    # What the first bot heard before its first genmove: its clock after the setup.
    first_time_left = next(line for line in a.sent if " time_left " in line)
    assert first_time_left.endswith(" 9.75 0"), first_time_left


async def test_fischer_overrun_within_the_margin_leaves_only_the_increment(
    autojump_clock: trio.testing.MockClock,
) -> None:
    clock = TimeControl.fischer(1.0, 0.5, margin=0.3)
    a = player("A", 1)
    a.think("genmove", 1.2)  # past its first second, within the margin
    record = await play(a, player("B", 2), GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=clock))
    first = record.turns[0]
    assert first.left == pytest.approx(0.5)
    # Then 1.2 s against 0.5 + 0.3: a loss on time.
    assert record.termination is Termination.TIME and record.loser == 0


@pytest.mark.parametrize(("think", "lost"), [(0.79, False), (0.81, True)])
async def test_per_move_deadline_is_the_limit_plus_the_margin(
    think: float, lost: bool, autojump_clock: trio.testing.MockClock
) -> None:
    a = player("A", 1)
    a.think("genmove", think)
    record = await play(a, player("B", 2), GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE))
    if lost:
        assert record.termination is Termination.TIME and record.loser == 0
        assert "no complete answer within 0.800 s" in record.reason
    else:
        check_scored(record)
        assert all(t.seconds == pytest.approx(think) for t in record.turns if record.seat_of(t.color) == 0)


async def test_a_forfeit_records_how_long_the_faulty_answer_took(
    autojump_clock: trio.testing.MockClock,
) -> None:
    slow_liar = player("bad", 1)
    slow_liar.think("genmove", 0.25)
    slow_liar.inject("genmove", Fault.ILLEGAL, nth=2)
    record = await play(
        slow_liar, player("good", 2), GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    )
    assert record.termination is Termination.ILLEGAL and record.fault is not None
    assert record.fault.seconds == pytest.approx(0.25)
    hanger = player("bad", 1)
    hanger.inject("genmove", Fault.TIMEOUT)
    record = await play(
        hanger, player("good", 2), GameSpec(size=3, opening=OpeningKind.EMPTY, time_control=PER_MOVE)
    )
    assert record.fault is not None and record.fault.seconds == pytest.approx(0.8)  # the whole deadline
    assert GameRecord.from_json(record.to_json()) == record
