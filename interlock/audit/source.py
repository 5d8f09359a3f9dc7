"""Tricks that make a test compare against something other than the code: the subject of a test
mocked inside the test, and objects whose `__eq__` always says yes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from interlock.audit.pyast import FuncNode, PyModule, PyTest
from interlock.audit.pyeval import static_truth

_FAKE_ORIGIN = ("test", "mock", "fake", "stub", "conftest", "dummy")


@dataclass(frozen=True)
class Patch:
    """A replacement of a name during a test, e.g. `mocker.patch("cart.cart_total")`."""

    name: str
    line: int
    text: str

    @property
    def key(self) -> str:
        return f"{self.name}|{self.text}"


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _patch_target(module: PyModule, call: ast.Call) -> str | None:
    """The attribute name a patch/setattr call replaces, or None when it is not one."""
    name = module.resolve(call.func) or ""
    func = call.func
    method = func.attr if isinstance(func, ast.Attribute) else name
    args = call.args
    if name.endswith("patch.object") or (method == "object" and "patch" in name):
        return _str(args[1]) if len(args) >= 2 else None
    if method == "setattr":
        if len(args) >= 2 and _str(args[0]) is None and (attr := _str(args[1])) is not None:
            return attr
        dotted = _str(args[0]) if args else None
        return dotted.rsplit(".", 1)[-1] if dotted else None
    if method == "patch" or name.endswith(".patch"):
        target = (
            args[0] if args else next((k.value for k in call.keywords if k.arg == "target"), None)
        )
        dotted = _str(target)
        return dotted.rsplit(".", 1)[-1] if dotted else None
    return None


def patches_in(module: PyModule, func: FuncNode) -> list[Patch]:
    """Patches made by a function: decorators, patch/setattr calls, rebinding imported names."""
    found: list[Patch] = []
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and (target := _patch_target(module, deco)) is not None:
            found.append(Patch(target, deco.lineno, ast.unparse(deco)[:100]))
    local_imports = set(module.imports)
    for node in ast.walk(ast.Module(body=func.body, type_ignores=[])):
        if isinstance(node, ast.Call) and (target := _patch_target(module, node)) is not None:
            found.append(Patch(target, node.lineno, ast.unparse(node)[:100]))
        elif isinstance(node, ast.Assign):
            for tgt in node.targets:
                if (
                    isinstance(tgt, ast.Attribute)
                    and isinstance(tgt.value, ast.Name)
                    and (tgt.value.id in local_imports)
                ):
                    found.append(Patch(tgt.attr, node.lineno, ast.unparse(node)[:100]))
                elif isinstance(tgt, ast.Name) and tgt.id in local_imports:
                    found.append(Patch(tgt.id, node.lineno, ast.unparse(node)[:100]))
    return found


def subject_names(module: PyModule, func: FuncNode) -> set[str]:
    """Names of the functions a test checks: those called inside its assertions."""
    names: set[str] = set()
    for node in ast.walk(ast.Module(body=func.body, type_ignores=[])):
        exprs: list[ast.expr] = []
        if isinstance(node, ast.Assert):
            exprs = [node.test]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr.startswith("assert"))
        ):
            exprs = list(node.args)
        for expr in exprs:
            for sub in ast.walk(expr):
                if isinstance(sub, ast.Call):
                    if isinstance(sub.func, ast.Name):
                        names.add(sub.func.id)
                    elif isinstance(sub.func, ast.Attribute):
                        names.add(sub.func.attr)
    return names - {
        "len",
        "str",
        "int",
        "float",
        "list",
        "dict",
        "set",
        "tuple",
        "sorted",
        "isinstance",
        "approx",
        "round",
        "abs",
        "any",
        "all",
        "bool",
        "repr",
    }


def test_patches(module: PyModule, test: PyTest) -> list[Patch]:
    """Patches applying to a test: its own and those of fixtures it requests."""
    found = patches_in(module, test.node)
    wanted = {a.arg for a in test.node.args.args}
    for name, fixture in module.fixtures.items():
        if name in wanted:
            found.extend(patches_in(module, fixture))
    return found


def module_shadows(before: PyModule | None, after: PyModule) -> Iterator[tuple[str, int, str]]:
    """Names the module imported from the code that it now defines itself (or imports from a
    test double): (name, line, how)."""
    if before is None:
        return
    for name, origin in before.imports.items():
        if "." not in origin:
            continue
        if name in after.functions and name not in after.imports:
            func = after.functions[name]
            yield name, func.lineno, f"`{name}` imported from {origin} is now defined in the test"
        elif name in after.constants and name not in after.imports:
            yield name, 0, f"`{name}` imported from {origin} is now assigned in the test module"
        elif (
            (new := after.imports.get(name))
            and new != origin
            and any(word in new.lower() for word in _FAKE_ORIGIN)
        ):
            yield name, 0, f"`{name}` is now imported from {new} instead of {origin}"


def _always(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, value: bool) -> bool:
    if isinstance(func, ast.Lambda):
        return static_truth(func.body) is value
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return)]
    if not returns:
        return False
    return all(r.value is not None and static_truth(r.value) is value for r in returns)


def always_equal_classes(module: PyModule) -> Iterator[tuple[str, str, int]]:
    """Classes whose __eq__ always returns True (or __ne__ always False): (class, method, line)."""
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                method, func = stmt.name, stmt
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
                names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
                if not names:
                    continue
                method, func = names[0], stmt.value
            else:
                continue
            if method == "__eq__" and _always(func, True):
                yield node.name, method, stmt.lineno
            elif method == "__ne__" and _always(func, False):
                yield node.name, method, stmt.lineno
