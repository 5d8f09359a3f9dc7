"""Discarding git subcommands that act on the working tree and the index.

reset --hard/--merge, checkout over paths or with --force, restore of the worktree,
switch --discard-changes/--force, clean, stash drop/clear, rm --force, checkout-index --force,
read-tree --reset -u. History and refs (branch, push, reflog, gc, update-ref, ...) are in
`history`. Each handler reads the subcommand's own options (`parse_args` with its spec), so
a flag that is really an option's value (`commit -m --hard`) is never mistaken for a flag.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable

from interlock.engine.findings import Destroys, Finding, Targets
from interlock.engine.rules.args import Args, OptSpec, literal_or_text, parse_args, spec
from interlock.engine.rules.common import rule
from interlock.engine.rules.git import history
from interlock.engine.rules.git.invocation import GitCall, git_finding
from interlock.shell.model import Word

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
    "git.mv-force",
    "discard",
    "git mv --force overwrites the destination",
    "moving over an existing file replaces it; its uncommitted content (or an untracked file "
    "there) exists nowhere else",
    "git mv without -f (refuses when the destination exists), or move the destination aside",
    ("git mv -f a.py b.py", "git mv --force src/a.py lib/"),
    ("git mv a.py b.py", "git mv -n -f a.py b.py"),
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

RESET = spec(
    long_value="pathspec-from-file",
    long_flags=(
        "hard soft mixed merge keep quiet patch intent-to-add no-refresh refresh "
        "recurse-submodules no-recurse-submodules pathspec-file-nul"
    ),
)
CHECKOUT = spec(
    short_value="bB",
    long_value="orphan conflict pathspec-from-file",
    long_flags=(
        "force ours theirs merge patch detach quiet track no-track guess no-guess overlay "
        "no-overlay progress no-progress recurse-submodules no-recurse-submodules "
        "ignore-skip-worktree-bits ignore-other-worktrees overwrite-ignore pathspec-file-nul"
    ),
)
RESTORE = spec(
    short_value="s",
    long_value="source conflict pathspec-from-file",
    long_flags=(
        "staged no-staged worktree no-worktree patch ours theirs merge overlay no-overlay quiet "
        "progress "
        "no-progress ignore-unmerged ignore-skip-worktree-bits recurse-submodules "
        "no-recurse-submodules pathspec-file-nul"
    ),
)
SWITCH = spec(
    short_value="cC",
    long_value="create force-create orphan conflict",
    long_flags=(
        "discard-changes force merge detach guess no-guess quiet track no-track progress "
        "no-progress recurse-submodules no-recurse-submodules ignore-other-worktrees"
    ),
)
CLEAN = spec(short_value="e", long_value="exclude", long_flags="force dry-run interactive quiet")
GIT_RM = spec(
    long_value="pathspec-from-file",
    long_flags="force cached dry-run quiet ignore-unmatch sparse pathspec-file-nul",
)
CHECKOUT_INDEX = spec(
    short_value="z",
    long_value="prefix stage",
    long_flags="all force index quiet no-create stdin temp ignore-skip-worktree-bits",
)
READ_TREE = spec(
    long_value="prefix exclude-per-directory index-output",
    long_flags="reset trivial aggressive dry-run empty no-sparse-checkout quiet",
)

_REV_ONLY = r"^(HEAD|@)$"
# What no ref name holds (git check-ref-format): a component starting with `.`, an empty
# component, a glob character.
_NEVER_A_REF = re.compile(r"(^|/)\.|//|[*?\[]")
_EXTENSION = r"\.[A-Za-z_][A-Za-z0-9_-]{0,9}$"
# Extensionless names that are files far more often than branches.
_KNOWN_FILES = frozenset(
    "Makefile GNUmakefile makefile Dockerfile Containerfile Jenkinsfile Vagrantfile Gemfile "
    "Rakefile Procfile Pipfile Brewfile Justfile justfile LICENSE COPYING README CHANGELOG "
    "AUTHORS NOTICE CODEOWNERS".split()
)


def looks_like_path(word: Word) -> bool:
    """Whether a `git checkout X` operand reads as a path rather than a branch.

    A path: `.`, `./x`, `../x`, `/x`, `x/`, a glob (quoted too), pathspec magic (`:/`,
    `:(top)`), what no ref name can be (`src/.`, `src//lib`, `a/.hidden`), a file name with an
    extension (`app.py`, `feature/a.py`), a well-known extensionless file (`Makefile`). A bare or slashed word (`main`, `origin/main`, `feature/x`, `v1.2.3`)
    reads as a branch, tag or revision.
    """
    text = literal_or_text(word)
    if word.has_glob or text in (".", ".."):
        return True
    if text.startswith(("./", "../", "/", ":/", ":(", "~/")) or text.endswith("/"):
        return True
    if word.literal() is not None and _NEVER_A_REF.search(text):
        return True  # `src/.`, `src//lib`, `.env`, a quoted glob: git reads a pathspec
    if any(c in text for c in "~^@{") and word.literal() is not None:
        return False
    base = text.rsplit("/", 1)[-1]
    return bool(re.search(_EXTENSION, base)) or base in _KNOWN_FILES


def _reads_as_ref(word: Word) -> bool:
    """`main`, `origin/main`, `"$BRANCH"`: not a path by its looks, nor a command's output."""
    subst = word.literal() is None and ("$(" in word.text or "`" in word.text)
    return not subst and not looks_like_path(word)


def _texts(words: tuple[Word, ...]) -> tuple[str, ...]:
    return tuple(literal_or_text(w) for w in words)


def _unknown(words: tuple[Word, ...], call: GitCall) -> bool:
    return call.inv.extra_args or any(w.literal() is None for w in words)


def _stash_first(action: str, paths: tuple[str, ...]) -> str:
    """`git stash push -m 'before checkout' -- a.py` keeps the changes recoverable."""
    where = " -- " + " ".join(shlex.quote(p) for p in paths) if paths else ""
    return (
        f"git stash push -m 'before {action}'{where} (keeps the changes recoverable), "
        f"or git diff{where} to look first"
    )


def _reset(call: GitCall, args: Args) -> list[Finding]:
    mode = args.last("--hard", "--soft", "--mixed", "--merge", "--keep")
    if mode is None or mode.name not in ("--hard", "--merge"):
        return []
    rev = args.positionals[0] if args.positionals else None
    refs: tuple[str, ...] = ()
    if rev is not None and not re.match(_REV_ONLY, literal_or_text(rev)):
        refs = (literal_or_text(rev),)
    targets = Targets(
        "tracked",
        whole_tree=True,
        refs=refs,
        unknown=rev is not None and rev.literal() is None,  # `reset --hard "$R"`: any commit
        git_dir_flag=call.elsewhere,
    )
    target = refs[0] if refs else "HEAD"
    instead = (
        "git stash push -m 'before reset' (keeps your changes recoverable), "
        f"then git reset --keep {target}"
    )
    return [git_finding("git.reset-hard", call, targets, instead=instead)]


def _checkout_operands(args: Args) -> tuple[Word | None, tuple[Word, ...], bool]:
    """(tree-ish, paths, candidate): candidate when a single operand may be a branch.

    `git checkout X` switches to X when X names a commit, and otherwise checks out the path X
    over its uncommitted changes (`git checkout src` with no ref named src): every single
    operand is a candidate path, which the facts layer clears when it resolves to a commit.
    One named at run time (`"$X"`, `$(...)`) may be either: its paths are unknown."""
    if args.dashdash:
        treeish = args.positionals[0] if args.positionals else None
        return treeish, args.after_dashdash, False
    if args.has("-b", "-B", "--orphan", "--detach") or not args.positionals:
        return None, (), False
    first, *rest = args.positionals
    if not rest and args.has("-p", "--patch") and _reads_as_ref(first):
        return first, (), False  # `checkout -p main`: hunks of every path, from main
    if not rest:
        return None, (first,), True
    if looks_like_path(first):
        return None, args.positionals, False
    return first, tuple(rest), False


def _checkout(call: GitCall, args: Args) -> list[Finding]:
    reset = args.last("-B")
    if reset is not None:  # `checkout -B NAME [START]`: NAME is reset to START
        start = args.positionals[0] if args.positionals else None
        return [history.branch_move(call, reset.value, start, creates=True)] + _checkout_paths(
            call, args
        )
    return _checkout_paths(call, args)


def _checkout_paths(call: GitCall, args: Args) -> list[Finding]:
    treeish, paths, candidate = _checkout_operands(args)
    force = args.has("-f", "--force")
    if force and candidate and _reads_as_ref(paths[0]):
        paths, candidate = (), False  # `checkout -f main`: a forced switch, over the whole tree
    creating = args.has("-b", "-B", "--orphan")
    from_file = args.has("--pathspec-from-file")
    patch = args.has("-p", "--patch")
    if paths or from_file or (patch and not creating) or (call.inv.extra_args and not creating):
        ours = args.has("--ours", "--theirs")
        destroys: Destroys = "tracked" if treeish is not None and not ours else "unstaged"
        targets = Targets(
            destroys,
            paths=_texts(paths),
            whole_tree=not paths and not from_file and not call.inv.extra_args,
            unknown=_unknown(paths, call) or from_file,
            git_dir_flag=call.elsewhere,
            candidate=candidate,
            ref_like=candidate and _reads_as_ref(paths[0]),
        )
        instead = _stash_first("checkout", () if targets.unknown else targets.paths)
        if candidate and not looks_like_path(paths[0]):  # `src`, `"$X"`, `$(...)`
            instead += "; to switch branches, git switch NAME (it never checks out paths)"
        return [git_finding("git.checkout-discard", call, targets, instead=instead)]
    if force:
        targets = Targets("tracked", whole_tree=True, git_dir_flag=call.elsewhere)
        reason = "--force switches and overwrites every uncommitted change to tracked files"
        instead = _stash_first("checkout", ())
        return [git_finding("git.checkout-discard", call, targets, reason=reason, instead=instead)]
    return []


def _restore_areas(args: Args) -> tuple[bool, bool]:
    """(staged, worktree) as git reads them: the last of `-S/--staged/--no-staged` and of
    `-W/--worktree/--no-worktree` wins; without -W, --staged alone leaves the worktree."""
    staged_opt = args.last("-S", "--staged", "--no-staged")
    staged = staged_opt is not None and staged_opt.name != "--no-staged"
    worktree_opt = args.last("-W", "--worktree", "--no-worktree")
    worktree = worktree_opt.name != "--no-worktree" if worktree_opt is not None else not staged
    return staged, worktree


def _restore(call: GitCall, args: Args) -> list[Finding]:
    staged_too, worktree = _restore_areas(args)
    paths = args.operands()
    from_file = args.has("--pathspec-from-file")
    patch = args.has("-p", "--patch")
    if not worktree or not (paths or from_file or patch or call.inv.extra_args):
        return []
    destroys: Destroys = "tracked" if args.has("-s", "--source") or staged_too else "unstaged"
    targets = Targets(
        destroys,
        paths=_texts(paths),
        whole_tree=not paths and not from_file and not call.inv.extra_args,
        unknown=_unknown(paths, call) or from_file,
        git_dir_flag=call.elsewhere,
    )
    instead = _stash_first("restore", targets.paths)
    return [git_finding("git.restore-worktree", call, targets, instead=instead)]


def _switch(call: GitCall, args: Args) -> list[Finding]:
    found: list[Finding] = []
    reset = args.last("-C", "--force-create")
    if reset is not None:  # `switch -C NAME [START]`: NAME is reset to START
        start = args.positionals[0] if args.positionals else None
        found.append(history.branch_move(call, reset.value, start, creates=True))
    if args.has("--discard-changes", "-f", "--force"):
        targets = Targets("tracked", whole_tree=True, git_dir_flag=call.elsewhere)
        found.append(git_finding("git.switch-discard", call, targets))
    return found


def _clean(call: GitCall, args: Args) -> list[Finding]:
    if args.has("-n", "--dry-run"):
        return []
    destroys: Destroys = "untracked"
    if args.has("-x"):
        destroys = "untracked+ignored"
    elif args.has("-X"):
        destroys = "ignored"
    paths = args.operands()
    targets = Targets(
        destroys,
        paths=_texts(paths) or (".",),
        unknown=_unknown(paths, call),
        git_dir_flag=call.elsewhere,
    )
    where = " ".join(shlex.quote(p) for p in targets.paths)
    dry = "git clean -n" + "".join(f" -{x}" for x in "dxX" if args.has(f"-{x}")) + f" -- {where}"
    instead = f"{dry} to see what would go, then move what you need out of the tree"
    return [git_finding("git.clean-force", call, targets, instead=instead)]


def _stash(call: GitCall, args: Args) -> list[Finding]:
    first = call.args[0].literal() if call.args else "push"
    if first not in ("drop", "clear", None):
        return []
    if first is None:  # `git stash "$ACTION"`: it may be `clear`
        targets = Targets("stash", refs=("refs/stash",), git_dir_flag=call.elsewhere)
        return [git_finding("git.stash-clear", call, targets)]
    operands = parse_args(call.args[1:], spec()).positionals
    if first == "clear":
        targets = Targets("stash", refs=("refs/stash",), git_dir_flag=call.elsewhere)
        return [git_finding("git.stash-clear", call, targets)]
    refs = _texts(operands) or ("stash@{0}",)
    targets = Targets("stash", refs=refs, git_dir_flag=call.elsewhere)
    return [git_finding("git.stash-drop", call, targets)]


def _rm(call: GitCall, args: Args) -> list[Finding]:
    if not args.has("-f", "--force") or args.has("--cached", "-n", "--dry-run"):
        return []
    paths = args.operands()
    targets = Targets(
        "tracked",
        paths=_texts(paths),
        unknown=_unknown(paths, call) or args.has("--pathspec-from-file"),
        git_dir_flag=call.elsewhere,
    )
    return [git_finding("git.rm-force", call, targets)]


def _mv(call: GitCall, args: Args) -> list[Finding]:
    """`git mv -f SRC... DST` overwrites DST (or, DST a directory, the files named like each
    SRC inside it)."""
    operands = args.operands()
    if not args.has("-f", "--force") or args.has("-n", "--dry-run") or len(operands) < 2:
        return []
    *sources, dest = operands
    targets = Targets(
        "files",
        paths=(literal_or_text(dest),),
        single=True,
        into=tuple(posixpath.basename(literal_or_text(w).rstrip("/")) for w in sources),
        unknown=_unknown(tuple(operands), call),
        git_dir_flag=call.elsewhere,
    )
    return [git_finding("git.mv-force", call, targets)]


def _checkout_index(call: GitCall, args: Args) -> list[Finding]:
    if not args.has("-f", "--force"):
        return []
    prefix = args.last("--prefix")
    if prefix is not None and prefix.value not in ("", "./", None):
        return []
    paths = args.operands()
    every = args.has("-a", "--all") or args.has("--stdin")
    if not paths and not every:
        return []
    targets = Targets(
        "tracked",
        paths=_texts(paths),
        whole_tree=args.has("-a", "--all"),
        unknown=_unknown(paths, call) or args.has("--stdin"),
        git_dir_flag=call.elsewhere,
    )
    return [git_finding("git.checkout-index-force", call, targets)]


def _read_tree(call: GitCall, args: Args) -> list[Finding]:
    if not (args.has("--reset") and args.has("-u")):
        return []
    targets = Targets("tracked", whole_tree=True, git_dir_flag=call.elsewhere)
    return [git_finding("git.read-tree-reset", call, targets)]


Handler = Callable[[GitCall, Args], list[Finding]]

_HANDLERS: dict[str, tuple[Handler, OptSpec]] = {
    "reset": (_reset, RESET),
    "checkout": (_checkout, CHECKOUT),
    "restore": (_restore, RESTORE),
    "switch": (_switch, SWITCH),
    "clean": (_clean, CLEAN),
    "stash": (_stash, spec()),
    "rm": (_rm, GIT_RM),
    "mv": (_mv, spec(long_flags="force dry-run verbose")),
    "checkout-index": (_checkout_index, CHECKOUT_INDEX),
    "read-tree": (_read_tree, READ_TREE),
}


def check_git(call: GitCall) -> list[Finding]:
    """Discard findings for one git subcommand."""
    if call.informational or call.sub is None:
        return []
    if any(w.literal() in ("-h", "--help") for w in call.args):
        return []
    entry = _HANDLERS.get(call.sub)
    if entry is not None:
        handler, sp = entry
        return handler(call, parse_args(call.args, sp))
    return history.check_refs(call)
