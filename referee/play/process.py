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

The requests themselves (one write for what is queued, stdout read by the request that
waits for an answer, the deadline timer) are the base class
:class:`~referee.play.pipes._BotPipes`, in :mod:`referee.play.pipes`; how to start a bot,
:class:`~referee.play.command.BotCommand`, is in :mod:`referee.play.command`. This module
is the life of the process: spawn, handshake, logs, background tasks and the close.

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
  waiting request, which raises :class:`BotTimeout` (the timer is with the waits it
  wakes, in :mod:`referee.play.pipes`).

:meth:`BotProcess.aclose` always finishes, shielded from cancellation: ``quit`` (if the bot
is healthy) -> grace -> SIGTERM to the group -> grace -> SIGKILL to the group -> reap.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import shlex
import signal
import subprocess
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

import trio

from protocol import commands
from protocol.framing import DEFAULT_MAX_LINE
from referee.play.command import BotCommand as BotCommand  # re-exported: imported from here
from referee.play.command import split_command as split_command
from referee.play.cpu import pin_child
from referee.play.faults import BotFault, BotStartError
from referee.play.logs import CappedLog, LogBudget, Tail, Transcript
from referee.play.pipes import _READ_SIZE, _BotPipes, _status
from referee.play.records import BotStats
from referee.play.replies import Pending, Replies
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT, DEFAULT_STARTUP_TIMEOUT
from referee.play.watch import LoopWatch

log = logging.getLogger("referee.play.process")

DEFAULT_QUIT_GRACE = 0.5
DEFAULT_KILL_GRACE = 0.5
DEFAULT_LOG_CAP = 1 << 20
EXIT_GRACE = 0.2
"""Seconds the reader gets, after the process exits, to see the end of its stdout; past
that, a child of the bot holds it open and the exit watcher records the crash."""
STDERR_GRACE = 0.2
"""Seconds to wait for the last of stderr of a process that exited, before quoting it."""


# ---------------------------------------------------------------------------- the process


class BotProcess(_BotPipes):
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
        cpus: frozenset[int] | None = None,
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
        self.cpus = cpus  # the cores it is pinned to (affinity), None: wherever the system runs it
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
        self._watch: LoopWatch | None = None  # how late the referee looked (while running)
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
                preexec_fn=None if self.cpus is None else pin_child(self.cpus),
            )
        except OSError as exc:
            self.start_failure = BotStartError(f"bot {self.label}: cannot start {self.command!r}: {exc}")
            raise self.start_failure from exc
        self.pid = self._process.pid
        # The tasks first: the close waits for the stderr drain's end, so nothing that could
        # raise (a bug of ours) may come between the spawn and the drain's start.
        nursery.start_soon(self._drain_stderr, name=f"{self.label}-stderr")
        nursery.start_soon(self._watch_exit, name=f"{self.label}-exit")
        nursery.start_soon(self._timer, name=f"{self.label}-timer")
        # trio's pipes on Unix: non-blocking file descriptors, read and written directly.
        stdin, stdout = self._process.stdin, self._process.stdout
        assert isinstance(stdin, trio.lowlevel.FdStream) and isinstance(stdout, trio.lowlevel.FdStream)
        self._stdin_fd = stdin.fileno()
        self._stdout_fd = stdout.fileno()
        self._idle_poll.register(self._stdout_fd, select.POLLIN)
        self._watch = LoopWatch.current()
        if self._watch is not None:
            self._watch.hold()
        self._transcript.line("!", f"started pid {self.pid}: {self.command}")
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
        try:
            await self._close_process(process)
        finally:
            if self._watch is not None:
                self._watch.release()
                self._watch = None

    async def _close_process(self, process: trio.Process) -> None:
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
