"""The flight recorder in-process: real watcher, real files, real object store."""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from interlock import constants
from interlock import git as gitmod
from interlock.config import load_config
from interlock.daemon.watcher import TreeWatcher
from interlock.git import discover
from interlock.memory.catalog import info_from_commit
from interlock.memory.rechistory import Policy, prune
from interlock.memory.recorder import (
    Recorder,
    is_recorded,
    open_db,
    recorded_versions,
    recorder_ref,
)


class Running:
    def __init__(self, repo: Path, poll: Callable[..., object]) -> None:
        self.poll = poll
        loc = discover(repo)
        assert loc is not None
        self.loc = loc
        self.recorder = Recorder(loc)
        loc.state_dir.mkdir(exist_ok=True)
        self.watcher = TreeWatcher(loc.worktree, loc.state_dir, self.recorder.note)

    def start(self) -> Running:
        self.watcher.start()
        self.recorder.start()
        assert self.recorder.ready.wait(10)
        return self

    def stop(self) -> None:
        self.watcher.stop()
        self.recorder.stop()

    def versions(self, rel: str) -> list:
        return recorded_versions(self.loc, os.fsencode(rel))

    def blob(self, oid: str) -> bytes:
        return gitmod.read_blob(gitmod.open_repo(self.loc), oid)

    def wait_for(self, rel: str, content: bytes | None) -> None:
        """Until the newest version of rel holds content (None: a deletion)."""

        def done() -> bool:
            found = self.versions(rel)
            if not found:
                return False
            if content is None:
                return found[0].oid is None
            return found[0].oid is not None and self.blob(found[0].oid) == content

        self.poll(done, what=f"the recorder to record {rel}")


@pytest.fixture
def running(git_repo: Path, poll: Callable[..., object]) -> Iterator[Running]:
    handle = Running(git_repo, poll).start()
    try:
        yield handle
    finally:
        handle.stop()


def test_every_version_of_an_edited_file_is_recorded(running, git_repo, shell):
    shell(git_repo, "echo v1 > notes.txt")
    running.wait_for("notes.txt", b"v1\n")
    shell(git_repo, "echo v2 >> notes.txt")
    running.wait_for("notes.txt", b"v1\nv2\n")
    events = [v.event for v in running.versions("notes.txt")]
    assert events == ["modified", "created"]


def test_a_deletion_is_recorded_and_the_content_stays_findable(running, git_repo, shell):
    shell(git_repo, "echo 'precious' > src/app.py")
    running.wait_for("src/app.py", b"precious\n")
    shell(git_repo, "rm src/app.py")
    running.wait_for("src/app.py", None)
    kept = [v for v in running.versions("src/app.py") if v.oid]
    assert running.blob(kept[0].oid) == b"precious\n"
    conn, _ = open_db(running.loc)
    try:  # a gone file has no stat to compare: the next rescan is not fooled by an old one
        seen = {bytes(r[0]) for r in conn.execute("SELECT path FROM seen")}
    finally:
        conn.close()
    assert b"src/app.py" not in seen


def test_files_inside_a_removed_directory_are_recorded_as_deleted(running, git_repo, shell):
    shell(git_repo, "mkdir -p d/e && echo x > d/e/f.txt")
    running.wait_for("d/e/f.txt", b"x\n")
    shell(git_repo, "mv d /tmp/interlock-test-moved-$$ && rm -rf /tmp/interlock-test-moved-$$")
    running.wait_for("d/e/f.txt", None)
    deleted, earlier = running.versions("d/e/f.txt")[:2]
    assert deleted.oid is None and running.blob(earlier.oid) == b"x\n"  # the content stays


def test_symlinks_are_recorded_as_their_target(running, git_repo, shell):
    shell(git_repo, "ln -s src/app.py link")
    running.wait_for("link", b"src/app.py")
    assert running.versions("link")[0].mode == gitmod.LINK_MODE


def test_ignored_and_regenerable_untracked_files_are_not_recorded(running, git_repo, shell):
    shell(
        git_repo,
        "echo '*.log' > .gitignore; echo x > debug.log; mkdir -p node_modules/p;"
        " echo y > node_modules/p/i.js; echo z > marker.txt",
    )
    running.wait_for("marker.txt", b"z\n")
    running.wait_for(".gitignore", b"*.log\n")
    assert running.versions("debug.log") == []
    assert running.versions("node_modules/p/i.js") == []


def test_a_tracked_file_matching_an_ignore_rule_is_still_recorded(running, git_repo, shell):
    shell(git_repo, "echo '*.py' > .gitignore; echo changed >> src/app.py")
    running.wait_for("src/app.py", b"print('hello')\nchanged\n")
    assert running.versions("src/app.py")[0].oid is not None


def test_files_over_the_configured_size_cap_are_not_recorded_and_say_so(git_repo, shell, poll):
    (git_repo / ".interlock.toml").write_text('recorder_max_file_size = "1 KiB"\n')
    handle = Running(git_repo, poll).start()
    try:
        (git_repo / "big.bin").write_bytes(b"x" * 1025)
        shell(git_repo, "echo small > small.txt")
        handle.wait_for("small.txt", b"small\n")
        assert handle.versions("big.bin") == []
        assert handle.recorder.stats.too_large == {b"big.bin"}
        assert not is_recorded(handle.loc, b"big.bin")
        assert is_recorded(handle.loc, b"small.txt")
    finally:
        handle.stop()


def test_a_file_larger_than_the_old_2_mib_cap_is_recorded_and_packed(running, git_repo, git):
    big = os.urandom(3 << 20)
    (git_repo / "big.bin").write_bytes(big)
    running.wait_for("big.bin", big)
    assert is_recorded(running.loc, b"big.bin")
    oid = running.versions("big.bin")[0].oid
    loose = git_repo / ".git" / "objects" / oid[:2] / oid[2:]
    assert not loose.exists()  # in a pack, as snapshots write it


def test_a_file_larger_than_the_streaming_size_is_recorded(running, git_repo):
    big = os.urandom(9 << 20)
    (git_repo / "huge.bin").write_bytes(big)
    running.wait_for("huge.bin", big)
    assert is_recorded(running.loc, b"huge.bin")


def test_stop_commits_the_blobs_under_a_recorder_ref_and_fsck_is_clean(git_repo, git, shell, poll):
    handle = Running(git_repo, poll).start()
    shell(git_repo, "echo keep > keep.txt")
    handle.wait_for("keep.txt", b"keep\n")
    handle.stop()
    ref = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout.split()
    assert ref and ref[0].startswith("refs/interlock/main/recorder/")
    oid = handle.versions("keep.txt")[0].oid
    listing = git(git_repo, "ls-tree", ref[0]).stdout
    assert oid in listing
    message = git(git_repo, "log", "-1", "--format=%B", ref[0]).stdout
    tree = git(git_repo, "rev-parse", ref[0] + "^{tree}").stdout.strip()
    info = info_from_commit(ref[0], "0" * 40, tree, message)
    assert info.kind == "recorder" and info.time > 0
    assert git(git_repo, "fsck", "--no-progress").returncode == 0
    git(git_repo, "gc", "-q", "--prune=now")
    assert git(git_repo, "cat-file", "-e", oid).returncode == 0


def test_rows_left_unanchored_by_a_crash_are_anchored_by_the_next_recorder(git_repo, git, poll):
    loc = discover(git_repo)
    oid = gitmod.write_blob(gitmod.open_repo(loc), b"left behind\n")
    conn, _ = open_db(loc)
    conn.execute(
        "INSERT INTO versions(path, time, event, oid, mode, size) VALUES (?, 1, 'modified', ?, ?, 12)",
        (b"lost.txt", oid, gitmod.FILE_MODE),
    )
    conn.close()
    handle = Running(git_repo, poll).start()
    handle.stop()
    ref = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout.split()[0]
    assert oid in git(git_repo, "ls-tree", ref).stdout


def test_the_baseline_records_files_that_were_dirty_before_the_start(git_repo, shell, poll):
    shell(git_repo, "echo before >> README.md; echo new > untracked.txt")
    handle = Running(git_repo, poll).start()
    try:
        handle.wait_for("untracked.txt", b"new\n")
        handle.wait_for("README.md", b"# demo\nbefore\n")
        assert handle.versions("README.md")[0].event == "baseline"
    finally:
        handle.stop()


def test_a_corrupt_index_is_moved_aside_with_a_warning(git_repo):
    loc = discover(git_repo)
    loc.state_dir.mkdir()
    (loc.state_dir / constants.RECORDER_FILE).write_bytes(b"this is not sqlite" * 100)
    conn, warning = open_db(loc)
    conn.close()
    assert warning and "kept as" in warning
    assert any(p.name.startswith("recorder.db.corrupt-") for p in loc.state_dir.iterdir())
    with sqlite3.connect(loc.state_dir / constants.RECORDER_FILE) as fresh:
        assert fresh.execute("SELECT COUNT(*) FROM versions").fetchone() == (0,)


def test_recorder_refs_are_named_by_worktree_and_hour(git_repo):
    loc = discover(git_repo)
    assert recorder_ref(loc, 0) == "refs/interlock/main/recorder/19700101T00"


def _loose_objects(repo: Path) -> list[Path]:
    objects = repo / ".git" / "objects"
    return [p for d in objects.glob("[0-9a-f][0-9a-f]") for p in d.iterdir()]


def test_versions_and_their_anchor_go_into_packs_not_loose_objects(git_repo, poll, shell):
    before = set(_loose_objects(git_repo))
    handle = Running(git_repo, poll).start()
    for i in range(30):
        (git_repo / f"n{i}.txt").write_text(f"version {i}\n")
    handle.wait_for("n29.txt", b"version 29\n")
    handle.stop()
    assert set(_loose_objects(git_repo)) == before
    assert any((git_repo / ".git" / "objects" / "pack").glob("*.pack"))


def test_a_restarted_watcher_makes_the_recorder_rescan_what_it_missed(git_repo, poll, shell):
    handle = Running(git_repo, poll)
    handle.watcher = TreeWatcher(
        handle.loc.worktree, handle.loc.state_dir, handle.recorder.note, handle.recorder.rescan
    )
    handle.start()
    try:
        handle.watcher.stop()  # the watcher died: these changes raise no event
        shell(git_repo, "echo unseen > unseen.txt; echo edited >> src/app.py")
        handle.watcher.restart("test: the watcher was restarted")
        handle.wait_for("unseen.txt", b"unseen\n")
        handle.wait_for("src/app.py", b"print('hello')\nedited\n")
        assert "restarted" in handle.recorder.stats.last_rescan["reason"]
    finally:
        handle.stop()


def test_changes_made_while_no_recorder_ran_are_recorded_at_the_next_start(git_repo, poll, shell):
    handle = Running(git_repo, poll).start()
    shell(git_repo, "echo one > a.txt; echo mine >> README.md")
    handle.wait_for("a.txt", b"one\n")
    handle.wait_for("README.md", b"# demo\nmine\n")
    handle.stop()
    # While nothing records: a.txt changes, and README.md goes back to HEAD's content, which
    # `git status` no longer lists: only the recorder's own index knows to look at it.
    shell(git_repo, "echo two > a.txt; git checkout -q -- README.md")
    again = Running(git_repo, poll).start()
    try:
        again.wait_for("a.txt", b"two\n")
        again.wait_for("README.md", b"# demo\n")
        assert again.recorder.stats.last_rescan["reread"] >= 2
    finally:
        again.stop()


def test_a_rescan_rereads_only_what_moved_since_it_was_read(git_repo, poll, shell):
    for i in range(50):
        (git_repo / f"s{i}.txt").write_text(f"{i}\n")
    handle = Running(git_repo, poll).start()
    try:
        handle.wait_for("s49.txt", b"49\n")
        # Read within the same instant they were written, their stat proved nothing ("racy"):
        # a rescan a moment later reads them once more, and from then on stat suffices.
        time.sleep(0.2)
        handle.recorder.rescan("settle")
        poll(lambda: (handle.recorder.stats.last_rescan or {}).get("reason") == "settle")
        os.utime(git_repo / "s1.txt", ns=(1, 1))  # only this one's stat moves
        handle.recorder.rescan("test")
        poll(lambda: (handle.recorder.stats.last_rescan or {}).get("reason") == "test")
        rescan = handle.recorder.stats.last_rescan
        assert rescan["reread"] == 1
        assert rescan["checked"] == 50  # each path once, whether listed, recorded or seen
        assert 0 < rescan["ms"] < 60_000 and rescan["time"] <= time.time()
        (git_repo / "s2.txt").unlink()
        handle.wait_for("s2.txt", None)
        time.sleep(0.2)  # s1.txt, read in the instant it changed, is read once more
        handle.recorder.rescan("settle again")
        poll(lambda: (handle.recorder.stats.last_rescan or {}).get("reason") == "settle again")
        handle.recorder.rescan("after")
        poll(lambda: (handle.recorder.stats.last_rescan or {}).get("reason") == "after")
        after = handle.recorder.stats.last_rescan
        assert (after["checked"], after["reread"]) == (49, 0)  # a deleted path is done with
    finally:
        handle.stop()


def _record_three_versions(git_repo: Path, poll) -> Running:
    handle = Running(git_repo, poll).start()
    for text in (b"one\n", b"two\n", b"three\n"):
        (git_repo / "notes.txt").write_bytes(text)
        handle.wait_for("notes.txt", text)
    handle.stop()
    return handle


def _age_by_a_month(git_repo: Path, git, loc) -> None:
    """As if everything had been recorded a month ago, in the hour 2000-01-01T00."""
    (ref,) = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout.split()
    old = ref.rsplit("/", 1)[0] + "/20000101T00"
    git(git_repo, "update-ref", old, ref)
    git(git_repo, "update-ref", "-d", ref)
    conn, _ = open_db(loc)
    conn.execute("UPDATE versions SET time = time - 30 * 86400, anchored = 2000010100")
    conn.close()


def _prune(loc, policy: Policy):
    conn, _ = open_db(loc)
    try:
        conn.execute("BEGIN")
        done = prune(gitmod.open_repo(loc), loc, conn, policy)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return done


def test_prune_drops_old_versions_but_keeps_the_newest_one_alive(git_repo, git, poll):
    handle = _record_three_versions(git_repo, poll)
    blobs = {handle.blob(v.oid): v.oid for v in handle.versions("notes.txt")}
    _age_by_a_month(git_repo, git, handle.loc)

    done = _prune(handle.loc, Policy(keep_days=7, max_bytes=1 << 30))

    assert done.versions == 2 and done.refs >= 1
    assert [handle.blob(v.oid) for v in handle.versions("notes.txt")] == [b"three\n"]
    git(git_repo, "-c", "gc.reflogExpire=now", "gc", "-q", "--prune=now")
    assert git(git_repo, "cat-file", "-e", blobs[b"three\n"], check=False).returncode == 0
    assert git(git_repo, "cat-file", "-e", blobs[b"one\n"], check=False).returncode != 0
    assert git(git_repo, "fsck", "--no-progress").returncode == 0


def test_prune_keeps_history_within_the_size_budget_newest_first(git_repo, poll):
    handle = _record_three_versions(git_repo, poll)
    done = _prune(handle.loc, Policy(keep_days=365, max_bytes=len(b"three\ntwo\n")))
    assert done.versions == 1
    assert [handle.blob(v.oid) for v in handle.versions("notes.txt")] == [b"three\n", b"two\n"]


def test_the_baseline_records_dirty_files_of_every_status_and_name(git_repo, git, shell, poll):
    """What `git status` lists before the start, read from its porcelain: a merge conflict, a
    staged rename edited since (one entry unless renames are off), names with spaces."""
    shell(
        git_repo,
        "printf 'base\\n' > 'both edit.txt'; printf 'x\\n' > 'old name.txt';"
        " printf 'y\\n' > 'mod me.txt'; git add -A; git commit -qm base;"
        " git checkout -qb other; printf 'theirs\\n' > 'both edit.txt'; git commit -qam theirs;"
        " git checkout -q main; printf 'ours\\n' > 'both edit.txt'; git commit -qam ours;"
        " git merge -q other >/dev/null 2>&1 || true;"
        " git mv 'old name.txt' 'new name.txt'; printf 'moved\\n' >> 'new name.txt';"
        " printf 'edited\\n' >> 'mod me.txt'; printf 'new\\n' > 'new file.txt'",
    )
    status = git(git_repo, "status", "--porcelain=v2").stdout
    assert "\nu UU " in "\n" + status and "\n2 R" in "\n" + status  # as the porcelain shows them
    handle = Running(git_repo, poll)
    handle.recorder.start()
    try:
        assert handle.recorder.ready.wait(10)
        for rel in ("both edit.txt", "new name.txt", "mod me.txt", "new file.txt"):
            handle.wait_for(rel, (git_repo / rel).read_bytes())
            assert handle.versions(rel)[0].event == "baseline"
        assert handle.recorder.stats.last_rescan["recorded"] == 4
    finally:
        handle.recorder.stop()


def test_stop_records_what_is_still_waiting_for_its_quiet_time(git_repo, poll):
    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc, debounce=30.0)
    recorder.start()
    assert recorder.ready.wait(10)
    (git_repo / "late.txt").write_text("written just before the stop\n")
    recorder.note(b"late.txt", "modified", False)
    assert not recorder.is_idle()  # a path waits: not caught up
    recorder.stop()
    [version] = recorded_versions(loc, b"late.txt")
    assert version.event == "created"
    repo = gitmod.open_repo(loc)
    assert gitmod.read_blob(repo, version.oid) == b"written just before the stop\n"
    assert recorder.stats.versions == 1 and recorder.stats.commits == 1


def test_a_rescan_records_what_it_finds_as_created_or_modified_and_counts_it(git_repo, poll):
    (git_repo / "README.md").write_text("dirty before the start\n")
    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc)  # no watcher: only rescans see changes
    recorder.start()
    try:
        assert recorder.ready.wait(10)
        stats = recorder.stats
        assert (stats.versions, stats.rescans, stats.commits) == (1, 1, 0)
        config = load_config(loc.worktree)  # what status shows of the limits in force
        assert stats.max_file_size == config.recorder_max_file_size > 0
        assert (
            stats.policy == Policy(config.recorder_keep_days, config.recorder_max_bytes).describe()
        )
        assert stats.policy
        assert stats.last_rescan["reason"] == "the daemon started"
        assert stats.last_rescan["recorded"] == 1 and stats.last_rescan["reread"] >= 1
        time.sleep(0.01)
        (git_repo / "README.md").write_text("edited while no event came\n")
        (git_repo / "new.txt").write_text("new\n")
        recorder.rescan("test")
        poll(lambda: (stats.last_rescan or {}).get("reason") == "test", timeout=30)
        assert (stats.versions, stats.rescans) == (3, 2)
        assert stats.last_rescan["recorded"] == 2
        assert stats.last_version is not None and stats.last_version <= time.time()
        newest = max(recorded_versions(loc, p)[0].time for p in (b"README.md", b"new.txt"))
        assert stats.last_version == newest  # the batch's last row, not its first
        events = {
            rel: [v.event for v in recorded_versions(loc, rel.encode())]
            for rel in ("README.md", "new.txt")
        }
        assert events == {"README.md": ["modified", "baseline"], "new.txt": ["created"]}
        poll(recorder.is_idle, what="the recorder to be idle", timeout=30)
        assert stats.pending == 0 and recorder.is_alive()
    finally:
        recorder.stop()
    assert not recorder.is_alive()
    assert stats.commits == 1 and stats.last_commit is not None and stats.warning is None
    conn, _ = open_db(loc)
    try:
        [(started, alive, ended)] = conn.execute("SELECT started, alive, ended FROM sessions")
    finally:
        conn.close()
    assert started <= alive == ended


def test_an_index_from_before_the_seen_table_has_every_recorded_path_read_again(
    git_repo, poll, shell
):
    """Schema 1 kept no stat per path: the first start after the upgrade cannot tell what moved,
    so it reads again every path it ever recorded, even one `git status` no longer lists."""
    handle = Running(git_repo, poll).start()
    shell(git_repo, "echo mine >> README.md; echo gone > gone.txt")
    handle.wait_for("README.md", b"# demo\nmine\n")
    handle.wait_for("gone.txt", b"gone\n")
    handle.stop()
    conn, _ = open_db(handle.loc)
    conn.execute("DELETE FROM seen")  # what schema 1 had: no stats
    conn.close()
    shell(git_repo, "git checkout -q -- README.md; rm gone.txt")
    again = Running(git_repo, poll).start()
    try:
        again.wait_for("README.md", b"# demo\n")
        again.wait_for("gone.txt", None)
        conn, _ = open_db(handle.loc)
        try:
            seen = {bytes(r[0]) for r in conn.execute("SELECT path FROM seen")}
        finally:
            conn.close()
        assert b"README.md" in seen and b"gone.txt" not in seen  # a gone file has no stat
    finally:
        again.stop()


def test_a_rewrite_with_the_same_bytes_adds_no_version(git_repo, poll):
    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc)
    (git_repo / "same.txt").write_text("same\n")
    recorder.start()
    try:
        assert recorder.ready.wait(10)
        (git_repo / "same.txt").write_text("same\n")
        os.utime(git_repo / "same.txt", ns=(10**9, 10**9))
        recorder.rescan("test")
        poll(lambda: (recorder.stats.last_rescan or {}).get("reason") == "test", timeout=30)
        assert recorder.stats.last_rescan["reread"] >= 1
        assert [v.event for v in recorded_versions(loc, b"same.txt")] == ["baseline"]
        poll(lambda: recorder.stats.last_prune is not None, what="the first prune", timeout=30)
        assert recorder.stats.last_prune["versions"] == 0
        assert recorder.stats.commits == 1  # it anchors what it recorded first
        first = recorder.stats.last_prune["time"]
        (git_repo / "other.txt").write_text("other\n")
        recorder.rescan("more")
        poll(lambda: (recorder.stats.last_rescan or {}).get("reason") == "more", timeout=30)
        poll(recorder.is_idle, what="the recorder to be idle", timeout=30)
        time.sleep(0.2)
        assert recorder.stats.last_prune["time"] == first  # the next one is an hour away
        assert recorder.stats.versions == 2
        assert recorder.stats.commits == 1  # other.txt is anchored within a minute, not at once
    finally:
        recorder.stop()


def test_a_recorder_that_has_not_started_reports_nothing_yet(git_repo):
    recorder = Recorder(discover(git_repo))
    assert not recorder.is_alive() and not recorder.is_idle()  # no baseline yet
    recorder.stop()  # nothing to wait for
    stats = recorder.stats
    assert (stats.versions, stats.commits, stats.pending, stats.rescans) == (0, 0, 0, 0)
    assert stats.max_file_size == 0 and stats.too_large == set() and stats.warning is None


def test_blobs_are_anchored_while_the_recorder_runs_and_it_shows_signs_of_life(
    git_repo, poll, monkeypatch
):
    import interlock.memory.recorder as recorder_module

    monkeypatch.setattr(constants, "RECORDER_COMMIT_EVERY", 0.2)
    monkeypatch.setattr(recorder_module, "_HEARTBEAT", 0.2)
    handle = Running(git_repo, poll).start()

    def session() -> tuple[float, float, float | None]:
        conn, _ = open_db(handle.loc)
        try:
            [row] = conn.execute("SELECT started, alive, ended FROM sessions")
        finally:
            conn.close()
        return row

    try:
        (git_repo / "a.txt").write_text("a\n")
        handle.wait_for("a.txt", b"a\n")
        # the first quiet moment prunes, which anchors first: one commit
        poll(
            lambda: handle.recorder.stats.last_prune is not None, what="the first prune", timeout=30
        )
        time.sleep(0.3)
        (git_repo / "b.txt").write_text("b\n")
        handle.wait_for("b.txt", b"b\n")
        poll(lambda: handle.recorder.stats.commits >= 2, what="an anchor while running", timeout=30)
        repo = gitmod.open_repo(handle.loc)
        [b_version] = handle.versions("b.txt")
        listing = gitmod.run_text(["ls-tree", recorder_ref(handle.loc, time.time())], git_repo)
        assert b_version.oid in listing
        poll(lambda: session()[1] > session()[0], what="a sign of life", timeout=30)
        assert session()[2] is None  # still running
        assert gitmod.has_object(repo, b_version.oid)
    finally:
        handle.stop()


def test_anchors_and_signs_of_life_come_once_an_interval_not_after_every_change(
    git_repo, poll, monkeypatch
):
    """A steady stream of edits for 3.2 s with both intervals at 0.8 s: the recorder anchors
    what it recorded and marks itself alive once an interval (a few times in all), not after
    each recorded change, and goes on doing so to the end (its last sign of life is recent)."""
    import interlock.memory.recorder as recorder_module

    interval, length = 0.8, 3.2
    monkeypatch.setattr(constants, "RECORDER_COMMIT_EVERY", interval)
    monkeypatch.setattr(recorder_module, "_HEARTBEAT", interval)
    handle = Running(git_repo, poll).start()
    conn, _ = open_db(handle.loc)
    alive: set[float] = set()
    try:
        start = time.time()
        changes = 0
        while time.time() - start < length:
            changes += 1
            (git_repo / "a.txt").write_text(f"{changes}\n")
            handle.wait_for("a.txt", f"{changes}\n".encode())
            [(last,)] = conn.execute("SELECT alive FROM sessions WHERE ended IS NULL")
            alive.add(last)
        elapsed = time.time() - start
        most = elapsed / interval + 2  # one per interval, the first prune's anchor, rounding
        assert handle.recorder.stats.commits <= most
        assert len(alive) <= most
        assert max(alive) >= start + elapsed - 2 * interval
    finally:
        conn.close()
        handle.stop()


def test_a_corrupt_index_is_set_aside_and_the_recorder_says_so(git_repo, poll, caplog):
    loc = discover(git_repo)
    loc.state_dir.mkdir()
    (loc.state_dir / constants.RECORDER_FILE).write_bytes(b"this is not sqlite" * 100)
    caplog.set_level(logging.WARNING, logger="interlock.memory.recorder")
    handle = Running(git_repo, poll).start()
    try:
        assert "kept as" in (handle.recorder.stats.warning or "")
        assert any("kept as" in r.getMessage() for r in caplog.records)  # in the daemon's log
        (git_repo / "a.txt").write_text("a\n")
        handle.wait_for("a.txt", b"a\n")
        # recording goes on, and the notice stays in status: it is no pause that has ended
        assert "kept as" in (handle.recorder.stats.warning or "")
    finally:
        handle.stop()


def test_a_recorder_that_cannot_open_its_index_stops_and_says_why(git_repo, poll):
    loc = discover(git_repo)
    loc.state_dir.write_text("a file where the state folder goes\n")
    recorder = Recorder(loc)
    recorder.start()
    poll(lambda: not recorder.is_alive(), what="the recorder to stop", timeout=30)
    assert (recorder.stats.warning or "").startswith("recorder stopped: ")
    assert not recorder.ready.is_set()


def test_a_baseline_larger_than_one_pack_batch_gets_one_version_per_file(git_repo, poll):
    """Three 7 MiB files dirty at the start: read in one rescan, written out in two packs (a
    batch is written once it holds 16 MiB), each file indexed once."""
    data = [os.urandom(7 << 20) for _ in range(3)]
    for i, content in enumerate(data):
        (git_repo / f"big{i}.bin").write_bytes(content)
    handle = Running(git_repo, poll)
    handle.recorder.start()
    try:
        assert handle.recorder.ready.wait(30)
        for i, content in enumerate(data):
            [version] = handle.versions(f"big{i}.bin")
            assert handle.blob(version.oid) == content
        assert handle.recorder.stats.versions == 3
    finally:
        handle.recorder.stop()


def _objects_per_pack(repo: Path) -> list[int]:
    """How many objects each pack of the repository holds (its .idx fan-out's last entry)."""
    counts = []
    for idx in (repo / ".git" / "objects" / "pack").glob("*.idx"):
        with idx.open("rb") as handle:
            handle.seek(8 + 255 * 4)
            counts.append(int.from_bytes(handle.read(4), "big"))
    return sorted(counts)


def test_a_batch_is_written_out_once_it_holds_more_than_16_mib(git_repo, poll):
    """20 files of 10^6 random bytes in one rescan: the 17th takes the batch past 16 MiB
    (16 * 2^20 = 16,777,216 bytes) and it is written as one pack; the last 3 make another."""
    for i in range(20):
        (git_repo / f"f{i:02}.bin").write_bytes(os.urandom(1_000_000))
    handle = Running(git_repo, poll)
    handle.recorder.start()
    try:
        assert handle.recorder.ready.wait(60)
        assert _objects_per_pack(git_repo) == [3, 17]  # before any anchor commit
    finally:
        handle.recorder.stop()


def test_a_worktree_git_status_cannot_read_stops_the_recorder_and_says_why(git_repo, poll):
    """The baseline reads `git status`; when git fails there, the recorder does not go on as
    if nothing were dirty: it stops, and its warning says so."""
    (git_repo / ".git" / "index").write_bytes(b"not an index" * 10)
    loc = discover(git_repo)
    assert loc is not None
    recorder = Recorder(loc)
    recorder.start()
    poll(lambda: not recorder.is_alive(), what="the recorder to stop", timeout=30)
    assert (recorder.stats.warning or "").startswith("recorder stopped: ")
    assert not recorder.ready.is_set()


def test_a_failed_transaction_is_rolled_back_and_its_error_goes_on(tmp_path):
    from interlock.memory.recorder import _transaction

    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    conn.execute("CREATE TABLE t (x)")
    with pytest.raises(RuntimeError, match="mid-write"):
        with _transaction(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("mid-write")
    assert not conn.in_transaction
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
    with _transaction(conn):
        conn.execute("INSERT INTO t VALUES (2)")
    assert conn.execute("SELECT x FROM t").fetchall() == [(2,)]
    conn.close()


def test_a_file_closed_after_writing_is_read_at_once_and_an_edit_after_its_quiet_time(
    git_repo, poll
):
    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc, debounce=30.0)
    recorder.start()
    try:
        assert recorder.ready.wait(10)
        (git_repo / "open.txt").write_text("still writing\n")
        recorder.note(b"open.txt", "modified", False)
        (git_repo / "closed.txt").write_text("done\n")
        recorder.note(b"closed.txt", "closed", False)
        poll(lambda: recorded_versions(loc, b"closed.txt"), what="the closed file", timeout=10)
        # the edit noted first is not read while it may still be written (at most 1 s later,
        # however busy the file): the closed file went ahead of it
        assert recorded_versions(loc, b"open.txt") == []
    finally:
        recorder.stop()


def test_the_files_of_a_directory_moved_away_are_recorded_as_deleted(running, git_repo, tmp_path):
    (git_repo / "d").mkdir()
    (git_repo / "d" / "a.txt").write_text("a\n")
    running.wait_for("d/a.txt", b"a\n")
    (git_repo / "d").rename(tmp_path / "moved-away")
    running.wait_for("d/a.txt", None)
    newest, before = running.versions("d/a.txt")[:2]
    assert newest.oid is None  # recorded as deleted, though no event named the file
    assert before.oid is not None and running.blob(before.oid) == b"a\n"


@pytest.mark.parametrize("kind", ["deleted", "moved-from"])
def test_a_directory_gone_from_its_place_has_each_recorded_file_read_again(
    git_repo, poll, tmp_path, kind
):
    """The watcher says only that the directory went (a move gives no event per file): the
    files recorded under it, and only those, are read again, and recorded as deleted."""
    (git_repo / "d").mkdir()
    (git_repo / "d" / "a.txt").write_text("a\n")
    (git_repo / "dd.txt").write_text("beside it\n")
    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc)  # no watcher: only the notes given here
    recorder.start()
    try:
        assert recorder.ready.wait(10)
        (git_repo / "d").rename(tmp_path / "away")
        (git_repo / "dd.txt").unlink()
        recorder.note(b"d", kind, True)
        poll(lambda: len(recorded_versions(loc, b"d/a.txt")) == 2, what="d/a.txt deleted")
        assert recorded_versions(loc, b"d/a.txt")[0].oid is None
        recorder.note(b"d", "modified", True)  # a directory's own change: nothing to read
        poll(recorder.is_idle, what="the recorder to be idle", timeout=30)
        assert len(recorded_versions(loc, b"dd.txt")) == 1  # not under d/
    finally:
        recorder.stop()


@pytest.mark.parametrize("size", [3 << 20, 9 << 20])  # in the batch's pack; streamed alone
def test_a_write_the_disk_refuses_pauses_recording_until_it_can_write_again(
    git_repo, poll, size, caplog, monkeypatch
):
    """In this process, under a real RLIMIT_FSIZE (the EFBIG a full quota gives as ENOSPC;
    SIGXFSZ ignored, so the write fails instead of killing the process): the pack cannot be
    written, recording pauses and says why, the file is not counted as recorded (nor skipped),
    a retry that fails again keeps the pause (it never says it resumed, though the small
    writes of its signs of life go through), and once the limit is lifted the retry records
    it, says so and the warning goes; a later pause starts again from the first wait."""
    import contextlib
    import resource
    import signal

    import interlock.memory.recorder as recorder_module

    monkeypatch.setattr(recorder_module, "_HEARTBEAT", 0.2)
    caplog.set_level(logging.INFO, logger="interlock.memory.recorder")

    def said(text: str) -> list[str]:
        return [r.getMessage() for r in caplog.records if text in r.getMessage()]

    @contextlib.contextmanager
    def disk_full() -> Iterator[None]:
        handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, handler)

    def recorded(name: str, data: bytes) -> bool:
        found = recorded_versions(loc, name.encode())
        return bool(found) and gitmod.read_blob(gitmod.open_repo(loc), found[0].oid) == data

    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc)
    recorder.start()
    data = os.urandom(size)
    try:
        assert recorder.ready.wait(10)
        (git_repo / "big.bin").write_bytes(data)
        with disk_full():
            recorder.rescan("test")
            poll(
                lambda: "recording paused" in (recorder.stats.warning or ""),
                what="the recorder to pause",
                timeout=30,
            )
            poll(lambda: len(said("recording paused")) >= 2, what="a retry to fail", timeout=30)
            time.sleep(0.5)  # within the second wait (2 s): no retry happens in it
            first, second, *more = said("recording paused")
            # it waits before each retry, twice as long each time
            assert first.endswith("(retrying in 1 s)") and second.endswith("(retrying in 2 s)")
            assert more == []
            assert "recording paused" in (recorder.stats.warning or "")
            assert said("recording resumed") == []
            assert recorded_versions(loc, b"big.bin") == []
        assert "disk full" in (recorder.stats.warning or "")
        assert recorder.is_alive()
        poll(
            lambda: recorder.stats.warning is None and recorded("big.bin", data),
            what="the recorder to resume",
            timeout=60,
        )
        assert len(said("recording resumed")) == 1
        # the next pause waits the first time again (1 s), not the doubled wait of the last
        more = os.urandom(size)
        (git_repo / "big2.bin").write_bytes(more)
        before = len(said("recording paused"))
        with disk_full():
            recorder.rescan("test")
            poll(lambda: len(said("recording paused")) > before, what="a new pause", timeout=30)
        assert said("recording paused")[before].endswith("(retrying in 1 s)")
        poll(lambda: recorded("big2.bin", more), what="the recorder to resume again", timeout=60)
    finally:
        recorder.stop()


def test_a_running_recorder_never_keeps_its_process_from_exiting(git_repo):
    """Its thread is a daemon thread: a process that ends without stopping it still ends."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from interlock.git import discover\n"
        "from interlock.memory.recorder import Recorder\n"
        "loc = discover(sys.argv[1]); loc.state_dir.mkdir(exist_ok=True)\n"
        "r = Recorder(loc); r.start(); assert r.ready.wait(30) and r.is_alive()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(git_repo)], capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_a_failure_that_is_no_write_failure_stops_the_recorder_rather_than_pausing_it(
    git_repo, poll, caplog
):
    """A rescan whose `git status` fails while the recorder runs: not a full or read-only
    disk, so no retry can help; the recorder stops and says why."""
    caplog.set_level(logging.ERROR, logger="interlock.memory.recorder")
    loc = discover(git_repo)
    loc.state_dir.mkdir(exist_ok=True)
    recorder = Recorder(loc)
    recorder.start()
    try:
        assert recorder.ready.wait(10)
        (git_repo / ".git" / "index").write_bytes(b"not an index" * 10)
        recorder.rescan("test")
        poll(lambda: not recorder.is_alive(), what="the recorder to stop", timeout=30)
        assert (recorder.stats.warning or "").startswith("recorder stopped: ")
        [logged] = [r for r in caplog.records if r.getMessage() == "recorder stopped"]
        assert logged.exc_info is not None  # with its traceback, in the daemon's log
    finally:
        recorder.stop()
