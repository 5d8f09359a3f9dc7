"""Deletion outside git: rm -r (and rimraf), rm/unlink/srm of named files, rm of unknown
targets (globs, `$X`, xargs, find -exec), find -delete, shred, rsync --delete.

Deleting a named file is a discard too (`fs.rm-file`): what is in it may exist nowhere else.
Each target is reported exactly (`Targets.single`: a directory named to plain `rm` is not
deleted), so the facts layer keeps only files that hold unsaved work - an untracked or
modified file, a hand-made ignored one - and a run can tell its own files from a person's.
`rmdir` (empty dirs only) and `mv X /dev/null` are not discards; overwriting is in
`overwrite`, devices in `disk`. Targets in a fresh temp dir (`$(mktemp -d)`, and a variable
that holds one: engine.shellvars) are skipped; literal temp paths (/tmp/x) are reported with
`Targets.temp_only` so the facts layer can still see a worktree living under /tmp.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findexpr import Search, find_layout, find_search, starts_from_file
from interlock.engine.findings import Finding, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import known_path, literal_or_text, parse_args, spec
from interlock.engine.rules.common import make_finding, resolve, rule, shell_path
from interlock.engine.searchers import producer
from interlock.engine.spawners import RUNTIME_ARG
from interlock.shell.model import Word

RM = spec(
    long_flags=(
        "recursive force interactive dir verbose one-file-system no-preserve-root "
        "preserve-root help version"
    )
)
SHRED = spec(
    short_value="ns",
    long_value="iterations size random-source remove",
    long_flags="force exact zero verbose remove help version",
)
RSYNC_DELETE = (
    "--delete",
    "--del",
    "--delete-before",
    "--delete-during",
    "--delete-delay",
    "--delete-after",
    "--delete-excluded",
    "--delete-missing-args",
)
_RSYNC_VALUE = frozenset(
    "-e --rsh --rsync-path --exclude --include --exclude-from --include-from --files-from "
    "--filter -f --link-dest --compare-dest --copy-dest --backup-dir --suffix --chmod "
    "--chown --timeout --port --password-file --log-file --partial-dir --temp-dir -T "
    "--max-size --min-size --bwlimit --out-format --info --debug".split()
)
_TEMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/folders")
_MKTEMP = r"^(\$\(|`)\s*mktemp\b[^)`]*(\)|`)(?P<rest>/.*)?$"
# Block devices and memory: disks, partitions, floppies, RAID, device-mapper, loop, LVM
# (/dev/VG/LV), by-id links, macOS disks. Other names under /dev (null, terminals, streams,
# tmpfs, bash's /dev/tcp) are no disks; a misspelt /dev/nul is not one either.
_DISK_NAMES = (
    r"^/dev/(sd[a-z]+|hd[a-z]|vd[a-z]+|xvd[a-z]+|nvme\d+n\d+|mmcblk\d+|md\d*|dm-\d+|loop\d+"
    r"|sr\d+|fd\d+|rfd\d+|r?disk\d+|nbd\d+|rbd\d+|zram\d+|ram\d+|mtd(block)?\d+|ubi\w*"
    r"|bcache\d+|zd\d+|mem|kmem|port|root|sg\d+|st\d+|nst\d+)(p?\d+)?(s\d+)?$"
)
_NOT_DISK_DIRS = frozenset(
    "pts fd shm mqueue tcp udp input snd dri bus net char cpu hugepages vfio usb serial v4l "
    "dma_heap pty".split()
)
# find primaries that take one argument, and those that run a command up to `;`/`+`.
_FIND_ARG = frozenset(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type "
    "-xtype -user -group -uid -gid -perm -size -mtime -atime -ctime -mmin -amin -cmin -used "
    "-newer -anewer -cnewer -samefile -inum -links -maxdepth -mindepth -fstype -printf "
    "-fprint -fprint0 -fls -context -regextype -files0-from -D".split()
)
_FIND_EXEC = frozenset("-exec -execdir -ok -okdir".split())
# What quotes or a backslash keep from splitting: `\x`, `"..."`, `'...'`.
_QUOTED = re.compile(r"""\\.|"(?:\\.|[^"\\])*"|'[^']*'""", re.S)

RM_RECURSIVE = rule(
    "fs.rm-recursive",
    "discard",
    "rm -r deletes a directory tree",
    "deletes everything under the target, including uncommitted and untracked work that "
    "exists nowhere else (ignored build output is fine to delete)",
    "mv DIR /tmp/DIR.bak (recoverable), or delete the named files one by one",
    (
        "rm -rf src",
        "rm -rf .",
        "rm -r -f tests/",
        "rm --recursive --force lib",
        "rm -rf ./*",
        "rimraf dist",
    ),
    ("rm -rf /tmp/build-cache", "rmdir empty/"),
)
RM_FILE = rule(
    "fs.rm-file",
    "discard",
    "rm, unlink or srm deletes a named file",
    "a file that is untracked, modified, or hand-made and ignored holds work that exists "
    "nowhere else",
    "mv FILE /tmp/FILE.bak (recoverable), or commit or stash it first",
    ("rm notes.txt", "rm -f src/app.py", "unlink draft.md", "rm -- -weird.txt"),
    ("rm -f /tmp/out.log", 'rm -f "$(mktemp)"', "rmdir empty/", "rm .git/index.lock"),
    judged="in a repository only a file with unsaved work counts (an unmodified tracked file, "
    "ignored build output, a temp file or a missing one is free to delete); by text alone "
    "every named file does",
)
RM_UNKNOWN = rule(
    "fs.rm-unknown-targets",
    "discard",
    "rm of targets that are not known until run time (glob, $VAR, xargs, find -exec)",
    "the files deleted are chosen at run time, so they cannot be saved first; any of them "
    "may hold work that exists nowhere else",
    "list the targets first (e.g. `ls *.py`, drop `| xargs rm`), then delete named files one by one",
    ("rm *.py", "git ls-files | xargs rm", "find src -type f -exec rm {} +", 'rm "$FILE"'),
    ("rm -f /tmp/out.log", 'rm -rf "$(mktemp -d)/cache"'),
)
FIND_DELETE = rule(
    "fs.find-delete",
    "discard",
    "find -delete deletes every match",
    "deletes whatever the expression matches under the start paths, chosen at run time",
    "run the same find with -print first, then delete the named files one by one",
    ("find . -name '*.py' -delete",),
    ("find . -name '*.py' | head", "find /tmp -name '*.log' -delete"),
)
SHRED_RULE = rule(
    "fs.shred",
    "discard",
    "shred overwrites file contents beyond recovery",
    "the contents are overwritten in place, so not even a snapshot taken before can be "
    "trusted to hold the last version",
    "rm FILE (the snapshot engine keeps a copy), or move it out of the tree",
    ("shred -u secrets.txt",),
    ("shred -u /tmp/key.pem", "shred --help"),
)
RSYNC_RULE = rule(
    "fs.rsync-delete",
    "discard",
    "rsync --delete deletes files in the destination that the source lacks",
    "files only present in the destination are deleted, including uncommitted work",
    "rsync without --delete, or rsync --delete --dry-run to see what would go",
    ("rsync -a --delete build/ src/",),
    ("rsync -a build/ /tmp/out/", "rsync -an --delete a/ b/"),
)


def is_temp_path(path: str) -> bool:
    """Whether `path` (a literal, or a word's source text) is inside a temp dir.

    `/tmp`, `/tmp/x`, `/var/tmp/x`, `$(mktemp -d)`, `$(mktemp -d)/x` are; `/tmp/../home`,
    `$(mktemp -d)/$X` and relative paths are not, nor is any variable by its name (`$TMPDIR`
    may be unset: the walker puts in what the environment holds, engine.shellvars).
    """
    text = path.replace('"', "").replace("'", "")
    fresh = re.match(_MKTEMP, text)
    if fresh:  # `$(mktemp -d)`, `$(mktemp -d)/build`: inside a fresh temp dir
        rest = fresh.group("rest") or ""
        return ".." not in rest.split("/") and "$" not in rest and "`" not in rest
    if not text.startswith("/") or "$" in text or "`" in text:
        return False
    norm = posixpath.normpath(text)
    return any(norm == root or norm.startswith(root + "/") for root in _TEMP_ROOTS)


def is_temp_var(word: Word) -> bool:
    """A temp dir named through a variable or mktemp: nothing else can be said of it."""
    return word.literal() is None and is_temp_path(word.text)


def is_temp_literal(word: Word, cwd: str | None) -> bool:
    text = word.literal()
    if text is None:
        return False
    return is_temp_path(text) or (cwd is not None and is_temp_path(resolve(cwd, text)))


def temp_split(words: list[Word], cwd: str | None) -> tuple[list[Word], bool]:
    """(targets that are not temp variables, whether all of those are literal temp paths)."""
    kept = [w for w in words if not is_temp_var(w)]
    return kept, bool(kept) and all(is_temp_literal(w, cwd) for w in kept)


def in_git_dir(word: Word) -> bool:
    """A file inside a `.git` directory (`.git/index.lock`): git's own, judged by the git and
    self-disable families (a stale lock file is removed freely). Not git's records of work:
    a branch or stash ref, a reflog, an object, packed-refs, the index, HEAD
    (`rm .git/refs/heads/main` drops the branch as `git update-ref -d` does)."""
    parts = literal_or_text(word).replace('"', "").replace("'", "").split("/")
    if ".git" not in parts[:-1]:
        return False
    inside = parts[len(parts) - parts[::-1].index(".git") :]
    if inside[:1] == ["worktrees"]:
        inside = inside[2:]  # a linked worktree's own HEAD, index and reflogs
    records = inside[:1] in (["refs"], ["logs"], ["objects"]) or inside in (
        ["packed-refs"],
        ["index"],
        ["HEAD"],
    )
    return not records


def is_device(word: Word | str) -> bool:
    """A disk, partition or memory device (`/dev/sda1`, `/dev/nvme0n1p2`, `/dev/mapper/x`,
    `/dev/$DISK`); not /dev/null, a terminal, a stream, /dev/shm or bash's /dev/tcp."""
    text = word if isinstance(word, str) else literal_or_text(word)
    text = text.replace('"', "").replace("'", "")
    if not text.startswith("/dev/"):
        return False
    if "$" in text or "`" in text:
        return True
    norm = posixpath.normpath(text)
    parts = norm.split("/")[2:]
    if len(parts) > 1:  # /dev/disk/by-id/..., /dev/mapper/x, /dev/VG/LV; not /dev/pts/0
        return parts[0] not in _NOT_DISK_DIRS
    return bool(re.match(_DISK_NAMES, norm))


def _move_aside(targets: list[Word], rest: str | None = None) -> str | None:
    """`mv src /tmp/src.bak` for one plain target, quoted to paste; the rule's generic advice
    otherwise (several targets, a glob, `.`, `..`, `/`, a top-level dir like `/home`)."""
    if len(targets) != 1 or targets[0].literal() is None or targets[0].has_glob:
        return None
    path = targets[0].literal() or ""
    norm = posixpath.normpath(path)
    base = posixpath.basename(norm).lstrip(".")
    if not base or norm.startswith("/") and norm.count("/") < 2:
        return None
    move = f"mv {shell_path(path)} {shlex.quote(f'/tmp/{base}.bak')} (recoverable)"
    if rest is not None:
        return f"{move}, or commit or stash it first"
    return f"{move}, or delete the named files one by one"


def _built_on(word: Word) -> tuple[str, int] | None:
    """A word built on the path a search found (`{}/..`, `{}.bak/../x`): (the text glued to
    the found name, how many `..` follow); None when the found path does not lead the word
    (`../{}`, `/{}`, `$D/{}`): it may name anything."""
    value = word.literal()
    mark = "{}" if value is not None else RUNTIME_ARG
    text = value if value is not None else word.text.replace('"', "").replace("'", "")
    if not text.startswith(mark):
        return None
    glued, *parts = text[len(mark) :].split("/")
    return glued, parts.count("..")


def _reach(start: str, glued: str, ups: int) -> str:
    """The highest directory a word built on a path found under `start` may name: the
    start's parent for a name glued on (`{}.bak`), then `ups` levels above."""
    base = (posixpath.dirname(start + glued) or ".") if glued else start or "."
    return posixpath.normpath(posixpath.join(base, *[".."] * ups))


def _chosen(
    inv: Invocation, operands: tuple[Word, ...], earlier: Sequence[Invocation], subtree: bool
) -> Finding | None:
    """rm of what a file search chose (`find -exec rm {} +`, `fd -x rm`, `find | xargs
    rm`): judged by evaluating the search on the tree's unsaved paths (engine.findmatch).
    A word built on the found path (`{}/..`, `{}.bak`) names something else: judged as
    everything under the highest place it can reach."""
    runtime = [w for w in operands if w.literal() == "{}" or w.text == RUNTIME_ARG]
    partial = [
        w
        for w in operands
        if w not in runtime and ("{}" in (w.literal() or "") or RUNTIME_ARG in w.text)
    ]
    search: Search | None
    if inv.arg_search is not None:
        search = replace(inv.arg_search, subtree=subtree)
    else:
        search = producer(inv, earlier, subtree) if inv.arg_roots is None else None
    if search is None:
        return None
    others = [w for w in operands if w not in runtime and w not in partial]
    built = [_built_on(w) for w in partial]
    if any(b is None or b != ("", 0) for b in built):
        return _above(inv, search, others, built)
    if partial:  # `{}/x`: not the path found, but something under the start
        search = replace(search, expr=None, subtree=True)
    base = search.base
    temp = base is not None and all(is_temp_path(resolve(base, s)) for s in search.starts if s)
    targets = Targets(
        "files",
        paths=tuple(literal_or_text(w) for w in others),
        unknown=any(known_path(w) is None for w in others),
        temp_only=temp
        and search.starts != ("",)
        and all(is_temp_literal(w, inv.cwd) for w in others),
        search=search,
    )
    return make_finding(RM_UNKNOWN, inv, targets)


def _above(
    inv: Invocation, search: Search, others: list[Word], built: list[tuple[str, int] | None]
) -> Finding:
    """rm of words that name something beside or above what the search found (`{}.bak`,
    `{}/../..`): everything under the highest place each can reach from a start path, or
    anything at all when a word does not start at the found path."""
    known = [b for b in built if b is not None]
    paths = tuple(literal_or_text(w) for w in others)
    if len(known) < len(built):
        return make_finding(RM_UNKNOWN, inv, Targets("files", paths=paths, unknown=True))
    tops = sorted({_reach(s, glued, ups) for s in search.starts for glued, ups in known})
    wide = Search(tuple(tops), search.base, None, subtree=True, tool=search.tool)
    base = search.base
    temp = base is not None and all(is_temp_path(resolve(base, t)) for t in tops)
    targets = Targets(
        "files",
        paths=paths,
        unknown=any(known_path(w) is None for w in others),
        temp_only=temp and all(is_temp_literal(w, inv.cwd) for w in others),
        search=wide,
    )
    return make_finding(RM_UNKNOWN, inv, targets)


def _rm(
    inv: Invocation, earlier: Sequence[Invocation] = (), recursive: bool = False
) -> list[Finding]:
    args = parse_args(inv.argv[1:], RM)
    if args.has("--help", "--version"):
        return []
    recursive = recursive or args.has("-r", "-R", "--recursive")
    operands = args.operands()
    if inv.name == "unlink":  # exactly one operand; no options but --help/--version
        words = inv.argv[1:]
        operands = words[1:2] if words[:1] and words[0].literal() == "--" else words[:1]
    if inv.extra_args and (chosen := _chosen(inv, operands, earlier, recursive)) is not None:
        return [chosen]
    if inv.extra_args:
        # find's `{}` (and xargs -I's) placeholder stands for the run-time arguments
        operands = tuple(w for w in operands if "{}" not in (w.literal() or ""))
        roots = inv.arg_roots
        temp = bool(roots) and all(is_temp_path(resolve(inv.cwd, r)) for r in roots or ())
        paths = tuple(roots or ()) + tuple(literal_or_text(w) for w in operands)
        targets = Targets(
            "files", paths=paths, unknown=roots is None, temp_only=temp and not operands
        )
        return [make_finding(RM_UNKNOWN, inv, targets)]
    kept, temp_only = temp_split(list(operands), inv.cwd)
    if not kept:
        return []
    paths = tuple(literal_or_text(w) for w in kept)
    unknown = any(known_path(w) is None for w in kept)
    targets = Targets("files", paths=paths, unknown=unknown, temp_only=temp_only)
    if recursive:
        return [make_finding(RM_RECURSIVE, inv, targets, instead=_move_aside(kept))]
    if unknown or any(w.has_glob for w in kept):
        return [make_finding(RM_UNKNOWN, inv, targets)]
    files = [w for w in kept if not in_git_dir(w)]
    if not files:
        return []
    paths = tuple(literal_or_text(w) for w in files)
    single = Targets("files", paths=paths, single=True, temp_only=temp_only)
    return [make_finding(RM_FILE, inv, single, instead=_move_aside(files, RM_FILE.instead))]


def find_start_paths(words: tuple[Word, ...]) -> tuple[list[Word], list[Word]]:
    """Split find's arguments into (start paths, expression), as GNU find does."""
    first, end, _ = find_layout([w.literal() for w in words])
    return list(words[first:end]), list(words[end:])


def find_deletes(expression: list[Word]) -> bool:
    """Whether a find expression contains the -delete action (not as an argument), or may:
    a word known only at run time where a primary stands (`find . -name x $A`) may be
    `-delete` or `-exec rm {} +`; a value (`-name "$PAT"`) is only a value."""
    i = 0
    while i < len(expression):
        lit = expression[i].literal()
        if lit == "-delete" or lit is None:
            return True
        if lit in _FIND_EXEC:
            while i < len(expression) and expression[i].literal() not in (";", "+"):
                i += 1
        elif lit in _FIND_ARG or lit.startswith("-newer"):
            i += 1
        elif lit == "-fprintf":
            i += 2
        i += 1
    return False


def _may_split(word: Word) -> bool:
    """An expansion outside quotes: the word may become several (`$A` may be
    `-exec rm {} +`)."""
    bare = _QUOTED.sub("", word.text)
    return "$" in bare or "`" in bare


def _find(inv: Invocation) -> list[Finding]:
    starts, expression = find_start_paths(inv.argv[1:])
    # `find . $A -print`: after the first start path, an unquoted word known only at run
    # time may open the expression with `-delete` (find takes it for a start path)
    opens = any(w.literal() is None and _may_split(w) for w in starts[1:])
    if not (find_deletes(expression) or opens):
        return []
    if starts_from_file([w.literal() for w in expression]):  # `-files0-from LIST`
        return [make_finding(FIND_DELETE, inv, Targets("files", unknown=True))]
    kept, temp_only = temp_split(starts, inv.cwd)
    if starts and not kept:
        return []
    search = find_search(inv.argv[1:], inv.cwd, target=-1)
    if search is not None and not inv.extra_args:
        return [
            make_finding(FIND_DELETE, inv, Targets("files", temp_only=temp_only, search=search))
        ]
    paths = tuple(literal_or_text(w) for w in kept) or (".",)
    unknown = inv.extra_args or any(known_path(w) is None for w in kept)
    # -L and -H make find follow a start path that is a symlink (-P, the default, does not)
    follows = any(w.literal() in ("-L", "-H") for w in inv.argv[1:] if w not in starts)
    targets = Targets("files", paths=paths, unknown=unknown, temp_only=temp_only, follows=follows)
    return [make_finding(FIND_DELETE, inv, targets)]


def _shred(inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], SHRED)
    # a device (shred /dev/sda) is the disk family's
    named = [w for w in args.operands() if w.literal() != "-" and not is_device(w)]
    operands, temp_only = temp_split(named, inv.cwd)
    if args.has("--help", "--version") or not (operands or inv.extra_args):
        return []
    paths = tuple(literal_or_text(w) for w in operands)
    unknown = inv.extra_args or any(known_path(w) is None for w in operands)
    targets = Targets(
        "files", paths=paths, unknown=unknown, temp_only=temp_only and not inv.extra_args
    )
    return [make_finding(SHRED_RULE, inv, targets)]


def _rsync(inv: Invocation) -> list[Finding]:
    words = inv.argv[1:]
    literals = [w.literal() or "" for w in words]
    if not any(lit.split("=", 1)[0] in RSYNC_DELETE for lit in literals):
        return []
    operands: list[Word] = []
    options: list[str] = []
    skip = False
    for word, lit in zip(words, literals, strict=True):
        if skip:  # the value of -f, --exclude...: `-f '- node_modules'` is no option
            skip = False
        elif lit in _RSYNC_VALUE:
            skip = True
        elif not lit.startswith("-") or word.literal() is None:
            operands.append(word)
        else:
            options.append(lit)
    if any(lit == "--dry-run" or re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", lit) for lit in options):
        return []
    if len(operands) < 2:
        return []
    dest = operands[-1]
    text = literal_or_text(dest)
    if ":" in text.split("/", 1)[0] or is_temp_var(dest):
        return []
    temp_only = is_temp_literal(dest, inv.cwd)
    targets = Targets("files", paths=(text,), unknown=known_path(dest) is None, temp_only=temp_only)
    return [make_finding(RSYNC_RULE, inv, targets)]


def check_fs(inv: Invocation, earlier: Sequence[Invocation] = ()) -> list[Finding]:
    """Deletion findings for rm, unlink, srm, rimraf, find, shred and rsync invocations;
    `earlier`: the commands before it on the line (a search piped into `xargs rm`)."""
    name = inv.name
    if name in ("rm", "unlink", "srm"):
        return _rm(inv, earlier)
    if name == "rimraf":
        return _rm(inv, earlier, recursive=True)
    if name in ("find", "gfind"):
        return _find(inv)
    if name == "shred":
        return _shred(inv)
    if name == "rsync":
        return _rsync(inv)
    return []
