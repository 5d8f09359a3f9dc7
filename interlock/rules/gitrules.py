"""The git discard rules: ids, what each destroys, and the one safe thing to do instead."""

from __future__ import annotations

from interlock.findings import Finding, Targets
from interlock.rules.common import catalog, make_finding, rule
from interlock.rules.gitcall import GitCall

rule(
    "git.reset-hard",
    "discard",
    "git reset --hard / --merge overwrites the working tree and the index",
    "throws away every uncommitted change to tracked files (staged and unstaged); with a "
    "revision it also moves the branch, leaving later commits unreferenced",
    "git stash push -m 'before reset' (keeps your changes recoverable), then git reset --keep REV",
    ("git reset --hard", "git reset --hard HEAD~2", "git -C ../other reset --merge"),
    ("git reset", "git reset --soft HEAD~1", "git reset --keep HEAD~1", "git reset HEAD file.py"),
)
rule(
    "git.checkout-discard",
    "discard",
    "git checkout over paths (or with --force) overwrites uncommitted changes",
    "replaces files in the working tree with their committed (or staged) version; the "
    "uncommitted edits exist nowhere else",
    "git stash push -m 'before checkout' -- PATHS (keeps the changes recoverable), or "
    "git diff -- PATHS to look first",
    (
        "git checkout -- .",
        "git checkout .",
        "git checkout HEAD -- src/app.py",
        "git checkout -f main",
    ),
    ("git checkout main", "git checkout -b feature/x", "git checkout --orphan gh-pages"),
)
rule(
    "git.restore-worktree",
    "discard",
    "git restore (without --staged) overwrites working-tree files",
    "replaces files in the working tree with the index (or --source) version; the "
    "uncommitted edits exist nowhere else",
    "git stash push -m 'before restore' -- PATHS, or git restore --staged PATHS to only unstage",
    ("git restore src/app.py", "git restore .", "git restore --source=HEAD~3 src/app.py"),
    ("git restore --staged src/app.py",),
)
rule(
    "git.switch-discard",
    "discard",
    "git switch --discard-changes / --force throws away local changes",
    "switching with --discard-changes or --force overwrites every uncommitted change to "
    "tracked files",
    "git stash push -m 'before switch', then git switch BRANCH",
    ("git switch --discard-changes main", "git switch -f main"),
    ("git switch main", "git switch -c topic"),
)
rule(
    "git.clean-force",
    "discard",
    "git clean deletes untracked files",
    "deletes files git does not track (with -x also ignored ones, such as .env); they were "
    "never committed, so nothing can bring them back (a bare `git clean` counts too: "
    "clean.requireForce may be off)",
    "git clean -n (dry run) to look first, then move what you do not need out of the tree",
    ("git clean -fd", "git clean -fdx", "git clean -f -- src/"),
    ("git clean -n", "git clean --dry-run -d"),
)
rule(
    "git.stash-drop",
    "discard",
    "git stash drop deletes a stash entry",
    "a stash holds work that exists nowhere else; dropping it leaves it unreferenced",
    "git stash list and git stash show -p stash@{N} to look first, or git stash branch NAME",
    ("git stash drop", "git stash drop stash@{1}"),
    ("git stash", "git stash pop", "git stash list", "git stash push -m wip"),
)
rule(
    "git.stash-clear",
    "discard",
    "git stash clear deletes every stash entry",
    "every stash holds work that exists nowhere else; clearing leaves all of it unreferenced",
    "git stash list to see what is there; keep the entries, or turn one into a branch with "
    "git stash branch NAME",
    ("git stash clear",),
    ("git stash list",),
)
rule(
    "git.rm-force",
    "discard",
    "git rm --force deletes files with uncommitted changes",
    "removes the files from the working tree even when their changes were never committed",
    "git rm --cached PATHS (untrack, keep the file), or commit the changes first",
    ("git rm -f src/app.py",),
    ("git rm --cached src/app.py", "git rm src/app.py"),
)
rule(
    "git.checkout-index-force",
    "discard",
    "git checkout-index --force overwrites working-tree files",
    "writes index contents over files in the working tree, discarding their uncommitted edits",
    "git stash push -m 'before checkout-index', or use --prefix=DIR/ to export elsewhere",
    ("git checkout-index -a -f",),
    ("git checkout-index -a --prefix=/tmp/export/",),
)
rule(
    "git.read-tree-reset",
    "discard",
    "git read-tree --reset -u overwrites the working tree",
    "resets the index and updates the working tree to match, discarding uncommitted changes",
    "git stash push -m 'before read-tree', then git read-tree -m -u (refuses to overwrite)",
    ("git read-tree --reset -u HEAD",),
    ("git read-tree -m -u HEAD",),
)
rule(
    "git.branch-force-delete",
    "discard",
    "git branch -D deletes a branch even when it is not merged",
    "commits only reachable from that branch become unreferenced and are eventually pruned",
    "git branch -d NAME (refuses when the branch has unmerged commits)",
    ("git branch -D topic", "git branch --delete --force topic", "git branch -d -f topic"),
    ("git branch -d topic", "git branch -a"),
)
rule(
    "git.branch-force-move",
    "discard",
    "git branch -f moves an existing branch",
    "commits only reachable from the branch's old tip become unreferenced",
    "git branch NEW-NAME REV (a new branch), keeping the old one",
    ("git branch -f main HEAD~3",),
    ("git branch topic", "git branch topic HEAD~1"),
)
rule(
    "git.worktree-remove-force",
    "discard",
    "git worktree remove --force deletes a worktree with uncommitted work",
    "removes a linked worktree even when it holds uncommitted changes or untracked files",
    "git -C WORKTREE status to look first, then git worktree remove WORKTREE (refuses if dirty)",
    ("git worktree remove --force ../wt",),
    ("git worktree remove ../wt", "git worktree prune"),
)
rule(
    "git.reflog-expire",
    "discard",
    "git reflog expire/delete drops the history of where refs pointed",
    "the reflog is the last way back to commits lost by a reset or a deleted branch; "
    "expiring it lets gc delete them",
    "leave the reflog alone (git keeps it 90 days); git reflog to look",
    ("git reflog expire --expire=now --all", "git reflog delete HEAD@{1}"),
    ("git reflog", "git reflog show main"),
)
rule(
    "git.gc-prune-now",
    "discard",
    "git gc --prune=now deletes unreachable objects immediately",
    "unreachable commits and blobs (lost work, dropped stashes, interlock's recorder) are "
    "deleted without the usual two-week grace period",
    "git gc (keeps the default grace period)",
    ("git gc --prune=now", "git gc --prune=all"),
    ("git gc", "git gc --aggressive"),
)
rule(
    "git.prune",
    "discard",
    "git prune deletes unreachable objects",
    "unreachable commits and blobs (lost work, dropped stashes) are deleted for good",
    "git prune -n (dry run) to look, or git gc (keeps a grace period)",
    ("git prune", "git prune --expire=now"),
    ("git prune -n", "git worktree prune"),
)
rule(
    "git.push-force",
    "discard",
    "a force push (or a remote delete/mirror/prune) can drop commits on the remote",
    "overwrites the remote branch; commits pushed there by others (or earlier) are lost",
    "git push --force-with-lease REMOTE BRANCH (refuses if the remote moved)",
    (
        "git push --force",
        "git push -f origin main",
        "git push origin +main",
        "git push origin :old",
    ),
    ("git push --force-with-lease", "git push origin main", "git push -n --force"),
)
rule(
    "git.update-ref-delete",
    "discard",
    "git update-ref -d deletes a ref",
    "deleting a branch ref (or interlock's refs/interlock/* snapshots) leaves its commits "
    "unreferenced",
    "git branch -d NAME for branches; leave refs/interlock/* to `interlock gc`",
    ("git update-ref -d refs/heads/topic", "git update-ref -d refs/interlock/main/green/1"),
    ("git update-ref -d refs/remotes/origin/old",),
)
rule(
    "git.update-ref-move",
    "discard",
    "git update-ref moves a branch ref",
    "moving a branch (or HEAD) to another commit leaves the commits only it held unreferenced",
    "git branch NEW-NAME REV (a new branch), keeping the old one",
    ("git update-ref refs/heads/main HEAD~3",),
    ("git update-ref refs/remotes/origin/x HEAD",),
)
rule(
    "git.history-rewrite",
    "discard",
    "git filter-branch / filter-repo rewrite history",
    "every rewritten commit replaces the original; filter-repo also expires the reflog and "
    "prunes, so the originals are gone",
    "work on a fresh clone, or git replace / a new branch for a single fix",
    ("git filter-branch --tree-filter 'rm -f secret' HEAD", "git filter-repo --path src"),
    ("git log --all",),
)


def git_finding(
    rule_id: str,
    call: GitCall,
    targets: Targets,
    *,
    instead: str | None = None,
    reason: str | None = None,
) -> Finding:
    """A finding of a git rule, acting where the call acts (after -C)."""
    return make_finding(
        catalog()[rule_id], call.inv, targets, cwd=call.cwd, instead=instead, reason=reason
    )
