"""`interlock install` starts the daemon (and, with --service, writes its systemd user unit);
`interlock uninstall` says what it leaves, and --purge removes it. Real repos, real daemons."""

from __future__ import annotations

import os

from interlock.daemon import client
from interlock.git import discover


def test_install_starts_the_daemon_so_changes_are_recorded_from_then_on(
    daemons, git_repo, interlock, poll
):
    daemons.track(git_repo)
    result = interlock(git_repo, "install")
    assert result.returncode == 0, result.stderr
    assert "daemon started" in result.stdout
    loc = discover(git_repo)
    poll(lambda: client.request(loc, "ping"), timeout=30, what="the daemon")
    daemons.pid_of(git_repo)
    again = interlock(git_repo, "install")
    assert "already running" in again.stdout


def test_install_says_when_no_daemon_may_start(git_repo, interlock):
    result = interlock(git_repo, "install")  # the tests set INTERLOCK_NO_DAEMON
    assert result.returncode == 0, result.stderr
    assert "daemon not started (INTERLOCK_NO_DAEMON is set)" in result.stdout


def test_install_service_writes_a_user_unit_that_keeps_the_daemon_up(git_repo, interlock, tmp_path):
    config = tmp_path / "config"
    result = interlock(git_repo, "install", "--service", env={"XDG_CONFIG_HOME": str(config)})
    assert result.returncode == 0, result.stderr
    [unit] = (config / "systemd" / "user").glob("interlock-*.service")
    text = unit.read_text()
    assert f"daemon run --service --cwd {git_repo}" in text
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    # Here systemd --user may not run: then the message says how to enable it later.
    said = result.stdout + result.stderr
    assert "enabled" in said or f"systemctl --user enable --now {unit.name}" in said
    gone = interlock(git_repo, "uninstall", env={"XDG_CONFIG_HOME": str(config)})
    assert f"removed the service {unit}" in gone.stdout and not unit.exists()


def test_uninstall_says_what_it_leaves_and_purge_removes_it(git_repo, interlock, git):
    interlock(git_repo, "install")
    assert interlock(git_repo, "snapshot", "-m", "keep me").returncode == 0
    plain = interlock(git_repo, "uninstall")
    assert plain.returncode == 0, plain.stderr
    assert "left in place: 1 ref under refs/interlock/ (snapshots 1)" in plain.stdout
    assert "interlock uninstall --purge" in plain.stdout
    assert git(git_repo, "for-each-ref", "refs/interlock/").stdout.strip()

    purged = interlock(git_repo, "uninstall", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert "removing 1 ref under refs/interlock/ (snapshots 1)" in purged.stdout
    assert git(git_repo, "for-each-ref", "refs/interlock/").stdout.strip() == ""
    assert not (git_repo / ".git" / "interlock").exists()
    assert git(git_repo, "fsck", "--no-progress").returncode == 0
    assert os.listdir(git_repo / ".git" / "hooks") == [] or all(
        p.endswith(".sample") for p in os.listdir(git_repo / ".git" / "hooks")
    )
