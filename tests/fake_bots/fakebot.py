"""A tiny Vastuz bot for the referee's tests, speaking the protocol by hand (no SDK).

Well-behaved by default: a random legal player using ``referee.engine`` directly.
``--fault NAME`` makes it misbehave in exactly one way; each fault is its own small code
path below. Command-triggered faults fire at the ``--after``-th occurrence (0-based) of
the command named by ``--at`` (default ``genmove``), unless the fault names its command.

Run: ``python tests/fake_bots/fakebot.py [--seed N] [--fault NAME] [--at CMD] [--after N]``
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time

from referee.engine import BadNotation, Color, IllegalTurn, Position, TurnError, iter_points

STARTUP_FAULTS = {"exit-at-start", "bad-version", "grandchild", "ignore-sigterm", "escape-name"}
# What the 'escape-name' bot calls itself: terminal escapes (an OSC title, a colour, a bell).
ESCAPES = "\x1b]0;pwned\x07\x1b[31mred\x1b[0m\x9b2J"
COMMAND_FAULTS = {
    "hang", "slow", "crash", "crash-loud", "close-stdout", "garbage", "wrong-id", "no-blank", "long-line",
    "bad-utf8", "flood-stderr", "refuse", "stray", "late-blank", "stop-crash",
    "illegal-occupied", "illegal-merge", "illegal-missing-steal", "illegal-extra-steal",
    "bad-gensetup", "bad-color", "wrong-score", "resign", "accept-illegal", "exit-leave-child",
    "replay", "chatty", "accept-malformed", "accept-extra-steal", "accept-steal-onto-occupied",
    "stop-referee", "slow-once", "crlf", "trickle", "blank-first", "two-lines",
}  # fmt: skip
# A fault of every command of a turn, drawn at random (seeded): see FakeBot.chaos.
TURN_FAULTS = {"chaos"}
# Faults that are about one command whatever --at says.
FIXED_COMMAND = {
    "bad-gensetup": "gensetup",
    "bad-color": "choose_color",
    "wrong-score": "final_score",
    "accept-illegal": "play",
    "replay": "clear_board",
    "accept-malformed": "play",
    "accept-extra-steal": "play",
    "accept-steal-onto-occupied": "play",
}
# Lenient readers of 'play': each answers '=' to one kind of bad turn (and '?' to the rest),
# as a bot that trusts part of the notation would; the board is left as it was.
LENIENT = {
    "accept-malformed": lambda exc, turn: isinstance(exc, BadNotation),
    "accept-extra-steal": lambda exc, turn: "extra steal" in str(exc),
    "accept-steal-onto-occupied": lambda exc, turn: "," in turn and "is occupied" in str(exc),
}
ILLEGAL = {"illegal-occupied", "illegal-merge", "illegal-missing-steal", "illegal-extra-steal"}
LISTED = [
    "protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
    "clear_board", "setup", "play", "genmove", "gensetup", "choose_color", "quit",
]  # fmt: skip
OPTIONAL = ["time_settings", "time_left", "final_score"]


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _stop_referee(seconds: float) -> int:
    """Stop the referee (our parent) with SIGSTOP for ``seconds``, a helper of our own
    sending the SIGCONT; return once it is stopped (or after 5 s). Returns its pid."""
    referee = os.getppid()
    wake = f"import os, signal, time; time.sleep({seconds}); os.kill({referee}, signal.SIGCONT)"
    quiet = subprocess.DEVNULL  # the helper must not hold our stdout open (a crash's end of it)
    subprocess.Popen(
        [sys.executable, "-c", wake], start_new_session=True, stdin=quiet, stdout=quiet, stderr=quiet
    )
    os.kill(referee, signal.SIGSTOP)
    settle = time.monotonic() + 5
    while not _stopped(referee) and time.monotonic() < settle:
        time.sleep(0.001)
    return referee


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped (state T in /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


class FakeBot:
    def __init__(self, args: argparse.Namespace) -> None:
        self.seed = args.seed
        self.rng = random.Random(args.seed)
        self.fault = args.fault
        self.at = FIXED_COMMAND.get(args.fault or "", args.at)
        self.after = args.after
        self.delay = args.delay
        self.delay_file = args.delay_file
        self.stop = args.stop
        self.answer_after = args.answer_after
        self.minimal = args.minimal
        self.log: str | None = args.log
        self.seen: dict[str, int] = {}
        self.pos = Position.new(7)
        self.armed_illegal = False
        self.chaos_rng = random.Random(args.seed * 7919 + 1)

    # ------------------------------------------------------------------ main loop
    def run(self) -> None:
        if self.fault == "exit-at-start":
            sys.exit(1)
        if self.fault == "ignore-sigterm":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if self.fault == "grandchild":
            # A child that would outlive us unless the whole process group is killed.
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        for raw in sys.stdin.buffer:
            line = raw.decode().split("#")[0].strip()
            if not line:
                continue
            if self.log is not None:  # what it received, for the start-up commands' tests
                with open(self.log, "a") as log:
                    log.write(f"{os.getpid()} {line}\n")
            parts = line.split()
            cid = parts.pop(0) if parts[0].isdigit() else ""
            name, args = parts[0], parts[1:]
            count = self.seen.get(name, 0)
            self.seen[name] = count + 1
            if (
                self.fault == "chaos"
                and name in ("play", "time_left", "genmove")
                and self.chaos(cid, name, args)
            ):
                continue
            if (
                self.fault in COMMAND_FAULTS
                and name == self.at
                and count >= self.after
                and self.misbehave(cid, name, args)
            ):
                continue
            ok, text = self.answer(name, args)
            write(f"{'=' if ok else '?'}{cid} {text}".rstrip(" ").encode() + b"\n\n")
            if name == "quit":
                if self.fault == "ignore-sigterm":
                    sleep_forever()  # claims to quit, stays; only SIGKILL ends it
                return

    # ------------------------------------------------------------------ faults
    def current_delay(self) -> float:
        """``--delay``, or with ``--delay-file`` the number in that file (0 once it is
        gone): a test can make its bots fast again without changing their command."""
        if self.delay_file is None:
            return float(self.delay)
        try:
            return float(open(self.delay_file).read())
        except OSError:
            return 0.0

    def misbehave(self, cid: str, name: str, args: list[str]) -> bool:
        """Do the fault for this command; True if it answered (or never will)."""
        fault = self.fault
        if fault == "hang":
            sleep_forever()
        if fault == "slow":
            time.sleep(self.current_delay())
            return False
        if fault == "slow-once":  # late once (past its deadline), then in step and on time
            time.sleep(self.current_delay())
            self.fault = None
            return False
        if fault == "stop-referee":
            # Stops the referee (our parent) with SIGSTOP for --stop seconds, a helper of its
            # own sending the SIGCONT, and answers at once (the answer is in the pipe while
            # the referee cannot look, across the deadline) or --answer-after seconds after
            # the referee runs again (a bot later than a late referee). The stop lands before
            # the answer goes out: on a busy machine it can land late, after the referee has
            # already read an answer sent at once.
            referee = _stop_referee(self.stop)
            if self.answer_after:  # counted from the referee's resumption
                while _stopped(referee):
                    time.sleep(0.01)
                time.sleep(self.answer_after)
            self.fault = None  # once
            return False
        if fault == "crash":
            os._exit(3)
        if fault == "stop-crash":
            # Answers this command and exits while the referee is stopped (as 'stop-referee'
            # stops it): when it runs again, the answer and the end of output are both there
            # at its first look.
            _stop_referee(self.stop)
            ok, text = self.answer(name, args)
            write(f"{'=' if ok else '?'}{cid} {text}".rstrip(" ").encode() + b"\n\n")
            os._exit(3)
        if fault == "crash-loud":  # says why on stderr first, as a dying program does
            sys.stderr.write(
                "fakebot: thinking hard\nTraceback (most recent call last):\n"
                '  File "fakebot.py", line 1, in genmove\nRuntimeError: fakebot: out of ideas\n'
            )
            sys.stderr.flush()
            os._exit(3)
        if fault == "exit-leave-child":
            # Exits with status 4 while a child it started keeps stdout (and stderr) open.
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            sys.stderr.write("fakebot: leaving a child behind\n")
            sys.stderr.flush()
            os._exit(4)
        if fault == "close-stdout":
            os.close(1)
            sleep_forever()
        if fault == "garbage":
            write(b"hello world\n\n")
            return True
        if fault == "wrong-id":
            write(f"={int(cid or 0) + 1} pass\n\n".encode())
            return True
        if fault == "no-blank":
            _ok, text = self.answer(name, args)
            write(f"={cid} {text}\n".encode())
            sleep_forever()
        if fault == "long-line":
            write(b"=" + cid.encode() + b" " + b"x" * (1 << 20) + b"\n\n")
            return True
        if fault == "bad-utf8":
            write(b"=" + cid.encode() + b" \xff\xfe\xfd\n\n")
            return True
        if fault == "flood-stderr":
            chunk = b"e" * 65535 + b"\n"
            for _ in range(48):  # 3 MiB, far more than a pipe holds
                sys.stderr.buffer.write(chunk)
            sys.stderr.buffer.flush()
            self.fault = None  # once is enough
            return False
        if fault == "chatty":
            sys.stderr.buffer.write(b"c" * 39_999 + b"\n")  # 40 kB at every --at command
            sys.stderr.buffer.flush()
            return False
        if fault == "refuse":
            write(f"?{cid} not today\n\n".encode())
            return True
        # Well-formed answers in unusual shapes, which the referee must take as any other.
        if fault in ("crlf", "trickle", "blank-first", "two-lines"):
            ok, text = self.answer(name, args)
            head = f"{'=' if ok else '?'}{cid} {text}".rstrip(" ")
            if fault == "crlf":  # CR LF line ends
                write(f"{head}\r\n\r\n".encode())
            elif fault == "trickle":  # a byte at a time
                for byte in f"{head}\n\n".encode():
                    write(bytes([byte]))
                    time.sleep(0.0005)
            elif fault == "blank-first":  # an empty line before the response
                write(f"\n{head}\n\n".encode())
            else:  # a second line of response text
                write(f"{head}\nand a second line\n\n".encode())
            return True
        if fault == "stray":
            _ok, text = self.answer(name, args)
            write(f"={cid} {text}\n\n= and one more thing\n\n".encode())
            return True
        if fault == "late-blank":  # the answer, then --delay seconds later a blank line (harmless)
            _ok, text = self.answer(name, args)
            write(f"={cid} {text}\n\n".encode())
            time.sleep(self.current_delay())
            write(b"\n")
            return True
        if fault == "resign":
            write(f"={cid} resign\n\n".encode())
            return True
        if fault == "bad-gensetup":
            write(f"={cid} a1 a1\n\n".encode())
            return True
        if fault == "bad-color":
            write(f"={cid} purple\n\n".encode())
            return True
        if fault == "wrong-score":
            real = self.pos.result()
            wrong = "W+100" if real.startswith("B") else "B+100"
            write(f"={cid} {wrong}\n\n".encode())
            return True
        if fault == "replay":
            # Deterministic per game: the random generator restarts from the seed at every
            # new game, so the same seats replay the same game move for move.
            self.rng = random.Random(self.seed)
            return False
        if fault in LENIENT:
            try:
                self.pos = self.pos.play(args[1])
            except TurnError as exc:
                if not LENIENT[fault](exc, args[1]):
                    write(f"?{cid} illegal: {exc}\n\n".encode())
                    return True
            write(f"={cid}\n\n".encode())
            return True
        if fault == "accept-illegal":
            # Answers '=' to every play; applies the legal ones, silently drops the rest.
            try:
                self.pos = self.pos.play(args[1])
            except IllegalTurn:
                pass
            write(f"={cid}\n\n".encode())
            return True
        if fault in ILLEGAL:
            turn = self.illegal_turn(fault)
            if turn is None:
                return False  # not possible in this position: play legally, try next time
            write(f"={cid} {turn}\n\n".encode())
            return True
        raise AssertionError(f"unhandled fault {fault}")

    def chaos(self, cid: str, name: str, args: list[str]) -> bool:
        """An answer to a turn's command in a shape drawn at random: most often the usual
        one (False: answered as usual), else a valid but unusual shape (CR LF, an empty line
        first, two writes, a byte at a time, a second line to play or time_left, a '?' to
        time_left), and rarely a fault that ends the game (a garbage line, a stray line)."""
        roll = self.chaos_rng.random()
        if roll < 0.6:
            return False
        if roll >= 0.998:
            write(b"hello world\n\n")
            return True
        ok, text = self.answer(name, args)
        if name == "time_left" and 0.94 <= roll < 0.97:
            ok, text = False, "not now"
        head = f"{'=' if ok else '?'}{cid} {text}".rstrip(" ")
        if roll < 0.68:
            write(f"{head}\r\n\r\n".encode())
        elif roll < 0.76:
            write(f"\n{head}\n\n".encode())
        elif roll < 0.84:
            data = f"{head}\n\n".encode()
            cut = self.chaos_rng.randrange(1, len(data))
            write(data[:cut])
            time.sleep(0.001)
            write(data[cut:])
        elif roll < 0.88:
            for byte in f"{head}\n\n".encode():
                write(bytes([byte]))
        elif roll < 0.94 and name != "genmove":
            write(f"{head}\nand a second line\n\n".encode())
        elif roll >= 0.996:
            write(f"{head}\n\n= and one more thing\n\n".encode())
        else:
            write(f"{head}\n\n".encode())
        return True

    def illegal_turn(self, fault: str) -> str | None:
        """A turn of the requested illegal kind in the current position, if one exists."""
        pos = self.pos
        occupied = sorted(set(pos.stones(Color.BLACK)) | set(pos.stones(Color.WHITE)))
        enemy = pos.stones(pos.to_move.opponent)
        if fault == "illegal-occupied":
            return occupied[0] if occupied else None
        if fault == "illegal-merge":
            legal = set(pos.legal_placements())
            merges = [p for p in iter_points(pos.size) if p not in legal and p not in occupied]
            return merges[0] if merges else None
        turns = pos.legal_turns()
        if fault == "illegal-missing-steal":
            with_steals = [t for t in turns if "," in t]
            return with_steals[0].rsplit(",", 1)[0] if with_steals else None
        if fault == "illegal-extra-steal":
            if not turns or turns == ["pass"] or not enemy:
                return None
            return f"{turns[0]},{enemy[0]}>{enemy[0]}"
        return None

    # ------------------------------------------------------------------ the protocol
    def answer(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name == "protocol_version":
            return True, "1" if self.fault == "bad-version" else "2"
        if name == "name":
            return True, f"fakebot-{self.fault or 'good'}" + (ESCAPES if self.fault == "escape-name" else "")
        if name == "version":
            return True, "1.0" + (ESCAPES if self.fault == "escape-name" else "")
        if name == "list_commands":
            return True, "\n".join(LISTED + ([] if self.minimal else OPTIONAL))
        if name == "known_command":
            known = LISTED + ([] if self.minimal else OPTIONAL)
            return True, "true" if args and args[0] in known else "false"
        if name == "boardsize":
            self.pos = Position.new(int(args[0]))
            return True, ""
        if name == "clear_board":
            self.pos = Position.new(self.pos.size)
            return True, ""
        if name == "setup":
            self.pos = self.pos.setup(args[0], args[1])
            return True, ""
        if name == "gensetup":
            black, white = self.rng.sample(list(iter_points(self.pos.size)), 2)
            self.pos = self.pos.setup(black, white)
            return True, f"{black} {white}"
        if name == "choose_color":
            return True, self.rng.choice(["black", "white"])
        if name == "play":
            try:
                self.pos = self.pos.play(args[1])
            except TurnError as exc:  # an illegal turn, or one that is not even notation
                return False, f"illegal: {exc}"
            return True, ""
        if name == "genmove":
            turn = self.pos.random_turn(self.rng)
            self.pos = self.pos.play(turn)
            return True, turn
        if name in ("time_settings", "time_left") and not self.minimal:
            return True, ""
        if name == "final_score" and not self.minimal:
            return True, self.pos.result()
        if name == "quit":
            return True, ""
        if name.startswith("set_"):  # a bot's own setting: any value but 'bad'
            return (False, f"cannot set {name[4:]} to bad") if args == ["bad"] else (True, "")
        return False, "unknown command"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fault", choices=sorted(STARTUP_FAULTS | COMMAND_FAULTS | TURN_FAULTS))
    parser.add_argument("--at", default="genmove", help="the command a command fault fires at")
    parser.add_argument("--after", type=int, default=0, help="occurrences of --at to let pass first")
    parser.add_argument("--delay", type=float, default=5.0, help="seconds the 'slow' fault waits")
    parser.add_argument("--delay-file", help="read the 'slow' fault's seconds from this file (0 if missing)")
    parser.add_argument("--minimal", action="store_true", help="list no optional commands")
    parser.add_argument("--log", help="append each command received to this file (with the pid)")
    parser.add_argument("--stop", type=float, default=1.0, help="seconds 'stop-referee' stops the referee")
    parser.add_argument(
        "--answer-after",
        type=float,
        default=0.0,
        help="'stop-referee' answers this long after the referee runs again (0: at once)",
    )
    args = parser.parse_args()
    FakeBot(args).run()


if __name__ == "__main__":
    main()
