"""Remote bots on a ladder, with real processes on 127.0.0.1: ``vastuz ladder`` listening
(port 0), ``vastuz connect`` processes running fake bots, ``vastuz ladder add-bot`` for
their tokens. Local and remote bots play each other; a connection killed mid-game loses that
game as a crash and the bot rejoins; refusals (wrong token, unknown name, a second
connection, an oversized message, no hello, too many connections); a SIGKILL of the ladder
with remote bots connected, then a restart; the token kept only as a hash; the store's
v2 -> v3 migration; the client's cut of a bot's output. Every wait is bounded."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import trio
from processes import processes_with
from runs import reaped, vastuz, wait_for
from test_ladder_run import FAKEBOT, ROOT, counted, records, write
from trio_websocket import ConnectionClosed, WebSocketConnection, wrap_client_stream

from referee.cli.main import main
from referee.ladder.config import load_ladder
from referee.ladder.store import MIGRATIONS, LadderStore
from referee.ladder.wire import Hello, Responses
from referee.play.records import GameRecord, Termination

REMOTE = {"listen": "127.0.0.1:0", "hello_timeout": 1.0, "max_connections": 5, "rejoin_wait": 30}


def ladder_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``vastuz ladder ARGS`` in this process (its main, as the command runs it): the
    quick commands, without a start-up per call."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["ladder", *args])
    return subprocess.CompletedProcess(["vastuz", "ladder", *args], code, out.getvalue(), err.getvalue())


def add_bot(path: Path, name: str, *extra: str) -> str:
    proc = ladder_cli("add-bot", str(path), name, *extra)
    assert proc.returncode == 0, proc.stderr
    token = proc.stdout.strip()
    assert len(token) >= 40 and "\n" not in token
    return token


def url_of(path: Path, proc: subprocess.Popen[str]) -> str:
    """The URL the running ladder wrote (its port is any free one)."""
    remote = load_ladder(path, check_programs=False).output / "remote.json"
    wait_for(remote.exists, "remote.json", proc, seconds=60)
    return str(json.loads(remote.read_text())["url"])


def connect(
    url: str, name: str, token: str, marker: str, *bot: str, once: bool = True, extra: tuple[str, ...] = ()
) -> subprocess.Popen[str]:
    """``vastuz connect`` running the fake bot (``bot``: its arguments); the token in the
    environment, the bot marked for the clean-up."""
    env = {**os.environ, "VASTUZ_TOKEN": token, "VASTUZ_TEST_MARKER": marker}
    args = ["connect", url, "--name", name, "--program", str(FAKEBOT), *extra]
    if once:
        args.append("--once")
    return vastuz(*args, "--", sys.executable, str(FAKEBOT), *bot, env=env)


@contextmanager
def clients(*procs: subprocess.Popen[str]) -> Iterator[list[subprocess.Popen[str]]]:
    """The clients, each stopped (SIGTERM: it closes its connection and reaps its bot) if
    still running at the end, and reaped with its pipes read."""
    try:
        yield list(procs)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()


def kill_orphan(marker: str, word: str) -> None:
    """SIGKILL the marked bot process whose command has ``word`` (a killed client's bot)."""
    for pid in processes_with(marker):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if word.encode() in command and b"referee.cli" not in command:
            os.kill(pid, signal.SIGKILL)


def games_of(store: Path, test: Callable[[GameRecord], bool]) -> list[GameRecord]:
    if not store.exists():
        return []
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute("SELECT slot FROM games ORDER BY seq").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        db.close()
    if not rows:
        return []
    with LadderStore(store) as s:
        return [r for r in (GameRecord.from_json(t) for t in s.records()) if test(r)]


def remote_game(labels: set[str]) -> Callable[[GameRecord], bool]:
    return lambda r: bool(set(r.labels) & labels)


def ladder(tmp_path: Path, marker: str, *, n: int = 4, **overrides: object) -> Path:
    """A ladder of ``n`` local fake bots (``b0``...) that listens for remote bots."""
    settings: dict[str, object] = {"remote": REMOTE, "time_control": {"per_move": 2.0, "margin": 0.5}}
    settings.update(overrides)
    return write(tmp_path, marker, n=n, **settings)


def connected(path: Path) -> set[str]:
    """The bots ``vastuz ladder status`` shows as connected (not "not connected")."""
    status = ladder_cli("status", str(path))
    assert status.returncode == 0, status.stderr
    rows = [line.split() for line in status.stdout.splitlines()]
    return {row[1] for row in rows if len(row) > 2 and row[-1] == "connected" and row[-2] != "not"}


def stop(proc: subprocess.Popen[str], stop_file: Path) -> str:
    stop_file.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return out


# ------------------------------------------------------------------------------ play


def test_local_and_remote_bots_play_each_other(tmp_path: Path, marker: str) -> None:
    path = ladder(tmp_path, marker)
    config = load_ladder(path)
    tokens = {name: add_bot(path, name) for name in ("r1", "r2")}
    stop_file = tmp_path / "stop"
    with reaped(vastuz("ladder", str(path), "--stop-file", str(stop_file))) as proc:
        url = url_of(path, proc)
        with clients(
            *(connect(url, n, t, marker, "--seed", str(k + 7)) for k, (n, t) in enumerate(tokens.items()))
        ):
            mixed = remote_game({"r1", "r2"})
            wait_for(
                lambda: any(set(r.labels) - {"r1", "r2"} for r in games_of(config.store, mixed)),
                "a game of a remote bot against a local one",
                proc,
                seconds=90,
            )
            # A game of one of them came first; on a loaded machine the other may still be
            # connecting: both are, before the ladder stops.
            wait_for(lambda: connected(path) >= {"r1", "r2"}, "both remote bots connected", proc, seconds=90)
            out = stop(proc, stop_file)
    assert "remote bot r1 connected" in out and "remote bot r2 connected" in out
    games = games_of(config.store, remote_game({"r1", "r2"}))
    against_local = [r for r in games if set(r.labels) - {"r1", "r2"}]
    assert against_local
    for record in games:  # ordinary records: scored to the end, the remote bot named as such
        assert record.termination is Termination.SCORE, record.reason
        remote_entries = [b for b in record.bots if b.label in ("r1", "r2")]
        assert all(b.command == "remote (vastuz connect)" for b in remote_entries)
    slots = counted(config.store)
    assert len(slots) == len(set(slots))
    status = ladder_cli("status", str(path))
    assert "not connected (last seen" in status.stdout
    exported = ladder_cli("export", str(path), "--out", str(tmp_path / "export"))
    assert exported.returncode == 0, exported.stderr
    report = subprocess.run(
        [sys.executable, "-m", "referee.cli", "report", str(tmp_path / "export")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert "r1" in report.stdout and f"{len(slots)} games rated" in report.stdout


def test_a_connection_lost_mid_game_is_a_crash_and_the_bot_rejoins(tmp_path: Path, marker: str) -> None:
    path = ladder(tmp_path, marker, n=2, time_control={"per_move": 8.0, "margin": 0.5})
    config = load_ladder(path)
    token = add_bot(path, "r1")
    stop_file = tmp_path / "stop"
    log = tmp_path / "r1.log"
    with reaped(vastuz("ladder", str(path), "--stop-file", str(stop_file))) as proc:
        url = url_of(path, proc)
        # Its third genmove waits (in flight, well within its 8 s) until the client is killed.
        stalling = connect(url, "r1", token, marker, "--fault", "slow-once", "--after", "2", "--delay", "30",
                           "--log", str(log))  # fmt: skip
        with clients(stalling):
            wait_for(
                lambda: log.exists() and log.read_text().count(" genmove") >= 3, "the third genmove", proc, 90
            )
            stalling.send_signal(signal.SIGKILL)
            stalling.wait(timeout=30)
            kill_orphan(marker, str(log))  # its bot, asleep, holds the client's stderr
        wait_for(
            lambda: bool(games_of(config.store, lambda r: "connection lost" in r.reason)),
            "the loss",
            proc,
            60,
        )
        (lost,) = games_of(config.store, lambda r: "connection lost" in r.reason)
        assert lost.termination is Termination.CRASH
        assert lost.fault is not None and lost.labels[lost.fault.seat] == "r1"
        assert lost.winner is not None and lost.labels[lost.winner] != "r1"
        wait_for(
            lambda: "not connected" in ladder_cli("status", str(path)).stdout, "r1 not connected", proc, 30
        )
        before = len(games_of(config.store, remote_game({"r1"})))
        # Another answer to 'name' under the same name: refused (on_change: refuse), exit 2.
        changed = connect(url, "r1", token, marker, "--seed", "4")
        _, err = changed.communicate(timeout=60)
        assert changed.returncode == 2 and "(code 4403)" in err and "its answer to 'name'" in err, err
        # The same program and answers ('name' says the fault), now without the wait.
        again = ("--fault", "slow-once", "--after", "2", "--delay", "0")
        with clients(connect(url, "r1", token, marker, *again)):
            wait_for(
                lambda: len(games_of(config.store, remote_game({"r1"}))) >= before + 2,
                "r1's later games",
                proc,
                90,
            )
            out = stop(proc, stop_file)
    assert out.count("remote bot r1 connected") == 2
    later = games_of(config.store, remote_game({"r1"}))[before:]
    assert all(r.termination is Termination.SCORE for r in later)


# ------------------------------------------------------------------------------ refusals


@asynccontextmanager
async def open_raw(url: str) -> AsyncIterator[WebSocketConnection]:
    """A websocket to ``url`` whose socket is closed at the end whoever closed the connection."""
    host, port = url.removeprefix("ws://").rstrip("/").rsplit(":", 1)
    stream = await trio.open_tcp_stream(host, int(port))
    try:
        async with trio.open_nursery() as nursery:
            ws = await wrap_client_stream(nursery, stream, host, "/", max_message_size=1 << 22)
            try:
                yield ws
            finally:
                await ws.aclose()
                nursery.cancel_scope.cancel()
    finally:
        await stream.aclose()


async def _raw(url: str, first: str | bytes | None, wait: float = 10) -> tuple[int | None, list[str | bytes]]:
    """A bare websocket client: send ``first`` (None: nothing), answer nothing; the close code
    and what came before it."""
    got: list[str | bytes] = []
    with trio.fail_after(wait):
        async with open_raw(url) as ws:
            if first is not None:
                await ws.send_message(first)
            try:
                while True:
                    got.append(await ws.get_message())
            except ConnectionClosed as exc:
                return (None if exc.reason is None else exc.reason.code), got
    return None, got


async def _first(url: str, hello: str) -> str | bytes:
    """The first message after ``hello`` (then this client leaves)."""
    with trio.fail_after(20):
        async with open_raw(url) as ws:
            await ws.send_message(hello)
            return await ws.get_message()


async def _oversized(url: str, token: str) -> int | None:
    """A valid hello, then a reply to the handshake's first command over the limit."""
    with trio.fail_after(20):
        async with open_raw(url) as ws:
            await ws.send_message(Hello("r2", token, "sha256:x").message())
            await ws.get_message()  # the handshake's protocol_version
            try:
                await ws.send_message(b"=1 " + b"x" * 100_000 + b"\n\n")
                while True:
                    await ws.get_message()
            except ConnectionClosed as exc:
                return None if exc.reason is None else exc.reason.code
    return None


async def _too_many(url: str, n: int) -> list[int | None]:
    """``n`` connections at once that say nothing: the ones over the limit are refused at once."""
    codes: list[int | None] = []

    async def one() -> None:
        codes.append((await _raw(url, None))[0])

    async with trio.open_nursery() as nursery:
        for _ in range(n):
            nursery.start_soon(one)
    return codes


def test_refusals(tmp_path: Path, marker: str) -> None:
    path = ladder(tmp_path, marker, n=2)
    config = load_ladder(path)
    t1, t2 = add_bot(path, "r1"), add_bot(path, "r2")
    stop_file = tmp_path / "stop"
    with reaped(vastuz("ladder", str(path), "--stop-file", str(stop_file))) as proc:
        url = url_of(path, proc)
        wrong = connect(url, "r1", "wrong", marker)  # beside the right one, at once
        with clients(connect(url, "r1", t1, marker)):
            _, err = wrong.communicate(timeout=60)
            assert wrong.returncode == 2 and "wrong token" in err and "(code 4401)" in err, err
            wait_for(lambda: bool(games_of(config.store, remote_game({"r1"}))), "r1 playing", proc, 90)
            second = connect(url, "r1", t1, marker)
            _, err = second.communicate(timeout=60)
            assert second.returncode == 2 and "connected already" in err and "(code 4409)" in err, err
            played = len(games_of(config.store, remote_game({"r1"})))
            wait_for(
                lambda: len(games_of(config.store, remote_game({"r1"}))) > played,
                "the first plays on",
                proc,
                60,
            )
            nobody = Hello("nobody", t1, "sha256:x").message()
            assert trio.run(_raw, url, nobody)[0] == 4401  # an unknown name
            assert trio.run(_oversized, url, t2) == 1009
            assert trio.run(_raw, url, None)[0] == 4408  # no hello within hello_timeout (1 s)
            assert trio.run(_raw, url, b"\xff not json")[0] == 4400
            # r1 is one connection: five more, four pending hellos fit, the fifth does not.
            codes = trio.run(_too_many, url, 5)
            # (A connection refused just before may still be closing, and count, for a moment.)
            assert 4429 in codes and codes.count(4408) >= 3 and set(codes) <= {4408, 4429}, codes
            # A new token: the old one stops working at once (the ladder reads the store).
            t2_new = add_bot(path, "r2", "--new-token")
            assert trio.run(_raw, url, Hello("r2", t2, "sha256:x").message())[0] == 4401
            accepted = trio.run(_first, url, Hello("r2", t2_new, "sha256:x").message())
            assert accepted == "1 protocol_version\n"  # accepted: the handshake begins
            stop(proc, stop_file)


def test_an_oversized_message_in_a_game_is_a_loss(tmp_path: Path, marker: str) -> None:
    path = ladder(tmp_path, marker, n=2)
    config = load_ladder(path)
    token = add_bot(path, "r1")
    stop_file = tmp_path / "stop"
    with reaped(vastuz("ladder", str(path), "--stop-file", str(stop_file))) as proc:
        url = url_of(path, proc)
        # A 1 MiB answer to its first genmove, sent whole (the client's own limit is raised).
        flood = connect(url, "r1", token, marker, "--fault", "long-line", extra=("--max-message", "4000000"))
        with clients(flood):
            wait_for(lambda: bool(games_of(config.store, remote_game({"r1"}))), "r1's game", proc, 90)
            out = stop(proc, stop_file)
            flood.communicate(timeout=60)
        assert flood.returncode == 1  # --once: a lost connection
    (game, *_) = games_of(config.store, remote_game({"r1"}))
    assert game.termination is Termination.CRASH and "1009" in game.reason, game.reason
    assert "remote bot r1 disconnected" in out


# ------------------------------------------------------------------------------ restarts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_sigkill_with_remote_bots_then_a_restart_loses_no_game_and_repeats_none(
    tmp_path: Path, marker: str
) -> None:
    # A fixed port: the clients reconnect to the same address after the restart.
    remote = {**REMOTE, "listen": f"127.0.0.1:{free_port()}"}
    path = ladder(tmp_path, marker, n=2, concurrency=2, remote=remote)
    config = load_ladder(path)
    tokens = {name: add_bot(path, name) for name in ("r1", "r2")}
    slow = ("--fault", "slow", "--delay", "0.03")
    first = vastuz("ladder", str(path), "--rounds", "100")
    with reaped(first):
        url = url_of(path, first)
        bots = [connect(url, n, t, marker, *slow, once=False) for n, t in tokens.items()]
        with clients(*bots):
            wait_for(
                lambda: len(games_of(config.store, remote_game({"r1", "r2"}))) >= 3, "remote games", first, 90
            )
            first.kill()  # SIGKILL: no cleanup at all
            first.communicate()
            before = records(config.store)
            with LadderStore(config.store) as store:
                pending = store.counts()["pending"]
                (number, ended) = store.last_round() or (0, True)
            assert pending > 0 and not ended
            # The clients reconnect (their backoff) to the restarted ladder, on a new port.
            second = vastuz("ladder", str(path), "--rounds", "1")
            with reaped(second):
                out, err = second.communicate(timeout=120)
            assert second.returncode == 0, err
            for bot in bots:
                assert bot.poll() is None  # still trying: a lost connection is not the end
                bot.send_signal(signal.SIGTERM)
            for bot in bots:
                bot.communicate(timeout=30)
                assert bot.returncode == 0
    assert "resumed" in out and "cancelled" not in out, out
    after = records(config.store)
    assert {slot: after[slot] for slot in before} == before  # nothing written before was touched
    slots = counted(config.store)
    assert len(slots) == len(set(slots))  # none repeated
    with LadderStore(config.store) as store:
        counts = store.counts()
        assert counts.get("pending", 0) == 0 and counts.get("cancelled", 0) == 0  # none lost
        assert store.last_round() == (number, True)


# ------------------------------------------------------------------------------ the store


def test_add_bot_prints_a_token_once_and_keeps_its_hash(tmp_path: Path, marker: str) -> None:
    path = ladder(tmp_path, marker)
    config = load_ladder(path)
    token = add_bot(path, "r1")
    with LadderStore(config.store) as store:
        (entry,) = [e for e in store.entries() if e.name == "r1"]
    assert entry.remote and entry.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert entry.fingerprint == ""  # its first connection's hello gives it
    store_bytes = b"".join(p.read_bytes() for p in config.output.glob("ladder.sqlite*"))
    assert token.encode() not in store_bytes
    again = ladder_cli("add-bot", str(path), "r1")
    assert again.returncode == 2 and "--new-token" in again.stderr and again.stdout == ""
    new = add_bot(path, "r1", "--new-token")
    assert new != token
    with LadderStore(config.store) as store:
        (entry,) = [e for e in store.entries() if e.name == "r1"]
    assert entry.token_hash == hashlib.sha256(new.encode()).hexdigest()
    local = ladder_cli("add-bot", str(path), "b0")
    assert local.returncode == 2 and "local bot" in local.stderr
    bad = ladder_cli("add-bot", str(path), "no spaces")
    assert bad.returncode == 2 and "expected a name" in bad.stderr
    (tmp_path / "plain").mkdir()
    plain = write(tmp_path / "plain", marker)
    none = ladder_cli("add-bot", str(plain), "r9")
    assert none.returncode == 2 and "no `remote:` key" in none.stderr


def test_a_v2_store_is_migrated_to_v3(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    MIGRATIONS[0](db)
    MIGRATIONS[1](db)
    db.execute("UPDATE schema_version SET version = 2")
    db.execute(
        "INSERT INTO entries (label, name, fingerprint, command, registered) "
        "VALUES ('b0', 'b0', 'sha256:1', 'x', 't')"
    )
    db.execute("COMMIT")
    db.close()
    with LadderStore(path) as store:
        assert store.migrated_from == 2 and store.version() == 3
        (entry,) = store.entries()
        assert entry.label == "b0" and not entry.remote and entry.token_hash is None
        assert store.presence() == {}
        store.set_presence("r1", True)
        connected, since, seen = store.presence()["r1"]
        assert connected and since is not None and seen == since
        store.set_presence("r1", False)
        assert store.presence()["r1"] == (False, since, store.presence()["r1"][2])
    columns = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(presence)")]
    assert columns == ["label", "connected", "since", "last_seen"]  # vastuz serve reads these


# ------------------------------------------------------------------------------ the wire


def test_the_client_sends_each_complete_response_as_one_message() -> None:
    cut = Responses(64)
    assert cut.feed(b"=1 a\n") == []
    assert cut.feed(b"\n=2 b\n\n=3") == [b"=1 a\n\n", b"=2 b\n\n"]
    assert cut.feed(b" multi\nline\r\n\r\n") == [b"=3 multi\nline\r\n\r\n"]
    for byte in b"=4 x\n\n":  # byte by byte
        got = cut.feed(bytes([byte]))
    assert got == [b"=4 x\n\n"]
    assert cut.feed(b"y" * 100) == [b"y" * 100]  # no end in sight: sent as it is, memory bounded
    assert cut.feed(b"\n\n") == [b"\n\n"]


def test_connect_refuses_bad_usage_before_connecting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VASTUZ_TOKEN", raising=False)

    def connect_cli(*args: str) -> tuple[int, str]:
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            code = main(["connect", *args])
        return code, err.getvalue()

    url = "ws://127.0.0.1:9/"  # never reached: each is refused first
    code, err = connect_cli(url, "--name", "r1", "--token", "t", "--", str(tmp_path / "missing-bot"))
    assert code == 2 and "missing-bot" in err
    code, err = connect_cli(url, "--name", "r1", "--", sys.executable, str(FAKEBOT))
    assert code == 2 and "VASTUZ_TOKEN" in err
    code, err = connect_cli("http://x/", "--name", "r1", "--token", "t", "--", sys.executable)
    assert code == 2 and "ws://" in err


def test_a_remote_entrys_identity_follows_on_change(tmp_path: Path, marker: str) -> None:
    """The hub's judgement of a connection's identity (the entries' rules): the first hello
    sets the fingerprint; a change is refused, or under new-entry makes NAME.v2 with the same
    token, the old entry retired."""
    from referee.errors import ResultsError
    from referee.ladder.connections import RemoteHub
    from referee.ladder.identity import Identity

    for rule in ("refuse", "new-entry"):
        folder = tmp_path / rule
        folder.mkdir()
        path = ladder(folder, marker, on_change=rule)
        add_bot(path, "r1")
        config = load_ladder(path)
        with LadderStore(config.store) as store:
            hub = RemoteHub(config, store, say=lambda _: None, startup_timeout=5, max_line=1024)
            (entry,) = [e for e in store.entries() if e.name == "r1"]
            assert hub._identify(entry, Identity("sha256:a", "bot", "1")) == "r1"
            (entry,) = [e for e in store.entries() if e.name == "r1"]
            assert (entry.fingerprint, entry.version) == ("sha256:a", "1")
            assert hub._identify(entry, Identity("sha256:a", "bot", "1")) == "r1"  # the same: the same entry
            if rule == "refuse":
                with pytest.raises(ResultsError, match="fingerprint"):
                    hub._identify(entry, Identity("sha256:b", "bot", "1"))
                continue
            assert hub._identify(entry, Identity("sha256:a", "bot", "2")) == "r1.v2"
            old, new = [e for e in store.entries() if e.name == "r1"]
            assert old.retired is not None and new.retired is None and new.remote
            assert new.token_hash == old.token_hash and new.version == "2"


def test_remote_bots_need_the_local_executor(tmp_path: Path, marker: str) -> None:
    from referee.errors import ConfigError

    path = ladder(tmp_path, marker, executor={"processes": 2}, concurrency=2)
    with pytest.raises(ConfigError, match="remote: remote bots play in the ladder's own process"):
        load_ladder(path)
    plain = ladder(tmp_path, marker, concurrency=2)
    proc = ladder_cli(str(plain), "--processes", "2", "--rounds", "1")
    assert proc.returncode == 2 and "--processes: remote bots play in the ladder's own process" in proc.stderr
