"""Rewriting names in expressions without copying whole trees.

`substitute()` replaces local names with the values they were assigned (`r = f(4); r == "IV"`
is `f(4) == "IV"`), `qualify()` spells imported names out (`total` from `from app import
total` is `app.total`). Both rebuild only the nodes on the path to a replaced name.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping

from interlock.audit.pyast import FuncNode

Replace = Callable[[ast.Name], "ast.expr | None"]


def map_names(node: ast.AST, replace: Replace) -> ast.AST:
    """node with each loaded Name for which replace() gives a value swapped for it."""
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load):
            new = replace(node)
            if new is not None:
                return new
        return node
    changed: dict[str, ast.AST | list[object]] = {}
    for name, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            new_value = map_names(value, replace)
            if new_value is not value:
                changed[name] = new_value
        elif isinstance(value, list) and any(isinstance(v, ast.AST) for v in value):
            new_list = [map_names(v, replace) if isinstance(v, ast.AST) else v for v in value]
            if any(a is not b for a, b in zip(new_list, value, strict=True)):
                changed[name] = new_list
    if not changed:
        return node
    clone = copy.copy(node)
    for name, replaced in changed.items():
        setattr(clone, name, replaced)
    return clone


def substitute(
    node: ast.expr | None, mapping: Mapping[str, ast.expr], depth: int = 0
) -> ast.expr | None:
    """Local names replaced by their single assigned value (values substituted up to depth 3)."""
    if node is None or not mapping or depth > 3:
        return node

    def replace(name: ast.Name) -> ast.expr | None:
        value = mapping.get(name.id)
        return substitute(value, mapping, depth + 1) if value is not None else None

    result = map_names(node, replace)
    return result if isinstance(result, ast.expr) else node


def bind_call(func: FuncNode, call: ast.Call, bound_self: bool = False) -> dict[str, ast.expr]:
    """Parameter name -> argument expression for a call (defaults filled in)."""
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    defaults = dict(
        zip(params[len(params) - len(func.args.defaults) :], func.args.defaults, strict=True)
    )
    if bound_self:
        params = params[1:]
    mapping: dict[str, ast.expr] = dict(defaults)
    mapping.update(zip(params, call.args, strict=False))
    mapping.update({k.arg: k.value for k in call.keywords if k.arg})
    return mapping


def returned_value(func: FuncNode) -> ast.expr | None:
    """X when a function's body is just `return X` (after a docstring)."""
    body = [
        s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


def inline_calls(
    node: ast.expr | None, helpers: Mapping[str, FuncNode], depth: int = 0
) -> ast.expr | None:
    """Calls to one-line helpers (`make_lines()` whose body is `return [...]`) replaced by
    what they return, arguments bound: building test data in a helper is the same data."""
    if node is None or not helpers or depth > 2:
        return node

    class _Inline(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call) -> ast.AST:
            self.generic_visit(call)
            func = helpers.get(call.func.id) if isinstance(call.func, ast.Name) else None
            value = returned_value(func) if func is not None else None
            if func is None or value is None:
                return call
            mapping = bind_call(func, call)
            return inline_calls(substitute(value, mapping), helpers, depth + 1) or call

    if not any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers
        for n in ast.walk(node)
    ):
        return node
    result = _Inline().visit(copy.deepcopy(node))
    return result if isinstance(result, ast.expr) else node


def _dotted(dotted: str) -> ast.expr:
    parts = dotted.split(".")
    expr: ast.expr = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        expr = ast.Attribute(expr, part, ast.Load())
    return expr


def qualify(node: ast.expr | None, imports: Mapping[str, str]) -> str:
    """Source text of node with imported names spelled out in full."""
    if node is None:
        return ""

    def replace(name: ast.Name) -> ast.expr | None:
        dotted = imports.get(name.id)
        return _dotted(dotted) if dotted and dotted != name.id else None

    return ast.unparse(map_names(node, replace))


def single_assignments(func: FuncNode) -> dict[str, ast.expr]:
    """Local names assigned exactly once by a plain `name = value` in the function."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                values[target.id] = node.value
        stack.extend(ast.iter_child_nodes(node))
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def fixture_value(func: FuncNode) -> ast.expr | None:
    """What a fixture provides: its final `return X` or `yield X`, locals substituted."""
    value: ast.expr | None = None
    for stmt in func.body:
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            value = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield) and stmt.value.value:
            value = stmt.value.value
    return substitute(value, single_assignments(func)) if value is not None else None
