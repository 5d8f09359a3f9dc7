"""The daemon as a real process over its real socket, in temp repositories."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from interlock import constants
from interlock.daemon import client
from interlock.errors import DaemonError
from interlock.git import discover
from interlock.memory.snapshot import worktree_tree


@pytest.fixture(scope="session")
def status(interlock: Callable[..., subprocess.CompletedProcess[str]]) -> Callable[[Path], dict]:
    """`status(repo)`: what `interlock daemon status --json` says."""

    def status(repo: Path) -> dict:
        result = interlock(repo, "daemon", "status", "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    return status


def test_start_status_stop_round_trip(daemons, git_repo, interlock, pid_alive, status):
    daemons.track(git_repo)
    started = interlock(git_repo, "daemon", "start")
    assert started.returncode == 0, started.stderr
    pid = daemons.pid_of(git_repo)
    assert f"daemon started (pid {pid})" in started.stdout
    info = status(git_repo)
    assert info["running"] and info["pid"] == pid
    assert info["watched_dirs"] >= 2 and info["rss"] > 0 and info["uptime"] >= 0
    assert info["last_snapshot"] is None
    human = interlock(git_repo, "daemon", "status").stdout
    assert f"running (pid {pid}" in human and "memory (RSS)" in human
    stopped = interlock(git_repo, "daemon", "stop")
    assert stopped.returncode == 0 and f"stopped (pid {pid})" in stopped.stdout
    assert not pid_alive(pid)
    loc = discover(git_repo)
    assert not client.pid_path(loc).exists()
    assert not (loc.state_dir / constants.SOCKET_FILE).exists()
    assert status(git_repo)["running"] is False
    assert "not running" in interlock(git_repo, "daemon", "stop").stdout


def test_a_second_start_finds_the_running_daemon(daemons, git_repo, interlock, status):
    pid = daemons.start(git_repo)
    again = interlock(git_repo, "daemon", "start")
    assert f"already running (pid {pid})" in again.stdout
    direct = interlock(git_repo, "daemon", "run")  # a racing spawn exits at once
    assert direct.returncode == 0
    assert status(git_repo)["pid"] == pid


def test_the_socket_is_private_and_the_state_dir_says_who_owns_it(daemons, git_repo, interlock):
    daemons.start(git_repo)
    loc = discover(git_repo)
    sock = client.socket_path(loc)
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)
    assert stat.S_IMODE(os.lstat(sock).st_mode) == 0o600
    assert (loc.state_dir / constants.STATE_README).exists()
    assert interlock(git_repo, "daemon", "path").stdout.strip() == str(loc.state_dir)


def test_daemon_fed_snapshots_equal_a_cold_scan_of_the_tree(daemons, git_repo, shell, status):
    daemons.start(git_repo)
    loc = discover(git_repo)
    first = client.call(loc, "snapshot", kind="manual")
    assert first["fed"] is False
    shell(
        git_repo,
        "echo more >> README.md; mkdir -p a/b; echo x > a/b/c.txt; chmod +x src/app.py;"
        " ln -s README.md link; printf 'bin\\0ary' > data.bin",
    )
    second = client.call(loc, "snapshot", kind="manual", message="after edits")
    assert second["fed"] is True and second["changed"] >= 5
    assert second["snapshot"]["tree"] == worktree_tree(loc)
    shell(git_repo, "rm -rf a; mv README.md README.txt; chmod -x src/app.py")
    third = client.call(loc, "snapshot", kind="manual")
    assert third["fed"] is True
    assert third["snapshot"]["tree"] == worktree_tree(loc)
    assert status(git_repo)["last_snapshot"]["id"] == third["snapshot"]["id"]


def test_diff_over_the_socket_lists_paths_changed_since_a_snapshot(daemons, git_repo, shell):
    daemons.start(git_repo)
    loc = discover(git_repo)
    snap = client.call(loc, "snapshot", kind="manual")["snapshot"]
    shell(git_repo, "echo new > fresh.txt; rm src/app.py")
    diff = client.call(loc, "diff", ref=snap["id"])["diff"]
    assert {d["path"]: (d["old"] is None, d["new"] is None) for d in diff} == {
        "fresh.txt": (True, False),
        "src/app.py": (False, True),
    }


def test_eight_clients_snapshotting_at_once_are_served_one_by_one(daemons, git_repo, git):
    daemons.start(git_repo)
    loc = discover(git_repo)
    replies: list[dict] = []

    def snap(n: int) -> None:
        (git_repo / f"f{n}.txt").write_text(str(n))
        replies.append(client.call(loc, "snapshot", kind="manual", message=f"client {n}"))

    threads = [threading.Thread(target=snap, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(replies) == 8 and all(r["ok"] for r in replies)
    assert len({r["snapshot"]["id"] for r in replies}) == 8
    assert client.call(loc, "snapshot")["snapshot"]["tree"] == worktree_tree(loc)
    assert git(git_repo, "fsck", "--no-progress").returncode == 0


def test_kill_9_mid_snapshot_leaves_fsck_clean_and_the_next_start_recovers(
    daemons, git_repo, git, shell, poll, pid_alive, status
):
    shell(
        git_repo,
        "for d in $(seq 40); do mkdir -p big/$d; for f in $(seq 50); do echo $d$f > big/$d/$f; done; done",
    )
    pid = daemons.start(git_repo)
    loc = discover(git_repo)
    thread = threading.Thread(target=client.request, args=(loc, "snapshot"), daemon=True)
    thread.start()
    poll(
        lambda: (loc.state_dir / "snapshot.lock").exists() or not thread.is_alive(),
        what="a snapshot",
    )
    os.kill(pid, signal.SIGKILL)
    poll(lambda: not pid_alive(pid), what="the daemon to die")
    assert git(git_repo, "fsck", "--no-progress").returncode == 0
    assert "stale pid file" in status(git_repo)["state"]
    new_pid = daemons.start(git_repo)
    assert new_pid != pid
    reply = client.call(loc, "snapshot")
    assert reply["snapshot"]["tree"] == worktree_tree(loc)
    assert git(git_repo, "fsck", "--no-progress").returncode == 0


def test_sigterm_stops_the_daemon_and_commits_what_it_recorded(
    daemons, git_repo, git, shell, poll, pid_alive, status
):
    pid = daemons.start(git_repo)
    shell(git_repo, "echo recorded > rec.txt")
    poll(lambda: status(git_repo)["recorder"]["versions"] >= 1, what="a recorded version")
    os.kill(pid, signal.SIGTERM)
    poll(lambda: not pid_alive(pid), what="the daemon to exit")
    refs = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout
    assert "/recorder/" in refs
    assert not client.pid_path(discover(git_repo)).exists()


def test_the_daemon_exits_when_idle(daemons, git_repo, monkeypatch, poll, pid_alive):
    monkeypatch.setenv(constants.ENV_DAEMON_IDLE, "1")
    pid = daemons.start(git_repo)
    poll(lambda: not pid_alive(pid), timeout=15, what="the idle exit")
    log = (discover(git_repo).state_dir / constants.LOG_FILE).read_text()
    assert "stopping: idle for" in log


def test_removing_the_state_dir_stops_the_daemon_and_a_new_one_rebuilds_it(
    daemons, git_repo, shell, poll, pid_alive
):
    pid = daemons.start(git_repo)
    loc = discover(git_repo)
    shell(git_repo, f"rm -rf {loc.state_dir} || true")  # the daemon may write meanwhile
    poll(lambda: not pid_alive(pid), what="the daemon to notice")
    shell(git_repo, f"rm -rf {loc.state_dir}")
    daemons.start(git_repo)
    assert (loc.state_dir / constants.STATE_README).exists()


def test_a_state_dir_that_is_a_file_is_moved_aside_and_rebuilt(daemons, git_repo, interlock):
    loc = daemons.track(git_repo)
    loc.state_dir.write_text("junk")
    result = interlock(git_repo, "daemon", "start")
    assert result.returncode == 0 and "was not a directory" in result.stderr
    assert loc.state_dir.is_dir()
    aside = [p for p in loc.git_dir.iterdir() if p.name.startswith("interlock.corrupt-")]
    assert aside and aside[0].read_text() == "junk"


def test_a_non_socket_at_the_socket_path_is_a_clear_error(daemons, git_repo, interlock):
    loc = discover(git_repo)
    loc.state_dir.mkdir()
    (loc.state_dir / constants.SOCKET_FILE).write_text("not a socket")
    result = interlock(git_repo, "daemon", "start", timeout=60)
    assert result.returncode == 1
    assert "is not a socket" in result.stderr and "rm " in result.stderr
    with pytest.raises(DaemonError, match="not a socket"):
        client.request(loc, "ping")
    assert (loc.state_dir / constants.SOCKET_FILE).read_text() == "not a socket"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a file owned by another uid")
def test_a_socket_owned_by_someone_else_is_a_clear_error(daemons, git_repo):
    import socket

    loc = discover(git_repo)
    loc.state_dir.mkdir()
    path = loc.state_dir / constants.SOCKET_FILE
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.close()
    os.chown(path, 12345, 12345)
    with pytest.raises(DaemonError, match="belongs to uid 12345"):
        client.request(loc, "ping")


def test_a_git_dir_too_deep_for_a_socket_path_uses_a_short_one(daemons, tmp_path, git, interlock):
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "repo"
    deep.mkdir(parents=True)
    git(deep, "init", "-q")
    pid = daemons.start(deep)
    loc = discover(deep)
    where = (loc.state_dir / constants.DAEMON_SOCKET_WHERE).read_text().strip()
    assert len(where.encode()) <= constants.SOCKET_PATH_MAX
    assert client.request(loc, "ping")["pid"] == pid
    interlock(deep, "daemon", "stop")
    assert not Path(where).exists()


def test_bad_requests_get_a_usage_reply_and_the_daemon_keeps_serving(daemons, git_repo):
    daemons.start(git_repo)
    loc = discover(git_repo)
    assert client.request(loc, "nonsense")["kind"] == "usage"
    assert client.request(loc, "snapshot", kind=7)["kind"] == "usage"
    assert client.request(loc, "snapshot", kind="bogus")["kind"] == "interlock"
    assert client.request(loc, "ping")["ok"]


def test_front_doors_do_not_start_a_daemon_when_told_not_to(git_repo, monkeypatch):
    monkeypatch.setenv(constants.ENV_NO_DAEMON, "1")
    loc = discover(git_repo)
    assert client.ensure_daemon(loc) is False
    assert not client.is_daemon_locked(loc)


def test_ensure_daemon_starts_one_in_the_background_once(daemons, git_repo, poll):
    loc = daemons.track(git_repo)
    assert client.ensure_daemon(loc) is True
    poll(lambda: client.request(loc, "ping"), what="the spawned daemon")
    assert client.ensure_daemon(loc) is False
    subprocess.run([sys.executable, "-c", "pass"], check=True)  # nothing else to reap


def test_restore_over_the_socket_brings_back_a_snapshot(daemons, git_repo, shell):
    daemons.start(git_repo)
    loc = discover(git_repo)
    snap = client.call(loc, "snapshot", kind="manual")["snapshot"]
    shell(git_repo, "echo ruined > src/app.py; echo stray > stray.txt")
    dry = client.call(loc, "restore", ref=snap["id"], dry_run=True)
    assert (git_repo / "src/app.py").read_text() == "ruined\n" and dry["ok"]
    client.call(loc, "restore", ref=snap["id"])
    assert (git_repo / "src/app.py").read_text() == "print('hello')\n"
    assert not (git_repo / "stray.txt").exists()
    after = client.call(loc, "snapshot", kind="manual")
    assert after["fed"] and after["snapshot"]["tree"] == snap["tree"] == worktree_tree(loc)


def test_a_request_with_one_bad_env_key_changes_nothing_in_the_daemon(daemons, git_repo, tmp_path):
    # A HOME whose git config ignores big.bin: were it to leak into the daemon's own
    # environment, the daemon's next snapshot (another thread, another request) would skip it.
    evil = tmp_path / "evil-home"
    evil.mkdir()
    (evil / "ignore").write_text("big.bin\n")
    (evil / ".gitconfig").write_text(f"[core]\n\texcludesFile = {evil / 'ignore'}\n")
    (git_repo / "big.bin").write_bytes(b"b" * (constants.SNAPSHOT_IGNORED_MAX_BYTES + 10))
    daemons.start(git_repo)
    loc = discover(git_repo)
    env = {"HOME": str(evil), "INTERLOCK_MODE": "off", "INTERLOCK_BAD=KEY": "x"}

    reply = client.request(loc, "check", command="true", env=env)

    assert reply is not None and reply["ok"] is False and reply["kind"] == "usage"
    assert "INTERLOCK_BAD=KEY" in reply["error"]
    snap = client.call(loc, "snapshot", kind="manual")
    assert "big.bin" not in json.dumps(snap["snapshot"]["skipped"])


def test_a_checks_environment_is_seen_only_by_that_check(daemons, git_repo):
    daemons.start(git_repo)
    loc = discover(git_repo)
    (git_repo / "README.md").write_text("unsaved\n")
    blocking = client.call(
        loc, "check", command="git checkout -- .", env={"INTERLOCK_MODE": "blocking"}
    )
    plain = client.call(loc, "check", command="git checkout -- .", env={})
    assert blocking["exit_code"] == 126 and plain["exit_code"] == 0


_HEAP = 64 << 20  # glibc's thread arenas each reserve one 64 MiB-aligned heap


def _malloc_heaps(pid: int) -> int:
    """glibc thread arenas in /proc/PID/maps: an anonymous mapping at a 64 MiB boundary whose
    reservation (its own size, or with the PROT_NONE rest after it) is exactly 64 MiB."""
    maps = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split("-"))
        maps.append((start, end, fields[1], len(fields) > 5))
    heaps = 0
    for i, (start, end, perms, named) in enumerate(maps):
        if named or start % _HEAP or not perms.startswith("rw"):
            continue
        rest = maps[i + 1] if i + 1 < len(maps) else None
        reserved = end if rest is None or rest[0] != end or rest[2] != "---p" else rest[1]
        heaps += reserved - start == _HEAP
    return heaps


def _busy(loc, repo: Path, poll) -> None:
    """Work on several of the daemon's threads: the watcher and recorder, snapshots, checks."""
    for i in range(3):
        for n in range(30):
            (repo / f"n{n}.txt").write_text(f"{i} {n}\n" * 50)
        assert client.call(loc, "snapshot")
        assert client.request(loc, "status") is not None
    poll(lambda: (client.request(loc, "status") or {}).get("recorder", {}).get("idle"))


def test_the_daemon_keeps_to_two_malloc_arenas(daemons, git_repo, poll):
    """Each thread's own arena kept a burst's peak resident in pieces (idle RSS 80 MB against
    74 with two arenas, bench_recorder's scenario)."""
    pid = daemons.start(git_repo)
    _busy(discover(git_repo), git_repo, poll)
    assert _malloc_heaps(pid) <= 1


def test_a_malloc_arena_max_in_the_environment_wins(daemons, git_repo, poll, monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    pid = daemons.start(git_repo)
    _busy(discover(git_repo), git_repo, poll)
    assert _malloc_heaps(pid) >= 2
