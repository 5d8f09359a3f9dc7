"""Script files run through the wrapper in a run: a discard written into a file is refused
like a typed one, and a validator read from a script the run wrote or changed never makes
the tree green (the run wrote its own exam)."""

from __future__ import annotations

import sys

from interlock.git import require_repo
from interlock.memory.snapshot import list_snapshots

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def _greens(repo):
    return list_snapshots(require_repo(repo), kind="green")


def _script(path, text):
    path.write_text(text)
    path.chmod(0o755)


def test_a_discard_the_run_wrote_into_a_script_is_refused_in_blocking_mode(
    project, wrap, set_mode, git
):
    set_mode(project, "blocking", git)
    (project / "notes.md").write_text("a person's notes, never committed\n")
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    assert wrap(project, "-c", "true").returncode == 0  # the run starts: its baseline
    _script(project / "x.sh", "#!/bin/sh\ngit checkout -- .\n")
    for command in ("./x.sh", "bash x.sh", "setsid -f ./x.sh", "script -qc ./x.sh /dev/null"):
        got = wrap(project, "-c", command)
        assert got.returncode == 126, (command, got.stderr)
        assert b"x.sh line 2: git checkout -- ." in got.stderr
    assert "return b + a" in (project / "calc.py").read_text()


def test_a_pass_through_a_committed_unchanged_script_makes_the_tree_green(project, wrap, git):
    _script(project / "ci.sh", f"#!/bin/sh\nset -e\n{PYTEST}\n")
    git(project, "add", "ci.sh")
    git(project, "commit", "-q", "-m", "ci script")
    got = wrap(project, "-c", "./ci.sh")
    assert got.returncode == 0, got.stderr
    assert b"tree verified green" in got.stderr
    assert len(_greens(project)) == 1


def test_no_green_from_a_script_the_run_wrote(project, wrap):
    assert wrap(project, "-c", "true").returncode == 0  # the run starts without ci.sh
    _script(project / "ci.sh", f"#!/bin/sh\n{PYTEST}\n")
    got = wrap(project, "-c", "./ci.sh")
    assert got.returncode == 0 and b"3 passed" in got.stdout
    assert b"[self-authored]" in got.stderr and b"ci.sh" in got.stderr
    assert _greens(project) == []


def test_no_green_from_a_committed_script_the_run_changed(project, wrap, git):
    _script(project / "ci.sh", f"#!/bin/sh\n{PYTEST} tests\n")
    git(project, "add", "ci.sh")
    git(project, "commit", "-q", "-m", "ci script")
    assert wrap(project, "-c", "true").returncode == 0
    _script(project / "ci.sh", f"#!/bin/sh\necho checking\n{PYTEST} tests\n")
    got = wrap(project, "-c", "sh ci.sh")
    assert got.returncode == 0 and b"3 passed" in got.stdout
    assert b"ci.sh, which runs" in got.stderr and b"changed by this run" in got.stderr
    assert _greens(project) == []
