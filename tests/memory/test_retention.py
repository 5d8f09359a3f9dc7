"""Retention: `interlock gc` drops what the policy no longer keeps, in one transaction."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from interlock import constants, git
from interlock.cli import run_cli
from interlock.errors import GitError
from interlock.git import discover, open_repo
from interlock.memory.retention import delete_refs, gc, plan_gc
from interlock.memory.snapshot import take_snapshot

DAY = 86400.0


def refs(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname)", "refs/interlock/"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def recorder_ref(repo: Path, hour: str, when: float, payload: bytes) -> str:
    """A ref like the daemon's recorder writes: a commit whose flat tree holds blobs."""
    loc = discover(repo)
    handle = open_repo(loc)
    oid = git.write_blob(handle, payload)
    tree = git.write_tree(handle, {oid.encode(): (git.FILE_MODE, oid)})
    meta = json.dumps({"kind": "recorder", "time": when, "worktree": "main", "scope": []})
    commit = git.write_commit(handle, tree, [], f"interlock recorder snapshot\n\n{meta}\n", when)
    name = f"refs/interlock/main/recorder/{hour}"
    git.set_ref(handle, name, commit)
    return name


def test_gc_drops_old_pre_restore_and_pre_discard_and_keeps_manual_and_baseline(
    git_repo: Path,
) -> None:
    loc = discover(git_repo)
    kept = [take_snapshot(loc, kind=k) for k in ("manual", "baseline")]
    old = [take_snapshot(loc, kind=k) for k in ("pre-restore", "pre-discard")]

    assert gc(loc, now=time.time() + 13 * DAY).dropped == ()
    result = gc(loc, now=time.time() + 15 * DAY)

    assert sorted(d.info.oid for d in result.dropped) == sorted(s.oid for s in old)
    assert sorted(refs(git_repo)) == sorted(s.ref for s in kept)
    assert result.kept == 2 and result.by_kind() == {"pre-discard": 1, "pre-restore": 1}


def test_gc_keeps_every_green_of_the_most_recent_runs(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(constants, "GC_GREEN_RUNS", 2)
    loc = discover(git_repo)
    oldest = [take_snapshot(loc, kind="green", run="r1") for _ in range(2)]
    middle = take_snapshot(loc, kind="green", run=None)
    newest = [
        take_snapshot(loc, kind="green", run="r3"),
        take_snapshot(loc, kind="green", run="r3"),
    ]

    result = gc(loc)

    assert sorted(d.info.oid for d in result.dropped) == sorted(s.oid for s in oldest)
    assert sorted(refs(git_repo)) == sorted(s.ref for s in [middle, *newest])


def test_gc_drops_recorder_refs_by_age_and_beyond_the_size_budget(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loc = discover(git_repo)
    now = time.time()
    ancient = recorder_ref(git_repo, "20000101T00", now - 8 * DAY, b"a" * 10)
    older = recorder_ref(git_repo, "20000102T00", now - 2 * DAY, b"b" * 600)
    recent = recorder_ref(git_repo, "20000103T00", now - 1 * DAY, b"c" * 600)
    snap = take_snapshot(loc, kind="recorder")

    assert [d.info.ref for d in plan_gc(loc, now)[0]] == [ancient]
    (git_repo / ".interlock.toml").write_text("recorder_max_bytes = 1000\n")
    result = gc(loc, now=now)

    assert sorted(d.info.ref for d in result.dropped) == sorted([ancient, older])
    assert sorted(refs(git_repo)) == sorted([recent, snap.ref])


def test_dry_run_drops_nothing(git_repo: Path) -> None:
    loc = discover(git_repo)
    take_snapshot(loc, kind="pre-restore")

    result = gc(loc, dry_run=True, now=time.time() + 30 * DAY)

    assert len(result.dropped) == 1 and len(refs(git_repo)) == 1


def test_ref_deletion_is_all_or_nothing(git_repo: Path) -> None:
    loc = discover(git_repo)
    first = take_snapshot(loc, kind="pre-restore")
    (git_repo / "x").write_text("x")
    second = take_snapshot(loc, kind="pre-restore")
    stale = "0" * 40  # the second ref moved since gc looked: the transaction must fail whole

    with pytest.raises(GitError):
        delete_refs(loc, [(first.ref or "", first.oid), (second.ref or "", stale)])

    assert sorted(refs(git_repo)) == sorted([first.ref, second.ref])


def test_gc_covers_every_worktree(git_repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "wt"
    subprocess.run(["git", "worktree", "add", "-q", str(linked)], cwd=git_repo, check=True)
    take_snapshot(discover(linked), kind="pre-discard")

    result = gc(discover(git_repo), now=time.time() + 15 * DAY)

    assert [(d.worktree, d.info.kind) for d in result.dropped] == [("wt", "pre-discard")]
    assert refs(git_repo) == []


def test_cli_gc_json_reports_dropped_and_kept(git_repo: Path, cap_out) -> None:
    take_snapshot(discover(git_repo), kind="manual")

    assert run_cli(["gc", "--json", "--cwd", str(git_repo)]) == 0

    data = json.loads(cap_out[0].getvalue())
    assert data == {
        "dropped": [],
        "dropped_by_kind": {},
        "kept": 1,
        "dry_run": False,
        "objects_pruned": False,
        "recorder_pruned": None,  # nothing was ever recorded here
    }
