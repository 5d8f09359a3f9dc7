"""The run's config everywhere: what a run froze at its baseline holds for its commands, the
git hooks (pre-commit's audit and its end-of-task tier check) and `interlock done`, whatever
happens to `.interlock.toml` mid-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from interlock import config as config_module
from interlock.commands.hooks import install_hooks
from interlock.git import require_repo
from interlock.journal import events
from interlock.run import gate, link

WEAKENED = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3)\n\n\n"
    "def test_add_negative():\n    assert add(-1, 1) == 0\n\n\n"
    "def test_add_zero():\n    assert add(0, 0) == 0\n"
)


@pytest.fixture
def hooked(project, git):
    install_hooks(project)
    return project


def _commit(wrap, repo, message, env=None):
    return wrap(repo, "-c", f"git add -A && git commit -q -m '{message}'", env=env)


def _hook_events(repo):
    return [e.data for e in events(require_repo(repo), kind="hook") if e.data["hook"] == "pre-commit"]


def test_deleting_the_config_mid_run_does_not_relax_the_pre_commit_audit(
    hooked, wrap, set_mode, git
):
    set_mode(hooked, "blocking", git)
    assert wrap(hooked, "-c", "true").returncode == 0  # the run starts: blocking is frozen
    (hooked / ".interlock.toml").unlink()
    (hooked / "tests" / "test_calc.py").write_text(WEAKENED)
    got = _commit(wrap, hooked, "weaken, config gone", env={"INTERLOCK_MODE": "advisory"})
    assert got.returncode == 1, got.stderr
    assert b"[self-authored] blocked commit" in got.stderr
    # a commit typed outside the wrapper while the run is live: the same rules
    direct = git(hooked, "commit", "-q", "-m", "weaken, by hand", check=False)
    assert direct.returncode == 1 and "blocked commit" in direct.stderr
    assert git(hooked, "log", "--format=%s").stdout.splitlines()[0] == "interlock blocking"


def test_a_commit_inside_a_run_gets_the_end_of_task_tier_check(hooked, wrap, suite_cmd, daemons):
    daemons.start(hooked)  # the wrapper and the hook answered warm
    (hooked / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    first = _commit(wrap, hooked, "unverified")
    assert first.returncode == 0, first.stderr
    assert b"[verify-before-done] nothing verified this commit's tree" in first.stderr
    (hooked / "calc.py").write_text("def add(a, b):\n    return (b + a)\n")
    (hooked / "scratch.txt").write_text("never committed\n")
    assert wrap(hooked, "-c", f"{suite_cmd} tests/test_calc.py::test_add").returncode == 0
    fast = wrap(hooked, "-c", "git commit -q -am 'fast only'")  # scratch.txt stays untracked
    assert fast.returncode == 0, fast.stderr
    assert b"only fast checks passed on this commit's tree" in fast.stderr
    assert b"tests/test_calc.py::test_add" in fast.stderr
    (hooked / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    green = wrap(hooked, "-c", suite_cmd)
    assert b"tree verified green" in green.stderr, green.stderr
    verified = wrap(hooked, "-c", "git commit -q -am green")
    assert verified.returncode == 0 and b"interlock" not in verified.stderr, verified.stderr
    assert [e["verified"] for e in _hook_events(hooked)] == [False, False, True]


@pytest.mark.parametrize("warm", [True, False], ids=["daemon warm", "no daemon"])
def test_an_agents_own_commit_outside_the_wrapper_gets_the_tier_check(
    hooked, wrap, git, daemons, tmp_path, poll, warm
):
    # an agent under interlock's adapters commits through its own shell tool: no INTERLOCK_RUN,
    # but the agent (this test process, the wrapper's parent) is above the hook
    if warm:
        daemons.start(hooked)
    assert wrap(hooked, "-c", "true").returncode == 0  # this process's run starts
    (hooked / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    by_agent = git(hooked, "commit", "-q", "-am", "by the agent")
    assert "[verify-before-done] nothing verified this commit's tree" in by_agent.stderr
    # a person's commit beside the run (no agent above it: reparented away) gets the old note
    (hooked / "calc.py").write_text("def add(a, b):\n    return (b + a)\n")
    out = tmp_path / "person.txt"
    script = f"git commit -q -am 'by a person' > '{out}.tmp' 2>&1; mv '{out}.tmp' '{out}'"
    subprocess.run(["setsid", "-f", "sh", "-c", script], cwd=hooked, check=True)
    poll(out.exists, timeout=60, what="the person's commit")
    assert "[verify-before-done]" not in out.read_text(), out.read_text()
    assert git(hooked, "log", "-1", "--format=%s").stdout.strip() == "by a person"


def test_the_commit_tier_messages_keep_to_the_runs_frozen_budget(hooked, wrap, git, daemons):
    (hooked / ".interlock.toml").write_text('verification_tiers = "off"\n')
    git(hooked, "add", "-A")
    git(hooked, "commit", "-q", "-m", "tiers off: one message a kind")
    daemons.start(hooked)
    assert wrap(hooked, "-c", "true").returncode == 0
    (hooked / ".interlock.toml").unlink()  # the default (advisory) would allow two
    said = []
    for n in range(3):
        (hooked / "calc.py").write_text(f"def add(a, b):\n    return a + b + {n}\n")
        got = _commit(wrap, hooked, f"edit {n}")
        assert got.returncode == 0, got.stderr
        said.append(b"[verify-before-done]" in got.stderr)
    assert said == [True, False, False]


def test_done_keeps_the_runs_frozen_tiers_after_the_file_is_deleted(
    project, wrap, interlock, git
):
    (project / ".interlock.toml").write_text('verification_tiers = "blocking"\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "tiers blocking")
    assert wrap(project, "-c", "true").returncode == 0
    (project / ".interlock.toml").unlink()
    done = interlock(project, "done", "--json")
    assert done.returncode == 126, done.stderr
    assert json.loads(done.stdout)["verified_green"] is False


def test_a_runs_command_never_reads_the_worktrees_config_file(project, monkeypatch, suite_cmd):
    wt = link.inline_worktree(str(project))
    try:
        req = {
            "command": "true",
            "cwd": str(project),
            "run": "frozen",
            "agent": None,
            "parent": None,
            "pid": None,
            "pid_start": None,
            "env": {},
        }
        gate.begin(wt, req)  # the run starts: its baseline is the one time the file is read

        def refuse(*args, **kwargs):
            raise AssertionError("a run's command read the worktree's config file")

        original = config_module.load_config
        for module in list(sys.modules.values()):
            if getattr(module, "load_config", None) is original:
                monkeypatch.setattr(module, "load_config", refuse)
        (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        (project / "notes.md").write_text("the run's own notes\n")
        for command in (
            "git checkout -- calc.py",
            "rm -rf notes.md",
            f"{suite_cmd} | tail -1",
            "git push origin main",
        ):
            reply = gate.begin(wt, {**req, "command": command})
            done = {"attempt": reply["attempt"], "exit": 0, "signal": None, "tail": "1 passed"}
            gate.complete(wt, {**done, "duration": 0.1})
    finally:
        wt.journal.close()
    assert os.path.exists(project / "calc.py")
