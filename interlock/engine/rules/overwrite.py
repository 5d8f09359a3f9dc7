"""Overwriting, emptying or cutting short a single file: redirections (`>`, `>|`, `&>`, `N>`,
`exec >`, `: >`), tee, truncate and fallocate. The family's face: `check_overwrite()` also
runs `copies` (cp, mv, install, ln -f, rsync, dd, curl -o, wget -O), `editors` (sed -i, perl
-i, sort -o, ex) and `extract` (tar -x, unzip -o, git content written over the tree).

A write of new content may be creating its file (`cat > new.py <<EOF`, `pytest | tee
log`), so it is reported with `Targets.creates`: by text alone it is no discard, in a tree it
is one only when the file exists and holds unsaved work. Emptying a file (`> f`, `: > f`,
`truncate -s 0 f`, `cp /dev/null f`, `tee f < /dev/null`), or writing over a file the same
command reads (`sort f > f`, `cat f | grep x > f`: the shell empties f before it is read),
destroys what is there whatever it was: a discard by text alone too. Appends (`>>`, `tee -a`)
and writes to /dev/null, streams or temp dirs are not discards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findings import Finding, RuleInfo, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules import copies, editors, extract
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.common import catalog, make_finding, rule
from interlock.engine.rules.targets import file_targets, instead_for, pipe_before, reads_file
from interlock.shell.model import Redirect, Word

REDIRECT = rule(
    "overwrite.redirect",
    "discard",
    "a redirection or tee writes over a file",
    "`>`, `>|`, `&>`, `N>`, `exec >` and tee replace the whole file: what it held exists "
    "nowhere else",
    "write to a new file and move it into place (sort f > f.new && mv f.new f), append with "
    ">>, or save the file first (cp f f.bak)",
    ("sort data.txt > data.txt", "cat notes.md | grep -v TODO > notes.md", "uniq f > f"),
    ("echo hi > /tmp/out", "echo done >> notes.md", "make > /dev/null 2>&1", "ls | tee -a log"),
    judged="a new file is fine, so by text alone only a file the same command or pipeline "
    "reads is flagged (`sort f > f` empties f before sort reads it); in a repository, any "
    "existing file with unsaved work",
)
TRUNCATE = rule(
    "overwrite.truncate",
    "discard",
    "a file is emptied or cut short",
    "emptying a file or cutting it short destroys what it held, and that exists nowhere else",
    "save it first if you need what it holds (cp FILE FILE.bak), or rm FILE if you mean to "
    "delete it",
    (
        "> src/app.py",
        ": > notes.md",
        "truncate -s 0 src/app.py",
        "cp /dev/null src/app.py",
        "cat /dev/null > README.md",
        "tee src/app.py < /dev/null",
    ),
    ("truncate -s +1M disk.img", "> /tmp/log", ": >> notes.md", "true > /dev/null"),
    judged="by text alone always (`> f`, `: > f`, `truncate -s 0 f`, `cp /dev/null f`, "
    "`tee f < /dev/null`, `dd if=/dev/null of=f`, `fallocate -p`: emptying is their point); "
    "in a repository only a file with unsaved work counts",
)

_WRITES = frozenset((">", ">|", "&>", ">&", "<>"))
_TEE = spec(long_flags="append ignore-interrupts output-error help version")
_TRUNCATE = spec(short_value="sr", long_value="size reference", long_flags="no-create io-blocks")
_FALLOCATE = spec(
    short_value="lo",
    long_value="length offset",
    long_flags="collapse-range dig-holes insert-range keep-size punch-hole posix zero-range",
)
_ECHO_FLAGS = frozenset(("-n", "-e", "-E", "-ne", "-en", "-nE", "-En"))


def _is_write(redirect: Redirect) -> bool:
    if redirect.op not in _WRITES or redirect.target is None or redirect.heredoc is not None:
        return False
    if redirect.op == "<>" and redirect.fd in (None, 0):
        return False  # `<> f`: stdin opened for reading and writing, nothing written to it
    value = redirect.target.literal()
    if redirect.op == ">&" and value is not None and (value.isdigit() or value == "-"):
        return False  # 2>&1: a copy of a descriptor
    return not redirect.target.text.startswith(("<(", ">("))


def is_empty_producer(inv: Invocation) -> bool:
    """Whether the command writes nothing: `:`, `true`, `cat /dev/null`, `echo -n`, `printf ''`."""
    if not inv.argv:
        return True
    name = inv.name
    args = [w.literal() for w in inv.argv[1:]]
    if name in (":", "true", "false"):
        return True
    if name == "cat":
        stdin_null = any(r.op == "<" and _is_null(r) for r in inv.redirects)
        return (bool(args) and all(a == "/dev/null" for a in args)) or (not args and stdin_null)
    if name == "echo":  # `echo -n` writes nothing; a bare `echo` writes a new empty line
        flags = [a for a in args if a in _ECHO_FLAGS]
        return any("n" in (a or "") for a in flags) and all(
            a in _ECHO_FLAGS or a == "" for a in args
        )
    if name == "printf":
        return bool(args) and args[0] in ("", "%s") and all(a == "" for a in args[1:])
    if name in ("head", "tail"):
        count = _last_count(args)
        return count is not None and _prints_nothing(name, count)
    return False


_COUNT_OPTS = ("-n", "-c", "--lines", "--bytes")


def _last_count(args: list[str | None]) -> str | None:
    """The count head or tail goes by (the last one given wins): `-n 0`, `-c+0`, `--lines=-0`,
    `-0`, tail's old `+0`; None when none is given or it is only known at run time."""
    count: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg is None or arg == "--":
            if arg is None and i >= 2 and args[i - 2] in _COUNT_OPTS:
                count = None
            continue
        if arg in _COUNT_OPTS:
            count = args[i] if i < len(args) else None
            i += 1
        elif arg.startswith(("-n", "-c")) and not arg.startswith("--"):
            count = arg[2:]
        elif arg.startswith(("--lines=", "--bytes=")):
            count = arg.split("=", 1)[1]
        elif re.fullmatch(r"[-+]\d+[a-z]*", arg) and i == 1:
            # the old first-argument form: `head -0` and `tail -0` are `-n 0`; `tail +0` is `-n +0`
            count = arg.removeprefix("-")
    return count


def _prints_nothing(name: str, count: str) -> bool:
    """Whether `head`/`tail` with this count prints nothing whatever the input: a count of 0
    lines or bytes. A sign changes what 0 means: `head -n -0` is all but the last 0 lines and
    `tail -n +0` starts at the first line, so both print the whole input."""
    match = re.fullmatch(r"([-+]?)0+[A-Za-z]*", count)  # `0K` is 0 too
    if match is None:
        return False
    sign = match.group(1)
    return sign == "" or sign == ("+" if name == "head" else "-")


def _is_null(redirect: Redirect) -> bool:
    return redirect.target is not None and redirect.target.literal() == "/dev/null"


def _is_own(inv: Invocation, redirect: Redirect) -> bool:
    """Written on the command itself, not on an enclosing `{ ...; }` or `bash -c '...'`."""
    own = inv.redirects[len(inv.redirects) - inv.own_redirects :] if inv.own_redirects else ()
    return any(r is redirect for r in own)


def _content(inv: Invocation, redirect: Redirect, earlier: Sequence[Invocation]) -> str:
    """What a write redirect puts in its file: `empty`, `self` (emptied, then read by the
    command: any descriptor, `sort f 2> f` too), `inplace` (`N<> f`: written over in place
    while the command reads it), `unchanged` (`: 3<> f`) or `new`."""
    inplace = redirect.op == "<>"
    if inv.name == "exec" and len(inv.argv) == 1:
        # `exec > log`: the rest of the shell's output goes there; `exec 3> f` only empties it
        truncates = redirect.fd not in (None, 1, 2) and redirect.op != "&>" and not inplace
        return "empty" if truncates else "new"
    if is_empty_producer(inv) and _is_own(inv, redirect):
        return "unchanged" if inplace else "empty"
    path = None if redirect.target is None else _key(redirect.target)
    if path is not None:
        feeders = [inv, *pipe_before(inv, earlier)]
        if any(reads_file(e, inv.cwd, path) for e in feeders):
            return "inplace" if inplace else "self"
    return "new"


def _key(word: Word) -> str:
    """A path to compare with what the command reads: its value, or its text when it is
    known only at run time (`sort "$F" > "$F"` reads and empties the same file)."""
    value = word.literal()
    return value if value is not None else word.text


def _shown(inv: Invocation, redirect: Redirect) -> str:
    """The finding's text: the command and the redirection (inherited from `{ ...; } > f`)."""
    target = redirect.target.text if redirect.target is not None else ""
    op = f"{redirect.fd if redirect.fd is not None else ''}{redirect.op}"
    head = inv.text if _is_own(inv, redirect) or not inv.argv else "{ ... }"
    return f"{head} {op} {target}".strip()


def _redirects(inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    findings: list[Finding] = []
    for redirect in inv.redirects:
        if not _is_write(redirect) or redirect.target is None:
            continue
        content = _content(inv, redirect, earlier)
        if content == "unchanged":
            continue
        text = _shown(inv, redirect)
        git = extract.git_content_over(inv, redirect, earlier) if content == "new" else None
        if git is not None:
            findings.append(replace(git, text=text))
            continue
        targets = file_targets((redirect.target,), inv.cwd, creates=content == "new", follows=True)
        if targets is None:
            continue
        info = TRUNCATE if content == "empty" else REDIRECT
        finding = _found(info, inv, targets, reason=_REASONS.get(content))
        findings.append(replace(finding, text=text))
    return findings


def _found(info: RuleInfo, inv: Invocation, targets: Targets, reason: str | None = None) -> Finding:
    """A finding whose advice names its one file, ready to paste (`cp ./-x ./-x.bak`)."""
    instead = instead_for(info.instead, targets)
    return make_finding(info, inv, targets, reason=reason, instead=instead)


_REASONS = {
    "self": "the shell empties the file before the command reads it: what it held is gone",
    "inplace": "the command writes over the file in place while it reads it: what it held is "
    "overwritten",
}


def _stdin_empty(inv: Invocation, earlier: Sequence[Invocation]) -> bool:
    for redirect in inv.redirects:
        if redirect.op == "<" and _is_null(redirect):
            return True
        if redirect.heredoc is not None and redirect.fd in (None, 0):
            return redirect.heredoc.strip("\n") == ""
        if redirect.op == "<<<" and redirect.target is not None:
            return redirect.target.literal() == ""
    feeders = pipe_before(inv, earlier)
    return bool(feeders) and is_empty_producer(feeders[-1])


def _tee(inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    args = parse_args(inv.argv[1:], _TEE)
    if args.has("-a", "--append", "--help", "--version"):
        return []
    files = list(args.operands())
    if not files:
        return []
    if _stdin_empty(inv, earlier):
        targets = file_targets(files, inv.cwd, follows=True)
        return [] if targets is None else [_found(TRUNCATE, inv, targets)]
    feeders = pipe_before(inv, earlier)
    git = [w for e in feeders for w in extract.git_content_into(e, inv, files)]
    findings: list[Finding] = []
    targets = file_targets(git, inv.cwd, follows=True)
    if targets is not None:
        findings.append(_found(extract.GIT_CONTENT, inv, targets))
    files = [w for w in files if w not in git]
    own = [w for w in files if any(reads_file(e, inv.cwd, _key(w)) for e in feeders)]
    if own:
        targets = file_targets(own, inv.cwd, follows=True)
        reason = "tee empties the file while the command before it may still be reading it"
        if targets is not None:
            findings.append(_found(REDIRECT, inv, targets, reason=reason))
    rest = [w for w in files if w not in own]
    targets = file_targets(rest, inv.cwd, creates=True, follows=True)
    if targets is not None:
        findings.append(_found(REDIRECT, inv, targets))
    return findings


def _truncate(inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], _TRUNCATE)
    size = args.last("-s", "--size")
    if args.has("--help", "--version") or (size is None and not args.has("-r", "--reference")):
        return []
    value = size.text if size is not None else None
    if value is not None and value[:1] in "+>%":
        return []  # only ever grows the file
    # `-s 0`, `-s -10`, `-s <1K`, `-r ref` may cut any file short; `-s 10M` mostly makes one
    shrinks = value is None or value[:1] in "-</" or value.rstrip("KMGTPEZYkBib").strip("0") == ""
    targets = file_targets(args.operands(), inv.cwd, creates=not shrinks, follows=True)
    return [] if targets is None else [_found(TRUNCATE, inv, targets)]


def _fallocate(inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], _FALLOCATE)
    if not args.has("-p", "--punch-hole", "-c", "--collapse-range", "-z", "--zero-range"):
        return []
    targets = file_targets(args.operands()[-1:], inv.cwd, follows=True)
    return [] if targets is None else [_found(TRUNCATE, inv, targets)]


def _sponge(inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    """`... | sponge f` soaks up its input, then writes f: empty input empties f; a filter of
    f's own lines that drops some (grep, head, tail, uniq, sort -u) deletes from it."""
    words = [w for w in inv.argv[1:] if w.literal() != "--"]
    if any(w.literal() in ("-a", "--append") for w in words) or len(words) != 1:
        return []
    target = words[0]
    path = _key(target)
    if _stdin_empty(inv, earlier):
        found = file_targets((target,), inv.cwd, follows=True)
        return [] if found is None else [_found(TRUNCATE, inv, found)]
    feeders = pipe_before(inv, earlier)
    readers = [e for e in feeders if reads_file(e, inv.cwd, path)]
    if readers and any(_drops_lines(e) for e in feeders):
        found = file_targets((target,), inv.cwd, follows=True)
        reason = "sponge writes back the file with the lines its filter dropped gone"
        deletes = catalog()["overwrite.edit-deletes"]
        return [] if found is None else [_found(deletes, inv, found, reason=reason)]
    if readers:
        return []  # an edit of the file's own lines, like sed -i 's/a/b/'
    found = file_targets((target,), inv.cwd, creates=True, follows=True)
    return [] if found is None else [_found(REDIRECT, inv, found)]


def _drops_lines(inv: Invocation) -> bool:
    words = [w.literal() or "" for w in inv.argv[1:]]
    if inv.name in ("grep", "egrep", "fgrep", "rg", "head", "tail", "uniq", "comm", "cut"):
        return True
    return inv.name == "sort" and any(w in ("-u", "--unique") or w.startswith("-u") for w in words)


def check_overwrite(inv: Invocation, earlier: Sequence[Invocation] = ()) -> list[Finding]:
    """Overwrite findings for one invocation (`earlier`: the invocations before it)."""
    findings = _redirects(inv, earlier)
    name = inv.name
    if name == "tee":
        findings += _tee(inv, earlier)
    elif name == "truncate":
        findings += _truncate(inv)
    elif name == "fallocate":
        findings += _fallocate(inv)
    elif name == "sponge":
        findings += _sponge(inv, earlier)
    elif name is not None:
        findings += copies.check_copies(inv)
        findings += editors.check_editors(inv, earlier)
        findings += extract.check_extract(inv, earlier)
    return findings
