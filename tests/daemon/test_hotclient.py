"""The minimal client of the hot doors: what it imports, whom it trusts, how long it waits,
and what it does with replies that are not answers. Real daemons, real impostor processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interlock import constants, git
from interlock.daemon import client, hotclient, hotlife

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).resolve().parent / "fakedaemon.py"
# What the installed launcher runs (install.sh): `check` goes to interlock.checkdoor first.
LAUNCH = (
    "import sys; sys.path.append({root!r}); from interlock.launch import main; sys.exit(main())"
)
# What a warm `interlock check` may import beyond what `python -I -S -c pass` has loaded.
HOT_IMPORTS = {
    "__future__",
    "_json",
    "_socket",
    "fcntl",
    "interlock",
    "interlock.__main__",
    "interlock.checkdoor",
    "interlock.constants",
    "interlock.daemon",
    "interlock.daemon.hotclient",
    "interlock.daemon.hotos",
    "interlock.daemon.hotwhere",
    "interlock.snapdoor",
}


def launcher(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60):
    """Run `interlock ARGS` as the installed launcher does: python -I -S, explicit path."""
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", LAUNCH.format(root=str(ROOT)), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def inline(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return launcher(repo, *args, env={constants.ENV_NO_DAEMON: "1"})


DISCARD = ("check", "--mode", "blocking", "git checkout -- .")


@pytest.fixture
def dirty_repo(git_repo):
    (git_repo / "src" / "app.py").write_text("print('unsaved work')\n")
    return git_repo


def test_a_warm_check_imports_only_what_a_round_trip_needs(daemons, git_repo):
    daemons.start(git_repo)
    probe = f"""
import sys
before = set(sys.modules)
sys.path.append({str(ROOT)!r})
from interlock.__main__ import hot_check
code = hot_check(["--json", "ls"])
sys.stdout.flush()
print("\\nimported:" + ",".join(sorted(set(sys.modules) - before)), "code:", code)
"""
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], cwd=git_repo, capture_output=True, text=True
    )
    line = result.stdout.strip().splitlines()[-1]
    assert line.endswith("code: 0"), result.stdout + result.stderr
    imported = set(line.removeprefix("imported:").split(" ")[0].split(","))
    assert imported <= HOT_IMPORTS, imported - HOT_IMPORTS


# What the launcher's check door may import (interlock.checkdoor): no `_json` (the answer comes
# back framed), no `fcntl` (the daemon tests its own pid file lock: hotwhere.trust_problem), no
# interlock.__main__ (interlock.launch sends `check` straight to the door), no `__future__` (see
# interlock.daemon.hotos).
DOOR_IMPORTS = {
    "_socket",
    "interlock",
    "interlock.launch",
    "interlock.checkdoor",
    "interlock.constants",
    "interlock.daemon",
    "interlock.daemon.hotclient",
    "interlock.daemon.hotos",
    "interlock.daemon.hotwhere",
}


def _imported(cwd: Path, *args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules a process imported, as `python -X importtime` lists them on stderr (the
    warm door ends with posix._exit: nothing can be printed after it returns)."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-I", "-S", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in out.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    return names - {"imported package"}, out


def test_the_launchers_warm_check_door_imports_no_json_codec_lock_module_or_entry_point(
    daemons, git_repo
):
    daemons.start(git_repo)
    floor, _ = _imported(git_repo, "-c", "pass")
    names, out = _imported(git_repo, "-c", LAUNCH.format(root=str(ROOT)), "check", "--json", "ls")
    assert out.returncode == 0 and '"verdict": "allow"' in out.stdout, out.stderr
    assert "interlock.checkdoor" in names
    assert names - floor <= DOOR_IMPORTS, names - floor - DOOR_IMPORTS
    status = client.request(git.require_repo(git_repo), "status")
    assert status is not None and status["requests"] >= 2  # the check was answered warm


def test_the_launchers_warm_snapshot_door_imports_what_its_check_door_may_and_no_more(
    daemons, git_repo
):
    daemons.start(git_repo)
    (git_repo / "notes.txt").write_text("new\n")
    floor, _ = _imported(git_repo, "-c", "pass")
    names, out = _imported(git_repo, "-c", LAUNCH.format(root=str(ROOT)), "snapshot", "-m", "x")
    assert out.returncode == 0 and out.stdout.startswith("interlock: snapshot "), out.stderr
    assert "interlock.snapdoor" in names
    allowed = (DOOR_IMPORTS - {"interlock.checkdoor"}) | {"interlock.snapdoor"}
    assert names - floor - {"interlock.checkdoor"} <= allowed, names - floor - allowed
    status = client.request(git.require_repo(git_repo), "status")
    assert status is not None and status["last_snapshot"]["id"] in out.stdout  # taken warm


CLICK_ONLY = "import sys; from interlock.cli import run_cli; sys.exit(run_cli(sys.argv[1:]))"


def test_a_cold_check_without_click_prints_what_the_full_cli_prints(dirty_repo):
    for args in (DISCARD, ("check", "--json", "ls -la"), ("check", "--mode", "bogus", "ls")):
        full = subprocess.run(
            [sys.executable, "-c", CLICK_ONLY, *args],
            cwd=dirty_repo,
            capture_output=True,
            text=True,
            env={**os.environ, constants.ENV_NO_DAEMON: "1"},
        )
        got = inline(dirty_repo, *args)
        assert (got.stdout, got.stderr, got.returncode) == (
            full.stdout,
            full.stderr,
            full.returncode,
        ), args


def test_the_launcher_answers_checks_exactly_as_the_full_cli(daemons, dirty_repo):
    daemons.start(dirty_repo)
    for args in (DISCARD, ("check", "--json", "ls -la"), ("check", "--", "rm", "-rf", "src")):
        want = inline(dirty_repo, *args)
        got = launcher(dirty_repo, *args)
        assert (got.stdout, got.stderr, got.returncode) == (
            want.stdout,
            want.stderr,
            want.returncode,
        ), args


def test_the_launcher_takes_snapshots_through_the_warm_daemon(daemons, git_repo, interlock):
    pid = daemons.start(git_repo)
    (git_repo / "notes.txt").write_text("new\n")
    result = launcher(git_repo, "snapshot", "-m", "through the daemon")
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.startswith("interlock: snapshot ")
        and "1 file differs from HEAD" in result.stdout
    )
    status = client.request(git.require_repo(git_repo), "status")
    assert status is not None and status["pid"] == pid
    assert status["last_snapshot"]["id"] in result.stdout
    listed = interlock(git_repo, "snapshots").stdout
    assert "through the daemon" in listed


def test_without_the_cli_installed_a_failed_inline_check_exits_3_in_one_line(git_repo):
    probe = (
        f"import sys; sys.path.append({str(ROOT)!r}); sys.modules['interlock.cli'] = None; "
        "sys.modules['interlock.commands.check'] = None; "
        "from interlock.__main__ import main; sys.exit(main(['check', 'ls']))"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe],
        cwd=git_repo,
        capture_output=True,
        text=True,
        env={**os.environ, constants.ENV_NO_DAEMON: "1"},
    )
    assert result.returncode == 3
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("interlock: error: cannot load"), lines


# --- trust: impostors on the socket ---


def start_fake(repo: Path, how: str, reply: str) -> subprocess.Popen[str]:
    loc = git.require_repo(repo)
    loc.state_dir.mkdir(exist_ok=True)
    fake = subprocess.Popen(
        [sys.executable, str(FAKE), str(loc.state_dir), str(loc.worktree), how, reply, "x" * 300],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
    return fake


@pytest.fixture
def fakes():
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("how", ["socket", "pidfile"])
def test_an_impostor_answering_allow_on_the_socket_is_never_trusted(
    daemons, dirty_repo, fakes, how
):
    daemons.start(dirty_repo)
    fakes.append(start_fake(dirty_repo, how, "allow"))
    want = inline(dirty_repo, *DISCARD)
    got = launcher(dirty_repo, *DISCARD)
    assert want.returncode == got.returncode == 126
    assert got.stderr == want.stderr and "[discard]" in got.stderr
    loc = git.require_repo(dirty_repo)
    assert client.request(loc, "ping") is None
    assert client.trust_problem(loc) is not None
    status = launcher(dirty_repo, "daemon", "status")
    assert status.stdout.startswith("daemon: not trusted: "), status.stdout


@pytest.mark.parametrize("how", ["socket", "pidfile"])
def test_an_impostor_answering_the_wrappers_early_attempt_is_never_trusted(
    daemons, dirty_repo, fakes, how
):
    # the wrapper sends its attempt before it checks the peer: the answer still never counts
    daemons.start(dirty_repo)
    fakes.append(start_fake(dirty_repo, how, "attempt-allow"))
    got = subprocess.run(
        [str(ROOT / "shell" / "interlock-sh"), "-c", "git checkout -- ."],
        cwd=dirty_repo,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_MODE": "blocking", "INTERLOCK_PYTHON": sys.executable},
        timeout=120,
    )
    assert got.returncode == 126 and "[discard]" in got.stderr, got.stderr
    assert (dirty_repo / "src" / "app.py").read_text() == "print('unsaved work')\n"


MALFORMED = [
    "garbage",
    "truncated",
    "list",
    "no-ok",
    "wrong-types",
    "bool-code",
    "odd-code",
    "trailing",
    "bad-utf8",
    "deep",
    "close",
    "frame-odd-code",
    "frame-error",
    "frame-short",
    "frame-header",
]


def test_a_malformed_reply_even_from_a_forged_daemon_means_judging_inline(dirty_repo, monkeypatch):
    monkeypatch.delenv(constants.ENV_NO_DAEMON, raising=False)
    loc = git.require_repo(dirty_repo)
    want = inline(dirty_repo, *DISCARD)
    assert want.returncode == 126
    for reply in MALFORMED:
        fake = start_fake(dirty_repo, "forged", reply)
        try:
            assert client.trust_problem(loc) is None  # it passes every check a socket allows
            got = launcher(dirty_repo, *DISCARD, timeout=20)
        finally:
            fake.kill()
            fake.wait()
        assert (got.stdout, got.stderr, got.returncode) == (want.stdout, want.stderr, 126), reply


# --- health: stalled daemons ---


def test_a_stopped_daemon_costs_one_short_wait_and_is_replaced(
    daemons, dirty_repo, poll, pid_alive, stop_process
):
    pid = daemons.start(dirty_repo)
    stop_process(pid)
    try:
        want = inline(dirty_repo, *DISCARD)
        started = time.monotonic()
        got = launcher(dirty_repo, *DISCARD)
        took = time.monotonic() - started
        assert (got.stdout, got.stderr, got.returncode) == (want.stdout, want.stderr, 126)
        assert took < 5.0, f"a stopped daemon held the check for {took:.1f} s"
        poll(lambda: not pid_alive(pid), what="the stopped daemon to be killed")
    finally:
        if pid_alive(pid):
            os.kill(pid, signal.SIGCONT)
    loc = git.require_repo(dirty_repo)
    reply = poll(lambda: client.request(loc, "ping"), timeout=30, what="a new daemon")
    daemons.pids.add(int(reply["pid"]))
    assert reply["pid"] != pid


def test_a_commit_with_a_stopped_daemon_goes_ahead_in_process(
    daemons, git_repo, poll, pid_alive, interlock, git, stop_process
):
    assert interlock(git_repo, "install").returncode == 0
    pid = daemons.start(git_repo)
    stop_process(pid)
    try:
        (git_repo / "src" / "app.py").write_text("print('changed')\n")
        git(git_repo, "add", "-A")
        started = time.monotonic()
        result = git(git_repo, "commit", "-qm", "while the daemon is stopped", check=False)
        took = time.monotonic() - started
        assert result.returncode == 0, result.stderr
        assert took < 10.0, f"a stopped daemon held the commit for {took:.1f} s"
        poll(lambda: not pid_alive(pid), what="the stopped daemon to be killed")
    finally:
        if pid_alive(pid):
            os.kill(pid, signal.SIGCONT)


def test_missed_deadlines_are_counted_and_the_third_replaces_the_daemon(
    daemons, git_repo, poll, pid_alive
):
    pid = daemons.start(git_repo)
    where = hotclient.find(str(git_repo))
    assert where is not None
    for miss in (1, 2):
        hotlife.missed(where, pid, "test")
        mark = Path(where.state(constants.DAEMON_UNHEALTHY_MARK)).read_text().split()
        assert mark == [str(pid), str(miss)]
        assert pid_alive(pid)
    assert hotclient.ask(where, "ping", {}) is not None  # an answer clears the count
    assert not os.path.exists(where.state(constants.DAEMON_UNHEALTHY_MARK))
    for _ in range(3):
        hotlife.missed(where, pid, "test")
    poll(lambda: not pid_alive(pid), what="the unhealthy daemon to be killed")


def test_a_stuck_daemon_is_replaced_after_three_missed_checks(daemons, dirty_repo, poll, pid_alive):
    fake = start_fake(dirty_repo, "forged", "silent")  # trusted, never answers, never runs
    try:
        want = inline(dirty_repo, *DISCARD)
        for attempt in range(hotclient.MISSES_BEFORE_REPLACE):
            got = launcher(dirty_repo, *DISCARD)
            assert (got.stdout, got.stderr, got.returncode) == (want.stdout, want.stderr, 126)
            if attempt < hotclient.MISSES_BEFORE_REPLACE - 1:
                assert fake.poll() is None, "replaced before the third miss"
        poll(lambda: fake.poll() is not None, what="the stuck daemon to be killed")
        assert fake.returncode == -signal.SIGKILL
    finally:
        fake.kill()
        fake.wait()
    loc = git.require_repo(dirty_repo)
    reply = poll(lambda: client.request(loc, "ping"), timeout=30, what="a new daemon")
    daemons.pids.add(int(reply["pid"]))


def test_the_client_strips_the_same_git_variables_as_the_git_module():
    assert set(hotclient.GIT_HOOK_ENV) == set(git._GIT_HOOK_ENV)


def test_the_json_codec_round_trips_what_requests_carry():
    import json

    value = {"a": ["x", 1, 2.5, True, False, None], "é": {"n": "\udcff bytes"}}
    assert json.loads(hotclient.encode(value)) == value
    assert hotclient.decode(b' {"ok": true} ') == {"ok": True}
    odd = [float("inf"), float("-inf"), 1e300, -0.0]
    assert hotclient.encode(odd) == json.dumps(odd, separators=(",", ":"))
    assert repr(hotclient.decode(hotclient.encode([float("nan")]).encode())) == "[nan]"
    for bad in (b"", b"{", b"{} {}", b"nope"):
        with pytest.raises(ValueError):
            hotclient.decode(bad)


def test_strings_encode_exactly_as_json_does_with_or_without_escaping():
    # plain names and paths skip _json (the agent hook door never loads it); others use it
    import json

    samples = ["", "ls", "/work/my repo/a-b_c.d", "PreToolUse", "x" * 300, 'say "hi"', "a\\b",
               "tab\there", "new\nline", "\x7f", "\x00", "é", "\udcff", "😀", "'single'", "~`!@#$%"]
    for text in samples:
        assert hotclient.encode(text) == json.dumps(text), text
        assert json.loads(hotclient.encode({"k": [text]})) == {"k": [text]}


GARBAGE_PROBE = r"""
import random, sys
from interlock.daemon import hotclient
kinds = [b"", b" ", b"\n\t", b"{", b"}", b"[", b"]", b"[1,", b"[1 2]", b"{\"a\"", b"{\"a\":",
    b"{\"a\" 1}", b"{\"a\":1,}", b"[1,]", b"{1:2}", b"{'a':1}", b"\"abc", b"\"\\x\"",
    b"\"\\u12\"", b"\"\\ud800\"", b"\"\x01\"", b"\"tab\there\"", b"nul", b"tru", b"-",
    b"01", b"1.", b".5", b"1e", b"+1", b"0x1f", b"NaN", b"-Infinity", b"1e999", b"\x00",
    b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf{}", b"{} {}", b"{\"ok\": true} x",
    b"[" * 100000, b"{\"a\":" * 50000, b"\"" + b"\\" * 7 + b"\"", b"[\"\\\"]"]
rng = random.Random(11)
alphabet = b'{}[]:,"\\ntrufalsey0123456789.eE+-\x00\xff \n'
for _ in range(3000):
    kinds.append(bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 24))))
good = [b'{"ok": true, "a": [1, 2.5, null, "\\u00e9"]}', b" 7 ", b'"x"']
for raw in good:
    kinds.append(raw)
    kinds += [raw[:cut] for cut in range(len(raw))]
results = []
for raw in kinds:
    try:
        results.append(["value", repr(hotclient.decode(raw))])
    except ValueError as exc:
        results.append(["error", type(exc).__name__ + ": " + str(exc)])
    except BaseException as exc:
        results.append(["raised", type(exc).__name__ + ": " + str(exc)])
loaded = sorted(m for m in ("json", "json.decoder", "re") if m in sys.modules)
sys.stdout.write(hotclient.encode({"kinds": [k.decode("latin-1") for k in kinds],
                                   "results": results, "loaded": loaded}))
"""


def test_decode_answers_garbage_of_every_kind_with_a_value_error_as_json_would():
    """In a hot door `json` is never loaded, where _json's errors came out as SystemError."""
    import json

    proc = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import sys; sys.path.append({str(ROOT)!r})\n" + GARBAGE_PROBE,
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["loaded"] == []  # the probe ran as a hot door does: no json module
    assert len(out["kinds"]) > 3000
    for text, (kind, got) in zip(out["kinds"], out["results"], strict=True):
        raw = text.encode("latin-1")
        try:
            expected = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            assert kind == "error", (raw[:40], kind, got)
            continue
        assert (kind, got) == ("value", repr(expected)), raw[:40]
    assert hotclient.decode(bytearray(b"[1]")) == [1]
    with pytest.raises(ValueError, match="nested too deeply"):
        hotclient.decode(b"[" * 100000)


def test_a_daemon_started_by_hand_becomes_the_trusted_command_line(daemons, git_repo, poll):
    loc = daemons.track(git_repo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "interlock", "daemon", "run", "--idle", "300"],
        cwd=git_repo / "src",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    daemons.pids.add(proc.pid)
    try:
        reply = poll(lambda: client.request(loc, "ping"), timeout=30, what="the daemon")
        assert reply["pid"] == proc.pid  # the same process, re-executed in the trusted form
        where = hotclient.find(str(git_repo))
        assert where is not None and hotclient.is_our_daemon(proc.pid, where)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_daemon_reads_tmpdir_as_the_checking_shell_holds_it(
    daemons, dirty_repo, monkeypatch, tmp_path_factory
):
    """`rm -rf "$TMPDIR"/*` is `rm -rf /*` in a shell without TMPDIR: the daemon judges it
    with the client's environment (CHECK_ENV), not its own."""
    scratch = tmp_path_factory.mktemp("scratch")
    monkeypatch.setenv("TMPDIR", str(scratch))  # the daemon's own
    daemons.start(dirty_repo)
    monkeypatch.delenv("TMPDIR")
    args = ("check", "--mode", "blocking", 'rm -rf "$TMPDIR"/*')
    unset = launcher(dirty_repo, *args)
    assert unset.returncode == 126 and "fs.rm-recursive" in unset.stderr, unset.stderr
    assert launcher(dirty_repo, *args, env={"TMPDIR": str(scratch)}).returncode == 0
    assert inline(dirty_repo, *args).returncode == 126
