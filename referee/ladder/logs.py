"""A ladder's bot logs kept to its last rounds: a ladder never ends, and every game leaves a
stderr log per bot (and a transcript with ``--transcripts``), so without a bound its
``logs/`` folder would grow by two files a game for as long as it runs.

Each game's files start with its slot key (``r12-a+b-01-0-a.stderr.log``, see
:meth:`~referee.tournament.executors.pool.BotPool.take`), so a round's files are found by
name alone. After each round ends, the files of every round older than the last
``keep_logs`` are deleted (all older ones, not only the one just passed: a ladder restarted
with a smaller ``keep_logs`` catches up). A game's record keeps what a fault needs (the end
of the bot's stderr, the exchanges before it), so a deleted log loses no verdict.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_ROUND = re.compile(r"r(\d+)-")


def prune_logs(folder: Path, last_round: int, keep: int) -> int:
    """Delete the logs of rounds before ``last_round - keep + 1`` (``keep`` 0: none); the
    number of files deleted. Blocking: run it in a worker thread."""
    if keep <= 0:
        return 0
    oldest_kept = last_round - keep + 1
    deleted = 0
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for entry in entries:
        match = _ROUND.match(entry.name)
        if match is None or int(match.group(1)) >= oldest_kept or not entry.is_file(follow_symlinks=False):
            continue
        try:
            os.unlink(entry.path)
            deleted += 1
        except FileNotFoundError:
            pass
    return deleted


__all__ = ["prune_logs"]
