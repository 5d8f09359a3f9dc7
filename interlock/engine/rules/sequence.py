"""Sequences on one line: what the commands before a discard did to the tree.

A command line is judged as a sequence, not command by command against today's tree:

- **Saves** (`saves`). A discard is not one when a command that surely succeeded before it (an `&&`
  chain, `X || exit`, an `if` condition, `set -e`; never a plain `;` or `||`) saved what it
  destroys: `git stash && git checkout -- .`, `git commit -am wip && git reset --hard HEAD~1`,
  `git add -A && git stash && git clean -fd`, `cp f f.bak && rm f`, `tar czf b.tgz src && rm
  -rf src`. A save covers only its own paths and kinds (`git stash` keeps no untracked files);
  a write after it to a saved path undoes that cover. A finding the saves cover wholly is
  dropped; one they cover in part carries `Targets.saved`, so the facts layer counts only the
  rest. Commits made on the line move HEAD: `HEAD~1` after one commit is where HEAD started.
- **Stashes** (`stashes`). A `git stash` earlier on the line moves the work into an entry:
  a `git stash drop` or `clear` of it destroys that work (`git stash -u && git stash drop`),
  and once a `pop` brings it back, a later discard of it is not covered by the stash.
- **Links** (`links`). A path through a symlink or hard link made earlier on the line (`ln -s ~/repo
  /tmp/x && rm -rf /tmp/x/src`) is judged where the link leads as well, so a temp path that
  leads into a repository is not free.
- **Files made on the line.** A file wholly written earlier on the line (`find . > list;
  ...; rm list`, `cp a f && sed -i '/x/d' f`) holds only what the line put there when a
  later command deletes or rewrites it; the earlier write is judged on its own.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.facts import DESTROYED_KINDS
from interlock.engine.findings import Destroys, Finding, Saved, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules import links, overwrite, saves, stashes
from interlock.engine.rules.args import known_path
from interlock.engine.rules.common import resolve
from interlock.engine.rules.git.invocation import parse_git
from interlock.engine.rules.writes import touched_paths

# How every discard is read on its line (shown by `interlock explain` for discard rules).
LINE_NOTES = (
    "targets are judged where they really lie: through symlinks (also ones made earlier on "
    "the line with ln) and in the worktree found there",
    "after a `cd` that may fail without stopping the line (`cd X; cmd`, not `cd X && cmd`), "
    "the command is judged in both directories",
    "a save that surely succeeds first (`git stash && ...`, `git commit -am x && ...`, "
    "`cp f f.bak && ...`) makes a discard of what it saved harmless; `;` and `||` do not count",
    "a `git stash drop` or `clear` after a `git stash` on the same line destroys what that "
    "stash took (`git stash -u && git stash drop`); a `pop` puts it back in the tree, where a "
    "later discard reaches it again",
    "a commit made on the line and then left behind (`git commit -am wip && git reset --hard "
    "HEAD~1`, or its branch deleted) is not lost: HEAD's reflog and interlock's lost-tip refs "
    "keep it; commits that were there before the line are judged as usual",
)


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


def _overlap(a: str, b: str) -> bool:
    return _under(a, b) or _under(b, a)


def _same_tree(a: str, b: str) -> bool:
    """Two paths (from the line's start) that lie in the same worktree, as far as text shows."""
    return not a.startswith(("/", "..")) and not b.startswith(("/", ".."))


def _covered(
    path: str,
    whole: bool,
    need: frozenset[str],
    state: saves.State,
    earlier: Sequence[Invocation],
    trees: bool,
) -> bool:
    """Whether the saves hold every kind of work `need` at `path` (whole: its worktree);
    `trees`: count the saves of a whole worktree (`git stash -a`), which the text alone
    cannot tell reach `path` (a submodule or a nested repository under it is another tree)."""
    held: set[str] = set()
    for at, save, dest in state.saves:
        if dest is not None and "untracked" in need and _under(dest, path):
            continue  # the copy is destroyed with the rest (a copy never covers a whole tree)
        if any(_under(w, path) or _under(path, w) for w in _written_after(at, earlier)):
            continue  # written again since: the new content is not saved
        if save.whole and trees and _same_tree(save.path, path):
            held |= save.kinds
        elif not save.whole and not whole and _under(path, save.path):
            held |= save.kinds
    return need <= held


def _rev_after_commits(rev: str, commits: int) -> str | None:
    """`HEAD~2` after one commit made on the line is `HEAD~1` of today; None: only the line's
    own commits are left behind."""
    steps = saves.head_steps(rev)
    if steps is None:
        return rev
    left = steps - commits
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
    state = saves.state_before(inv, earlier)
    if not state.saves and not state.commits and not state.refs_kept:
        return finding
    refs = tuple(r for r in (_rev_after_commits(x, state.commits) for x in targets.refs) if r)
    if state.refs_kept:
        refs = ()
    cwd = finding.cwd
    in_git = targets.destroys not in ("files", "all")

    def covered(trees: bool) -> bool:
        if cwd is None or (targets.unknown and not in_git):
            return False  # anywhere at all
        if targets.whole_tree or not targets.paths or targets.unknown:
            return _covered(cwd, True, need, state, earlier, trees)  # pathspecs stay in the tree
        paths = [resolve(cwd, p) for p in targets.paths]
        return all(_covered(p, False, need, state, earlier, trees) for p in paths)

    tree_saved = False
    if not refs:
        if covered(trees=False):
            return None
        # covered only by a save of a whole worktree: the facts layer tells which entries lie
        # in that worktree (engine.precision), so `git stash -a && git submodule deinit -f
        # sub` still counts the submodule's own work, which no stash of the superproject holds
        tree_saved = covered(trees=True)
    where = [resolve(cwd, t) for t in targets.paths] if cwd is not None else []
    saved = tuple(  # a copy destroyed by this very command saves nothing
        s for _, s, dest in state.saves if dest is None or not any(_overlap(dest, w) for w in where)
    )
    widened = replace(targets, refs=refs, saved=targets.saved + saved, tree_saved=tree_saved)
    return replace(finding, targets=widened)


def _written_on_line(inv: Invocation, earlier: Sequence[Invocation]) -> set[str]:
    """Files wholly written earlier on the line: by a redirection (the shell truncates the
    file before the command runs, so order is enough) or by a command that surely succeeded
    (cp, mv, tee, curl -o...)."""
    done = {id(x) for x in inv.succeeded}
    written: set[str] = set()
    for k, before in enumerate(earlier):
        if before.cwd is None:
            continue
        for redirect in before.redirects:
            value = redirect.target.literal() if redirect.target is not None else None
            if redirect.op in (">", ">|", "&>") and redirect.heredoc is None and value:
                written.add(resolve(before.cwd, value))
        if id(before) in done:
            for found in overwrite.check_overwrite(before, earlier[:k]):
                if found.targets is not None and found.targets.single:
                    written |= {resolve(before.cwd, p) for p in found.targets.paths}
    return written


_GIT_DISCARDS = frozenset(
    "checkout restore reset clean stash rm switch read-tree checkout-index".split()
)


def _backups(earlier: Sequence[Invocation]) -> list[tuple[str, str]]:
    """(copy, what it holds) for each copy made earlier on the line whose original is gone
    since (`mv f /tmp/f.bak`; `cp f f.bak && rm f`): deleting such a copy destroys the saved
    work again."""
    found: list[tuple[str, str]] = []
    for k, before in enumerate(earlier):
        for save, dest in saves.copy_saves(before):
            if dest and (before.name == "mv" or _changed_after(save.path, earlier[k + 1 :])):
                found.append((dest, save.path))
    return found


def _changed_after(path: str, later: Sequence[Invocation]) -> bool:
    """Whether a later command may have deleted or rewritten `path` (or restored it from git)."""
    for inv in later:
        call = parse_git(inv)
        if call is not None and call.sub in _GIT_DISCARDS:
            return True
        for touch in touched_paths(inv):
            value = known_path(touch.word)
            if value is None or (inv.cwd is not None and _overlap(resolve(inv.cwd, value), path)):
                return True
    return False


def _apply_written(
    finding: Finding, inv: Invocation, earlier: Sequence[Invocation]
) -> Finding | None:
    """Drop targets the line itself wrote; a target that is a copy made on the line stands for
    the file it copied (`cp f f.bak && rm f && rm f.bak` loses f)."""
    targets = finding.targets
    if targets is None or finding.cwd is None or targets.unknown:
        return finding
    cwd = finding.cwd
    backups = _backups(earlier)
    copied = tuple(
        source
        for p in targets.paths
        for dest, source in backups
        if _under(resolve(cwd, p), dest) or _under(dest, resolve(cwd, p))
    )
    if copied:
        moved = tuple(
            s if s.startswith("/") or not cwd else posixpath.relpath(s, cwd) for s in copied
        )
        return replace(
            finding, targets=replace(targets, paths=targets.paths + moved, temp_only=False)
        )
    written = _written_on_line(inv, earlier) if targets.single else set()
    if not written or targets.search is not None:
        return finding  # what a search selects was not written by the line
    paths = tuple(p for p in targets.paths if resolve(cwd, p) not in written)
    return replace(finding, targets=replace(targets, paths=paths)) if paths else None


def _apply_stashes(
    finding: Finding, inv: Invocation, earlier: Sequence[Invocation]
) -> Finding | None:
    """A drop or clear of an entry a `git stash` on the line made destroys what it took; a
    branch the line created holds nothing that HEAD's reflog or another ref does not."""
    targets = finding.targets
    if finding.rule == "git.branch-force-delete" and targets is not None and targets.refs:
        if not targets.unknown and set(targets.refs) <= saves.created_branches(inv):
            return None
    if targets is None or targets.destroys != "stash":
        return finding
    if stashes.reapplied(inv, earlier):
        return None  # `git stash apply && git stash drop`: the work is back in the tree
    pushes = stashes.dropped(inv, earlier)
    if not pushes:
        return finding
    taken = saves.stashed(pushes, earlier)
    if not taken:
        return finding
    reason = f"{finding.reason}; the `git stash` earlier on this line put the unsaved work there"
    return replace(finding, reason=reason, targets=replace(targets, stashed=taken))


def _scope(save: Saved, finding: Finding) -> Targets | None:
    """The part of `finding`'s targets that `save` (from the line's start) reaches, as targets
    relative to the finding's cwd; None when they do not meet."""
    targets = finding.targets
    cwd = finding.cwd or ""
    assert targets is not None
    if save.whole or targets.unknown:
        near = _same_tree(save.path, cwd) or _overlap(save.path, cwd)
        return targets if near else None
    if targets.whole_tree or not targets.paths:
        where = posixpath.relpath(save.path, cwd or ".")
        return replace(targets, paths=(where,), whole_tree=False)
    paths = tuple(
        p if _under(resolve(cwd, p), save.path) else posixpath.relpath(save.path, cwd or ".")
        for p in targets.paths
        if _overlap(resolve(cwd, p), save.path)
    )
    return replace(targets, paths=paths) if paths else None


def _with_added(finding: Finding, earlier: Sequence[Invocation]) -> list[Finding]:
    """`finding`, and when it discards tracked work, the untracked files a `git add` earlier on
    the line put in the index, which it deletes too (`git add notes.md && git reset --hard`
    loses notes.md)."""
    targets = finding.targets
    if targets is None or finding.cwd is None or targets.destroys != "tracked":
        return [finding]
    found = [finding]
    for save in saves.indexed(earlier):
        scope = _scope(save, finding)
        if scope is not None:
            destroys: Destroys = "untracked+ignored" if "ignored" in save.kinds else "untracked"
            reason = (
                f"{finding.reason}; it also deletes the new files a `git add` earlier on "
                "this line put in the index"
            )
            found.append(replace(finding, reason=reason, targets=replace(scope, destroys=destroys)))
    return found


def apply(findings: list[Finding], inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    """The findings of `inv` as the line before it leaves them (see the module docstring)."""
    if not earlier or not findings:
        return findings
    kept: list[Finding] = []
    for found in (f for each in findings for f in _with_added(each, earlier)):
        finding = _apply_stashes(found, inv, earlier)
        if finding is None:
            continue
        for linked in links.apply_links(finding, earlier):
            saved = _apply_saves(linked, inv, earlier)
            fresh = _apply_written(saved, inv, earlier) if saved is not None else None
            if fresh is not None:
                kept.append(fresh)
    return kept
