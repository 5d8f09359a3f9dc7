"""`@pytest.mark.parametrize` cases: which were removed, changed or newly skipped.

Cases are compared by their values (ids and marks aside). A removed case whose inputs
reappear with a different expected value is a changed expectation; a removed case with no
counterpart is a deleted test; a case that gained a skip/xfail mark is a skip.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from interlock.audit.pyast import PyModule, PyTest
from interlock.audit.pyskip import mark_skip

_EXPECTED_NAME = re.compile(
    r"^(expected|expect|exp|want|wanted|result|results|output|out|"
    r"answer|target|golden|correct|truth|res|y|should)(_.*)?$|_expected$",
    re.I,
)


@dataclass(frozen=True)
class Case:
    """One parametrize case: its values as source text, and whether a mark skips it."""

    values: tuple[str, ...]
    skipped: bool
    line: int

    @property
    def text(self) -> str:
        return ", ".join(self.values)


@dataclass(frozen=True)
class Param:
    """One parametrize decorator: its argument names and cases (None when not literal)."""

    names: tuple[str, ...]
    cases: tuple[Case, ...] | None
    line: int


@dataclass(frozen=True)
class ParamChange:
    """What happened to the cases of one parametrize decorator."""

    kind: str  # "removed" | "changed" | "skipped"
    before: str
    after: str
    line: int


def _argnames(node: ast.expr) -> tuple[str, ...]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return tuple(n.strip() for n in node.value.split(",") if n.strip())
    if isinstance(node, ast.List | ast.Tuple):
        return tuple(
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        )
    return ()


def _case(module: PyModule, node: ast.expr, arity: int) -> Case:
    skipped = False
    if isinstance(node, ast.Call) and (module.resolve(node.func) or "").endswith("param"):
        for keyword in node.keywords:
            if keyword.arg == "marks":
                marks = (
                    keyword.value.elts
                    if isinstance(keyword.value, ast.List | ast.Tuple)
                    else [keyword.value]
                )
                skipped = any(
                    (s := mark_skip(module, m, "case")) is not None and s.effective for m in marks
                )
        elts = list(node.args)
    elif arity > 1 and isinstance(node, ast.Tuple | ast.List):
        elts = list(node.elts)
    else:
        elts = [node]
    return Case(tuple(ast.unparse(e) for e in elts), skipped, getattr(node, "lineno", 0))


def params_of(module: PyModule, test: PyTest) -> list[Param]:
    found = []
    for deco in test.node.decorator_list:
        if not isinstance(deco, ast.Call) or not (module.resolve(deco) or "").endswith(
            "parametrize"
        ):
            continue
        if len(deco.args) < 2:
            continue
        names = _argnames(deco.args[0])
        values = deco.args[1]
        if isinstance(values, ast.Name) and values.id in module.constants:
            values = module.constants[values.id]
        cases = None
        if isinstance(values, ast.List | ast.Tuple):
            cases = tuple(_case(module, v, len(names)) for v in values.elts)
        found.append(Param(names, cases, deco.lineno))
    return found


def _expected_positions(names: tuple[str, ...]) -> set[int]:
    marked = {i for i, n in enumerate(names) if _EXPECTED_NAME.search(n)}
    return marked or ({len(names) - 1} if len(names) > 1 else set())


def _inputs(case: Case, expected: set[int]) -> tuple[str, ...]:
    return tuple(v for i, v in enumerate(case.values) if i not in expected)


def compare_params(before: list[Param], after: list[Param]) -> list[ParamChange]:
    """Changes to cases of parametrize decorators matched by argument names."""
    changes: list[ParamChange] = []
    after_by_names = {p.names: p for p in after}
    for old in before:
        new = after_by_names.get(old.names)
        if old.cases is None:
            continue
        if new is None:
            if len(old.cases) > 1:
                changes.append(
                    ParamChange(
                        "removed",
                        f"parametrize({', '.join(old.names)}) with {len(old.cases)} cases",
                        "",
                        old.line,
                    )
                )
            continue
        if new.cases is None:
            continue
        changes.extend(_compare_cases(old, new))
    return changes


def _compare_cases(old: Param, new: Param) -> list[ParamChange]:
    assert old.cases is not None and new.cases is not None
    changes: list[ParamChange] = []
    remaining = list(new.cases)
    removed: list[Case] = []
    for case in old.cases:
        twin = next((c for c in remaining if c.values == case.values), None)
        if twin is None:
            removed.append(case)
            continue
        remaining.remove(twin)
        if twin.skipped and not case.skipped:
            changes.append(ParamChange("skipped", case.text, twin.text, twin.line))
    expected = _expected_positions(old.names)
    for case in removed:
        partner = next(
            (c for c in remaining if _inputs(c, expected) == _inputs(case, expected)), None
        )
        if partner is None and len(remaining) > 0 and len(new.cases) >= len(old.cases):
            partner = remaining[0]
        if partner is None:
            changes.append(ParamChange("removed", case.text, "", case.line))
            continue
        remaining.remove(partner)
        changes.append(ParamChange("changed", case.text, partner.text, partner.line))
    return changes


def case_bindings(
    module: PyModule, test: PyTest, limit: int = 64
) -> list[dict[str, ast.expr]] | None:
    """The argument values of each parametrize case that runs (cartesian product of stacked
    decorators), or None when the test is not parametrized with literal cases."""
    product: list[dict[str, ast.expr]] = [{}]
    found = False
    for deco in test.node.decorator_list:
        if not isinstance(deco, ast.Call) or not (module.resolve(deco) or "").endswith(
            "parametrize"
        ):
            continue
        if len(deco.args) < 2:
            return None
        names = _argnames(deco.args[0])
        values = deco.args[1]
        if isinstance(values, ast.Name) and values.id in module.constants:
            values = module.constants[values.id]
        if not names or not isinstance(values, ast.List | ast.Tuple):
            return None
        cases = []
        for node in values.elts:
            case = _case(module, node, len(names))
            if case.skipped:
                continue
            elts = _case_nodes(module, node, len(names))
            if len(elts) != len(names):
                return None
            cases.append(dict(zip(names, elts, strict=True)))
        product = [{**p, **c} for p in product for c in cases]
        found = True
        if len(product) > limit:
            return None
    return product if found else None


def _case_nodes(module: PyModule, node: ast.expr, arity: int) -> list[ast.expr]:
    if isinstance(node, ast.Call) and (module.resolve(node.func) or "").endswith("param"):
        return list(node.args)
    if arity > 1 and isinstance(node, ast.Tuple | ast.List):
        return list(node.elts)
    return [node]
