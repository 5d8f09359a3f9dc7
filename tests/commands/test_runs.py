"""`interlock runs`, `log`, `status`, `diff` and `audit` read a run from the journal and its
snapshots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

WRAPPER = Path(__file__).resolve().parents[2] / "shell" / "interlock-sh"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def _wrap(repo, command, shell):
    env = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 INTERLOCK_PYTHON={sys.executable}"
    return shell(repo, f"{env} {WRAPPER} -c {json.dumps(command)} || true")


def _project(repo, git):
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "calc")


def test_log_lists_a_runs_commands_in_order_with_verdicts_and_outcomes(
    git_repo, git, shell, interlock
):
    _project(git_repo, git)
    _wrap(git_repo, "echo one", shell)
    _wrap(git_repo, PYTEST, shell)
    _wrap(git_repo, f"{PYTEST} || true", shell)
    log = json.loads(interlock(git_repo, "log", "--json").stdout)
    commands = [a["command"] for a in log["attempts"]]
    assert commands == ["echo one", PYTEST, f"{PYTEST} || true"]
    first, green, masked = log["attempts"]
    assert first["verdict"] == "allow" and first["completion"]["exit"] == 0
    assert green["completion"]["green"] and green["completion"]["outcome"]["passed"] == 1
    assert masked["verdict"] == "warn" and masked["would_block"] is True
    assert [f["kind"] for f in masked["findings"]] == ["masked-validator"]
    assert masked["completion"]["green"] is None
    human = interlock(git_repo, "log").stdout.splitlines()
    assert human[0].startswith(f"run {log['run']['id']} (")
    assert "green " in human[2] and "[masked-validator]" in human[3]


def test_runs_and_status_show_the_run_its_mode_and_its_last_green(git_repo, git, shell, interlock):
    _project(git_repo, git)
    _wrap(git_repo, PYTEST, shell)
    [run] = json.loads(interlock(git_repo, "runs", "--json").stdout)
    assert run["commands"] == 1 and run["greens"] == 1 and run["origin"] == "agent"
    status = json.loads(interlock(git_repo, "status", "--json").stdout)
    assert status["mode"] == "advisory" and status["run"]["id"] == run["id"]
    assert status["last_green"]["run"] == run["id"] and status["changed_since_green"] == 0
    (git_repo / "calc.py").write_text("def add(a, b):\n    return a + b  # later\n")
    status = json.loads(interlock(git_repo, "status", "--json").stdout)
    assert status["changed_since_green"] == 1
    assert "green:" in interlock(git_repo, "status").stdout


def test_diff_and_audit_default_to_the_open_runs_snapshots(git_repo, git, shell, interlock):
    _project(git_repo, git)
    (git_repo / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_more():\n    assert add(0, 0) == 0\n"
    )
    git(git_repo, "commit", "-q", "-am", "more tests")
    _wrap(git_repo, "true", shell)  # the run's baseline
    (git_repo / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    git(git_repo, "commit", "-q", "-am", "a test the run deleted, committed")
    audit = interlock(git_repo, "audit", "--json")
    assert audit.returncode == 1
    assert [f["kind"] for f in json.loads(audit.stdout)["findings"]] == ["test-deleted"]
    diff = json.loads(interlock(git_repo, "diff", "--json").stdout)  # no green: the baseline
    assert [c["path"] for c in diff["changes"]] == ["test_calc.py"]


def test_status_outside_a_run_reads_the_config(git_repo, interlock):
    data = json.loads(
        interlock(git_repo, "status", "--json", env={"INTERLOCK_MODE": "blocking"}).stdout
    )
    assert data["run"] is None and data["mode"] == "blocking" and data["mode_source"] == "env"
    done = interlock(git_repo, "done")
    assert done.returncode == 1 and "no open run" in done.stderr
