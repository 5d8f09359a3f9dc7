"""Check scripts written during the run that the test runner does not collect.

A `verify_fix.py` that asserts and prints "OK", a `check_cart.py`, a `validate.sh` running
one hand-picked case: passing them proves only what their author chose to check. A new file
is such a script when the runner would not collect it and either its name says it checks
(check/verify/validate/sanity/smoke/repro/test...) or it is a Python script whose top-level
code asserts or reports a verdict. New modules that other changed code imports are not
scripts, and neither are well-known project files (setup.py, noxfile.py, conftest.py, ...).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Sequence

from interlock.audit.cmdline import analyze_command
from interlock.audit.paths import base, ext, is_test_file

_NAME = re.compile(
    r"(^|[_\-.])(check|checks|verify|verification|validate|validation|sanity|smoke|"
    r"prove|proof|confirm|selftest|self_test|repro|reproduce|run_?tests?|"
    r"runtests|quick_?test|manual_?test|test|tests|try_fix|demo)([_\-.]|$)",
    re.I,
)
_KNOWN = frozenset(
    (
        "setup.py",
        "noxfile.py",
        "conftest.py",
        "__init__.py",
        "__main__.py",
        "manage.py",
        "fabfile.py",
        "tasks.py",
        "conf.py",
        "wsgi.py",
        "asgi.py",
        "sitecustomize.py",
        "usercustomize.py",
        "dodo.py",
    )
)
_SCRIPT_EXTS = frozenset((".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ""))
_VERDICT = re.compile(r"\b(pass(ed)?|ok|fail(ed|ure)?|success|all good|verified|works)\b", re.I)


def _top_level_verdict(tree: ast.Module) -> bool:
    """Top-level code (outside defs, including `if __name__ == "__main__"`) that asserts, or
    prints a verdict in a file that asserts or exits on a comparison."""
    defs = [s for s in tree.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    asserting = {d.name for d in defs if any(isinstance(n, ast.Assert) for n in ast.walk(d))}
    any_assert = any(isinstance(n, ast.Assert) for n in ast.walk(tree))
    stack: list[ast.AST] = [
        s for s in tree.body if s not in defs and not isinstance(s, ast.ClassDef)
    ]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if func in asserting:
                return True
            if func == "print" and _VERDICT.search(ast.unparse(node)) and any_assert:
                return True
            if func in ("sys.exit", "exit") and any(
                isinstance(a, ast.IfExp | ast.Compare | ast.BoolOp) for a in node.args
            ):
                return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _reports_verdict(tree: ast.Module) -> bool:
    """Top-level code that prints PASS/OK/FAIL or exits with a computed status."""
    top = [
        s
        for s in tree.body
        if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    for node in ast.walk(ast.Module(body=top, type_ignores=[])):
        if isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if func == "print" and _VERDICT.search(ast.unparse(node)):
                return True
            if (
                func in ("sys.exit", "exit")
                and node.args
                and not isinstance(node.args[0], ast.Constant)
            ):
                return True
    return False


def self_made_check(
    path: str, data: bytes, python_files: Sequence[str], imported: Collection[str]
) -> str | None:
    """Why a new file is a self-made check script, or None."""
    name = base(path)
    suffix = ext(path)
    if name in _KNOWN or suffix not in _SCRIPT_EXTS or is_test_file(path, python_files):
        return None
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem in imported or path.startswith(("node_modules/", ".venv/", "venv/")):
        return None
    text = data.decode("utf-8", errors="replace")
    named = bool(_NAME.search(stem))
    if suffix == ".py":
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            return None
        if _top_level_verdict(tree):
            return f"new script {path} asserts at top level: its pass proves only what it chose to check"
        has_tests = any(
            isinstance(n, ast.FunctionDef) and n.name.startswith("test") for n in tree.body
        )
        asserts = any(isinstance(n, ast.Assert) for n in ast.walk(tree))
        if named and (has_tests or asserts or _reports_verdict(tree)):
            return f"new check script {path} is not collected by the test runner"
        return None
    if suffix in ("", ".sh", ".bash", ".zsh"):
        if not (text.startswith("#!") or suffix):
            return None
        if named or analyze_command(text).validators:
            return f"new check script {path} is not a test of the project"
        return None
    if (
        named
        and re.search(r"\b(assert|expect)\s*[.(]", text)
        and not re.search(r"\b(describe|it|test)\s*\(", text)
    ):
        return f"new check script {path} is not collected by the test runner"
    return None
