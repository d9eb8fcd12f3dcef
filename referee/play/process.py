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

The process is one object made of two: :class:`BotProcess` is the life of the process
(spawn, handshake, logs, the close) and the bot as the game loop sees it; its requests (one
write for what is queued, stdout read by the request that waits for an answer, the deadline
timer) are a :class:`~referee.play.pipes.BotPipes` that it holds, with its own state, in
:mod:`referee.play.pipes`. How to start a bot, :class:`~referee.play.command.BotCommand`,
is in :mod:`referee.play.command`, and how every process of it is run,
:class:`~referee.play.options.BotOptions`, in :mod:`referee.play.options`.

Three background tasks run per bot, in the nursery the bot is started in:

* the *stderr drain* (:class:`~referee.play.stderr.StderrDrain`) copies stderr into the
  current log file, capped (per game, and in total with a shared
  :class:`~referee.play.logs.LogBudget`), and keeps reading after the cap so that a chatty
  bot never blocks on a full pipe. It also keeps the last few hundred bytes in memory: a
  crash or a failed start-up quotes them in its fault message, since that is where a bot
  says why it died (``No module named ...``).
* the *exit watcher* waits for the process itself. Normally the reader sees the end of
  stdout when the bot dies; but a bot that exits while a child of it still holds stdout
  open would otherwise be recorded as a loss on time after the whole deadline. The watcher
  records that crash, with the exit status, at once (and wakes the request waiting).
* the *timer* holds the deadline of the answer being waited for, in one cancel scope whose
  deadline is moved (cheaper than a scope per wait); at the deadline it wakes the
  waiting request, which raises :class:`BotTimeout`. The watcher and the timer are the
  pipes' (:meth:`~referee.play.pipes.BotPipes.watch_exit`,
  :meth:`~referee.play.pipes.BotPipes.timer`): what they wake is a request's wait.

:meth:`BotProcess.aclose` always finishes, shielded from cancellation: ``quit`` (if the bot
is healthy) -> grace -> SIGTERM to the group -> grace -> SIGKILL to the group -> reap.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

import trio

from protocol import commands
from protocol.framing import ProtocolError
from protocol.messages import Command
from referee.play import containment
from referee.play.command import BotCommand, split_command
from referee.play.containment import BotTree, LimitWatch, Usage
from referee.play.cpu import pin_child
from referee.play.faults import BotFault, BotOverMemory, BotOverProcesses, BotProtocolError, BotStartError
from referee.play.handshake import handshake
from referee.play.hints import start_hints
from referee.play.limits import Limits, describe_size
from referee.play.logs import CappedLog, LogBudget, Transcript
from referee.play.options import DEFAULT_OPTIONS, BotOptions
from referee.play.pipes import BotPipes
from referee.play.player import Exchange
from referee.play.programs import read_head
from referee.play.records import BotStats
from referee.play.replies import Pending, Replies
from referee.play.sandbox import Sandbox, wrap
from referee.play.spec import DEFAULT_COMMAND_TIMEOUT
from referee.play.stderr import StderrDrain

# ---------------------------------------------------------------------------- the process


class BotProcess:
    """One bot program: spawn, handshake, requests, logs, and a close that always reaps.

    Use as ``async with BotProcess(cmd, label="A") as bot:`` (it opens its own nursery for
    its background tasks), or call ``await bot.start(nursery)`` and ``await bot.aclose()``
    yourself; ``aclose`` must then run before the nursery ends (the background tasks end
    with it). The bot may play several games: :meth:`new_game` resets its board and
    switches the log files. ``options`` are the settings shared by the processes of a run
    (deadlines, graces, log cap, board size); ``log_budget`` is the bot's total for its
    logs, shared by its processes; ``cpus`` the cores it is pinned to (affinity), None:
    wherever the system runs it.

    After the handshake: ``name``, ``version``, ``commands`` (what ``list_commands`` said),
    ``pid`` (also the process group id). ``stats`` accumulates over the bot's life.
    ``healthy`` turns False at the first fault; an unhealthy bot is not sent ``quit`` but
    killed, since whatever it would say next cannot be trusted. ``ready`` says the handshake
    succeeded, ``start_failure`` holds what :meth:`start` raised (for counting bots that
    cannot start), and :meth:`log_notes` what went wrong with the current log files.
    ``pipes`` is the request side (see the module docstring); the game loop pipelines
    commands through it.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        label: str = "bot",
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        options: BotOptions = DEFAULT_OPTIONS,
        stderr_log: Path | None = None,
        transcript: Path | None = None,
        log_budget: LogBudget | None = None,
        cpus: frozenset[int] | None = None,
        limits: Limits | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.argv = split_command(command)
        if not self.argv:
            raise ValueError("empty bot command")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.label = label
        self.cwd = cwd
        self.env = env
        self.options = options
        self.log_budget = log_budget
        self.cpus = cpus
        self.limits = limits
        self.sandbox = sandbox
        self.tree: BotTree | None = None  # every process of it (see referee.play.containment)
        self.name: str | None = None
        self.version: str | None = None
        self.commands: set[str] = set()
        self.pid: int | None = None
        self.stats = BotStats()
        self.ready = False
        self.start_failure: BotStartError | BotFault | None = None
        self.stderr_log_path: Path | None = None
        self.transcript_path: Path | None = None
        self._transcript = Transcript(None, options.log_cap)
        self._stderr = StderrDrain(CappedLog(None, options.log_cap))
        self.pipes = BotPipes(
            label, self._stderr, Replies(label, self._transcript, options.max_line), self.stats
        )
        self.set_logs(stderr_log, transcript)
        self._process: trio.Process | None = None
        self._closed: trio.Event | None = None
        self._stack: contextlib.AsyncExitStack | None = None

    @classmethod
    def of(
        cls,
        bot: BotCommand,
        options: BotOptions = DEFAULT_OPTIONS,
        *,
        stderr_log: Path | None = None,
        transcript: Path | None = None,
        log_budget: LogBudget | None = None,
        cpus: frozenset[int] | None = None,
    ) -> BotProcess:
        """A process of ``bot`` (its command, label, folder and environment)."""
        return cls(
            bot.command,
            label=bot.label,
            cwd=bot.cwd,
            env=bot.env,
            options=options,
            stderr_log=stderr_log,
            transcript=transcript,
            log_budget=log_budget,
            cpus=cpus,
            limits=bot.limits,
            sandbox=bot.sandbox,
        )

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
        """Spawn the program and run the handshake within ``options.startup_timeout``.

        Raises :class:`BotStartError` if the program cannot be executed, and a
        :class:`BotFault` if it starts but fails the handshake (the caller still owns the
        process and must :meth:`aclose` it); that fault quotes the end of the bot's stderr.
        Either is kept as :attr:`start_failure`; :attr:`ready` turns True after the handshake.
        """
        if self._process is not None:
            raise RuntimeError(f"{self!r} is already started")
        token = containment.new_token()
        env = {**os.environ, **(self.env or {}), containment.TOKEN_VARIABLE: token}
        contained = containment.become_subreaper()
        argv = self.argv if self.sandbox is None else wrap(self.argv, self.cwd, self.sandbox)
        try:
            self._process = process = await trio.lowlevel.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,
                preexec_fn=containment.preexec(None if self.cpus is None else pin_child(self.cpus)),
            )
        except OSError as exc:
            failure = BotStartError(f"bot {self.label}: cannot start {self.command!r}: {exc}")
            failure.__cause__ = exc
            hints = start_hints(self.argv, read_head(self.argv[0], self._cwd_path()), failure)
            self.start_failure = BotStartError(str(failure) + "".join(f"; hint: {h}" for h in hints))
            raise self.start_failure from exc
        self.pid = process.pid
        if contained:
            self.tree = BotTree(process.pid, token)
            if self.limits is not None and self.limits.any:
                LimitWatch.current().watch(self.tree, self.limits, self._over_limit)
        # The tasks first: the close waits for the stderr drain's end, so nothing that could
        # raise (a bug of ours) may come between the spawn and the drain's start.
        assert process.stderr is not None
        nursery.start_soon(self._stderr.run, process.stderr, name=f"{self.label}-stderr")
        self.pipes.attach(process)
        nursery.start_soon(self.pipes.watch_exit, name=f"{self.label}-exit")
        nursery.start_soon(self.pipes.timer, name=f"{self.label}-timer")
        self._transcript.line("!", f"started pid {self.pid}: {self.command}")
        try:
            await self._handshake()
        except BotFault as fault:
            alive = process.returncode is None
            await self._stderr.quote(fault, exited=not alive)
            # The fault is exact; the likely cause of a first-day one is said too.
            head = read_head(self.argv[0], self._cwd_path())
            fault.detail += "".join(f"; hint: {h}" for h in start_hints(self.argv, head, fault, alive=alive))
            self.start_failure = fault
            raise
        self.ready = True

    def _over_limit(self, kind: str, usage: Usage) -> None:
        """The limit watch saw the bot over a limit: its fault first (the game's loss says
        why), then every process of it killed (the close reaps them)."""
        limits = self.limits
        assert limits is not None and self.tree is not None
        if kind == "memory":
            assert limits.memory is not None
            fault: BotFault = BotOverMemory(
                self.label,
                self.pipes.replies.last_command,
                f"over its memory limit of {describe_size(limits.memory)}: {describe_size(usage.memory)} "
                f"resident in {usage.processes} process(es)",
            )
        else:
            fault = BotOverProcesses(
                self.label,
                self.pipes.replies.last_command,
                f"over its limit of {limits.processes} processes: {usage.processes} running",
            )
        self.pipes.fail(fault)
        self.tree.sweep()

    def _cwd_path(self) -> Path | None:
        return None if self.cwd is None else Path(self.cwd)

    async def _handshake(self) -> None:
        def refusal(command: Command, exc: ProtocolError, text: str) -> BotProtocolError:
            return BotProtocolError(
                self.label, self.pipes.replies.last_command or str(command), str(exc), text
            )

        options = self.options
        introduced = await handshake(
            self.call, refusal, options.startup_timeout, options.board_size, options.startup_commands
        )
        self.name, self.version, self.commands = introduced.name, introduced.version, introduced.commands

    def knows(self, command_name: str) -> bool:
        """Whether the bot listed ``command_name`` in ``list_commands``."""
        return command_name in self.commands

    # ------------------------------------------------------------------ requests
    async def request(self, command: Command, timeout: float, *, numbered: bool = True) -> Exchange:
        """Send ``command`` and wait for its answer: see :meth:`BotPipes.request`."""
        return await self.pipes.request(command, timeout, numbered=numbered)

    def send(self, command: Command, timeout: float, *, numbered: bool = True) -> Pending:
        """Queue ``command`` without waiting: see :meth:`BotPipes.send`."""
        return self.pipes.send(command, timeout, numbered=numbered)

    async def receive(self, pending: Pending) -> Exchange:
        """Write what is queued and wait for the answer to ``pending``: see :meth:`BotPipes.receive`."""
        return await self.pipes.receive(pending)

    async def flush(self) -> None:
        """Write what :meth:`send` queued now: see :meth:`BotPipes.flush`."""
        await self.pipes.flush()

    async def call(self, command: Command, timeout: float) -> str:
        """:meth:`request` for a command the bot must answer with ``=``: see :meth:`BotPipes.call`."""
        return await self.pipes.call(command, timeout)

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

    # ------------------------------------------------------------------ logs
    def set_logs(self, stderr_log: Path | None, transcript: Path | None) -> None:
        """Send stderr and the transcript to new files from now on (``None``: discard);
        the stderr log is made when the bot first writes to it (see :class:`CappedLog`).
        The notes of :meth:`log_notes` start afresh with the new files, and so do the
        protocol lines a fault's record keeps (a new game's logs: its lines only)."""
        cap = self.options.log_cap
        self.pipes.recent.clear()
        self._transcript.close()
        self.stderr_log_path = stderr_log
        self.transcript_path = transcript
        self._stderr.set_log(CappedLog(stderr_log, cap, self.log_budget, lazy=True))  # made when written
        self._transcript = Transcript(transcript, cap, self.log_budget)
        self.pipes.replies.transcript = self._transcript

    def log_notes(self) -> list[str]:
        """What went wrong with this bot's current log files, for the game's record: a file
        that could not be written (given up, the game goes on), or the bot's total log cap
        (its :class:`LogBudget`) reached, said once per budget."""
        notes = [
            f"bot {self.label}: {problem}"
            for problem in (self._stderr.log.problem, self._transcript.problem)
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
        return self._stderr.tail.excerpt()

    def stderr_text(self) -> str | None:
        """The end of what the bot wrote to stderr, whole lines as written (see
        :meth:`Tail.text`), for a fault's record; None if it wrote nothing but blanks."""
        return self._stderr.tail.text()

    # ------------------------------------------------------------------ closing
    @property
    def healthy(self) -> bool:
        """False from the first fault on: a timeout, a crash, a broken answer (also one that
        came while it was idle: stdout is read without waiting first). An unhealthy bot is
        not sent ``quit`` but killed, since whatever it says next cannot be trusted."""
        return self.pipes.healthy

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
            and self.pipes.idle
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
            self._stderr.log.close()
            self._transcript.close()
            self._closed.set()

    async def _shutdown(self) -> None:
        process = self._process
        if process is None:
            return
        self.pipes.begin_close()
        try:
            await self._close_process(process)
        finally:
            self.pipes.detach()

    async def _close_process(self, process: trio.Process) -> None:
        pipes = self.pipes
        quit_grace = self.options.quit_grace
        if not pipes.idle and self.healthy and process.returncode is None:
            # Answers nobody waited for (a game that ended on the answer before them): a
            # healthy bot gives them, then quits, rather than being killed.
            pipes.quitting = True
            with trio.move_on_after(quit_grace):
                try:
                    await pipes.collect()
                except BotFault:
                    pass
            pipes.quitting = False
        if self.healthy and pipes.idle and process.returncode is None:
            pipes.quitting = True
            with trio.move_on_after(quit_grace):
                try:
                    await pipes.request(commands.quit(), quit_grace)
                except BotFault:
                    pass
                await process.wait()
            pipes.quitting = False
        for sig, grace in ((signal.SIGTERM, self.options.kill_grace), (signal.SIGKILL, None)):
            if process.poll() is not None:
                break
            self._signal_group(sig)
            if grace is None:
                await process.wait()
            else:
                with trio.move_on_after(grace):
                    await process.wait()
        self._signal_group(signal.SIGKILL)  # whatever is left of the group: grandchildren
        tree = self.tree
        if tree is not None:  # and whatever left the group: a daemon, its orphans
            with trio.move_on_after(self.options.kill_grace + 1.0):
                await tree.kill()
            LimitWatch.forget(tree)
            tree.close()
        self._transcript.line("!", f"reaped: returncode {process.returncode}")
        # Let the drain read the last of stderr, then close our ends (ends both tasks even
        # if an escaped grandchild still holds the pipes open).
        with trio.move_on_after(0.2):
            await self._stderr.done.wait()
        pipes.detach()  # the descriptors' numbers may be reused once closed
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                await stream.aclose()
        await self._stderr.done.wait()

    def kill(self) -> None:
        """SIGKILL the bot's process group now, without waiting (a second Ctrl-C cannot
        wait for the orderly close). The :meth:`aclose` that follows still reaps it."""
        if self._process is not None and self._process.returncode is None:
            self.pipes.mark_unhealthy()
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
