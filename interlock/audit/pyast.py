"""The structure of a Python test module: which tests pytest/unittest would collect.

`parse_module()` reads a file into a `PyModule`: tests by qualified name (`Class::test_x`),
classes, module-level helpers and fixtures, constants and imports (so `@mark.skip`,
`from unittest import skip` and `skip = pytest.mark.skip` all resolve to the same mark).
Later definitions shadow earlier ones and `del test_x` removes a test, as at run time.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef
SETUP_NAMES = frozenset(
    ("setUp", "setUpClass", "setup_method", "setup_class", "setup", "asyncSetUp")
)
MODULE_SETUP_NAMES = frozenset(("setUpModule", "setup_module", "setup"))


@dataclass
class PyTest:
    """One collected test function, e.g. `NormalizeTests::test_national` in tests/test_phone.py."""

    qualname: str
    name: str
    node: FuncNode
    classes: tuple[str, ...] = ()
    unittest: bool = False

    @property
    def line(self) -> int:
        return self.node.lineno


@dataclass
class PyClass:
    """A test class: its decorators, `pytestmark`, attributes and setup methods."""

    qualname: str
    node: ast.ClassDef
    is_testcase: bool
    marks: list[ast.expr] = field(default_factory=list)
    attrs: dict[str, ast.expr] = field(default_factory=dict)
    setups: list[FuncNode] = field(default_factory=list)
    methods: dict[str, FuncNode] = field(default_factory=dict)


@dataclass
class PyModule:
    """A parsed Python file with what the audit needs to compare it."""

    path: str
    tree: ast.Module
    tests: dict[str, PyTest] = field(default_factory=dict)
    classes: dict[str, PyClass] = field(default_factory=dict)
    functions: dict[str, FuncNode] = field(default_factory=dict)
    fixtures: dict[str, FuncNode] = field(default_factory=dict)
    constants: dict[str, ast.expr] = field(default_factory=dict)
    imports: dict[str, str] = field(default_factory=dict)
    marks: list[ast.expr] = field(default_factory=list)
    setups: list[FuncNode] = field(default_factory=list)
    disabled: bool = False
    source: bytes = b""

    def resolve(self, expr: ast.expr | None, depth: int = 0) -> str | None:
        """The dotted name an expression refers to, through imports and module aliases.

        `mark.skip(...)` with `from pytest import mark` -> `pytest.mark.skip`.
        """
        if expr is None or depth > 6:
            return None
        if isinstance(expr, ast.Call):
            return self.resolve(expr.func, depth + 1)
        if isinstance(expr, ast.Attribute):
            inner = self.resolve(expr.value, depth + 1)
            return f"{inner}.{expr.attr}" if inner else None
        if isinstance(expr, ast.Name):
            if expr.id in self.imports:
                return self.imports[expr.id]
            alias = self.constants.get(expr.id)
            if isinstance(alias, ast.Attribute | ast.Name):
                return self.resolve(alias, depth + 1)
            return expr.id
        return None


@dataclass(frozen=True)
class Collect:
    """pytest's collection patterns (python_functions / python_classes)."""

    functions: tuple[str, ...] = ("test",)
    classes: tuple[str, ...] = ("Test",)


def _name_matches(name: str, patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if fnmatch.fnmatchcase(name, pattern):
                return True
        elif name.startswith(pattern):
            return True
    return False


@functools.lru_cache(maxsize=256)
def parse_module(path: str, data: bytes, collect: Collect | None = None) -> PyModule | None:
    """Parse a Python file; None when it is not valid Python. Cached: treat it as read-only."""
    try:
        tree = ast.parse(data, filename=path)
    except (SyntaxError, ValueError):
        return None
    module = PyModule(path=path, tree=tree, source=data)
    _scan_module(module, collect or Collect())
    return module


def test_source(module: PyModule, test: PyTest) -> bytes:
    """The source lines of a test, decorators included."""
    node = test.node
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    lines = module.source.splitlines(keepends=True)
    return b"".join(lines[start - 1 : node.end_lineno or node.lineno])


def test_dump(test: PyTest) -> str:
    """A test's structure (decorators, arguments, body) without positions."""
    node = test.node
    return "|".join(
        (
            ast.dump(node.args),
            *(ast.dump(d) for d in node.decorator_list),
            *(ast.dump(s) for s in node.body),
            type(node).__name__,
        )
    )


def context_dump(module: PyModule) -> str:
    """The module's structure without its tests (formatting-insensitive context_source)."""
    tests = {id(t.node) for t in module.tests.values()}
    parts = []
    for stmt in module.tree.body:
        if id(stmt) in tests:
            continue
        if isinstance(stmt, ast.ClassDef):
            kept = [s for s in stmt.body if id(s) not in tests]
            parts.append(
                ast.dump(
                    ast.ClassDef(stmt.name, stmt.bases, stmt.keywords, kept, stmt.decorator_list)
                )
            )
        else:
            parts.append(ast.dump(stmt))
    return "\n".join(parts)


def context_source(module: PyModule) -> bytes:
    """The module's source without its tests: imports, helpers, fixtures, classes' setup."""
    lines = module.source.splitlines(keepends=True)
    for test in module.tests.values():
        node = test.node
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        for i in range(start - 1, node.end_lineno or node.lineno):
            lines[i] = b"\n"
    return b"".join(lines)


def _record_import(module: PyModule, node: ast.Import | ast.ImportFrom) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            local = alias.asname or alias.name.split(".")[0]
            module.imports[local] = alias.name if alias.asname else alias.name.split(".")[0]
        return
    prefix = "." * node.level + (node.module or "")
    for alias in node.names:
        module.imports[alias.asname or alias.name] = f"{prefix}.{alias.name}".lstrip(".")


def is_fixture(module: PyModule, func: FuncNode) -> bool:
    for deco in func.decorator_list:
        name = module.resolve(deco) or ""
        if name.endswith("fixture") or name.endswith("yield_fixture"):
            return True
    return False


def _targets(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Assign):
        targets: list[ast.expr] = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    elif isinstance(node, ast.Delete):
        targets = list(node.targets)
    else:
        return set()
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _scan_module(module: PyModule, collect: Collect) -> None:
    for node in module.tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            _record_import(module, node)
            for alias in node.names:
                module.tests.pop(alias.asname or alias.name, None)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.tests.pop(node.name, None)
            module.functions[node.name] = node
            if is_fixture(module, node):
                module.fixtures[node.name] = node
            elif node.name in MODULE_SETUP_NAMES:
                module.setups.append(node)
            elif _name_matches(node.name, collect.functions):
                module.tests[node.name] = PyTest(node.name, node.name, node)
        elif isinstance(node, ast.ClassDef):
            _drop_class(module, node.name)
            _scan_class(module, node, (), collect)
        else:
            names = _targets(node)
            if not names:
                continue
            for name in names:
                module.tests.pop(name, None)
                _drop_class(module, name)
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                _record_assign(module, names, node.value)


def _record_assign(module: PyModule, names: set[str], value: ast.expr) -> None:
    for name in names:
        module.constants[name] = value
        if name == "pytestmark":
            module.marks = _mark_list(value)
        elif name == "__test__" and _is_false(value):
            module.disabled = True


def _drop_class(module: PyModule, name: str) -> None:
    prefix = f"{name}::"
    for qual in [q for q in module.tests if q.startswith(prefix)]:
        del module.tests[qual]
    for qual in [q for q in module.classes if q == name or q.startswith(prefix)]:
        del module.classes[qual]


def _mark_list(value: ast.expr) -> list[ast.expr]:
    if isinstance(value, ast.List | ast.Tuple):
        return list(value.elts)
    return [value]


def _is_false(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and not value.value


def _is_testcase_base(module: PyModule, bases: list[ast.expr]) -> bool:
    for base in bases:
        name = module.resolve(base) or ""
        last = name.rsplit(".", 1)[-1]
        if last.endswith("TestCase") or last in ("IsolatedAsyncioTestCase", "TestCase"):
            return True
        known = module.classes.get(last)
        if known is not None and known.is_testcase:
            return True
    return False


def _scan_class(
    module: PyModule, node: ast.ClassDef, outer: tuple[str, ...], collect: Collect
) -> None:
    chain = (*outer, node.name)
    qual = "::".join(chain)
    is_testcase = _is_testcase_base(module, node.bases)
    info = PyClass(qual, node, is_testcase, marks=list(node.decorator_list))
    module.classes[qual] = info
    has_init = False
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            info.methods[stmt.name] = stmt
            has_init = has_init or stmt.name == "__init__"
            if stmt.name in SETUP_NAMES:
                info.setups.append(stmt)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            for name in _targets(stmt):
                info.attrs[name] = stmt.value
                if name == "pytestmark":
                    info.marks.extend(_mark_list(stmt.value))
    collected = is_testcase or (_name_matches(node.name, collect.classes) and not has_init)
    if not collected:
        return
    for stmt in node.body:
        if isinstance(stmt, ast.ClassDef):
            _scan_class(module, stmt, chain, collect)
    patterns = ("test",) if is_testcase else collect.functions
    for name, func in info.methods.items():
        if _name_matches(name, patterns) and name not in SETUP_NAMES:
            module.tests[f"{qual}::{name}"] = PyTest(
                f"{qual}::{name}", name, func, chain, is_testcase
            )


def enclosing_classes(module: PyModule, test: PyTest) -> list[PyClass]:
    """The classes around a test, outermost first."""
    found = []
    for i in range(1, len(test.classes) + 1):
        cls = module.classes.get("::".join(test.classes[:i]))
        if cls is not None:
            found.append(cls)
    return found


def strip_docstring(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            return list(body[1:])
    return list(body)


def body_dump(func: FuncNode) -> str:
    """The body without docstring and positions: equal for formatting-only changes."""
    return "\n".join(ast.dump(stmt) for stmt in strip_docstring(func.body))


def is_trivial_body(func: FuncNode) -> bool:
    """pass, ..., bare return, a docstring or a constant only."""
    for stmt in strip_docstring(func.body):
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Return) and (
            stmt.value is None or isinstance(stmt.value, ast.Constant)
        ):
            continue
        return False
    return True


@functools.lru_cache(maxsize=256)
def module_dump(data: bytes) -> str | None:
    """A formatting- and docstring-insensitive fingerprint of a Python file, None if invalid."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            node.body = strip_docstring(node.body) or [ast.Pass()]
    return ast.dump(tree)
