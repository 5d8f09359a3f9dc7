"""Recovery and the handoff on trees that are not a tidy committed project: no commit yet
(unborn HEAD), paths with spaces and newlines, a symlink, a rebase stopped on a conflict.
The tree is never left broken: restored exactly to the run's start, the run's work kept in a
snapshot, and the messages stay one path per name however the paths are spelled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MODULE = "my dir/calc mod.py"
ODD = "new\nline.txt"
TEST = (
    "import importlib.util, pathlib\n"
    "spec = importlib.util.spec_from_file_location(\n"
    "    'm', pathlib.Path(__file__).parent.parent / 'my dir' / 'calc mod.py')\n"
    "m = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(m)\n\n\n"
    "def test_mul():\n    assert m.mul(2, 3) == 6\n"
)
SUITE = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"


def _edit(repo: Path, body: str, extra: str) -> None:
    """The agent's attempt: mul rewritten, and a scratch file whose name holds a newline."""
    (repo / MODULE).write_text(f"def mul(a, b):\n    x = 1\n    return {body}\n")
    (repo / ODD).write_text(extra)


def test_recovery_on_an_unborn_head_with_odd_paths_restores_the_start_exactly(
    tmp_path, wrap, interlock, git
):
    repo = tmp_path / "unborn"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "my dir").mkdir()
    (repo / "tests").mkdir()
    (repo / MODULE).write_text("def mul(a, b):\n    return a + b\n")
    (repo / "tests" / "test_m.py").write_text(TEST)
    os.symlink("my dir/calc mod.py", repo / "link.py")
    env = {"INTERLOCK_RUN": "odd"}
    assert wrap(repo, "true", env).returncode == 0  # the run starts: baseline of the unborn tree
    said = []
    for body, extra in (("a * b + 1", "one"), ("a * b - 1", "two"), ("b * a + 2", "three")):
        _edit(repo, body, extra)
        said.append(wrap(repo, SUITE, env))
    stuck = said[-1].stderr
    assert "interlock: [stuck] stepping back once" in stuck, stuck
    assert 'changed my dir/calc mod.py, "new\\nline.txt"' in stuck
    assert all(not line.startswith("line.txt") for line in stuck.splitlines())
    assert "restored:  the tree is back at baseline point" in stuck
    assert (repo / MODULE).read_text() == "def mul(a, b):\n    return a + b\n"
    assert not (repo / ODD).exists()
    assert os.readlink(repo / "link.py") == "my dir/calc mod.py"
    assert (repo / "tests" / "test_m.py").read_text() == TEST
    aside = stuck.split("your patch is snapshot ")[1].split()[0]
    back = interlock(repo, "restore", aside, "--paths", ODD, env={"INTERLOCK_RUN": ""})
    assert back.returncode == 0, back.stderr
    assert (repo / ODD).read_text() == "three"


def test_the_handoff_of_a_tree_with_odd_paths_lists_each_path_once_and_quoted(
    tmp_path, wrap, interlock, git
):
    repo = tmp_path / "odd"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    assert wrap(repo, "true", {"INTERLOCK_RUN": "odd"}).returncode == 0
    (repo / ODD).write_text("x\n")
    (repo / "with space.txt").write_text("y\n")
    got = interlock(repo, "handoff", env={"INTERLOCK_RUN": "odd"})
    assert got.returncode == 0, got.stderr
    assert '- added: "new\\nline.txt"' in got.stdout
    assert "- added: with space.txt" in got.stdout
    data = json.loads(interlock(repo, "handoff", "--json", env={"INTERLOCK_RUN": "odd"}).stdout)
    paths = {p["path"] for p in data["changed_since"]["paths"]}
    assert paths == {ODD, "with space.txt"}


def test_recovery_mid_rebase_restores_the_files_and_leaves_the_rebase_to_a_person(
    tmp_path, wrap, git
):
    repo = tmp_path / "rebase"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "tests").mkdir()
    (repo / "my dir").mkdir()
    (repo / "tests" / "test_m.py").write_text(TEST)
    (repo / MODULE).write_text("def mul(a, b):\n    return a + b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "topic")
    (repo / "notes.txt").write_text("topic\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "topic notes")
    git(repo, "checkout", "-q", "main")
    (repo / "notes.txt").write_text("main\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "main notes")
    git(repo, "checkout", "-q", "topic")
    assert git(repo, "rebase", "main", check=False).returncode != 0  # stopped on notes.txt
    conflicted = (repo / "notes.txt").read_text()
    env = {"INTERLOCK_RUN": "mid-rebase"}
    assert wrap(repo, "true", env).returncode == 0
    said = []
    for body in ("a * b + 1", "a * b - 1", "b * a + 2"):
        (repo / MODULE).write_text(f"def mul(a, b):\n    x = 1\n    return {body}\n")
        said.append(wrap(repo, SUITE, env))
    assert "interlock: [stuck] stepping back once" in said[-1].stderr, said[-1].stderr
    assert (repo / MODULE).read_text() == "def mul(a, b):\n    return a + b\n"
    assert (repo / "notes.txt").read_text() == conflicted  # the conflict as the run found it
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    assert "UU notes.txt" in status or "AA notes.txt" in status
    assert (repo / ".git" / "rebase-merge").is_dir()  # the rebase is still a person's to finish
