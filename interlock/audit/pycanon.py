"""Canonical forms of single assertions: `RawCheck` from an `assert` expression or a call.

unittest's assert methods are rewritten into the equivalent expression first
(`assertEqual(a, b)` is `a == b`, `assertIsNone(x)` is `x is None`), so both styles compare
equal and a conversion from one to the other is not a change.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from interlock.audit.pyast import PyModule
from interlock.audit.pyeval import Unknown, evaluate, number, static_truth

BROAD_NAMES = frozenset(("Exception", "BaseException"))
_OPS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_INVERSE = {
    "==": ast.NotEq,
    "!=": ast.Eq,
    "is": ast.IsNot,
    "is not": ast.Is,
    "in": ast.NotIn,
    "not in": ast.In,
    "<": ast.GtE,
    ">=": ast.Lt,
    ">": ast.LtE,
    "<=": ast.Gt,
}
_FLIP = {"<": ast.Gt, ">": ast.Lt, "<=": ast.GtE, ">=": ast.LtE}
# unittest method -> (operator for ast.Compare or a special form, number of operands)
_UNITTEST: dict[str, tuple[str, int]] = {
    **{
        m: ("==", 2)
        for m in (
            "assertEqual",
            "assertEquals",
            "failUnlessEqual",
            "assertListEqual",
            "assertDictEqual",
            "assertTupleEqual",
            "assertSetEqual",
            "assertSequenceEqual",
            "assertMultiLineEqual",
            "assertCountEqual",
            "assertItemsEqual",
        )
    },
    **{m: ("!=", 2) for m in ("assertNotEqual", "assertNotEquals", "failIfEqual")},
    **{m: ("truthy", 1) for m in ("assertTrue", "assert_", "failUnless")},
    **{m: ("falsy", 1) for m in ("assertFalse", "failIf")},
    "assertIs": ("is", 2),
    "assertIsNot": ("is not", 2),
    "assertIsNone": ("is None", 1),
    "assertIsNotNone": ("is not None", 1),
    "assertIn": ("in", 2),
    "assertNotIn": ("not in", 2),
    "assertGreater": (">", 2),
    "assertGreaterEqual": (">=", 2),
    "assertLess": ("<", 2),
    "assertLessEqual": ("<=", 2),
    "assertIsInstance": ("isinstance", 2),
    "assertNotIsInstance": ("not isinstance", 2),
    "assertRegex": ("regex", 2),
    "assertRegexpMatches": ("regex", 2),
    "assertNotRegex": ("not regex", 2),
}
_RAISES_METHODS = frozenset(
    ("assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertWarns", "assertWarnsRegex")
)
_APPROX_METHODS = frozenset(("assertAlmostEqual", "assertAlmostEquals", "failUnlessAlmostEqual"))
UNITTEST_ASSERTS = frozenset((*_UNITTEST, *_RAISES_METHODS, *_APPROX_METHODS))
_HELPER_NAME = re.compile(r"^_*(assert|check|verify|expect|ensure)(_|[A-Z]|$)")


@dataclass(frozen=True)
class RawCheck:
    """A check before local names are substituted: AST nodes for subject and expected."""

    kind: str
    op: str
    subject: ast.expr | None
    expected: ast.expr | None
    rank: int
    tol: float | None = None
    excs: tuple[str, ...] = ()
    match: str | None = None
    vacuous: str = ""


def _literalish(node: ast.expr) -> bool:
    """Built from constants only (the expected side of a comparison)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name | ast.Call | ast.Attribute | ast.Subscript | ast.Await):
            return False
    return True


def _is_any(module: PyModule, node: ast.expr) -> bool:
    name = module.resolve(node) or ""
    return name == "ANY" or name.endswith("mock.ANY")


def vacuous_reason(module: PyModule, expr: ast.expr) -> str:
    """Why an asserted expression can never fail, or ''."""
    truth = static_truth(expr)
    if truth is True:
        if isinstance(expr, ast.Tuple):
            return "asserting a non-empty tuple is always true"
        return "it is always true"
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
        for value in expr.values:
            if static_truth(value) is True or vacuous_reason(module, value):
                return f"`or {ast.unparse(value)}` makes it always true"
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        left, right = expr.left, expr.comparators[0]
        if isinstance(expr.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE) and (
            ast.dump(left) == ast.dump(right)
        ):
            return "it compares a value with itself"
        if isinstance(expr.ops[0], ast.Eq) and (_is_any(module, left) or _is_any(module, right)):
            return "mock.ANY equals anything"
    if isinstance(expr, ast.Call) and (module.resolve(expr.func) or "") == "isinstance":
        if len(expr.args) == 2 and (module.resolve(expr.args[1]) or "") == "object":
            return "everything is an instance of object"
    return ""


def _approx_tol(
    module: PyModule,
    value: ast.expr | None,
    rel: ast.expr | None,
    abs_: ast.expr | None,
    default_rel: float = 1e-6,
    default_abs: float = 1e-12,
) -> float:
    """Effective relative tolerance of an approximate comparison."""

    def num(node: ast.expr | None) -> float | None:
        if node is None:
            return None
        try:
            result = evaluate(node, names=module.constants, resolve=module.resolve)
        except (Unknown, TypeError, ValueError, ZeroDivisionError, OverflowError):
            return None
        return float(result) if isinstance(result, int | float) else None

    r, a = num(rel), num(abs_)
    if rel is None and abs_ is None:
        r, a = default_rel, default_abs
    r, a = r or 0.0, a or 0.0
    v = number(value) if value is not None else None
    return max(r, a / abs(v)) if v else max(r, a)


def _kw(call: ast.Call, *names: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg in names:
            return keyword.value
    return None


def _compare(module: PyModule, expr: ast.Compare) -> RawCheck:
    left, op, right = expr.left, _OPS[type(expr.ops[0])], expr.comparators[0]
    if op in ("==", "!=", "is", "is not") and _literalish(left) and not _literalish(right):
        left, right = right, left
    if op in _FLIP and _literalish(left) and not _literalish(right):
        left, right, op = right, left, _OPS[_FLIP[op]]
    if isinstance(left, ast.Call) and (module.resolve(left.func) or "").endswith("approx"):
        left, right = right, left
    if isinstance(right, ast.Call) and (module.resolve(right.func) or "").endswith("approx"):
        value = right.args[0] if right.args else _kw(right, "expected")
        tol = _approx_tol(module, value, _kw(right, "rel"), _kw(right, "abs"))
        return RawCheck("compare", op, left, value, 4 if op == "==" else 1, tol=tol)
    if op in ("==", "is"):
        rank = 4
    elif op in ("!=", "is not"):
        rank = 1
    else:
        rank = 2
    return RawCheck("compare", op, left, right, rank, tol=0.0 if op == "==" else None)


def canon_expr(module: PyModule, expr: ast.expr) -> RawCheck:
    """The canonical check for `assert expr` (without `and` splitting)."""
    vacuous = vacuous_reason(module, expr)
    raw = _canon(module, expr)
    return RawCheck(
        raw.kind, raw.op, raw.subject, raw.expected, raw.rank, raw.tol, raw.excs, raw.match, vacuous
    )


def _canon(module: PyModule, expr: ast.expr) -> RawCheck:
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        return _compare(module, expr)
    if isinstance(expr, ast.Compare):
        ops = " ".join(_OPS[type(o)] for o in expr.ops)
        subject = next((n for n in (expr.left, *expr.comparators) if not _literalish(n)), expr)
        return RawCheck("compare", f"chain {ops}", subject, expr, 2)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = expr.operand
        if isinstance(inner, ast.Compare) and len(inner.ops) == 1:
            inverted = _INVERSE[_OPS[type(inner.ops[0])]]()
            return _compare(module, ast.Compare(inner.left, [inverted], inner.comparators))
        return RawCheck("falsy", "not", inner, None, 2)
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
        first = _canon(module, expr.values[0])
        return RawCheck("truthy", "or", first.subject, expr, 1)
    if isinstance(expr, ast.Constant) and not expr.value:
        return RawCheck("fail", "fail", None, None, 4)
    if isinstance(expr, ast.Call):
        name = (module.resolve(expr.func) or "").rsplit(".", 1)[-1]
        if name == "isinstance" and len(expr.args) == 2:
            return RawCheck("compare", "isinstance", expr.args[0], expr.args[1], 2)
        if name in ("isclose", "allclose") and len(expr.args) >= 2:
            rel = _kw(expr, "rel_tol", "rtol")
            abs_ = _kw(expr, "abs_tol", "atol")
            defaults = (
                (1e-9, 0.0)
                if name == "isclose" and "math" in (module.resolve(expr.func) or "")
                else (1e-5, 1e-8)
            )
            tol = _approx_tol(module, expr.args[1], rel, abs_, *defaults)
            return RawCheck("compare", "==", expr.args[0], expr.args[1], 4, tol=tol)
    return RawCheck("truthy", "", expr, None, 2)


def checks_from_assert(module: PyModule, expr: ast.expr) -> list[RawCheck]:
    """`assert a and b` is two checks; so is a chain `a == b == c` (Python reads it as
    `a == b and b == c`), so a chain that grows by a link checks more, not something else."""
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        return [c for value in expr.values for c in checks_from_assert(module, value)]
    if isinstance(expr, ast.Compare) and len(expr.ops) > 1:
        sides = [expr.left, *expr.comparators]
        return [
            canon_expr(module, ast.Compare(sides[k], [op], [sides[k + 1]]))
            for k, op in enumerate(expr.ops)
        ]
    return [canon_expr(module, expr)]


def _unittest_expr(form: str, args: list[ast.expr]) -> ast.expr:
    if form == "truthy":
        return args[0]
    if form == "falsy":
        return ast.UnaryOp(ast.Not(), args[0])
    if form in ("is None", "is not None"):
        op: ast.cmpop = ast.Is() if form == "is None" else ast.IsNot()
        return ast.Compare(args[0], [op], [ast.Constant(None)])
    if form in ("isinstance", "not isinstance"):
        call = ast.Call(ast.Name("isinstance", ast.Load()), args[:2], [])
        return call if form == "isinstance" else ast.UnaryOp(ast.Not(), call)
    if form in ("regex", "not regex"):
        search = ast.Call(ast.Name("re_search", ast.Load()), [args[1], args[0]], [])
        return search if form == "regex" else ast.UnaryOp(ast.Not(), search)
    cmp = {v: k for k, v in _OPS.items()}[form]
    return ast.Compare(args[0], [cmp()], [args[1]])


def raises_check(module: PyModule, ctx: ast.expr, subject_text: object) -> RawCheck | None:
    """`pytest.raises(E, match=...)` / `self.assertRaises(E)` used as a context manager."""
    if not isinstance(ctx, ast.Call) or not ctx.args:
        return None
    name = module.resolve(ctx.func) or ""
    method = ctx.func.attr if isinstance(ctx.func, ast.Attribute) else ""
    last = name.rsplit(".", 1)[-1]
    if last not in ("raises", "warns") and method not in _RAISES_METHODS:
        return None
    first = ctx.args[0]
    elts = first.elts if isinstance(first, ast.Tuple) else [first]
    excs = tuple(sorted((module.resolve(e) or ast.unparse(e)).rsplit(".", 1)[-1] for e in elts))
    match_node = _kw(ctx, "match", "expected_regex")
    if match_node is None and method.endswith(("Regex", "Regexp")) and len(ctx.args) > 1:
        match_node = ctx.args[1]
    match = ast.unparse(match_node) if match_node is not None else None
    rank = 1 if set(excs) & BROAD_NAMES else 4
    return RawCheck(
        "raises",
        last if last in ("raises", "warns") else method,
        ast.Constant(str(subject_text)),
        None,
        rank,
        excs=excs,
        match=match,
    )


def checks_from_call(module: PyModule, call: ast.Call) -> list[RawCheck]:
    """The checks a call statement makes (unittest/pytest/numpy/mock assert calls)."""
    func = call.func
    name = module.resolve(func) or ""
    method = (
        func.attr
        if isinstance(func, ast.Attribute)
        else (func.id if isinstance(func, ast.Name) else "")
    )
    args = list(call.args)
    if isinstance(func, ast.Attribute) and method in _UNITTEST:
        form, arity = _UNITTEST[method]
        if len(args) >= arity:
            return [canon_expr(module, _unittest_expr(form, args[:arity]))]
    if method in _APPROX_METHODS and len(args) >= 2:
        places, delta = _kw(call, "places"), _kw(call, "delta")
        digits = number(places) if places is not None else 7.0
        tol_abs = ast.Constant(0.5 * 10 ** -(digits or 0.0)) if delta is None else delta
        tol = _approx_tol(module, args[1], None, tol_abs)
        return [RawCheck("compare", "==", args[0], args[1], 4, tol=tol)]
    if method in _RAISES_METHODS or name.rsplit(".", 1)[-1] in ("raises", "warns"):
        if len(args) >= 2:
            raw = raises_check(module, ast.Call(func, args[:1], call.keywords), "")
            if raw is not None:
                subject = ast.Call(args[1], args[2:], [])
                return [
                    RawCheck(
                        raw.kind, raw.op, subject, None, raw.rank, excs=raw.excs, match=raw.match
                    )
                ]
        return []
    if method == "fail" and (name.startswith("pytest") or isinstance(func, ast.Attribute)):
        return [RawCheck("fail", "fail", None, None, 4)]
    return _generic_assert_call(module, call, name, method, args)


def _generic_assert_call(
    module: PyModule, call: ast.Call, name: str, method: str, args: list[ast.expr]
) -> list[RawCheck]:
    if method in ("assert_allclose", "assert_array_almost_equal", "assert_almost_equal") and (
        len(args) >= 2
    ):
        if method == "assert_allclose":
            tol = _approx_tol(module, args[1], _kw(call, "rtol"), _kw(call, "atol"), 1e-7, 0.0)
        else:
            digits = number(_kw(call, "decimal")) if _kw(call, "decimal") else 7.0
            tol = _approx_tol(module, args[1], None, ast.Constant(1.5 * 10 ** -(digits or 0.0)))
        return [RawCheck("compare", "==", args[0], args[1], 4, tol=tol)]
    chain_root = _assert_that_root(module, call)
    if chain_root is not None:
        return [RawCheck("call", method, chain_root, call, 3)]
    if method.startswith("assert") or _HELPER_NAME.match(method or ""):
        receiver = func_receiver(call)
        subject = (
            receiver
            if receiver is not None and method.startswith("assert_")
            else (args[0] if args else None)
        )
        rank = 4 if re.search(r"equal", method, re.I) and "not" not in method.lower() else 3
        return [RawCheck("call", method, subject, ast.Tuple(args[1:], ast.Load()), rank)]
    return []


def func_receiver(call: ast.Call) -> ast.expr | None:
    return call.func.value if isinstance(call.func, ast.Attribute) else None


def _assert_that_root(module: PyModule, call: ast.Call) -> ast.expr | None:
    """`assert_that(x).is_equal_to(y)` / `expect(x).to.equal(y)`: the asserted x."""
    node: ast.expr = call.func
    while isinstance(node, ast.Attribute | ast.Call):
        if isinstance(node, ast.Call):
            last = (module.resolve(node.func) or "").rsplit(".", 1)[-1]
            if last in ("assert_that", "expect", "assertThat") and node.args:
                return node.args[0]
            node = node.func
        else:
            node = node.value
    return None
