"""Choosing and ordering a mutant's tests, and checking that a copy really runs its own code."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path, PurePosixPath

import tree


def import_time_lines(source: str) -> set[int]:
    """Lines that run when the module is imported: everything outside a function body
    (module and class level, decorators, default values, the `def` lines themselves)."""
    tree_ = ast.parse(source)
    total = len(source.splitlines())
    inside: set[int] = set()
    for node in ast.walk(tree_):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0].lineno
            inside.update(range(first, (node.end_lineno or first) + 1))
    return set(range(1, total + 1)) - inside


def _rank(module: str, test: str) -> int:
    """0: the module's own test file (test_<stem>.py); 1: a test file in the mirrored folder
    (tests/memory/ for interlock/memory/...); 2: any other."""
    mod = PurePosixPath(module)
    path = PurePosixPath(test.split("::")[0])
    if path.name == f"test_{mod.stem}.py":
        return 0
    if path.parent.parts[1:] == mod.parent.parts[1:]:
        return 1
    return 2


def order_tests(module: str, tests: set[str], durations: dict[str, float]) -> list[str]:
    """The likeliest killers first: the module's own tests, then its folder's, then the rest;
    the quickest first within each group."""
    return sorted(tests, key=lambda t: (_rank(module, t), durations.get(t, 1.0), t))


def preflight(copy: Path, module: str) -> None:
    """A process started the way the tests start one must import the copy's modules, not the
    worktree's (the editable install points there), or no mutant would ever be seen."""
    dotted = module.removesuffix(".py").replace("/", ".")
    code = f"import json, {dotted} as m; print(json.dumps(m.__file__))"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd="/",
        env=tree.run_env(copy),
        capture_output=True,
        text=True,
    )
    seen = json.loads(proc.stdout) if proc.returncode == 0 else proc.stderr
    if seen != str(copy / module):
        raise SystemExit(f"mutation: a test process would import {seen}, not {copy / module}")
