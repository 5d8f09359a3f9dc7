"""Sequences on one line: what the commands before a discard did to the tree.

A command line is judged as a sequence, not command by command against today's tree:

- **Saves.** A discard is not one when a command that surely succeeded before it (an `&&`
  chain, `X || exit`, an `if` condition, `set -e`; never a plain `;` or `||`) saved what it
  destroys: `git stash && git checkout -- .`, `git commit -am wip && git reset --hard HEAD~1`,
  `git add -A && git stash && git clean -fd`, `cp f f.bak && rm f`, `tar czf b.tgz src && rm
  -rf src`. A save covers only its own paths and kinds (`git stash` keeps no untracked files);
  a write after it to a saved path undoes that cover. A finding the saves cover wholly is
  dropped; one they cover in part carries `Targets.saved`, so the facts layer counts only the
  rest. Commits made on the line move HEAD: `HEAD~1` after one commit is where HEAD started.
- **Links.** A path through a symlink or hard link made earlier on the line (`ln -s ~/repo
  /tmp/x && rm -rf /tmp/x/src`) is judged where the link leads as well, so a temp path that
  leads into a repository is not free.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from interlock.engine.facts import DESTROYED_KINDS
from interlock.engine.findings import Finding, Saved
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import Args, known_path, literal_or_text, parse_args, spec
from interlock.engine.rules.common import resolve
from interlock.engine.rules.extract import tar_words
from interlock.engine.rules.fs import is_temp_path
from interlock.engine.rules.git.invocation import GitCall, parse_git
from interlock.engine.rules.targets import is_dev_path
from interlock.engine.rules.writes import touched_paths
from interlock.shell.model import Word

# How every discard is read on its line (shown by `interlock explain` for discard rules).
LINE_NOTES = (
    "targets are judged where they really lie: through symlinks (also ones made earlier on "
    "the line with ln) and in the worktree found there",
    "after a `cd` that may fail without stopping the line (`cd X; cmd`, not `cd X && cmd`), "
    "the command is judged in both directories",
    "a save that surely succeeds first (`git stash && ...`, `git commit -am x && ...`, "
    "`cp f f.bak && ...`) makes a discard of what it saved harmless; `;` and `||` do not count",
)
_ALL = frozenset(("staged", "unstaged", "untracked", "ignored"))
_TRACKED = frozenset(("staged", "unstaged"))
_COMMIT = spec(
    short_value="mFcCt",
    long_value=(
        "message file reuse-message reedit-message fixup squash author date template cleanup "
        "trailer pathspec-from-file"
    ),
    long_flags="all amend include only dry-run patch interactive allow-empty",
)
_STASH = spec(short_value="m", long_value="message pathspec-from-file")
_ADD = spec(long_value="chmod pathspec-from-file")
_COPY = spec(short_value="tS", long_value="target-directory suffix")
_TAR = spec(
    short_value="fCbFgHIKLNTVX",
    long_value="file directory exclude format",
    long_flags="create extract list",
)
_LN = spec(short_value="tS", long_value="target-directory suffix")
_REV = r"^(HEAD|@)((~\d*|\^1?)*)$"


@dataclass
class _State:
    """What the line has surely done by some point."""

    saves: list[tuple[int, Saved, str | None]] = field(default_factory=list)  # (at, save, dest)
    staged: list[Saved] = field(default_factory=list)  # work `git add` put in the index
    commits: int = 0
    refs_kept: bool = False


def _whole_or_paths(kinds: frozenset[str], call: GitCall, paths: Sequence[str]) -> list[Saved]:
    cwd = call.cwd or ""
    if not paths:
        return [Saved(kinds, cwd, whole=True)]
    return [Saved(kinds, resolve(cwd, p)) for p in paths]


def _literal_paths(args: Args, skip_first: bool = False) -> list[str] | None:
    words = list(args.after_dashdash if args.dashdash else args.positionals)
    if skip_first and not args.dashdash:
        words = words[1:]
    if any(known_path(w) is None for w in words):
        return None
    return [literal_or_text(w) for w in words]


def _git_saves(call: GitCall, state: _State) -> list[Saved]:
    sub = call.sub
    if sub == "add":
        args = parse_args(call.args, _ADD)
        paths = _literal_paths(args)
        if paths is None or args.has("-n", "--dry-run", "-N", "--intent-to-add", "-p", "--patch"):
            return []
        kinds = frozenset({"unstaged"} if args.has("-u", "--update") else {"unstaged", "untracked"})
        whole = args.has("-A", "--all", "-u", "--update") and not paths
        state.staged += (
            _whole_or_paths(kinds, call, [] if whole else paths) if paths or whole else []
        )
        return []
    if sub == "stash":
        first = call.args[0].literal() if call.args else None
        if first not in (None, "push", "save") and not (first or "").startswith("-"):
            return []
        args = parse_args(call.args[1:] if first in ("push", "save") else call.args, _STASH)
        if args.has("-p", "--patch"):
            return []
        kinds = frozenset({"staged"}) if args.has("--staged", "-S") else _TRACKED
        if args.has("-u", "--include-untracked"):
            kinds |= {"untracked"}
        if args.has("-a", "--all"):
            kinds |= {"untracked", "ignored"}
        paths = [] if first == "save" else _literal_paths(args)
        if paths is None:
            return []
        return _whole_or_paths(kinds, call, paths) + state.staged
    if sub == "commit":
        args = parse_args(call.args, _COMMIT)
        if args.has("--dry-run", "-p", "--patch", "--interactive"):
            return []
        paths = _literal_paths(args)
        if paths is None:
            return []
        state.commits += 0 if args.has("--amend") else 1
        if paths:
            return _whole_or_paths(_TRACKED, call, paths)
        kinds = _TRACKED if args.has("-a", "--all") else frozenset({"staged"})
        return _whole_or_paths(kinds, call, []) + state.staged
    if sub in ("branch", "tag") and len(call.args) == 1 and call.args[0].literal():
        state.refs_kept = not (call.args[0].literal() or "-").startswith("-")
    return []


def _diff_saved(inv: Invocation, call: GitCall) -> list[Saved]:
    """`git diff [HEAD] [-- paths] > file` keeps the text of the changes in that file."""
    out = [r for r in inv.redirects if r.op in (">", ">|") and r.fd in (None, 1) and r.target]
    if not out or any(r.target is not None and is_dev_path(r.target) for r in out):
        return []
    args = parse_args(call.args, spec(short_value="OUS"))
    if args.has("--stat", "--name-only", "--name-status", "--no-patch", "-s"):
        return []
    head = any(re.match(_REV, literal_or_text(w)) for w in args.positionals)
    kinds = frozenset({"staged"}) if args.has("--cached", "--staged") else frozenset({"unstaged"})
    paths = _literal_paths(args, skip_first=head) if args.dashdash else []
    return _whole_or_paths(kinds | (_TRACKED if head else kinds), call, paths or [])


def _copy_saves(inv: Invocation) -> list[tuple[Saved, str | None]]:
    """cp/mv/rsync/tar -c/zip of literal paths: every kind of work at those paths."""
    name = inv.name
    cwd = inv.cwd or ""
    if name in ("cp", "mv", "rsync"):
        args = parse_args(inv.argv[1:], _COPY)
        operands = list(args.operands())
        target = args.last("-t", "--target-directory")
        dest = target.text if target is not None else None
        if dest is None and len(operands) > 1:
            dest = literal_or_text(operands.pop())
        if dest is None or dest.startswith("/dev/"):
            return []
        return [(Saved(_ALL, resolve(cwd, p)), resolve(cwd, dest)) for p in _known(operands)]
    if name == "zip":  # zip [-r] ARCHIVE PATHS...
        operands = [w for w in inv.argv[1:] if not (w.literal() or "x").startswith("-")]
        return [(Saved(_ALL, resolve(cwd, p)), None) for p in _known(operands[1:])]
    if name in ("tar", "gtar", "bsdtar"):
        args = parse_args(tar_words(inv), _TAR)
        out = args.last("-f", "--file")
        if not args.has("-c", "--create") or out is None or out.value in (None, "-"):
            return []
        return [(Saved(_ALL, resolve(cwd, p)), None) for p in _known(args.operands())]
    return []


def _known(words: Sequence[Word]) -> list[str]:
    return [v for w in words if (v := known_path(w)) is not None and not w.has_glob]


def _state_before(inv: Invocation, earlier: Sequence[Invocation]) -> _State:
    state = _State()
    index = {id(e): k for k, e in enumerate(earlier)}
    for before in inv.succeeded:
        at = index.get(id(before), -1)
        call = parse_git(before)
        if call is not None and call.sub == "diff":
            state.saves += [(at, s, None) for s in _diff_saved(before, call)]
        elif call is not None:
            state.saves += [(at, s, None) for s in _git_saves(call, state)]
        else:
            state.saves += [(at, s, dest) for s, dest in _copy_saves(before)]
    return state


def _written_after(at: int, earlier: Sequence[Invocation]) -> list[str]:
    """Paths written by the commands after position `at` (they may hold new work)."""
    written: list[str] = []
    for later in earlier[at + 1 :]:
        for touch in touched_paths(later):
            value = known_path(touch.word)
            if value is not None and touch.verb == "write":
                written.append(resolve(later.cwd or "", value))
    return written


def _under(path: str, root: str) -> bool:
    """Whether `path` is `root` or lies under it (both from the line's start)."""
    root = root.rstrip("/")
    if root in ("", "."):
        return not path.startswith(("..", "/"))
    return path == root or path.startswith(root + "/")


def _same_tree(a: str, b: str) -> bool:
    """Two paths (from the line's start) that lie in the same worktree, as far as text shows."""
    return not a.startswith(("/", "..")) and not b.startswith(("/", ".."))


def _covered(
    path: str, whole: bool, need: frozenset[str], state: _State, earlier: Sequence[Invocation]
) -> bool:
    """Whether the saves hold every kind of work `need` at `path` (whole: its worktree)."""
    held: set[str] = set()
    for at, save, dest in state.saves:
        if dest is not None and "untracked" in need:
            if _same_tree(dest, path) if whole else _under(dest, path):
                continue  # the copy is destroyed with the rest
        if any(_under(w, path) or _under(path, w) for w in _written_after(at, earlier)):
            continue  # written again since: the new content is not saved
        if save.whole and _same_tree(save.path, path):
            held |= save.kinds
        elif not save.whole and not whole and _under(path, save.path):
            held |= save.kinds
    return need <= held


def _rev_after_commits(rev: str, commits: int) -> str | None:
    """`HEAD~2` after one commit made on the line is `HEAD~1` of today; None: only the line's
    own commits are left behind."""
    match = re.match(_REV, rev)
    if match is None:
        return rev
    moves = re.findall(r"~\d*|\^1?", match.group(2))
    left = sum(int(p[1:] or 1) if p.startswith("~") else 1 for p in moves) - commits
    return None if left <= 0 else f"HEAD~{left}"


def _apply_saves(
    finding: Finding, inv: Invocation, earlier: Sequence[Invocation]
) -> Finding | None:
    targets = finding.targets
    if targets is None or not inv.succeeded or finding.kind != "discard":
        return finding
    need = DESTROYED_KINDS.get(targets.destroys)
    if need is None:
        return finding  # stashes, remote commits, devices: nothing on the line holds them
    state = _state_before(inv, earlier)
    if not state.saves and not state.commits and not state.refs_kept:
        return finding
    refs = tuple(r for r in (_rev_after_commits(x, state.commits) for x in targets.refs) if r)
    if state.refs_kept:
        refs = ()
    cwd = finding.cwd
    in_git = targets.destroys not in ("files", "all")
    if cwd is None or (targets.unknown and not in_git):
        covered = False  # anywhere at all
    elif targets.whole_tree or not targets.paths or targets.unknown:
        covered = _covered(cwd, True, need, state, earlier)  # pathspecs stay in the worktree
    else:
        covered = all(_covered(resolve(cwd, p), False, need, state, earlier) for p in targets.paths)
    if covered and not refs:
        return None
    saved = tuple(s for _, s, _ in state.saves)
    return replace(finding, targets=replace(targets, refs=refs, saved=targets.saved + saved))


def _links(earlier: Sequence[Invocation]) -> list[tuple[str, str]]:
    """(link path, where it leads) for each `ln` earlier on the line, from the line's start."""
    found: list[tuple[str, str]] = []
    for before in earlier:
        if before.name != "ln":
            continue
        args = parse_args(before.argv[1:], _LN)
        operands = list(args.operands())
        target_dir = args.last("-t", "--target-directory")
        if target_dir is not None or len(operands) > 2:
            directory = (
                target_dir.text or "" if target_dir is not None else literal_or_text(operands.pop())
            )
            pairs = [(w, posixpath.join(directory, _base(w))) for w in operands]
        elif len(operands) == 1:
            pairs = [(operands[0], _base(operands[0]))]
        elif len(operands) == 2:
            pairs = [(operands[0], literal_or_text(operands[1]))]
        else:
            pairs = []
        symbolic = args.has("-s", "--symbolic") and not args.has("-r", "--relative")
        for target, link in pairs:
            path = _from_start(before.cwd, link)
            where: str | None = literal_or_text(target)
            if where is not None and symbolic and not where.startswith(("/", "~", "$")):
                where = posixpath.normpath(posixpath.join(posixpath.dirname(path or ""), where))
            elif where is not None and not where.startswith(("/", "~", "$")):
                where = _from_start(before.cwd, where)
            if path is not None and where is not None:
                found.append((path, where))
    return found


def _from_start(cwd: str | None, path: str) -> str | None:
    """A path from where the line starts; None when it is relative to an unknown directory."""
    if cwd is None and not path.startswith(("/", "~")):
        return None
    return resolve(cwd, path)


def _base(word: Word) -> str:
    return posixpath.basename(literal_or_text(word).rstrip("/"))


def _through(path: str, links: list[tuple[str, str]], follows: bool = True) -> str | None:
    """`path` with a link made on the line replaced by where it leads; the link itself only
    when the command writes through it (`rm link` removes the link, `> link` writes its file)."""
    for link, where in reversed(links):
        if path == link and follows or path.startswith(link.rstrip("/") + "/"):
            return where + path[len(link.rstrip("/")) :]
    return None


def _apply_links(finding: Finding, earlier: Sequence[Invocation]) -> list[Finding]:
    targets = finding.targets
    if targets is None or finding.kind != "discard":
        return [finding]
    links = _links(earlier)
    if not links:
        return [finding]
    extra: list[Finding] = []
    real_cwd = _through(finding.cwd, links) if finding.cwd else None
    if real_cwd is not None:
        extra.append(replace(finding, cwd=real_cwd, targets=replace(targets, temp_only=False)))
    added = []
    for path in targets.paths:
        follows = targets.follows or path.endswith("/")
        start = _from_start(finding.cwd, path)
        real = _through(start, links, follows) if start is not None else None
        if real is not None and not real.startswith("/") and finding.cwd:
            real = posixpath.relpath(real, finding.cwd)  # paths are relative to the cwd
        if real is not None:
            added.append(real)
    if not added:
        return [finding, *extra]
    temp_only = targets.temp_only and all(is_temp_path(p) for p in added)
    widened = replace(targets, paths=targets.paths + tuple(added), temp_only=temp_only)
    return [replace(finding, targets=widened), *extra]


def apply(findings: list[Finding], inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    """The findings of `inv` as the line before it leaves them (see the module docstring)."""
    if not earlier or not findings:
        return findings
    kept: list[Finding] = []
    for finding in findings:
        for linked in _apply_links(finding, earlier):
            saved = _apply_saves(linked, inv, earlier)
            if saved is not None:
                kept.append(saved)
    return kept
