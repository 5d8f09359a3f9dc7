"""git options whose value is known only at run time, glued or not, judged in a real tree.

An option that names a program (`--upload-pack`, `--receive-pack`, `--exec`, `-u`,
`--extcmd`, `--httpd`, `--to-cmd`, `clone -c core.sshCommand=...`, a `--template` of hooks)
runs unknown code when its value is built at run time, whether it is written as one word
(`--upload-pack="$X"`, `-u"$X"`) or two; a known value is judged as the command it is. A
global option (`-C`, `--git-dir`, `--work-tree`, `-c`, `--config-env`) with a run-time value
points git at an unknown repository or gives it unknown configuration in either spelling.
Checkout operands that no ref name can be (`src/.`, `src//lib`, a quoted glob) are pathspecs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate


def verdict(command: str, cwd: Path) -> tuple[str, list[str]]:
    result = evaluate(command, str(cwd), mode="blocking").result
    return result.verdict, [f"{f.rule}: {f.reason}" for f in result.findings]


@pytest.fixture
def dirty(git_repo: Path) -> Path:
    """src/app.py and src/lib/util.py hold uncommitted changes."""
    (git_repo / "src" / "lib").mkdir()
    (git_repo / "src" / "lib" / "util.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "lib"], cwd=git_repo, check=True)
    (git_repo / "src" / "app.py").write_text("print('edited')\n")
    (git_repo / "src" / "lib" / "util.py").write_text("x = 2\n")
    return git_repo


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ('git fetch --upload-pack="$X" origin', "--upload-pack"),
        ('git fetch --upload-pack "$X" origin', "--upload-pack"),
        ('git fetch --upload="$X" origin', "--upload-pack"),
        ('git pull --upload-pack="$X" origin', "--upload-pack"),
        ('git clone --upload-pack="$X" url dir', "--upload-pack"),
        ('git clone -u"$X" url dir', "-u"),
        ('git clone -qu"$X" url dir', "-u"),
        ('git ls-remote --upload-pack="$X" origin', "--upload-pack"),
        ('git ls-remote --exec="$X" origin', "--exec"),
        ('git push --receive-pack="$X" origin main', "--receive-pack"),
        ('git push --exec="$X" origin main', "--exec"),
        ('git archive --exec="$X" --remote=url HEAD', "--exec"),
        ('git send-pack --receive-pack="$X" url main', "--receive-pack"),
        ('git fetch-pack --upload-pack="$X" url', "--upload-pack"),
        ('git difftool --extcmd="$X"', "--extcmd"),
        ('git difftool -x"$X"', "-x"),
        ('git instaweb --httpd="$X"', "--httpd"),
        ('git instaweb -d "$X"', "-d"),
        ('git daemon --access-hook="$X"', "--access-hook"),
        ('git send-email --to-cmd="$X" a.patch', "--to-cmd"),
        ('git send-email --cc-cmd="$X" a.patch', "--cc-cmd"),
        ('git send-email --header-cmd="$X" a.patch', "--header-cmd"),
        ('git send-email --sendmail-cmd="$X" a.patch', "--sendmail-cmd"),
        ('git clone -c core.sshCommand="$X" url dir', "core.sshcommand"),
        ('git clone --config="core.sshCommand=$X" url dir', "core.sshcommand"),
        ('git clone --config "core.sshCommand=$X" url dir', "core.sshcommand"),
        ('git clone --template="$T" url dir', "template directory"),
        ('git init --template "$T"', "template directory"),
        ('git -c"core.pager=$X" log', "core.pager"),
        ('git -ccore.pager="$X" log', "core.pager"),
        ('git -c "core.pager=$X" log', "core.pager"),
        ('git -c core.sshCommand="$X" fetch', "core.sshcommand"),
    ],
)
def test_a_program_option_built_at_run_time_is_unknown_code(git_repo: Path, command: str, why: str):
    found, reasons = verdict(command, git_repo)
    assert found == "block", reasons
    assert any(r.startswith("git.config-code") and why in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        'git fetch --upload-pack="rm -rf src" origin',
        'git clone -u"rm -rf src" url dir',
        'git send-email --to-cmd="rm -rf src" a.patch',
        'git instaweb --httpd="rm -rf src"',
        'git daemon --access-hook="rm -rf src"',
        'git clone --config=core.sshCommand="rm -rf src" url dir',
        'git clone -c core.sshCommand="rm -rf src" url dir',
        "git -ccore.pager='rm -rf src' log",
    ],
)
def test_a_known_program_option_is_judged_as_the_command_it_runs(dirty: Path, command: str):
    found, reasons = verdict(command, dirty)
    assert found == "block", reasons
    assert any(r.startswith("fs.rm-recursive") for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        'git commit -m"$MSG"',
        'git log --format="$FMT"',
        'git clone -c core.sshCommand=ssh -o "$NAME" url dir',
        "git init --template=",
        'git fetch -u"$X" origin',  # fetch -u is --update-head-ok, not a program
        'git clone -b"$B" url dir',
    ],
)
def test_other_run_time_values_run_no_code(git_repo: Path, command: str):
    assert verdict(command, git_repo) == ("allow", [])


@pytest.mark.parametrize(
    "command",
    [
        'git -C"$d" reset --hard',
        'git -C "$d" reset --hard',
        'git -C"$d" clean -fd',
        'git --git-dir="$D" reset --hard',
        'git --work-tree="$W" checkout .',
        'git --work-tree "$W" checkout .',
        'git --git-dir="$D" --work-tree="$W" clean -fdx',
    ],
)
def test_a_global_option_built_at_run_time_may_name_any_repository(git_repo: Path, command: str):
    found, reasons = verdict(command, git_repo)  # this tree is clean: the target is not it
    assert found == "block", reasons
    assert any("a repository named by --git-dir/--work-tree" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        'git --config-env="core.hooksPath=$V" commit -m x',
        "git --config-env=core.hooksPath=V commit -m x",
        'git -c"core.hooksPath=$H" commit -m x',
    ],
)
def test_glued_global_configuration_is_read_like_the_separate_spelling(
    git_repo: Path, command: str
):
    found, reasons = verdict(command, git_repo)
    assert found == "block", reasons
    assert any(r.startswith("selfdisable.hooks-path") for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        "git checkout src/.",
        "git checkout src/./",
        "git checkout ./src/.",
        "git checkout src/lib/.",
        "git checkout src//lib",
        "git checkout src/./lib",
        "git checkout 'src/*'",
        'git checkout "src/[a]*.py"',
        "git checkout 'src/app.p?'",
    ],
)
def test_checkout_of_an_operand_no_ref_can_name_is_a_pathspec(dirty: Path, command: str):
    found, reasons = verdict(command, dirty)
    assert found == "block", reasons
    assert any(r.startswith("git.checkout-discard") for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    ["git checkout main", "git checkout HEAD@{1}", "git checkout v1.2", "git checkout feature/x"],
)
def test_checkout_of_a_ref_name_is_a_switch(dirty: Path, command: str):
    assert verdict(command, dirty) == ("allow", [])


def test_checkout_of_a_word_no_ref_names_checks_out_that_path(dirty: Path):
    # `git checkout src` with no ref named src is `git checkout -- src`
    found, reasons = verdict("git checkout src", dirty)
    assert found == "block" and reasons[0].startswith("git.checkout-discard"), reasons
    assert verdict("git checkout lib", dirty / "src")[0] == "block"
    assert verdict("git checkout nosuch", dirty) == ("allow", [])  # git fails; nothing lost
    subprocess.run(["git", "branch", "src"], cwd=dirty, check=True)
    assert verdict("git checkout src", dirty) == ("allow", [])  # git prefers the ref
    assert verdict("git checkout -- src", dirty)[0] == "block"  # never a ref after --
    assert verdict("git checkout HEAD -- src", dirty)[0] == "block"
    subprocess.run(["git", "tag", "lib"], cwd=dirty, check=True)
    assert verdict("git checkout lib", dirty / "src") == ("allow", [])


def test_checkout_of_the_previous_branch_is_a_switch(dirty: Path):
    (dirty / "-").write_text("a file named -\n")  # `git checkout -` never checks it out
    subprocess.run(["git", "add", "--", "-"], cwd=dirty, check=True)
    subprocess.run(["git", "commit", "-qm", "dash", "--", "-"], cwd=dirty, check=True)
    (dirty / "-").write_text("edited\n")
    subprocess.run(["git", "branch", "-q", "other"], cwd=dirty, check=True)
    subprocess.run(["git", "checkout", "-q", "other"], cwd=dirty, check=True)
    assert verdict("git checkout -", dirty) == ("allow", [])
    assert verdict("git checkout @{-1}", dirty) == ("allow", [])


def test_checkout_of_a_word_named_at_run_time_may_be_a_path(git_repo: Path, dirty: Path):
    for command in ('git checkout "$BRANCH"', "git checkout $(git rev-parse HEAD)"):
        found, reasons = verdict(command, dirty)
        assert found == "block" and reasons[0].startswith("git.checkout-discard"), reasons
    subprocess.run(["git", "stash", "-q"], cwd=dirty, check=True)
    assert verdict('git checkout "$BRANCH"', dirty) == ("allow", [])  # nothing unsaved


@pytest.mark.parametrize(
    "command",
    [
        "git restore src/.",
        "git restore src//lib",
        "git clean -f src/.",
        "git rm -f src/./app.py",
        "git checkout -- src/.",
        "git checkout HEAD src/./",
    ],
)
def test_other_pathspecs_are_normalised_like_git_does(dirty: Path, command: str):
    (dirty / "src" / "new.py").write_text("untracked\n")
    assert verdict(command, dirty)[0] == "block"


@pytest.mark.parametrize(
    "command",
    [
        "git -c core.worktree=/tmp/elsewhere reset --hard",
        'git -c core.worktree="$W" checkout .',
        "git -c core.worktree=../other clean -fd",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.worktree GIT_CONFIG_VALUE_0=/x git reset --hard",
        "git --config-env=core.worktree=W reset --hard",
    ],
)
def test_core_worktree_configuration_points_git_at_another_tree(git_repo: Path, command: str):
    found, reasons = verdict(command, git_repo)
    assert found == "block", reasons
    assert any("a repository named by --git-dir/--work-tree" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        "git --exec-path=/tmp/tools fetch origin",
        'git --exec-path="$X" fetch origin',
        "git -c alias.f=fetch --exec-path=/tmp/tools f origin",
    ],
)
def test_exec_path_makes_git_run_programs_from_elsewhere(git_repo: Path, command: str):
    found, reasons = verdict(command, git_repo)
    assert found == "block", reasons
    assert any(r.startswith("git.config-code") and "--exec-path" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    ["git --exec-path", "git --exec-path=/usr/lib/git-core status", "git -c core.editor=vi status"],
)
def test_git_s_own_exec_path_and_other_keys_are_allowed(git_repo: Path, command: str):
    assert verdict(command, git_repo) == ("allow", [])


@pytest.mark.parametrize(
    "command",
    [
        "git repack -a -d",
        "git repack -ad",
        "git repack -a -d -f --depth 50",
        "git repack -A -d --unpack-unreachable=now",
        'git repack -A -d --unpack-unreachable="$WHEN"',
    ],
)
def test_repack_that_drops_unreachable_objects_is_a_discard(git_repo: Path, command: str):
    found, reasons = verdict(command, git_repo)
    assert found == "block", reasons
    assert any(r.startswith("git.repack-drop") for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        "git repack -A -d",
        "git repack -Ad",
        "git repack -a",
        "git repack -d",
        "git repack -a -d --keep-unreachable",
        "git repack -a -d --cruft",
        "git repack -a -d -n",
        "git repack -A -d --unpack-unreachable=2.weeks.ago",
    ],
)
def test_repack_that_keeps_unreachable_objects_is_allowed(git_repo: Path, command: str):
    assert verdict(command, git_repo) == ("allow", [])


@pytest.mark.parametrize(
    "command",
    [
        "git mv -f README.md src/app.py",
        "git mv --force README.md src/app.py",
        "git mv -f app.py src/",
        "git mv -kf README.md src/app.py",
    ],
)
def test_git_mv_force_over_unsaved_work_is_a_discard(dirty: Path, command: str):
    (dirty / "app.py").write_text("top\n")
    found, reasons = verdict(command, dirty)
    assert found == "block", reasons
    assert any(r.startswith("git.mv-force") and "src/app.py" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        "git mv -f README.md src/new.py",
        "git mv README.md src/app.py",
        "git mv -n -f README.md src/app.py",
        "git mv -f README.md src/lib/",
    ],
)
def test_git_mv_that_overwrites_nothing_unsaved_is_allowed(dirty: Path, command: str):
    assert verdict(command, dirty) == ("allow", [])


def test_a_stash_action_named_at_run_time_may_clear_every_entry(dirty: Path):
    subprocess.run(["git", "stash", "-q"], cwd=dirty, check=True)
    found, reasons = verdict('git stash "$ACTION"', dirty)
    assert found == "block", reasons
    assert any(r.startswith("git.stash-clear") for r in reasons), reasons


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("git reflog drop --all", "git.reflog-expire"),
        ("git send-pack --force url main", "git.push-force"),
        ("git send-pack url +main", "git.push-force"),
        ("git http-push --force url main", "git.push-force"),
        ("GIT_TEMPLATE_DIR=/tmp/t git init x", "git.config-code"),
        ('git -c trailer.sign.command="$X" commit -m x', "git.config-code"),
        ('git -c difftool.x.path="$X" difftool', "git.config-code"),
        ('git -c mergetool.x.path="$X" mergetool', "git.config-code"),
        ('git -c sendemail.sendmailcmd="$X" send-email a.patch', "git.config-code"),
        ('git -c hook.lint.command="$X" commit -m x', "git.config-code"),
        ('git -c instaweb.httpd="$X" instaweb', "git.config-code"),
        ('git -c gpg.ssh.defaultKeyCommand="$X" commit -S -m x', "git.config-code"),
    ],
)
def test_more_git_programs_and_discards(git_repo: Path, command: str, rule: str):
    found, reasons = verdict(command, git_repo)
    assert found == "block", reasons
    assert any(r.startswith(rule) for r in reasons), reasons


def test_trailer_command_known_is_judged_as_code(dirty: Path):
    found, reasons = verdict("git -c trailer.s.command='rm -rf src' commit -m x", dirty)
    assert found == "block" and any(r.startswith("fs.rm-recursive") for r in reasons), reasons
    assert verdict("git send-pack url main", dirty) == ("allow", [])
