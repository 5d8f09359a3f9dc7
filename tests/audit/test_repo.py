"""The audit on real repositories: worktree, untracked files, index, --since, baseline
snapshots, and the `interlock audit` command's output and exit status."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from interlock.audit import audit_staged, audit_worktree
from interlock.cli import run_cli
from interlock.commands.audit import render
from interlock.git import require_repo

TEST = (
    'from app import total\n\n\ndef test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n'
)
WEAK = 'from app import total\n\n\ndef test_quantity():\n    assert total([("pen", 2, 1.5)])\n'
APP = "def total(lines):\n    return sum(p for _, q, p in lines)\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def project(git_repo: Path) -> Path:
    (git_repo / "app.py").write_text(APP)
    (git_repo / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_app.py").write_text(TEST)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "project")
    return git_repo


def test_untouched_repository_is_clean(project):
    report = audit_worktree(require_repo(project))
    assert report.verdict == "clean" and report.findings == () and report.base == "HEAD"


def test_weakened_test_in_worktree_is_tampered(project):
    (project / "tests" / "test_app.py").write_text(WEAK)
    report = audit_worktree(require_repo(project))
    assert report.verdict == "tampered"
    assert [(f.kind, f.path, f.test) for f in report.findings] == [
        ("assertion-weakened", "tests/test_app.py", "test_quantity")
    ]


def test_untracked_conftest_forging_outcomes_is_tampered(project):
    (project / "conftest.py").write_text(
        "def pytest_sessionfinish(session):\n    session.exitstatus = 0\n"
    )
    assert audit_worktree(require_repo(project)).verdict == "tampered"


def test_deleted_test_file_is_tampered(project):
    (project / "tests" / "test_app.py").unlink()
    report = audit_worktree(require_repo(project))
    assert [f.kind for f in report.findings] == ["test-deleted"]


def test_weakening_staged_then_reverted_on_disk_is_still_found(project):
    path = project / "tests" / "test_app.py"
    path.write_text(WEAK)
    git(project, "add", "tests/test_app.py")
    path.write_text(TEST)
    loc = require_repo(project)
    assert audit_worktree(loc).verdict == "tampered"
    assert audit_staged(loc).verdict == "tampered"


def test_staged_audit_ignores_unstaged_changes(project):
    (project / "tests" / "test_app.py").write_text(WEAK)
    assert audit_staged(require_repo(project)).verdict == "clean"


def test_staged_audit_reads_another_index_file(project, tmp_path):
    (project / "tests" / "test_app.py").write_text(WEAK)
    index = tmp_path / "other-index"
    env = {"GIT_INDEX_FILE": str(index), "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=project, env=env, check=True)
    subprocess.run(["git", "add", "tests/test_app.py"], cwd=project, env=env, check=True)
    loc = require_repo(project)
    assert audit_staged(loc).verdict == "clean"
    assert audit_staged(loc, index_file=str(index)).verdict == "tampered"


def test_since_a_revision_covers_committed_weakening(project):
    (project / "tests" / "test_app.py").write_text(WEAK)
    git(project, "commit", "-qam", "weaken")
    loc = require_repo(project)
    assert audit_worktree(loc).verdict == "clean"
    report = audit_worktree(loc, since="HEAD~1")
    assert report.verdict == "tampered" and report.base == "HEAD~1"


def test_baseline_snapshot_is_the_default_base(project):
    from interlock.memory.snapshot import take_snapshot

    loc = require_repo(project)
    (project / "tests" / "test_app.py").write_text(WEAK)
    snap = take_snapshot(loc, kind="baseline")
    (project / "README.md").write_text("# changed in the run\n")
    report = audit_worktree(loc)
    assert report.verdict == "clean" and report.base == f"baseline snapshot {snap.id}"
    assert audit_worktree(loc, since="HEAD").verdict == "tampered"
    assert audit_worktree(loc, since=snap.id).verdict == "clean"


def test_unborn_head_audits_every_file_as_new(tmp_path):
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "test_app.py").write_text(TEST)
    (repo / "conftest.py").write_text("import sys\nsys.exit(0)\n")
    report = audit_worktree(require_repo(repo))
    assert report.base.startswith("HEAD") and [f.kind for f in report.findings] == [
        "outcome-forgery"
    ]
    assert audit_staged(require_repo(repo)).verdict == "clean"


def test_odd_paths_are_read(project):
    odd = project / "tests" / "sub dir é"
    odd.mkdir()
    (odd / "test_odd.py").write_text(TEST)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "odd")
    (odd / "test_odd.py").write_text(WEAK)
    report = audit_worktree(require_repo(project))
    assert [f.path for f in report.findings] == ["tests/sub dir é/test_odd.py"]


def test_cli_prints_one_line_per_finding_and_exits_1_when_tampered(project, cap_out):
    (project / "tests" / "test_app.py").write_text(WEAK)
    code = run_cli(["audit", "--cwd", str(project)])
    out, err = cap_out[0].getvalue(), cap_out[1].getvalue()
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith(
        "interlock: [self-authored] tests/test_app.py:5 test_quantity: assertion `"
    )
    assert "became `assert total([('pen', 2, 1.5)])`" in lines[0]
    assert lines[-1].startswith("interlock: [self-authored] tampered: 1 finding(s) against HEAD")


def test_cli_json_has_the_judged_shape_and_exit_0_when_clean(project, cap_out):
    code = run_cli(["audit", "--json", "--cwd", str(project)])
    data = json.loads(cap_out[0].getvalue())
    assert code == 0
    assert data == {"verdict": "clean", "findings": [], "base": "HEAD"}


def test_cli_rejects_unknown_since(project, cap_out):
    code = run_cli(["audit", "--since", "no-such-rev", "--cwd", str(project)])
    assert code == 1
    assert "neither a snapshot nor a git revision" in cap_out[1].getvalue()


def test_cli_outside_a_repository_is_a_user_error(tmp_path, cap_out):
    assert run_cli(["audit", "--cwd", str(tmp_path)]) == 1
    assert "not inside a git worktree" in cap_out[1].getvalue()


def test_review_only_findings_keep_the_verdict_clean(project):
    (project / "app.py").write_text(APP.replace("sum(p ", "sum(q * p "))
    (project / "tests" / "test_app.py").write_text(TEST.replace("== 3.0", "== 3.0 + 0.0"))
    report = audit_worktree(require_repo(project))
    assert report.verdict == "clean"
    assert [(f.kind, f.severity) for f in report.findings] == [("expectation-changed", "review")]
    assert render(report)[-1].endswith("1 change(s) worth a look")


def test_the_audit_of_a_small_change_never_lists_the_whole_base_tree(project, monkeypatch):
    from interlock import git as gitmodule

    for i in range(30):
        (project / "tests" / f"test_more{i}.py").write_text(TEST.replace("quantity", f"q{i}"))
    (project / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef two():\n    return 2\n"
    )
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "more tests")
    listed: list[str] = []
    real = gitmodule.ls_tree_files

    def spy(loc, rev):
        listed.append(rev)
        return real(loc, rev)

    monkeypatch.setattr(gitmodule, "ls_tree_files", spy)
    (project / "tests" / "test_app.py").write_text(WEAK)
    assert [f.kind for f in audit_worktree(require_repo(project)).findings] == ["assertion-weakened"]
    git(project, "add", "-A")
    assert [f.kind for f in audit_staged(require_repo(project)).findings] == ["assertion-weakened"]
    assert listed == []
