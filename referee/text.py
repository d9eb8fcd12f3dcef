"""Text a bot (or a file) supplied, made safe to print on a terminal.

Bot names, versions, answers and failure reasons come from programs the referee does not
trust. Printed raw, an escape sequence in them could recolour, retitle or clear the
user's terminal (ANSI CSI, OSC). :func:`printable` keeps ordinary text as it is and shows
every control character as a visible escape (``\\x1b``, ``\\n``). Like ``errors.py`` it
sits beside the layers and imports nothing of ours, so every layer may use it.
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _unsafe(char: str) -> bool:
    # Cc: C0/C1 controls (ESC, BEL, CSI 0x9b...); Cf: invisible formatting such as bidi
    # overrides, which can make text read backwards; Zl/Zp: line and paragraph separators.
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs")


def printable(text: object, *, keep_newlines: bool = False) -> str:
    """``text`` (``str()`` of it) with control and invisible formatting characters shown
    as backslash escapes; everything else, other scripts included, unchanged.
    ``keep_newlines`` leaves the line breaks of multi-line text alone."""
    s = str(text)
    if s.isprintable():
        return s
    out = []
    for char in s:
        if keep_newlines and char == "\n":
            out.append(char)
        elif _unsafe(char):
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)


__all__ = ["printable"]
