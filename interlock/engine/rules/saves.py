"""What a command that surely succeeded saved (for `sequence`): `git stash [-u|-a] [-- paths]`,
`git commit [-a] [paths]` (with what `git add` put in the index first), `git diff --binary > f`,
copies (`cp`, `mv`, `rsync`, `cat f > g`) and archives (`tar -c`, `zip`); also how many
commits the line made (they move HEAD) and whether a new branch or tag keeps HEAD's commits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from interlock.engine.findings import Saved
from interlock.engine.invocation import Invocation
from interlock.engine.rules import stashes
from interlock.engine.rules.args import Args, known_path, literal_or_text, parse_args, spec
from interlock.engine.rules.common import resolve
from interlock.engine.rules.extract import tar_words
from interlock.engine.rules.git.invocation import GitCall, parse_git
from interlock.shell.model import Word

ALL = frozenset(("staged", "unstaged", "untracked", "ignored"))
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
_COPY = spec(
    short_value="tS",
    long_value="target-directory suffix exclude include filter exclude-from include-from",
    long_flags="no-clobber update interactive",
)
_SKIPS = (
    "-n",
    "--no-clobber",
    "-u",
    "--update",
    "-i",
    "--interactive",
    "--exclude",
    "--include",
    "--filter",
    "-f",
    "--exclude-from",
    "--include-from",
    "--existing",
    "--ignore-existing",
)
_TAR = spec(
    short_value="fCbFgHIKLNTVX",
    long_value="file directory exclude format",
    long_flags="create extract list",
)
REV = r"^(HEAD|@)((~\d*|\^1?)*)$"


@dataclass
class State:
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


def _literal_paths(args: Args) -> list[str] | None:
    """The paths named (None: some only at run time, or read from a file)."""
    if args.has("--pathspec-from-file"):
        return None
    words = list(args.after_dashdash if args.dashdash else args.positionals)
    if any(known_path(w) is None for w in words):
        return None
    return [literal_or_text(w) for w in words]


def _git_saves(call: GitCall, state: State) -> list[Saved]:
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
        mine = _whole_or_paths(kinds, call, paths)
        return mine + (_within(state.staged, [s.path for s in mine]) if paths else state.staged)
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


def _inside(path: str, root: str) -> bool:
    """Whether `path` is `root` or lies under it (both from the line's start; '' is there)."""
    if root == "":
        return not path.startswith(("..", "/"))
    return path == root or path.startswith(root.rstrip("/") + "/")


def _within(staged: Sequence[Saved], roots: Sequence[str]) -> list[Saved]:
    """The part of the index work `staged` that lies under `roots`: a `git stash push --
    paths` takes only those paths, and leaves the rest of the index in the tree."""
    narrowed: list[Saved] = []
    for save in staged:
        for root in roots:
            if _inside(save.path, root) and not save.whole:
                narrowed.append(save)
            elif _inside(root, save.path):
                narrowed.append(Saved(save.kinds, root))
    return narrowed


def _keeps(dest: str | None) -> bool:
    """Whether writing to `dest` keeps a copy: a known file, not stdout (`-`) or a device."""
    return dest is not None and dest != "-" and not dest.startswith("/dev/")


def _stdout_file(inv: Invocation) -> str | None:
    """The one file that `inv`'s standard output is written over (`> f`), if known."""
    outs = [r for r in inv.redirects if r.op in (">", ">|") and r.fd in (None, 1) and r.target]
    if len(outs) != 1 or outs[0].target is None:
        return None
    return outs[0].target.literal()  # a device: _keeps says no


def _diff_saved(inv: Invocation, call: GitCall) -> list[Saved]:
    """`git diff --binary [HEAD] [-- paths] > file` (or `--output=file`) keeps the changes in
    that file (without --binary a changed binary file is only named, so the diff saves nothing
    whole); `--cached` shows the index only, two commits or `--no-index` no work at all."""
    args = parse_args(call.args, spec(short_value="OUS", long_value="output"))
    output = args.last("--output")
    if not _keeps(output.value if output is not None else _stdout_file(inv)):
        return []
    if not args.has("--binary") or args.has("--stat", "--name-only", "--name-status", "-s"):
        return []
    if args.has("--no-index"):
        return []
    revs = [w for w in args.positionals if re.match(REV, literal_or_text(w))]
    if len(revs) > 1:
        return []  # between two commits
    if args.has("--cached", "--staged"):
        kinds = frozenset({"staged"})  # the index against HEAD or the commit named
    else:
        kinds = _TRACKED if revs else frozenset({"unstaged"})
    named = args.after_dashdash if args.dashdash else [w for w in args.positionals if w not in revs]
    if any(known_path(w) is None for w in named):
        return []
    paths = [literal_or_text(w) for w in named]  # a branch name read as a path only narrows it
    return _whole_or_paths(kinds, call, paths)


def copy_saves(inv: Invocation) -> list[tuple[Saved, str | None]]:
    """cp/mv/rsync/tar -c/zip of literal paths to a known place: every kind of work at those
    paths."""
    name = inv.name
    cwd = inv.cwd or ""
    if name in ("cp", "mv", "rsync"):
        args = parse_args(inv.argv[1:], _COPY)
        if args.has(*_SKIPS):
            return []  # the copy may be skipped (-n, -u) or leave files out (--exclude)
        operands = list(args.operands())
        target = args.last("-t", "--target-directory")
        dest = target.value if target is not None else None
        if target is None and len(operands) > 1:
            dest = known_path(operands.pop())
        if not _keeps(dest):
            return []  # `cp f "$d"`: $d may be /dev/null
        return [(Saved(ALL, resolve(cwd, p)), resolve(cwd, dest or "")) for p in _known(operands)]
    if name == "cat":  # cat FILE > COPY; an option (-n, -s, -A) changes what is written
        sources = inv.argv[1:]
        dest = _stdout_file(inv)
        if len(sources) != 1 or (sources[0].literal() or "x").startswith("-") or not _keeps(dest):
            return []
        return [(Saved(ALL, resolve(cwd, p)), resolve(cwd, dest or "")) for p in _known(sources)]
    if name == "zip":  # zip [-r] ARCHIVE PATHS...
        if any(w.literal() in ("-x", "--exclude") for w in inv.argv):
            return []
        operands = [w for w in inv.argv[1:] if not (w.literal() or "x").startswith("-")]
        if not operands or not _keeps(known_path(operands[0])):
            return []
        return [(Saved(ALL, resolve(cwd, p)), None) for p in _known(operands[1:])]
    if name in ("tar", "gtar", "bsdtar"):
        args = parse_args(tar_words(inv), _TAR)
        out = args.last("-f", "--file")
        if not args.has("-c", "--create") or out is None or not _keeps(out.value):
            return []
        if args.has("--exclude", "-X", "--exclude-from", "--exclude-vcs", "--exclude-ignore"):
            return []
        if args.has("-C", "--directory"):
            return []  # the paths are read from another directory
        return [(Saved(ALL, resolve(cwd, p)), None) for p in _known(args.operands())]
    return []


def _known(words: Sequence[Word]) -> list[str]:
    return [v for w in words if (v := known_path(w)) is not None and not w.has_glob]


def head_steps(rev: str) -> int | None:
    """How many first-parent steps back from HEAD `rev` is (`HEAD~2`, `@^^`: 2; `^` and `^1`
    are one step, like `~`); None: not a rev relative to HEAD."""
    match = re.match(REV, rev)
    if match is None:
        return None
    return sum(int(p[1:] or 1) for p in re.findall(r"~\d*|\^1?", match.group(2)))


def _moved_back(earlier: Sequence[Invocation]) -> int:
    """How far back the commands earlier on the line that may have run moved HEAD (`git reset
    --hard HEAD~1`, `git checkout HEAD^`), each taken to have run: a HEAD-relative rev after
    them reaches that much further back."""
    steps = 0
    for before in earlier:
        call = parse_git(before)
        if call is None or call.sub not in ("reset", "checkout", "switch"):
            continue
        words = [w.literal() for w in call.args]
        revs = [w for w in words if not (w or "-").startswith("-")]
        if len(revs) == 1 and "--" not in words:
            steps += head_steps(revs[0] or "") or 0
    return steps


def state_before(inv: Invocation, earlier: Sequence[Invocation]) -> State:
    state = State(commits=-_moved_back(earlier))
    index = {id(e): k for k, e in enumerate(earlier)}
    for before in inv.succeeded:
        at = index.get(id(before), -1)
        call = parse_git(before)
        if call is not None and call.sub == "diff":
            state.saves += [(at, s, None) for s in _diff_saved(before, call)]
        elif call is not None:
            saved = _git_saves(call, state)
            if call.sub == "stash" and stashes.taken_back(at, earlier):
                continue  # popped, dropped or cleared since: the work is not in it any more
            state.saves += [(at, s, None) for s in saved]
        else:
            state.saves += [(at, s, dest) for s, dest in copy_saves(before)]
    return state


def indexed(earlier: Sequence[Invocation]) -> list[Saved]:
    """The untracked files that a `git add` earlier on the line may have put in the index
    (whether or not it surely ran): a discard of tracked work (`git reset --hard`, `git
    restore -SW`, `git rm -f`) deletes such a file, which no commit holds. Paths it names only
    at run time: its whole worktree."""
    found: list[Saved] = []
    for before in earlier:
        call = parse_git(before)
        if call is None or call.sub != "add":
            continue
        args = parse_args(call.args, _ADD)
        if args.has("-n", "--dry-run", "-u", "--update", "-p", "--patch"):
            continue
        kinds = frozenset({"untracked", "ignored"} if args.has("-f", "--force") else {"untracked"})
        paths = _literal_paths(args)
        if paths is None or args.has("-i", "--interactive"):
            found.append(Saved(kinds, call.cwd or "", whole=True))
        elif paths or args.has("-A", "--all"):
            found += _whole_or_paths(kinds, call, paths)
    return found


_CREATE = {"checkout": ("-b",), "switch": ("-c", "--create"), "worktree": ("-b",)}


def created_branches(inv: Invocation) -> set[str]:
    """Branches that commands which surely succeeded before `inv` created on the line
    (`git checkout -b tmp`, `git switch -c tmp`, `git branch tmp`): each fails when the name
    is taken, so such a branch holds only commits the line made or another ref or HEAD's
    reflog holds."""
    made: set[str] = set()
    for before in inv.succeeded:
        call = parse_git(before)
        if call is None or call.sub not in ("checkout", "switch", "branch", "worktree"):
            continue
        words = [w.literal() for w in call.args]
        if call.sub == "branch":
            # `git branch NAME [START]`; an option anywhere (-f, --force) may reset one there
            if len(words) in (1, 2) and all(w and not w.startswith("-") for w in words):
                made.add(words[0] or "")
            continue
        for word, after in zip(words, [*words[1:], None], strict=True):
            if word in _CREATE[call.sub] and after:
                made.add(after)
            elif word is not None and word.startswith("--create="):
                made.add(word.split("=", 1)[1])
    return made


def stashed(pushes: Sequence[int], earlier: Sequence[Invocation]) -> tuple[Saved, ...]:
    """What the `git stash` pushes at those positions of `earlier` took (with what a `git add`
    before them put in the index), whether or not each surely ran."""
    state = State()
    taken: list[Saved] = []
    for k, before in enumerate(earlier):
        call = parse_git(before)
        if call is None or call.sub not in ("add", "stash"):
            continue
        saved = _git_saves(call, state)
        if k in pushes:
            taken += saved
    return tuple(dict.fromkeys(taken))
