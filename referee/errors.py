"""One tree for everything a user (bot author, tournament organiser) can get wrong.

Bot *faults during a game* are not exceptions that escape: the referee turns them into a
recorded forfeit. The classes here are for input the user hands us directly: a turn
string, a config file, a results folder, a command line.
"""

from __future__ import annotations


class VastuzError(Exception):
    """Base class of every error the user can cause and we report in plain words."""


class ConfigError(VastuzError):
    """A tournament config is invalid. The message names the file, the key path and what
    was expected, e.g. ``demo.yaml: bots[2].command: expected a string or a list of strings``.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None) -> None:
        self.file = file
        self.key = key
        self.detail = message
        where = ": ".join(p for p in (file, key) if p)
        super().__init__(f"{where}: {message}" if where else message)


class ResultsError(VastuzError):
    """A results folder cannot be used: it belongs to an incompatible config, or it is
    not a results folder at all."""


class RunStopped(VastuzError):
    """A run stopped before its end for a reason the user must act on: a bot that cannot
    start again and again, or the output closed under it (``vastuz tournament | head``).
    Every game that finished is kept; the message says what happened and what to do."""


class ClusterError(VastuzError):
    """A cluster run cannot start or go on: Dask is not installed, the scheduler cannot be
    reached, a worker cannot start a bot, or the cluster lost every worker. The message
    names the scheduler or the worker and what is missing."""


def single_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error inside (nested) exception groups, or the group itself if there are more:
    trio's nurseries wrap errors in groups, and a user-facing error should reach the user as
    itself."""
    inner: BaseException = group
    while isinstance(inner, BaseExceptionGroup) and len(inner.exceptions) == 1:
        inner = inner.exceptions[0]
    return inner
