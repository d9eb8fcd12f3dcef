"""Every process of a bot, found and bounded: its limits, and a close that leaves nothing.

A bot is a process tree, not a process: it may fork helpers, and a hostile one may leave
its process group and session (``setsid``) and daemonize (double fork, fds closed, TERM
and HUP ignored). The process group kill of :class:`~referee.play.process.BotProcess`
does not reach those. Here, on Linux:

* the process that hosts bots makes itself a *child subreaper*
  (``prctl(PR_SET_CHILD_SUBREAPER)``, :func:`become_subreaper`): an orphan of a bot's tree
  is then re-parented to the referee, not to PID 1, so it stays within reach;
* every bot gets a token in its environment (:data:`TOKEN_VARIABLE`: the host's pid and a
  serial), which its descendants inherit: an orphan found among the referee's own children
  is told to be a bot's by its token, or by its pid having been seen in that bot's tree
  before (that survives an ``exec`` with a cleared environment);
* :class:`BotTree` walks the tree from the bot's pid (``/proc/PID/task/*/children``) and
  adds its orphans; :meth:`BotTree.kill` SIGKILLs everything found, sweeping again until a
  sweep finds nothing alive (a fork bomb forks between sweeps), and reaps the orphans that
  are the referee's children (nobody else will);
* :class:`Limits` are checked by one watcher task per trio run (:class:`LimitWatch`),
  every :data:`WATCH_INTERVAL` seconds: the sum of the resident memory of a bot's processes
  and their count. Over a limit, the bot's fault is recorded first (so the game says
  ``memory`` or ``processes``, not the crash that the kill causes) and its tree is killed.
  Between two looks a bot can go past its limit; so that a machine running out of memory
  still never loses the referee, every bot starts with ``oom_score_adj`` 1000: the kernel's
  OOM killer takes a bot first.

cgroup v2 (``memory.max``, ``pids.max``, ``cgroup.kill``) would bound a bot exactly, but it
needs a delegated, writable cgroup with the memory and pids controllers; hosts without one
(a cgroup v1 or hybrid machine, a container) get the watcher, which works wherever
``/proc`` does. Without ``/proc`` (not Linux), a bot is its process group only: limits are
not enforced and :func:`available` says so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import trio

from referee.play.limits import Limits

__all__ = [
    "TOKEN_VARIABLE",
    "WATCH_INTERVAL",
    "BotTree",
    "LimitWatch",
    "Usage",
    "available",
    "become_subreaper",
    "kill_strays",
    "preexec",
]

TOKEN_VARIABLE = "VASTUZ_BOT_TOKEN"
"""The environment variable every bot process gets: ``HOSTPID.SERIAL``."""
WATCH_INTERVAL = 0.05
"""Seconds between two looks at the bots' memory and process counts."""
PR_SET_CHILD_SUBREAPER = 36
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_serial = itertools.count(1)


def available() -> bool:
    """Whether bot trees can be walked (Linux's ``/proc`` with its ``children`` files)."""
    return os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


_subreaper = False


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (once; Linux only).
    True if it is one."""
    global _subreaper
    if _subreaper:
        return True
    name = ctypes.util.find_library("c")
    if name is None or not available():
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        _subreaper = bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
    return _subreaper


def new_token() -> str:
    """A token for a new bot process of this host."""
    return f"{os.getpid()}.{next(_serial)}"


def preexec(then: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``preexec_fn``: the new bot is the OOM killer's first choice, then ``then`` (the
    CPU pin). Only system calls and a write: nothing that takes a lock."""

    def setup() -> None:
        try:
            fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            try:
                os.write(fd, b"1000")
            finally:
                os.close(fd)
        except OSError:
            pass
        if then is not None:
            then()

    return setup


# --------------------------------------------------------------------------- /proc


_READ_SIZE = 1 << 16


def _read(path: str) -> bytes | None:
    """The whole of a /proc file, or None if it cannot be read (the process is gone). By
    system calls alone: the limit watch reads several a look, and ``open()``'s file objects
    cost as much again. A read shorter than asked for is the end (procfs fills a read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, _READ_SIZE)
        if len(data) == _READ_SIZE:
            chunks = [data]
            while chunk := os.read(fd, _READ_SIZE):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


@dataclass(frozen=True)
class _Stat:
    state: str
    ppid: int
    threads: int
    start: int  # clock ticks after boot: with the pid, names a process for good
    rss: int  # bytes


def _stat(pid: int) -> _Stat | None:
    data = _read(f"/proc/{pid}/stat")
    if data is None:
        return None
    fields = data[data.rfind(b")") + 2 :].split()  # the name may hold spaces and parentheses
    try:
        return _Stat(
            fields[0].decode(), int(fields[1]), int(fields[17]), int(fields[19]), int(fields[21]) * _PAGE
        )
    except (IndexError, ValueError):
        return None


def _children(pid: int, threads: int = 1) -> list[int]:
    if threads == 1:
        tasks: list[str] = [str(pid)]
    else:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return []
    found: list[int] = []
    for task in tasks:
        data = _read(f"/proc/{pid}/task/{task}/children")
        if data:
            found.extend(int(word) for word in data.split())
    return found


def _pss(pid: int) -> int:
    """A process's proportional set size in bytes (0 if it is gone)."""
    data = _read(f"/proc/{pid}/smaps_rollup")
    for line in (data or b"").splitlines():
        if line.startswith(b"Pss:"):
            return int(line.split()[1]) * 1024
    return 0


def _token(pid: int) -> str | None:
    data = _read(f"/proc/{pid}/environ")
    if not data:
        return None
    key = TOKEN_VARIABLE.encode() + b"="
    for item in data.split(b"\0"):
        if item.startswith(key):
            return item[len(key) :].decode(errors="replace")
    return None


def _own_children(all_threads: bool = False) -> list[int]:
    """This process's children; orphans come to the main thread (the subreaper's leader),
    so one file is enough for them; ``all_threads`` also reads the other threads'."""
    me = os.getpid()
    if not all_threads:
        return _children(me)
    stat = _stat(me)
    return _children(me, stat.threads if stat is not None else 1)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


# --------------------------------------------------------------------------- a bot's tree


@dataclass(frozen=True)
class Usage:
    """What a bot's processes held at one look: their count and resident bytes."""

    processes: int
    memory: int


class BotTree:
    """The processes of one bot: its root (the process the referee started), what hangs
    below it, and the orphans of it the referee adopted (see the module docstring)."""

    def __init__(self, root: int, token: str) -> None:
        self.root = root
        self.token = token
        self.seen: dict[int, int] = {}  # pid -> start time, for every process of it seen alive
        _TREES[token] = self

    def close(self) -> None:
        _TREES.pop(self.token, None)

    def _walk(self, extra: list[int]) -> Iterator[tuple[int, _Stat]]:
        queue = [self.root, *extra]
        done: set[int] = set()
        while queue:
            pid = queue.pop()
            if pid in done:
                continue
            done.add(pid)
            stat = _stat(pid)
            if stat is None:
                continue
            start = self.seen.setdefault(pid, stat.start)
            if start != stat.start:  # the pid was reused by a process of someone else
                continue
            yield pid, stat
            if stat.state != "Z":
                queue.extend(_children(pid, stat.threads))

    def usage(self, orphans: list[int], memory_limit: int | None = None) -> Usage:
        """The bot's processes and their resident memory. Resident sizes count the pages
        that forked processes share once in each; so when their sum is over
        ``memory_limit``, the proportional share (PSS, dearer to read) decides."""
        pids: list[int] = []
        memory = 0
        for pid, stat in self._walk(orphans):
            if stat.state != "Z":
                pids.append(pid)
                memory += stat.rss
        if memory_limit is not None and memory > memory_limit and len(pids) > 1:
            memory = sum(_pss(pid) for pid in pids)
        return Usage(len(pids), memory)

    def sweep(self) -> int:
        """SIGKILL every process of the bot seen now, and reap the dead that are this
        process's children (except the root: its owner reaps it). Returns how many were
        alive: sweep again until none is (a fork bomb forks between sweeps, but each sweep
        kills all it sees, so it runs out fast)."""
        me = os.getpid()
        alive = 0
        for pid, stat in list(self._walk(_orphans_of(self))):
            if stat.state == "Z":
                if stat.ppid == me and pid != self.root:
                    _reap(pid)
                continue
            alive += 1
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return alive

    async def kill(self) -> None:
        """:meth:`sweep` until nothing of the bot is left alive."""
        while self.sweep():
            await trio.sleep(0.001)

    def alive(self) -> list[int]:
        """The processes of the bot still running (not zombies)."""
        return [pid for pid, stat in self._walk(_orphans_of(self)) if stat.state != "Z"]


_TREES: dict[str, BotTree] = {}
_claimed: dict[tuple[int, int], str | None] = {}  # (pid, start) of a child -> its token, or None


def _claims() -> dict[str, list[int]]:
    """This process's children that are bots' orphans, by token."""
    roots = {tree.root for tree in _TREES.values()}
    claims: dict[str, list[int]] = {}
    present: set[tuple[int, int]] = set()
    for pid in _own_children():
        if pid in roots:
            continue
        stat = _stat(pid)
        if stat is None:
            continue
        key = (pid, stat.start)
        present.add(key)
        if key not in _claimed:
            token = next((t.token for t in _TREES.values() if t.seen.get(pid) == stat.start), None)
            _claimed[key] = token if token is not None else _token(pid)
        token = _claimed[key]
        if token is not None:
            claims.setdefault(token, []).append(pid)
    if len(_claimed) > 2 * len(present) + 64:  # forget the children gone
        for key in [key for key in _claimed if key not in present]:
            del _claimed[key]
    return claims


def _orphans_of(tree: BotTree) -> list[int]:
    return _claims().get(tree.token, [])


def kill_strays(host: int | None = None) -> int:
    """Kill the bot processes among this process's children that no live bot of it owns:
    all of them, or (``host``) those of the referee process with that pid (which died).
    Returns how many trees were killed. For a run to call when a referee child is gone,
    and at its end."""
    killed = 0
    for pid in _own_children(all_threads=True):
        stat = _stat(pid)
        if stat is None:
            continue
        token = _token(pid)
        if token is None or token in _TREES:
            continue
        if host is not None and token.partition(".")[0] != str(host):
            continue
        stray = BotTree(pid, f"stray.{pid}")
        try:
            while stray.sweep():
                time.sleep(0.001)
            _reap(pid)
        finally:
            stray.close()
        killed += 1
    return killed


# --------------------------------------------------------------------------- the watcher

Over = Callable[[str, Usage], None]
"""Told which limit a bot went over (``"memory"`` or ``"processes"``) and what was seen."""

_WATCH: trio.lowlevel.RunVar[LimitWatch | None] = trio.lowlevel.RunVar("referee_limit_watch", default=None)


class LimitWatch:
    """One task per trio run that looks at every watched bot's usage each
    :data:`WATCH_INTERVAL` and calls its ``over`` once when it passes a limit."""

    def __init__(self) -> None:
        self.watched: dict[BotTree, tuple[Limits, Over]] = {}
        self._wanted = trio.Event()

    @classmethod
    def current(cls) -> LimitWatch:
        watch = _WATCH.get()
        if watch is None:
            watch = cls()
            _WATCH.set(watch)
            trio.lowlevel.spawn_system_task(watch._run, name="referee-limit-watch")
        return watch

    @classmethod
    def forget(cls, tree: BotTree) -> None:
        """Stop watching ``tree`` (if this run's watch does)."""
        watch = _WATCH.get()
        if watch is not None:
            watch.unwatch(tree)

    def watch(self, tree: BotTree, limits: Limits, over: Over) -> None:
        self.watched[tree] = (limits, over)
        self._wanted.set()

    def unwatch(self, tree: BotTree) -> None:
        self.watched.pop(tree, None)

    def look(self) -> None:
        """One look at every watched bot (the task's body; tests call it directly)."""
        claims = _claims()
        for tree, (limits, over) in list(self.watched.items()):
            usage = tree.usage(claims.get(tree.token, []), limits.memory)
            kind = None  # processes first: a fork bomb's copies also add up to much memory
            if limits.processes is not None and usage.processes > limits.processes:
                kind = "processes"
            elif limits.memory is not None and usage.memory > limits.memory:
                kind = "memory"
            if kind is not None:
                self.unwatch(tree)
                over(kind, usage)

    async def _run(self) -> None:
        while True:
            if not self.watched:
                self._wanted = trio.Event()
                await self._wanted.wait()
            await trio.sleep(WATCH_INTERVAL)
            self.look()
