"""Discarding git subcommands that act on history and refs.

branch -D / -f, push --force (and delete, mirror, prune, +refspec), reflog expire/delete,
gc --prune=now, prune, update-ref -d / moving a branch, filter-branch / filter-repo,
worktree remove --force.
"""

from __future__ import annotations

from collections.abc import Callable

from interlock.engine.findings import Finding, Targets
from interlock.engine.rules.args import Args, OptSpec, literal_or_text, parse_args, spec
from interlock.engine.rules.common import rule
from interlock.engine.rules.git.invocation import GitCall, git_finding

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

BRANCH = spec(
    short_value="u",
    long_value=(
        "set-upstream-to contains no-contains merged no-merged points-at sort format abbrev "
        "color column"
    ),
    long_flags=(
        "delete force move copy list remotes all verbose quiet track no-track set-upstream "
        "unset-upstream edit-description show-current create-reflog ignore-case omit-empty "
        "recurse-submodules"
    ),
)
PUSH = spec(
    short_value="o",
    long_value="repo receive-pack exec push-option recurse-submodules",
    long_flags=(
        "all branches mirror tags follow-tags atomic no-atomic dry-run porcelain delete prune "
        "force force-with-lease no-force-with-lease force-if-includes no-force-if-includes "
        "verbose quiet progress no-progress set-upstream thin no-thin verify no-verify ipv4 "
        "ipv6 signed no-signed"
    ),
)
GC = spec(long_flags="prune no-prune aggressive auto quiet force keep-largest-pack cruft")
PRUNE = spec(long_value="expire", long_flags="dry-run verbose progress")
UPDATE_REF = spec(short_value="m", long_flags="no-deref stdin create-reflog")
WORKTREE_REMOVE = spec(long_flags="force")

# Ref namespaces whose deletion loses nothing: copies of what a remote has.
_REFETCHABLE = ("refs/remotes/",)
# Values of gc --prune that keep a grace period of at least days.
_GRACE_WORDS = ("week", "month", "year", "never")


def _branch(call: GitCall, args: Args) -> list[Finding]:
    names = tuple(literal_or_text(w) for w in args.operands())
    unknown = call.inv.extra_args or any(w.literal() is None for w in args.operands())
    force = args.has("-f", "--force")
    renaming = args.has("-m", "-M", "-c", "-C", "--move", "--copy", "--list", "-l")
    if args.has("-D") or (force and args.has("-d", "--delete")):
        targets = Targets("commits", refs=names, unknown=unknown, git_dir_flag=call.elsewhere)
        return [git_finding("git.branch-force-delete", call, targets)]
    if force and not renaming and not args.has("-d", "--delete") and names:
        targets = Targets("commits", refs=names[:1], unknown=unknown, git_dir_flag=call.elsewhere)
        return [git_finding("git.branch-force-move", call, targets)]
    return []


def _push(call: GitCall, args: Args) -> list[Finding]:
    if args.has("-n", "--dry-run"):
        return []
    refspecs = [literal_or_text(w) for w in args.positionals[1:]]
    lease_opt = args.last("--force-with-lease", "--no-force-with-lease")
    lease = lease_opt is not None and lease_opt.name == "--force-with-lease"
    forced = args.has("-f", "--force") or args.has("--mirror")
    plus = any(r.startswith("+") for r in refspecs) and not lease
    deletes = args.has("-d", "--delete", "--prune") or any(
        r.startswith(":") and len(r) > 1 for r in refspecs
    )
    if not (forced or plus or deletes):
        return []
    refs = tuple(literal_or_text(w) for w in args.positionals)
    targets = Targets("remote", refs=refs, git_dir_flag=call.elsewhere)
    remote = refs[0] if refs else "origin"
    branch = refspecs[0].lstrip("+").split(":")[-1] if refspecs else "BRANCH"
    instead = f"git push --force-with-lease {remote} {branch} (refuses if the remote moved)"
    return [git_finding("git.push-force", call, targets, instead=instead)]


def _reflog(call: GitCall, args: Args) -> list[Finding]:
    if not call.args:
        return []
    action = call.args[0].literal()
    if action is not None and action not in ("expire", "delete"):
        return []
    if args.has("-n", "--dry-run"):
        return []
    targets = Targets("unreachable", git_dir_flag=call.elsewhere)
    return [git_finding("git.reflog-expire", call, targets)]


def _gc(call: GitCall, args: Args) -> list[Finding]:
    prune = args.last("--prune", "--no-prune")
    if prune is None or prune.name == "--no-prune" or prune.value is None:
        return []
    value = prune.value.lower()
    if any(word in value for word in _GRACE_WORDS):
        return []
    targets = Targets("unreachable", git_dir_flag=call.elsewhere)
    return [git_finding("git.gc-prune-now", call, targets)]


def _prune(call: GitCall, args: Args) -> list[Finding]:
    if args.has("-n", "--dry-run"):
        return []
    expire = args.last("--expire")
    if expire is not None and expire.value is not None:
        if any(word in expire.value.lower() for word in _GRACE_WORDS):
            return []
    targets = Targets("unreachable", git_dir_flag=call.elsewhere)
    return [git_finding("git.prune", call, targets)]


def _update_ref(call: GitCall, args: Args) -> list[Finding]:
    operands = args.operands()
    if args.has("--stdin") or call.inv.extra_args:
        targets = Targets("commits", unknown=True, git_dir_flag=call.elsewhere)
        rule_id = "git.update-ref-delete"
        return [git_finding(rule_id, call, targets)]
    if not operands:
        return []
    ref = literal_or_text(operands[0])
    if operands[0].literal() is not None and ref.startswith(_REFETCHABLE):
        return []
    targets = Targets(
        "commits",
        refs=(ref,),
        unknown=operands[0].literal() is None,
        git_dir_flag=call.elsewhere,
    )
    if args.has("-d"):
        return [git_finding("git.update-ref-delete", call, targets)]
    is_branch = ref == "HEAD" or ref.startswith(("refs/heads/", "refs/interlock/"))
    if len(operands) >= 2 and (is_branch or operands[0].literal() is None):
        return [git_finding("git.update-ref-move", call, targets)]
    return []


def _rewrite(call: GitCall, args: Args) -> list[Finding]:
    if args.has("--dry-run", "--analyze"):
        return []
    return [git_finding("git.history-rewrite", call, Targets("unreachable"))]


def _worktree(call: GitCall, args: Args) -> list[Finding]:
    if not call.args or call.args[0].literal() != "remove":
        return []
    sub = parse_args(call.args[1:], WORKTREE_REMOVE)
    if not sub.has("-f", "--force"):
        return []
    paths = tuple(literal_or_text(w) for w in sub.operands())
    targets = Targets("worktree", paths=paths, git_dir_flag=call.elsewhere)
    return [git_finding("git.worktree-remove-force", call, targets)]


Handler = Callable[[GitCall, Args], list[Finding]]

_HANDLERS: dict[str, tuple[Handler, OptSpec]] = {
    "branch": (_branch, BRANCH),
    "push": (_push, PUSH),
    "reflog": (_reflog, spec(long_flags="expire-unreachable expire all dry-run rewrite")),
    "gc": (_gc, GC),
    "prune": (_prune, PRUNE),
    "update-ref": (_update_ref, UPDATE_REF),
    "filter-branch": (_rewrite, spec()),
    "filter-repo": (_rewrite, spec()),
    "worktree": (_worktree, spec()),
}


def check_refs(call: GitCall) -> list[Finding]:
    entry = _HANDLERS.get(call.sub or "")
    if entry is None:
        return []
    handler, sp = entry
    return handler(call, parse_args(call.args, sp))
