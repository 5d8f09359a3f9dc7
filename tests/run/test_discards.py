"""Discards inside a run, judged by whose work they destroy: the run's own work is saved
first and allowed (and `interlock undo` brings it back); a person's work from before the run,
what no snapshot can hold, and every discard under `discards = "refuse"` are refused in
blocking mode and warned about in advisory mode, after a snapshot."""

from __future__ import annotations

import re
import subprocess

from interlock.git import require_repo
from interlock.memory.lostrefs import list_lost
from interlock.memory.snapshot import list_snapshots, resolve_snapshot


def _pre_discards(repo):
    return list_snapshots(require_repo(repo), kind="pre-discard")


def test_reverting_the_runs_own_edit_is_saved_first_allowed_and_undoable(
    project, wrap, set_mode, git, interlock
):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true").returncode == 0  # the run and its baseline
    (project / "calc.py").write_text("def add(a, b):\n    return a * b  # an experiment\n")
    (project / "scratch").mkdir()
    (project / "scratch" / "notes.txt").write_text("the run's own notes\n")
    got = wrap(project, "-c", "git checkout -- calc.py && rm -rf scratch")
    assert got.returncode == 0, got.stderr
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (project / "scratch").exists()
    [saved] = _pre_discards(project)
    stderr = got.stderr.decode()
    assert stderr.startswith("interlock: [discard] saved first: git checkout -- calc.py")
    assert f"snapshot {saved.id} (undo: interlock undo)" in stderr
    assert sorted(saved.scope or ()) == ["calc.py", "scratch"]
    undo = interlock(project, "undo")
    assert undo.returncode == 0, undo.stderr
    assert "an experiment" in (project / "calc.py").read_text()
    assert (project / "scratch" / "notes.txt").read_text() == "the run's own notes\n"


def test_a_discard_touching_pre_run_work_is_refused_in_blocking_mode(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    (project / "calc.py").write_text("def add(a, b):\n    return a + b  # the person's work\n")
    (project / "notes.md").write_text("a person's notes\n")
    assert wrap(project, "-c", "true").returncode == 0  # the run starts after that work
    (project / "agent.txt").write_text("the run's own file\n")
    got = wrap(project, "-c", "git checkout -- . && git clean -fd")
    assert got.returncode == 126
    stderr = got.stderr.decode()
    assert "would destroy work that predates this run" in stderr
    assert "calc.py" in stderr and "refused" in stderr
    assert "person's work" in (project / "calc.py").read_text()
    assert (project / "notes.md").exists() and (project / "agent.txt").exists()
    assert _pre_discards(project) == []


def test_in_advisory_mode_a_discard_of_pre_run_work_is_warned_about_after_a_snapshot(project, wrap):
    (project / "notes.md").write_text("a person's notes\n")
    assert wrap(project, "-c", "true").returncode == 0
    got = wrap(project, "-c", "rm -rf notes.md")
    assert got.returncode == 0
    assert not (project / "notes.md").exists()
    stderr = got.stderr.decode()
    assert stderr.startswith("interlock: [discard] warning (blocking mode would refuse it)")
    [saved] = _pre_discards(project)
    assert f"snapshot {saved.id}" in stderr
    snap_files = subprocess.run(
        ["git", "show", f"{saved.oid}:notes.md"], cwd=project, capture_output=True, text=True
    )
    assert snap_files.stdout == "a person's notes\n"


def test_the_refuse_policy_makes_every_discard_a_refusal(project, wrap, git):
    (project / ".interlock.toml").write_text('mode = "blocking"\ndiscards = "refuse"\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "refuse discards")
    assert wrap(project, "-c", "true").returncode == 0
    (project / "agent.txt").write_text("the run's own file\n")
    got = wrap(project, "-c", "rm -rf agent.txt")
    assert got.returncode == 126
    assert b'discards = "refuse"' in got.stderr
    assert (project / "agent.txt").exists()


def test_a_deleted_branch_is_kept_by_a_ref_before_it_goes(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    git(project, "checkout", "-q", "-b", "experiment")
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    git(project, "commit", "-q", "-am", "an experiment")
    tip = git(project, "rev-parse", "HEAD").stdout.strip()
    git(project, "checkout", "-q", "main")
    got = wrap(project, "-c", "git branch -D experiment")
    assert got.returncode == 0, got.stderr
    assert (
        b"[discard] kept first: git branch -D experiment" in got.stderr and b"kept:" in got.stderr
    )
    assert tip in {lost.oid for lost in list_lost(require_repo(project))}


def test_a_dropped_stash_is_kept_by_a_ref_and_can_be_stored_back(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    (project / "calc.py").write_text("def add(a, b):\n    return a + b + 0\n")
    git(project, "stash", "-q")
    stash = git(project, "rev-parse", "refs/stash").stdout.strip()
    got = wrap(project, "-c", "git stash drop")
    assert got.returncode == 0, got.stderr
    kept = {lost.oid for lost in list_lost(require_repo(project))}
    assert stash in kept
    git(project, "stash", "store", "-m", "back", stash)
    git(project, "stash", "pop", "-q")
    assert "a + b + 0" in (project / "calc.py").read_text()


def test_a_force_push_that_drops_remote_commits_is_never_the_runs_own(
    project, wrap, set_mode, git, tmp_path
):
    set_mode(project, "blocking", git)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "main")
    git(project, "commit", "-q", "--allow-empty", "-m", "pushed later")
    git(project, "push", "-q", "origin", "main")
    git(project, "reset", "-q", "--hard", "HEAD~1")
    got = wrap(project, "-c", "git push --force origin main")
    assert got.returncode == 126
    assert b"no snapshot can hold" in got.stderr


def test_a_target_in_a_directory_known_only_at_run_time_is_named_without_brackets(
    project, wrap, set_mode, git
):
    set_mode(project, "blocking", git)
    got = wrap(project, "-c", 'cd "$WORKDIR" && rm -rf src')
    assert got.returncode == 126
    assert (
        b"why:     would destroy what no snapshot can hold: src in a directory known only at"
        b" run time\n" in got.stderr
    )


def test_with_another_run_live_no_discard_counts_as_this_runs_own(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true", env={"INTERLOCK_RUN": "agent-a"}).returncode == 0
    assert wrap(project, "-c", "true", env={"INTERLOCK_RUN": "agent-b"}).returncode == 0
    (project / "shared.txt").write_text("whose is this?\n")
    got = wrap(project, "-c", "rm -rf shared.txt", env={"INTERLOCK_RUN": "agent-a"})
    assert got.returncode == 126
    assert re.search(rb"run agent-b\b.* is live in this worktree too", got.stderr)
    assert (project / "shared.txt").exists()


def test_the_pre_discard_snapshot_holds_what_it_proves(project, wrap):
    assert wrap(project, "-c", "true").returncode == 0
    big = project / "data.bin"
    big.write_bytes(bytes(range(256)) * 64)
    got = wrap(project, "-c", "rm -rf data.bin")
    assert got.returncode == 0
    [saved] = _pre_discards(project)
    snap = resolve_snapshot(require_repo(project), saved.id)
    blob = subprocess.run(
        ["git", "cat-file", "blob", f"{snap.oid}:data.bin"], cwd=project, capture_output=True
    )
    assert blob.stdout == bytes(range(256)) * 64


def test_a_discard_the_snapshot_cannot_hold_is_refused_even_when_it_is_the_runs_own(
    project, wrap, set_mode, git
):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true").returncode == 0
    big = project / "big.bin"
    with open(big, "wb") as handle:  # larger than a snapshot keeps an untracked file
        handle.truncate(60 << 20)
    got = wrap(project, "-c", "rm -rf big.bin")
    assert got.returncode == 126
    assert b"the snapshot does not hold all of it: big.bin" in got.stderr
    assert big.exists()
