"""A bot program as the referee sees it: a supervised subprocess that answers commands.

:class:`BotProcess` starts the program in its own process group (so Ctrl-C reaches only the
referee, and killing the group takes grandchildren along), performs the handshake, and then
serves :meth:`BotProcess.request`: a command and its answer, within a deadline. A request
may also be split in two, :meth:`BotProcess.send` and :meth:`BotProcess.receive`, so that
several commands go out in one write (the opponent's ``play``, ``time_left`` and the next
``genmove``) and their answers are read in order, each against its own deadline.

Everything a bot can do wrong surfaces as one exception tree, :class:`BotFault`, whose
message names the bot, the command and (truncated) what the bot sent; :mod:`referee.play.game`
turns each into a forfeit. A program that cannot be executed at all is not the bot's fault
in play but a setup problem: :class:`BotStartError`, which voids the game.

Stdout has no task of its own: the request waiting for an answer reads it (non-blocking
reads, ``wait_readable`` when there is nothing yet, woken at its deadline by a timer), feeds
:class:`~referee.play.replies.Replies`, which matches lines to the commands in flight with
their :class:`~protocol.messages.ResponseParser`, and returns as soon as its own answer is
complete: no hand-off between tasks on the way. Each read is stamped when it returns, so a
bot is charged up to the moment its answer was there, not for the referee's work after.
While no command is in flight, stdout is read without waiting before the next command goes
out, when :attr:`BotProcess.healthy` is asked, and when the process exits: a line found
then is a stray line (never taken as the next reply), an end of output a crash. After any
framing fault reading stops: the bot is broken and will be killed, never resynchronised.

Three background tasks run per bot, in the nursery the bot is started in:

* the *stderr drain* copies stderr into the current log file, capped (per game, and in
  total with a shared :class:`~referee.play.logs.LogBudget`), and keeps reading after the
  cap so that a chatty bot never blocks on a full pipe. It also keeps the last few hundred
  bytes in memory: a crash or a failed start-up quotes them in its fault message, since
  that is where a bot says why it died (``No module named ...``).
* the *exit watcher* waits for the process itself. Normally the reader sees the end of
  stdout when the bot dies; but a bot that exits while a child of it still holds stdout
  open would otherwise be recorded as a loss on time after the whole deadline. The watcher
  records that crash, with the exit status, at once (and wakes the request waiting).
* the *timer* holds the deadline of the answer being waited for, in one cancel scope whose
  deadline is moved (a scope per wait cost ~10 µs a turn); at the deadline it wakes the
  waiting request, which raises :class:`BotTimeout`.

:meth:`BotProcess.aclose` always finishes, shielded from cancellation: ``quit`` (if the bot
is healthy) -> grace -> SIGTERM to the group -> grace -> SIGKILL to the group -> reap.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import math
import os
import select
import shlex
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn, TypeVar

import trio

from protocol import commands
from protocol.framing import DEFAULT_MAX_LINE, ProtocolError
from protocol.messages import Command
from referee.play.faults import (
    BotCrashed,
    BotFault,
    BotProtocolError,
    BotStartError,
    BotTimeout,
)
from referee.play.logs import CappedLog, LogBudget, Tail, Transcript
from referee.play.player import Exchange
from referee.play.records import BotStats
from referee.play.replies import Pending, Replies
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_STARTUP_TIMEOUT

log = logging.getLogger("referee.play.process")

DEFAULT_QUIT_GRACE = 0.5
DEFAULT_KILL_GRACE = 0.5
DEFAULT_LOG_CAP = 1 << 20
EXIT_GRACE = 0.2
"""Seconds the reader gets, after the process exits, to see the end of its stdout; past
that, a child of the bot holds it open and the exit watcher records the crash."""
STDERR_GRACE = 0.2
"""Seconds to wait for the last of stderr of a process that exited, before quoting it."""
_READ_SIZE = 1 << 16
T = TypeVar("T")


# ---------------------------------------------------------------------------- the process


def _status(code: int | None) -> str:
    """A return code in words, for crash messages."""
    if code is None:
        return "process still running"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit status {code}"


def split_command(command: str | Sequence[str]) -> list[str]:
    """A bot command as argv: a string is split like a shell would (without a shell)."""
    return shlex.split(command) if isinstance(command, str) else list(command)


@dataclass(frozen=True)
class BotCommand:
    """How to start a bot: its command (a string is split like a shell would, without a
    shell), a label for logs and records, and optionally a working directory and extra
    environment variables (added to the referee's own environment)."""

    command: str | tuple[str, ...]
    label: str
    cwd: Path | None = None
    env: Mapping[str, str] | None = None

    @property
    def argv(self) -> list[str]:
        """The command as the program and its arguments (a string split as by a shell)."""
        return split_command(self.command)

    def process(self, **options: Any) -> BotProcess:
        """A :class:`BotProcess` for this command; ``options`` go to its constructor."""
        return BotProcess(self.command, label=self.label, cwd=self.cwd, env=self.env, **options)


class BotProcess:
    """One bot program: spawn, handshake, requests, logs, and a close that always reaps.

    Use as ``async with BotProcess(cmd, label="A") as bot:`` (it opens its own nursery for
    its background tasks), or call ``await bot.start(nursery)`` and ``await bot.aclose()``
    yourself; ``aclose`` must then run before the nursery ends (the background tasks end
    with it). The bot may play several games: :meth:`new_game` resets its board and
    switches the log files.

    After the handshake: ``name``, ``version``, ``commands`` (what ``list_commands`` said),
    ``pid`` (also the process group id). ``stats`` accumulates over the bot's life.
    ``healthy`` turns False at the first fault; an unhealthy bot is not sent ``quit`` but
    killed, since whatever it would say next cannot be trusted. ``ready`` says the handshake
    succeeded, ``start_failure`` holds what :meth:`start` raised (for counting bots that
    cannot start), and :meth:`log_notes` what went wrong with the current log files.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        label: str = "bot",
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr_log: Path | None = None,
        transcript: Path | None = None,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        quit_grace: float = DEFAULT_QUIT_GRACE,
        kill_grace: float = DEFAULT_KILL_GRACE,
        log_cap: int = DEFAULT_LOG_CAP,
        log_budget: LogBudget | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        board_size: int | None = None,
    ) -> None:
        self.argv = split_command(command)
        if not self.argv:
            raise ValueError("empty bot command")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.label = label
        self.cwd = cwd
        self.env = env
        self.startup_timeout = startup_timeout
        self.quit_grace = quit_grace
        self.kill_grace = kill_grace
        self.log_cap = log_cap
        self.log_budget = log_budget
        self.max_line = max_line
        self.board_size = board_size
        self.name: str | None = None
        self.version: str | None = None
        self.commands: set[str] = set()
        self.pid: int | None = None
        self.stats = BotStats()
        self._healthy = True
        self.ready = False
        self.start_failure: BotStartError | BotFault | None = None
        self.stderr_log_path: Path | None = None
        self.transcript_path: Path | None = None
        self._stderr_log = CappedLog(None, log_cap)
        self._stderr_tail = Tail()
        self._transcript = Transcript(None, log_cap)
        self._replies = Replies(label, self._transcript, max_line)
        self.set_logs(stderr_log, transcript)
        self._process: trio.Process | None = None
        self._next_id = 0
        self._closing = False
        self._quitting = False
        self._status_added = False
        self._closed: trio.Event | None = None
        self._stderr_done = trio.Event()
        self._reader_done = trio.Event()  # stdout ended, or a framing fault stopped reading
        self._out = bytearray()  # commands sent but not written yet
        self._unwritten: list[Pending] = []  # ... and their Pendings
        self._unreceived: deque[Pending] = deque()  # sent, answer not handed out yet
        self._reading = False  # a request is waiting on stdout
        self._waiting: Pending | None = None  # the answer a request is waiting for
        self._wait_deadline = math.inf  # ... and its deadline, on trio's clock
        self._timed_out = False  # the deadline woke the waiting request
        self._alarm: trio.CancelScope | None = None  # the deadline timer's scope (see _timer)
        self._stdin_fd = -1
        self._stdout_fd = -1
        # Whether stdout holds anything (or has ended) while idle, without a read that
        # raises: a poll(2) of this one descriptor costs a third of a failed read.
        self._idle_poll = select.poll()
        self._debug = log.isEnabledFor(logging.DEBUG)
        self._stack: contextlib.AsyncExitStack | None = None

    def __repr__(self) -> str:
        return f"<BotProcess {self.label} pid={self.pid} {self.command!r}>"

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> BotProcess:
        stack = contextlib.AsyncExitStack()
        nursery = await stack.enter_async_context(trio.open_nursery())
        self._stack = stack
        try:
            await self.start(nursery)
        except BaseException:
            await self._exit_nursery()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._exit_nursery()

    async def _exit_nursery(self) -> None:
        """Close the bot, then leave the nursery. The body's own exception is not passed
        to the nursery, so it propagates as itself rather than inside an ExceptionGroup;
        once the bot is closed its background tasks have ended and the nursery is empty."""
        try:
            await self.aclose()
        finally:
            assert self._stack is not None
            await self._stack.__aexit__(None, None, None)

    async def start(self, nursery: trio.Nursery) -> None:
        """Spawn the program and run the handshake within ``startup_timeout``.

        Raises :class:`BotStartError` if the program cannot be executed, and a
        :class:`BotFault` if it starts but fails the handshake (the caller still owns the
        process and must :meth:`aclose` it); that fault quotes the end of the bot's stderr.
        Either is kept as :attr:`start_failure`; :attr:`ready` turns True after the handshake.
        """
        if self._process is not None:
            raise RuntimeError(f"{self!r} is already started")
        env = None if self.env is None else {**os.environ, **self.env}
        try:
            self._process = await trio.lowlevel.open_process(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            self.start_failure = BotStartError(f"bot {self.label}: cannot start {self.command!r}: {exc}")
            raise self.start_failure from exc
        self.pid = self._process.pid
        # trio's pipes on Unix: non-blocking file descriptors, read and written directly.
        stdin, stdout = self._process.stdin, self._process.stdout
        assert isinstance(stdin, trio.lowlevel.FdStream) and isinstance(stdout, trio.lowlevel.FdStream)
        self._stdin_fd = stdin.fileno()
        self._stdout_fd = stdout.fileno()
        self._idle_poll.register(self._stdout_fd, select.POLLIN)
        self._transcript.line("!", f"started pid {self.pid}: {self.command}")
        nursery.start_soon(self._drain_stderr, name=f"{self.label}-stderr")
        nursery.start_soon(self._watch_exit, name=f"{self.label}-exit")
        nursery.start_soon(self._timer, name=f"{self.label}-timer")
        try:
            await self._handshake()
        except BotFault as fault:
            await self._quote_stderr(fault)
            self.start_failure = fault
            raise
        self.ready = True

    async def _handshake(self) -> None:
        deadline = trio.current_time() + self.startup_timeout

        def left() -> float:
            return max(0.0, deadline - trio.current_time())

        version = await self.call(commands.protocol_version(), left())
        self._parse(commands.protocol_version(), commands.parse_protocol_version, version)
        self.name = (await self.call(commands.name(), left())).strip().split("\n")[0][:200]
        self.version = (await self.call(commands.version(), left())).strip().split("\n")[0][:200]
        listed = await self.call(commands.list_commands(), left())
        self.commands = self._parse(commands.list_commands(), commands.parse_list_commands, listed)
        if self.board_size is not None:
            # Part of the handshake when the size is known: a bot that cannot play it
            # fails at start-up, within the start-up deadline.
            await self.call(commands.boardsize(self.board_size), left())

    def knows(self, command_name: str) -> bool:
        """Whether the bot listed ``command_name`` in ``list_commands``."""
        return command_name in self.commands

    def set_logs(self, stderr_log: Path | None, transcript: Path | None) -> None:
        """Send stderr and the transcript to new files from now on (``None``: discard).
        The notes of :meth:`log_notes` start afresh with the new files."""
        self._stderr_log.close()
        self._transcript.close()
        self.stderr_log_path = stderr_log
        self.transcript_path = transcript
        self._stderr_log = CappedLog(stderr_log, self.log_cap, self.log_budget)
        self._transcript = Transcript(transcript, self.log_cap, self.log_budget)
        self._replies.transcript = self._transcript

    def log_notes(self) -> list[str]:
        """What went wrong with this bot's current log files, for the game's record: a file
        that could not be written (given up, the game goes on), or the bot's total log cap
        (its :class:`LogBudget`) reached, said once per budget."""
        notes = [
            f"bot {self.label}: {problem}"
            for problem in (self._stderr_log.problem, self._transcript.problem)
            if problem is not None
        ]
        budget = self.log_budget
        if budget is not None and budget.reached and not budget.noted:
            budget.noted = True
            notes.append(
                f"bot {self.label}: its logs reached their total cap of {budget.total} bytes; "
                "later output is dropped"
            )
        return notes

    @property
    def stderr_tail(self) -> str | None:
        """The quoted end of what the bot wrote to stderr (see :class:`Tail`), or None."""
        return self._stderr_tail.excerpt()

    async def _quote_stderr(self, fault: BotFault) -> None:
        """Put the end of the bot's stderr into ``fault`` (once). If the process has exited,
        wait a moment for the last of its stderr first."""
        if fault.stderr is not None:
            return
        if self._process is not None and self._process.returncode is not None:
            with trio.move_on_after(STDERR_GRACE):
                await self._stderr_done.wait()
        fault.stderr = self.stderr_tail

    async def new_game(
        self,
        size: int,
        timeout: float = DEFAULT_COMMAND_TIMEOUT,
        *,
        stderr_log: Path | None = None,
        transcript: Path | None = None,
        switch_logs: bool = False,
    ) -> None:
        """Prepare for a game: optionally switch the log files, then ``boardsize`` and
        ``clear_board`` (each must answer ``=`` within ``timeout``)."""
        if switch_logs:
            self.set_logs(stderr_log, transcript)
        await self.call(commands.boardsize(size), timeout)
        await self.call(commands.clear_board(), timeout)

    # ------------------------------------------------------------------ requests
    async def request(self, command: Command, timeout: float, *, numbered: bool = True) -> Exchange:
        """Send ``command`` and wait for its complete response, at most ``timeout`` seconds.

        The command goes out with the bot's next id (1, 2, ...), whatever id it had. With
        ``numbered=False`` it goes out exactly as given instead: with its own id, or with
        none, and the answer must echo exactly that (``vastuz check`` tests a bot's ids
        this way). Everything else (deadline, faults, transcript, stats) is the same.

        Raises :class:`BotTimeout` (the bot is then unhealthy: a late answer would be taken
        for a stray line), :class:`BotCrashed` or :class:`BotProtocolError`. A ``?``
        response is returned, not raised: use :meth:`call` for commands that must succeed.
        """
        if self._unreceived:
            raise RuntimeError(f"{self!r}: a command is already in flight (receive its answer first)")
        return await self.receive(self.send(command, timeout, numbered=numbered))

    def send(self, command: Command, timeout: float, *, numbered: bool = True) -> Pending:
        """Queue ``command`` (numbered as by :meth:`request`) without waiting; it is written,
        together with any others queued, by the next :meth:`receive`. Its answer must come
        within ``timeout`` seconds of the later of that write and the end of the answer to
        the command before it (the bot answers in order), and is collected with
        :meth:`receive`, in the order the commands were sent."""
        began = time.perf_counter()
        if self._process is None or (self._closed is not None and not self._quitting):
            raise RuntimeError(f"{self!r}: request on a bot that is not running")
        replies = self._replies
        if not replies.queue and replies.fault is None and self._idle_poll.poll(0):
            self._poll()  # anything already on stdout came while idle: a stray line
        if numbered:
            self._next_id = number = self._next_id + 1
            command, line = command.numbered(number)
        else:
            line = command.format()
        text = line[:-1]
        pending = replies.expect(command, timeout, text)
        if self._transcript.enabled:
            self._transcript.line(">", text)
        if self._debug:
            log.debug("%s > %s", self.label, text)
        self._out += line.encode()
        self._unwritten.append(pending)
        self._unreceived.append(pending)
        pending.cost = time.perf_counter() - began
        return pending

    async def receive(self, pending: Pending) -> Exchange:
        """Write what is queued, then wait for the answer to ``pending`` (the oldest command
        sent and not received yet) within its deadline; see :meth:`request` for what it
        raises. An answer complete before a later fault is still returned: the fault is
        raised by the next receive."""
        entered = time.perf_counter()
        unreceived = self._unreceived
        if not unreceived or unreceived[0] is not pending:
            raise RuntimeError(f"{self!r}: answers are received in the order the commands were sent")
        if pending.response is None:
            if self._replies.fault is not None:
                self._unreceived.clear()
                await self._raise_fault()
            try:
                wrote = bool(self._out)
                if wrote and not self._write_now():
                    await self._write()
                if pending.response is None:
                    await self._wait_for(pending, wrote=wrote)
            except BaseException:
                self._healthy = False
                self._unreceived.clear()
                self._replies.abandon()
                raise
            if pending.response is None:
                self._unreceived.clear()
                await self._raise_fault()
        unreceived.popleft()
        response = pending.response
        assert response is not None
        start = pending.start
        seconds = pending.done_at - start
        stats = self.stats
        stats.requests += 1
        stats.bot_seconds += seconds
        overhead = pending.cost + time.perf_counter() - max(entered, pending.done_at)
        stats.overhead_us += (overhead * 1e6 - stats.overhead_us) / stats.requests  # running mean
        return Exchange(pending.command, response, seconds, overhead)

    def _write_now(self) -> bool:
        """The usual write: everything queued in one ``os.write`` that the pipe takes whole.
        False if it did not (nothing was written): :meth:`_write` then does it all."""
        data = self._out
        try:
            written = os.write(self._stdin_fd, data)
        except OSError:  # full, closed or broken: the careful path sorts it out
            return False
        if written < len(data):
            del data[:written]
            return False
        data.clear()
        now = time.perf_counter()
        for queued in self._unwritten:
            queued.sent_at = now
        self._unwritten = []
        return True

    async def flush(self) -> None:
        """Write what :meth:`send` queued now, rather than with the next :meth:`receive`
        (to set two bots working at once). A closed stdin is recorded as the bot's crash,
        raised by the next :meth:`receive`."""
        if self._out:
            await self._write()

    async def _write(self) -> None:
        """Write the queued commands, in one write when the pipe takes it (it always does
        for a few short lines), and stamp their ``sent_at``. A closed stdin is the bot's
        crash, recorded as its fault (the first command of the write named)."""
        data = self._out
        sent = self._unwritten
        limit: float | None = None
        try:
            while data:
                try:
                    written = os.write(self._stdin_fd, data)
                except BlockingIOError:
                    # The bot is not reading its stdin; it may be blocked writing stdout,
                    # so keep reading that (judging what it says) while waiting, within
                    # the deadline of the first command of the write.
                    now = time.perf_counter()
                    if limit is None:
                        limit = now + sent[0].timeout
                    elif now > limit:
                        self._write_timed_out(sent[0])
                        return
                    self._poll()
                    if self._replies.fault is not None:
                        data.clear()
                        self._unwritten = []
                        return
                    with trio.move_on_after(min(0.01, limit - now)):
                        await trio.lowlevel.wait_writable(self._stdin_fd)
                    continue
                del data[:written]
        except (OSError, trio.ClosedResourceError) as exc:
            if isinstance(exc, OSError) and exc.errno not in (errno.EPIPE, errno.ECONNRESET, errno.EBADF):
                raise
            first = sent[0]
            data.clear()
            self._unwritten = []
            self._healthy = False
            status = await self._exit_status()
            crash = BotCrashed(self.label, first.text, f"stopped reading its input ({status})")
            if self._replies.fault is None:
                self._status_added = True  # the status is in the message already
                await self._quote_stderr(crash)
            self._replies.record(crash)
            return
        now = time.perf_counter()
        for queued in sent:
            queued.sent_at = now
        self._unwritten = []

    def _write_timed_out(self, first: Pending) -> None:
        """The bot took no input for the whole deadline: its loss on time, recorded."""
        self._out.clear()
        self._unwritten = []
        self._healthy = False
        timeout = first.timeout
        self._replies.record(
            BotTimeout(
                self.label, first.text, f"no complete answer within {timeout:.3f} s (it read no input)"
            )
        )

    async def _wait_for(self, pending: Pending, *, wrote: bool = False) -> None:
        """Read stdout until ``pending`` is answered or the bot is at fault; past its
        deadline (``timeout`` after :attr:`Pending.start`) raise :class:`BotTimeout`.
        Whatever is there already is read without scheduling; a real wait sleeps in
        ``wait_readable``, woken by the bot's output, by the timer at the deadline (see
        :meth:`_timer`), or by the exit watcher."""
        replies = self._replies
        self._reading = True
        try:
            if self._reader_done.is_set():
                self._end_of_output(again=True)
            elif not wrote:  # just written: its answer is not there yet (a wait finds it if it is)
                self._read_available()
            if pending.response is None and replies.fault is None:
                start = pending.start
                # The deadline as trio's clock sees it: ``timeout`` after the start. The
                # timer task's alarm carries it (far cheaper than a cancel scope per wait);
                # it need only be no later than this deadline: an earlier alarm wakes the
                # timer, which sets it again to the deadline of the wait then going on.
                deadline = trio.current_time() + (start + pending.timeout - time.perf_counter())
                self._waiting = pending
                self._wait_deadline = deadline
                self._timed_out = False
                alarm = self._alarm
                if alarm is not None and deadline < alarm.deadline:
                    alarm.deadline = deadline
                fd = self._stdout_fd
                while pending.response is None and replies.fault is None:
                    if self._reader_done.is_set():  # stdout closed under us: a crash
                        self._end_of_output(again=True)
                        break
                    try:
                        if alarm is None:  # no timer (the bot is closing): a scope of our own
                            with trio.move_on_at(deadline):
                                await trio.lowlevel.wait_readable(fd)
                            self._timed_out = trio.current_time() >= deadline
                        else:
                            await trio.lowlevel.wait_readable(fd)
                    except (trio.ClosedResourceError, OSError, ValueError):
                        pass  # the timer or the exit watcher woke us, or aclose closed stdout
                    if self._timed_out:
                        break
                    self._read_available()
        finally:
            self._reading = False
            self._waiting = None
            self._wait_deadline = math.inf
        if pending.response is None and replies.fault is None:
            timeout = pending.timeout
            self._transcript.line("!", f"no complete answer within {timeout:.3f} s")
            raise BotTimeout(
                self.label,
                pending.text,
                f"no complete answer within {timeout:.3f} s",
                pending.excerpt() if pending.received else None,
            )

    def _read_available(self) -> None:
        """Feed what stdout holds now to the reply matcher, without waiting; each read is
        stamped when it returns. Stops at the end of output or a framing fault."""
        replies = self._replies
        while not self._reader_done.is_set():
            try:
                data = os.read(self._stdout_fd, _READ_SIZE)
            except BlockingIOError:
                return
            except OSError:  # our end closed (aclose): as an end of output
                data = b""
            if not data:
                self._end_of_output()
                return
            if not replies.feed(data, time.perf_counter()):
                self._reader_done.set()
                return
            if len(data) < _READ_SIZE:
                return  # the pipe held no more (a wait that finds more returns at once)

    def _end_of_output(self, *, again: bool = False) -> None:
        """The end of stdout (once), or ``again`` for a command sent after it: a crash
        unless the referee is closing the bot and nothing is in flight."""
        if again or not self._reader_done.is_set():
            self._replies.eof(expected=self._closing)
            self._reader_done.set()

    def _poll(self) -> None:
        """Read whatever stdout holds without waiting, when no request is reading it: lines
        that came while no command was in flight, or the end of output."""
        if not self._reading and self._stdout_fd >= 0:
            self._read_available()

    async def call(self, command: Command, timeout: float) -> str:
        """:meth:`request` for a command the bot must answer with ``=``: returns the text;
        a ``?`` answer is a :class:`BotProtocolError`."""
        exchange = await self.request(command, timeout)
        if not exchange.response.ok:
            raise BotProtocolError(
                self.label,
                str(exchange.command),
                "answered '?' to a command it must answer",
                exchange.response.text,
            )
        return exchange.response.text

    async def _raise_fault(self) -> NoReturn:
        """Raise the recorded fault; a crash gets the exit status added once it is known."""
        fault = self._replies.fault
        assert fault is not None
        if isinstance(fault, BotCrashed):
            if not self._status_added:
                self._status_added = True
                fault.detail += f" ({await self._exit_status()})"
            await self._quote_stderr(fault)
        raise fault

    def _parse(self, command: Command, parser: Callable[[str], T], text: str) -> T:
        """Apply a reply parser; its :class:`ProtocolError` becomes a protocol fault."""
        try:
            return parser(text)
        except ProtocolError as exc:
            raise BotProtocolError(
                self.label, self._replies.last_command or str(command), str(exc), text
            ) from None

    async def _exit_status(self) -> str:
        """'exit status N' if the process ends within a moment, for crash messages."""
        assert self._process is not None
        with trio.move_on_after(0.1):
            await self._process.wait()
        return _status(self._process.returncode)

    # ------------------------------------------------------------------ background tasks
    async def _drain_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        stream = self._process.stderr
        try:
            while True:
                try:
                    data = await stream.receive_some(_READ_SIZE)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    return
                if not data:
                    return
                self._stderr_tail.add(data)
                self._stderr_log.write(data)
        finally:
            self._stderr_done.set()

    async def _timer(self) -> None:
        """The deadline of the answer being waited for. This task sleeps in a cancel scope
        (the *alarm*) whose deadline is never later than the deadline of the wait going on:
        a wait moves it earlier when it must, and when it fires the timer either finds that
        wait's deadline passed, and wakes it (``notify_closing`` on stdout makes
        ``wait_readable`` return; the request raises :class:`BotTimeout`), or sleeps again
        until the deadline of the wait then going on (none: forever). Moving a deadline
        only when it must costs a comparison; a cancel scope per wait cost ~10 µs a turn."""
        while not self._closing:
            with trio.CancelScope(deadline=self._wait_deadline) as alarm:
                self._alarm = alarm
                await trio.sleep_forever()
            if self._alarm is alarm:
                self._alarm = None
            if self._waiting is not None and trio.current_time() >= self._wait_deadline:
                self._timed_out = True
                self._wake()

    def _wake(self) -> None:
        """Wake the request waiting on stdout, if one is (it then looks at what changed)."""
        if self._reading and self._stdout_fd >= 0:
            trio.lowlevel.notify_closing(self._stdout_fd)

    async def _watch_exit(self) -> None:
        """Wait for the process to exit. If the reader has not seen the end of stdout a
        moment later, a child of the bot holds it open: record the crash now (with the exit
        status), or the command in flight would wait out its whole deadline."""
        process = self._process
        assert process is not None
        await process.wait()
        if self._closing:
            return
        self._poll()  # no request reading: see the end of stdout (or what came before it)
        with trio.move_on_after(EXIT_GRACE):
            await self._reader_done.wait()
        self._poll()
        if self._closing or self._reader_done.is_set():
            return  # the end of stdout (or a fault) was seen and said so itself
        crash = self._replies.exited(_status(process.returncode))
        if self._replies.fault is crash:
            self._status_added = True  # the status is in the message already
        self._wake()  # the request waiting raises the crash

    # ------------------------------------------------------------------ closing
    @property
    def healthy(self) -> bool:
        """False from the first fault on: a timeout, a crash, a broken answer (also one that
        came while it was idle: stdout is read without waiting first). An unhealthy bot is
        not sent ``quit`` but killed, since whatever it says next cannot be trusted."""
        if self._healthy and not self._replies.queue:
            self._poll()
        return self._healthy and self._replies.fault is None

    @property
    def started(self) -> bool:
        """Whether :meth:`start` has spawned the program (it may have failed since)."""
        return self._process is not None

    @property
    def reusable(self) -> bool:
        """Healthy, running and idle: fit to play another game after ``new_game``."""
        return (
            self.started
            and self.healthy
            and not self._unreceived
            and self._closed is None
            and self.returncode is None
        )

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.returncode

    async def aclose(self) -> None:
        """Stop the bot and reap it; idempotent, shielded, always completes.

        ``quit`` if the bot is healthy and idle, then wait ``quit_grace`` for it to exit;
        SIGTERM to its process group, wait ``kill_grace``; SIGKILL to the group; reap. The
        group gets a final SIGKILL after the leader is gone, for grandchildren.
        """
        if self._closed is not None:
            with trio.CancelScope(shield=True):
                await self._closed.wait()
            return
        self._closed = trio.Event()
        try:
            with trio.CancelScope(shield=True):
                await self._shutdown()
        finally:
            self._stderr_log.close()
            self._transcript.close()
            self._closed.set()

    async def _shutdown(self) -> None:
        process = self._process
        if process is None:
            return
        self._closing = True
        if self._alarm is not None:
            self._alarm.cancel()  # the timer ends (waits of the close have scopes of their own)
            self._alarm = None
        if self._unreceived and self.healthy and process.returncode is None:
            # Answers nobody waited for (a game that ended on the answer before them): a
            # healthy bot gives them, then quits, rather than being killed.
            self._quitting = True
            with trio.move_on_after(self.quit_grace):
                try:
                    while self._unreceived:
                        await self.receive(self._unreceived[0])
                except BotFault:
                    pass
            self._quitting = False
        if self.healthy and not self._unreceived and process.returncode is None:
            self._quitting = True
            with trio.move_on_after(self.quit_grace):
                try:
                    await self.request(commands.quit(), self.quit_grace)
                except BotFault:
                    pass
                await process.wait()
            self._quitting = False
        for sig, grace in ((signal.SIGTERM, self.kill_grace), (signal.SIGKILL, None)):
            if process.poll() is not None:
                break
            self._signal_group(sig)
            if grace is None:
                await process.wait()
            else:
                with trio.move_on_after(grace):
                    await process.wait()
        self._signal_group(signal.SIGKILL)  # whatever is left of the group: grandchildren
        self._transcript.line("!", f"reaped: returncode {process.returncode}")
        # Let the drain read the last of stderr, then close our ends (ends both tasks even
        # if an escaped grandchild still holds the pipes open).
        with trio.move_on_after(0.2):
            await self._stderr_done.wait()
        self._stdin_fd = self._stdout_fd = -1  # the numbers may be reused once closed
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                await stream.aclose()
        await self._stderr_done.wait()

    def kill(self) -> None:
        """SIGKILL the bot's process group now, without waiting (a second Ctrl-C cannot
        wait for the orderly close). The :meth:`aclose` that follows still reaps it."""
        if self._process is not None and self._process.returncode is None:
            self._healthy = False
            self._signal_group(signal.SIGKILL)

    def _signal_group(self, sig: signal.Signals) -> None:
        assert self.pid is not None
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:  # the group id was recycled by someone else's process
            return
        self._transcript.line("!", f"sent {sig.name} to process group {self.pid}")
