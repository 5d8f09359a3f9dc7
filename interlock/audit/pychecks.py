"""Compare Python tests before and after: removed, weakened, skipped, emptied, deleted tests,
changed expectations and mocked subjects.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from dataclasses import dataclass

from interlock.audit.model import REVIEW, TAMPERED, AuditFinding
from interlock.audit.pyassert import Check, is_data
from interlock.audit.pyast import Collect, PyModule
from interlock.audit.pymatch import (
    Side,
    TestView,
    build_side,
    is_moved,
    match_tests,
    parse_side,
    unchanged_tests,
)
from interlock.audit.pyparams import compare_params, params_of
from interlock.audit.source import module_shadows, subject_names, test_patches

LOOSE_TOLERANCE = 1e-3  # exact -> approx is a weakening above this relative tolerance


@dataclass(frozen=True)
class PyContext:
    """What the Python comparison needs to know about the rest of the change."""

    source_changed: bool = False
    python_files_before: tuple[str, ...] = ()
    python_files_after: tuple[str, ...] = ()
    collect_before: Collect = Collect()
    collect_after: Collect = Collect()
    async_auto: bool = False


class _Findings:
    def __init__(self, ctx: PyContext) -> None:
        self.ctx = ctx
        self.items: list[AuditFinding] = []

    def add(
        self,
        kind: str,
        view: TestView | str,
        detail: str,
        line: int | None = None,
        severity: str = TAMPERED,
        test: str | None = None,
    ) -> None:
        if isinstance(view, TestView):
            path, test = view.path, test or view.test.qualname
            line = line if line is not None else view.test.line
        else:
            path = view
        self.items.append(AuditFinding(kind, path, line, test, detail, severity))

    def expectation(self, view: TestView | str, detail: str, line: int | None) -> None:
        if self.ctx.source_changed:
            detail += " (the code under test changed too: worth a look)"
            self.add("expectation-changed", view, detail, line, REVIEW)
        else:
            detail += " while no code under test changed"
            self.add("expectation-changed", view, detail, line, TAMPERED)


def compare_python(
    before_files: Mapping[str, bytes], after_files: Mapping[str, bytes], ctx: PyContext
) -> list[AuditFinding]:
    """Findings for the Python test files given (only files that changed need be passed)."""
    before = parse_side(before_files, ctx.collect_before)
    after = parse_side(after_files, ctx.collect_after)
    same = unchanged_tests(before, after)
    build_side(before, ctx.python_files_before, ctx.async_auto, same)
    build_side(after, ctx.python_files_after, ctx.async_auto, same)
    out = _Findings(ctx)
    for path in after.invalid:
        if path in before.modules:
            out.add("test-deleted", path, "the file no longer parses as Python", None, REVIEW)
    pairs, gone = match_tests(before, after)
    for old, new in pairs:
        _compare_pair(old, new, before, after, out)
    for ident, helper in after.helpers.items():
        prior = before.helpers.get(ident)
        if prior is not None and prior.checks and prior.dump != helper.dump:
            _compare_checks(prior, helper, before, after, out, pooled=False)
    _report_deleted(gone, before, after, after_files, out)
    for view in after.views.values():
        if view.ident not in before.views and all(new is not view for _, new in pairs):
            _check_mocks(None, view, out)
    for path, module in after.modules.items():
        _compare_module(before.modules.get(path), module, after, out)
    return out.items


def _compare_pair(old: TestView, new: TestView, before: Side, after: Side, out: _Findings) -> None:
    old_keys = {s.key for s in old.skips}
    for skip in new.skips:
        if skip.key in old_keys or skip.truth in ("elsewhere", "never") or not old.runs:
            continue
        where = "on this machine" if skip.truth == "here" else ""
        detail = f"`{skip.text}` now keeps the test from running {where}".rstrip()
        if skip.truth == "unknown":
            detail = f"`{skip.text}` may keep the test from running (condition not decidable)"
        severity = REVIEW if skip.truth == "unknown" else TAMPERED
        test: str | None = new.test.qualname
        if skip.scope == "module":
            test = None
        elif skip.scope.startswith("class "):
            test = skip.scope.split(" ", 1)[1]
        out.items.append(AuditFinding("skip-added", new.path, skip.line, test, detail, severity))
    _check_params(old, new, out)
    _check_mocks(old, new, out)
    if not new.runs or not old.runs:
        return
    if new.trivial and (old.checks or not old.trivial):
        body = ast.unparse(new.test.node.body[-1]) if new.test.node.body else "pass"
        out.add("body-emptied", new, f"test body replaced by `{body}`")
        return
    _compare_checks(old, new, before, after, out)


def _compare_checks(
    old: TestView, new: TestView, before: Side, after: Side, out: _Findings, pooled: bool = True
) -> None:
    """Pair each assertion of the old test with the new one; `pooled`: an assertion still made
    by another test counts as moved (not for helpers, whose callers may be elsewhere)."""
    live_new = list(new.live)
    other_new = [c for c in new.checks if not c.live]
    missing: list[Check] = []
    for check in old.live:
        twin = next((c for c in live_new if c.keys & check.keys), None)
        if twin is not None:
            live_new.remove(twin)
        elif not (pooled and is_moved(check, before, after)):
            missing.append(check)
    unpaired: list[Check] = []
    for check in missing:
        dead = next((c for c in other_new if c.keys & check.keys), None)
        if dead is None:
            dead = next(
                (c for c in other_new if c.state == "vacuous" and c.subjects & check.subjects), None
            )
        if dead is not None:
            other_new.remove(dead)
            shown = f" became `{dead.text}`" if dead.text != check.text else ""
            out.add(
                "assertion-weakened",
                new,
                f"assertion `{check.text}`{shown} is now {_state_words(dead)}",
                dead.line,
            )
            continue
        partner = next((c for c in live_new if c.subjects & check.subjects), None)
        if partner is None:
            unpaired.append(check)
            continue
        live_new.remove(partner)
        _classify(check, partner, new, out)
    for check in unpaired:
        if live_new:
            _classify(check, live_new.pop(0), new, out)
        elif other_new:
            dead = other_new.pop(0)
            out.add(
                "assertion-weakened",
                new,
                f"assertion `{check.text}` became `{dead.text}`, which is {_state_words(dead)}",
                dead.line,
            )
        else:
            out.add(
                "assertion-removed", new, f"assertion `{check.text}` was removed", new.test.line
            )


def _state_words(check: Check) -> str:
    if check.state == "vacuous":
        return f"always true ({check.why})"
    if check.state == "swallowed":
        return f"swallowed ({check.why})"
    return f"unreachable ({check.why})"


def _classify(old: Check, new: Check, view: TestView, out: _Findings) -> None:
    """A replaced assertion: weaker, a changed expectation, or stronger (no finding)."""
    detail = f"assertion `{old.text}` became `{new.text}`"
    same_subject = bool(old.subjects & new.subjects)
    if old.kind == "raises" and new.kind == "raises":
        if old.match and not new.match:
            out.add("assertion-weakened", view, detail + " (match= dropped)", new.line)
        elif set(new.excs) > set(old.excs) or (new.rank < old.rank):
            out.add("assertion-weakened", view, detail + " (catches more exceptions)", new.line)
        elif new.rank > old.rank or (new.excs == old.excs and not old.match and new.match):
            return
        elif new.excs != old.excs or new.match != old.match:
            out.expectation(view, detail, new.line)
        return
    if new.rank < old.rank:
        out.add("assertion-weakened", view, detail, new.line)
        return
    if old.tol is not None and new.tol is not None and new.tol > old.tol:
        loose = new.tol > LOOSE_TOLERANCE if old.tol == 0 else True
        if loose and old.expected == new.expected:
            out.add("assertion-weakened", view, detail + " (looser tolerance)", new.line)
            return
    if same_subject and (new.rank > old.rank or old.kind in ("truthy", "falsy")):
        return
    if same_subject and old.op == new.op and old.expected == new.expected:
        return
    if not same_subject and _nested(old.subjects, new.subjects) and new.rank >= old.rank:
        return  # `len(r) == 2` -> `r == ["a", "b"]`: the same value checked as closely
    out.expectation(view, detail, new.line)


def _nested(old: frozenset[str], new: frozenset[str]) -> bool:
    return any(a and b and (a in b or b in a) for a in old for b in new)


def _check_params(old: TestView, new: TestView, out: _Findings) -> None:
    changes = compare_params(params_of(old.module, old.test), params_of(new.module, new.test))
    for change in changes:
        if change.kind == "removed":
            out.add(
                "test-deleted", new, f"parametrize case ({change.before}) was removed", change.line
            )
        elif change.kind == "skipped":
            out.add(
                "skip-added", new, f"parametrize case ({change.after}) is now skipped", change.line
            )
        else:
            out.expectation(
                new, f"parametrize case ({change.before}) became ({change.after})", change.line
            )


def _check_mocks(old: TestView | None, new: TestView, out: _Findings) -> None:
    before = {p.key for p in test_patches(old.module, old.test)} if old else set()
    added = [p for p in test_patches(new.module, new.test) if p.key not in before]
    if not added:
        return
    subjects = subject_names(new.module, new.test.node)
    if old is not None:
        subjects |= subject_names(old.module, old.test.node)
    for patch in added:
        if patch.name in subjects:
            out.add(
                "subject-mocked",
                new,
                f"`{patch.text}` replaces `{patch.name}`, the function this test checks",
                patch.line,
            )


def _compare_module(old: PyModule | None, new: PyModule, after: Side, out: _Findings) -> None:
    shadows = list(module_shadows(old, new))
    if shadows:
        subjects: set[str] = set()
        for test in new.tests.values():
            subjects |= subject_names(new, test.node)
        for name, line, how in shadows:
            if name in subjects:
                out.add("subject-mocked", new.path, how, line or None)
    if old is None:
        return
    for name, value in new.constants.items():
        before = old.constants.get(name)
        if before is None or name.startswith("__") or name == "pytestmark":
            continue
        if ast.dump(before) != ast.dump(value) and is_data(before) and is_data(value):
            detail = (
                f"module constant `{name} = {ast.unparse(before)[:60]}` became "
                f"`{ast.unparse(value)[:60]}`"
            )
            out.expectation(new.path, detail, value.lineno)
    _compare_fixtures(old, new, out)


def _compare_fixtures(old: PyModule, new: PyModule, out: _Findings) -> None:
    for name, func in new.fixtures.items():
        prior = old.fixtures.get(name)
        if prior is not None and _literals_only_differ(prior, func):
            detail = f"fixture `{name}` now provides different values"
            out.expectation(new.path, detail, func.lineno)


def _literals_only_differ(a: ast.AST, b: ast.AST) -> bool:
    """Same shape, some constants differ."""

    class _Blank(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.Constant:
            return ast.Constant(value=None)

    if ast.dump(a) == ast.dump(b):
        return False
    return ast.dump(_Blank().visit(copy.deepcopy(a))) == ast.dump(_Blank().visit(copy.deepcopy(b)))


def _report_deleted(
    gone: list[TestView],
    before: Side,
    after: Side,
    after_files: Mapping[str, bytes],
    out: _Findings,
) -> None:
    by_file: dict[str, list[TestView]] = {}
    for view in gone:
        if not view.runs:
            continue
        lost = [c for c in view.live if not is_moved(c, before, after)]
        if view.live and not lost:
            continue
        if not view.live and _body_kept(view, after):
            continue
        by_file.setdefault(view.path, []).append(view)
    for path, views in by_file.items():
        names = ", ".join(v.test.qualname for v in views[:5]) + (", ..." if len(views) > 5 else "")
        if path not in after_files and path not in after.modules:
            out.add(
                "test-deleted",
                path,
                f"test file deleted with {len(views)} test(s) "
                f"({names}) and no replacement makes their assertions",
            )
            continue
        for view in views:
            lost = [c for c in view.live if not is_moved(c, before, after)]
            what = f"; lost assertion `{lost[0].text}`" if lost else ""
            out.add(
                "test-deleted",
                view,
                f"test `{view.test.qualname}` was deleted{what}",
                view.test.line,
            )


def _body_kept(view: TestView, after: Side) -> bool:
    """A test without assertions survives when its statements still run in some test."""
    stmts = [ast.dump(s) for s in view.test.node.body]
    return any(all(s in other.dump for s in stmts) for other in after.views.values() if other.runs)
