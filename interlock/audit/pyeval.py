"""Static evaluation of skip conditions and assertion expressions.

A `skipif` condition is judged over every plausible environment (platform, Python version,
implementation, word size): `always` true everywhere is a skip in disguise
(`sys.version_info > (0,)`, `1 == 1`); `here` means it depends on the environment and is true
on this machine; `elsewhere` is a real platform condition that does not skip here; `unknown`
when it reads something interlock cannot evaluate (an environment variable, an import probe).
"""

from __future__ import annotations

import ast
import itertools
import operator
import os
import platform
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Resolver = Callable[[ast.expr], "str | None"]


class Unknown(Exception):
    """The expression reads something that cannot be evaluated statically."""


class _AnyEnviron(Mapping[str, str]):
    """Environment variables in an environment where every variable is set."""

    def __getitem__(self, key: str) -> str:
        return "1"

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __contains__(self, key: object) -> bool:
        return True


@dataclass(frozen=True)
class Env:
    """One environment a condition may be evaluated in."""

    platform: str
    os_name: str
    system: str
    version: tuple[int, int, int]
    impl: str
    maxsize: int
    environ: Mapping[str, str] = field(default_factory=dict)


_PLATFORMS = (
    ("linux", "posix", "Linux"),
    ("darwin", "posix", "Darwin"),
    ("win32", "nt", "Windows"),
)
_VERSIONS = tuple((3, minor, 0) for minor in range(8, 15))
_IMPLS = ("cpython", "pypy")
_MAXSIZES = (2**63 - 1, 2**31 - 1)
_ENVIRONS: tuple[Mapping[str, str], ...] = ({}, _AnyEnviron())
ENVS = tuple(
    Env(p, n, s, v, i, m, e)
    for (p, n, s), v, i, m, e in itertools.product(
        _PLATFORMS, _VERSIONS, _IMPLS, _MAXSIZES, _ENVIRONS
    )
)
CURRENT = Env(
    sys.platform,
    os.name,
    platform.system(),
    (sys.version_info[0], sys.version_info[1], sys.version_info[2]),
    sys.implementation.name,
    sys.maxsize,
    os.environ,
)

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
# What evaluating user-written literals can raise (`len(5)`, `"a"[3]`, `1 / 0`).
_EVAL_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, OverflowError)
_STR_METHODS = frozenset(("startswith", "endswith", "lower", "upper", "strip", "split"))


def _no_resolve(expr: ast.expr) -> str | None:
    return None


class _Evaluator:
    def __init__(self, env: Env, resolve: Resolver, names: Mapping[str, ast.expr]) -> None:
        self.env = env
        self.resolve = resolve
        self.names = names
        self.depth = 0

    def known_name(self, dotted: str) -> Any:
        env = self.env
        values: dict[str, Any] = {
            "sys.platform": env.platform,
            "os.name": env.os_name,
            "sys.version_info": env.version,
            "sys.implementation.name": env.impl,
            "sys.maxsize": env.maxsize,
            "platform.system": lambda: env.system,
            "platform.python_implementation": lambda: {"cpython": "CPython"}.get(env.impl, "PyPy"),
            "platform.python_version_tuple": lambda: tuple(str(x) for x in env.version),
            "os.environ": env.environ,
            "os.getenv": lambda key, default=None: env.environ.get(key, default),
            "len": len,
            "bool": bool,
            "int": int,
            "str": str,
            "tuple": tuple,
            "any": any,
            "all": all,
        }
        if dotted in values:
            return values[dotted]
        raise Unknown(dotted)

    def eval(self, node: ast.expr) -> Any:
        self.depth += 1
        if self.depth > 200:
            raise Unknown("too deep")
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise Unknown(type(node).__name__)
        return method(node)

    def eval_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def eval_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.eval(e) for e in node.elts)

    def eval_List(self, node: ast.List) -> Any:
        return [self.eval(e) for e in node.elts]

    def eval_Name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return self.eval(self.names[node.id])
        return self.known_name(self.resolve(node) or node.id)

    def eval_Attribute(self, node: ast.Attribute) -> Any:
        dotted = self.resolve(node)
        if dotted is not None:
            try:
                return self.known_name(dotted)
            except Unknown:
                pass
        value = self.eval(node.value)
        if isinstance(value, tuple) and node.attr in ("major", "minor", "micro"):
            return value[("major", "minor", "micro").index(node.attr)]
        if isinstance(value, str) and node.attr in _STR_METHODS:
            return getattr(value, node.attr)
        if isinstance(value, Mapping) and node.attr == "get":
            return value.get
        raise Unknown(node.attr)

    def eval_Call(self, node: ast.Call) -> Any:
        func = self.eval(node.func)
        if not callable(func) or node.keywords:
            raise Unknown("call")
        return func(*(self.eval(a) for a in node.args))

    def eval_Subscript(self, node: ast.Subscript) -> Any:
        value = self.eval(node.value)
        if isinstance(node.slice, ast.Slice):
            parts = [
                self.eval(p) if p is not None else None
                for p in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            return value[slice(*parts)]
        return value[self.eval(node.slice)]

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return not value
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        raise Unknown("unary")

    def eval_BinOp(self, node: ast.BinOp) -> Any:
        func = _BINOPS.get(type(node.op))
        if func is None:
            raise Unknown("binop")
        left, right = self.eval(node.left), self.eval(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(right, int | float) and abs(right) > 64:
            raise Unknown("large power")
        try:
            return func(left, right)
        except (TypeError, ZeroDivisionError, OverflowError) as exc:
            raise Unknown("binop") from exc

    def eval_BoolOp(self, node: ast.BoolOp) -> Any:
        result: Any = None
        for value in node.values:
            result = self.eval(value)
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
        return result

    def eval_Compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.eval(comparator)
            try:
                if not _CMPOPS[type(op)](left, right):
                    return False
            except TypeError as exc:
                raise Unknown("compare") from exc
            left = right
        return True

    def eval_IfExp(self, node: ast.IfExp) -> Any:
        return self.eval(node.body) if self.eval(node.test) else self.eval(node.orelse)


def evaluate(
    expr: ast.expr,
    env: Env = CURRENT,
    resolve: Resolver = _no_resolve,
    names: Mapping[str, ast.expr] | None = None,
) -> Any:
    """Evaluate expr in env; raises Unknown when it reads anything else."""
    return _Evaluator(env, resolve, names or {}).eval(expr)


def condition_truth(
    expr: ast.expr, resolve: Resolver = _no_resolve, names: Mapping[str, ast.expr] | None = None
) -> str:
    """`always`, `never`, `here`, `elsewhere` or `unknown` (see the module docstring)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        try:
            expr = ast.parse(expr.value.strip(), mode="eval").body
        except SyntaxError:
            return "unknown"
    try:
        results = {bool(evaluate(expr, env, resolve, names)) for env in ENVS}
        here = bool(evaluate(expr, CURRENT, resolve, names))
    except (Unknown, *_EVAL_ERRORS):
        return "unknown"
    if results == {True}:
        return "always"
    if results == {False} and not here:
        return "never"
    return "here" if here else "elsewhere"


def static_truth(expr: ast.expr) -> bool | None:
    """True/False for an expression made only of literals (`1 == 1`, `(0,) < (1,)`), else None."""
    try:
        return bool(evaluate(expr, CURRENT, _no_resolve, {}))
    except (Unknown, *_EVAL_ERRORS):
        return None


def number(expr: ast.expr | None) -> float | None:
    """A numeric literal (with unary minus and simple arithmetic like 1e-3 or 10**-2)."""
    if expr is None:
        return None
    value = static_truth_value(expr)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def static_truth_value(expr: ast.expr) -> Any:
    try:
        return evaluate(expr, CURRENT, _no_resolve, {})
    except (Unknown, *_EVAL_ERRORS):
        return None
