"""The cold snapshot's early git status (interlock.memory.prescan): started under the snapshot
lock before the heavy imports, and the snapshot it feeds records exactly what one taken the
ordinary way records - in process, through `interlock snapshot` without a daemon, and against
the warm daemon's snapshot of the same tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock import constants
from interlock import git as gitmod
from interlock.errors import GitError
from interlock.git import RepoLocation, discover
from interlock.memory import prescan
from interlock.memory.leftovers import LockHolder
from interlock.memory.snapshot import snapshot_tree_files, take_snapshot


def _loc(repo: Path) -> RepoLocation:
    loc = discover(repo)
    assert loc is not None
    return loc


def _lock_path(loc: RepoLocation) -> Path:
    return loc.state_dir / constants.SNAPSHOT_LOCK_FILE


def _start(loc: RepoLocation) -> prescan.Prescan:
    early = prescan.start(str(loc.worktree), str(loc.git_dir))
    assert early is not None
    return early


@pytest.fixture
def busy_repo(git_repo: Path, git) -> Path:
    """A worktree with every kind of path a snapshot reads: modified, staged, deleted,
    untracked (with a space and a newline in names), a hand-made ignored file, regenerable
    output, a symlink and an executable, and a .gitattributes that makes scan hash from disk."""
    (git_repo / ".gitignore").write_text(".env\n__pycache__/\n")
    (git_repo / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    (git_repo / "tool.sh").chmod(0o755)
    (git_repo / "gone.txt").write_text("to be deleted\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "more")
    (git_repo / "README.md").write_text("# changed\n")
    (git_repo / "src" / "app.py").write_text("print('staged')\n")
    git(git_repo, "add", "src/app.py")
    (git_repo / "gone.txt").unlink()
    (git_repo / "notes with space.txt").write_text("untracked\n")
    (git_repo / "odd\nname.txt").write_text("newline in the name\n")
    (git_repo / ".env").write_text("SECRET=1\n")
    (git_repo / "__pycache__").mkdir()
    (git_repo / "__pycache__" / "app.pyc").write_bytes(b"\0compiled")
    (git_repo / "link").symlink_to("README.md")
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / ".gitattributes").write_text("*.txt text eol=crlf\n")
    return git_repo


def test_a_prescanned_cold_snapshot_records_the_same_tree_and_ref_as_an_ordinary_one(
    busy_repo: Path, git
) -> None:
    loc = _loc(busy_repo)
    ordinary = take_snapshot(loc, message="ordinary")
    early = _start(loc)
    try:
        fed = take_snapshot(loc, message="fed", prescan=early)
    finally:
        early.close()
    assert fed.tree == ordinary.tree
    assert snapshot_tree_files(loc, fed) == snapshot_tree_files(loc, ordinary)
    assert fed.skipped == ordinary.skipped
    assert fed.ref == f"refs/interlock/main/snapshots/manual/{fed.oid}"
    assert git(busy_repo, "rev-parse", fed.ref).stdout.strip() == fed.oid
    parent = git(busy_repo, "rev-parse", f"{fed.oid}^").stdout.strip()
    assert parent == git(busy_repo, "rev-parse", "HEAD").stdout.strip()


def test_the_prescan_holds_the_snapshot_lock_until_the_snapshot_releases_it(
    git_repo: Path,
) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)  # creates the state directory the prescan needs
    early = _start(loc)
    try:
        assert LockHolder.acquire(_lock_path(loc), blocking=False) is None
        take_snapshot(loc, prescan=early)
    finally:
        early.close()
    again = LockHolder.acquire(_lock_path(loc), blocking=False)
    assert again is not None
    again.release()


def test_a_prescan_closed_unused_ends_its_git_and_frees_the_lock(git_repo: Path) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)
    early = _start(loc)
    pids = [job.pid for job in early.jobs.values()]
    early.close()
    for pid in pids:
        assert pid is not None
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left behind
    holder = LockHolder.acquire(_lock_path(loc), blocking=False)
    assert holder is not None
    holder.release()


def test_the_prescan_declines_when_a_holder_died_midway_so_its_leftovers_are_cleared_first(
    git_repo: Path,
) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)
    _lock_path(loc).write_text(json.dumps({"pid": 999999999, "op": "a restore", "dirs": []}))
    assert prescan.start(str(loc.worktree), str(loc.git_dir)) is None
    holder = LockHolder.acquire(_lock_path(loc), blocking=False)
    assert holder is not None, "declining must not keep the lock"
    holder.release()


def test_the_prescan_declines_before_the_first_snapshot_made_the_state_directory(
    git_repo: Path,
) -> None:
    loc = _loc(git_repo)
    assert not loc.state_dir.exists()
    assert prescan.start(str(loc.worktree), str(loc.git_dir)) is None


def test_a_prescan_for_another_worktree_is_refused_and_takes_nothing(
    git_repo: Path, tmp_path: Path, git
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    take_snapshot(_loc(other))
    early = _start(_loc(other))
    try:
        with pytest.raises(ValueError, match="worktree it was started for"):
            take_snapshot(_loc(git_repo), prescan=early)
    finally:
        early.close()
    assert git(git_repo, "for-each-ref", "refs/interlock/").stdout == ""


def test_a_failing_git_status_fails_the_prescanned_snapshot_as_the_ordinary_one(
    git_repo: Path, git
) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)
    (loc.git_dir / "index").write_bytes(b"not an index at all")
    with pytest.raises(GitError) as ordinary:
        take_snapshot(loc)
    early = _start(loc)
    try:
        with pytest.raises(GitError) as fed:
            take_snapshot(loc, prescan=early)
    finally:
        early.close()
    assert str(fed.value) == str(ordinary.value)
    assert len(git(git_repo, "for-each-ref", "refs/interlock/").stdout.splitlines()) == 1


def test_the_prescan_strips_the_variables_git_sets_for_hooks_as_interlock_git_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert prescan.GIT_HOOK_ENV == frozenset(gitmod._GIT_HOOK_ENV)
    monkeypatch.setenv("GIT_INDEX_FILE", "/elsewhere/index")
    monkeypatch.delenv("GIT_TERMINAL_PROMPT", raising=False)
    assert prescan.git_env() == gitmod.no_git_env()


def test_the_prescan_module_loads_nothing_heavy_before_git_starts() -> None:
    code = (
        "import sys\n"
        "from interlock.memory import prescan\n"
        "heavy = {'pygit2', 'click', 'pathlib', 'dataclasses', 'typing', 'subprocess', 'json'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {root!r})\n" + code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.strip() == "[]"


def test_cold_snapshot_process_and_warm_daemon_snapshot_of_one_tree_are_the_same(
    busy_repo: Path, interlock, daemons, git
) -> None:
    take_snapshot(_loc(busy_repo))  # the state directory exists: the process prescans
    cold = interlock(busy_repo, "snapshot", "--json", env={"INTERLOCK_NO_DAEMON": "1"})
    assert cold.returncode == 0, cold.stderr
    daemons.start(busy_repo)
    warm = interlock(busy_repo, "snapshot", "--json")
    assert warm.returncode == 0, warm.stderr
    cold_info, warm_info = json.loads(cold.stdout), json.loads(warm.stdout)
    assert warm_info["id"] != cold_info["id"]
    assert warm_info["tree"] == cold_info["tree"]
    assert warm_info["skipped"] == cold_info["skipped"]
    assert {k for k in cold_info if k not in ("ms",)} == {k for k in warm_info if k not in ("ms",)}
    refs = git(busy_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout
    assert f"refs/interlock/main/snapshots/manual/{cold_info['oid']}" in refs.split()


def test_cold_snapshot_process_prints_what_the_cli_prints_and_refuses_an_unknown_kind(
    busy_repo: Path, interlock
) -> None:
    env = {"INTERLOCK_NO_DAEMON": "1"}
    take_snapshot(_loc(busy_repo))  # the state directory exists: the process prescans
    took = interlock(busy_repo, "snapshot", "-m", "before refactor", env=env)
    assert took.returncode == 0, took.stderr
    assert took.stdout.startswith("interlock: snapshot ")
    assert "(manual): 8 files differ from HEAD" in took.stdout
    bad = interlock(busy_repo, "snapshot", "--kind", "bogus", env=env)
    assert bad.returncode == 2
    assert "invalid value for '--kind'" in bad.stderr
    outside = interlock(busy_repo.parent, "snapshot", env=env)
    assert outside.returncode == 1
    assert outside.stderr.startswith("interlock: error: not inside a git worktree")


def test_the_launcher_takes_a_cold_snapshot_without_loading_click(busy_repo: Path) -> None:
    take_snapshot(_loc(busy_repo))
    code = (
        "import sys\n"
        "from interlock.__main__ import main\n"
        "code = main(['snapshot', '--json'])\n"
        "sys.stderr.write(f'exit={code} click={\"click\" in sys.modules}\\n')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=busy_repo,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
        check=True,
    )
    assert proc.stderr.strip().endswith("exit=0 click=False")
    assert json.loads(proc.stdout)["how"] == "cold"


def _attributes_via_prescan(loc: RepoLocation) -> tuple[bytes, bool]:
    """(the tracked .gitattributes listing a prescan gives, whether it ran git for it)."""
    early = _start(loc)
    try:
        ran = "attributes" in early.jobs
        return early.output("attributes"), ran
    finally:
        early.close()


def test_the_tracked_attributes_listing_is_reused_while_the_index_is_unchanged(
    git_repo: Path, git
) -> None:
    loc = _loc(git_repo)
    (git_repo / "sub").mkdir()
    (git_repo / "sub" / ".gitattributes").write_text("*.txt text\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "attributes")
    take_snapshot(loc)
    first, ran_first = _attributes_via_prescan(loc)
    again, ran_again = _attributes_via_prescan(loc)
    assert ran_first and not ran_again
    assert first == again == b"sub/.gitattributes\0"
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / ".gitattributes").write_text("*.md eol=crlf\n")
    git(git_repo, "add", "docs/.gitattributes")  # a new index: listed again by git
    changed, ran_changed = _attributes_via_prescan(loc)
    assert ran_changed
    assert changed == b"docs/.gitattributes\0sub/.gitattributes\0"
    git(git_repo, "rm", "-q", "--cached", "sub/.gitattributes")
    assert _attributes_via_prescan(loc) == (b"docs/.gitattributes\0", True)


def test_a_cached_listing_for_another_index_or_a_damaged_one_is_not_used(
    git_repo: Path, git
) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)
    _attributes_via_prescan(loc)  # writes the cache
    cache = loc.state_dir / prescan.ATTRIBUTES_CACHE
    key, _, listing = cache.read_bytes().partition(b"\n")
    assert key == prescan.index_key(str(loc.git_dir)) and listing == b""
    cache.write_bytes(b"0" * 40 + key[40:] + b"\nfake/.gitattributes\0")
    assert _attributes_via_prescan(loc) == (b"", True)
    cache.write_bytes(key + b"\nfake/.gitattr")  # cut short
    assert _attributes_via_prescan(loc) == (b"", True)
    assert cache.read_bytes() == key + b"\n"


def test_a_snapshot_that_reused_the_listing_still_sees_a_filter_rule(git_repo: Path, git) -> None:
    loc = _loc(git_repo)
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / ".gitattributes").write_text("*.txt text eol=crlf\n")
    (git_repo / "docs" / "page.txt").write_text("page\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "attributes")
    take_snapshot(loc)
    _attributes_via_prescan(loc)
    (git_repo / "docs" / "page.txt").write_bytes(b"page\r\n")  # status may call it clean
    early = _start(loc)
    try:
        assert "attributes" not in early.jobs
        fed = take_snapshot(loc, prescan=early)
    finally:
        early.close()
    assert fed.tree == take_snapshot(loc).tree
    assert (
        snapshot_tree_files(loc, fed)[b"docs/page.txt"][1]
        == git(git_repo, "hash-object", "--no-filters", "docs/page.txt").stdout.strip()
    )


def test_the_listing_cache_is_never_written_through_a_file_planted_at_its_temp_name(
    git_repo: Path, tmp_path: Path
) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    key = prescan.index_key(str(loc.git_dir))
    assert key is not None
    cache = loc.state_dir / prescan.ATTRIBUTES_CACHE
    planted = Path(f"{cache}.{os.getpid()}.tmp")
    planted.symlink_to(victim)
    prescan._remember_attributes(str(loc.git_dir), key, b"")
    assert victim.read_text() == "precious\n"
    assert planted.is_symlink() and not cache.exists()


def test_the_launchers_cold_snapshot_prints_all_and_skips_pythons_shutdown(busy_repo: Path) -> None:
    # What the installed launcher runs, with an exit handler that Python's shutdown would run:
    # the snapshot answered inline ends the process at once (posix._exit), its output written.
    root = str(Path(__file__).resolve().parents[2])
    code = (
        f"import sys, atexit; sys.path.append({root!r})\n"
        "atexit.register(lambda: sys.stderr.write('shut down\\n'))\n"
        "from interlock.launch import main\n"
        "sys.exit(main())\n"
    )
    take_snapshot(_loc(busy_repo))  # the state directory exists: the process prescans
    env = {**os.environ, "INTERLOCK_NO_DAEMON": "1"}

    def launched(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-I", "-S", "-c", code, *args]
        return subprocess.run(argv, cwd=busy_repo, env=env, capture_output=True, text=True)

    took = launched("snapshot", "--json")
    assert took.returncode == 0, took.stderr
    assert json.loads(took.stdout)["kind"] == "manual"
    assert took.stderr == ""
    # anything the full CLI answers still ends the ordinary way
    bad = launched("snapshot", "--kind", "bogus")
    assert bad.returncode == 2
    assert bad.stderr.endswith("shut down\n")
