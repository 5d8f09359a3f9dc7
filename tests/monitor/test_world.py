"""The world checks behind a stuck environment: an error naming an environment cause (not the
project's own module), a file that lost the run's edit, the call run again outside interlock
(only when that is safe), the directory, the disk, a read-only tree."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from interlock.git import require_repo
from interlock.monitor import world
from interlock.monitor.errortext import excerpt
from interlock.run.records import Attempt, Completion


@pytest.mark.parametrize(
    ("error", "ok", "said"),
    [
        ("ModuleNotFoundError: No module named 'httpx'", False, "a Python module is not installed"),
        ("Error: Cannot find module 'left-pad'", False, "a JavaScript module is not installed"),
        ("bash: line 1: cargo: command not found", False, "a program is missing"),
        ("curl: (7) Failed to connect to 127.0.0.1 port 9200: Connection refused", False, "does not answer"),
        ("OSError: [Errno 28] No space left on device", False, "the disk is full"),
        ("OSError: [Errno 30] Read-only file system: 'x'", False, "read-only"),
        ("PermissionError: [Errno 13] Permission denied: '/srv/x'", False, "a permission is missing"),
        ("FAILED tests/test_calc.py::test_mul - assert 5 == 6", True, "names no environment cause"),
        ("ModuleNotFoundError: No module named 'calc'", None, "the project's own module 'calc'"),
    ],
)
def test_the_error_check_names_environment_causes(project, error, ok, said):
    check = world.error_check(require_repo(project), error)
    assert check.ok is ok and said in check.detail


def _attempt(project, command, duration=0.5, **data) -> Attempt:
    done = Completion("exited", 0.0, 1, None, duration, None, {})
    base = {"validators": [{"text": command}], "findings": []}
    return Attempt(1, "r", None, 0.0, command, str(project), None, None, "allow", False, None,
                   {**base, **data}, done)


def test_the_call_is_run_again_outside_interlock_only_when_that_is_safe(project):
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    pytest_cmd = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    seen = subprocess.run(pytest_cmd.split(), cwd=project, env=env, capture_output=True, text=True)
    error = excerpt(seen.stdout + seen.stderr)
    assert "FAILED tests/test_calc.py::test_mul" in error
    same = world.outside_check(_attempt(project, pytest_cmd), error, env)
    assert same.ok is True and "fails the same way outside interlock (exit 1)" in same.detail
    passes = world.outside_check(_attempt(project, "true"), "boom", env)
    assert passes.ok is False and "passes when run outside interlock" in passes.detail
    other = world.outside_check(_attempt(project, "echo FAILED other; exit 3"), error, env)
    assert other.ok is None and "fails differently" in other.detail
    for attempt, why in [
        (
            _attempt(project, "pytest && rm -rf build", validators=[{"text": "pytest"}]),
            "more than one validator",
        ),
        (_attempt(project, "pytest", duration=10.5), "longer than 10 s"),
        (_attempt(project, "pytest", findings=[{"kind": "x"}]), "not a plain allowed command"),
    ]:
        check = world.outside_check(attempt, error, env)
        assert check.ok is None and why in check.detail
    unknown = world.outside_check(_attempt(project, "true"), error, None)
    assert unknown.ok is None and "environment could not be read" in unknown.detail


def test_place_checks_see_a_directory_outside_the_worktree_or_gone(project, tmp_path):
    loc = require_repo(project)
    here = {c.name: c.ok for c in world.place_checks(loc, str(project / "src"))}
    assert here == {"cwd": True, "disk": True, "writable": True}
    outside = world.place_checks(loc, str(tmp_path))
    assert outside[0].ok is False and "outside this worktree" in outside[0].detail
    gone = world.place_checks(loc, str(project / "nowhere"))
    assert gone[0].ok is False and "no longer exists" in gone[0].detail


def test_a_file_rewritten_after_the_edit_was_seen_is_named(agent, project, suite, rewrite):
    from interlock.journal import opened
    from interlock.memory.snapshot import worktree_tree
    from interlock.monitor.state import read_records

    agent("true")
    rewrite(project, "k = 1;return a * b * k")
    agent(suite)
    loc = require_repo(project)
    with opened(loc) as journal:
        stored = read_records(journal, "t-run")
    base = None
    assert world.edit_check(loc, stored, base).ok is True
    (project / "calc.py").write_text("# reverted by a formatter\n")
    check = world.edit_check(loc, stored, base)
    assert check.ok is False and "calc.py no longer holds the edit" in check.detail
    assert worktree_tree(loc)  # the tree is readable as it is
