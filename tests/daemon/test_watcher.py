"""The watcher: real inotify over real repositories, changed by real shell commands."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from interlock.daemon import watcher as watcher_module
from interlock.daemon.dirtyset import DirtySet
from interlock.daemon.watcher import TreeWatcher, watch_count


class Seen:
    def __init__(self) -> None:
        self.paths: list[tuple[bytes, str, bool]] = []

    def on_path(self, rel: bytes, kind: str, is_dir: bool) -> None:
        self.paths.append((rel, kind, is_dir))


@pytest.fixture
def watched(git_repo: Path) -> Iterator[tuple[TreeWatcher, Seen]]:
    seen = Seen()
    state = git_repo / ".git" / "interlock"
    state.mkdir()
    watcher = TreeWatcher(git_repo, state, seen.on_path)
    watcher.start()
    try:
        yield watcher, seen
    finally:
        watcher.stop()


def settled(watcher: TreeWatcher) -> frozenset[bytes]:
    assert watcher.barrier()
    drained = watcher.dirty.drain()
    assert drained.unknown is None
    return drained.paths


def test_dirty_set_is_unknown_until_the_first_drain(watched):
    watcher, _ = watched
    first = watcher.dirty.drain()
    assert first.unknown == "the daemon has not taken a snapshot yet"
    assert watcher.dirty.drain().unknown is None


def test_shell_changes_reach_the_dirty_set_before_the_barrier_returns(watched, git_repo, shell):
    watcher, _ = watched
    watcher.dirty.drain()
    shell(
        git_repo,
        "echo more >> README.md; sed -i s/hello/bye/ src/app.py; mkdir -p new/deep;"
        " echo x > new/deep/f.txt; chmod +x README.md; mv src/app.py src/main.py",
    )
    paths = settled(watcher)
    assert {b"README.md", b"src/app.py", b"src/main.py", b"new", b"new/deep/f.txt"} <= paths


def test_deleted_directory_is_reported_for_a_rescan(watched, git_repo, shell):
    watcher, _ = watched
    watcher.dirty.drain()
    shell(git_repo, "mkdir -p gone/sub && echo a > gone/sub/a.txt")
    settled(watcher)
    shell(git_repo, "rm -rf gone")
    assert {b"gone", b"gone/sub", b"gone/sub/a.txt"} <= settled(watcher)


def test_changes_made_after_a_drain_stay_dirty_for_the_next_one(watched, git_repo, shell):
    watcher, _ = watched
    watcher.dirty.drain()
    shell(git_repo, "echo one > one.txt")
    assert b"one.txt" in settled(watcher)
    shell(git_repo, "echo two > two.txt")
    assert settled(watcher) == {b"two.txt"}


def test_git_dir_changes_are_not_watched(watched, git_repo, git):
    watcher, seen = watched
    watcher.dirty.drain()
    git(git_repo, "commit", "--allow-empty", "-q", "-m", "empty")
    assert settled(watcher) == frozenset()
    assert seen.paths == []


def test_paths_inside_a_nested_git_dir_are_ignored(watched, git_repo, shell):
    watcher, seen = watched
    watcher.dirty.drain()
    shell(git_repo, "git init -q nested && echo x > nested/file.txt")
    paths = settled(watcher)
    assert b"nested/file.txt" in paths
    assert not any(b"/.git" in p for p in paths)


def test_a_failed_snapshot_puts_the_drained_paths_back():
    dirty = DirtySet()
    dirty.set_ready(True)
    dirty.drain()
    dirty.add(b"a.txt")
    taken = dirty.drain()
    dirty.add(b"b.txt")
    dirty.put_back(taken)
    assert dirty.drain().paths == {b"a.txt", b"b.txt"}


def test_a_queue_overflow_makes_the_dirty_set_unknown(watched):
    watcher, _ = watched
    watcher.dirty.drain()
    logging.getLogger("watchdog.observers.inotify_c").warning(
        "Inotify queue overflowed; filesystem events were lost"
    )
    assert watcher.dirty.drain().unknown is not None
    assert watcher.dirty.drain().unknown is None


def test_a_restarted_watcher_makes_the_dirty_set_unknown(watched):
    watcher, _ = watched
    watcher.dirty.drain()
    watcher.restart("test restart")
    assert watcher.is_healthy()
    assert watcher.dirty.drain().unknown == "test restart"


def test_a_stopped_watcher_leaves_the_set_unknown_after_a_drain(git_repo):
    watcher = TreeWatcher(git_repo, git_repo / ".git" / "interlock", lambda *a: None)
    watcher.start()
    watcher.stop()
    assert not watcher.barrier()
    watcher.dirty.drain()
    assert watcher.dirty.drain().unknown == "the watcher is not running"


def test_the_barrier_works_for_a_linked_worktree_whose_state_dir_is_elsewhere(
    git_repo, tmp_path, git, shell
):
    worktree = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", str(worktree))
    seen = Seen()
    watcher = TreeWatcher(
        worktree, git_repo / ".git" / "worktrees" / "linked" / "interlock", seen.on_path
    )
    watcher.start()
    try:
        watcher.dirty.drain()
        shell(worktree, "echo x >> README.md")
        assert settled(watcher) == {b"README.md"}
    finally:
        watcher.stop()


def test_without_the_pruned_watch_every_snapshot_is_cold(git_repo, monkeypatch):
    monkeypatch.setattr(watcher_module, "_WatchGroup", None)
    watcher = TreeWatcher(git_repo, git_repo / ".git" / "interlock", lambda *a: None)
    watcher.start()
    try:
        assert not watcher.barrier()
        assert "watchdog" in (watcher.degraded or "")
        watcher.dirty.drain()
        assert watcher.dirty.drain().unknown is not None
    finally:
        watcher.stop()


def test_every_worktree_directory_is_watched_and_no_git_directory(watched, git_repo):
    watcher, _ = watched
    directories = {p for p in git_repo.rglob("*") if p.is_dir() and ".git" not in p.parts}
    assert watch_count() == len(directories) + 2  # the root and the barrier directory


def test_churn_in_build_output_is_named_by_its_directory_once(watched, git_repo, shell):
    watcher, _ = watched
    watcher.dirty.drain()
    shell(
        git_repo,
        "mkdir -p node_modules/pkg/lib && for i in 1 2 3; do echo $i > node_modules/pkg/lib/$i.js; done",
    )
    assert settled(watcher) == {b"node_modules"}
