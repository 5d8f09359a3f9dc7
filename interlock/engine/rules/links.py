"""Links made earlier on the line (for `sequence`): `ln -s TARGET LINK`, `ln TARGET LINK`
(a hard link is the same file), `ln -t DIR ...`, and bind mounts (`mount --bind`, `bindfs`). A path through one is judged where it leads
as well: `ln -s ~/repo /tmp/x && rm -rf /tmp/x/src` is not a temp-dir deletion.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_or_text, parse_args, spec
from interlock.engine.rules.common import resolve
from interlock.engine.rules.fs import is_temp_path
from interlock.shell.model import Word

_LN = spec(short_value="tS", long_value="target-directory suffix")


def _bind(inv: Invocation) -> tuple[str, str] | None:
    """`mount --bind SRC DST` / `mount -o bind` / `bindfs SRC DST`: DST shows SRC."""
    words = [literal_or_text(w) for w in inv.argv[1:]]
    binds = inv.name == "bindfs" or any(
        w in ("--bind", "--rbind", "-B", "-R")
        or ("bind" in w.split(",") and k and words[k - 1] == "-o")
        for k, w in enumerate(words)
    )
    operands = [
        w for k, w in enumerate(words) if not w.startswith("-") and (k == 0 or words[k - 1] != "-o")
    ]
    if not binds or len(operands) != 2:
        return None
    source, mountpoint = (_from_start(inv.cwd, operands[0]), _from_start(inv.cwd, operands[1]))
    return (mountpoint, source) if source and mountpoint else None


def _links(earlier: Sequence[Invocation]) -> list[tuple[str, str]]:
    """(link path, where it leads) for each `ln` (or bind mount) earlier on the line, from the
    line's start."""
    found: list[tuple[str, str]] = []
    for before in earlier:
        if before.name in ("mount", "bindfs"):
            bound = _bind(before)
            found += [bound] if bound else []
            continue
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


def _unsearched(finding: Finding, links: list[tuple[str, str]]) -> Finding:
    """A file search that starts through a link made on the line is read the old way: every
    path under its start, and where the link leads (the search itself is not followed)."""
    targets = finding.targets
    search = targets.search if targets is not None else None
    if targets is None or search is None:
        return finding
    starts = [_from_start(search.base, start or ".") for start in search.starts]
    if not any(s is not None and _through(s, links) is not None for s in starts):
        return finding
    cwd = finding.cwd
    if cwd is None or any(s is None for s in starts):
        return replace(finding, targets=replace(targets, search=None, unknown=True))
    moved = tuple(s if s.startswith("/") else posixpath.relpath(s, cwd or ".") for s in starts if s)
    widened = replace(targets, search=None, paths=targets.paths + moved, follows=True)
    return replace(finding, targets=widened)


def apply_links(finding: Finding, earlier: Sequence[Invocation]) -> list[Finding]:
    targets = finding.targets
    if targets is None or finding.kind != "discard":
        return [finding]
    links = _links(earlier)
    if not links:
        return [finding]
    finding = _unsearched(finding, links)
    targets = finding.targets
    assert targets is not None
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
