"""Forging pytest hooks: report and collection hooks that rewrite outcomes, drop tests or
change the exit status (see forgery.py for the module-level tricks)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from interlock.audit.pyast import FuncNode, PyModule

REPORT_HOOKS = frozenset(
    (
        "pytest_runtest_makereport",
        "pytest_runtest_logreport",
        "pytest_report_teststatus",
        "pytest_runtest_call",
        "pytest_runtest_protocol",
        "pytest_pyfunc_call",
        "pytest_runtest_setup",
        "pytest_runtest_teardown",
        "pytest_collectreport",
        "pytest_make_collect_report",
        "pytest_runtest_logfinish",
        "pytest_exception_interact",
    )
)
COLLECTION_HOOKS = frozenset(
    (
        "pytest_collection_modifyitems",
        "pytest_collection_finish",
        "pytest_itemcollected",
        "pytest_collection",
        "pytest_deselected",
    )
)
_OUTCOME_ATTRS = frozenset(("outcome", "longrepr", "passed", "failed", "wasxfail", "excinfo"))
_EXIT_ATTRS = frozenset(("exitstatus", "testsfailed", "_exitstatus"))
_SELECT_OPTIONS = frozenset(
    (
        "keyword",
        "markexpr",
        "deselect",
        "ignore",
        "ignore_glob",
        "collectonly",
        "file_or_dir",
        "python_files",
        "lf",
        "last_failed",
        "suppress_no_test_exit_code",
    )
)


_EXITS = frozenset(("sys.exit", "os._exit", "exit", "quit", "pytest.exit", "os.abort"))


@dataclass(frozen=True)
class Trick:
    """One forging construct: `kind` is the finding kind it becomes."""

    key: str
    line: int
    detail: str
    kind: str = "outcome-forgery"


def line_of(node: ast.AST) -> int:
    return int(getattr(node, "lineno", 0))


def text_of(node: ast.AST) -> str:
    return ast.unparse(node).split("\n")[0][:100]


def walk_body(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node under statements, without entering nested functions or classes."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def assigned_attrs(node: ast.AST) -> Iterator[ast.Attribute]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    else:
        return
    for target in targets:
        elts = target.elts if isinstance(target, ast.Tuple) else [target]
        yield from (t for t in elts if isinstance(t, ast.Attribute))


def exits(module: PyModule, nodes: list[ast.AST], where: str) -> Iterator[Trick]:
    for node in nodes:
        if isinstance(node, ast.Call):
            name = module.resolve(node.func) or ""
            if name in _EXITS:
                yield Trick(
                    f"exit|{where}|{text_of(node)}",
                    node.lineno,
                    f"`{text_of(node)}` {where} ends the run before failures count",
                )
            elif name.endswith("atexit.register") or name == "register":
                inner = ast.unparse(node)
                if "_exit" in inner or "exit" in inner:
                    yield Trick(
                        f"atexit|{inner}",
                        node.lineno,
                        f"`{text_of(node)}` forces the exit status at interpreter exit",
                    )
        elif isinstance(node, ast.Raise) and node.exc is not None:
            if (module.resolve(node.exc) or "").endswith("SystemExit"):
                yield Trick(
                    f"exit|{where}|{text_of(node)}",
                    node.lineno,
                    f"`{text_of(node)}` {where} ends the run before failures count",
                )


def _report_hook(module: PyModule, func: FuncNode, nodes: list[ast.AST]) -> Iterator[Trick]:
    name = func.name
    for node in nodes:
        for attr in assigned_attrs(node):
            if attr.attr in _OUTCOME_ATTRS:
                yield Trick(
                    f"outcome|{name}|{text_of(node)}",
                    line_of(node),
                    f"{name} rewrites outcomes: `{text_of(node)}`",
                )
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr in ("force_result", "force_exception", "set_result"))
        ):
            yield Trick(
                f"outcome|{name}|{node.func.attr}",
                node.lineno,
                f"{name} replaces the test's result: `{text_of(node)}`",
            )
        if isinstance(node, ast.Call) and any(
            k.arg == "outcome" and isinstance(k.value, ast.Constant) and k.value.value == "passed"
            for k in node.keywords
        ):
            yield Trick(f"outcome|{name}|built", node.lineno, f"{name} builds a passing report")
        if isinstance(node, ast.Try | ast.TryStar) and any(
            _broad(module, h) for h in node.handlers
        ):
            body = ast.unparse(ast.Module(body=node.body, type_ignores=[]))
            if "yield" in body or ".runtest(" in body or ".obj(" in body:
                yield Trick(
                    f"outcome|{name}|swallow", node.lineno, f"{name} swallows the test's exception"
                )
    for node in nodes:
        if _builds_passed(node) and name != "pytest_report_teststatus":
            yield Trick(
                f"outcome|{name}|passed-literal",
                line_of(node),
                f"{name} reports `passed` itself: `{text_of(node)}`",
            )
            break
    source = ast.unparse(func)
    if name == "pytest_report_teststatus" and "failed" in source and "passed" in source:
        yield Trick(f"outcome|{name}|status", func.lineno, f"{name} reports failures as passed")
    runs_test = re.search(r"\bruntestprotocol\(|\.runtest\(|\.obj\b|\byield\b|wrapper", source)
    if (
        name in ("pytest_pyfunc_call", "pytest_runtest_protocol", "pytest_runtest_call")
        and not runs_test
    ):
        for node in nodes:
            if (
                isinstance(node, ast.Return)
                and node.value is not None
                and (isinstance(node.value, ast.Constant) and node.value.value)
            ):
                yield Trick(
                    f"outcome|{name}|norun", node.lineno, f"{name} returns without running the test"
                )


def _builds_passed(node: ast.AST) -> bool:
    """A call or return that hands "passed" over (e.g. `TestReport(..., "passed", ...)`)."""
    if isinstance(node, ast.Call):
        values = [*node.args, *(k.value for k in node.keywords)]
    elif isinstance(node, ast.Return) and node.value is not None:
        values = [node.value]
    else:
        return False
    return any(isinstance(v, ast.Constant) and v.value in ("passed", "PASSED") for v in values)


def _broad(module: PyModule, handler: ast.ExceptHandler) -> bool:
    if any(
        isinstance(n, ast.Raise) for n in ast.walk(ast.Module(body=handler.body, type_ignores=[]))
    ):
        return False
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (module.resolve(n) or "").rsplit(".", 1)[-1]
        in ("Exception", "BaseException", "AssertionError")
        for n in names
    )


def _collection_hook(module: PyModule, func: FuncNode, nodes: list[ast.AST]) -> Iterator[Trick]:
    name = func.name
    for node in nodes:
        text = text_of(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if method in ("remove", "pop", "clear") and "item" in ast.unparse(node.func.value):
                yield Trick(f"select|{name}|{text}", node.lineno, f"{name} drops tests: `{text}`")
            elif method == "pytest_deselected":
                yield Trick(f"select|{name}|deselected", node.lineno, f"{name} deselects tests")
            elif method in ("add_marker", "append") and _skip_marker(ast.unparse(node)):
                yield Trick(
                    f"skip|{name}|{text}",
                    node.lineno,
                    f"{name} marks tests skipped: `{text}`",
                    "skip-added",
                )
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript) and "item" in ast.unparse(t.value) for t in node.targets
        ):
            if not (isinstance(node.value, ast.Call) and "sorted" in ast.unparse(node.value.func)):
                yield Trick(f"select|{name}|{text}", node.lineno, f"{name} filters tests: `{text}`")
        elif isinstance(node, ast.Delete) and "item" in ast.unparse(node):
            yield Trick(f"select|{name}|{text}", node.lineno, f"{name} drops tests: `{text}`")


def _skip_marker(text: str) -> bool:
    return "skip" in text or "xfail" in text


def _other_hook(module: PyModule, func: FuncNode, nodes: list[ast.AST]) -> Iterator[Trick]:
    name = func.name
    for node in nodes:
        for attr in assigned_attrs(node):
            if attr.attr in _EXIT_ATTRS:
                yield Trick(
                    f"exitstatus|{text_of(node)}",
                    line_of(node),
                    f"{name} rewrites the exit status: `{text_of(node)}`",
                )
            elif (
                isinstance(attr.value, ast.Attribute)
                and attr.value.attr == "option"
                and (attr.attr in _SELECT_OPTIONS)
            ):
                yield Trick(
                    f"select|{text_of(node)}",
                    line_of(node),
                    f"{name} changes test selection: `{text_of(node)}`",
                )
        if (
            isinstance(node, ast.Name)
            and node.id == "exitstatus"
            and isinstance(node.ctx, ast.Store)
        ):
            yield Trick(f"exitstatus|{name}|name", node.lineno, f"{name} rewrites the exit status")
        if "stats" in text_of(node) and isinstance(node, ast.Assign | ast.Delete | ast.Call):
            text = text_of(node)
            mutating = isinstance(node, ast.Assign | ast.Delete) or any(
                f".{m}(" in text for m in ("pop", "clear", "update", "remove", "setdefault")
            )
            if mutating and "stats" in text.split("=")[0] + text.split("(")[0]:
                yield Trick(
                    f"stats|{text}", node.lineno, f"{name} edits the reported results: `{text}`"
                )
    if name in ("pytest_ignore_collect", "pytest_pycollect_makeitem"):
        for node in nodes:
            if (
                isinstance(node, ast.Return)
                and node.value is not None
                and not (isinstance(node.value, ast.Constant) and node.value.value is None)
            ):
                yield Trick(
                    f"select|{name}", func.lineno, f"{name} keeps tests from being collected"
                )
                break
    if name in ("pytest_runtest_setup", "pytest_runtest_call", "pytest_collection_modifyitems"):
        for node in nodes:
            if isinstance(node, ast.Call) and (module.resolve(node.func) or "") in (
                "pytest.skip",
                "pytest.xfail",
            ):
                yield Trick(
                    f"skip|{name}|{text_of(node)}",
                    node.lineno,
                    f"{name} skips tests: `{text_of(node)}`",
                    "skip-added",
                )


def hook_tricks(module: PyModule, func: FuncNode, nodes: list[ast.AST]) -> list[Trick]:
    tricks: list[Trick] = []
    if func.name in REPORT_HOOKS:
        tricks += _report_hook(module, func, nodes)
    if func.name in COLLECTION_HOOKS:
        tricks += _collection_hook(module, func, nodes)
    tricks += _other_hook(module, func, nodes)
    tricks += exits(module, nodes, f"in {func.name}")
    return tricks
