"""What keeps a Python test from running: skip/xfail marks, skip calls, disabled collection.

Every source of a skip that applies to one test is a `Skip` with a key that ignores the
reason text (so rewording a reason is not a change) and a `truth` from
`pyeval.condition_truth`: only `always` and `here` skips keep the test from running on this
machine; `elsewhere` is a real platform condition; `unknown` needs a person's look.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass

from interlock.audit.pyast import FuncNode, PyModule, PyTest, enclosing_classes
from interlock.audit.pyeval import condition_truth

_BODY_SKIPS = {
    "pytest.skip": "skip",
    "pytest.xfail": "xfail",
    "pytest.importorskip": "importorskip",
    "unittest.SkipTest": "skip",
    "unittest.case.SkipTest": "skip",
    "pytest.skip.Exception": "skip",
    "SkipTest": "skip",
    "pytest.exit": "skip",
}
_ASYNC_PLUGINS = ("asyncio", "anyio", "trio", "twisted", "tornado", "aiohttp")


@dataclass(frozen=True)
class Skip:
    """One reason a test may not run, e.g. `@pytest.mark.skipif(sys.version_info > (0,))`."""

    scope: str
    kind: str
    text: str
    key: str
    truth: str
    line: int

    @property
    def effective(self) -> bool:
        return self.truth in ("always", "here")


def _cond_text(node: ast.expr | None) -> str:
    return "" if node is None else ast.unparse(node)


def _first_arg(call: ast.expr, *names: str) -> ast.expr | None:
    if not isinstance(call, ast.Call):
        return None
    if call.args:
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in names:
            return keyword.value
    return None


def _kw_false(call: ast.expr, name: str) -> bool:
    if not isinstance(call, ast.Call):
        return False
    return any(
        k.arg == name and isinstance(k.value, ast.Constant) and not k.value.value
        for k in call.keywords
    )


def mark_skip(module: PyModule, expr: ast.expr, scope: str) -> Skip | None:
    """The skip a decorator or pytestmark entry means, or None."""
    name = module.resolve(expr) or ""
    last = name.rsplit(".", 1)[-1]
    is_mark = ".mark." in f".{name}" or name.startswith("unittest") or name.startswith("mark.")
    text = ast.unparse(expr)[:120]
    line = getattr(expr, "lineno", 0)
    cond: ast.expr | None = None
    if last == "skip" and is_mark:
        kind, truth = "skip", "always"
    elif last in ("skipif", "skipIf") and is_mark:
        kind, cond = "skipif", _first_arg(expr, "condition")
        truth = condition_truth(cond, module.resolve, module.constants) if cond else "always"
    elif last == "skipUnless" and is_mark:
        kind, cond = "skipif", _first_arg(expr, "condition")
        negated = ast.UnaryOp(ast.Not(), cond) if cond is not None else ast.Constant(True)
        truth = condition_truth(negated, module.resolve, module.constants)
    elif last == "xfail" and is_mark:
        kind = "xfail"
        cond = expr.args[0] if isinstance(expr, ast.Call) and expr.args else None
        truth = condition_truth(cond, module.resolve, module.constants) if cond else "always"
    elif last == "expectedFailure" and is_mark:
        kind, truth = "xfail", "always"
    else:
        return None
    run_false = "|run=False" if _kw_false(expr, "run") else ""
    return Skip(scope, kind, text, f"{scope}|{kind}|{_cond_text(cond)}{run_false}", truth, line)


def body_skips(module: PyModule, func: FuncNode, scope: str) -> Iterator[Skip]:
    """pytest.skip()/self.skipTest()/raise SkipTest in a body, with the conditions around it."""
    yield from statement_skips(module, func.body, scope)


def statement_skips(module: PyModule, body: list[ast.stmt], scope: str) -> Iterator[Skip]:
    """Skips among statements (a function body, or a module's top level)."""

    def visit(stmts: list[ast.stmt], conds: tuple[ast.expr | None, ...]) -> Iterator[Skip]:
        for stmt in stmts:
            yield from _stmt_skips(module, stmt, conds, scope)
            if isinstance(stmt, ast.If):
                yield from visit(stmt.body, (*conds, stmt.test))
                yield from visit(stmt.orelse, (*conds, ast.UnaryOp(ast.Not(), stmt.test)))
            elif isinstance(stmt, ast.Try | ast.TryStar):
                yield from visit(stmt.body, conds)
                for handler in stmt.handlers:
                    yield from visit(handler.body, (*conds, None))
                yield from visit(stmt.orelse, conds)
                yield from visit(stmt.finalbody, conds)
            elif isinstance(stmt, ast.With | ast.AsyncWith):
                yield from visit(stmt.body, conds)
            elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
                yield from visit(stmt.body, (*conds, None))

    yield from visit(body, ())


def _stmt_skips(
    module: PyModule, stmt: ast.stmt, conds: tuple[ast.expr | None, ...], scope: str
) -> Iterator[Skip]:
    target: ast.expr | None = None
    if isinstance(stmt, ast.Expr | ast.Assign) and isinstance(stmt.value, ast.Call):
        target = stmt.value
    elif isinstance(stmt, ast.Raise) and stmt.exc is not None:
        target = stmt.exc
    if target is None:
        return
    name = module.resolve(target) or ""
    kind = _BODY_SKIPS.get(name) or _BODY_SKIPS.get(name.rsplit(".", 1)[-1])
    if kind is None and isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute):
        kind = "skip" if target.func.attr == "skipTest" else None
    if kind is None:
        return
    if kind == "importorskip":
        truth = _import_truth(target)
    elif any(c is None for c in conds):
        truth = "unknown"
    elif conds:
        known = [c for c in conds if c is not None]
        joined = known[0] if len(known) == 1 else ast.BoolOp(ast.And(), known)
        truth = condition_truth(joined, module.resolve, module.constants)
    else:
        truth = "always"
    cond_text = " and ".join(_cond_text(c) for c in conds)
    text = ast.unparse(stmt).split("\n")[0][:120]
    yield Skip(scope, kind, text, f"{scope}|body-{kind}|{cond_text}|{name}", truth, stmt.lineno)


def _import_truth(call: ast.expr) -> str:
    """`here` when the module pytest.importorskip() asks for is not importable here."""
    arg = call.args[0] if isinstance(call, ast.Call) and call.args else None
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value):
        return "unknown"
    top = arg.value.split(".")[0]
    try:
        found = importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        found = False
    return "elsewhere" if found else "here"


def _has_yield(func: FuncNode) -> bool:
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _async_supported(module: PyModule, test: PyTest, async_auto: bool) -> bool:
    if async_auto or test.unittest:
        return True
    names = [module.resolve(m) or "" for m in test.node.decorator_list] + list(
        module.imports.values()
    )
    names += [module.resolve(m) or "" for m in module.marks]
    return any(plugin in name for name in names for plugin in _ASYNC_PLUGINS)


def module_level_skips(module: PyModule) -> list[Skip]:
    """Skips that apply to every test of a module."""
    skips: list[Skip] = []
    if module.disabled:
        skips.append(
            Skip("module", "disabled", "__test__ = False", "module|disabled|", "always", 1)
        )
    for mark in module.marks:
        if (skip := mark_skip(module, mark, "module")) is not None:
            skips.append(skip)
    for setup in module.setups:
        skips.extend(body_skips(module, setup, "module"))
    top = [
        s
        for s in module.tree.body
        if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    skips.extend(statement_skips(module, top, "module"))
    return skips


def test_skips(
    module: PyModule, test: PyTest, async_auto: bool = False, module_skips: list[Skip] | None = None
) -> list[Skip]:
    """Every skip that applies to one test, from the module down to its body."""
    skips = list(module_level_skips(module) if module_skips is None else module_skips)
    for cls in enclosing_classes(module, test):
        scope = f"class {cls.qualname}"
        for mark in cls.marks:
            if (skip := mark_skip(module, mark, scope)) is not None:
                skips.append(skip)
        for attr in ("__test__", "__unittest_skip__"):
            value = cls.attrs.get(attr)
            if isinstance(value, ast.Constant) and bool(value.value) == (attr != "__test__"):
                skips.append(
                    Skip(
                        scope,
                        "disabled",
                        f"{attr} = {value.value!r}",
                        f"{scope}|{attr}",
                        "always",
                        value.lineno,
                    )
                )
        for setup in cls.setups:
            skips.extend(body_skips(module, setup, scope))
    for deco in test.node.decorator_list:
        if (skip := mark_skip(module, deco, "test")) is not None:
            skips.append(skip)
    skips.extend(body_skips(module, test.node, "test"))
    skips.extend(_fixture_skips(module, test))
    if _has_yield(test.node):
        skips.append(
            Skip(
                "test",
                "not-run",
                "a test with `yield` is not run by pytest",
                "test|yield",
                "always",
                test.line,
            )
        )
    if isinstance(test.node, ast.AsyncFunctionDef) and not _async_supported(
        module, test, async_auto
    ):
        skips.append(
            Skip(
                "test",
                "not-run",
                "`async def` test without an async plugin is skipped by pytest",
                "test|async",
                "here",
                test.line,
            )
        )
    return skips


def _fixture_skips(module: PyModule, test: PyTest) -> list[Skip]:
    """Skips inside fixtures the test requests (or autouse fixtures of its module)."""
    wanted = {a.arg for a in (*test.node.args.args, *test.node.args.kwonlyargs)}
    found: list[Skip] = []
    for name, fixture in module.fixtures.items():
        autouse = any(
            isinstance(d, ast.Call)
            and any(
                k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value
                for k in d.keywords
            )
            for d in fixture.decorator_list
        )
        if name in wanted or autouse:
            found.extend(body_skips(module, fixture, f"fixture {name}"))
    return found
