"""``restart: never`` keeps a bot's process through the faults its protocol survives, as
cutechess and fastchess keep an engine (issue 25): also a loss on time whose late answer
then comes. A process that crashed or stays silent is replaced whatever the policy. Real
processes, told apart by their pids in the records."""

from __future__ import annotations

import io
from pathlib import Path

import runs
import trio

from referee.play.records import Termination
from referee.tournament.config.loading import load_config
from referee.tournament.runner import Tournament
from referee.tournament.store.results import ResultsFile

CLOCK = {"per_move": 0.3, "margin": 0.2}  # a deadline of 0.5 s


bot = runs.fake_bot


async def play(tmp_path: Path, bots: list[dict[str, object]], out: str = "out", result: list | None = None):
    schedule = {"kind": "round_robin", "games_per_pair": 4}
    config = load_config(
        runs.write_config(tmp_path, bots, out=out, time_control=CLOCK, concurrency=1, schedule=schedule)
    )
    with trio.fail_after(120):
        done = await Tournament(config, out=io.StringIO(), standings_every=0).run()
    if result is not None:
        result.append(done)
    return ResultsFile(config.output / "results.jsonl").load().records


def pids(records, name: str) -> list[int | None]:
    """The process of bot ``name`` in each game, in the order played."""
    played = sorted((r for r in records if name in r.labels), key=lambda r: r.started_at)
    return [r.bots[r.labels.index(name)].pid for r in played]


async def test_never_keeps_the_process_of_a_bot_that_was_late_once_then_answered(tmp_path, marker):
    # "late" sleeps 1 s at its first genmove (its deadline: 0.5 s), answers, then plays on
    # time: kept, it loses one game; replaced after each fault, every new process is late once.
    late = ("--fault", "slow-once", "--delay", "1.0", "--seed", "1")
    for policy, processes in (("never", 1), ("on-fault", 4)):
        bots = [
            bot("late", *late, marker=marker, restart=policy),
            bot("steady", "--seed", "2", marker=marker, restart=policy),
        ]
        records = await play(tmp_path, bots, out=policy)
        lost = [r for r in records if r.termination is Termination.TIME]
        assert all(r.labels[r.fault.seat] == "late" for r in lost)
        assert len(lost) == (1 if policy == "never" else 4), policy
        assert all(r.termination is Termination.SCORE for r in records if r not in lost)
        assert len(set(pids(records, "late"))) == processes, policy
        assert len(set(pids(records, "steady"))) == 1
        if policy == "never":
            # The bot's own lateness, measured when its answer came (past the deadline).
            overshoot = lost[0].fault.overshoot
            assert overshoot is not None and overshoot > 0
            assert any("its late answer came" in note and "kept" in note for note in lost[0].notes)
        else:  # killed at its deadline: how late it would have been is not known
            assert all(r.fault.overshoot is None for r in lost)


async def test_never_still_replaces_a_crashed_or_silent_process(tmp_path, marker):
    bots = [
        # Crashes at its second genmove of every process: nothing to keep.
        bot("crasher", "--fault", "crash", "--after", "1", marker=marker, restart="never"),
        # Never answers its first genmove: after its command_timeout, replaced.
        bot("silent", "--fault", "hang", marker=marker, restart="never", command_timeout=0.5),
        bot("steady", "--seed", "2", marker=marker, restart="never"),
    ]
    records = await play(tmp_path, bots)

    def faulted_by(name):
        return [r for r in records if r.fault is not None and r.labels[r.fault.seat] == name]

    crashed, silent = faulted_by("crasher"), faulted_by("silent")
    assert crashed and silent and len(crashed) + len(silent) == len(records) == 12
    assert all(r.termination is Termination.CRASH for r in crashed)
    assert len(set(pids(crashed, "crasher"))) == len(crashed)  # a process per crash
    assert all(r.termination is Termination.TIME and r.fault.overshoot is None for r in silent)
    assert all(any("its process is replaced" in note for note in r.notes) for r in silent)
    assert len(set(pids(silent, "silent"))) == len(silent)
    assert len(set(pids(records, "steady"))) == 1


async def test_the_time_loss_warning_gives_the_bots_own_overshoot_where_it_was_heard(tmp_path, marker):
    # Late at every genmove by about 0.5 s (1 s against a 0.5 s deadline), answering each time.
    kept = bot("laggy", "--fault", "slow", "--delay", "1.0", marker=marker, restart="never")
    killed = {**kept, "restart": "on-fault"}
    for out, laggy in (("kept", kept), ("killed", killed)):
        result: list = []
        records = await play(tmp_path, [laggy, bot("steady", "--seed", "2", marker=marker)], out, result)
        assert all(r.termination is Termination.TIME for r in records)
        (warning,) = [w for w in result[0].standings.warnings if w.startswith("laggy lost 4 of its 4 games")]
        if out == "kept":
            assert len(set(pids(records, "laggy"))) == 1
            assert "its own largest overshoot: its late answer came" in warning
        else:  # killed at each deadline: only that it was late, not by how much
            assert "its own largest overshoot" not in warning and "is not known" in warning
