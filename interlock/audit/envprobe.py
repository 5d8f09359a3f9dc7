"""Code under test that detects the test environment: a green from tests it can see coming
proves nothing about how it behaves anywhere else.

A *probe* is an expression that asks "am I being tested?":
- a test runner's variables: `os.environ["PYTEST_CURRENT_TEST"]`, `os.getenv("PYTEST_VERSION")`,
  `"TOX_ENV_NAME" in os.environ`, JEST_WORKER_ID, VITEST, NOX_CURRENT_SESSION, `TESTING`-style
  names;
- the runner's modules: `"pytest" in sys.modules`, `sys.modules.get("_pytest")`;
- the command line: `"pytest" in sys.argv[0]`, `"test" in sys.argv`, `sys._called_from_test`;
- the call stack: `inspect.stack()` / `traceback.extract_stack()` searched for "test";
- CI variables (`CI`, `GITHUB_ACTIONS`, `GITLAB_CI`, ...): code that behaves differently in CI.

Names assigned from a probe, and functions that return one, are probes too. A probe counts as
*deciding* when it is the condition of an `if`, a conditional expression, a `while` or a
boolean operand of a `return`. `probes()` lists them per file; the audit reports the ones a run
added to code under test.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

_RUNNER_VAR = re.compile(
    r"^(PYTEST|_PYTEST|TOX|NOX|JEST|VITEST|MOCHA|UNITTEST|NOSE|HYPOTHESIS|DJANGO_TEST)(_\w+)?$|"
    r"^(IS_|IN_|RUNNING_|UNDER_)?(TESTS?|TESTING|TEST_?MODE|TEST_?ENV|UNIT_?TESTS?|"
    r"RUNNING_?TESTS?|IN_?TESTS?)$",
    re.I,
)
_CI_VAR = re.compile(
    r"^(CI|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS|GITLAB_CI|TRAVIS|CIRCLECI|BUILDKITE|"
    r"JENKINS_URL|JENKINS_HOME|TF_BUILD|TEAMCITY_VERSION|BITBUCKET_BUILD_NUMBER|"
    r"CODEBUILD_BUILD_ID|DRONE|APPVEYOR|SEMAPHORE|BUILD_ID|GITHUB_RUN_ID|CI_NAME)$"
)
_RUNNER_MODULES = frozenset(
    ("pytest", "_pytest", "unittest", "nose", "nose2", "doctest", "py.test")
)
_RUNNER_WORDS = re.compile(r"pytest|py\.test|unittest|nose|\btest\b|tox|manage\.py test", re.I)
_STACK_CALLS = frozenset(
    (
        "inspect.stack",
        "inspect.getouterframes",
        "inspect.currentframe",
        "traceback.extract_stack",
        "traceback.format_stack",
        "sys._getframe",
    )
)


@dataclass(frozen=True)
class Probe:
    """One place a file asks whether it is tested: `what` it reads, `ci` for CI variables,
    `deciding` when it picks a branch or a return value, the enclosing function."""

    what: str
    ci: bool
    deciding: bool
    line: int
    function: str
    changes_result: bool = False  # it picks a returned value or a branch that returns/raises

    @property
    def key(self) -> str:
        return f"{self.function}|{self.what}|{self.deciding}"


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, AttributeError, RecursionError):  # pragma: no cover - odd ASTs
        return ""


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _env_name(node: ast.AST) -> str | None:
    """The variable an expression reads from the environment, if it reads one."""
    if isinstance(node, ast.Subscript) and _dotted(node.value).endswith("environ"):
        return _string(node.slice)
    if isinstance(node, ast.Call):
        func = _dotted(node.func)
        if func.endswith(("environ.get", "getenv", "environ.__contains__", "environ.pop")):
            return _string(node.args[0]) if node.args else None
    if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
        if any(_dotted(c).endswith("environ") for c in node.comparators):
            return _string(node.left)
    return None


def _direct(node: ast.AST) -> tuple[str, bool] | None:
    """(what, is-ci) when `node` itself is a probe."""
    name = _env_name(node)
    if name is not None:
        if _RUNNER_VAR.match(name):
            return f"the {name} variable", False
        if _CI_VAR.match(name):
            return f"the {name} variable", True
        return None
    text = _dotted(node)
    if isinstance(node, ast.Compare | ast.Call | ast.Subscript) and "sys.modules" in text:
        if any(_string(n) in _RUNNER_MODULES for n in ast.walk(node)):
            return "sys.modules for the test runner", False
    if isinstance(node, ast.Compare | ast.Call) and "sys.argv" in text:
        if any(_RUNNER_WORDS.search(_string(n) or "") for n in ast.walk(node)):
            return "sys.argv for the test runner", False
    if "_called_from_test" in text and isinstance(node, ast.Attribute | ast.Call | ast.Compare):
        return "sys._called_from_test", False
    if isinstance(node, ast.Call | ast.Compare | ast.comprehension | ast.GeneratorExp):
        calls = {_dotted(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
        if calls & _STACK_CALLS and any("test" in (_string(n) or "") for n in ast.walk(node)):
            return "the call stack for test frames", False
    return None


class _Scan(ast.NodeVisitor):
    def __init__(self) -> None:
        self.tainted: dict[str, tuple[str, bool]] = {}  # name -> (what, ci)
        self.found: list[Probe] = []
        self.function = "<module>"

    def probe_in(self, node: ast.AST) -> tuple[str, bool] | None:
        for sub in ast.walk(node):
            direct = _direct(sub)
            if direct is not None:
                return direct
            if isinstance(sub, ast.Name) and sub.id in self.tainted:
                return self.tainted[sub.id]
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                if sub.func.id in self.tainted:
                    return self.tainted[sub.func.id]
        return None

    def record(self, node: ast.AST, deciding: bool, result: bool = False) -> None:
        found = self.probe_in(node)
        if found is not None:
            line = getattr(node, "lineno", 0)
            self.found.append(Probe(found[0], found[1], deciding, line, self.function, result))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        saved, self.function = self.function, node.name
        returns = [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value]
        for value in returns:
            found = self.probe_in(value)
            if found is not None:
                self.tainted[node.name] = found  # a function that answers "are we tested?"
        self.generic_visit(node)
        self.function = saved

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 (ast.NodeVisitor naming)

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        found = self.probe_in(node.value) if node.value is not None else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and found is not None:
                self.tainted[target.id] = found
        if found is not None:
            self.record(node.value, deciding=False)  # type: ignore[arg-type]
        self.generic_visit(node)

    visit_AnnAssign = visit_Assign  # noqa: N815

    def visit_If(self, node: ast.If | ast.While | ast.IfExp) -> None:
        if isinstance(node, ast.IfExp):
            result = True
        elif isinstance(node, ast.If):
            branches = ast.Module(body=node.body + node.orelse, type_ignores=[])
            result = any(isinstance(n, ast.Return | ast.Raise) for n in ast.walk(branches))
        else:
            result = False
        self.record(node.test, deciding=True, result=result)
        self.generic_visit(node)

    visit_While = visit_If  # noqa: N815
    visit_IfExp = visit_If  # noqa: N815

    def visit_Return(self, node: ast.Return) -> None:
        if isinstance(node.value, ast.BoolOp | ast.Compare | ast.UnaryOp):
            self.record(node.value, deciding=True, result=True)
        self.generic_visit(node)


def probes(tree: ast.Module) -> list[Probe]:
    """Every probe of the test environment in a module, in order (two passes, so a name
    tainted after its use in a function body is seen)."""
    first = _Scan()
    first.visit(tree)
    scan = _Scan()
    scan.tainted = dict(first.tainted)
    scan.visit(tree)
    return scan.found


def new_probes(before: ast.Module | None, after: ast.Module) -> Iterator[Probe]:
    """Probes in `after` that `before` did not have (counted per function and kind)."""
    old: dict[str, int] = {}
    for probe in probes(before) if before is not None else []:
        old[probe.key] = old.get(probe.key, 0) + 1
    for probe in probes(after):
        if old.get(probe.key, 0) > 0:
            old[probe.key] -= 1
            continue
        yield probe
