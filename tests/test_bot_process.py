"""BotProcess against real subprocesses: handshake, requests, faults, logs, and a close that
always reaps the whole process group, including on cancellation."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from conftest import check_gone, fakebot_argv

from protocol import commands
from referee.engine import Color
from referee.play.faults import BotCrashed, BotProtocolError, BotStartError, BotTimeout
from referee.play.logs import LogBudget, Tail
from referee.play.options import BotOptions
from referee.play.process import BotProcess

GUARD = 20


QUIT_GRACE = 10.0
"""Time a bot gets to exit after ``quit`` in these tests: a Python process under coverage on a
loaded machine can take well over the product's 0.5 s to finish, and a test that expects a
clean exit (return code 0) must not see SIGTERM instead. Bots that never exit get SIGTERM
without waiting for it (they are unhealthy) or set their own grace."""


def bot(
    *args: str,
    stderr_log: Path | None = None,
    transcript: Path | None = None,
    log_budget: LogBudget | None = None,
    quit_grace: float = QUIT_GRACE,
    **options: Any,
) -> BotProcess:
    return BotProcess(
        fakebot_argv(*args),
        label="T",
        stderr_log=stderr_log,
        transcript=transcript,
        log_budget=log_budget,
        options=BotOptions(quit_grace=quit_grace, **options),
    )


async def test_handshake_request_and_clean_quit() -> None:
    with trio.fail_after(GUARD):
        async with bot() as b:
            assert b.name == "fakebot-good" and b.version == "1.0"
            assert {"genmove", "time_left", "final_score"} <= b.commands
            assert b.knows("time_settings") and not b.knows("showboard")
            await b.new_game(4)
            exchange = await b.request(commands.genmove(Color.BLACK), 5)
            assert exchange.response.ok and exchange.seconds >= 0
            refused = await b.request(commands.showboard(), 5)
            assert not refused.response.ok  # '?' is returned by request, raised by call
            with pytest.raises(BotProtocolError, match="answered '\\?'"):
                await b.call(commands.showboard(), 5)
            assert b.healthy and b.stats.requests >= 8
        assert b.returncode == 0  # it was asked to quit and did
        check_gone(b.pid)


async def test_body_exception_still_reaps() -> None:
    with trio.fail_after(GUARD):
        with pytest.raises(KeyError):
            async with bot() as b:
                raise KeyError("boom")
        check_gone(b.pid)


async def test_cancellation_mid_request_reaps() -> None:
    with trio.fail_after(GUARD):
        with trio.CancelScope() as scope:
            async with bot("--fault", "hang") as b:
                await b.new_game(4)
                # The deadline starts once the bot is up, so a slow start-up (a loaded
                # machine, coverage) cannot use it up before the request is in flight.
                scope.deadline = trio.current_time() + 0.3
                await b.request(commands.genmove(Color.BLACK), 30)
        assert scope.cancelled_caught
        assert not b.healthy
        assert b.returncode == -signal.SIGTERM
        check_gone(b.pid)


async def test_ignores_sigterm_then_killed() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "ignore-sigterm", quit_grace=0.2, kill_grace=0.2) as b:
            await b.new_game(4)
        assert b.returncode == -signal.SIGKILL
        check_gone(b.pid)


async def test_grandchild_dies_with_the_group() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "grandchild") as b:
            await b.new_game(4)
        check_gone(b.pid)  # the sleeping grandchild was in the group


async def test_program_that_cannot_run_is_a_start_error(tmp_path: Path) -> None:
    with trio.fail_after(GUARD):
        with pytest.raises(BotStartError, match="cannot start"):
            async with BotProcess([str(tmp_path / "no-such-program")], label="X"):
                pass


async def test_exit_at_start_is_a_crash() -> None:
    with trio.fail_after(GUARD):
        with pytest.raises(BotCrashed, match=r"protocol_version.*exit status 1") as info:
            async with bot("--fault", "exit-at-start"):
                pass
        assert info.value.bot == "T"


async def test_wrong_protocol_version() -> None:
    with trio.fail_after(GUARD):
        with pytest.raises(BotProtocolError, match="protocol_version: expected '2'"):
            async with bot("--fault", "bad-version"):
                pass


async def test_timeout_marks_unhealthy() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "hang") as b:
            await b.new_game(4)
            with pytest.raises(BotTimeout, match=r"genmove black.*no complete answer within 0\.300 s"):
                await b.request(commands.genmove(Color.BLACK), 0.3)
            assert not b.healthy
        check_gone(b.pid)


async def test_stray_line_fails_the_next_request() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "stray", "--at", "known_command") as b:
            with pytest.raises(BotProtocolError, match="stray line") as info:
                # answered, then a stray reply: raised by this request if it arrived with the
                # answer, else by the next; it is never taken as a reply
                await b.request(commands.known_command("play"), 5)
                for _ in range(50):
                    await b.request(commands.name(), 5)
            assert info.value.received == repr("= and one more thing")
        check_gone(b.pid)


async def test_one_command_in_flight() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "slow", "--delay", "0.5") as b:
            await b.new_game(4)
            errors: list[Exception] = []

            async def second() -> None:
                await trio.sleep(0.1)
                try:
                    await b.request(commands.name(), 5)
                except RuntimeError as exc:
                    errors.append(exc)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(second)
                await b.request(commands.genmove(Color.BLACK), 5)
            assert len(errors) == 1 and "in flight" in str(errors[0])


async def test_stderr_flood_is_drained_and_capped(tmp_path: Path) -> None:
    log = tmp_path / "err.log"
    with trio.fail_after(GUARD):
        async with bot("--fault", "flood-stderr", stderr_log=log, log_cap=100_000) as b:
            await b.new_game(4)
            # 3 MiB of stderr would block a bot whose stderr nobody reads; this answers.
            exchange = await b.request(commands.genmove(Color.BLACK), 10)
            assert exchange.response.ok
        text = log.read_text()
        assert "[truncated: log capped at 100000 bytes]" in text
        assert len(text) < 101_000
        assert "further bytes dropped" in text


async def test_a_stderr_log_is_made_only_when_the_bot_writes_to_stderr(tmp_path: Path) -> None:
    quiet_log, loud_log = tmp_path / "quiet.stderr.log", tmp_path / "loud.stderr.log"
    with trio.fail_after(GUARD):
        async with bot(stderr_log=quiet_log) as quiet:
            await quiet.new_game(4)
            assert (await quiet.request(commands.genmove(Color.BLACK), 10)).response.ok
            quiet.set_logs(loud_log, None)  # the next game's log: made by the first write
            assert not quiet_log.exists() and quiet.log_notes() == []
        async with bot("--fault", "flood-stderr", stderr_log=loud_log, log_cap=1000) as loud:
            await loud.new_game(4)
            assert (await loud.request(commands.genmove(Color.BLACK), 10)).response.ok
    assert not quiet_log.exists()  # nothing written there: no empty file
    assert "[truncated: log capped at 1000 bytes]" in loud_log.read_text()


async def test_transcript_and_log_switch(tmp_path: Path) -> None:
    with trio.fail_after(GUARD):
        async with bot(transcript=tmp_path / "t1.log") as b:
            await b.new_game(4)
            await b.new_game(5, transcript=tmp_path / "t2.log", switch_logs=True)
        first = (tmp_path / "t1.log").read_text()
        second = (tmp_path / "t2.log").read_text()
        assert " > 1 protocol_version" in first and " < =1 2" in first
        assert "boardsize 4" in first and "boardsize 5" not in first
        assert "boardsize 5" in second and "quit" in second


async def test_closed_stdout_is_a_crash() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "close-stdout", kill_grace=0.2) as b:
            await b.new_game(4)
            with pytest.raises(BotCrashed, match="closed its output"):
                await b.request(commands.genmove(Color.BLACK), 5)
        check_gone(b.pid)


async def test_invalid_utf8_is_a_protocol_error() -> None:
    with trio.fail_after(GUARD):
        async with bot("--fault", "bad-utf8") as b:
            await b.new_game(4)
            with pytest.raises(BotProtocolError, match="not valid UTF-8"):
                await b.request(commands.genmove(Color.BLACK), 5)
        check_gone(b.pid)


async def test_aclose_is_idempotent_and_start_needs_a_nursery_owner() -> None:
    with trio.fail_after(GUARD):
        b = bot()
        async with trio.open_nursery() as nursery:
            await b.start(nursery)
            await b.aclose()
            await b.aclose()
        assert b.returncode == 0
        check_gone(b.pid)


def test_command_string_is_split() -> None:
    b = BotProcess(f"{sys.executable} -c 'print(1)'")
    assert b.argv == [sys.executable, "-c", "print(1)"]
    with pytest.raises(ValueError):
        BotProcess("")


async def test_boardsize_is_part_of_the_handshake_when_the_size_is_known(tmp_path: Path) -> None:
    good = BotProcess(
        fakebot_argv("--seed", "1"),
        label="G",
        options=BotOptions(board_size=4),
        transcript=tmp_path / "g.log",
    )
    with trio.fail_after(GUARD):
        async with good:
            assert good.healthy
    assert "boardsize 4" in (tmp_path / "g.log").read_text()
    refusing = BotProcess(
        fakebot_argv("--fault", "refuse", "--at", "boardsize"), label="R", options=BotOptions(board_size=4)
    )
    with trio.fail_after(GUARD):
        with pytest.raises(BotProtocolError, match="boardsize 4"):
            async with refusing:
                pass
    check_gone(refusing.pid)


async def test_unnumbered_request_is_sent_exactly_as_given(tmp_path: Path) -> None:
    log = tmp_path / "t.log"
    with trio.fail_after(GUARD):
        async with bot(transcript=log) as b:
            before = b.stats.requests
            plain = await b.request(commands.protocol_version(), 5, numbered=False)
            own = await b.request(commands.protocol_version().with_id(4242), 5, numbered=False)
            assert plain.command.id is None and plain.response.id is None
            assert plain.response.ok and plain.response.text == "2"
            assert own.command.id == 4242 and own.response.id == 4242 and own.response.text == "2"
            assert b.stats.requests == before + 2 and b.healthy
            numbered = await b.request(commands.name(), 5)
            assert numbered.command.id == 5  # the handshake used 1-4; unnumbered requests take none
        text = log.read_text()
        assert " > protocol_version\n" in text and " < = 2\n" in text
        assert " > 4242 protocol_version\n" in text and " < =4242 2\n" in text
        check_gone(b.pid)
        # The answer is parsed strictly against the id sent: here the bot answers the
        # id-less command (its second protocol_version) with an id.
        async with bot("--fault", "wrong-id", "--at", "protocol_version", "--after", "1") as wrong:
            with pytest.raises(BotProtocolError, match="unexpected id 1: the command had no id"):
                await wrong.request(commands.protocol_version(), 5, numbered=False)
            assert not wrong.healthy
        check_gone(wrong.pid)


# ------------------------------------------------------------------ issue 13: exits, stderr, full disks


async def test_exit_while_a_child_holds_stdout_is_a_crash_at_once() -> None:
    # The bot exits (status 4) in genmove, but a child it started keeps stdout open, so the
    # end of output never comes: the exit itself must end the request, not the deadline.
    with trio.fail_after(GUARD):
        async with bot("--fault", "exit-leave-child") as b:
            await b.new_game(4)
            began = trio.current_time()
            with pytest.raises(BotCrashed) as info:
                await b.request(commands.genmove(Color.BLACK), 15)
            assert trio.current_time() - began < 5  # not the 15 s deadline
            assert not b.healthy
        message = str(info.value)
        assert "genmove black" in message and "exited (exit status 4)" in message
        assert "still holds its output open" in message
        assert message.count("exit status 4") == 1
        assert "leaving a child behind" in message  # the end of its stderr
        assert b.returncode == 4
        check_gone(b.pid)  # the child holding the pipe was killed with the group


async def test_a_bot_that_cannot_start_says_why(tmp_path: Path) -> None:
    # The Python interpreter starts, so this is no BotStartError: it exits at once, and
    # the reason is only on its stderr. The fault (and so the record) must quote it.
    b = BotProcess([sys.executable, "-m", "no_such_module_vastuz"], label="N", stderr_log=tmp_path / "n.log")
    with trio.fail_after(GUARD):
        with pytest.raises(BotCrashed) as info:
            async with b:
                pass
    message = str(info.value)
    assert "protocol_version" in message and "exit status 1" in message
    assert "its stderr ends" in message and "No module named no_such_module_vastuz" in message
    assert b.start_failure is info.value and not b.ready
    assert "No module named" in (tmp_path / "n.log").read_text()  # the log file has it all
    check_gone(b.pid)


async def test_start_failure_and_ready_are_kept(tmp_path: Path) -> None:
    with trio.fail_after(GUARD):
        async with bot() as good:
            assert good.ready and good.start_failure is None
        missing = BotProcess([str(tmp_path / "gone")], label="G")
        with pytest.raises(BotStartError):
            async with missing:
                pass
        assert isinstance(missing.start_failure, BotStartError) and not missing.ready


def test_the_stderr_tail_is_one_quoted_line() -> None:
    tail = Tail(64)
    assert tail.excerpt() is None
    tail.add(b"x" * 1000 + b"\n  Traceback\n\x1b[31mValueError: bad\n\n")
    text = tail.excerpt(40)
    assert text is not None and text.startswith("'...") and text.endswith("ValueError: bad'")
    assert "\x1b" not in text and "\\x1b" in text  # no raw escape reaches a terminal
    assert len(text) <= 40 + 2 + 3  # the quotes, and repr spelling the escape out


async def test_a_stderr_log_that_cannot_be_written_is_given_up_with_a_note() -> None:
    # /dev/full fails every write with ENOSPC, as a full disk does.
    with trio.fail_after(GUARD):
        async with bot("--fault", "flood-stderr", stderr_log=Path("/dev/full")) as b:
            await b.new_game(4)
            exchange = await b.request(commands.genmove(Color.BLACK), 10)
            assert exchange.response.ok and b.healthy
            notes = b.log_notes()
            assert len(notes) == 1 and notes[0].startswith("bot T: log /dev/full could not be written")
            assert "No space left on device" in notes[0] and "truncated" in notes[0]
            await b.new_game(4)  # the bot plays on
        check_gone(b.pid)


async def test_a_bots_logs_share_one_total_cap(tmp_path: Path) -> None:
    budget = LogBudget(150_000)
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    with trio.fail_after(GUARD):
        for i, log in enumerate(logs):
            flood = bot("--fault", "flood-stderr", stderr_log=log, log_cap=100_000, log_budget=budget)
            async with flood as b:
                await b.new_game(4)
                await b.request(commands.genmove(Color.BLACK), 10)
                notes = b.log_notes()
            assert bool(notes) == (i == 1)  # the second bot's game reached the total
    first, second = (log.read_text() for log in logs)
    assert "[truncated: log capped at 100000 bytes]" in first
    assert "[truncated: this bot's logs reached their total cap of 150000 bytes]" in second
    assert 50_000 <= len(second) < 51_000
    assert budget.used == 150_000
    assert "total cap of 150000 bytes" in notes[0]
