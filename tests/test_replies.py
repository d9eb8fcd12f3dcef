"""The stdout side of a bot process, with no process: bytes in, the request resolved or the
bot's fault recorded (what BotProcess's reader does with each chunk it reads)."""

from __future__ import annotations

from protocol import commands
from referee.play.faults import BotCrashed, BotProtocolError
from referee.play.logs import Transcript
from referee.play.replies import Replies


def replies() -> Replies:
    return Replies("T", Transcript(None, 1 << 16), max_line=1 << 10)


def test_a_response_split_anywhere_resolves_the_request_once_complete() -> None:
    r = replies()
    pending = r.expect(commands.name().with_id(3))
    for chunk in (b"=", b"3 rand", b"om\n", b"\n"):
        assert pending.response is None
        assert r.feed(chunk)
    assert pending.response is not None and r.pending is None and r.fault is None
    assert pending.response is not None and pending.response.text == "random" and pending.response.id == 3


def test_a_line_while_idle_is_a_stray_line_that_breaks_the_bot() -> None:
    r = replies()
    pending = r.expect(commands.name().with_id(1))
    assert r.feed(b"=1 x\n\n")
    assert pending.response is not None
    assert not r.feed(b"=2 surprise\n")
    assert isinstance(r.fault, BotProtocolError) and "after the response to this command was complete" in str(
        r.fault
    )
    assert "'1 name'" in str(r.fault)


def test_blank_lines_while_idle_are_fine() -> None:
    r = replies()
    assert r.feed(b"\n\n")
    assert r.fault is None


def test_a_wrong_id_is_a_protocol_fault_that_wakes_the_request() -> None:
    r = replies()
    pending = r.expect(commands.name().with_id(7))
    assert not r.feed(b"=8 random\n\n")
    assert pending.response is None and isinstance(r.fault, BotProtocolError)
    assert "received '=8 random'" in str(r.fault)


def test_end_of_output_mid_response_is_a_crash_and_expected_end_is_not() -> None:
    r = replies()
    r.expect(commands.list_commands().with_id(2))
    r.feed(b"=2 name\nversion\n")
    r.eof(expected=False)
    assert isinstance(r.fault, BotCrashed) and "in the middle of a response" in str(r.fault)
    quiet = replies()
    quiet.eof(expected=True)
    assert quiet.fault is None
    idle = replies()
    idle.eof(expected=False)
    assert isinstance(idle.fault, BotCrashed) and "while no command was in flight" in str(idle.fault)


def test_only_the_first_fault_is_kept() -> None:
    r = replies()
    r.expect(commands.name().with_id(1))
    r.feed(b"garbage\n")
    first = r.fault
    r.eof(expected=False)
    assert r.fault is first
