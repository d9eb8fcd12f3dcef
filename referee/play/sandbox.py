"""``sandbox: true``: a bot run under bubblewrap (``bwrap``), seeing only what it needs.

Inside: the whole system read-only, the bot's own folder (``cwd``) writable, a private
``/tmp``, a private ``/dev`` and ``/proc``, its own network namespace with nothing in it
but a loopback (no connection leaves the sandbox, not even to the machine's 127.0.0.1),
its own PID namespace (when its first process exits, the kernel kills every other one:
nothing of it can outlive it) and its own IPC and UTS namespaces. The results folder and
the other bots' folders are covered by empty, read-only folders, unless one of them is
the bot's folder or holds it (bots that share a folder see each other's files).

bubblewrap is Debian's ``bubblewrap`` package (Linux only). A config asking for a
sandbox where ``bwrap`` is missing fails before any bot starts (:func:`missing`).
:func:`wrap` turns a bot's argv into bwrap's; it is all this module does: no process is
started here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PROGRAM", "Sandbox", "missing", "wrap"]

PROGRAM = "bwrap"


@dataclass(frozen=True)
class Sandbox:
    """A bot's sandbox: ``hidden`` are the folders it must not see (the results folder,
    the other bots' folders)."""

    hidden: tuple[Path, ...] = ()


def missing() -> str | None:
    """Why no sandbox can be made here, or None."""
    if shutil.which(PROGRAM) is None:
        return (
            f"sandbox: true needs bubblewrap ({PROGRAM!r}), which is not on PATH "
            "(on Debian or Ubuntu: apt-get install bubblewrap)"
        )
    return None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def wrap(argv: Sequence[str], cwd: str | os.PathLike[str] | None, sandbox: Sandbox) -> list[str]:
    """``argv`` run by bwrap in ``sandbox``, with ``cwd`` (default: the referee's folder)
    its writable folder. Mounts are made in order: what hides a folder above the bot's
    comes before the bot's folder is bound, what hides one inside it after."""
    program = shutil.which(PROGRAM) or PROGRAM
    folder = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
    args = [
        program,
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--unshare-all",  # user (where it can), IPC, PID, network, UTS, cgroup
        "--new-session",
    ]  # fmt: skip
    above: list[Path] = []
    below: list[Path] = []
    for hidden in sorted({Path(os.path.abspath(p)) for p in sandbox.hidden}, key=lambda p: len(p.parts)):
        if _inside(folder, hidden) or not hidden.is_dir():
            continue  # the bot's own folder (or one holding it) stays; nothing to hide
        (below if _inside(hidden, folder) else above).append(hidden)
    for hidden in above:
        args += ["--tmpfs", str(hidden), "--remount-ro", str(hidden)]
    args += ["--bind", str(folder), str(folder)]
    for hidden in below:
        args += ["--tmpfs", str(hidden), "--remount-ro", str(hidden)]
    args += ["--chdir", str(folder), "--", *argv]
    return args
