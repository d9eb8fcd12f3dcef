"""A time-using bot that stamps every read and write, for ``benchmarks/fairness.py``.

``python benchmarks/stamping_bot.py --stamps DIR --deadline S [--think LO,HI] [--seed N]``

It plays random legal turns, but before each decision (``genmove``, ``gensetup``,
``choose_color``) it burns CPU until a chosen moment: a fraction drawn uniformly from
``--think`` of ``--deadline`` (the per-move limit plus the margin), counted from the read
that brought the command. So its answers land all over the window, many close to the
deadline, where a late look by the referee decides.

Stamps: for every command, one line ``pid id name read write`` is appended to
``DIR/<pid>.stamps`` right after the answer's write returned: ``read`` when the read that
brought the command returned, ``write`` when the write of the whole answer returned (the
answer is then complete in the pipe), both ``time.perf_counter()``, which on Linux is
CLOCK_MONOTONIC, the referee's clock. Each line goes out with its own ``os.write`` on an
``O_APPEND`` file, so a bot killed for a loss on time has kept every stamp before it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.bot import Bot, BotSession
from protocol.framing import LineBuffer, ProtocolError, preprocess_command_line
from referee.engine import Color, Position

_DECISIONS = ("genmove", "gensetup", "choose_color")


class StampingBot(Bot):
    name = "stamping"
    version = "1"

    def choose_turn(self, position: Position, time_left: float | None) -> str:
        return position.random_turn(self.rng)

    def choose_color(self, position: Position) -> Color:
        return self.rng.choice((Color.BLACK, Color.WHITE))


def _burn_until(moment: float) -> None:
    """Busy until ``moment``: a thinking bot uses the CPU, which is what loads the machine."""
    x = 0
    while time.perf_counter() < moment:
        for _ in range(200):
            x += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stamps", type=Path, required=True)
    parser.add_argument("--deadline", type=float, required=True, help="per-move limit plus margin, seconds")
    parser.add_argument("--think", default="0.2,0.95", help="fractions LO,HI of the deadline to think")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    low, high = (float(x) for x in args.think.split(","))
    rng = random.Random(args.seed)
    pid = os.getpid()
    stamps = os.open(args.stamps / f"{pid}.stamps", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    session = BotSession(StampingBot(seed=args.seed), log=sys.stderr)
    buffer = LineBuffer()
    while not session.finished:
        chunk = os.read(0, 65536)
        read_at = time.perf_counter()
        if not chunk:
            return
        buffer.push(chunk)
        while not session.finished:
            ident = name = "-"
            try:
                line = buffer.next_line()
            except ProtocolError as error:
                answer: str | None = session.framing_error(error)
            else:
                if line is None:
                    break
                cleaned = preprocess_command_line(line)
                words = cleaned.split() if cleaned else []
                if len(words) > 1 and words[0].isdigit():
                    ident, name = words[0], words[1]
                if name in _DECISIONS:
                    _burn_until(read_at + rng.uniform(low, high) * args.deadline)
                answer = session.handle_line(line)
            if answer is None:
                continue
            data = answer.encode()
            while data:
                data = data[os.write(1, data) :]
            wrote_at = time.perf_counter()
            os.write(stamps, f"{pid} {ident} {name} {read_at:.6f} {wrote_at:.6f}\n".encode())


if __name__ == "__main__":
    main()
