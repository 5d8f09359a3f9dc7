"""Which paths an invocation writes, removes or changes the mode of.

Used by the self-disable rules to see edits to `.git/hooks/*`, `.interlock.toml`,
`.git/interlock/` and git config files, and by `sequence` to see a saved path written again.
Covers redirects (`>`, `>>`, `&>`, `>|`, `<>`), the file tools that change files
non-interactively (rm, unlink, shred, truncate, fallocate, mv, cp, install, ln, rsync, tee,
sponge, dd of=, sed -i, perl -i, gawk -i inplace, sort/shuf -o, uniq, chmod/chown/chgrp/chattr/setfacl,
sqlite3), downloads (curl -o, wget -O), archives unpacked into a directory (tar -C, unzip -d,
7z -o: the directory), and the run-time targets of `find -exec rm`/`find -delete` when their
roots are known. Editors are interactive and are not read.
"""

from __future__ import annotations

import re
from typing import Literal

from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import Args, literal_or_text, parse_args, spec
from interlock.engine.rules.extract import tar_words
from interlock.engine.rules.fs import find_deletes, find_start_paths
from interlock.shell.model import Word

Verb = Literal["write", "remove", "mode"]

_WRITE_OPS = frozenset((">", ">>", ">|", "&>", "&>>", "<>", ">&"))
_REMOVERS = frozenset(("rm", "unlink", "rmdir", "shred", "srm"))
_MODERS = frozenset(("chmod", "chown", "chgrp", "chattr", "setfacl", "chflags"))

# gawk: `-i inplace` (`--include=inplace`) rewrites each input file with the program's output.
# Its options end at the program text (or, with -f/-e, at the first file): what follows is
# files and var=value assignments, even when it starts with `-` (`awk '{print}' -i inplace f`
# reads the files `-i`, `inplace` and `f`).
AWK_SPEC = spec(
    short_value="fvFeilEWZ",
    long_value="file assign field-separator source include load exec",
    short_optional="dDoLp",
    stop_at_positional=True,
)
_AWK_SCRIPTED = ("-f", "--file", "-e", "--source", "-E", "--exec")
_AWK_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

_SPECS = {
    "mv": spec(short_value="tS", long_value="target-directory suffix"),
    "cp": spec(short_value="tS", long_value="target-directory suffix"),
    "ln": spec(short_value="tS", long_value="target-directory suffix"),
    "install": spec(short_value="tmogS", long_value="target-directory mode owner group suffix"),
    "truncate": spec(short_value="sr", long_value="size reference"),
    "sed": spec(short_value="efl", short_optional="i", long_value="expression file line-length"),
    # perl reads switches up to the first word that is not one (the script, then its @ARGV)
    "perl": spec(short_value="eEI", short_optional="iMml0FxCdD", stop_at_positional=True),
    "gawk": AWK_SPEC,
    "awk": AWK_SPEC,
    "tee": spec(),
    "rsync": spec(short_value="eTf", long_value="rsh exclude include filter temp-dir"),
    "sqlite3": spec(long_value="cmd init"),
    "sort": spec(short_value="oktST", long_value="output key field-separator buffer-size"),
    "shuf": spec(short_value="nior", long_value="head-count input-range output random-source"),
    "curl": spec(short_value="AbcCdDeEFHKmoQrtTuUwxXyYzP", long_value="output url header data"),
    "wget": spec(short_value="OoaPtTweiUQlARDIXB", long_value="output-document directory-prefix"),
    "tar": spec(
        short_value="fCbFgHIKLNTVX",
        long_value="file directory exclude format",
        long_flags="extract get create list",
    ),
}
_UNIQ = spec(short_value="fsw", long_value="skip-fields skip-chars check-chars")
# Options naming the file or directory a tool writes (its output, or where it unpacks).
_OUTPUT_OPTS = {
    "sort": ("-o", "--output"),
    "shuf": ("-o", "--output"),
    "curl": ("-o", "--output"),
    "wget": ("-O", "--output-document"),
    "tar": ("-C", "--directory"),
}


class Touch:
    """A path an invocation changes: `word` (literal or not) and how (`verb`)."""

    __slots__ = ("word", "verb", "mode")

    def __init__(self, word: Word, verb: Verb, mode: str | None = None) -> None:
        self.word = word
        self.verb = verb
        self.mode = mode  # chmod's mode, when it is a literal


def _redirect_targets(inv: Invocation) -> list[Touch]:
    touches: list[Touch] = []
    for redirect in inv.redirects:
        target = redirect.target
        if redirect.op not in _WRITE_OPS or target is None or redirect.heredoc is not None:
            continue
        lit = target.literal()
        if redirect.op == ">&" and lit is not None and (lit.isdigit() or lit == "-"):
            continue
        touches.append(Touch(target, "write"))
    return touches


def _destination(args: Args) -> list[Word]:
    target = args.last("-t", "--target-directory")
    if target is not None and target.word is not None:
        return [target.word]
    if target is not None and target.value is not None:
        return [Word(target.value, target.value)]
    operands = args.operands()
    return [operands[-1]] if len(operands) >= 2 else []


def _is_mode(text: str | None) -> bool:
    if text is None:
        return False
    return all(
        part[:1] in "ugoa+-=" and all(c in "ugoa+-=rwxXst" for c in part)
        for part in text.split(",")
    ) or (text.isdigit() and len(text) <= 4)


def _mode_touches(name: str, inv: Invocation) -> list[Touch]:
    mode = None
    paths: list[Word] = []
    for word in inv.argv[1:]:
        lit = word.literal()
        if name == "chmod" and mode is None and lit is not None and _is_mode(lit):
            mode = lit
        elif lit is None or not lit.startswith("-"):
            paths.append(word)
    if name in ("chown", "chgrp", "setfacl") and paths:
        paths = paths[1:]
    return [Touch(w, "mode", mode) for w in paths]


def _edit_touches(name: str, inv: Invocation) -> list[Touch]:
    words = tar_words(inv) if name == "tar" else inv.argv[1:]  # `tar xzf a.tgz -C dir`
    if name == "sqlite3":  # its options are long ones with one dash: `-cmd X`, `-init F`
        words = tuple(_long_option(w) for w in words)
    args = parse_args(words, _SPECS[name])
    if name in _OUTPUT_OPTS:
        if name == "tar" and not args.has("-x", "--extract", "--get"):
            return []  # -C of tar -c is where it reads
        return [
            Touch(o.word or Word(o.value or "", o.value), "write")
            for o in args.values(*_OUTPUT_OPTS[name])
            if o.value != "-"
        ]
    if name == "mv":
        moved = [Touch(w, "remove") for w in args.operands()]
        if args.has("-t", "--target-directory"):
            moved += [Touch(w, "write") for w in _destination(args)]
        return moved
    if name in ("cp", "ln", "install", "rsync"):
        return [Touch(w, "write") for w in _destination(args)]
    if name in ("gawk", "awk"):
        if not awk_in_place(args):
            return []
        files = _operands(args)[0 if args.has(*_AWK_SCRIPTED) else 1 :]
        return [Touch(w, "write") for w in files if not _AWK_ASSIGNMENT.match(w.literal() or "")]
    if name in ("sed", "perl"):
        in_place = args.has("-i", "--in-place")
        if not in_place:
            return []
        scripted = args.has("-e", "--expression", "-f", "--file", "-E")
        files = _operands(args)[0 if scripted else 1 :]
        return [Touch(w, "write") for w in files]
    if name == "sqlite3":
        return [Touch(w, "write") for w in args.positionals[:1]]
    return [Touch(w, "write") for w in args.operands()]


def _long_option(word: Word) -> Word:
    """`-cmd` as `--cmd` (sqlite3 takes both)."""
    lit = word.literal()
    if lit is None or not lit.startswith("-") or lit.startswith("--") or len(lit) < 3:
        return word
    return Word("-" + word.text, "-" + lit)


def _operands(args: Args) -> tuple[Word, ...]:
    """The operands, also of a tool whose options end at its first operand (awk, perl)."""
    return args.rest or args.operands()


def awk_in_place(args: Args) -> bool:
    """gawk loads its `inplace` extension (`-i inplace`, `--include=inplace.awk`); a library
    named at run time may be it (unknown is not safe)."""
    for opt in args.values("-i", "--include"):
        if opt.value is None:
            return True
        if opt.value.removesuffix(".awk").rsplit("/", 1)[-1] == "inplace":
            return True
    return False


def _dd_touches(inv: Invocation) -> list[Touch]:
    touches: list[Touch] = []
    for word in inv.argv[1:]:
        text = literal_or_text(word)
        if text.startswith("of="):
            value = text[3:]
            touches.append(
                Touch(Word(value, value if word.literal() is not None else None), "write")
            )
    return touches


def _other_touches(name: str, inv: Invocation) -> list[Touch]:
    words = list(inv.argv[1:])
    plain = [w for w in words if not (w.literal() or "x").startswith("-")]
    if name in ("sponge", "fallocate"):
        return [Touch(w, "write") for w in plain[-1:]]
    if name == "uniq":  # uniq [-f N] [-s N] [-w N] INPUT OUTPUT
        operands = parse_args(words, _UNIQ).operands()
        return [Touch(w, "write") for w in operands[1:2]]
    if name == "unzip":
        dirs = [words[k + 1] for k, w in enumerate(words[:-1]) if w.literal() == "-d"]
        return [Touch(w, "write") for w in dirs]
    outs = [(w.literal() or "")[2:] for w in words if (w.literal() or "").startswith("-o")]
    return [Touch(Word(o, o), "write") for o in outs if o]


def _roots(inv: Invocation) -> list[Touch]:
    return [Touch(Word(r, r), "remove") for r in inv.arg_roots or ()]


def touched_paths(inv: Invocation) -> list[Touch]:
    """Every path `inv` writes, removes or re-modes, as far as the command line shows."""
    touches = _redirect_targets(inv)
    name = inv.name
    if name is None:
        return touches
    if name in _REMOVERS:
        operands = [
            w for w in inv.argv[1:] if (w.literal() or "x")[:1] != "-" or w.literal() is None
        ]
        touches += [Touch(w, "remove") for w in operands] + _roots(inv)
    elif name in _MODERS:
        touches += _mode_touches(name, inv) + _roots(inv)
    elif name in _SPECS:
        touches += _edit_touches(name, inv)
    elif name == "dd":
        touches += _dd_touches(inv)
    elif name in ("sponge", "fallocate", "unzip", "uniq", "7z", "7za", "7zr", "7zz"):
        touches += _other_touches(name, inv)
    elif name in ("find", "gfind"):
        starts, expression = find_start_paths(inv.argv[1:])
        if find_deletes(expression):
            touches += [Touch(w, "remove") for w in starts]
    return touches
