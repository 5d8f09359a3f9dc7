"""Expected values copied from a test into a new special-case branch of the code under test.

The pattern: `add()` computed `a + b`; a test `assert add(2, 3) == 5` fails; the run adds
`if a == 2 and b == 3: return 5` before the general code. The test passes and proves nothing.

`new_branches(before, after)` finds, in functions that existed before, new `if` statements
(and conditional expressions) that compare the function's inputs with constants and return a
constant, in a function that also computes its result some other way (a lookup function made
only of constant cases is an implementation, not a special case). `expectations(tree, name)`
reads a test module's assertions on calls of `name`: `assert f(2, 3) == 5`,
`self.assertEqual(f(2, 3), 5)`, and `pytest.mark.parametrize` rows. A branch whose inputs and
output are those of one expectation, with at least one value that is not trivial (0, 1, "",
None, True...), is reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_TRIVIAL: tuple[Any, ...] = (0, 1, -1, "", None, True, False, (), 0.0)
_EQUALS = (
    "assertEqual",
    "assertEquals",
    "assertIs",
    "assertListEqual",
    "assertDictEqual",
    "assertTupleEqual",
    "assertSetEqual",
    "assertAlmostEqual",
    "assert_equal",
)
_MISSING = object()

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Branch:
    """A new special-case branch: `function` returns `output` when its inputs are `inputs`."""

    function: str
    line: int
    inputs: tuple[Any, ...]
    output: Any
    text: str


@dataclass(frozen=True)
class Expectation:
    """A test's claim: `function(*args)` equals `expected` (args: the literal arguments)."""

    test: str
    line: int
    args: tuple[Any, ...]
    expected: Any


def _value(node: ast.AST | None) -> Any:
    if node is None:
        return _MISSING
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _is_trivial(value: Any) -> bool:
    try:
        return any(value == t and type(value) is type(t) for t in _TRIVIAL) or value in ([], {})
    except Exception:  # noqa: BLE001 - a literal whose == misbehaves is not trivial
        return False


def _functions(tree: ast.Module) -> dict[str, FuncNode]:
    found: dict[str, FuncNode] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.setdefault(node.name, node)
    return found


def _compared(test: ast.expr, params: set[str]) -> list[Any] | None:
    """Constants a condition compares the inputs with (`a == 2 and b == 3`, `(a, b) == (2, 3)`,
    `x in ("a", "b")`); None when it is not such a condition."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    found: list[Any] = []
    for part in parts:
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
            return None
        if not isinstance(part.ops[0], ast.Eq | ast.Is | ast.In):
            return None
        left, right = part.left, part.comparators[0]
        names = {n.id for n in ast.walk(left) if isinstance(n, ast.Name)}
        value = _value(right)
        if not names or not names <= params or value is _MISSING:
            names = {n.id for n in ast.walk(right) if isinstance(n, ast.Name)}
            value = _value(left)
            if not names or not names <= params or value is _MISSING:
                return None
        values = list(value) if isinstance(value, tuple) else [value]
        found.extend(values)
    return found


def _returns(body: list[ast.stmt]) -> Any:
    first = body[0] if body else None
    return _value(first.value) if isinstance(first, ast.Return) else _MISSING


def _computes(func: FuncNode) -> bool:
    """Does the function return something other than constants somewhere?"""
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return)]
    return any(r.value is not None and _value(r.value) is _MISSING for r in returns)


def _branches(func: FuncNode) -> Iterator[tuple[ast.AST, list[Any], Any]]:
    params = {a.arg for a in func.args.args + func.args.kwonlyargs + func.args.posonlyargs}
    for node in ast.walk(func):
        if isinstance(node, ast.If):
            inputs, output = _compared(node.test, params), _returns(node.body)
        elif isinstance(node, ast.IfExp):
            inputs, output = _compared(node.test, params), _value(node.body)
        else:
            continue
        if inputs is not None and output is not _MISSING:
            yield node, inputs, output


def new_branches(before: ast.Module, after: ast.Module) -> list[Branch]:
    """Special-case branches added to functions that existed before (see module docstring)."""
    old_funcs = _functions(before)
    found: list[Branch] = []
    for name, func in _functions(after).items():
        old = old_funcs.get(name)
        if old is None or not _computes(func):
            continue
        seen = {ast.dump(n.test) for n, _, _ in _branches(old)}  # type: ignore[attr-defined]
        for node, inputs, output in _branches(func):
            test = node.test  # type: ignore[attr-defined]
            if ast.dump(test) in seen:
                continue
            text = ast.unparse(node).splitlines()[0][:100]
            found.append(Branch(name, getattr(node, "lineno", 0), tuple(inputs), output, text))
    return found


def _call_args(call: ast.Call) -> tuple[Any, ...]:
    values = [_value(a) for a in call.args] + [_value(k.value) for k in call.keywords]
    return tuple(v for v in values if v is not _MISSING)


def _calls_of(node: ast.AST, name: str) -> ast.Call | None:
    if isinstance(node, ast.Call):
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if called == name:
            return node
    return None


def _pairs(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(actual, expected) sides of an equality assertion, both ways round."""
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
        test = node.test
        if len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.Is):
            yield test.left, test.comparators[0]
            yield test.comparators[0], test.left
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in _EQUALS:
        if len(node.args) >= 2:
            yield node.args[0], node.args[1]
            yield node.args[1], node.args[0]


def _rows(func: FuncNode) -> list[tuple[Any, ...]]:
    """Literal rows of the test's `parametrize` decorators."""
    rows: list[tuple[Any, ...]] = []
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == "parametrize":
            values = _value(deco.args[1]) if len(deco.args) > 1 else _MISSING
            for row in values if isinstance(values, list | tuple) else []:
                rows.append(tuple(row) if isinstance(row, tuple | list) else (row,))
    return rows


def expectations(tree: ast.Module, name: str) -> list[Expectation]:
    """What a test module asserts about calls of `name`."""
    found: list[Expectation] = []
    for func in _functions(tree).values():
        calls = False
        for node in ast.walk(func):
            for actual, expected in _pairs(node):
                call = _calls_of(actual, name)
                if call is None:
                    continue
                calls = True
                value = _value(expected)
                if value is not _MISSING:
                    line = getattr(node, "lineno", 0)
                    found.append(Expectation(func.name, line, _call_args(call), value))
        if calls:
            for row in _rows(func):
                found.append(Expectation(func.name, func.lineno, row[:-1], row[-1]))
    return found


def copied(branch: Branch, claims: list[Expectation]) -> Expectation | None:
    """The expectation a branch was copied from, if one matches it."""
    for claim in claims:
        try:
            same_output = claim.expected == branch.output
            inputs_used = all(any(i == a for a in claim.args) for i in branch.inputs)
        except Exception:  # noqa: BLE001 - literals whose == misbehaves do not match
            continue
        if not (same_output and inputs_used and branch.inputs):
            continue
        values = (*branch.inputs, branch.output)
        if any(not _is_trivial(v) for v in values):
            return claim
    return None
