"""Python tests before and after, as comparable views, matched across renames and moves.

A test keeps its identity by qualified name (`path::Class::test`). A test that vanished is
matched to a new test with an identical body, or the same name in another file, or a nearly
identical body (a rename); whatever stays unmatched was deleted or added. The check pool
counts every live assertion of every running test, so an assertion moved into another test
(a split) is still made.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from interlock.audit.paths import is_python_test_name
from interlock.audit.pyassert import Check, extract_checks
from interlock.audit.pyast import (
    Collect,
    FuncNode,
    PyModule,
    PyTest,
    body_dump,
    context_dump,
    context_source,
    is_trivial_body,
    parse_module,
    test_dump,
    test_source,
)
from interlock.audit.pynames import fixture_value
from interlock.audit.pyparams import case_bindings
from interlock.audit.pyskip import Skip, module_level_skips, test_skips


@dataclass
class TestView:
    """One collected test with its checks and skips."""

    path: str
    module: PyModule
    test: PyTest
    checks: list[Check]
    skips: list[Skip]
    dump: str
    trivial: bool

    @property
    def ident(self) -> str:
        return f"{self.path}::{self.test.qualname}"

    @property
    def runs(self) -> bool:
        return not any(s.effective for s in self.skips)

    @property
    def live(self) -> list[Check]:
        return [c for c in self.checks if c.live] if self.runs else []


@dataclass
class Side:
    """All parsed Python files of one side (before or after) and their collected tests."""

    modules: dict[str, PyModule] = field(default_factory=dict)
    views: dict[str, TestView] = field(default_factory=dict)
    helpers: dict[str, TestView] = field(default_factory=dict)
    invalid: list[str] = field(default_factory=list)
    pool: Counter[str] = field(default_factory=Counter)


def parse_side(files: Mapping[str, bytes], collect: Collect) -> Side:
    """Parse the Python files of one side."""
    side = Side()
    for path, data in files.items():
        module = parse_module(path, data, collect)
        if module is None:
            side.invalid.append(path)
        else:
            side.modules[path] = module
    return side


def unchanged_tests(before: Side, after: Side) -> set[str]:
    """Tests whose source and whose module context are byte-identical on both sides: comparing
    them cannot find anything, and their assertions weigh the same in both pools."""
    same: set[str] = set()
    for path, old in before.modules.items():
        new = after.modules.get(path)
        if new is None:
            continue
        by_text = context_source(old) == context_source(new)
        if not by_text and ast.dump(old.tree) == ast.dump(new.tree):
            same.update(f"{path}::{qual}" for qual in old.tests if qual in new.tests)
            continue
        if not by_text and context_dump(old) != context_dump(new):
            continue
        for qual, test in old.tests.items():
            other = new.tests.get(qual)
            if other is None:
                continue
            if (by_text and test_source(old, test) == test_source(new, other)) or (
                test_dump(test) == test_dump(other)
            ):
                same.add(f"{path}::{qual}")
    return same


def build_side(side: Side, python_files: Iterable[str], async_auto: bool, skip: set[str]) -> Side:
    """Add a view for every test a runner would collect (except those in `skip`)."""
    patterns = tuple(python_files)
    shared: dict[str, FuncNode] = {}
    fixtures: dict[str, ast.expr] = {}
    for module in side.modules.values():
        for name, func in module.fixtures.items():
            if (value := fixture_value(func)) is not None:
                fixtures.setdefault(name, value)
        for name, func in module.functions.items():
            if name not in module.tests and name not in module.fixtures:
                shared.setdefault(name, func)
    for path, module in side.modules.items():
        helpers = {n: f for n, f in shared.items() if n in module.imports}
        helpers.update(
            (n, f)
            for n, f in module.functions.items()
            if n not in module.tests and n not in module.fixtures
        )
        _add_helper_views(side, path, module, helpers)
        if not is_python_test_name(path, patterns):
            continue
        provided = {
            **fixtures,
            **{n: v for n, f in module.fixtures.items() if (v := fixture_value(f)) is not None},
        }
        module_skips = module_level_skips(module)
        for test in module.tests.values():
            if f"{path}::{test.qualname}" in skip:
                continue
            cases = _with_fixtures(case_bindings(module, test), test, provided)
            view = TestView(
                path,
                module,
                test,
                extract_checks(test.node, module, {**helpers, **_methods(module, test)}, cases),
                test_skips(module, test, async_auto, module_skips),
                body_dump(test.node),
                is_trivial_body(test.node),
            )
            side.views[view.ident] = view
            for check in view.live:
                side.pool.update(check.keys)
    return side


def _methods(module: PyModule, test: PyTest) -> dict[str, FuncNode]:
    """Non-test methods of the test's classes, callable as `self.name(...)`."""
    found: dict[str, FuncNode] = {}
    for i in range(1, len(test.classes) + 1):
        cls = module.classes.get("::".join(test.classes[:i]))
        if cls is not None:
            found.update((f"self.{n}", f) for n, f in cls.methods.items() if n != test.name)
    return found


def _add_helper_views(
    side: Side, path: str, module: PyModule, helpers: Mapping[str, FuncNode]
) -> None:
    """Assertion helpers (functions and methods that are not tests but assert) as views, so a
    weakened helper is found even when the tests calling it did not change."""
    candidates: list[tuple[str, FuncNode, tuple[str, ...]]] = [
        (n, f, ()) for n, f in module.functions.items() if n not in module.tests
    ]
    tested = {id(t.node) for t in module.tests.values()}
    for qual, cls in module.classes.items():
        candidates += [
            (f"{qual}::{n}", f, tuple(qual.split("::")))
            for n, f in cls.methods.items()
            if id(f) not in tested
        ]
    for qual, func, classes in candidates:
        checks = extract_checks(func, module, helpers)
        pseudo = PyTest(qual, func.name, func, classes)
        view = TestView(path, module, pseudo, checks, [], body_dump(func), is_trivial_body(func))
        side.helpers[view.ident] = view


def _with_fixtures(
    cases: list[dict[str, ast.expr]] | None, test: PyTest, provided: Mapping[str, ast.expr]
) -> list[dict[str, ast.expr]] | None:
    """Bind the test's fixture arguments to what the fixtures return (a fixture extracted
    from a test body is the same assertion)."""
    params = {a.arg for a in (*test.node.args.args, *test.node.args.kwonlyargs)}
    mapping = {name: provided[name] for name in params if name in provided}
    if not mapping:
        return cases
    return [{**mapping, **case} for case in cases] if cases is not None else [mapping]


def is_moved(check: Check, before: Side, after: Side) -> bool:
    """Is this assertion still made at least as often, somewhere in the after tests?"""
    return any(after.pool[key] >= before.pool[key] for key in check.keys)


def _similar(a: TestView, b: TestView) -> float:
    if a.dump == b.dump:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a.dump, b.dump, autojunk=False)
    if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
        return 0.0
    return matcher.ratio()


def match_tests(
    before: Side, after: Side
) -> tuple[list[tuple[TestView, TestView]], list[TestView]]:
    """Pairs (before, after) of the same test, and the before tests left unmatched."""
    pairs = [(v, after.views[k]) for k, v in before.views.items() if k in after.views]
    gone = [v for k, v in before.views.items() if k not in after.views]
    new = [v for k, v in after.views.items() if k not in before.views]
    unmatched: list[TestView] = []
    for old in gone:
        best = _best_rename(old, new)
        if best is None:
            unmatched.append(old)
        else:
            new.remove(best)
            pairs.append((old, best))
    return pairs, unmatched


def _best_rename(old: TestView, candidates: list[TestView]) -> TestView | None:
    old_keys = Counter(k for c in old.checks for k in sorted(c.keys)[:1])
    best, best_score = None, 0.0
    for cand in candidates:
        if cand.dump == old.dump and old.dump:
            return cand
        score = _similar(old, cand) if len(old.dump) < 20000 else 0.0
        same_name = cand.test.name == old.test.name
        same_checks = bool(old_keys) and old_keys == Counter(
            k for c in cand.checks for k in sorted(c.keys)[:1]
        )
        threshold = 0.6 if same_name else (0.75 if same_checks else 0.9)
        if score >= threshold and score > best_score:
            best, best_score = cand, score
    return best
