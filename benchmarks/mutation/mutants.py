"""The mutants of one module: small `ast`-level changes, each spliced into the source text.

A mutant replaces one node's text (an expression, an operator, a statement) and nothing else,
so every other byte of the module stays as it was and line numbers do not move (a replacement
spanning several lines is padded with newlines). Each mutant is checked twice before it is
offered: the mutated text must parse, and its AST must differ from the original's, so a
mutant that changes nothing cannot be counted as "survived".

Operators (the `operator` field):
- compare: `==`/`!=`, `<`/`>=`, `<=`/`>`, `in`/`not in`, `is`/`is not` flipped
- boundary: `<` -> `<=`, `<=` -> `<`, `>` -> `>=`, `>=` -> `>`
- boolop: `and` <-> `or`
- bool: `True` <-> `False`
- number: an integer constant +1 and -1
- not: a `not` dropped
- condition: an `if`/`while`/conditional-expression/comprehension test that is neither a
  comparison nor a `not` negated
- statement: a statement of an `if`/`else` body or an `except` body replaced by `pass`
- call: a call statement (`notes.append(...)`) or augmented assignment replaced by `pass`
- loopctl: `continue`/`break` replaced by `pass`
- return: `return X` -> `return None`; in a function annotated `-> bool`, `return not (X)`
- string: a string compared with `==`/`in`/`startswith`... emptied (or made non-empty)
- binop: `+`/`-`, `*`/`//`, `|`/`&`, `<<`/`>>` swapped (also in `+=`...)
- builtin: `any`/`all`, `min`/`max` swapped

Not mutated: docstrings, annotations, `if TYPE_CHECKING:` blocks, f-strings (their parts
carry unreliable positions on Python 3.11), and `from __future__` lines.
"""

from __future__ import annotations

import ast
import copy
import hashlib
from dataclasses import dataclass

_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BOUNDARY: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
}
_BINOP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}
_BUILTIN_SWAP = {"any": "all", "all": "any", "min": "max", "max": "min"}
_STRING_METHODS = frozenset({"startswith", "endswith", "removeprefix", "removesuffix"})


@dataclass(frozen=True)
class Mutant:
    """One change to one module. `key` names it without line numbers (they move when code
    above changes): module, enclosing function, the original and replacement text, and the
    occurrence among identical changes in that function."""

    module: str
    operator: str
    function: str
    line: int
    col: int
    end_line: int
    end_col: int
    original: str
    replacement: str
    text: str  # what is spliced in (the replacement, parenthesised and padded as needed)
    occurrence: int = 1

    @property
    def key(self) -> str:
        return (
            f"{self.module}::{self.function}::{self.original} => {self.replacement}"
            f"#{self.occurrence}"
        )

    @property
    def id(self) -> str:
        return hashlib.sha1(self.key.encode()).hexdigest()[:8]

    @property
    def lines(self) -> range:
        return range(self.line, self.end_line + 1)

    def describe(self) -> str:
        return f"[{self.operator}] `{self.original}` -> `{self.replacement}` (in {self.function})"


def _one_line(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


class _Finder(ast.NodeVisitor):
    """Walks a module and proposes (node, operator, replacement node or text) triples."""

    def __init__(self) -> None:
        # node, operator, function, original and replacement as shown, text spliced in
        self.found: list[tuple[ast.expr | ast.stmt, str, str, str, str, str]] = []
        self.scope: list[str] = []
        self.returns_bool: list[bool] = []
        self.parents: list[ast.AST] = []

    def visit(self, node: ast.AST) -> None:
        self.parents.append(node)
        try:
            super().visit(node)
        finally:
            self.parents.pop()

    # --- helpers -------------------------------------------------------------------------

    @property
    def function(self) -> str:
        return ".".join(self.scope) or "<module>"

    def propose(self, node: ast.expr | ast.stmt, operator: str, new: ast.AST | str) -> None:
        replacement = new if isinstance(new, str) else _one_line(new)
        shown = (_one_line(node), replacement)
        if operator in _SHOWN_IN_CONTEXT:
            shown = self.in_context(node, ast.Name(new) if isinstance(new, str) else new)
        self.found.append((node, operator, self.function, *shown, replacement))

    def in_context(self, node: ast.AST, new: ast.AST) -> tuple[str, str]:
        """A constant or a name alone (`1 -> 2`) says little and matches too much: show it in
        the nearest enclosing expression (or statement), before and after the change."""
        chain = [p for p in self.parents if p is not node]
        outer = next((p for p in reversed(chain) if isinstance(p, ast.expr | ast.stmt)), None)
        if not chain or outer is None:
            return _one_line(node), _one_line(new)
        before = _one_line(outer)
        _swap(chain[-1], node, new)
        after = _one_line(outer)
        _swap(chain[-1], new, node)
        if max(len(before), len(after)) > 120 or before == after:
            return _one_line(node), _one_line(new)
        return before, after

    def propose_statement(self, stmt: ast.stmt, operator: str) -> None:
        if isinstance(stmt, ast.Pass) or _is_docstring(stmt):
            return
        if isinstance(stmt, ast.Continue | ast.Break):
            operator = "loopctl"
        self.found.append((stmt, operator, self.function, _first_line(stmt), "pass", "pass"))

    # --- scopes and things never mutated -------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for deco in node.decorator_list:
            self.visit(deco)
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.visit(default)
        self.scope.append(node.name)
        self.returns_bool.append(isinstance(node.returns, ast.Name) and node.returns.id == "bool")
        for stmt in node.body:
            self.visit(stmt)
        self.returns_bool.pop()
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 (ast's visitor naming)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.scope.append("<lambda>")
        self.returns_bool.append(False)
        self.generic_visit(node)
        self.returns_bool.pop()
        self.scope.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for deco in node.decorator_list:
            self.visit(deco)
        self.scope.append(node.name)
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        return

    def visit_Expr(self, node: ast.Expr) -> None:
        if _is_docstring(node):
            return
        if isinstance(node.value, ast.Call | ast.Await):
            self.propose_statement(node, "call")
        self.generic_visit(node)

    # --- statements ----------------------------------------------------------------------

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            return
        self.visit_test(node.test)
        for stmt in node.body:
            self.propose_statement(stmt, "statement")
            self.visit(stmt)
        elif_chain = len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)
        for stmt in node.orelse:
            if not elif_chain:
                self.propose_statement(stmt, "statement")
            self.visit(stmt)

    def visit_While(self, node: ast.While) -> None:
        self.visit_test(node.test)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        for stmt in node.body:
            self.propose_statement(stmt, "statement")
            self.visit(stmt)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.propose_statement(node, "call")
        swapped = _BINOP.get(type(node.op))
        if swapped is not None:
            new = copy.copy(node)
            new.op = swapped()
            self.propose(node, "binop", new)
        self.visit(node.value)

    def visit_Continue(self, node: ast.Continue) -> None:
        self.propose_statement(node, "loopctl")

    def visit_Break(self, node: ast.Break) -> None:
        self.propose_statement(node, "loopctl")

    def visit_Return(self, node: ast.Return) -> None:
        value = node.value
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            if self.returns_bool and self.returns_bool[-1]:
                self.propose(value, "return", ast.UnaryOp(ast.Not(), copy.deepcopy(value)))
            else:
                self.propose(value, "return", "None")
        self.generic_visit(node)

    # --- expressions ---------------------------------------------------------------------

    def visit_test(self, test: ast.expr) -> None:
        """A condition: negate it unless a compare or `not` mutant already does."""
        plain = not isinstance(test, ast.Compare | ast.BoolOp) and not (
            isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        )
        if plain and not isinstance(test, ast.Constant):
            self.propose(test, "condition", ast.UnaryOp(ast.Not(), copy.deepcopy(test)))
        self.visit(test)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.visit_test(node.test)
        self.visit(node.body)
        self.visit(node.orelse)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.visit(node.target)
        self.visit(node.iter)
        for test in node.ifs:
            self.visit_test(test)

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            for table, name in ((_FLIP, "compare"), (_BOUNDARY, "boundary")):
                target = table.get(type(op))
                if target is not None:
                    new = copy.deepcopy(node)
                    new.ops[i] = target()
                    self.propose(node, name, new)
        operands = [node.left, *node.comparators]
        for i, operand in enumerate(operands):
            if _is_str(operand):
                self.propose_string(operand)
            elif i > 0 and isinstance(node.ops[i - 1], ast.In | ast.NotIn):
                for elt in _container_elements(operand):
                    self.propose_string(elt)
        self.generic_visit(node)

    def propose_string(self, node: ast.expr) -> None:
        if _is_str(node):
            assert isinstance(node, ast.Constant)
            self.propose(node, "string", ast.Constant("" if node.value else "mutated"))

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self.propose(node, "boolop", ast.BoolOp(other, copy.deepcopy(node.values)))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self.propose(node, "not", copy.deepcopy(node.operand))
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        swapped = _BINOP.get(type(node.op))
        if swapped is not None:
            new = copy.deepcopy(node)
            new.op = swapped()
            self.propose(node, "binop", new)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BUILTIN_SWAP:
            self.propose(func, "builtin", _BUILTIN_SWAP[func.id])
        if isinstance(func, ast.Attribute) and func.attr in _STRING_METHODS:
            for arg in node.args:
                self.propose_string(arg)
                for elt in _container_elements(arg):
                    self.propose_string(elt)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            self.propose(node, "bool", ast.Constant(not value))
        elif isinstance(value, int):
            self.propose(node, "number", ast.Constant(value + 1))
            self.propose(node, "number", ast.Constant(value - 1))


_SHOWN_IN_CONTEXT = frozenset({"number", "bool", "string", "builtin"})


def _swap(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put new where old is among parent's fields (a field or an item of a list field)."""
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _container_elements(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return list(node.elts)
    return []


def _first_line(stmt: ast.stmt) -> str:
    text = _one_line(stmt)
    first = ast.unparse(stmt).splitlines()[0]
    return text if len(text) <= 80 else " ".join(first.split())[:77] + "..."


def _spliced_text(node: ast.expr | ast.stmt, replacement: str) -> str:
    """Expressions go in parentheses (precedence never changes around them); a span of
    several lines keeps its line count, padded with newlines (inside the parentheses for an
    expression, after `pass` for a statement)."""
    extra = (node.end_lineno or node.lineno) - node.lineno
    if isinstance(node, ast.stmt):
        return replacement + "\n" * extra
    return "(" + replacement + "\n" * extra + ")"


def find_mutants(source: str, module: str) -> list[Mutant]:
    """Every mutant of `source` (the text of `module`, a path like interlock/config.py)."""
    tree = ast.parse(source)
    reference = ast.dump(tree)
    finder = _Finder()
    finder.visit(tree)
    seen: dict[tuple[str, str, str], int] = {}
    spans: set[tuple[int, int, int, int, str]] = set()
    mutants: list[Mutant] = []
    for node, operator, function, original, replacement, spliced in finder.found:
        span = (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)
        if (*span, spliced) in spans:
            continue  # the same change proposed twice (a call statement in an `if` body)
        spans.add((*span, spliced))
        ident = (function, original, replacement)
        mutant = Mutant(
            module=module,
            operator=operator,
            function=function,
            line=span[0],
            col=span[1],
            end_line=span[2],
            end_col=span[3],
            original=original,
            replacement=replacement,
            text=_spliced_text(node, spliced),
            occurrence=seen.get(ident, 0) + 1,
        )
        try:
            changed = ast.dump(ast.parse(apply_mutant(source, mutant))) != reference
        except SyntaxError:
            changed = False
        if not changed:
            continue  # a no-op (or unparsable) change is never offered
        seen[ident] = mutant.occurrence
        mutants.append(mutant)
    return sorted(mutants, key=lambda m: (m.line, m.col, m.operator, m.replacement))


def apply_mutant(source: str, mutant: Mutant) -> str:
    """The module's text with the mutant spliced in (ast columns are UTF-8 byte offsets)."""
    lines = source.splitlines(keepends=True)
    start, end = mutant.line - 1, mutant.end_line - 1
    head = lines[start].encode()[: mutant.col].decode()
    tail = lines[end].encode()[mutant.end_col :].decode()
    return "".join(lines[:start]) + head + mutant.text + tail + "".join(lines[end + 1 :])
