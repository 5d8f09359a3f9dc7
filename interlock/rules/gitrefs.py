"""Discarding git subcommands that act on history and refs.

branch -D / -f, push --force (and delete, mirror, prune, +refspec), reflog expire/delete,
gc --prune=now, prune, update-ref -d / moving a branch, filter-branch / filter-repo,
worktree remove --force.
"""

from __future__ import annotations

from collections.abc import Callable

from interlock.findings import Finding, Targets
from interlock.rules.args import Args, OptSpec, literal_or_text, parse_args, spec
from interlock.rules.gitcall import GitCall
from interlock.rules.gitrules import git_finding

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
