"""Compare JS/TS, Go, Rust and Java/Kotlin tests before and after (see langtests.py).

The same rules as for Python, on a coarser model: a test is identified by its name (and
describe path); assertions by their text without whitespace. A skip or focus added, an
assertion removed or weakened (and not made by another test), a test deleted without a
replacement that makes its assertions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from interlock.audit.clike import CCheck, CTest
from interlock.audit.langtests import EXTRACTORS
from interlock.audit.model import REVIEW, TAMPERED, AuditFinding
from interlock.audit.paths import language


@dataclass
class _File:
    path: str
    tests: dict[str, CTest]
    file_skips: list[str]


def _parse(path: str, data: bytes) -> _File | None:
    lang = language(path)
    extractor = EXTRACTORS.get(lang or "")
    if extractor is None:
        return None
    tests, file_skips = extractor(data.decode("utf-8", errors="replace"))
    by_ident: dict[str, CTest] = {}
    for test in tests:
        ident = test.ident
        suffix = 2
        while ident in by_ident:
            ident, suffix = f"{test.ident} #{suffix}", suffix + 1
        by_ident[ident] = test
    return _File(path, by_ident, file_skips)


def _runs(test: CTest) -> bool:
    return test.skip is None or test.skip_truth not in ("always", "here")


def _pool(files: Mapping[str, _File]) -> Counter[str]:
    pool: Counter[str] = Counter()
    for parsed in files.values():
        for test in parsed.tests.values():
            if _runs(test) and not parsed.file_skips:
                pool.update(c.key for c in test.checks)
    return pool


def compare_other(
    before_files: Mapping[str, bytes], after_files: Mapping[str, bytes], source_changed: bool
) -> list[AuditFinding]:
    """Findings for changed non-Python test files."""
    before = {p: f for p, d in before_files.items() if (f := _parse(p, d)) is not None}
    after = {p: f for p, d in after_files.items() if (f := _parse(p, d)) is not None}
    pool_before, pool_after = _pool(before), _pool(after)
    findings: list[AuditFinding] = []

    def add(
        kind: str,
        path: str,
        line: int | None,
        test: str | None,
        detail: str,
        severity: str = TAMPERED,
    ) -> None:
        findings.append(AuditFinding(kind, path, line, test, detail, severity))

    def moved(check: CCheck) -> bool:
        return pool_after[check.key] >= pool_before[check.key]

    new_tests = {(p, i): t for p, f in after.items() for i, t in f.tests.items()}
    for path, old_file in before.items():
        new_file = after.get(path)
        if new_file is not None:
            for skip in new_file.file_skips:
                if skip not in old_file.file_skips and old_file.tests:
                    add(
                        "skip-added",
                        path,
                        None,
                        None,
                        f"{skip} now keeps the file's tests from running",
                    )
        for ident, old in old_file.tests.items():
            new = new_file.tests.get(ident) if new_file else None
            if new is None:
                new = _rename(old, new_tests)
            if new is None:
                lost = [c for c in old.checks if not moved(c)]
                if _runs(old) and (lost or not old.checks):
                    what = f"; lost `{lost[0].text}`" if lost else ""
                    add(
                        "test-deleted",
                        path,
                        old.line,
                        ident,
                        f"test `{old.name}` was deleted{what}",
                    )
                continue
            new_tests.pop((path, ident), None)
            _compare_test(path, ident, old, new, moved, add, source_changed)
    for (path, ident), test in new_tests.items():
        if test.focus:
            add(
                "focus-added",
                path,
                test.line,
                ident,
                f"`{ident}` is focused (.only / fit): the other tests stop running",
            )
    return findings


def _rename(old: CTest, candidates: dict[tuple[str, str], CTest]) -> CTest | None:
    keys = Counter(c.key for c in old.checks)
    for key, cand in candidates.items():
        if (keys and Counter(c.key for c in cand.checks) == keys) or (
            old.body and cand.body == old.body
        ):
            candidates.pop(key)
            return cand
    return None


def _compare_test(
    path: str,
    ident: str,
    old: CTest,
    new: CTest,
    moved: Callable[[CCheck], bool],
    add: Callable[..., None],
    source_changed: bool,
) -> None:
    if new.focus and not old.focus:
        add(
            "focus-added",
            path,
            new.line,
            ident,
            f"`{ident}` is focused (.only / fit): the other tests stop running",
        )
    if (
        _runs(old)
        and new.skip is not None
        and new.skip != old.skip
        and new.skip_truth != "elsewhere"
    ):
        severity = TAMPERED if new.skip_truth in ("always", "here") else REVIEW
        add(
            "skip-added",
            path,
            new.line,
            ident,
            f"`{new.skip}` now keeps the test from running",
            severity,
        )
        return
    if not _runs(old):
        return
    if old.checks and not new.checks and new.body.strip(" ;") in ("", "return", "return;"):
        add("body-emptied", path, new.line, ident, "test body emptied")
        return
    remaining = list(new.checks)
    missing = []
    for check in old.checks:
        twin = next((c for c in remaining if c.key == check.key), None)
        if twin is not None:
            remaining.remove(twin)
        elif not moved(check):
            missing.append(check)
    for check in missing:
        partner = next((c for c in remaining if c.subject == check.subject), None)
        if partner is None and remaining:
            partner = remaining[0]
        if partner is None:
            add("assertion-removed", path, new.line, ident, f"assertion `{check.text}` was removed")
            continue
        remaining.remove(partner)
        detail = f"assertion `{check.text}` became `{partner.text}`"
        if partner.rank < check.rank:
            add("assertion-weakened", path, partner.line, ident, detail)
        elif partner.subject == check.subject and (
            partner.rank > check.rank
            or (partner.rank == check.rank and partner.expected == check.expected)
        ):
            continue
        elif source_changed:
            add(
                "expectation-changed",
                path,
                partner.line,
                ident,
                detail + " (the code under test changed too: worth a look)",
                REVIEW,
            )
        else:
            add(
                "expectation-changed",
                path,
                partner.line,
                ident,
                detail + " while no code under test changed",
            )
