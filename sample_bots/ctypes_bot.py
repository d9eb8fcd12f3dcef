"""The C rules library (libvastuz, ``sample_bots/c/vastuz.h``) from Python through ctypes,
and a bot whose rules are all the library's: an example of the C FFI any language has.

:class:`CRules` loads the shared library (``make -C sample_bots/c`` builds
``sample_bots/c/build/libvastuz.so``) and :class:`CPosition` wraps one ``vz_pos``: legal
placements, every legal turn, checked play, a random turn, the score. The same calls work
from Rust (``extern "C"``), Go (cgo), Java (FFM), Node (koffi)...: only the plain API of
the header is used here.

Run as a bot (a random player; its protocol loop is this file's, no SDK)::

    make -C sample_bots/c
    python -m sample_bots.ctypes_bot [--lib PATH] [--seed N]

The tests use :class:`CPosition` to prove the library equal to the Python engine.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_LIB = Path(__file__).resolve().parent / "c" / "build" / "libvastuz.so"
MAXP = 469
TURN_TEXT = 8 * MAXP + 16


class VzTurn(ctypes.Structure):
    """``vz_turn``: the placement (-1: pass) and the steals, as point indices."""

    _fields_ = [
        ("place", ctypes.c_int),
        ("n", ctypes.c_int),
        ("x", ctypes.c_int16 * MAXP),
        ("y", ctypes.c_int16 * MAXP),
    ]


class Rng:
    """A ``vz_rng`` (one 64-bit state), seeded by the library's ``vz_seed``."""

    def __init__(self, rules: CRules, seed: int) -> None:
        self.state = ctypes.c_uint64(0)
        rules.lib.vz_seed(ctypes.byref(self.state), seed)


class CRules:
    """The loaded library, with argument and result types declared for each function used."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        found = path or os.environ.get("VASTUZ_LIB") or DEFAULT_LIB
        lib = ctypes.CDLL(str(found))
        self.lib = lib
        pos, text, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        signatures: dict[str, tuple[object, list[object]]] = {
            "vz_new": (pos, [i]),
            "vz_free": (None, [pos]),
            "vz_copy": (None, [pos, pos]),
            "vz_sizeof_pos": (ctypes.c_size_t, []),
            "vz_size": (i, [pos]),
            "vz_to_move": (i, [pos]),
            "vz_point_count": (i, [pos]),
            "vz_color_at": (i, [pos, i]),
            "vz_point_name": (text, [pos, i]),
            "vz_set_stones": (text, [pos, text, text, i]),
            "vz_parse_point": (i, [pos, text, ctypes.c_size_t]),
            "vz_setup": (text, [pos, i, i]),
            "vz_legal_placements": (i, [pos, ctypes.POINTER(i)]),
            "vz_is_over": (i, [pos]),
            "vz_play": (text, [pos, text]),
            "vz_legal_turns": (ctypes.c_long, [pos, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(i)]),
            "vz_seed": (None, [ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint64]),
            "vz_random_turn": (i, [pos, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(VzTurn)]),
            "vz_format_turn": (None, [pos, ctypes.POINTER(VzTurn), ctypes.c_char_p]),
            "vz_score2": (i, [pos, i]),
            "vz_below": (i, [ctypes.POINTER(ctypes.c_uint64), i]),
            "vz_result": (None, [pos, ctypes.c_char_p]),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes

    def position(self, size: int) -> CPosition:
        return CPosition(self, size)


class CPosition:
    """One ``vz_pos`` on the C heap, freed with the object. Mutable, like the C struct:
    :meth:`play` changes it (``copy`` first to try a turn)."""

    def __init__(self, rules: CRules, size: int) -> None:
        self.rules = rules
        self._lib = rules.lib
        self._ptr = self._lib.vz_new(size)
        if not self._ptr:
            raise ValueError(f"no board of size {size}")

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            self._lib.vz_free(ptr)
            self._ptr = None

    def copy(self) -> CPosition:
        other = CPosition(self.rules, self.size)
        self._lib.vz_copy(other._ptr, self._ptr)
        return other

    @property
    def size(self) -> int:
        return int(self._lib.vz_size(self._ptr))

    @property
    def to_move(self) -> str:
        return "white" if self._lib.vz_to_move(self._ptr) else "black"

    @property
    def is_over(self) -> bool:
        return bool(self._lib.vz_is_over(self._ptr))

    def set_stones(self, black: Sequence[str], white: Sequence[str], to_move: str) -> None:
        why = self._lib.vz_set_stones(
            self._ptr, ",".join(black).encode(), ",".join(white).encode(), int(to_move[0] == "w")
        )
        if why:
            raise ValueError(why.decode())

    def setup(self, black: str, white: str) -> None:
        """The pie-rule stones on the empty board; ``ValueError`` with the reason if not valid."""
        b, w = (self._lib.vz_parse_point(self._ptr, p.encode(), len(p.encode())) for p in (black, white))
        why = self._lib.vz_setup(self._ptr, b, w)
        if why:
            raise ValueError(f"illegal setup: {why.decode()}")

    def legal_placements(self) -> list[str]:
        out = (ctypes.c_int * MAXP)()
        n = self._lib.vz_legal_placements(self._ptr, out)
        return [self._lib.vz_point_name(self._ptr, out[k]).decode() for k in range(n)]

    def legal_turns(self) -> list[str]:
        count = ctypes.c_int(0)
        cap = 1 << 16
        while True:
            buf = ctypes.create_string_buffer(cap)
            need = self._lib.vz_legal_turns(self._ptr, buf, cap, ctypes.byref(count))
            if need < 0:
                raise MemoryError("vz_legal_turns: out of memory")
            if need < cap:
                return buf.value.decode().split("\n") if count.value else []
            cap = need + 1

    def play(self, turn: str) -> None:
        """Apply a turn; ``ValueError`` with the library's reason if it is not legal."""
        why = self._lib.vz_play(self._ptr, turn.encode())
        if why:
            raise ValueError(why.decode())

    def random_turn(self, rng: Rng) -> str:
        """Play a random legal turn (the library's choice: a uniform placement, then uniform
        steals) and return its notation."""
        turn = VzTurn()
        if self._lib.vz_random_turn(self._ptr, ctypes.byref(rng.state), ctypes.byref(turn)) != 0:
            raise ValueError("the game is over")
        text = ctypes.create_string_buffer(TURN_TEXT)
        self._lib.vz_format_turn(self._ptr, ctypes.byref(turn), text)
        return text.value.decode()

    def stones(self, color: str) -> list[str]:
        """The points of ``color``'s stones, sorted as plain strings (as the engine lists them)."""
        c = int(color[0] == "w")
        lib, ptr = self._lib, self._ptr
        found = (
            lib.vz_point_name(ptr, p).decode()
            for p in range(lib.vz_point_count(ptr))
            if lib.vz_color_at(ptr, p) == c
        )
        return sorted(found)

    def score(self) -> tuple[float, float]:
        return self._lib.vz_score2(self._ptr, 0) / 2, self._lib.vz_score2(self._ptr, 1) / 2

    def result(self) -> str:
        out = ctypes.create_string_buffer(16)
        self._lib.vz_result(self._ptr, out)
        return out.value.decode()


# ---------------------------------------------------------------------------- the bot


def answer(ok: bool, ident: str, text: str = "") -> None:
    sys.stdout.write(f"{'=' if ok else '?'}{ident}{' ' + text if text else ''}\n\n")
    sys.stdout.flush()


COMMANDS = (
    "boardsize", "choose_color", "clear_board", "final_score", "genmove", "gensetup", "known_command",
    "list_commands", "name", "play", "protocol_version", "quit", "setup", "version",
)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """A random bot whose every rule is the C library's: the protocol loop of PROTOCOL.md
    section 7 (ids, comments, blank lines) around a :class:`CPosition`."""
    parser = argparse.ArgumentParser(prog="python -m sample_bots.ctypes_bot")
    parser.add_argument("--lib", default=None, help=f"libvastuz.so (default $VASTUZ_LIB or {DEFAULT_LIB})")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = CRules(args.lib)
    rng = Rng(rules, args.seed)
    pos = rules.position(7)
    for raw in sys.stdin:
        words = raw.split("#")[0].split()
        ident = words.pop(0) if words and words[0].isdigit() else ""
        if not words:
            if ident:
                answer(False, ident, "empty command")
            continue
        cmd, args_ = words[0], words[1:]
        try:
            if cmd == "protocol_version":
                answer(True, ident, "2")
            elif cmd in ("name", "version"):
                answer(True, ident, "ctypes-random" if cmd == "name" else "1")
            elif cmd == "known_command":
                answer(True, ident, "true" if args_ and args_[0] in COMMANDS else "false")
            elif cmd == "list_commands":
                answer(True, ident, "\n".join(COMMANDS))
            elif cmd == "boardsize":
                pos = rules.position(int(args_[0]))
                answer(True, ident)
            elif cmd == "clear_board":
                pos = rules.position(pos.size)
                answer(True, ident)
            elif cmd == "setup":
                pos.setup(args_[0], args_[1])
                answer(True, ident)
            elif cmd == "play":
                if args_[0].lower()[0] != pos.to_move[0]:
                    raise ValueError(f"illegal move: it is {pos.to_move}'s turn")
                pos.play(args_[1])
                answer(True, ident)
            elif cmd == "genmove":
                answer(True, ident, pos.random_turn(rng))
            elif cmd == "gensetup":
                points = pos.legal_placements()
                black = points[rng_index(rng, rules, len(points))]
                white = [p for p in points if p != black][rng_index(rng, rules, len(points) - 1)]
                pos.setup(black, white)
                answer(True, ident, f"{black} {white}")
            elif cmd == "choose_color":
                answer(True, ident, "black")
            elif cmd == "final_score":
                answer(True, ident, pos.result())
            elif cmd == "quit":
                answer(True, ident)
                return 0
            else:
                answer(False, ident, "unknown command")
        except (ValueError, IndexError) as error:
            answer(False, ident, " ".join(str(error).split()) or "error")
    return 0


def rng_index(rng: Rng, rules: CRules, n: int) -> int:
    return int(rules.lib.vz_below(ctypes.byref(rng.state), n))


if __name__ == "__main__":
    sys.exit(main())
