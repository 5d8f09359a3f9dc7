"""Through the wrapper: a line that saves work and then destroys the save (`git stash -u &&
git stash drop`) is judged by whose work it destroys, like any discard."""

from __future__ import annotations


def test_a_stash_and_its_drop_on_one_line_are_refused_over_a_persons_work(
    project, wrap, set_mode, git
):
    set_mode(project, "blocking", git)
    (project / "notes.md").write_text("a person's notes\n")
    (project / "calc.py").write_text("def add(a, b):\n    return a + b  # the person's edit\n")
    assert wrap(project, "-c", "true").returncode == 0  # the run starts after that work
    got = wrap(project, "-c", "git stash -u && git stash drop")
    assert got.returncode == 126
    stderr = got.stderr.decode()
    assert "[discard]" in stderr and "git stash drop" in stderr
    assert "would destroy work that predates this run" in stderr
    assert (project / "notes.md").read_text() == "a person's notes\n"
    assert "the person's edit" in (project / "calc.py").read_text()
    assert git(project, "stash", "list").stdout == ""


def test_a_stash_and_its_drop_of_the_runs_own_work_are_saved_first_and_undoable(
    project, wrap, set_mode, git, interlock
):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true").returncode == 0
    (project / "scratch.txt").write_text("the run's own experiment\n")
    got = wrap(project, "-c", "git stash -u && git stash drop")
    assert got.returncode == 0, got.stderr
    assert b"saved first" in got.stderr
    assert not (project / "scratch.txt").exists()
    assert interlock(project, "undo").returncode == 0
    assert (project / "scratch.txt").read_text() == "the run's own experiment\n"


def test_a_stash_and_its_pop_run_untouched(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    (project / "notes.md").write_text("a person's notes\n")
    assert wrap(project, "-c", "true").returncode == 0
    got = wrap(project, "-c", "git stash -u -q && git stash pop -q")
    assert got.returncode == 0, got.stderr
    assert b"interlock:" not in got.stderr
    assert (project / "notes.md").read_text() == "a person's notes\n"
