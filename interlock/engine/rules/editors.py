"""In-place editors that delete content: sed -i with `d`, `c`, `q` or an emptying script,
perl -i / ruby -i that drop lines, sort -o / shuf -o / uniq writing over their own input, and
ex, vim and ed scripts that delete lines and write the file (part of the overwrite family).

An edit that only changes text (`sed -i 's/a/b/' f`, `perl -pi -e 's/a/b/'`) is ordinary
work and makes no finding; neither does an in-place edit that keeps a backup
(`sed -i.bak`, `perl -i.orig`). A deleting edit destroys what the file held, so it is a
discard by text alone; in a repository only a file with unsaved work counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_or_text, parse_args, spec
from interlock.engine.rules.common import catalog, make_finding, rule
from interlock.engine.rules.sedscript import ex_deletes, sed_deletes
from interlock.engine.rules.targets import file_targets, pipe_before, same_file
from interlock.shell.model import Word

EDIT_DELETES = rule(
    "overwrite.edit-deletes",
    "discard",
    "an in-place edit deletes content from a file",
    "sed -i with `d`, `c`, `q` or an emptying script, perl -i or ruby -i dropping lines, sort "
    "-o over its own input, ex/vim/ed scripts that delete lines: what they remove exists "
    "nowhere else (a substitution is an edit, not a deletion)",
    "keep a backup while you edit: sed -i.bak ..., perl -i.orig ...; or commit or stash the "
    "file first",
    (
        "sed -i '/^import os$/d' src/app.py",
        "sed -i '1,$d' notes.md",
        "perl -ni -e 'print unless /TODO/' src/app.py",
        "sort -u -o words.txt words.txt",
        "vim -es -c '%d' -c 'wq' src/app.py",
    ),
    (
        "sed -i 's/foo/bar/' src/app.py",
        "sed -i.bak '/x/d' f",
        "sed -n '1,80p' src/app.py",
        "perl -pi -e 's/a/b/g' f",
        "sort -o sorted.txt words.txt",
    ),
    judged="by text alone always; in a repository only a file with unsaved work counts; an "
    "edit that keeps a backup (sed -i.bak, perl -i.orig) is free",
)

_SED = spec(
    short_value="efl",
    short_optional="i",
    long_value="expression file line-length",
    long_flags=(
        "in-place quiet silent regexp-extended follow-symlinks posix separate sandbox "
        "unbuffered null-data zero-terminated debug help version"
    ),
)
# perl and ruby read switches up to the first word that is not one (the script, then ARGV)
_PERL = spec(short_value="eEIMmx", short_optional="iC0dDlF", stop_at_positional=True)
_RUBY = spec(short_value="eErIx", short_optional="iC0lFKTWE", stop_at_positional=True)
_SORT = spec(
    short_value="oktST",
    long_value=(
        "output key field-separator buffer-size temporary-directory files0-from parallel "
        "batch-size compress-program random-source sort"
    ),
)
_SHUF = spec(short_value="nior", long_value="head-count input-range output random-source")
_VIM = frozenset(("ex", "vi", "vim", "nvim", "view", "gvim", "vimdiff"))
_BSD_SUFFIX = r"^(|\.[\w.~-]*|~)$"
# perl/ruby code that empties or drops lines even when every line is printed (-p).
_DROPS = (
    r"\$_\s*=\s*(\"\"|''|q\W\W|qq\W\W|nil|undef)",
    r"\bundef\s*\$_",
    r"\$_\.clear\b",
    r"\b(last|exit|die|abort)\b",
    r"\bs(\W)\^?\.\*\$?\1\1",
    r"\bs\{\^?\.\*\$?\}\{\}",
)
_CONDITION = r"\b(if|unless|next|last|exit|die|return|and|or|while|until)\b|&&|\|\||\?"


def _bsd_suffix(inv: Invocation) -> Word | None:
    """The word after a bare `-i` when it is a BSD backup suffix (`-i ''`, `-i .bak`)."""
    words = inv.argv[1:]
    for k, word in enumerate(words[:-1]):
        nxt = words[k + 1].literal()
        if word.literal() == "-i" and nxt is not None and re.match(_BSD_SUFFIX, nxt):
            return words[k + 1]
    return None


def _sed(inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], _SED)
    opt = args.last("-i", "--in-place")
    if opt is None or opt.value or args.has("--help", "--version"):
        return []  # not in place, or -i.bak / --in-place=.orig keeps a backup
    operands = list(args.operands())
    suffix = _bsd_suffix(inv)
    if suffix is not None:
        if suffix.literal():
            return []  # BSD -i .bak keeps a backup
        operands = [w for w in operands if w is not suffix]
    scripts = [o.text or "" for o in args.values("-e", "--expression")]
    if args.has("-f", "--file"):
        why: str | None = "its script comes from a file interlock does not read"
    else:
        if not scripts and operands:
            scripts = [_unquoted(operands.pop(0))]
        why = sed_deletes("\n".join(scripts), args.has("-n", "--quiet", "--silent"))
    if why is None:
        return []
    targets = file_targets(operands, inv.cwd, follows=args.has("--follow-symlinks"))
    reason = f"sed -i rewrites the file, and {why}; what it removes exists nowhere else"
    return [] if targets is None else [make_finding(EDIT_DELETES, inv, targets, reason=reason)]


def _unquoted(word: Word) -> str:
    value = word.literal()
    return value if value is not None else word.text.strip("\"'")


def _script_drops(code: str, quiet: bool) -> str | None:
    """Why perl/ruby -p/-n code drops content from the file it edits, or None."""
    for pattern in _DROPS:
        if re.search(pattern, code):
            return "its code empties or drops lines"
    if quiet:
        plain = re.sub(r"\bs(\W).*?\1.*?\1[a-z]*", "", code)
        prints = re.search(r"\b(print|puts|say)\b", plain)
        if not prints or re.search(_CONDITION, plain):
            return "with -n it keeps only the lines it prints"
    return None


def _perl(inv: Invocation, name: str) -> list[Finding]:
    args = parse_args(inv.argv[1:], _PERL if name == "perl" else _RUBY)
    opt = args.last("-i")
    if opt is None or opt.value:  # not in place, or -i.bak keeps a backup
        return []
    code = [o.text or "" for o in args.values("-e", "-E")]
    operands = list(args.rest or args.operands())
    if not code and operands:
        operands.pop(0)  # the program file
        why: str | None = "its program comes from a file interlock does not read"
    else:
        joined = "\n".join(code)
        looped = args.has("-p") or args.has("-n") or "<>" in joined or "ARGF" in joined
        why = _script_drops(joined, not args.has("-p")) if looped else None
    if why is None:
        return []
    targets = file_targets(operands, inv.cwd)
    reason = f"{name} -i rewrites the file, and {why}; what it removes exists nowhere else"
    return [] if targets is None else [make_finding(EDIT_DELETES, inv, targets, reason=reason)]


def _sorted_output(inv: Invocation, name: str) -> list[Finding]:
    args = parse_args(inv.argv[1:], _SORT if name == "sort" else _SHUF)
    out = args.last("-o", "--output")
    if out is None or out.text is None:
        return []
    word = out.word or Word(out.text, out.value)
    inputs = [literal_or_text(w) for w in args.operands()]
    if out.value is not None and any(same_file(inv.cwd, out.value, inv.cwd, i) for i in inputs):
        targets = file_targets((word,), inv.cwd, follows=True)
        reason = f"{name} -o rewrites its own input: the file's original order is gone"
        if args.has("-u", "--unique"):
            reason += ", and repeated lines with it"
        return [] if targets is None else [make_finding(EDIT_DELETES, inv, targets, reason=reason)]
    targets = file_targets((word,), inv.cwd, creates=True, follows=True)
    redirect = catalog()["overwrite.redirect"]
    return [] if targets is None else [make_finding(redirect, inv, targets)]


def _uniq(inv: Invocation) -> list[Finding]:
    operands = [w for w in inv.argv[1:] if not (w.literal() or "x").startswith("-")]
    if len(operands) != 2:
        return []
    source, out = operands
    same = source.literal() is not None and source.literal() == out.literal()
    targets = file_targets((out,), inv.cwd, creates=not same, follows=True)
    return [] if targets is None else [make_finding(catalog()["overwrite.redirect"], inv, targets)]


def _ex_scripts(inv: Invocation, earlier: Sequence[Invocation]) -> tuple[list[str], list[Word]]:
    """(the commands an ex/vim/ed run executes, the files it edits)."""
    commands: list[str] = []
    files: list[Word] = []
    words = list(inv.argv[1:])
    k = 0
    while k < len(words):
        value = words[k].literal()
        takes = value == "--cmd" or (value is not None and re.match(r"^-[a-zA-Z]*c$", value))
        if takes and k + 1 < len(words):  # -c, and clusters ending in it (`ex -sc '%d|x'`)
            commands.append(literal_or_text(words[k + 1]))
            k += 2
            continue
        if value is not None and value.startswith("+") and len(value) > 1:
            commands.append(value[1:])
        elif value is None or not value.startswith("-"):
            files.append(words[k])
        k += 1
    for redirect in inv.redirects:
        if redirect.heredoc is not None and redirect.fd in (None, 0):
            commands += redirect.heredoc.splitlines()
        elif redirect.op == "<<<" and redirect.target is not None:
            commands += literal_or_text(redirect.target).splitlines()
    feeders = pipe_before(inv, earlier)
    if feeders and feeders[-1].name in ("printf", "echo"):  # printf ',d\nw\n' | ed -s f
        text = " ".join(literal_or_text(w) for w in feeders[-1].argv[1:] if w.literal() != "-e")
        commands += text.replace("\\n", "\n").splitlines()
    return commands, files


def _vim(inv: Invocation, name: str, earlier: Sequence[Invocation]) -> list[Finding]:
    commands, files = _ex_scripts(inv, earlier)
    why = ex_deletes(commands) if commands else None
    if why is None:
        return []
    targets = file_targets(files, inv.cwd, follows=True)
    reason = f"{name} writes the file back after {why.removeprefix('it ')}"
    return [] if targets is None else [make_finding(EDIT_DELETES, inv, targets, reason=reason)]


def check_editors(inv: Invocation, earlier: Sequence[Invocation] = ()) -> list[Finding]:
    """Findings for in-place edits that delete content."""
    name = inv.name or ""
    if name in ("sed", "gsed"):
        return _sed(inv)
    if name in ("perl", "ruby"):
        return _perl(inv, name)
    if name in ("sort", "shuf"):
        return _sorted_output(inv, name)
    if name == "uniq":
        return _uniq(inv)
    if name in _VIM or name == "ed":
        return _vim(inv, name, earlier)
    return []
