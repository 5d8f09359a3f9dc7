"""`interlock check` end to end: real repositories, the real CLI, the JSON contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock.cli import run_cli

INTERLOCK = [sys.executable, "-m", "interlock"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def check_json(cwd: Path, command: str, *extra: str) -> dict:
    proc = subprocess.run(
        [*INTERLOCK, "check", "--json", *extra, command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
    )
    assert proc.returncode in (0, 126), proc.stderr
    data = json.loads(proc.stdout)
    data["_exit"] = proc.returncode
    return data


@pytest.fixture
def sub_repo(git_repo: Path) -> Path:
    (git_repo / "sub").mkdir()
    for name in ("a.py", "b.py"):
        (git_repo / "sub" / name).write_text("v1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "sub")
    return git_repo


def test_checkout_over_modified_files_is_blocked_with_paths_named(sub_repo, cap_out):
    for name in ("a.py", "b.py"):
        (sub_repo / "sub" / name).write_text("v2\n")
    code = run_cli(
        ["check", "--mode", "blocking", "--cwd", str(sub_repo), "cd sub && git checkout -- ."]
    )
    assert code == 126
    err = cap_out[1].getvalue()
    assert "interlock: [discard] would block: git checkout -- ." in err
    assert "rule:" in err and "git.checkout" in err
    assert "2 files under sub/ (sub/a.py, sub/b.py)" in err
    assert "instead:" in err


def test_checkout_over_clean_files_is_allowed(sub_repo, cap_out):
    code = run_cli(
        ["check", "--mode", "blocking", "--cwd", str(sub_repo), "cd sub && git checkout -- ."]
    )
    assert code == 0
    assert "allow" in cap_out[0].getvalue()


def test_json_contract_has_exactly_the_documented_fields(sub_repo):
    (sub_repo / "sub" / "a.py").write_text("v2\n")
    data = check_json(sub_repo, "git reset --hard && pytest", "--mode", "blocking")
    assert {"command", "verdict", "would_block", "parse", "findings", "validators"} <= set(data)
    assert data["verdict"] == "block" and data["would_block"] is True and data["_exit"] == 126
    assert data["parse"] == "ok"
    finding = data["findings"][0]
    # `lost` (and `unrecoverable`, when a file is too large to keep) appear only when the tree
    # was read: the exact paths a door must save before it lets a discard run
    assert set(finding) == {"kind", "rule", "text", "reason", "instead", "severity", "lost"}
    assert finding["kind"] == "discard" and finding["severity"] == "block"
    assert finding["lost"] == [str((sub_repo / "sub" / "a.py").resolve())]
    assert data["validators"] == [{"text": "pytest", "tier": "slow", "masked": False}]


def test_a_validator_whose_status_is_only_hidden_warns_in_blocking_mode(sub_repo, cap_out):
    data = check_json(sub_repo, "pytest -x 2>&1 | tail -50", "--mode", "blocking")
    assert data["verdict"] == "warn" and data["would_block"] is False and data["_exit"] == 0
    (finding,) = data["findings"]
    assert finding["kind"] == "masked-validator" and finding["severity"] == "warn"
    assert finding["rule"] == "validator.exit-masked"
    assert "pipefail" in finding["instead"]
    assert data["validators"] == [{"text": "pytest -x", "tier": "slow", "masked": True}]


def test_a_forged_pass_is_refused_in_blocking_mode(sub_repo):
    data = check_json(sub_repo, "pytest -x 2>&1 | tail -50 || true", "--mode", "blocking")
    assert data["verdict"] == "block" and data["would_block"] is True and data["_exit"] == 126
    (finding,) = data["findings"]
    assert finding["kind"] == "masked-validator" and finding["severity"] == "block"
    assert finding["rule"] == "validator.exit-forged"


def test_a_hidden_status_message_says_it_runs_and_is_not_credited(sub_repo, cap_out):
    code = run_cli(["check", "--mode", "blocking", "--cwd", str(sub_repo), "pytest | tail -5"])
    err = cap_out[1].getvalue()
    assert code == 0
    assert err.startswith("interlock: [masked-validator] warning (runs, but is never credited")
    assert "instead:" in err and "PIPESTATUS" in err


def test_json_findings_judged_by_text_alone_carry_no_lost_paths(sub_repo):
    data = check_json(sub_repo, "git reset --hard", "--mode", "blocking", "--assume-dirty")
    assert set(data["findings"][0]) == {"kind", "rule", "text", "reason", "instead", "severity"}


def test_advisory_mode_warns_but_would_block_stays_true(sub_repo):
    (sub_repo / "sub" / "a.py").write_text("v2\n")
    data = check_json(sub_repo, "git reset --hard", "--mode", "advisory")
    assert data["verdict"] == "warn" and data["would_block"] is True and data["_exit"] == 0
    data = check_json(sub_repo, "git reset --hard", "--mode", "off")
    assert data["verdict"] == "allow" and data["would_block"] is True


def test_configured_mode_is_used_when_no_flag(sub_repo):
    (sub_repo / ".interlock.toml").write_text('mode = "blocking"\n')
    (sub_repo / "sub" / "a.py").write_text("v2\n")
    assert check_json(sub_repo, "git checkout .")["verdict"] == "block"


def test_rm_rf_of_ignored_build_dir_is_allowed_but_untracked_work_is_not(git_repo):
    (git_repo / ".gitignore").write_text("build/\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-qm", "ignore build")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "x.o").write_text("obj")
    assert check_json(git_repo, "rm -rf build/", "--mode", "blocking")["verdict"] == "allow"
    (git_repo / "notes").mkdir()
    (git_repo / "notes" / "plan.md").write_text("my plan")
    data = check_json(git_repo, "rm -rf notes", "--mode", "blocking")
    assert data["verdict"] == "block"
    assert "notes/" in data["findings"][0]["reason"]


def test_outside_a_repository_recursive_delete_of_non_temp_is_blocked(tmp_path):
    work = tmp_path / "plain"
    work.mkdir()
    assert check_json(work, "rm -rf /srv/data", "--mode", "blocking")["verdict"] == "block"
    assert check_json(work, "rm -rf /tmp/cache-dir", "--mode", "blocking")["verdict"] == "allow"
    assert check_json(work, "ls -la", "--mode", "blocking")["verdict"] == "allow"


def test_unborn_head_repository_is_judged(tmp_path):
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "draft.txt").write_text("hours of work")
    assert check_json(repo, "git clean -fd", "--mode", "blocking")["verdict"] == "block"
    assert check_json(repo, "git status", "--mode", "blocking")["verdict"] == "allow"


def test_repo_mid_rebase_is_judged(git_repo):
    git(git_repo, "checkout", "-qb", "topic")
    (git_repo / "README.md").write_text("topic\n")
    git(git_repo, "commit", "-qam", "topic")
    git(git_repo, "checkout", "-q", "main")
    (git_repo / "README.md").write_text("main\n")
    git(git_repo, "commit", "-qam", "main")
    git(git_repo, "checkout", "-q", "topic")
    subprocess.run(["git", "rebase", "main"], cwd=git_repo, capture_output=True)
    assert (git_repo / ".git" / "rebase-merge").exists() or (
        git_repo / ".git" / "rebase-apply"
    ).exists()
    data = check_json(git_repo, "git checkout -- README.md", "--mode", "blocking")
    assert data["verdict"] == "block"


def test_unparsed_command_blocks_in_blocking_and_warns_in_advisory(git_repo):
    data = check_json(git_repo, "echo 'unclosed", "--mode", "blocking")
    assert data["parse"] == "unparsed" and data["verdict"] == "block"
    assert data["findings"][0]["kind"] == "unparsed"
    assert check_json(git_repo, "echo 'unclosed", "--mode", "advisory")["verdict"] == "warn"


def test_batch_judges_each_line_in_order(git_repo):
    lines = "git status\npytest || true\n\ngit stash clear\n"
    proc = subprocess.run(
        [*INTERLOCK, "check", "--batch", "--json", "--assume-dirty", "--mode", "blocking"],
        cwd=git_repo,
        input=lines,
        capture_output=True,
        text=True,
    )
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["command"] for r in results] == ["git status", "pytest || true", "git stash clear"]
    assert [r["verdict"] for r in results] == ["allow", "block", "block"]
    assert proc.returncode == 126


def test_batch_json_lines_in_carries_newlines(git_repo):
    commands = ["bash <<'EOF'\ngit reset --hard\nEOF", "echo ok"]
    proc = subprocess.run(
        [
            *INTERLOCK,
            "check",
            "--batch",
            "--json",
            "--json-lines-in",
            "--assume-dirty",
            "--mode",
            "blocking",
        ],
        cwd=git_repo,
        input="".join(json.dumps(c) + "\n" for c in commands),
        capture_output=True,
        text=True,
    )
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["command"] for r in results] == commands
    assert results[0]["verdict"] == "block" and results[1]["verdict"] == "allow"


def test_check_without_command_is_a_usage_error(cap_out):
    assert run_cli(["check"]) == 2


def test_unquoted_command_words_are_joined(git_repo, cap_out):
    assert (
        run_cli(
            [
                "check",
                "--mode",
                "blocking",
                "--assume-dirty",
                "--cwd",
                str(git_repo),
                "git",
                "reset",
                "--hard",
            ]
        )
        == 126
    )


def test_explain_prints_a_known_rule_and_rejects_unknown(cap_out):
    assert run_cli(["explain", "git.reset-hard"]) == 0
    out = cap_out[0].getvalue()
    assert "git.reset-hard" in out and "instead:" in out
    assert run_cli(["explain", "no.such-rule"]) == 1
    assert run_cli(["explain"]) == 0
