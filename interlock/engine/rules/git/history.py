"""Discarding git subcommands that act on history and refs.

branch -D / -f / -M / -C, tag -d / -f, push and fetch (in `push`), reflog expire/delete, gc --prune=now
(also through gc.* expiry config), prune, update-ref -d / moving a branch, filter-branch /
filter-repo, worktree remove --force, submodule deinit/update --force, and --abort/--skip of
a merge, rebase, cherry-pick, revert or am.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from interlock.engine.findings import Finding, Targets
from interlock.engine.rules.args import Args, OptSpec, literal_or_text, parse_args, spec
from interlock.engine.rules.common import rule
from interlock.engine.rules.git.invocation import GitCall, git_finding
from interlock.engine.rules.git.push import FETCH, PUSH, check_fetch, check_push
from interlock.shell.model import Word

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
    "git branch -f (or checkout -B, switch -C, worktree add -B) moves an existing branch",
    "commits only reachable from the branch's old tip become unreferenced",
    "git branch NEW-NAME REV (a new branch), keeping the old one",
    (
        "git branch -f main HEAD~3",
        "git checkout -B main HEAD~3",
        "git switch -C main HEAD~3",
        "git worktree add -B main ../wt HEAD~3",
    ),
    ("git branch topic", "git branch topic HEAD~1"),
)
rule(
    "git.branch-force-rename",
    "discard",
    "git branch -M / -C renames or copies over an existing branch",
    "the branch that is overwritten loses its tip; commits only it held become unreferenced",
    "git branch -m OLD NEW (refuses when NEW exists), or delete NEW first with git branch -d",
    ("git branch -M topic main", "git branch -C topic main", "git branch -m -f topic main"),
    ("git branch -m topic renamed", "git branch -c topic copy"),
)
rule(
    "git.tag-delete",
    "discard",
    "git tag -d deletes a tag",
    "a tag can be the only ref holding a commit (a release, a saved experiment); deleting it "
    "leaves those commits unreferenced",
    "keep the tag; git tag -l to list them, or git tag NEW-NAME TAG before removing one",
    ("git tag -d v1.0", "git tag --delete v1.0 v1.1"),
    ("git tag v1.0", "git tag -l", "git tag -a v1.0 -m 'release'"),
)
rule(
    "git.tag-force-move",
    "discard",
    "git tag -f moves an existing tag",
    "the tag's old commit loses a ref; commits only it held become unreferenced",
    "git tag NEW-NAME REV (a new tag), keeping the old one",
    ("git tag -f v1.0 HEAD", "git tag --force v1.0"),
    ("git tag v1.1 HEAD",),
)
rule(
    "git.operation-abort",
    "discard",
    "--abort / --skip of a merge, rebase, cherry-pick, revert or am",
    "throws away the conflict resolution and every edit made since the operation stopped: the "
    "tree goes back to where the operation started",
    "git stash push -m 'resolution so far' first, or git merge --quit / git rebase --quit to "
    "stop while keeping the tree",
    (
        "git merge --abort",
        "git rebase --abort",
        "git cherry-pick --abort",
        "git revert --abort",
        "git am --abort",
        "git rebase --skip",
    ),
    ("git merge --continue", "git rebase --continue", "git rebase --quit", "git merge topic"),
)
rule(
    "git.submodule-force",
    "discard",
    "git submodule deinit -f / update -f throws away the submodules' local changes",
    "deinit --force removes a submodule's working tree even when it holds uncommitted work; "
    "update --force checks out over its local changes",
    "git -C SUBMODULE status to look first, then git submodule deinit SUBMODULE (refuses if dirty)",
    (
        "git submodule deinit -f lib/dep",
        "git submodule deinit --all --force",
        "git submodule update -f",
    ),
    ("git submodule deinit lib/dep", "git submodule update --init", "git submodule status"),
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
    "git reflog expire/delete/drop drops the history of where refs pointed",
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
    "git.repack-drop",
    "discard",
    "git repack -a -d drops the unreachable objects of the packs it replaces",
    "unreachable commits and blobs kept in packs (lost work, dropped stashes) are deleted "
    "with the old packs, without gc's grace period",
    "git repack -A -d (keeps them, loose, for gc's grace period) or git gc",
    ("git repack -a -d", "git repack -ad", "git repack -A -d --unpack-unreachable=now"),
    ("git repack -A -d", "git repack -a", "git repack -a -d --keep-unreachable"),
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
    "git update-ref moves a ref (a branch, HEAD, a tag)",
    "moving a branch, HEAD or a tag to another commit leaves the commits only it held "
    "unreferenced, as git branch -f, git reset and git tag -f do",
    "git branch NEW-NAME REV (a new branch), keeping the old one",
    (
        "git update-ref refs/heads/main HEAD~3",
        "git update-ref HEAD HEAD~1",
        "git update-ref refs/tags/v1 HEAD~1",
    ),
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
GC = spec(
    long_value="max-cruft-size expire-to",
    long_flags="prune no-prune aggressive auto quiet force keep-largest-pack cruft no-cruft detach",
)
TAG = spec(
    short_value="umF",
    short_optional="n",
    long_value=(
        "local-user message file cleanup sort contains no-contains points-at format color "
        "column merged no-merged trailer"
    ),
    long_flags=(
        "annotate sign no-sign force delete verify list edit no-edit ignore-case create-reflog "
        "omit-empty"
    ),
)
SEQUENCER = spec(
    short_value="mXsx",
    long_value="strategy strategy-option onto exec mainline gpg-sign message file",
    long_flags=(
        "abort skip quit continue edit-todo show-current-patch no-edit interactive "
        "autosquash no-verify verify ff-only no-ff"
    ),
)
SUBMODULE = spec(
    short_value="b",
    long_value="branch name reference depth jobs filter",
    long_flags=(
        "force all init remote no-fetch checkout merge rebase recursive quiet cached "
        "recommend-shallow no-recommend-shallow single-branch no-single-branch dissociate"
    ),
)
PRUNE = spec(long_value="expire", long_flags="dry-run verbose progress")
REPACK = spec(
    long_value=(
        "unpack-unreachable cruft-expiration max-cruft-size window depth threads "
        "window-memory max-pack-size filter filter-to keep-pack expire-to"
    ),
    long_flags="cruft keep-unreachable local quiet write-bitmap-index pack-kept-objects",
)
UPDATE_REF = spec(short_value="m", long_flags="no-deref stdin create-reflog")
WORKTREE_REMOVE = spec(long_flags="force")
WORKTREE_ADD = spec(
    short_value="bB",
    long_value="reason",
    long_flags="force detach checkout no-checkout lock quiet track no-track guess-remote orphan",
)

# Ref namespaces whose deletion loses nothing: copies of what a remote has.
_REFETCHABLE = ("refs/remotes/",)
# Values of gc --prune that keep a grace period of at least days.
_GRACE_WORDS = ("week", "month", "year", "never")
# Configuration that makes `git gc` expire reflogs or prune objects (`git -c gc.pruneExpire=now gc`).
_EXPIRY_KEYS = frozenset(
    ("gc.pruneexpire", "gc.reflogexpire", "gc.reflogexpireunreachable", "gc.worktreepruneexpire")
)


def _branch(call: GitCall, args: Args) -> list[Finding]:
    names = tuple(literal_or_text(w) for w in args.operands())
    unknown = call.inv.extra_args or any(w.literal() is None for w in args.operands())
    force = args.has("-f", "--force")
    renaming = args.has("-m", "-M", "-c", "-C", "--move", "--copy")
    listing = args.has("--list", "-l")
    if args.has("-D") or (force and args.has("-d", "--delete")):
        targets = Targets("commits", refs=names, unknown=unknown, git_dir_flag=call.elsewhere)
        return [git_finding("git.branch-force-delete", call, targets)]
    if renaming and (force or args.has("-M", "-C")) and names:
        # `branch -M NEW` renames the current branch; `branch -M OLD NEW`: NEW is overwritten
        targets = Targets("commits", refs=names[-1:], unknown=unknown, git_dir_flag=call.elsewhere)
        return [git_finding("git.branch-force-rename", call, targets)]
    if force and not renaming and not listing and not args.has("-d", "--delete") and names:
        operands = args.operands()
        start = operands[1] if len(operands) > 1 else None
        return [branch_move(call, operands[0].literal(), start)]
    return []


def branch_move(
    call: GitCall, name: str | None, start: Word | None, creates: bool = False
) -> Finding:
    """`branch -f NAME [START]`, `checkout -B NAME [START]`, `switch -C`, `worktree add -B`:
    NAME is reset to START (default HEAD), as a force move. creates: the command is as often
    used to create NAME (`checkout -B`): by text alone not a discard, the tree decides."""
    targets = replace(move_targets(call, name, start, "HEAD"), creates=creates)
    return git_finding("git.branch-force-move", call, targets)


def move_targets(call: GitCall, ref: str | None, new: Word | None, default: str) -> Targets:
    """Where a ref moves: refs (REF, NEW); (REF,) when NEW is only known at run time; () when
    REF is (any ref of its kind may move)."""
    to = default if new is None else new.literal()
    refs = () if ref is None else (ref,) if to is None else (ref, to)
    unknown = ref is None or to is None or call.inv.extra_args
    return Targets("commits", refs=refs, unknown=unknown, git_dir_flag=call.elsewhere)


def _reflog(call: GitCall, args: Args) -> list[Finding]:
    if not call.args:
        return []
    action = call.args[0].literal()
    if action is not None and action not in ("expire", "delete", "drop"):
        return []
    if args.has("-n", "--dry-run"):
        return []
    targets = Targets("unreachable", git_dir_flag=call.elsewhere)
    return [git_finding("git.reflog-expire", call, targets)]


def _immediate(value: str | None) -> bool:
    """An expiry that keeps no grace period (`now`, `all`, `0`, `1.second.ago`...)."""
    if value is None:
        return False
    lowered = value.lower()
    return not any(word in lowered for word in _GRACE_WORDS + ("day",))


def _gc(call: GitCall, args: Args) -> list[Finding]:
    prune = args.last("--prune", "--no-prune")
    configured = [v for k, v in call.config if k in _EXPIRY_KEYS]
    now = (
        prune is not None
        and prune.name == "--prune"
        and (prune.unknown_value or _immediate(prune.value))  # `--prune="$X"`: maybe now
    )
    if not (now or any(v is None or _immediate(v) for v in configured)):
        return []
    targets = Targets("unreachable", git_dir_flag=call.elsewhere)
    return [git_finding("git.gc-prune-now", call, targets)]


def _tag(call: GitCall, args: Args) -> list[Finding]:
    names = tuple(literal_or_text(w) for w in args.operands())
    unknown = call.inv.extra_args or any(w.literal() is None for w in args.operands())
    if args.has("-l", "--list", "-v", "--verify"):
        return []
    if args.has("-d", "--delete"):
        refs = tuple(f"refs/tags/{n}" for n in names)
        targets = Targets("commits", refs=refs, unknown=unknown, git_dir_flag=call.elsewhere)
        return [git_finding("git.tag-delete", call, targets)]
    if args.has("-f", "--force") and names:
        targets = Targets(
            "commits", refs=(f"refs/tags/{names[0]}",), unknown=unknown, git_dir_flag=call.elsewhere
        )
        return [git_finding("git.tag-force-move", call, targets)]
    return []


def _sequencer(call: GitCall, args: Args) -> list[Finding]:
    """`merge/rebase/cherry-pick/revert/am --abort` or `--skip`: back to the starting tree."""
    if not args.has("--abort", "--skip") or (call.sub == "merge" and args.has("--skip")):
        return []
    targets = Targets("tracked", whole_tree=True, git_dir_flag=call.elsewhere)
    return [git_finding("git.operation-abort", call, targets)]


def _submodule(call: GitCall, args: Args) -> list[Finding]:
    words = call.args
    k = 0
    while k < len(words) and words[k].literal() in ("-q", "--quiet"):
        k += 1
    action = words[k].literal() if k < len(words) else None
    if action not in ("deinit", "update"):
        return []
    sub = parse_args(words[k + 1 :], SUBMODULE)
    if not sub.has("-f", "--force"):
        return []
    paths = tuple(literal_or_text(w) for w in sub.operands())
    unknown = any(w.literal() is None for w in sub.operands())
    targets = Targets("all", paths=paths or (".",), unknown=unknown, git_dir_flag=call.elsewhere)
    return [git_finding("git.submodule-force", call, targets)]


def _prune(call: GitCall, args: Args) -> list[Finding]:
    if args.has("-n", "--dry-run"):
        return []
    expire = args.last("--expire")
    if expire is not None and expire.value is not None:
        if any(word in expire.value.lower() for word in _GRACE_WORDS):
            return []
    targets = Targets("unreachable", git_dir_flag=call.elsewhere)
    return [git_finding("git.prune", call, targets)]


def _repack(call: GitCall, args: Args) -> list[Finding]:
    """`-a -d` deletes the old packs with their unreachable objects; `-A` loosens them first
    (those older than `--unpack-unreachable` are dropped); `--cruft` and `--keep-unreachable`
    keep them."""
    if not args.has("-d") or args.has("--cruft", "--keep-unreachable", "-n"):
        return []
    loosened = args.last("-a", "-A")
    if loosened is None:
        return []
    if loosened.name == "-A":
        until = args.last("--unpack-unreachable")
        if until is None or not (until.unknown_value or _immediate(until.value)):
            return []
    return [git_finding("git.repack-drop", call, Targets("unreachable"))]


def _update_ref(call: GitCall, args: Args) -> list[Finding]:
    """`update-ref -d REF` deletes a ref, `update-ref REF NEW` moves (or creates) it: refs
    (REF, NEW), or (REF,) when NEW is only known at run time, or () when REF is; `--stdin`
    reads any of these at run time."""
    operands = args.operands()
    if args.has("--stdin") or call.inv.extra_args:
        targets = Targets("commits", unknown=True, git_dir_flag=call.elsewhere)
        return [git_finding("git.update-ref-delete", call, targets)]
    deleting = args.has("-d")
    if len(operands) < (1 if deleting else 2):
        return []  # git refuses: a usage error
    ref = operands[0].literal()
    if ref is not None and ref.startswith(_REFETCHABLE):
        return []
    if deleting:
        targets = Targets(
            "commits",
            refs=() if ref is None else (ref,),
            unknown=ref is None,
            git_dir_flag=call.elsewhere,
        )
        return [git_finding("git.update-ref-delete", call, targets)]
    return [git_finding("git.update-ref-move", call, move_targets(call, ref, operands[1], ""))]


def _rewrite(call: GitCall, args: Args) -> list[Finding]:
    if args.has("--dry-run", "--analyze"):
        return []
    return [git_finding("git.history-rewrite", call, Targets("unreachable"))]


def _worktree(call: GitCall, args: Args) -> list[Finding]:
    if call.args and call.args[0].literal() == "add":
        add = parse_args(call.args[1:], WORKTREE_ADD)
        reset = add.last("-B")
        if reset is None:
            return []
        start = add.operands()[1] if len(add.operands()) > 1 else None
        return [branch_move(call, reset.value, start, creates=True)]
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
    "push": (check_push, PUSH),
    "send-pack": (check_push, PUSH),
    "http-push": (check_push, PUSH),
    "reflog": (_reflog, spec(long_flags="expire-unreachable expire all dry-run rewrite")),
    "gc": (_gc, GC),
    "prune": (_prune, PRUNE),
    "repack": (_repack, REPACK),
    "update-ref": (_update_ref, UPDATE_REF),
    "filter-branch": (_rewrite, spec()),
    "filter-repo": (_rewrite, spec()),
    "worktree": (_worktree, spec()),
    "tag": (_tag, TAG),
    "fetch": (check_fetch, FETCH),
    "pull": (check_fetch, FETCH),
    "merge": (_sequencer, SEQUENCER),
    "rebase": (_sequencer, SEQUENCER),
    "cherry-pick": (_sequencer, SEQUENCER),
    "revert": (_sequencer, SEQUENCER),
    "am": (_sequencer, SEQUENCER),
    "submodule": (_submodule, spec()),
    "maintenance": (_gc, GC),
}


def check_refs(call: GitCall) -> list[Finding]:
    entry = _HANDLERS.get(call.sub or "")
    if entry is None:
        return []
    handler, sp = entry
    return handler(call, parse_args(call.args, sp))
