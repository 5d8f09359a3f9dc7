"""Snapshots, diffs and restores through the warm daemon: the same output as inline, counted
changes without editors' temp files, and a status-driven snapshot for a large dirty set."""

from __future__ import annotations

from pathlib import Path

from interlock import constants
from interlock.daemon import client
from interlock.git import require_repo
from interlock.memory.snapshot import resolve_snapshot, take_snapshot


def served(loc) -> int:
    status = client.request(loc, "status")
    assert status is not None
    return int(status["requests"])


def same_output(interlock, repo: Path, *args: str, code: int = 0) -> None:
    """The command through the daemon prints and exits exactly as inline; the daemon served it."""
    loc = require_repo(repo)
    before = served(loc)
    warm = interlock(repo, *args)
    assert served(loc) >= before + 2, f"the daemon did not serve {args}"
    cold = interlock(repo, *args, env={constants.ENV_NO_DAEMON: "1"})
    assert (warm.stdout, warm.stderr, warm.returncode) == (cold.stdout, cold.stderr, code), args


def test_diff_through_the_daemon_prints_what_inline_prints(daemons, git_repo, interlock):
    daemons.start(git_repo)
    assert interlock(git_repo, "snapshot", "-m", "base").returncode == 0
    (git_repo / "src" / "app.py").write_text("print('changed')\n")
    (git_repo / "new file.txt").write_text("new\n")
    (git_repo / "README.md").unlink()
    for args in (("diff", "latest"), ("diff", "latest", "--json")):
        same_output(interlock, git_repo, *args)


def test_restore_through_the_daemon_brings_back_the_snapshot(daemons, git_repo, interlock):
    daemons.start(git_repo)
    (git_repo / "src" / "app.py").write_text("print('good')\n")
    snap = interlock(git_repo, "snapshot", "--json")
    assert snap.returncode == 0, snap.stderr
    (git_repo / "src" / "app.py").write_text("print('broken')\n")
    same_output(interlock, git_repo, "restore", "latest", "--dry-run")
    loc = require_repo(git_repo)
    before = served(loc)
    result = interlock(git_repo, "restore", "latest", "--paths", "src/app.py")
    assert result.returncode == 0, result.stderr
    assert served(loc) >= before + 2
    assert (git_repo / "src" / "app.py").read_text() == "print('good')\n"
    assert "undo: interlock undo" in result.stdout


def test_the_changed_count_leaves_out_temp_files_that_are_gone(daemons, git_repo, shell):
    daemons.start(git_repo)
    loc = require_repo(git_repo)
    assert client.call(loc, "snapshot")
    shell(
        git_repo,
        "echo edit >> src/app.py; echo x > .app.py.swp; echo x > 4913; echo x > app.py~;"
        " rm .app.py.swp 4913 app.py~; rm README.md",
    )
    reply = client.call(loc, "snapshot")
    assert reply is not None and reply["fed"] is True
    assert reply["changed"] == 2  # src/app.py edited, README.md deleted


def test_a_large_dirty_set_is_snapshotted_from_git_status(daemons, git_repo):
    daemons.start(git_repo)
    loc = require_repo(git_repo)
    assert client.call(loc, "snapshot")
    count = constants.DAEMON_FED_MAX_PATHS + 50
    (git_repo / "many").mkdir()
    for i in range(count):
        (git_repo / "many" / f"f{i}").write_text(f"{i}\n")
    reply = client.call(loc, "snapshot")
    assert reply is not None and reply["fed"] is False
    assert count <= reply["changed"] <= count + 1  # the files, and maybe their new directory
    cold = take_snapshot(loc)
    assert resolve_snapshot(loc, reply["snapshot"]["id"]).tree == cold.tree


TEST = "def test_total():\n    assert total([1, 2]) == 3\n"
WEAK = "def test_total():\n    assert total([1, 2])\n"


def test_audit_through_the_daemon_finds_what_inline_finds(daemons, git_repo, interlock, git):
    (git_repo / "tests").mkdir()
    for name in ("test_a.py", "test_b.py", "test_c.py"):
        (git_repo / "tests" / name).write_text("from app import total\n\n\n" + TEST)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "tests")
    daemons.start(git_repo)
    assert interlock(git_repo, "snapshot").returncode == 0  # the daemon's base for what changed
    same_output(interlock, git_repo, "audit")  # clean
    (git_repo / "tests" / "test_a.py").write_text("from app import total\n\n\n" + WEAK)
    (git_repo / "tests" / "test_b.py").unlink()
    (git_repo / "tests" / "test_b2.py").write_text("def test_nothing():\n    pass\n")
    (git_repo / "tests" / "test_c.py").write_text("from app import total\n\n\n" + WEAK)
    git(git_repo, "add", "tests/test_c.py")
    (git_repo / "tests" / "test_c.py").write_text("from app import total\n\n\n" + TEST)
    (git_repo / "conftest.py").write_text(
        "def pytest_sessionfinish(session):\n    session.exitstatus = 0\n"
    )
    same_output(interlock, git_repo, "audit", code=1)
    same_output(interlock, git_repo, "audit", "--json", code=1)
    found = interlock(git_repo, "audit").stderr
    for path in ("tests/test_a.py", "tests/test_b.py", "tests/test_c.py", "conftest.py"):
        assert path in found, path


def test_the_launcher_audits_through_the_warm_daemon(daemons, git_repo, git):
    from tests.daemon.test_hotclient import inline, launcher

    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_a.py").write_text("from app import total\n\n\n" + TEST)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "tests")
    daemons.start(git_repo)
    loc = require_repo(git_repo)
    (git_repo / "tests" / "test_a.py").write_text("from app import total\n\n\n" + WEAK)
    for args in (("audit",), ("audit", "--json")):
        before = served(loc)
        warm = launcher(git_repo, *args)
        assert served(loc) >= before + 2
        cold = inline(git_repo, *args)
        assert (warm.stdout, warm.stderr, warm.returncode) == (cold.stdout, cold.stderr, 1)
