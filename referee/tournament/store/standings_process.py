"""A run's periodic standings in a process of their own, so that no game waits for them.

A thread would not do: while a Python thread computes, the run's game loop waits for the
interpreter's lock at every bot answer (up to its 5 ms switch interval each time), and
games of quick bots slow down about four times. This process is started by the runner
(``python -m referee.tournament.store.standings_process``), is given the run's records and
then each new one as it is recorded, and on request prints a table or writes the standings
files and the page (:class:`~referee.tournament.store.publish.Publisher`, with its replays
made once a game), saying when it ran. It ends when its input ends.

The messages both ways are frames: a 4-byte big-endian length, then a pickle (between two
processes of this program over their own pipes). In: ``("init", settings, records)``,
``("game", summary)``, ``("table", done, count, lines, tables, test)``, ``("files", done,
total, count, test)``. Out: ``("say", text, seconds)`` for a table, ``("wrote", start, end, count,
made)`` after the files, ``("failed", words)``.
"""

from __future__ import annotations

import pickle
import signal
import struct
import sys
import time
from typing import IO, Any

from referee.errors import VastuzError
from referee.play.records import GameSummary
from referee.render.standings_text import render, summary_line
from referee.tournament.config.odds import TimeOdds
from referee.tournament.plans.plan import TestView
from referee.tournament.store.folder import latest_records, plan_sections
from referee.tournament.store.manifest import Manifest
from referee.tournament.store.publish import Publisher

HEADER = struct.Struct(">I")


def frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def read_frame(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream (or of a frame cut short)."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    size = HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:  # the runner stopped mid-frame (its run ended): the end
        return None
    return pickle.loads(data)  # our own parent's frames, over our own pipe


class Worker:
    """The standings of one run's folder, from the records its runner sends."""

    def __init__(self, settings: dict[str, Any], records: list[GameSummary]) -> None:
        self.publisher = Publisher(
            settings["folder"],
            settings["name"],
            settings["names"],
            anchor=settings["anchor"],
            anchor_rating=settings["anchor_rating"],
            bootstrap=settings["bootstrap"],
        )
        self.warning: str | None = settings["warning"]
        manifest = Manifest.load(settings["folder"])
        self.schedule = None if manifest is None else manifest.schedule
        # Time odds as the run's own standings and vastuz report give them (the note and
        # each bot's clock), from the manifest; the runner's warning only without one.
        self.odds = None if manifest is None else TimeOdds.of_fingerprint(manifest.fingerprint)
        self.records = records

    def standings(self, count: int, test: TestView | None):  # type: ignore[no-untyped-def]
        records = self.records[:count]
        st = self.publisher.standings(records, test)
        if self.schedule is not None:  # a Swiss's tie-breaks, a bracket, as vastuz report has them
            st.sections.extend(
                plan_sections(self.schedule, list(self.publisher.names), latest_records(records))
            )
        if self.odds is not None:
            self.odds.apply(st)
        elif self.warning is not None:
            st.warnings.append(self.warning)
        return st, records

    def table(self, done: int, count: int, one_line: bool, tables: bool, test: TestView | None) -> str | None:
        st, _ = self.standings(count, test)
        if tables:
            return "\n" + render(st, "text", title=f"standings after {done} games").rstrip() + "\n"
        return f"    standings after {done} games: {summary_line(st)}" if one_line else None

    def files(
        self, done: int, total: int, count: int, test: TestView | None
    ) -> tuple[float, float, int, float]:
        started = time.time()
        st, records = self.standings(count, test)
        self.publisher.write(st, f"{self.publisher.name}: standings after {done} of {total} games")
        made = self.publisher.page(st, records, test, (done, total), True)
        return started, time.time(), count, made


def main() -> None:
    # Ctrl-C is the runner's to handle: this process ends when the runner closes its input.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    first = read_frame(inp)
    if first is None:
        return
    _, settings, records = first
    worker = Worker(settings, records)
    try:
        while (message := read_frame(inp)) is not None:
            kind = message[0]
            if kind == "game":
                worker.records.append(message[1])
                continue
            try:
                if kind == "table":
                    started = time.perf_counter()
                    text = worker.table(*message[1:])
                    reply: tuple[object, ...] = ("say", text, time.perf_counter() - started)
                else:
                    reply = ("wrote", *worker.files(*message[1:]))
            except (OSError, ValueError, VastuzError) as exc:  # a full disk: say so, go on
                reply = ("failed", str(exc))
            out.write(frame(reply))
            out.flush()
    finally:
        worker.publisher.close()


if __name__ == "__main__":
    main()
