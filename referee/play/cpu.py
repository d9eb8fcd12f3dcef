"""Cores for bots (``affinity``): one core kept free of bots for the referee, each game
slot's bots on others, as fastchess's ``-use-affinity`` does.

On a loaded machine the referee's lateness is mostly the scheduler's: a bot it writes to
wakes up and may take the referee's core, and the referee then waits behind busy bots.
With no bot allowed on one core, the referee always finds that core when it wakes (the
scheduler places a waking thread on an idle core). The referee itself is not pinned: its
threads, and whatever they start later, would inherit the pin. :func:`parse_cpus` reads a
list such as ``"0-3,6"``; :class:`CorePlan` keeps one core and shares the rest among the
game slots; :func:`pin_child` starts a bot on its slot's cores.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["CorePlan", "available_cpus", "describe_cpus", "parse_cpus", "pin_child"]


def available_cpus() -> frozenset[int] | None:
    """The CPUs this process may run on, or None where the platform cannot say or pin."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    return frozenset(os.sched_getaffinity(0))


def parse_cpus(text: str) -> frozenset[int]:
    """``"0-3,6"`` -> {0, 1, 2, 3, 6}; ``ValueError`` saying what is wrong."""
    cpus: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            raise ValueError(f"an empty item in {text!r}")
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"{part!r} is not a CPU number or a range such as 0-3")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"the range {part!r} runs backwards")
        cpus.update(range(first, last + 1))
    return frozenset(cpus)


@dataclass(frozen=True)
class CorePlan:
    """``referee`` kept free of bots, and each game slot's bots on ``slots[k]``.

    With at least two cores per slot left after the referee's, every slot gets cores of its
    own (its two bots think in turn, so one core each is plenty); with fewer, slots share
    cores round robin, which still keeps the bots off the referee's core."""

    referee: int
    slots: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, cpus: Sequence[int], concurrency: int) -> CorePlan | None:
        """A plan over ``cpus`` for ``concurrency`` game slots; None with fewer than two
        cores (nothing to keep apart)."""
        ordered = sorted(set(cpus))
        if len(ordered) < 2:
            return None
        referee, rest = ordered[0], ordered[1:]
        per = len(rest) // concurrency
        if per >= 1:
            slots = tuple(frozenset(rest[k * per : (k + 1) * per]) for k in range(concurrency))
        else:
            slots = tuple(frozenset({rest[k % len(rest)]}) for k in range(concurrency))
        return cls(referee, slots)

    def describe(self) -> str:
        shared = len(set(self.slots)) < len(self.slots)
        cores = sorted(set().union(*self.slots))
        return (
            f"affinity: bots on CPUs {describe_cpus(cores)}, CPU {self.referee} kept free for the referee"
            + (" (game slots share them)" if shared else " (a core of its own per game slot)")
        )


def describe_cpus(cpus: Sequence[int]) -> str:
    """[0, 1, 2, 5] -> ``"0-2,5"``."""
    runs: list[list[int]] = []
    for cpu in cpus:
        if runs and runs[-1][1] == cpu - 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def pin_child(cpus: frozenset[int]) -> Callable[[], None]:
    """A ``preexec_fn`` that pins a new process to ``cpus`` between fork and exec, so the
    program and everything it starts run there from its first instruction (trio spawns in
    a worker thread, whose own CPUs a child would otherwise inherit). It only makes the
    system call: nothing in it takes a lock another thread could hold at the fork."""
    cpus = frozenset(cpus)

    def pin() -> None:
        os.sched_setaffinity(0, cpus)

    return pin
