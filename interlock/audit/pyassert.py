"""The assertions a Python test makes, in one canonical form.

`assert a == b`, `self.assertEqual(a, b)` and `assert b == a` are the same `Check`; so are
`r = f(4); assert r == "IV"` and `assert f(4) == "IV"` (each check carries keys with and
without local names substituted), and a helper `check(4, "IV")` whose body asserts. Each check
has a rank (4: exact, 3: opaque assert call, 2: membership/order/truthiness, 1: `!=`,
`is not None`, a disjunction) and a state: live, dead (after an early return or skip),
swallowed (inside try/except that eats AssertionError) or vacuous (always true).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, replace

from interlock.audit.pyast import FuncNode, PyModule, strip_docstring
from interlock.audit.pycanon import RawCheck, checks_from_assert, checks_from_call, raises_check
from interlock.audit.pyeval import condition_truth, static_truth
from interlock.audit.pynames import (
    bind_call,
    inline_calls,
    qualify,
    single_assignments,
    substitute,
)

BROAD = frozenset(("Exception", "BaseException", "AssertionError", "builtins.Exception"))
_SKIP_CALLS = frozenset(
    ("pytest.skip", "pytest.xfail", "pytest.exit", "sys.exit", "os._exit", "exit", "quit")
)
_SKIP_METHODS = frozenset(("skipTest",))


@dataclass(frozen=True)
class Check:
    """One assertion of a test, canonical (see the module docstring)."""

    kind: str
    op: str
    subjects: frozenset[str]
    expected: str
    keys: frozenset[str]
    rank: int
    text: str
    line: int
    tol: float | None = None
    excs: tuple[str, ...] = ()
    match: str | None = None
    state: str = "live"
    why: str = ""

    @property
    def live(self) -> bool:
        return self.state == "live"


class _LazyText:
    """The first line of a statement's source, computed only when a message needs it."""

    def __init__(self, node: ast.AST | list[ast.stmt]) -> None:
        self.node = node
        self.text: str | None = None

    def __str__(self) -> str:
        if self.text is None:
            if isinstance(self.node, list):
                self.text = "; ".join(ast.unparse(s) for s in self.node)[:120]
            else:
                self.text = ast.unparse(self.node).split("\n")[0][:160]
        return self.text

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class _Walker:
    """Walks a test body in order, tracking dead and swallowed regions."""

    def __init__(
        self,
        module: PyModule,
        helpers: Mapping[str, FuncNode],
        subst: Mapping[str, ast.expr],
        depth: int = 0,
    ) -> None:
        self.module = module
        self.helpers = dict(helpers)
        self.subst = subst
        self.depth = depth
        self.checks: list[Check] = []

    def finish(self, raw: RawCheck, state: str, why: str, line: int, text: _LazyText) -> None:
        if raw.vacuous and state == "live":
            state, why = "vacuous", raw.vacuous
        imports = self.module.imports
        subject_raw = qualify(raw.subject, imports)
        subject_sub = qualify(
            inline_calls(substitute(raw.subject, self.subst), self.helpers), imports
        )
        expected_raw = qualify(raw.expected, imports)
        expected_sub = qualify(
            inline_calls(substitute(raw.expected, self.subst), self.helpers), imports
        )
        if (
            state == "live"
            and raw.kind == "compare"
            and raw.op in ("==", "is")
            and subject_sub
            and (subject_sub == expected_sub)
        ):
            state, why = "vacuous", "the expected value is computed by the code under test"
        extra = f"{raw.excs}|{raw.match}|{raw.tol}"
        keys = frozenset(
            f"{raw.kind}|{raw.op}|{s}|{e}|{extra}"
            for s, e in ((subject_raw, expected_raw), (subject_sub, expected_sub))
        )
        self.checks.append(
            Check(
                raw.kind,
                raw.op,
                frozenset((subject_raw, subject_sub)),
                expected_sub,
                keys,
                raw.rank,
                str(text),
                line,
                raw.tol,
                raw.excs,
                raw.match,
                state,
                why,
            )
        )

    def block(self, stmts: list[ast.stmt], state: str, why: str = "") -> bool:
        """Walk statements; True when the block always ends early (return/raise/skip)."""
        for stmt in stmts:
            ends, reason = self.stmt(stmt, state, why)
            if ends and state == "live":
                state, why = "dead", reason
        return state == "dead"

    def stmt(self, stmt: ast.stmt, state: str, why: str) -> tuple[bool, str]:
        text = _LazyText(stmt)
        if isinstance(stmt, ast.Assert):
            for raw in checks_from_assert(self.module, stmt.test):
                self.finish(raw, state, why, stmt.lineno, text)
            return _always_false_assert(stmt), "after `assert False`"
        if isinstance(stmt, ast.Expr):
            return self.expr_call(stmt.value, state, why, stmt.lineno, text)
        if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign) and stmt.value is not None:
            self.expr_call(stmt.value, state, why, stmt.lineno, text)
            return False, ""
        if isinstance(stmt, ast.Return):
            return True, "after an early `return`"
        if isinstance(stmt, ast.Raise):
            self.raise_stmt(stmt, state, why, text)
            return True, "after a `raise` that always runs"
        if isinstance(stmt, ast.If):
            return self.if_stmt(stmt, state, why)
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            self.loop(stmt, state, why)
            return False, ""
        if isinstance(stmt, ast.With | ast.AsyncWith):
            return self.with_stmt(stmt, state, why, text)
        if isinstance(stmt, ast.Try | ast.TryStar):
            return self.try_stmt(stmt, state, why)
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                self.block(case.body, state, why)
            return False, ""
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.helpers[stmt.name] = stmt
        return False, ""

    def expr_call(
        self, value: ast.expr, state: str, why: str, line: int, text: _LazyText
    ) -> tuple[bool, str]:
        if isinstance(value, ast.Await):
            value = value.value
        if not isinstance(value, ast.Call):
            return False, ""
        name = self.module.resolve(value.func) or ""
        if name in _SKIP_CALLS or (
            isinstance(value.func, ast.Attribute) and value.func.attr in _SKIP_METHODS
        ):
            return True, f"after `{text}`"
        helper = self.helpers.get(_helper_key(value.func))
        if helper is not None:
            if self.depth < 3:
                self.expand(helper, value, state, why, line)
            return False, ""
        raws = checks_from_call(self.module, value)
        for raw in raws:
            self.finish(raw, state, why, line, text)
        return bool(raws) and raws[0].kind == "fail", f"after `{text}`"

    def expand(self, helper: FuncNode, call: ast.Call, state: str, why: str, line: int) -> None:
        # self.helper(...): `self` is bound
        mapping = bind_call(helper, call, bound_self=isinstance(call.func, ast.Attribute))
        mapping = {k: substitute(v, self.subst) or v for k, v in mapping.items()}
        inner = single_assignments(helper)
        inner = {k: v for k, v in inner.items() if k not in mapping}
        combined = {**{k: substitute(v, mapping) or v for k, v in inner.items()}, **mapping}
        sub = _Walker(self.module, self.helpers, combined, self.depth + 1)
        sub.block(strip_docstring(helper.body), "live")
        call_text = ast.unparse(call)[:80]
        for check in sub.checks:
            new_state = state if check.state == "live" else check.state
            new_why = why if check.state == "live" else check.why
            self.checks.append(
                replace(
                    check,
                    line=line,
                    text=f"{call_text} -> {check.text}",
                    state=new_state,
                    why=new_why,
                )
            )

    def raise_stmt(self, stmt: ast.Raise, state: str, why: str, text: _LazyText) -> None:
        name = self.module.resolve(stmt.exc) or ""
        if name.rsplit(".", 1)[-1] in ("AssertionError", "failureException"):
            raw = RawCheck("fail", "fail", None, stmt.exc, 4)
            self.finish(raw, state, why, stmt.lineno, text)

    def if_stmt(self, stmt: ast.If, state: str, why: str) -> tuple[bool, str]:
        truth = static_truth(stmt.test)
        body_state = "dead" if truth is False and state == "live" else state
        else_state = "dead" if truth is True and state == "live" else state
        cond = ast.unparse(stmt.test)[:60]
        body_ends = self.block(stmt.body, body_state, why or f"under `if {cond}` (never true)")
        else_ends = self.block(stmt.orelse, else_state, why or f"in the else of `if {cond}`")
        ends = (body_ends and else_ends) or (truth is True and body_ends)
        if not ends and body_ends and truth is None:
            here = condition_truth(stmt.test, self.module.resolve, self.module.constants)
            if here in ("always", "here"):
                return True, f"after `if {cond}`, which is true on this machine, ends the test"
        return ends, f"after `if {cond}` that always ends the test"

    def loop(self, stmt: ast.For | ast.AsyncFor | ast.While, state: str, why: str) -> None:
        if isinstance(stmt, ast.For | ast.AsyncFor) and self.unroll(stmt, state, why):
            return
        empty = isinstance(stmt, ast.For | ast.AsyncFor) and (
            isinstance(stmt.iter, ast.List | ast.Tuple | ast.Set) and not stmt.iter.elts
        )
        if isinstance(stmt, ast.While) and static_truth(stmt.test) is False:
            empty = True
        self.block(
            stmt.body,
            "dead" if empty and state == "live" else state,
            why or "in a loop that never runs",
        )
        self.block(stmt.orelse, state, why)

    def unroll(self, stmt: ast.For | ast.AsyncFor, state: str, why: str) -> bool:
        """Walk the body once per element of a literal sequence (a table-driven test is the
        same assertions as one written out)."""
        items = stmt.iter.elts if isinstance(stmt.iter, ast.List | ast.Tuple) else []
        bindings = [bind(stmt.target, item) for item in items[:50]]
        if not items or len(items) > 50 or any(b is None for b in bindings):
            return False
        saved = self.subst
        for binding in bindings:
            self.subst = {**saved, **(binding or {})}
            self.block(stmt.body, state, why)
        self.subst = saved
        return True

    def with_stmt(
        self, stmt: ast.With | ast.AsyncWith, state: str, why: str, text: _LazyText
    ) -> tuple[bool, str]:
        inner_state, inner_why, expects_raise = state, why, False
        body_text = _LazyText(stmt.body)
        for item in stmt.items:
            ctx = item.context_expr
            name = self.module.resolve(ctx) or ""
            raw = raises_check(self.module, ctx, body_text)
            if raw is not None:
                expects_raise = True
                self.finish(raw, state, why, stmt.lineno, text)
                if set(raw.excs) & BROAD and state == "live":
                    inner_state, inner_why = "swallowed", f"inside `{text}`"
            elif name.endswith("suppress") and isinstance(ctx, ast.Call):
                caught = {self.module.resolve(a) or "" for a in ctx.args}
                if {c.rsplit(".", 1)[-1] for c in caught} & BROAD and state == "live":
                    inner_state, inner_why = "swallowed", f"inside `{text}`"
        ends = self.block(stmt.body, inner_state, inner_why)
        return ends and not expects_raise, "after a `with` block that always ends the test"

    def try_stmt(self, stmt: ast.Try | ast.TryStar, state: str, why: str) -> tuple[bool, str]:
        body_state, body_why = state, why
        for handler in stmt.handlers:
            if state == "live" and _swallows(self.module, handler):
                caught = ast.unparse(handler.type) if handler.type else "everything"
                body_state = "swallowed"
                body_why = f"inside try/except {caught} that swallows the failure"
        if state == "live" and any(isinstance(s, ast.Return) for s in stmt.finalbody):
            body_state, body_why = "swallowed", "inside try/finally whose `return` swallows it"
        body_ends = self.block(stmt.body, body_state, body_why)
        for handler in stmt.handlers:
            self.block(handler.body, state, why)
        self.block(stmt.orelse, state, why)
        final_ends = self.block(stmt.finalbody, state, why)
        return final_ends or (body_ends and not stmt.handlers), "after try"


def is_data(node: ast.expr) -> bool:
    """A literal value (`3.0`, `("IV", 4)`, `{"a": 1}`): a module constant used as expected."""
    return all(
        isinstance(
            n,
            ast.Constant
            | ast.Tuple
            | ast.List
            | ast.Dict
            | ast.Set
            | ast.Load
            | ast.UnaryOp
            | ast.USub
            | ast.UAdd,
        )
        for n in ast.walk(node)
    )


def _helper_key(func: ast.expr) -> str:
    """`check` for check(...), `self.check` for self.check(...) / cls.check(...)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id in ("self", "cls"):
            return f"self.{func.attr}"
    return ""


def bind(target: ast.expr, value: ast.expr) -> dict[str, ast.expr] | None:
    """Names a loop or parametrize target takes from one literal element, or None."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) != len(value.elts):
            return None
        found: dict[str, ast.expr] = {}
        for sub_target, sub_value in zip(target.elts, value.elts, strict=True):
            sub = bind(sub_target, sub_value)
            if sub is None:
                return None
            found.update(sub)
        return found
    return None


def _swallows(module: PyModule, handler: ast.ExceptHandler) -> bool:
    """An except clause that catches assertion failures and does not fail the test itself."""
    if handler.type is None:
        caught = {"BaseException"}
    elif isinstance(handler.type, ast.Tuple):
        caught = {(module.resolve(e) or "").rsplit(".", 1)[-1] for e in handler.type.elts}
    else:
        caught = {(module.resolve(handler.type) or "").rsplit(".", 1)[-1]}
    if not caught & BROAD:
        return False
    for node in ast.walk(ast.Module(body=handler.body, type_ignores=[])):
        if isinstance(node, ast.Raise | ast.Assert):
            return False
        if isinstance(node, ast.Call):
            name = module.resolve(node.func) or ""
            if name.endswith(("fail", "pytest.fail")) or checks_from_call(module, node):
                return False
    return True


def _always_false_assert(stmt: ast.Assert) -> bool:
    return static_truth(stmt.test) is False


def extract_checks(
    func: FuncNode,
    module: PyModule,
    helpers: Mapping[str, FuncNode] | None = None,
    cases: list[dict[str, ast.expr]] | None = None,
) -> list[Check]:
    """Every check a test function makes, in order, with its state; once per parametrize
    case when `cases` binds the test's arguments."""
    checks: list[Check] = []
    data = {n: v for n, v in module.constants.items() if is_data(v)}
    local = single_assignments(func)
    for case in cases if cases is not None else [{}]:
        walker = _Walker(module, helpers or {}, {**data, **local, **case})
        walker.block(strip_docstring(func.body), "live")
        checks.extend(walker.checks)
    return checks
