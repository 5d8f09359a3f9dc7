"""Outcome forgery in conftest.py, plugins and test modules.

A `Trick` is one construct that makes a test run report success it did not earn: a
`pytest_runtest_makereport` hook setting `report.outcome = "passed"`, a `pytest_sessionfinish`
setting `session.exitstatus = 0`, items removed in `pytest_collection_modifyitems`,
`sys.exit(0)` at import, `collect_ignore`, `sys.excepthook` replaced, the test framework
monkeypatched. Tricks are keyed without line numbers; the audit reports those that are new.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from interlock.audit.forgehooks import (
    Trick,
    assigned_attrs,
    exits,
    hook_tricks,
    line_of,
    text_of,
    walk_body,
)
from interlock.audit.pyast import PyModule, is_fixture
from interlock.audit.pycanon import UNITTEST_ASSERTS
from interlock.audit.pyskip import body_skips

_FRAMEWORK = ("_pytest", "pytest", "unittest", "builtins", "pluggy", "doctest", "nose")
_TESTCASE_OVERRIDES = frozenset(
    (
        "run",
        "__call__",
        "debug",
        "_callTestMethod",
        "_callSetUp",
        "fail",
        "failureException",
        "_outcome",
        "defaultTestResult",
    )
)


def _is_main_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)


def _framework_target(module: PyModule, node: ast.expr) -> str | None:
    name = module.resolve(node) or ""
    root = name.split(".")[0]
    if root in _FRAMEWORK or name.split(".")[-2:-1] in (["TestCase"], ["TestResult"]):
        return name
    return None


def _monkeypatches(module: PyModule, nodes: list[ast.AST]) -> Iterator[Trick]:
    for node in nodes:
        for attr in assigned_attrs(node):
            target = _framework_target(module, attr)
            if target:
                yield Trick(f"patch|{target}", line_of(node), f"monkeypatches `{target}`")
            if attr.attr in ("excepthook", "unraisablehook") and (
                module.resolve(attr.value) or ""
            ) in ("sys", "threading"):
                yield Trick(
                    f"hook|{attr.attr}",
                    attr.lineno,
                    f"replaces {text_of(attr)}: errors no longer reach the runner",
                )
        if isinstance(node, ast.Call) and node.args:
            name = module.resolve(node.func) or ""
            last = name.rsplit(".", 1)[-1]
            if last in ("setattr", "object", "patch") and (first := node.args[0]) is not None:
                literal = (
                    first.value
                    if isinstance(first, ast.Constant) and isinstance(first.value, str)
                    else None
                )
                target = (
                    _framework_target(module, first)
                    if literal is None
                    else (literal if literal.split(".")[0] in _FRAMEWORK else None)
                )
                if target and not (last == "patch" and literal is None):
                    yield Trick(
                        f"patch|{target}|{last}",
                        node.lineno,
                        f"monkeypatches `{target}` ({text_of(node)})",
                    )


def _collect_ignore(module: PyModule, is_test_path: Callable[[str], bool]) -> Iterator[Trick]:
    for node in module.tree.body:
        names: list[str] = []
        values: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            values = [node.value]
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
        ):
            names, values = [node.value.func.value.id], list(node.value.args)
        if not set(names) & {"collect_ignore", "collect_ignore_glob"}:
            continue
        for value in values:
            for const in ast.walk(value):
                if (
                    isinstance(const, ast.Constant)
                    and isinstance(const.value, str)
                    and (is_test_path(const.value))
                ):
                    yield Trick(
                        f"collect_ignore|{const.value}",
                        node.lineno,
                        f"collect_ignore now skips `{const.value}`",
                    )


def _testcase_overrides(module: PyModule) -> Iterator[Trick]:
    for cls in module.classes.values():
        if not cls.is_testcase:
            continue
        for name in _TESTCASE_OVERRIDES:
            if name in cls.methods or name in cls.attrs:
                line = cls.methods[name].lineno if name in cls.methods else cls.node.lineno
                yield Trick(
                    f"override|{cls.qualname}|{name}",
                    line,
                    f"{cls.qualname} overrides unittest's `{name}`",
                )
        for name, method in cls.methods.items():
            if name in UNITTEST_ASSERTS and not _checks_anything(method):
                yield Trick(
                    f"override|{cls.qualname}|{name}",
                    method.lineno,
                    f"{cls.qualname} redefines unittest's `{name}` so that it checks nothing",
                )


def _checks_anything(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """An override that still asserts, raises, fails or delegates to the original."""
    for node in ast.walk(func):
        if isinstance(node, ast.Assert | ast.Raise):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr.startswith(("assert", "fail")) or "super" in ast.unparse(node.func):
                return True
    return False


def forgery_tricks(
    module: PyModule, is_test_path: Callable[[str], bool], plugin_like: bool
) -> list[Trick]:
    """Every forging construct in a module. `plugin_like`: conftest, plugin or test module,
    where exiting at import or in a hook is forgery (in a CLI script it is normal)."""
    tricks: list[Trick] = []
    top = [s for s in module.tree.body if not _is_main_guard(s)]
    every = list(ast.walk(ast.Module(body=top, type_ignores=[])))
    tricks += _monkeypatches(module, every)
    tricks += _collect_ignore(module, is_test_path)
    tricks += _testcase_overrides(module)
    if plugin_like:
        at_import = list(walk_body(top))
        tricks += exits(module, at_import, "at import")
        tricks += _module_swaps(at_import)
    for func in every:
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if func.name.startswith("pytest_"):
            tricks += hook_tricks(module, func, list(walk_body(func.body)))
        elif plugin_like and func.decorator_list and is_fixture(module, func):
            tricks += exits(module, list(walk_body(func.body)), f"in fixture {func.name}")
            for skip in body_skips(module, func, f"fixture {func.name}"):
                if skip.effective:
                    tricks.append(
                        Trick(
                            f"skip|{skip.key}",
                            skip.line,
                            f"fixture {func.name} skips every test that uses it: `{skip.text}`",
                            "skip-added",
                        )
                    )
    return tricks


def _module_swaps(nodes: list[ast.AST]) -> Iterator[Trick]:
    for node in nodes:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript) and ast.unparse(t.value) == "sys.modules"
            for t in node.targets
        ):
            yield Trick(
                f"sysmodules|{text_of(node)}",
                node.lineno,
                f"`{text_of(node)}` swaps a module for a stand-in",
                "subject-mocked",
            )
