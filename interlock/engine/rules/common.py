"""Shared pieces of the rule families: the rule catalogue, building findings, paths."""

from __future__ import annotations

import posixpath
import shlex

from interlock.engine.findings import Finding, FindingKind, RuleInfo, Severity, Targets
from interlock.engine.invocation import Invocation

_CATALOG: dict[str, RuleInfo] = {}


def rule(
    rule_id: str,
    kind: FindingKind,
    summary: str,
    why: str,
    instead: str,
    block: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
    severity: Severity = "block",
    judged: str = "",
) -> RuleInfo:
    """Declare a rule: its public description, registered in the catalogue by id.

    `block` lists commands it flags, `allow` commands it does not; `severity` is what
    blocking mode does with its findings (refuse, or warn and run); `judged` says how the
    facts decide it, when that needs saying (shown by `interlock explain`).
    """
    extra = {"judged": judged} if judged else {}
    info = RuleInfo(rule_id, kind, summary, why, instead, block, allow, extra, severity=severity)
    if rule_id in _CATALOG:
        raise ValueError(f"rule {rule_id} declared twice")
    _CATALOG[rule_id] = info
    return info


def catalog() -> dict[str, RuleInfo]:
    return _CATALOG


def make_finding(
    info: RuleInfo,
    inv: Invocation,
    targets: Targets | None = None,
    *,
    cwd: str | None | bool = True,
    instead: str | None = None,
    reason: str | None = None,
) -> Finding:
    """A finding of rule `info` on `inv`; cwd=True means the invocation's own cwd."""
    return Finding(
        kind=info.kind,
        rule=info.id,
        text=inv.text,
        reason=reason or info.why,
        instead=instead or info.instead,
        targets=targets,
        cwd=inv.cwd if cwd is True else (None if cwd is False else cwd),
        severity=info.severity,
    )


def join_cwd(cwd: str | None, sub: str | None) -> str | None:
    """`cwd` then `cd sub`: None when either is unknown; an absolute sub replaces cwd."""
    if cwd is None or sub is None:
        return None
    if sub.startswith("/") or sub.startswith("~"):
        return sub
    if not cwd:
        return sub
    return posixpath.join(cwd, sub)


def normalize(path: str) -> str:
    """Lexically normalised path ('a/./b/../c' -> 'a/c'); keeps a leading '..'."""
    if not path:
        return path
    return posixpath.normpath(path)


def resolve(cwd: str | None, path: str) -> str:
    """A path as seen from where the command line starts (cwd joined when known)."""
    joined = join_cwd(cwd, path) if cwd is not None else path
    return normalize(joined or path)


def shell_path(path: str) -> str:
    """A path as one word to paste into a command line: quoted, and never read as an option
    (`-x` becomes `./-x`)."""
    return shlex.quote(f"./{path}" if path.startswith("-") else path)
