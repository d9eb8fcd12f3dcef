"""``vastuz check``: the conformance checker against real bot processes.

Good bots (the random sample bot, the fake bot) must pass every check that can fail; each
fake-bot fault must fail the check that is about it, with a message that says what
happened, while checks that do not touch the fault still pass (the checker restarts a bot
that a check broke). Every process started is reaped.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import trio
from conftest import check_gone, fakebot_argv

from referee.cli import main
from referee.engine import Position, TurnError
from referee.tools.check import CHECKS, CheckOptions, CheckReport, Status, run_checks
from referee.tools.check_positions import illegal_cases

RANDOM_BOT = shlex.join((sys.executable, "-m", "sample_bots.random_bot", "--seed", "3"))


def fakebot(*args: str) -> str:
    return shlex.join(fakebot_argv(*args))


async def check(command: str, *, strict: bool = False, **options: object) -> CheckReport:
    settings: dict[str, object] = {"sizes": (3,), "per_move": 0.5, "games": 2, **options}
    with trio.fail_after(60):
        report = await run_checks(CheckOptions(command=command, **settings), strict=strict)  # type: ignore[arg-type]
    assert [r.name for r in report.results] == [c.name for c in CHECKS]
    for pid in report.pids:
        check_gone(pid)
    return report


def statuses(report: CheckReport) -> dict[str, Status]:
    return {r.name: r.status for r in report.results}


# ---------------------------------------------------------------------------- good bots


async def test_random_sample_bot_passes_every_check() -> None:
    report = await check(RANDOM_BOT, sizes=(4, 3))
    assert report.ok
    for result in report.results:
        if result.name != "games":  # its WARN would only be about timing
            assert result.status is Status.PASS, result
    games = report.result("games")
    assert games.status is not Status.FAIL
    assert "2 games" in games.detail and "mean" in games.detail and "max per move" in games.detail
    assert "pie" in games.detail and "empty" in games.detail
    assert "black" in games.detail and "white" in games.detail  # both colours
    assert "showboard unchanged" in report.result("illegal-play").detail
    assert "4, 3" in report.result("boardsize").detail
    assert report.result("final-score").detail == "agreed with the engine in 2 game(s)"


async def test_fakebot_passes_every_required_check() -> None:
    report = await check(fakebot())
    assert report.ok, report.results
    got = statuses(report)
    # It lists no showboard, and it dies on boardsize 1: both only warn.
    assert got["optional-commands"] is Status.WARN
    assert "showboard" in report.result("optional-commands").detail
    assert got["boardsize"] is Status.WARN
    assert "boardsize 1" in report.result("boardsize").detail
    assert all(s is Status.PASS for name, s in got.items() if name not in ("optional-commands", "boardsize"))


async def test_minimal_bot_only_warns_and_skips() -> None:
    report = await check(fakebot("--minimal"))
    assert report.ok
    optional = report.result("optional-commands")
    assert optional.status is Status.WARN
    for name in ("time_settings", "time_left", "showboard", "final_score"):
        assert name in optional.detail
    assert report.result("final-score").status is Status.SKIP
    assert report.result("illegal-play").status is Status.PASS
    assert report.result("games").status is not Status.FAIL


# ---------------------------------------------------------------------------- faults

CASES = [
    # (fakebot arguments, the check that must fail, words its detail must contain,
    #  checks that must still pass)
    (("--fault", "illegal-occupied"), "games", ["illegal", "occupied", "genmove"],
     ["illegal-play", "pie-rule", "quit"]),
    (("--fault", "crash", "--after", "1"), "games", ["crash", "genmove", "exit status 3"],
     ["illegal-play", "quit"]),
    (("--fault", "crash-loud", "--after", "1"), "games",
     ["crash", "genmove", "exit status 3", "its stderr ends", "RuntimeError: fakebot: out of ideas"],
     ["illegal-play", "quit"]),
    (("--fault", "refuse", "--at", "play"), "illegal-play", ["legal", "'? not today'"], ["pie-rule", "quit"]),
    (("--fault", "bad-gensetup"), "pie-rule", ["gensetup", "a1 a1", "distinct"], ["illegal-play", "quit"]),
    (("--fault", "bad-color"), "pie-rule", ["choose_color", "purple", "black or white"], ["games", "quit"]),
    (("--fault", "wrong-score"), "final-score", ["+100", "the engine counts"], ["games", "pie-rule", "quit"]),
]  # fmt: skip


@pytest.mark.parametrize(("args", "failing", "words", "passing"), CASES, ids=[" ".join(c[0]) for c in CASES])
async def test_fault_fails_its_check(
    args: tuple[str, ...], failing: str, words: list[str], passing: list[str]
) -> None:
    report = await check(fakebot(*args))
    assert not report.ok
    result = report.result(failing)
    assert result.status is Status.FAIL, result
    for word in words:
        assert word in result.detail, result.detail
    for name in ("start-up", "commands", "ids", *passing):
        assert report.result(name).status is Status.PASS, report.result(name)


async def test_a_bot_that_accepts_an_illegal_play_warns_and_fails_only_when_strict() -> None:
    # The referee never sends an illegal play: a bot whose own turns are all legal passes.
    report = await check(fakebot("--fault", "accept-illegal"))
    result = report.result("illegal-play")
    assert result.status is Status.WARN, result
    assert "is illegal" in result.detail and "expected '?', the bot answered '='" in result.detail
    assert "never sends an illegal play" in result.detail and "--strict" in result.detail
    assert report.ok
    assert report.result("games").status is not Status.FAIL
    strict = await check(fakebot("--fault", "accept-illegal"), strict=True)
    assert strict.result("illegal-play").status is Status.FAIL
    assert "never sends" not in strict.result("illegal-play").detail
    assert not strict.ok


def test_cli_strict_makes_an_accepted_illegal_play_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    bot = fakebot("--seed", "454545", "--fault", "accept-illegal")
    base = ["check", bot, "--size", "3", "--per-move", "0.5", "--games", "1"]
    assert main(base) == 0
    assert "WARN  illegal-play" in capsys.readouterr().out
    assert main([*base, "--strict"]) == 1
    assert "FAIL  illegal-play" in capsys.readouterr().out


IDS_CASES = [
    # (--after: which protocol_version gets a wrong id (the handshake's is the 0th), what the detail says)
    ("1", "'4242 protocol_version': wrong id: expected 4242, got 4243 in response '=4243 pass'"),
    ("2", "'protocol_version': unexpected id 1: the command had no id in response '=1 pass'"),
]


@pytest.mark.parametrize(("after", "detail"), IDS_CASES, ids=["own id", "no id"])
async def test_ids_fails_for_a_bot_that_mishandles_ids(after: str, detail: str) -> None:
    report = await check(fakebot("--fault", "wrong-id", "--at", "protocol_version", "--after", after))
    ids = report.result("ids")
    assert ids.status is Status.FAIL, ids
    assert ids.detail == detail
    # The broken bot is replaced for the next checks, which pass.
    warned = ("optional-commands", "boardsize")  # as for the good fake bot
    assert all(r.status is Status.PASS for r in report.results if r.name not in ("ids", *warned)), (
        report.results
    )
    # The ids check asks the process the session already has, and starts none of its own:
    # the only process more than for a good bot is the replacement of the broken one. All
    # of them were reaped (check() asserts that for each pid).
    good = await check(fakebot())
    assert len(report.pids) == len(good.pids) + 1


def test_check_leaves_process_lifetime_to_bot_process() -> None:
    tools = Path(__file__).parent.parent / "referee" / "tools"
    for path in sorted(tools.glob("check*.py")):
        source = path.read_text()
        for word in ("killpg", "os.kill(", "open_process", "import subprocess"):
            assert word not in source, f"{path.name} uses {word}"


async def test_refused_play_also_forfeits_the_games() -> None:
    report = await check(fakebot("--fault", "refuse", "--at", "play"))
    games = report.result("games")
    assert games.status is Status.FAIL
    assert "protocol" in games.detail and "answered '?' to a command it must answer" in games.detail


async def test_bad_version_fails_start_up_and_skips_the_rest() -> None:
    report = await check(fakebot("--fault", "bad-version"))
    start = report.result("start-up")
    assert start.status is Status.FAIL
    assert "protocol_version" in start.detail and "expected '2'" in start.detail and "'1'" in start.detail
    assert all(r.status is Status.SKIP for r in report.results[1:])


async def test_a_check_that_breaks_the_bot_does_not_spoil_the_next() -> None:
    report = await check(fakebot("--fault", "hang", "--at", "known_command"), command_timeout=0.5)
    commands = report.result("commands")
    assert commands.status is Status.FAIL
    assert "time" in commands.detail and "known_command" in commands.detail
    # A fresh process answers everything after (it is only asked known_command there).
    assert [r.status for r in report.results[3:]].count(Status.FAIL) == 0


async def test_bot_that_needs_a_signal_to_quit_warns() -> None:
    report = await check(fakebot("--fault", "ignore-sigterm"), games=1)
    quit_result = report.result("quit")
    assert quit_result.status is Status.WARN
    assert "SIGKILL" in quit_result.detail
    assert report.ok


# ---------------------------------------------------------------------------- positions


@pytest.mark.parametrize("size", [2, 3, 4])
def test_illegal_cases_are_illegal_and_their_follow_ups_legal(size: int) -> None:
    cases = illegal_cases(size)
    assert [c.kind for c in cases] == [
        "an occupied point",
        "a merge",
        "a missing steal",
        "malformed notation",
        "an extra steal",
        "a steal onto an occupied point",
    ]
    for case in cases:
        pos = Position.new(size).setup(case.black, case.white)
        for turn in case.turns:
            pos = pos.play(turn)
        with pytest.raises(TurnError) as caught:
            pos.play(case.illegal)
        assert str(caught.value) == case.reason
        for turn in case.follow:
            pos = pos.play(turn)
    assert illegal_cases(size) == cases  # deterministic


@pytest.mark.parametrize(
    ("fault", "kind", "sent"),
    [
        ("accept-malformed", "malformed notation", ",'"),
        ("accept-extra-steal", "an extra steal", "the turn was already complete"),
        ("accept-steal-onto-occupied", "a steal onto an occupied point", "is occupied"),
    ],
)
async def test_a_bot_that_accepts_bad_notation_fails_illegal_play(fault: str, kind: str, sent: str) -> None:
    # Each of these bots refuses the occupied point, the merge and the missing steal, so it
    # passed every check before these cases were sent.
    report = await check(fakebot("--fault", fault), games=1, strict=True)
    result = report.result("illegal-play")
    assert result.status is Status.FAIL, result
    assert result.detail.startswith(f"{kind}: 'play ") and sent in result.detail
    assert "expected '?', the bot answered '='" in result.detail
    failed = [r.name for r in report.results if r.status is Status.FAIL]
    assert failed == ["illegal-play"], report.results


def _gnugo() -> str | None:
    return shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


@pytest.mark.skipif(_gnugo() is None, reason="GNU Go is not installed (apt-get install gnugo)")
async def test_gnu_go_passes_framing_and_clearly_fails_the_vastuz_commands() -> None:
    # A real GTP engine that knows nothing of Vastuz: the framing checks pass, and every
    # check about Vastuz itself fails, saying which command is missing.
    gnugo = _gnugo()
    assert gnugo is not None
    report = await check(shlex.join((gnugo, "--mode", "gtp")), games=1)
    got = statuses(report)
    for name in ("start-up", "ids", "unknown-command", "quit"):
        assert got[name] is Status.PASS, report.result(name)
    assert "name 'GNU Go'" in report.result("start-up").detail
    commands = report.result("commands").detail
    assert got["commands"] is Status.FAIL
    assert all(f"lacks required {c}" in commands for c in ("setup", "gensetup", "choose_color"))
    for name in ("illegal-play", "games", "pie-rule"):  # illegal-play: it refuses the legal setup
        assert got[name] is Status.FAIL, report.result(name)
    assert "unknown command" in report.result("pie-rule").detail
    assert not report.ok


# ---------------------------------------------------------------------------- command line


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry))
    return found


def test_cli_exit_0_for_a_good_bot_with_logs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot = fakebot("--seed", "424242")
    code = main(["check", bot, "--size", "3", "--per-move", "0.5", "--logs", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[0] == f"checking: {bot}"
    assert "PASS  start-up" in out and "WARN  optional-commands" in out
    assert f"{len(CHECKS)} checks:" in out and "0 failed" in out
    transcripts = sorted(tmp_path.glob("*.transcript.log"))
    assert transcripts and "protocol_version" in transcripts[0].read_text()
    assert _processes_with("--seed 424242") == []


def test_cli_exit_1_when_a_check_fails(capsys: pytest.CaptureFixture[str]) -> None:
    bot = fakebot("--seed", "434343", "--fault", "bad-color")
    code = main(["check", bot, "--size", "3", "--per-move", "0.5", "--games", "1"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("FAIL"))
    assert "pie-rule" in line and "'= purple'" in line
    assert "1 failed" in out
    assert _processes_with("--seed 434343") == []


def test_cli_shows_why_a_bot_died_at_start_up(capsys: pytest.CaptureFixture[str]) -> None:
    """A bot that dies in the handshake, saying why on stderr (a missing file, a traceback):
    the start-up line quotes the end of its stderr, as a tournament's record does."""
    bot = fakebot("--seed", "535353", "--fault", "crash-loud", "--at", "protocol_version")
    code = main(["check", bot, "--size", "3", "--games", "1"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("FAIL"))
    assert "start-up" in line and "exit status 3" in line, line
    assert "its stderr ends" in line and "RuntimeError: fakebot: out of ideas" in line, line
    assert "Traceback (most recent call last): | " in line  # its lines on one, as records have them
    assert line.count("its stderr ends") == 1
    assert _processes_with("--seed 535353") == []


@pytest.mark.parametrize("command", ["./no-such-bot", "no-such-program-anywhere --flag", "", "'unclosed"])
def test_cli_exit_2_for_a_program_that_cannot_run(capsys: pytest.CaptureFixture[str], command: str) -> None:
    assert main(["check", command]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vastuz check: ")
