"""The request side of a bot: commands written to its stdin, answers read from its stdout.

:class:`BotPipes` holds the hot path, the few µs of referee CPU per command:
:meth:`~BotPipes.send` queues a command, :meth:`~BotPipes.receive` writes what is queued and
waits for its answer, :meth:`~BotPipes.request` and :meth:`~BotPipes.call` do both, the
deadline timer wakes a wait that runs out, and the exit watcher notices a bot that exits
while a child of it holds stdout open. It owns its state;
:class:`~referee.play.process.BotProcess` spawns the program, hands its pipes over
(:meth:`BotPipes.attach`), runs their tasks in its nursery, and closes them at the end of
the process's life. Stderr is drained apart (:class:`~referee.play.stderr.StderrDrain`); a
crash quotes its end.

Stdout has no task of its own: the request waiting for an answer reads it (non-blocking
reads, ``wait_readable`` when there is nothing yet, woken at its deadline by a timer), feeds
:class:`~referee.play.replies.Replies`, which matches lines to the commands in flight with
their :class:`~protocol.messages.ResponseParser`, and returns as soon as its own answer is
complete: no hand-off between tasks on the way. Each read is stamped when it returns, so a
bot is charged up to the moment its answer was there, not for the referee's work after.
While no command is in flight, stdout is read without waiting before the next command goes
out, when :attr:`BotPipes.healthy` is asked, and when the process exits: a line found
then is a stray line (never taken as the next reply), an end of output a crash. After any
framing fault reading stops: the bot is broken and will be killed, never resynchronised.

The usual turn takes a shorter road, :meth:`BotPipes.exchange`: the turn's commands in one
write, their answers read into one buffer and checked as bytes against the answers expected
(``=ID`` and the empty line, ``=ID text`` for the last), with no Pending, parser or exchange
object on the way. It keeps what the general path needs to take over (the commands, the
write's stamp, each read with its stamp) and, at the first thing it does not expect, makes
the Pendings the general path would have made and feeds them every read so far, so that
anything but the usual answer is judged by the same code as before. Before it waits, it looks
at stdout for a few microseconds (:mod:`~referee.play.spin`): a bot that answers at once is
read without a sleep and, when it plays the run's only game, without a trip through trio.
With several games, a driver (:mod:`~referee.play.driver`) takes the exchange in its steps
(:meth:`BotPipes.exchange_start`, :meth:`BotPipes.exchange_read`) and waits for several bots
at once; the deadline timer and the watches wake it through :attr:`BotPipes.on_wake`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import math
import os
import select
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Literal, NoReturn

import trio

from protocol.messages import DEFAULT_MAX_RESPONSE, Command
from referee.play.faults import BotCrashed, BotFault, BotProtocolError, BotTimeout
from referee.play.forensics import Recent, new_ring
from referee.play.player import Exchange
from referee.play.records import BotStats
from referee.play.replies import Pending, Replies
from referee.play.spin import SPIN, BotSpin, RunSpin
from referee.play.stderr import StderrDrain
from referee.play.watch import NOTICE, LoopWatch

log = logging.getLogger("referee.play.process")

_READ_SIZE = 1 << 16
EXIT_GRACE = 0.2
"""Seconds the reader gets, after the process exits, to see the end of its stdout; past
that, a child of the bot holds it open and the exit watcher records the crash."""


def _status(code: int | None) -> str:
    """A return code in words, for crash messages."""
    if code is None:
        return "process still running"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit status {code}"


def _clock_offset() -> float | None:
    """trio's clock less ``time.perf_counter()`` when it is trio's own clock (a fixed offset
    from it), so that a deadline converts without asking the clock; None for another clock
    (a test's): then each conversion asks it."""
    clock = trio.lowlevel.current_clock()
    offset = getattr(clock, "offset", None)
    if type(clock).__name__ != "SystemClock" or not isinstance(offset, float):
        return None
    if abs(clock.current_time() - (time.perf_counter() + offset)) > 0.001:
        return None  # not the clock it looks like
    return offset


class _FastExchange:
    """A fast exchange in flight (:meth:`BotPipes.exchange`), as plain values until it is
    done or handed to the general path: its commands, their deadlines and the first one's
    id; the answers' bytes expected; its write's stamp (0: not written whole) and its cost
    before the write; what stdout gave so far (each read with its stamp, and all of it
    joined), when each answer was complete; what was not written."""

    __slots__ = (
        "buffer",
        "chunks",
        "commands",
        "cost",
        "done_at",
        "expected",
        "first",
        "sent_at",
        "timeouts",
        "unwritten",
    )

    def __init__(
        self, commands: Sequence[Command], timeouts: Sequence[float], first: int, expected: bytes
    ) -> None:
        self.commands = commands
        self.timeouts = timeouts
        self.first = first
        self.expected = expected
        self.sent_at = 0.0
        self.cost = 0.0
        self.chunks: list[tuple[bytes, float]] = []
        self.buffer = b""
        self.done_at: list[float] = []
        self.unwritten = b""


Answered = tuple[list[float], str, float, list[float] | None] | list[Pending] | None
"""What :meth:`BotPipes.exchange` returns (see there)."""


class BotPipes:
    """Requests to one bot over its stdin and stdout, with the deadline timer and the exit
    watcher (see the module docstring). Made with the process's
    :class:`~referee.play.process.BotProcess`, before
    the program is spawned: requests raise until :meth:`attach` hands it the running
    program, and stop being taken (but for the close's own, while :attr:`quitting`) once
    :meth:`begin_close` is called."""

    def __init__(self, label: str, stderr: StderrDrain, replies: Replies, stats: BotStats) -> None:
        self.label = label
        self.replies = replies  # the stdout side: lines matched to the commands in flight
        self.stats = stats  # the process's, over its life
        self.recent: Recent = new_ring()  # the latest traffic, for a fault's record (forensics)
        self.quitting = False  # the close is collecting answers or sending quit: requests allowed
        self._stderr = stderr
        self._process: trio.Process | None = None
        self._healthy = True  # False from the first fault of ours to see (see healthy)
        self._next_id = 0
        self._closing = False
        self._status_added = False  # a crash message already carries the exit status
        self._reader_done = trio.Event()  # stdout ended, or a framing fault stopped reading
        self._out = bytearray()  # commands sent but not written yet
        self._unwritten: list[Pending] = []  # ... and their Pendings
        self._unreceived: deque[Pending] = deque()  # sent, answer not handed out yet
        self._reading = False  # a request is waiting on stdout
        self._waiting: object | None = None  # the answer(s) a request is waiting for
        # A fast exchange in flight (see exchange), as plain values until it is done or
        # handed to the general path.
        self._fast: _FastExchange | None = None
        self._wait_deadline = math.inf  # ... and its deadline, on trio's clock
        self._timed_out = False  # the deadline woke the waiting request
        self._overdue: list[Pending] = []  # answers a loss on time abandoned (see resync)
        self._alarm: trio.CancelScope | None = None  # the deadline timer's scope (see timer)
        self._watch: LoopWatch | None = None  # how late the referee looked (while attached)
        self._stdin_fd = -1
        self._stdout_fd = -1
        # Whether stdout holds anything (or has ended) while idle, without a read that
        # raises: a poll(2) of this one descriptor costs a third of a failed read.
        self._idle_poll = select.poll()
        self._clock_offset: float | None = None  # trio's clock less perf_counter (see _clock_offset)
        self._spin: BotSpin | None = None  # looks for a fast answer before waiting (while attached)
        # Set while a driver (referee.play.driver), not a task of this bot's, waits for a
        # fast exchange's answers: what wakes that wait.
        self.on_wake: Callable[[], None] | None = None
        self._debug = log.isEnabledFor(logging.DEBUG)

    def __repr__(self) -> str:
        pid = None if self._process is None else self._process.pid
        return f"<BotPipes {self.label} pid={pid}>"

    # ------------------------------------------------------------------ life
    def attach(self, process: trio.Process) -> None:
        """Take the pipes of the just spawned ``process`` (trio's pipes on Unix: non-blocking
        file descriptors, read and written directly), and hold the run's loop watch."""
        stdin, stdout = process.stdin, process.stdout
        assert isinstance(stdin, trio.lowlevel.FdStream) and isinstance(stdout, trio.lowlevel.FdStream)
        self._process = process
        self._stdin_fd = stdin.fileno()
        self._stdout_fd = stdout.fileno()
        self._idle_poll.register(self._stdout_fd, select.POLLIN)
        self._clock_offset = _clock_offset()
        run = RunSpin.current()
        self._spin = None if run is None else BotSpin(run)
        self._watch = LoopWatch.current()
        if self._watch is not None:
            self._watch.hold()

    def begin_close(self) -> None:
        """The process is being closed: its end of output is no crash now, and the timer
        ends (the close's own waits have scopes of their own)."""
        self._closing = True
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None

    def detach(self) -> None:
        """Before the process's pipes are closed (their numbers may be reused once closed):
        stop using the descriptors and release the loop watch. Idempotent."""
        self._stdin_fd = self._stdout_fd = -1
        if self._spin is not None:
            self._spin.detach()
            self._spin = None
        if self._watch is not None:
            self._watch.release()
            self._watch = None

    @property
    def healthy(self) -> bool:
        """False from the first fault on: a timeout, a crash, a broken answer (also one that
        came while it was idle: stdout is read without waiting first)."""
        if self._healthy and not self.replies.queue:
            self._poll()
        return self._healthy and self.replies.fault is None

    def fail(self, fault: BotFault) -> None:
        """A fault found outside the pipes (the limit watch): it is the bot's, and the
        request waiting, if any, raises it now."""
        self._materialize()
        self.replies.record(fault)
        self._healthy = False
        self._wake()

    def mark_unhealthy(self) -> None:
        """The bot is being killed: nothing it says from now on can be trusted."""
        self._healthy = False

    @property
    def idle(self) -> bool:
        """No command sent whose answer was not handed out yet."""
        return not self._unreceived

    async def collect(self) -> None:
        """Receive the answers nobody waited for (a game that ended on the answer before
        them), in order; raises the bot's fault, if any."""
        while self._unreceived:
            await self.receive(self._unreceived[0])

    async def watch_exit(self) -> None:
        """The exit watcher (a task): wait for the process to exit. Normally the reader sees
        the end of stdout when the bot dies; but if it has not a moment later, a child of
        the bot holds stdout open: record the crash now (with the exit status), or the
        command in flight would wait out its whole deadline, and wake the request waiting."""
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
        self._materialize()  # the crash names the command in flight
        crash = self.replies.exited(_status(process.returncode))
        if self.replies.fault is crash:
            self._status_added = True  # the status is in the message already
        self._wake()  # the request waiting raises the crash

    async def _quote_stderr(self, fault: BotFault) -> None:
        exited = self._process is not None and self._process.returncode is not None
        await self._stderr.quote(fault, exited=exited)

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
        if self._process is None or (self._closing and not self.quitting):
            raise RuntimeError(f"{self!r}: request on a bot that is not running")
        replies = self.replies
        if not replies.queue and replies.fault is None:
            self._poll()  # anything already on stdout came while idle: a stray line
        if numbered:
            self._next_id = number = self._next_id + 1
            command, line = command.numbered(number)
        else:
            line = command.format()
        text = line[:-1]
        self.recent.append(text)
        pending = replies.expect(command, timeout, text)
        transcript = replies.transcript
        if transcript.enabled:
            transcript.line(">", text)
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
            if self.replies.fault is not None:
                self._unreceived.clear()
                await self._raise_fault()
            try:
                wrote = bool(self._out)
                if wrote and not self._write_now():
                    await self._write()
                if pending.response is None:
                    await self._wait_for(pending, wrote=wrote)
            except BaseException as exc:
                self._healthy = False
                self._unreceived.clear()
                if isinstance(exc, BotTimeout) and self.replies.fault is None:
                    self._overdue = list(self.replies.queue)
                self.replies.abandon()
                raise
            if pending.response is None:
                self._unreceived.clear()
                await self._raise_fault()
        return self.hand_out(pending, entered)

    def ready(self, pending: Pending) -> bool:
        """Whether :meth:`receive` of ``pending`` would return at once, with no write and no
        wait: it is the oldest command not received, and its answer is complete."""
        unreceived = self._unreceived
        return pending.response is not None and bool(unreceived) and unreceived[0] is pending

    def hand_out(self, pending: Pending, entered: float | None = None) -> Exchange:
        """The exchange of ``pending``, whose answer is complete and which is the oldest
        command not received (:meth:`ready`): the bot's time (less the referee's own
        lateness), the stats booked. :meth:`receive` ends here; the game calls it directly
        for an answer already in (the decision that came in the same read as the answer
        before it), saving a coroutine. ``entered``: when the receive began (the overhead
        counts from there), else now."""
        if entered is None:
            entered = time.perf_counter()
        self._unreceived.popleft()
        response = pending.response
        assert response is not None
        start = pending.start
        done_at = pending.done_at
        seconds = done_at - start
        # The referee's own lateness is never the bot's: a stall it found the answer at the
        # end of (counted from the write, so a stall that the answer before it in the same
        # write already took is still this one's to report) is taken off the window as far
        # as it overlaps it (see referee.play.watch); an answer read after its deadline
        # (accepted by the rule of _wait_for) says so, by how much.
        watch = self._watch
        late = 0.0 if watch is None else watch.late(done_at, pending.sent_at)
        past = seconds - pending.timeout
        if late or past > 0:
            seconds -= min(late, seconds)
            late = max(late, past)
            if late < NOTICE and past <= 0:
                late = 0.0
        stats = self.stats
        stats.requests += 1
        stats.bot_seconds += seconds
        overhead = pending.cost + time.perf_counter() - max(entered, done_at)
        stats.overhead_us += (overhead * 1e6 - stats.overhead_us) / stats.requests  # running mean
        return Exchange(pending.command, response, seconds, overhead, late)

    # ------------------------------------------------------------------ the fast exchange
    @property
    def last_id(self) -> int:
        """The id the last numbered command went out with."""
        return self._next_id

    async def exchange(self, commands: Sequence[Command], timeouts: Sequence[float]) -> Answered:
        """The usual turn in one go: send ``commands`` (numbered, in one write, each with
        its own deadline as :meth:`send` gives it) and wait for all their answers, for the
        common case: ``=ID`` and the empty line to each but the last, ``=ID text`` and the
        empty line to the last, in time. Returns, then, each command's bot seconds and how
        late the referee looked at its answer (as :meth:`hand_out` counts them: the
        lateness list is None when it looked late at none), the last answer's text and the
        referee's overhead per command, the stats booked (the last command went out
        numbered :attr:`last_id`).

        Anything else is left to the general path, with the outcome it would have had from
        the start: None when the fast path does not apply (nothing was sent: a command
        already in flight, a fault, a closing bot, a transcript or debug log to write,
        something on stdout already); or, once anything else happens after the write (a
        ``?``, any other answer or line, a short write, the end of output, a deadline, an
        answer read past its deadline, a fault found by the limit or exit watch), the
        commands' Pendings,
        made as :meth:`send` would have made them and fed everything read so far with its
        stamps (:meth:`_materialize`), for :meth:`receive` in order. So every answer is
        judged the same; the usual one costs fewer objects and coroutines.

        The same in steps, for a driver that waits for several bots at once
        (:mod:`~referee.play.driver`): :meth:`exchange_start`, then :meth:`exchange_read`
        after each wake-up until it returns an answer, and :meth:`exchange_abandon` if the
        wait is cancelled."""
        started = self.exchange_start(commands, timeouts)
        if started is not True:
            return started
        fast = self._fast
        assert fast is not None
        # A look for the answers (spin.py): within one window from the write, after it and
        # after each read that leaves them incomplete.
        spin = self._spin
        looking = spin if spin is not None and spin.begin() else None
        keep = missed = False
        until = fast.sent_at + SPIN
        if looking is not None:
            found = looking.look(self._idle_poll, until)
            missed = found is None
            keep = found is True
        fd = self._stdout_fd
        try:
            while True:
                try:
                    if keep:  # the answer is there and nothing else waits to run: read it
                        keep = False
                        await trio.lowlevel.checkpoint_if_cancelled()
                    else:
                        await trio.lowlevel.wait_readable(fd)
                        if spin is not None:
                            spin.waited()
                except (trio.ClosedResourceError, OSError, ValueError):
                    pass  # the timer or the exit watcher woke us, or aclose closed stdout
                answered = self.exchange_read()
                if answered is not None:
                    return answered
                if looking is not None and not missed:
                    found = looking.look(self._idle_poll, until)
                    missed = found is None
                    keep = found is True
        except BaseException:
            self.exchange_abandon()
            raise
        finally:
            if looking is not None:
                looking.end(missed)

    def exchange_start(
        self, commands: Sequence[Command], timeouts: Sequence[float]
    ) -> Literal[True] | list[Pending] | None:
        """:meth:`exchange` up to its write: True when the commands went out and their
        answers are awaited (then :meth:`exchange_read` after each wake-up on stdout, the
        timer's or a watch's); None when the fast path does not apply; the Pendings when
        the write was short."""
        began = time.perf_counter()
        replies = self.replies
        if (
            self._unreceived
            or self._out
            or replies.queue
            or replies.fault is not None
            or replies.buffer.has_partial
            or replies.transcript.enabled
            or self._debug
            or not self._healthy
            or self._closing
            or self._alarm is None
            or self._reader_done.is_set()
            or self._stdout_fd < 0
            or self._idle_poll.poll(0)
        ):
            return None
        count = len(commands)
        first = self._next_id + 1
        last = self._next_id = first + count - 1
        recent = self.recent
        # The wire, and the answers expected: "=ID" and the empty line to each command,
        # with " text" on the last one's line (built by hand for the usual one or two).
        if count == 2:
            play = f"{first} {commands[0].body()}"
            text = f"{last} {commands[1].body()}"
            recent.append(play)
            recent.append(text)
            data = f"{play}\n{text}\n".encode()
            expected = f"={first}\n\n={last} ".encode()
        elif count == 1:
            text = f"{last} {commands[0].body()}"
            recent.append(text)
            data = f"{text}\n".encode()
            expected = f"={last} ".encode()
        else:
            texts = [f"{first + k} {command.body()}" for k, command in enumerate(commands)]
            recent.extend(texts)
            text = texts[-1]
            data = ("\n".join(texts) + "\n").encode()
            expected = ("".join([f"={n}\n\n" for n in range(first, last)]) + f"={last} ").encode()
        replies.last_command = text
        fast = self._fast = _FastExchange(commands, timeouts, first, expected)
        try:
            written = os.write(self._stdin_fd, data)
        except OSError:  # full, closed or broken: the careful path sorts it out
            written = 0
        if written < len(data):
            fast.cost = time.perf_counter() - began
            fast.unwritten = data[written:]
            return self._fall_back()
        sent_at = fast.sent_at = time.perf_counter()
        fast.cost = sent_at - began
        self._reading = True
        self._waiting = fast
        self._timed_out = False
        self._set_alarm(sent_at + timeouts[0])
        return True

    def exchange_read(self) -> Answered:
        """After a wake-up (stdout readable, or the timer or a watch woke the wait): read
        what stdout holds. None while the answers are incomplete and their deadline has
        not passed (wait again); else the exchange is over and this is what
        :meth:`exchange` returns."""
        fast = self._fast
        if fast is None or self._waiting is not fast:
            self._end_wait()
            return self._fall_back()  # a watch found a fault and made the Pendings
        fd = self._stdout_fd
        recent = self.recent
        chunks = fast.chunks
        done_at = fast.done_at
        expected = fast.expected
        count = len(fast.commands)
        buffer = fast.buffer
        looked = time.perf_counter()
        while True:  # the look: what stdout holds now
            try:
                chunk = os.read(fd, _READ_SIZE)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:  # the end of output: the general path's read finds it again
                self._end_wait()
                return self._fall_back()
            at = time.perf_counter()
            recent.append(chunk)
            chunks.append((chunk, at))
            buffer += chunk
            if not (buffer.startswith(expected) or expected.startswith(buffer)):
                self._end_wait()
                return self._fall_back()
            complete = min(buffer.count(b"\n\n"), count) - len(done_at)
            if complete > 0:  # answers completed by this read: done when it returned
                done_at += [at] * complete
            if len(chunk) < _READ_SIZE:
                break
        fast.buffer = buffer
        answered = len(done_at)
        if answered == count:  # the usual end (_end_wait, inline)
            self._reading = False
            self._waiting = None
            self._wait_deadline = math.inf
            return self._exchange_end(fast)
        deadline = (done_at[-1] if done_at else fast.sent_at) + fast.timeouts[answered]
        if self._timed_out or looked >= deadline:
            self._end_wait()
            return self._fall_back()
        self._set_alarm(deadline)
        return None

    def exchange_abandon(self) -> None:
        """The wait of a fast exchange was cancelled: nothing the bot says now can be
        matched to what was asked, so the bot is done with (as :meth:`receive` would)."""
        self._end_wait()
        self._fast = None
        self._healthy = False

    @property
    def stdout_fd(self) -> int:
        """The bot's stdout (-1 once detached), for a driver's epoll."""
        return self._stdout_fd

    def _end_wait(self) -> None:
        self._reading = False
        self._waiting = None
        self._wait_deadline = math.inf

    def _exchange_end(self, fast: _FastExchange) -> Answered:
        """A fast exchange whose answers are all read: the usual outcome, or its Pendings."""
        buffer = fast.buffer
        done_at = fast.done_at
        timeouts = fast.timeouts
        count = len(fast.commands)
        sent_at = fast.sent_at
        replies = self.replies
        # The last answer: one line, then the empty line, nothing after.
        answer = buffer[len(fast.expected) : -2]
        if (
            not buffer.endswith(b"\n\n")
            or b"\n" in answer
            or b"\r" in answer
            or len(answer) >= DEFAULT_MAX_RESPONSE
            or len(buffer) > replies.buffer.max_line
        ):
            return self._fall_back()
        # In time (else hand_out says how late it was read), and the bot not charged for a
        # stall of the referee's that the answer was found at the end of, as hand_out counts it.
        watch = self._watch
        # Outside a stall (the usual case: LoopWatch.late's own two tests, word for word),
        # nothing to take off; the watch's ticks cannot move during this loop. The answers
        # came in order, so the first's and the last's stamps settle it for all.
        stall = watch is not None and (
            done_at[-1] - watch.last_tick > NOTICE or done_at[0] - watch.stall_end <= NOTICE
        )
        seconds: list[float] = []
        lates: list[float] | None = None
        start = sent_at
        for k in range(count):
            done = done_at[k]
            took = done - start
            if took > timeouts[k]:
                return self._fall_back()
            if stall:
                assert watch is not None
                late = watch.late(done, sent_at)
                took -= min(late, took)
                if late >= NOTICE:
                    if lates is None:
                        lates = [0.0] * count
                    lates[k] = late
            seconds.append(took)
            start = done
        try:
            reply = answer.decode()
        except UnicodeDecodeError:
            return self._fall_back()
        self._fast = None
        stats = self.stats
        overhead = (fast.cost + time.perf_counter() - start) / count
        stats.requests = requests = stats.requests + count
        stats.bot_seconds += sum(seconds)
        stats.overhead_us += (overhead * 1e6 - stats.overhead_us) * count / requests  # running mean
        return seconds, reply, overhead, lates

    def _set_alarm(self, deadline: float) -> float:
        """Have the timer wake the wait at ``deadline`` (``time.perf_counter``) at the latest;
        returns that deadline on trio's clock."""
        offset = self._clock_offset
        if offset is None:
            trio_deadline = trio.current_time() + (deadline - time.perf_counter())
        else:
            trio_deadline = deadline + offset
        self._wait_deadline = trio_deadline
        alarm = self._alarm
        if alarm is not None and trio_deadline < alarm.deadline:
            alarm.deadline = trio_deadline
        return trio_deadline

    def _fall_back(self) -> list[Pending]:
        """The Pendings of the fast exchange's commands for the general path (see
        :meth:`exchange`)."""
        self._materialize()
        return list(self._unreceived)

    def _materialize(self) -> None:
        """Turn the fast exchange in flight, if any, into what :meth:`send` and the reads
        would have made of it: its Pendings in flight (each with its share of the cost, its
        deadline and the write's stamp), what was not written still queued, and every read
        so far fed to the reply matcher with its own stamp."""
        fast = self._fast
        if fast is None:
            return
        self._fast = None
        replies = self.replies
        commands = fast.commands
        cost = fast.cost / len(commands)
        for k, (command, timeout) in enumerate(zip(commands, fast.timeouts, strict=True)):
            numbered, line = command.numbered(fast.first + k)
            pending = replies.expect(numbered, timeout, line[:-1])
            pending.sent_at = fast.sent_at
            pending.cost = cost
            self._unreceived.append(pending)
        if fast.unwritten:
            self._out += fast.unwritten
            self._unwritten = list(self._unreceived)
        for chunk, at in fast.chunks:  # an end of output is not among them: a read finds it again
            if not replies.feed(chunk, at):
                self._reader_done.set()
                return

    async def resync(self, grace: float) -> float | None:
        """After a loss on time (``restart: never``): wait up to ``grace`` seconds for the
        answers the timeout abandoned, judged in order as any answer is, and drop them. If
        they all come, well formed with their ids, the bot is in step and healthy again;
        returns how far past its deadline the answer it timed out on came (seconds), None
        if it is not in step (the process must then be closed)."""
        overdue, self._overdue = self._overdue, []
        replies = self.replies
        if not overdue or replies.fault is not None or self._reader_done.is_set() or self._unreceived:
            return None
        replies.queue.extend(overdue)
        with trio.move_on_after(grace):
            while replies.queue and replies.fault is None and not self._reader_done.is_set():
                self._read_available()
                if replies.queue and not self._reader_done.is_set():
                    with contextlib.suppress(trio.ClosedResourceError, OSError, ValueError):
                        await trio.lowlevel.wait_readable(self._stdout_fd)
        if replies.queue or replies.fault is not None or self._reader_done.is_set():
            replies.abandon()
            return None
        first = overdue[0]
        past = max(0.0, first.done_at - (first.start + first.timeout))
        replies.transcript.line("!", f"in step again: the late answer came {past:.3f} s past its deadline")
        self._healthy = True
        return past

    def _write_now(self) -> bool:
        """The usual write: everything queued in one ``os.write`` that the pipe takes whole.
        False if it did not (nothing was written): :meth:`_write` then does it all."""
        data = self._out
        began = time.perf_counter()
        try:
            written = os.write(self._stdin_fd, data)
        except OSError:  # full, closed or broken: the careful path sorts it out
            return False
        if written < len(data):
            del data[:written]
            return False
        data.clear()
        now = time.perf_counter()
        # The write is the referee's own time, in the overhead as the fast exchange counts
        # it (else a stall between the write and its stamp is in neither that nor the clock).
        share = (now - began) / (len(self._unwritten) or 1)
        for queued in self._unwritten:
            queued.sent_at = now
            queued.cost += share
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
                    if self.replies.fault is not None:
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
            if self.replies.fault is None:
                self._status_added = True  # the status is in the message already
                await self._quote_stderr(crash)
            self.replies.record(crash)
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
        self.replies.record(
            BotTimeout(
                self.label, first.text, f"no complete answer within {timeout:.3f} s (it read no input)"
            )
        )

    async def _wait_for(self, pending: Pending, *, wrote: bool = False) -> None:
        """Read stdout until ``pending`` is answered or the bot is at fault; past its
        deadline (``timeout`` after :attr:`Pending.start`) raise :class:`BotTimeout`.

        The rule of the deadline, the same whichever task trio runs first: the answer is
        judged on what stdout holds at the referee's first look at or after the deadline.
        Every wake-up (the bot's output, the timer at the deadline, the exit watcher) is
        followed by a look, a read that does not wait; an answer that look completes is
        the bot's, however late the referee looked (the record says by how much), and only
        a look at or after the deadline that finds no complete answer is a loss on time.
        So an answer complete in the pipe before the deadline is never lost to a late
        timer, a busy loop or a stopped referee, and the reader running before the timer
        cannot accept what the timer's look would have refused."""
        replies = self.replies
        self._reading = True
        looked = 0.0
        deadline = pending.start + pending.timeout  # on the stamps' clock (perf_counter)
        try:
            if self._reader_done.is_set():
                self._end_of_output(again=True)
            elif not wrote:  # just written: its answer is not there yet (a wait finds it if it is)
                looked = time.perf_counter()
                self._read_available()
            if pending.response is None and replies.fault is None and looked < deadline:
                # The deadline as trio's clock sees it. The timer task's alarm carries it
                # (far cheaper than a cancel scope per wait); it need only be no later than
                # this deadline: an earlier alarm wakes the timer, which sets it again to
                # the deadline of the wait then going on.
                trio_deadline = self._set_alarm(deadline)
                self._waiting = pending
                self._timed_out = False
                alarm = self._alarm
                fd = self._stdout_fd
                while pending.response is None and replies.fault is None:
                    if self._reader_done.is_set():  # stdout closed under us: a crash
                        self._end_of_output(again=True)
                        break
                    try:
                        if alarm is None:  # no timer (the bot is closing): a scope of our own
                            with trio.move_on_at(trio_deadline):
                                await trio.lowlevel.wait_readable(fd)
                        else:
                            await trio.lowlevel.wait_readable(fd)
                    except (trio.ClosedResourceError, OSError, ValueError):
                        pass  # the timer or the exit watcher woke us, or aclose closed stdout
                    looked = time.perf_counter()
                    self._read_available()  # the look: also after the timer woke us
                    if self._timed_out or looked >= deadline:
                        break
        finally:
            self._reading = False
            self._waiting = None
            self._wait_deadline = math.inf
        if pending.response is None and replies.fault is None:
            timeout = pending.timeout
            late = looked - deadline
            detail = f"no complete answer within {timeout:.3f} s"
            if late >= NOTICE:
                detail += f" (the referee looked {late * 1e3:.0f} ms after the deadline, a stall of its own)"
            replies.transcript.line("!", detail)
            raise BotTimeout(
                self.label,
                pending.text,
                detail,
                pending.excerpt() if pending.received else None,
                late=max(0.0, late),
            )

    def _read_available(self) -> None:
        """Feed what stdout holds now to the reply matcher, without waiting; each read is
        stamped when it returns. Stops at the end of output or a framing fault."""
        replies = self.replies
        recent = self.recent
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
            recent.append(data)
            if not replies.feed(data, time.perf_counter()):
                self._reader_done.set()
                return
            if len(data) < _READ_SIZE:
                return  # the pipe held no more (a wait that finds more returns at once)

    def _end_of_output(self, *, again: bool = False) -> None:
        """The end of stdout (once), or ``again`` for a command sent after it: a crash
        unless the referee is closing the bot and nothing is in flight."""
        if again or not self._reader_done.is_set():
            self.replies.eof(expected=self._closing)
            self._reader_done.set()

    def _poll(self) -> None:
        """Read whatever stdout holds without waiting, when no request is reading it: lines
        that came while no command was in flight, or the end of output. A poll first: when
        stdout holds nothing (the usual case) it costs less than a read that fails."""
        if not self._reading and self._stdout_fd >= 0 and self._idle_poll.poll(0):
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
        fault = self.replies.fault
        assert fault is not None
        if isinstance(fault, BotCrashed):
            if not self._status_added:
                self._status_added = True
                fault.detail += f" ({await self._exit_status()})"
            await self._quote_stderr(fault)
        raise fault

    async def _exit_status(self) -> str:
        """'exit status N' if the process ends within a moment, for crash messages."""
        assert self._process is not None
        with trio.move_on_after(0.1):
            await self._process.wait()
        return _status(self._process.returncode)

    # ------------------------------------------------------------------ the deadline timer
    async def timer(self) -> None:
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
            if self.on_wake is not None:
                self.on_wake()
            else:
                trio.lowlevel.notify_closing(self._stdout_fd)
