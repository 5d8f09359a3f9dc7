"""Commands whose file operands are chosen at run time: `xargs CMD` appends what it reads,
`find -exec CMD {} +` and `fd -x CMD` put each path they find where `{}` is (fd appends it
when there is none). The rm family reads those itself (`fs`); for every other command (`sed
-i`, `truncate -s 0`, `cp /dev/null {}`, `perl -pi`...) the rules judge a probe: the command
with one stand-in file where the run-time paths go. A finding about the stand-in is a
finding about the paths the search (engine.findexpr) selects, judged on the tree like `find
-delete`; when no search is known (a list read from elsewhere), about any file at all. A write onto a
run-time path that may be making a new file (`xargs -n1 cp template.txt`) is not judged, as
a write to a new file is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findexpr import Search
from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.searchers import producer
from interlock.engine.spawners import RUNTIME_ARG
from interlock.shell.model import Word

STAND_IN = "interlock-run-time-path"
_STAND_IN_WORD = Word(STAND_IN, STAND_IN)
# Families that read run-time operands themselves (fs: rm, find -delete, shred, rsync).
_APPENDERS = ("xargs", "find ", "fd ", "fdfind ", "parallel")
READ_BY_FS = frozenset(("rm", "unlink", "srm", "rimraf", "find", "gfind", "shred", "rsync", "git"))


def _placeholder(word: Word) -> bool:
    return word.literal() == "{}" or word.text == RUNTIME_ARG


def probe(inv: Invocation) -> Invocation | None:
    """The command with the stand-in where its run-time paths go; None when it is not one
    that takes them (no run-time arguments, the fs family, an unknown name)."""
    if not inv.extra_args or inv.name is None or inv.name in READ_BY_FS:
        return None
    words = list(inv.argv)
    placed = [k for k, word in enumerate(words) if k and _placeholder(word)]
    redirects = tuple(
        replace(r, target=_STAND_IN_WORD) if r.target is not None and _placeholder(r.target) else r
        for r in inv.redirects
    )
    for k in placed:
        words[k] = _STAND_IN_WORD
    if not placed and redirects == inv.redirects:
        if not inv.via or not inv.via[-1].startswith(_APPENDERS):
            return None  # inside code xargs or find runs (`sh -c '...'`): nothing is appended
        words.append(_STAND_IN_WORD)
    return replace(inv, argv=tuple(words), redirects=redirects, extra_args=False)


def chosen(
    findings: list[Finding], inv: Invocation, earlier: Sequence[Invocation]
) -> list[Finding]:
    """The probe's findings, as findings of `inv`: a target that is the stand-in becomes the
    paths the search selects (or any path, when the search is not known)."""
    out: list[Finding] = []
    for finding in findings:
        targets = finding.targets
        finding = replace(finding, text=inv.text)
        if targets is None or STAND_IN not in targets.paths:
            out.append(finding)
            continue
        if targets.creates:
            continue  # a copy or write onto a run-time path may be making a new file
        paths = tuple(p for p in targets.paths if p != STAND_IN)
        search: Search | None
        if inv.arg_search is not None:
            search = inv.arg_search
        else:
            search = producer(inv, earlier, False) if inv.arg_roots is None else None
        if search is None:
            moved = replace(targets, paths=paths, unknown=True, temp_only=False)
        else:
            moved = replace(targets, paths=paths, search=search, temp_only=False, into=())
        reason = f"{finding.reason} (on files chosen at run time)"
        out.append(replace(finding, targets=moved, reason=reason))
    return out
