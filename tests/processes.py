"""Finding the bot processes a test started, anywhere on the machine: each test's bots carry
a unique marker in their environment (``VASTUZ_TEST_MARKER``), so a test can check that
none is left, whichever process (a referee, a cluster worker) started them."""

from __future__ import annotations

import os
import time


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries ``marker``."""
    found = []
    needle = f"VASTUZ_TEST_MARKER={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env.split(b"\0") and state != "Z":
            found.append(int(entry))
    return found


def wait_until_gone(marker: str, seconds: float = 10) -> list[int]:
    """The marked processes still alive after waiting up to ``seconds`` for them to go (a
    bound on a wait, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
