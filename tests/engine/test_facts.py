"""interlock.engine.facts: what is unsaved in a real worktree (one `git status`), what each kind
of discard destroys, the facts' JSON round trip, leases, aliases and the daemon's pid (issue
14)."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from interlock.engine.facts import TreeFacts, collect_facts, daemon_pid, lease_drops, read_aliases
from interlock.errors import GitError
from interlock.git import discover


@pytest.fixture
def busy_repo(git_repo, git):
    """Every kind of unsaved work: a staged-only change, an unstaged one, a staged rename, an
    untracked one-letter file, a hand-made ignored file and an ignored build directory."""
    (git_repo / ".gitignore").write_text("notes.txt\nbuild/\n")
    (git_repo / "old.txt").write_text("old\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "more")
    (git_repo / "README.md").write_text("# staged\n")
    git(git_repo, "add", "README.md")
    (git_repo / "src" / "app.py").write_text("print('unstaged')\n")
    git(git_repo, "mv", "old.txt", "new.txt")
    (git_repo / "a").write_text("untracked\n")
    (git_repo / "notes.txt").write_text("mine\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_text("binary\n")
    return git_repo


def test_the_facts_of_a_busy_worktree_sort_every_entry_by_kind(busy_repo):
    facts = collect_facts(discover(busy_repo))
    assert facts.staged == {"README.md", "new.txt"}  # the rename's source is not an entry
    assert facts.unstaged == {"src/app.py"}
    assert facts.untracked == {"a"}
    assert facts.ignored == {"notes.txt", "build/"}
    assert facts.precious_ignored == {"notes.txt"}  # build output is not work
    assert (facts.unborn, facts.operation, facts.stash_count) == (False, None, 0)
    assert facts.kinds_of("README.md") == {"staged"}
    assert facts.kinds_of("src/app.py") == {"unstaged"}
    assert facts.kinds_of("a") == {"untracked"}
    assert facts.kinds_of("notes.txt") == {"ignored"}
    assert facts.kinds_of("old.txt") == frozenset()


@pytest.mark.parametrize(
    ("destroys", "paths"),
    [
        ("unstaged", {"src/app.py"}),
        ("tracked", {"src/app.py", "README.md", "new.txt"}),
        ("untracked", {"a"}),
        ("untracked+ignored", {"a", "notes.txt"}),
        ("ignored", {"notes.txt"}),
        ("files", {"src/app.py", "a", "notes.txt"}),
        ("all", {"src/app.py", "README.md", "new.txt", "a", "notes.txt"}),
    ],
)
def test_each_kind_of_discard_destroys_its_own_kinds_of_work(busy_repo, destroys, paths):
    assert collect_facts(discover(busy_repo)).unsaved(destroys) == paths


def test_the_facts_survive_their_json_round_trip_and_are_frozen(busy_repo):
    facts = dataclasses.replace(collect_facts(discover(busy_repo)), branches=("main", "x"))
    assert TreeFacts.from_json(facts.to_json()) == facts
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.untracked = frozenset()  # type: ignore[misc]


def test_facts_that_git_cannot_read_raise_and_never_read_as_a_clean_tree(git_repo):
    (git_repo / "a.txt").write_text("work\n")
    loc = discover(git_repo)
    shutil.rmtree(git_repo / ".git")
    with pytest.raises(GitError):
        collect_facts(loc)


def test_a_lease_on_a_ref_without_a_remote_tracking_tip_drops_nothing(git_repo, tmp_path, git):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    git(git_repo, "push", "-q", "origin", "main")
    loc = discover(git_repo)
    assert lease_drops(loc, "origin", ("main:newbranch",)) == []
    # a URL has no remote-tracking branches: git refuses the bare lease, nothing is dropped
    assert lease_drops(loc, str(remote), ("main",)) == []
    git(git_repo, "commit", "-q", "--allow-empty", "-m", "ahead")
    git(git_repo, "push", "-q", "origin", "main")
    git(git_repo, "reset", "-q", "--hard", "HEAD~1")
    assert lease_drops(loc, "origin", ("main",)) == [
        "1 commit on origin/main (at "
        f"{git(git_repo, 'rev-parse', 'origin/main').stdout[:12]}) that the pushed commit does not "
        "contain"
    ]


def test_aliases_are_read_by_lowercased_name_and_nothing_else(git_repo, tmp_path, git):
    git(git_repo, "config", "alias.CO", "checkout")
    git(git_repo, "config", "user.name", "someone")
    assert read_aliases(str(git_repo)) == {"co": "checkout"}
    assert read_aliases(str(tmp_path / "missing")) == {}
    git(git_repo, "config", "--unset", "alias.CO")
    assert read_aliases(str(git_repo)) == {}


def test_the_daemon_pid_is_the_pid_files_number_and_none_without_one(git_repo):
    loc = discover(git_repo)
    assert daemon_pid(loc) is None
    loc.state_dir.mkdir(parents=True, exist_ok=True)
    (loc.state_dir / "daemon.pid").write_text("4242\n")
    assert daemon_pid(loc) == 4242
    (loc.state_dir / "daemon.pid").write_text("junk\n")
    assert daemon_pid(loc) is None
