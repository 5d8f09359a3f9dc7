"""Git discard rules: every discarding form blocks, its safe neighbours are allowed."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.engine.findings import Finding, RuleInfo
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.shell.model import Word


@pytest.fixture(scope="session")
def discards(inv: Callable[..., Invocation]) -> Callable[..., list[Finding]]:
    def discards(cmd: str, **kw: object) -> list[Finding]:
        return [f for f in rules.check_invocation(inv(cmd, **kw)) if f.kind == "discard"]

    return discards


@pytest.fixture(scope="session")
def rule_ids(discards: Callable[..., list[Finding]]) -> Callable[..., set[str]]:
    def rule_ids(cmd: str, **kw: object) -> set[str]:
        return {f.rule for f in discards(cmd, **kw)}

    return rule_ids


BLOCKED = [
    # reset
    ("git reset --hard", "git.reset-hard"),
    ("git reset --hard HEAD~2", "git.reset-hard"),
    ("git reset --hard origin/main", "git.reset-hard"),
    ("git reset --merge", "git.reset-hard"),
    ("git reset -q --hard", "git.reset-hard"),
    ("git reset --soft HEAD~1 --hard", "git.reset-hard"),
    ("git reset --har", "git.reset-hard"),
    ("git -C ../other reset --hard", "git.reset-hard"),
    ("git -c color.ui=never reset --hard", "git.reset-hard"),
    ("git --no-pager -p -P --bare reset --hard", "git.reset-hard"),
    ("git --git-dir=.git --work-tree=. reset --hard", "git.reset-hard"),
    ("git --git-dir .git reset --hard", "git.reset-hard"),
    ("git --namespace=x --literal-pathspecs --no-replace-objects reset --hard", "git.reset-hard"),
    ("git --exec-path=/usr/lib/git-core --config-env=a.b=C reset --hard", "git.reset-hard"),
    ("/usr/bin/git reset --hard", "git.reset-hard"),
    ("\\git reset --hard", "git.reset-hard"),
    ("git-reset --hard", "git.reset-hard"),
    ("git -c alias.wipe='reset --hard' wipe", "git.reset-hard"),
    ("$GIT reset --hard", "git.reset-hard"),
    ("git $OPTS reset --hard", "git.reset-hard"),
    ("git -C x $OPTS clean -fd", "git.clean-force"),
    # checkout
    ("git checkout -- .", "git.checkout-discard"),
    ("git checkout -- src/app.py", "git.checkout-discard"),
    ("git checkout .", "git.checkout-discard"),
    ("git checkout HEAD -- src/app.py", "git.checkout-discard"),
    ("git checkout main -- src/app.py", "git.checkout-discard"),
    ("git checkout HEAD src/app.py", "git.checkout-discard"),
    ("git checkout src/app.py", "git.checkout-discard"),
    ("git checkout a.py b.py", "git.checkout-discard"),
    ("git checkout src/", "git.checkout-discard"),
    ("git checkout ./src", "git.checkout-discard"),
    ("git checkout Makefile", "git.checkout-discard"),
    ("git checkout .env", "git.checkout-discard"),
    ("git checkout '*.py'", "git.checkout-discard"),
    ("git checkout :/", "git.checkout-discard"),
    ("git checkout -f main", "git.checkout-discard"),
    ("git checkout --force main", "git.checkout-discard"),
    ("git checkout -f", "git.checkout-discard"),
    ("git checkout --ours -- conflicted.txt", "git.checkout-discard"),
    ("git checkout --theirs -- .", "git.checkout-discard"),
    ("git checkout -p", "git.checkout-discard"),
    ("git checkout --pathspec-from-file=list.txt", "git.checkout-discard"),
    ("git checkout $(git diff --name-only)", "git.checkout-discard"),
    ("git -C sub checkout -- .", "git.checkout-discard"),
    # restore
    ("git restore src/app.py", "git.restore-worktree"),
    ("git restore .", "git.restore-worktree"),
    ("git restore --worktree src/app.py", "git.restore-worktree"),
    ("git restore -W src/app.py", "git.restore-worktree"),
    ("git restore --source=HEAD~3 src/app.py", "git.restore-worktree"),
    ("git restore -s HEAD~3 src/app.py", "git.restore-worktree"),
    ("git restore --staged --worktree src/app.py", "git.restore-worktree"),
    ("git restore -SW .", "git.restore-worktree"),
    ("git restore -p", "git.restore-worktree"),
    ("git restore -- src/app.py", "git.restore-worktree"),
    # switch
    ("git switch --discard-changes main", "git.switch-discard"),
    ("git switch -f main", "git.switch-discard"),
    ("git switch --force main", "git.switch-discard"),
    ("git switch --discard main", "git.switch-discard"),
    # clean
    ("git clean -fd", "git.clean-force"),
    ("git clean -fdx", "git.clean-force"),
    ("git clean -f -- src/", "git.clean-force"),
    ("git clean -ffdX", "git.clean-force"),
    ("git clean --force", "git.clean-force"),
    ("git clean -d", "git.clean-force"),
    ("git clean -i", "git.clean-force"),
    ("git clean -f -e .env", "git.clean-force"),
    # stash
    ("git stash drop", "git.stash-drop"),
    ("git stash drop stash@{1}", "git.stash-drop"),
    ("git stash drop -q", "git.stash-drop"),
    ("git stash clear", "git.stash-clear"),
    # branch
    ("git branch -D topic", "git.branch-force-delete"),
    ("git branch --delete --force topic", "git.branch-force-delete"),
    ("git branch -d -f topic", "git.branch-force-delete"),
    ("git branch -df topic", "git.branch-force-delete"),
    ("git branch -D a b c", "git.branch-force-delete"),
    ("git branch -f main HEAD~3", "git.branch-force-move"),
    ("git branch --force topic origin/topic", "git.branch-force-move"),
    # rm
    ("git rm -f src/app.py", "git.rm-force"),
    ("git rm -rf src", "git.rm-force"),
    ("git rm --force -r .", "git.rm-force"),
    # worktree
    ("git worktree remove --force ../wt", "git.worktree-remove-force"),
    ("git worktree remove -f -f ../wt", "git.worktree-remove-force"),
    # reflog, gc, prune
    ("git reflog expire --expire=now --all", "git.reflog-expire"),
    ("git reflog expire --expire-unreachable=now --all", "git.reflog-expire"),
    ("git reflog delete HEAD@{1}", "git.reflog-expire"),
    ("git gc --prune=now", "git.gc-prune-now"),
    ("git gc --prune=all", "git.gc-prune-now"),
    ("git gc --aggressive --prune=now", "git.gc-prune-now"),
    ("git gc --prune=1.hour.ago", "git.gc-prune-now"),
    ("git prune", "git.prune"),
    ("git prune --expire=now", "git.prune"),
    # push
    ("git push --force", "git.push-force"),
    ("git push -f origin main", "git.push-force"),
    ("git push origin +main", "git.push-force"),
    ("git push origin +HEAD:main", "git.push-force"),
    ("git push --mirror", "git.push-force"),
    ("git push origin --delete old", "git.push-force"),
    ("git push -d origin old", "git.push-force"),
    ("git push origin :old", "git.push-force"),
    ("git push --prune origin", "git.push-force"),
    ("git push --force --force-with-lease", "git.push-force"),
    ("git push --force-with-lease --no-force-with-lease origin +main", "git.push-force"),
    ("git push origin main --force", "git.push-force"),
    ("git push origin -- +main", "git.push-force"),
    ("git push -- origin +HEAD:main", "git.push-force"),
    ("git push origin +refs/heads/main:refs/heads/main", "git.push-force"),
    ("git push --forc origin main", "git.push-force"),
    ("git push --for origin main", "git.push-force"),
    ("git push --repo=origin +main", "git.push-force"),
    ("git push --force-with-lease=main:abc123 origin +main +topic", "git.push-force"),
    ("git push --no-force --force origin main", "git.push-force"),
    # branch renames and copies over an existing branch
    ("git branch -M main", "git.branch-force-rename"),
    ("git branch -M topic main", "git.branch-force-rename"),
    ("git branch -C topic main", "git.branch-force-rename"),
    ("git branch -fm topic main", "git.branch-force-rename"),
    ("git branch --move --force topic main", "git.branch-force-rename"),
    ("git branch --copy -f topic main", "git.branch-force-rename"),
    # tags
    ("git tag -d v1.0", "git.tag-delete"),
    ("git tag --delete v1.0 v1.1", "git.tag-delete"),
    ("git tag --del v1.0", "git.tag-delete"),
    ("git tag -f v1.0 HEAD~1", "git.tag-force-move"),
    ("git tag -fam 'moved' v1.0", "git.tag-force-move"),
    # fetch into a local branch with a forced refspec
    ("git fetch origin +main:main", "git.fetch-force"),
    ("git fetch origin +refs/heads/topic:refs/heads/topic", "git.fetch-force"),
    ("git fetch --force origin topic:topic", "git.fetch-force"),
    ("git fetch -uf origin main:main", "git.fetch-force"),
    ("git pull origin +main:topic", "git.fetch-force"),
    ("git fetch origin '+refs/heads/*:refs/heads/*'", "git.fetch-force"),
    # abort or skip of an operation in progress
    ("git merge --abort", "git.operation-abort"),
    ("git rebase --abort", "git.operation-abort"),
    ("git rebase --abor", "git.operation-abort"),
    ("git cherry-pick --abort", "git.operation-abort"),
    ("git revert --abort", "git.operation-abort"),
    ("git am --abort", "git.operation-abort"),
    ("git rebase --skip", "git.operation-abort"),
    ("git cherry-pick --skip", "git.operation-abort"),
    ("git -C sub merge --abort", "git.operation-abort"),
    # submodules
    ("git submodule deinit -f lib/dep", "git.submodule-force"),
    ("git submodule deinit --all --force", "git.submodule-force"),
    ("git submodule -q deinit --forc lib", "git.submodule-force"),
    ("git submodule update --init --force", "git.submodule-force"),
    # gc and prune made immediate through configuration
    ("git -c gc.pruneExpire=now gc", "git.gc-prune-now"),
    ("git -c gc.reflogExpireUnreachable=now -c gc.pruneExpire=now gc", "git.gc-prune-now"),
    ("git -c gc.reflogExpire=0 gc --auto", "git.gc-prune-now"),
    ("git -c gc.pruneExpire=now maintenance run --task=gc", "git.gc-prune-now"),
    ("git gc --prun=now", "git.gc-prune-now"),
    # restore options as git reads them
    ("git restore --no-staged src/app.py", "git.restore-worktree"),
    ("git restore -S --no-staged src/app.py", "git.restore-worktree"),
    ("git restore -SW src/app.py", "git.restore-worktree"),
    ("git restore --stag --wor src/app.py", "git.restore-worktree"),
    ("git restore --worktree=x src/app.py", "git.restore-worktree"),
    # options bundled, split and abbreviated
    ("git clean -d -f -x", "git.clean-force"),
    ("git clean -xdf", "git.clean-force"),
    ("git clean --forc -d", "git.clean-force"),
    ("git checkout --forc main", "git.checkout-discard"),
    ("git switch --disc main", "git.switch-discard"),
    ("git branch --del --forc topic", "git.branch-force-delete"),
    ("git branch -dfq topic", "git.branch-force-delete"),
    ("git worktree remove --forc ../wt", "git.worktree-remove-force"),
    ("git stash drop -q", "git.stash-drop"),
    # command words a case-insensitive file system or Windows resolves to git
    ("GIT reset --hard", "git.reset-hard"),
    ("Git clean -fdx", "git.clean-force"),
    ("git.exe reset --hard", "git.reset-hard"),
    ("'C:/Program Files/Git/bin/git.exe' reset --hard", "git.reset-hard"),
    ("'C:\\Program Files\\Git\\cmd\\GIT.EXE' stash clear", "git.stash-clear"),
    # update-ref
    ("git update-ref -d refs/heads/topic", "git.update-ref-delete"),
    ("git update-ref -d refs/interlock/main/green/1", "git.update-ref-delete"),
    ("git update-ref -d HEAD", "git.update-ref-delete"),
    ("git update-ref --stdin", "git.update-ref-delete"),
    ("git update-ref refs/heads/main HEAD~3", "git.update-ref-move"),
    # history rewrite, plumbing
    ("git filter-branch --tree-filter 'rm -f secret' HEAD", "git.history-rewrite"),
    ("git filter-repo --path src --invert-paths", "git.history-rewrite"),
    ("git checkout-index -a -f", "git.checkout-index-force"),
    ("git checkout-index --force -- src/app.py", "git.checkout-index-force"),
    ("git read-tree --reset -u HEAD", "git.read-tree-reset"),
]

ALLOWED = [
    "git reset",
    "git reset --soft HEAD~1",
    "git reset HEAD file.py",
    "git reset --keep HEAD~1",
    "git reset --mixed",
    "git reset -- src/app.py",
    "git reset --hard --keep",
    "git checkout main",
    "git checkout feature/login",
    "git checkout origin/main",
    "git checkout v1.2.3",
    "git checkout HEAD~1",
    "git checkout -",
    "git checkout @{-1}",
    'git checkout "$BRANCH"',
    "git checkout -b feature/x",
    "git checkout --orphan gh-pages",
    "git checkout -b topic origin/topic",
    "git checkout --detach",
    "git checkout --detach main",
    "git restore --staged src/app.py",
    "git restore -S .",
    "git restore",
    "git switch main",
    "git switch -c topic",
    "git switch --detach HEAD~1",
    "git clean -n",
    "git clean --dry-run -d",
    "git clean -fdn",
    "git clean -f --dry-run",
    "git stash",
    "git stash push -m wip",
    "git stash list",
    "git stash pop",
    "git stash apply stash@{1}",
    "git stash show -p",
    "git stash -u",
    "git branch -d topic",
    "git branch -a",
    "git branch topic",
    "git branch -m old new",
    "git branch --list -f",
    "git rm --cached src/app.py",
    "git rm -f --cached src/app.py",
    "git rm src/app.py",
    "git rm -r -n src",
    "git worktree remove ../wt",
    "git worktree prune",
    "git worktree add ../wt",
    "git reflog",
    "git reflog show main",
    "git gc",
    "git gc --aggressive",
    "git gc --prune=2.weeks.ago",
    "git gc --no-prune",
    "git prune -n",
    "git prune --dry-run",
    "git push --force-with-lease=main:abc123 origin main",
    "git push --force-with-lease=main:abc123 origin +main",
    "git push --force-with-lease=main: origin main",
    "git push --force --no-force origin main",
    "git branch -m topic renamed",
    "git branch -c topic copy",
    "git tag v1.0",
    "git tag -l 'v*'",
    "git tag -a v1.0 -m 'release -d'",
    "git tag --list -f",
    "git fetch origin",
    "git fetch origin main",
    "git fetch origin main:main",
    "git fetch origin +main:refs/remotes/origin/main",
    "git fetch origin '+refs/tags/*:refs/tags/*'",
    "git fetch --dry-run origin +main:main",
    "git pull --rebase origin main",
    "git merge --continue",
    "git merge --quit",
    "git rebase --continue",
    "git rebase --quit",
    "git rebase --edit-todo",
    "git cherry-pick --continue",
    "git merge --no-ff topic",
    "git merge -m '--abort' topic",
    "git submodule deinit lib/dep",
    "git submodule update --init --recursive",
    "git submodule status",
    "git gc --prune=1.week.ago",
    "git -c gc.pruneExpire=2.weeks.ago gc",
    "git restore --staged --worktree --no-worktree src/app.py",
    "git restore --stag src/app.py",
    "git push origin main",
    "git push -u origin HEAD",
    "git push -n --force",
    "git push --dry-run origin :old",
    "git update-ref -d refs/remotes/origin/old",
    "git update-ref refs/remotes/origin/x HEAD",
    "git filter-repo --analyze",
    "git checkout-index -a",
    "git checkout-index -a -f --prefix=/tmp/export/",
    "git read-tree -m -u HEAD",
    "git commit -am 'fix parser'",
    "git commit -m 'git reset --hard'",
    "git commit --amend --no-edit",
    "git rebase -i HEAD~3",
    "git log --oneline -n 20",
    "git diff HEAD~1 -- src/",
    "git status --porcelain",
    "git add -A",
    "git fetch --prune",
    "git --version reset --hard",
    "git reset --hard --help",
    "git help reset",
    "hub reset --hard",
    "gh pr checkout 12",
    "echo git reset --hard",
    "grep -rn 'git clean -fdx' docs/",
]


@pytest.mark.parametrize(("cmd", "rule_id"), BLOCKED)
def test_discarding_git_form_is_flagged_with_its_rule(
    cmd: str, rule_id: str, inv, rule_ids
) -> None:
    assert rule_id in rule_ids(cmd), rules.check_invocation(inv(cmd))


@pytest.mark.parametrize("cmd", ALLOWED)
def test_safe_git_form_is_not_a_discard(cmd: str, discards) -> None:
    # by text alone: a checkout operand that reads as a branch is left to the tree
    assert [f for f in discards(cmd) if not f.targets or not f.targets.by_tree_only] == []


@pytest.fixture(scope="session")
def one(discards: Callable[..., list[Finding]]) -> Callable[..., Finding]:
    def one(cmd: str, **kw: object) -> Finding:
        found = discards(cmd, **kw)
        assert len(found) == 1, found
        return found[0]

    return one


def test_reset_hard_to_another_revision_reports_the_revision_for_reachability(one) -> None:
    targets = one("git reset --hard HEAD~2").targets
    assert targets is not None and targets.refs == ("HEAD~2",) and targets.whole_tree
    assert targets.destroys == "tracked"
    assert one("git reset --hard").targets.refs == ()  # type: ignore[union-attr]
    assert one("git reset --hard HEAD").targets.refs == ()  # type: ignore[union-attr]


def test_reset_suggests_keep_with_the_same_revision(one) -> None:
    assert "git reset --keep origin/main" in one("git reset --hard origin/main").instead


def test_dash_c_directories_combine_into_the_finding_cwd(one) -> None:
    assert one("git -C ../other reset --hard").cwd == "../other"
    assert one("git -C a -C b clean -fd", cwd="sub").cwd == "sub/a/b"
    assert one("git -C /abs reset --hard", cwd="sub").cwd == "/abs"
    assert one("git -C $DIR reset --hard").cwd is None
    assert one("git reset --hard", cwd=None).cwd is None


def test_git_dir_and_work_tree_mark_the_targets_as_elsewhere(one) -> None:
    assert one("git --git-dir=../x/.git reset --hard").targets.git_dir_flag  # type: ignore[union-attr]
    assert one("GIT_WORK_TREE=/w git reset --hard").targets.git_dir_flag  # type: ignore[union-attr]
    assert not one("git reset --hard").targets.git_dir_flag  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("cmd", "destroys", "paths"),
    [
        ("git checkout -- src/app.py", "unstaged", ("src/app.py",)),
        ("git checkout HEAD -- src/app.py", "tracked", ("src/app.py",)),
        ("git checkout main a.py b.py", "tracked", ("a.py", "b.py")),
        ("git checkout --ours -- x.txt", "unstaged", ("x.txt",)),
        ("git restore src/app.py", "unstaged", ("src/app.py",)),
        ("git restore --source=HEAD~3 src/app.py", "tracked", ("src/app.py",)),
        ("git restore -SW src/app.py", "tracked", ("src/app.py",)),
        ("git clean -fd", "untracked", (".",)),
        ("git clean -fdx -- build", "untracked+ignored", ("build",)),
        ("git clean -fX", "ignored", (".",)),
        ("git rm -f a.py", "tracked", ("a.py",)),
        ("git worktree remove --force ../wt", "worktree", ("../wt",)),
    ],
)
def test_path_discards_report_what_they_destroy_where(
    cmd: str, destroys: str, paths: tuple[str, ...], one
) -> None:
    targets = one(cmd).targets
    assert targets is not None
    assert targets.destroys == destroys and targets.paths == paths


@pytest.mark.parametrize(
    "cmd",
    [
        "git checkout src/app.py",
        "git checkout main",
        "git checkout feature/login",
        "git checkout origin/main",
        "git checkout v1.2.3",
        "git checkout HEAD~1",
        "git checkout -",
        "git checkout @{-1}",
        "git checkout src",
    ],
)
def test_a_single_checkout_operand_is_a_candidate_path(cmd: str, one) -> None:
    # a switch when it names a commit, else a checkout of that path: the facts layer decides
    targets = one(cmd).targets
    assert targets is not None and targets.candidate and not targets.unknown
    assert targets.paths == (cmd.rsplit(" ", 1)[1],)


def test_a_single_checkout_operand_named_at_run_time_is_unknown(one) -> None:
    for cmd in ('git checkout "$BRANCH"', "git checkout $(git rev-parse HEAD)"):
        targets = one(cmd).targets
        assert targets is not None and targets.candidate and targets.unknown, cmd
        assert "git switch NAME" in one(cmd).instead, cmd
    assert "git switch" not in one("git checkout src/app.py").instead


def test_operands_after_dashdash_are_paths_never_candidates(one) -> None:
    assert not one("git checkout -- src/app.py").targets.candidate  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "cmd", ["git checkout -B feature/x", "git switch -C topic", "git worktree add -B t ../wt"]
)
def test_a_branch_reset_that_may_create_the_branch_is_left_to_the_tree(cmd: str, one) -> None:
    finding = one(cmd)
    assert finding.rule == "git.branch-force-move"
    assert finding.targets is not None and finding.targets.creates


def test_branch_force_is_a_discard_by_text_alone(one) -> None:
    targets = one("git branch -f topic main").targets
    assert targets is not None and not targets.creates and targets.refs == ("topic", "main")


def test_checkout_through_xargs_has_unknown_targets(one) -> None:
    targets = one("git checkout --", extra_args=True).targets
    assert targets is not None and targets.unknown and not targets.whole_tree


@pytest.mark.parametrize(
    ("cmd", "refs"),
    [
        ("git branch -D topic", ("topic",)),
        ("git branch -D a b", ("a", "b")),
        ("git stash drop", ("stash@{0}",)),
        ("git stash drop stash@{2}", ("stash@{2}",)),
        ("git push -f origin main", ("origin", "main")),
        ("git update-ref -d refs/heads/x", ("refs/heads/x",)),
    ],
)
def test_ref_discards_name_their_refs(cmd: str, refs: tuple[str, ...], one) -> None:
    targets = one(cmd).targets
    assert targets is not None and targets.refs == refs


def test_force_push_suggests_a_lease_with_an_expected_value_on_the_same_branch(one) -> None:
    instead = one("git push -f origin +main").instead
    assert "git push --force-with-lease=main:EXPECTED-SHA origin main" in instead


@pytest.mark.parametrize(
    "cmd",
    [
        "git push --force-with-lease",
        "git push --force-with-lease origin main",
        "git push --force-with-lease origin +main",
        "git push --force-with-lease=main origin +main",
        "git push --force-with-lease --force-if-includes origin main",
        "git push --force-w origin main",
    ],
)
def test_a_bare_lease_is_a_force_push_left_to_the_tree_to_judge(cmd: str, one) -> None:
    finding = one(cmd)
    assert finding.rule == "git.push-force"
    assert finding.targets is not None and finding.targets.lease
    assert "EXPECTED-SHA" in finding.instead


def test_a_force_push_without_a_lease_is_never_left_to_the_tree(one) -> None:
    targets = one("git push --force-with-lease=main origin +main +topic").targets
    assert targets is not None and not targets.lease


def test_branch_delete_through_xargs_is_unknown(one) -> None:
    targets = one("git branch -D", extra_args=True).targets
    assert targets is not None and targets.unknown


def test_every_git_finding_names_the_effective_command(one) -> None:
    finding = one("git -C x reset --hard")
    assert finding.text == "git -C x reset --hard"
    assert finding.reason and finding.instead


def test_unknown_command_name_without_git_subcommand_is_not_read_as_git(discards) -> None:
    assert discards("$EDITOR notes.txt") == []
    assert discards("$CMD status") == []


# --- the catalogue: every git rule explains itself, and its examples behave as described ---

GIT_RULES = [info for info in rules.all_rules() if info.id.startswith("git.")]


@pytest.mark.parametrize("info", GIT_RULES, ids=lambda i: i.id)
def test_git_rule_examples_block_and_allow_as_documented(info: RuleInfo, example) -> None:
    assert info.summary and info.why and info.instead and info.examples_block
    for text in info.examples_block:
        assert info.id in {f.rule for f in rules.check_invocation(example(text))}, text
    for text in info.examples_allow:  # by text alone: what only the tree can show aside
        found = rules.check_invocation(example(text))
        assert info.id not in {f.rule for f in found if not (f.targets and f.targets.by_tree_only)}


def test_rule_info_finds_rules_by_id() -> None:
    info = rules.rule_info("git.reset-hard")
    assert info is not None and info.kind == "discard"
    assert rules.rule_info("no.such-rule") is None


def test_rule_ids_are_family_dot_kebab_case() -> None:
    ids = [info.id for info in rules.all_rules()]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z]+\.[a-z]+(-[a-z]+)*", rule_id) for rule_id in ids), ids


# --- robustness: no argument list makes a rule raise ---

VOCAB = [
    "git",
    "rm",
    "find",
    "pytest",
    "make",
    "npm",
    "interlock",
    "-C",
    "-c",
    "--",
    "-f",
    "-rf",
    "-n",
    "-m",
    "--no-verify",
    "reset",
    "--hard",
    "checkout",
    "clean",
    "push",
    "-delete",
    "-exec",
    ";",
    "+",
    ".",
    ".git/hooks/x",
    "core.hooksPath=x",
    "run",
    "test",
    "-k",
    "not x",
    "python",
    "-m",
    "config",
    "stash",
    "drop",
    "branch",
    "-D",
    "=",
    "",
    "$X",
    "~",
    "*",
]


@st.composite
def words(draw: st.DrawFn) -> Word:
    text = draw(st.one_of(st.sampled_from(VOCAB), st.text(max_size=8)))
    literal = draw(st.booleans())
    return Word(text, text if literal else None, draw(st.booleans()))


def assert_rules_hold_for(
    argv: list[Word], assignments: list[Word], cwd: str | None, extra: bool
) -> None:
    invocation = Invocation(
        argv=tuple(argv), assignments=tuple(assignments), cwd=cwd, extra_args=extra
    )
    for finding in rules.check_invocation(invocation):
        assert rules.rule_info(finding.rule) is not None
    rules.classify_validator(invocation, ("make ci", "'unbalanced"))


INVOCATIONS = {
    "argv": st.lists(words(), max_size=8),
    "assignments": st.lists(words(), max_size=2),
    "cwd": st.one_of(st.none(), st.sampled_from(["", "sub", "/tmp", ".git", "../x"])),
    "extra": st.booleans(),
}


@given(**INVOCATIONS)
@settings(max_examples=200, deadline=None)
def test_rules_never_raise_on_any_invocation(
    argv: list[Word], assignments: list[Word], cwd: str | None, extra: bool
) -> None:
    assert_rules_hold_for(argv, assignments, cwd, extra)


@pytest.mark.slow
@given(**INVOCATIONS)
@settings(max_examples=5000, deadline=None)
def test_rules_never_raise_on_any_invocation_long_run(
    argv: list[Word], assignments: list[Word], cwd: str | None, extra: bool
) -> None:
    assert_rules_hold_for(argv, assignments, cwd, extra)
