"""Fixtures for the audit tests: before/after file sets built from inline sources.

A case is a plain tuple, so that test modules can list cases for `parametrize`:
`(id, before, after, verdict, kind=None, source_changed=False, path="tests/test_app.py",
extra={})`. `before` and `after` are the test file's text, or {path: text} of any files
(None deletes a file); `kind` is a finding kind the report must contain (None: no finding at
all when the verdict is clean); `source_changed` also changes app.py; `extra` adds files to
both sides.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from interlock.audit import AuditReport, compare_file_sets

BASE = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "app.py": "def total(lines):\n    return sum(q * p for _, q, p in lines)\n",
}
SOURCE_FIX = "\n\ndef helper(x):\n    return x * 2\n"


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@dataclass
class Case:
    """One before/after pair: the test file (or any files) and what the audit must say."""

    id: str
    before: str | dict[str, str]
    after: str | dict[str, str]
    verdict: str
    kind: str | None = None
    source_changed: bool = False
    path: str = "tests/test_app.py"
    extra: dict[str, str] = field(default_factory=dict)


def _files(spec: str | dict[str, str], path: str) -> dict[str, str]:
    if isinstance(spec, str):
        return {path: dedent(spec)}
    return {k: dedent(v) if v is not None else v for k, v in spec.items()}


def audit_files(before: dict[str, str], after: dict[str, str]) -> AuditReport:
    """Audit two file sets given as text; a None value in `after` deletes the file."""
    b = {k: v.encode() for k, v in before.items() if v is not None}
    a = {k: v.encode() for k, v in after.items() if v is not None}
    return compare_file_sets(b, a)


def audit_case(case: Case) -> AuditReport:
    before = {**BASE, **case.extra, **_files(case.before, case.path)}
    after = {**BASE, **case.extra, **_files(case.after, case.path)}
    if case.source_changed:
        after["app.py"] = BASE["app.py"] + SOURCE_FIX
    return audit_files(before, {k: v for k, v in after.items() if v is not None})


def _check_case(fields: tuple) -> AuditReport:
    case = Case(*fields)
    report = audit_case(case)
    shown = "\n".join(
        f"  {f.kind} {f.severity} {f.location()}: {f.detail}" for f in report.findings
    )
    assert report.verdict == case.verdict, f"{case.id}: {report.verdict}\n{shown}"
    if case.kind is not None:
        assert case.kind in {f.kind for f in report.findings}, (
            f"{case.id}: wanted {case.kind}\n{shown}"
        )
    elif case.verdict == "clean":
        assert not report.findings, f"{case.id}: expected no findings\n{shown}"
    return report


@pytest.fixture(scope="session")
def check_case() -> Callable[[tuple], AuditReport]:
    """`check_case(case)`: audit the case's two file sets and assert the verdict and the
    finding kind it names (or no finding at all when clean); the report."""
    return _check_case
