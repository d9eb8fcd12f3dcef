"""The stdout side of a bot process, with no process: bytes in, the request resolved or the
bot's fault recorded (what BotProcess's reader does with each chunk it reads)."""

from __future__ import annotations

from protocol import commands
from referee.engine import Color
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


# ------------------------------------------------------------------ several in flight


def test_answers_resolve_the_commands_in_flight_in_order_with_their_read_time() -> None:
    r = replies()
    play = r.expect(commands.play(Color.BLACK, "a1").with_id(4), 1.0)
    genmove = r.expect(commands.genmove(Color.WHITE).with_id(5), 2.0)
    assert r.pending is play and genmove.after is play and play.after is None
    play.sent_at = genmove.sent_at = 10.0
    assert r.feed(b"=4\n\n=5 ", at=10.25)
    assert play.response is not None and play.done_at == 10.25 and r.pending is genmove
    # The bot's time for the genmove starts when the answer before it was complete.
    assert genmove.start == 10.25
    assert r.feed(b"b2\n\n", at=10.5)
    assert genmove.response is not None and genmove.response.text == "b2" and genmove.done_at == 10.5
    assert r.pending is None and r.fault is None


def test_start_is_the_write_when_the_answer_before_came_first() -> None:
    r = replies()
    first = r.expect(commands.name().with_id(1))
    second = r.expect(commands.version().with_id(2))
    first.sent_at = 1.0
    r.feed(b"=1 x\n\n", at=2.0)
    second.sent_at = 3.0  # written after the first answer (another write)
    assert second.start == 3.0


def test_a_wrong_id_on_the_second_command_names_the_second() -> None:
    r = replies()
    r.expect(commands.play(Color.BLACK, "a1").with_id(4))
    r.expect(commands.genmove(Color.WHITE).with_id(5))
    assert not r.feed(b"=4\n\n=6 b2\n\n")
    assert isinstance(r.fault, BotProtocolError) and "'5 genmove white'" in str(r.fault)
    assert "wrong id: expected 5, got 6" in str(r.fault)


def test_a_line_after_the_first_answer_may_be_stray_and_the_fault_says_so() -> None:
    r = replies()
    r.expect(commands.play(Color.BLACK, "a1").with_id(4))
    r.expect(commands.genmove(Color.WHITE).with_id(5))
    assert not r.feed(b"=4\n\n= and one more thing\n\n")
    assert isinstance(r.fault, BotProtocolError)
    text = str(r.fault)
    assert "'5 genmove white'" in text and "after the complete response to '4 play black a1'" in text
    assert "a stray line, or a malformed response" in text


def test_end_of_output_with_two_in_flight_is_the_crash_of_the_first_unanswered() -> None:
    r = replies()
    r.expect(commands.play(Color.BLACK, "a1").with_id(4))
    r.expect(commands.genmove(Color.WHITE).with_id(5))
    r.feed(b"=4\n\n")
    r.eof(expected=False)
    assert isinstance(r.fault, BotCrashed) and "'5 genmove white'" in str(r.fault)
