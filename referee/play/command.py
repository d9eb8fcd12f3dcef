"""How to start a bot: :class:`BotCommand`, a value, and :func:`split_command`.

Apart from :mod:`referee.play.process` because the tournament, the CLI and the tests name
bots long before (and without) starting one: a config or a match builds ``BotCommand``
values, and only :meth:`BotProcess.of <referee.play.process.BotProcess.of>` makes a process
of one. The dependency points one way: this module knows nothing of processes.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.play.limits import Limits
from referee.play.sandbox import Sandbox


def split_command(command: str | Sequence[str]) -> list[str]:
    """A bot command as argv: a string is split like a shell would (without a shell)."""
    return shlex.split(command) if isinstance(command, str) else list(command)


@dataclass(frozen=True)
class BotCommand:
    """How to start a bot: its command (a string is split like a shell would, without a
    shell), a label for logs and records, and optionally a working directory, extra
    environment variables (added to the referee's own environment), the bot's
    :class:`~referee.play.containment.Limits` (None: none) and its
    :class:`~referee.play.sandbox.Sandbox` (None: it runs as the referee does)."""

    command: str | tuple[str, ...]
    label: str
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    limits: Limits | None = None
    sandbox: Sandbox | None = None

    @property
    def argv(self) -> list[str]:
        """The command as the program and its arguments (a string split as by a shell)."""
        return split_command(self.command)
