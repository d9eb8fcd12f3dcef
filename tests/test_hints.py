"""Hints for first-day mistakes (referee/play/hints.py), each produced by a real misbehaving
program under ``vastuz check``: a bot that never flushes, a ``#!`` line with Windows line
endings, a script file given as the command, a banner on stdout. Plus the pure functions
on their own, and that a good start gets no hint."""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from referee.play.faults import BotCrashed, BotProtocolError, BotStartError, BotTimeout
from referee.play.hints import (
    CRLF,
    SILENT,
    STDOUT_TEXT,
    crlf_hint,
    script_hint,
    start_hints,
    stdout_text_hint,
)
from referee.tools.check import CheckOptions, run_checks

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

NO_FLUSH = """
import sys
out = open(sys.stdout.fileno(), "w", buffering=1 << 16)  # a pipe is fully buffered
for line in sys.stdin:
    out.write("= 2\\n\\n")  # answered, but never flushed
"""
BANNER = """
import sys
print("Welcome to mybot 1.0!", flush=True)  # a banner on stdout
sys.stdout = sys.__stdout__
from protocol.bot import run
from sample_bots.random_bot import RandomBot
run(RandomBot(seed=1))
"""
GOOD = """
from protocol.bot import run
from sample_bots.random_bot import RandomBot
run(RandomBot(seed=1))
"""


def write(folder: Path, name: str, text: str | bytes, *, executable: bool = True) -> Path:
    path = folder / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    if executable:
        path.chmod(0o755)
    return path


async def startup(command: str, cwd: Path) -> str:
    """The start-up check's line for ``command`` run in ``cwd`` (a 3 s start-up limit)."""
    options = CheckOptions(command=command, sizes=(3,), per_move=0.5, games=1, startup_timeout=3.0, cwd=cwd)
    with trio.fail_after(120):
        report = await run_checks(options)
    result = report.result("start-up")
    return f"{result.status.value} {result.detail}"


def vastuz_check(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}  # run from the bot's folder
    return subprocess.run(
        [PY, "-m", "referee.cli", "check", command, "--size", "3", "--games", "1", "--startup-timeout", "3"],
        capture_output=True, text=True, cwd=cwd, timeout=300, env=env,
    )  # fmt: skip


# ---------------------------------------------------------------------------- real programs


async def test_a_bot_that_never_flushes_is_told_to_flush(tmp_path: Path) -> None:
    write(tmp_path, "noflush.py", NO_FLUSH)
    line = await startup(f"{PY} noflush.py", tmp_path)
    assert line.startswith("FAIL handshake failed: '1 protocol_version': time: no complete answer")
    assert line.endswith(f"; hint: {SILENT}") and line.count("hint:") == 1


async def test_a_banner_on_stdout_is_told_to_go_to_stderr(tmp_path: Path) -> None:
    write(tmp_path, "banner.py", BANNER)
    line = await startup(f"{PY} {tmp_path / 'banner.py'}", ROOT)
    # Read as the answer to the first command, or (the banner there before that command
    # went out: a loaded machine) as a line while none was asked; the hint the same, once.
    assert (
        "protocol: a response must start with '=' or '?', got 'Welcome to mybot 1.0!'" in line
        or "protocol: stray line while no command was in flight: 'Welcome to mybot 1.0!'" in line
    ), line
    assert line.endswith(f"; the bot sent 'Welcome to mybot 1.0!'; hint: {STDOUT_TEXT}")
    assert line.count("hint:") == 1


async def test_a_crlf_shebang_is_told_to_run_dos2unix(tmp_path: Path) -> None:
    # The kernel looks for an interpreter called "/bin/sh\r": "No such file" for a file that exists.
    write(tmp_path, "crlf.sh", b"#!/bin/sh\r\necho '= 2'\r\n")
    line = await startup("./crlf.sh", tmp_path)
    assert "[Errno 2] No such file or directory: './crlf.sh'" in line
    assert line.endswith("; hint: " + CRLF.format(program="./crlf.sh"))
    assert "run it as" not in line and line.count("hint:") == 1  # the one hint that fits, once


async def test_a_python_file_given_as_the_command_is_told_to_run_it_with_python(tmp_path: Path) -> None:
    write(tmp_path, "mybot.py", GOOD)  # executable, but no #! line: Exec format error
    line = await startup("./mybot.py", tmp_path)
    assert "[Errno 8] Exec format error" in line
    assert line.endswith("; hint: run it as `python ./mybot.py`") and line.count("hint:") == 1


def test_the_cli_hints_at_a_script_before_starting_anything(tmp_path: Path) -> None:
    write(tmp_path, "mybot.py", GOOD, executable=False)
    write(tmp_path, "bot.js", "console.log('= 2')\n", executable=False)
    for command, hint in [
        ("mybot.py", "run it as `python mybot.py`"),  # a bare name is looked up on PATH
        ("./mybot.py", "run it as `python ./mybot.py`"),  # not executable
        ("./bot.js", "run it as `node ./bot.js`"),
    ]:
        done = vastuz_check(command, tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith("vastuz check: program "), done.stderr
        assert done.stderr.rstrip().endswith(f"; hint: {hint}"), done.stderr


async def test_a_good_bot_gets_no_hint(tmp_path: Path) -> None:
    write(tmp_path, "good.py", GOOD)
    line = await startup(f"{PY} {tmp_path / 'good.py'}", ROOT)
    assert line.startswith("PASS") and "hint" not in line


# ---------------------------------------------------------------------------- the functions


def test_script_hints() -> None:
    assert script_hint("mybot.py") == "run it as `python mybot.py`"
    assert script_hint("dir/My Bot.JS") == "run it as `node 'dir/My Bot.JS'`"
    assert script_hint("bot.jar") == "run it as `java -jar bot.jar`"
    assert script_hint("./mybot.py", b"#!/usr/bin/env python3\n") is None  # it can run as it is
    assert script_hint("./mybot") is None


def test_crlf_hints() -> None:
    assert crlf_hint("x.pl", b"#!/usr/bin/perl\r\nprint 1;\r\n") == CRLF.format(program="x.pl")
    assert crlf_hint("x.pl", b"#!/usr/bin/perl\nprint 1;\r\n") is None  # only the #! line matters
    assert crlf_hint("x.pl", b"print 1;\r\n") is None and crlf_hint("x.pl", None) is None


def test_stdout_text_hints() -> None:
    assert stdout_text_hint("'Loading model...'") == STDOUT_TEXT
    assert stdout_text_hint("'=1 2'") is None and stdout_text_hint("'? no'") is None
    assert stdout_text_hint(None) is None and stdout_text_hint("") is None


def test_start_hints_choose_by_what_happened() -> None:
    def start_error(code: int) -> BotStartError:
        error = BotStartError("cannot start")
        error.__cause__ = OSError(code, "x")
        return error

    argv = ["./bot.py"]
    assert start_hints(argv, None, start_error(errno.ENOEXEC)) == ["run it as `python ./bot.py`"]
    assert start_hints(["./b.sh"], b"#!/bin/sh\r\n", start_error(errno.ENOENT)) == [
        CRLF.format(program="./b.sh")
    ]
    assert start_hints(argv, None, start_error(errno.ENOMEM)) == []
    silent = BotTimeout("A", "1 protocol_version", "no complete answer")
    assert start_hints(argv, None, silent, alive=True) == [SILENT]
    assert start_hints(argv, None, BotTimeout("A", None, "x", "'= 2'"), alive=True) == []  # it said something
    assert start_hints(argv, None, silent, alive=False) == []
    banner = BotProtocolError("A", "1 protocol_version", "bad", "'hello'")
    assert start_hints(argv, None, banner) == [STDOUT_TEXT]
    assert start_hints(argv, None, BotCrashed("A", None, "exited")) == []


@pytest.mark.parametrize("program", ["mybot.py", "./x.pl"])
def test_no_hint_without_a_failure_that_fits(program: str) -> None:
    assert start_hints([program], b"#!/usr/bin/env python3\n", BotCrashed("A", None, "exited")) == []


def test_the_referee_gives_the_same_hints_when_a_bot_cannot_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a run (here ``vastuz match``), a start that fails says its likely cause: in the
    games' records, and in the message that stops a run whose bot cannot be started."""
    from referee.cli import main
    from referee.play.records import Termination
    from referee.tournament.store.results import ResultsFile

    silent = write(tmp_path, "silent.py", NO_FLUSH, executable=False)
    crlf = write(tmp_path, "crlf.py", f"#!{PY}\r\n{GOOD}".encode())
    good = f"{PY} {write(tmp_path, 'good.py', GOOD, executable=False)}"
    # A silent bot's games are void (a start-up failure, issue 24), each record saying why.
    code = main(["match", f"{PY} {silent}", good, "--games", "2", "--size", "3", "--startup-timeout", "1",
                 "--out", str(tmp_path / "silent")])  # fmt: skip
    assert code == 1
    records = ResultsFile(tmp_path / "silent" / "results.jsonl").load().records
    assert len(records) == 2 and all(
        r.termination is Termination.VOID
        and r.fault is not None
        and r.fault.kind is Termination.TIME
        and SILENT in r.reason
        for r in records
    )
    capsys.readouterr()
    # A program the kernel cannot run: void games, then the run stops, the hint in both.
    code = main(["match", str(crlf), good, "--games", "4", "--size", "3", "--out", str(tmp_path / "crlf")])
    assert code == 1
    err = capsys.readouterr().err
    records = ResultsFile(tmp_path / "crlf" / "results.jsonl").load().records
    assert records and all(r.termination is Termination.VOID and "dos2unix" in r.reason for r in records)
    assert "could not start 3 times in a row" in err and "dos2unix" in err
