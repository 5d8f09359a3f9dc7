"""Unpacking archives and writing git's content over the working tree (part of the overwrite
family, see `overwrite`).

- `overwrite.extract`: tar -x, unzip -o, 7z x -y/-aoa, cpio -iu replace every existing file
  the archive holds. The members are known only in the tree (the facts layer reads a literal
  archive file), so by text alone this is no discard.
- `overwrite.git-content`: `git show REV:f > f`, `git cat-file -p REV:f > f`, `git archive
  REV | tar -x`, `git diff | git apply -R` (or `| patch -R`) put committed content back over
  files, exactly like `git checkout REV -- f`: a discard by text alone. A reversed patch read
  from a file (`git apply -R fix.patch`) is not: the file keeps every line it takes out;
  unless a `git diff` wrote that file earlier on the line (`git diff > p && git apply -R p`,
  `patch -R < p`): that is `git diff | git apply -R` through a file, and the file counts as a
  save only as any diff does in `sequence` (`git diff --binary > p`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findings import Destroys, Finding, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_or_text, parse_args, spec
from interlock.engine.rules.common import make_finding, resolve, rule
from interlock.engine.rules.git.invocation import GitCall, parse_git
from interlock.engine.rules.git.worktree import looks_like_path
from interlock.engine.rules.targets import file_targets, instead_for, pipe_before, same_file
from interlock.shell.model import Redirect, SimpleCommand, Word

EXTRACT = rule(
    "overwrite.extract",
    "discard",
    "tar -x, unzip -o, 7z x -y or cpio -iu unpacks over existing files",
    "extracting replaces every existing file the archive holds: what they held exists nowhere else",
    "extract into an empty directory (tar -x -C /tmp/unpacked, unzip -d /tmp/unpacked) and "
    "copy what you need, or never overwrite: tar -xk, unzip -n",
    ("tar -xzf vendor.tgz", "unzip -o release.zip", "7z x -y pack.7z", "cpio -idu < a.cpio"),
    ("tar -tzf vendor.tgz", "tar -xkf a.tar", "unzip -n release.zip", "unzip -l release.zip"),
    judged="only in a repository: the members of a tar or zip file are read; for an archive "
    "read from a pipe (or too large to list), every unsaved file under the destination counts",
)
GIT_CONTENT = rule(
    "overwrite.git-content",
    "discard",
    "git content is written over the working tree (git show REV:f > f, git archive | tar -x, "
    "git diff | git apply -R)",
    "committed content is put back over the files, like git checkout: their uncommitted "
    "edits exist nowhere else",
    "save the edits first: git stash push -- FILE (or git diff --binary > edits.patch), then "
    "restore",
    (
        "git show HEAD:src/app.py > src/app.py",
        "git cat-file -p HEAD:README.md > README.md",
        "git archive HEAD | tar -x",
        "git diff | git apply -R",
        "git diff -- src | patch -R -p1",
    ),
    (
        "git show HEAD:src/app.py > /tmp/app.py",
        "git diff > edits.patch",
        "git apply -R fix.patch",
        "git archive -o /tmp/src.tar HEAD",
    ),
    judged="by text alone always; in a repository only files with uncommitted edits count. A "
    "reversed patch read from a file is no discard (the file keeps what it takes out), unless "
    "a `git diff` wrote that file earlier on the line (`git diff > p && git apply -R p`)",
)

_TAR = spec(
    short_value="fCbFgHIKLNTVX",
    long_value=(
        "file directory blocking-factor info-script listed-incremental format "
        "use-compress-program starting-file tape-length newer newer-mtime files-from label "
        "exclude-from exclude owner group mode mtime transform xform"
    ),
    long_flags=(
        "extract get list keep-old-files skip-old-files to-stdout to-command diff compare "
        "overwrite gzip bzip2 xz zstd verbose"
    ),
)
_TAR_KEEPS = ("-k", "--keep-old-files", "--skip-old-files", "-O", "--to-stdout", "--to-command")
_TAR_LETTERS = re.compile(r"^[AcdrtuxfCjJzZvkOpPSWbgGhilmMnoRsUwBT-]+$")
_APPLY = spec(
    short_value="pC",
    long_value="exclude include directory whitespace build-fake-ancestor",
    long_flags="reverse check stat numstat summary cached index apply 3way",
)
_PATCH = spec(
    short_value="pdiDoBFgrVYzZ",
    long_value="strip directory input ifdef output prefix fuzz get reject-file version-control",
    long_flags="reverse dry-run forward batch force silent quiet",
)
_DIFF_SPEC = spec(short_value="OUS", long_value="output relative src-prefix dst-prefix")


def _blob_path(call: GitCall) -> str | None:
    """The path of `git show REV:path` / `git cat-file -p REV:path`, when one is named."""
    words = [literal_or_text(w) for w in call.args if not literal_or_text(w).startswith("-")]
    if call.sub == "cat-file" and words[:1] in (["blob"], ["-p"]):
        words = words[1:]
    for word in words:
        match = re.match(r"^[^:\s]*:(?:[0-3]:)?(.+)$", word)
        if match and "://" not in word:
            return match.group(1)
    return None


def _same_blob(producer: Invocation, writer: Invocation, word: Word) -> bool:
    """Whether `producer` is `git show REV:path` (or cat-file) of the file `word` names: the
    same path, or the same name (the line may start in a subdirectory; the facts layer
    resolves the real file)."""
    target = word.literal()
    call = parse_git(producer)
    if target is None or call is None or call.sub not in ("show", "cat-file"):
        return False
    blob = _blob_path(call)
    if blob is None:
        return False
    if blob.startswith(("./", "../")):
        return same_file(call.cwd, blob, writer.cwd, target)
    return posixpath.basename(blob) == posixpath.basename(target)


def git_content_over(
    inv: Invocation, redirect: Redirect, earlier: Sequence[Invocation] = ()
) -> Finding | None:
    """`git show REV:f > f` (or `git show REV:f | cat > f`): git's version written over it."""
    if redirect.fd not in (None, 1) or redirect.target is None:
        return None
    target = redirect.target
    if not any(_same_blob(e, inv, target) for e in [inv, *pipe_before(inv, earlier)]):
        return None
    targets = file_targets((redirect.target,), inv.cwd, follows=True)
    if targets is None:
        return None
    return make_finding(
        GIT_CONTENT, inv, targets, instead=instead_for(GIT_CONTENT.instead, targets)
    )


def git_content_into(producer: Invocation, tee: Invocation, files: list[Word]) -> list[Word]:
    """The files of `git show REV:f | tee f` that receive git's version of themselves."""
    return [w for w in files if _same_blob(producer, tee, w)]


def tar_words(inv: Invocation) -> tuple[Word, ...]:
    """tar's arguments, with the old style (`tar xzf a.tgz`) read as `-xzf a.tgz`."""
    words = inv.argv[1:]
    first = words[0].literal() if words else None
    if first and not first.startswith("-") and _TAR_LETTERS.match(first):
        return (Word("-" + first, "-" + first),) + words[1:]
    return words


def _archive_producer(
    inv: Invocation, archive: str | None, earlier: Sequence[Invocation]
) -> GitCall | None:
    """The `git archive` whose output this tar reads: piped in, or written earlier with -o."""
    feeders = pipe_before(inv, earlier) if archive in (None, "-") else []
    for feeder in feeders:  # `git archive HEAD | gzip | tar xz` reads it too
        call = parse_git(feeder)
        if call is not None and call.sub == "archive" and not _has_output(call):
            return call
    for before in earlier if archive not in (None, "-") else ():
        call = parse_git(before)
        out = _output(call) if call is not None and call.sub == "archive" else None
        if (
            call is not None
            and out is not None
            and same_file(call.cwd, out, inv.cwd, archive or "")
        ):
            return call
    return None


def _output(call: GitCall) -> str | None:
    args = parse_args(call.args, spec(short_value="o", long_value="output prefix format remote"))
    out = args.last("-o", "--output")
    return out.value if out is not None else None


def _has_output(call: GitCall) -> bool:
    return _output(call) is not None


def _tar(inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    args = parse_args(tar_words(inv), _TAR)
    if not args.has("-x", "--extract", "--get") or args.has(*_TAR_KEEPS):
        return []
    directory = args.last("-C", "--directory")
    dest = directory.text if directory is not None and directory.text else "."
    archive_opt = args.last("-f", "--file")
    archive = archive_opt.value if archive_opt is not None else None
    members = [literal_or_text(w) for w in args.operands()]
    git = _archive_producer(inv, archive, earlier)
    if git is not None:
        return _git_archive(inv, git, dest)
    strip = args.last("--strip-components")
    paths = [posixpath.join(dest, m) for m in members] or [dest]
    return _extracted(
        inv, paths, None if members else archive, _int(strip.value if strip else None)
    )


def _int(text: str | None) -> int:
    return int(text) if text and text.isdigit() else 0


def _extracted(
    inv: Invocation, paths: list[str], archive: str | None, strip: int = 0
) -> list[Finding]:
    targets = file_targets([Word(p, p) for p in paths], inv.cwd, creates=True, single=False)
    if targets is None:
        return []
    if archive not in (None, "-"):
        targets = replace(targets, archive=archive, strip=strip)
    return [make_finding(EXTRACT, inv, targets)]


def _git_archive(inv: Invocation, call: GitCall, dest: str) -> list[Finding]:
    args = parse_args(call.args, spec(short_value="o", long_value="output prefix format remote"))
    prefix = args.last("--prefix")
    pathspecs = [literal_or_text(w) for w in args.operands()[1:]]
    root = posixpath.join(dest, prefix.value or "") if prefix is not None else dest
    paths = [posixpath.normpath(posixpath.join(root, p)) for p in pathspecs] or [root]
    targets = file_targets([Word(p, p) for p in paths], inv.cwd, single=False)
    if targets is None:
        return []
    # an archive of committed content replaces what the worktree files hold beyond the index
    targets = replace(targets, destroys="unstaged", creates=prefix is not None)
    return [make_finding(GIT_CONTENT, inv, targets)]


def _archived_by_git(
    inv: Invocation, archive: str, earlier: Sequence[Invocation]
) -> GitCall | None:
    """A `git archive -o FILE` earlier on the line that wrote this archive."""
    for before in earlier:
        call = parse_git(before)
        out = _output(call) if call is not None and call.sub == "archive" else None
        if call is not None and out is not None and same_file(call.cwd, out, inv.cwd, archive):
            return call
    return None


def _unzip(inv: Invocation, earlier: Sequence[Invocation] = ()) -> list[Finding]:
    flags = ""
    dest = "."
    plain: list[str] = []
    words = [literal_or_text(w) for w in inv.argv[1:]]
    k = 0
    while k < len(words):
        word = words[k]
        if word == "-d" and k + 1 < len(words):
            dest, k = words[k + 1], k + 2
            continue
        if word == "-x":
            break
        if word.startswith("-"):
            flags += word[1:]
        else:
            plain.append(word)
        k += 1
    if "o" not in flags or set(flags) & set("nltvpZz") or not plain:
        return []  # without -o unzip asks before replacing a file
    archive, members = plain[0], plain[1:]
    git = _archived_by_git(inv, archive, earlier)
    if git is not None:
        return _git_archive(inv, git, dest)
    paths = [posixpath.join(dest, m) for m in members] or [dest]
    return _extracted(inv, paths, None if members else archive)


def _sevenzip(inv: Invocation) -> list[Finding]:
    words = [literal_or_text(w) for w in inv.argv[1:]]
    if not words or words[0] not in ("x", "e"):
        return []
    switches = [w for w in words[1:] if w.startswith("-")]
    plain = [w for w in words[1:] if not w.startswith("-")]
    keeps = any(s in ("-aos", "-aou", "-aot") for s in switches)
    if keeps or not ("-aoa" in switches or "-y" in switches) or not plain:
        return []
    dest = next((s[2:] for s in switches if s.startswith("-o") and len(s) > 2), ".")
    return _extracted(inv, [dest], plain[0] if words[0] == "x" else None)


def _cpio(inv: Invocation) -> list[Finding]:
    words = [literal_or_text(w) for w in inv.argv[1:]]
    letters = "".join(w[1:] for w in words if w.startswith("-") and not w.startswith("--"))
    extract = "i" in letters or "--extract" in words
    if not extract or not ("u" in letters or "--unconditional" in words):
        return []
    dest = next((words[k + 1] for k, w in enumerate(words[:-1]) if w in ("-D", "--directory")), ".")
    return _extracted(inv, [dest], None)


def _diff_feeding(inv: Invocation, earlier: Sequence[Invocation]) -> GitCall | None:
    """The `git diff` of the worktree whose output this command reads on stdin: piped in,
    through `<(git diff)`, or from a file a `git diff` wrote earlier on the line (`git diff >
    p; git apply -R < p`, `git diff > p; cat p | git apply -R`)."""
    feeders = pipe_before(inv, earlier)
    candidates = [parse_git(f) for f in feeders]
    for feeder in feeders:
        if feeder.name == "cat":
            files = [w for w in feeder.argv[1:] if not (w.literal() or "x").startswith("-")]
            candidates += [_diff_written(w, feeder, earlier) for w in files]
    for redirect in inv.redirects:
        if redirect.op == "<" and redirect.target is not None:
            candidates += [parse_git(i) for i in _substituted(redirect.target, inv.cwd)]
            candidates.append(_diff_written(redirect.target, inv, earlier))
    return _worktree_diff(candidates)


def _worktree_diff(candidates: Sequence[GitCall | None]) -> GitCall | None:
    """The first of these calls that is a `git diff` of the worktree's unstaged changes."""
    for call in candidates:
        if call is None or call.sub != "diff":
            continue
        args = parse_args(call.args, _DIFF_SPEC)
        if not args.has("--cached", "--staged", "--stat", "--name-only", "--name-status"):
            return call
    return None


def _diff_written(word: Word, inv: Invocation, earlier: Sequence[Invocation]) -> GitCall | None:
    """The `git diff` that last wrote the file `word` (as `inv` names it) earlier on the line
    (`git diff > p`, `git diff --output=p`): a reversed patch of it takes the changes back out
    of the tree, as `git diff | git apply -R` does."""
    value = word.literal()
    if value is None or inv.cwd is None or value == "-":
        return None
    path = resolve(inv.cwd, value)
    before = [e for e in earlier if e is not inv and e.cwd is not None]
    for writer in reversed(before):
        call = parse_git(writer)
        outputs = [
            r.target
            for r in writer.redirects
            if r.op in (">", ">|", "&>", ">>") and r.fd in (None, 1) and r.target is not None
        ]
        if call is not None and call.sub == "diff":
            opt = parse_args(call.args, _DIFF_SPEC).last("--output")
            if opt is not None and opt.word is not None:
                outputs.append(opt.word)
            elif opt is not None and opt.value is not None:
                outputs.append(Word(opt.value, opt.value))
        named = [t.literal() for t in outputs]
        if any(n is None for n in named):
            continue  # a file named at run time: maybe another one
        if path in {resolve(writer.cwd, n or "") for n in named}:
            return call
    return None


def _substituted(word: Word, cwd: str | None) -> list[Invocation]:
    """The simple commands of a process substitution `<(git diff)`, as bare invocations."""
    found: list[Invocation] = []
    for node in word.substitutions:
        if isinstance(node, SimpleCommand) and node.words:
            found.append(Invocation(node.words, cwd=cwd))
    return found


def _reverse_patch(inv: Invocation, earlier: Sequence[Invocation], name: str) -> list[Finding]:
    if name == "patch":
        args = parse_args(inv.argv[1:], _PATCH)
        if not args.has("-R", "--reverse") or args.has("--dry-run"):
            return []
        inputs = [o.word or Word(o.value or "", o.value) for o in args.values("-i", "--input")]
        patch_files = inputs or args.operands()[1:]
        index = False
    else:
        call = parse_git(inv)
        if call is None or call.sub != "apply":
            return []
        args = parse_args(call.args, _APPLY)
        reports = args.has("--check", "--stat", "--numstat", "--summary", "--cached")
        if not args.has("-R", "--reverse") or (reports and not args.has("--apply")):
            return []
        patch_files = args.operands()
        index = args.has("--index")
    sources = [w for w in patch_files if literal_or_text(w) != "-"]
    if sources:
        made = [_diff_written(w, inv, earlier) for w in sources]
        diff = _diff_from_words(sources, inv.cwd) or _worktree_diff(made)
    else:
        diff = _diff_feeding(inv, earlier)
    if diff is None:
        return []  # a patch file keeps every line the reversal takes out
    diff_args = parse_args(diff.args, _DIFF_SPEC)
    named = diff_args.after_dashdash if diff_args.dashdash else diff_args.positionals
    pathspecs = [literal_or_text(w) for w in named if diff_args.dashdash or looks_like_path(w)]
    destroys: Destroys = "tracked" if index else "unstaged"
    targets = Targets(destroys, paths=tuple(pathspecs), whole_tree=not pathspecs)
    return [make_finding(GIT_CONTENT, inv, targets, cwd=diff.cwd)]


def _diff_from_words(words: Sequence[Word], cwd: str | None) -> GitCall | None:
    for word in words:
        for sub in _substituted(word, cwd):
            call = parse_git(sub)
            if call is not None and call.sub == "diff":
                return call
    return None


def check_extract(inv: Invocation, earlier: Sequence[Invocation] = ()) -> list[Finding]:
    """Findings for archives unpacked over files and git content written over the tree."""
    name = inv.name or ""
    if name in ("tar", "gtar", "bsdtar"):
        return _tar(inv, earlier)
    if name == "unzip":
        return _unzip(inv, earlier)
    if name in ("7z", "7za", "7zr", "7zz"):
        return _sevenzip(inv)
    if name == "cpio":
        return _cpio(inv)
    if name in ("git", "patch") or name.startswith("git-"):
        return _reverse_patch(inv, earlier, "patch" if name == "patch" else "git")
    return []
