"""Where a server listens: ``[HOST:]PORT``, and whether a host needs a token (no imports of
the web stack, so the command line checks these before anything starts)."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine's loopback (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); ValueError with the reason."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"expected [HOST:]PORT, got {text!r}") from None
    if not 0 <= number <= 65535:
        raise ValueError(f"a port is 0..65535, got {number}")
    return (host.strip("[]") or "127.0.0.1"), number


def check_host(host: str, token: str | None) -> str | None:
    """Why a server must not start on ``host`` as asked (another host without a token), or None."""
    if not is_loopback(host) and not token:
        return (
            f"serving on {host} (not this machine's loopback) lets anyone who can reach it "
            "start games and bots: give a token (--token TOKEN or --token-file FILE; "
            "--serve-token TOKEN with vastuz tournament --serve), which every request that starts "
            "or plays a game must carry"
        )
    return None
