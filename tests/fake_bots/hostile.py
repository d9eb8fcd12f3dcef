"""A hostile bot for the containment and sandbox tests: :mod:`fakebot`'s random player that,
at its first ``genmove``, does one hostile thing (``$HOSTILE_KIND``):

* ``memory``: allocates and touches ``$HOSTILE_MB`` MiB, then hangs;
* ``fork``: forks children (each in a new session, sleeping) until stopped, then hangs;
* ``daemon``: double-forks a ``setsid`` daemon (fds closed, TERM and HUP ignored) that
  sleeps forever, then plays on;
* ``reach``: tries to connect to 127.0.0.1 at port ``$HOSTILE_PORT`` and to write to the
  file ``$HOSTILE_PATH`` (outside its folder), then plays on.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time

from fakebot import FakeBot, main

HOSTILE = os.environ.get("HOSTILE_KIND", "")


def hang() -> None:
    while True:
        time.sleep(3600)


def daemon() -> None:
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.closerange(0, 1024)
    hang()


def reach() -> None:
    try:
        with socket.create_connection(("127.0.0.1", int(os.environ["HOSTILE_PORT"])), timeout=2) as s:
            s.sendall(b"escaped\n")
    except OSError as exc:
        sys.stderr.write(f"hostile: no connection: {exc}\n")
    try:
        with open(os.environ["HOSTILE_PATH"], "w") as f:
            f.write("escaped\n")
    except OSError as exc:
        sys.stderr.write(f"hostile: no write: {exc}\n")


class Hostile(FakeBot):
    done = False

    def answer(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name == "genmove" and not self.done:
            self.done = True
            if HOSTILE == "memory":
                hog = bytearray(b"x") * (int(os.environ.get("HOSTILE_MB", "256")) << 20)
                assert hog
                hang()
            elif HOSTILE == "fork":
                while True:
                    if os.fork() == 0:
                        os.setsid()
                        hang()
            elif HOSTILE == "daemon":
                daemon()
            elif HOSTILE == "reach":
                reach()
        return super().answer(name, args)


if __name__ == "__main__":
    import fakebot

    fakebot.FakeBot = Hostile  # type: ignore[misc]
    main()
