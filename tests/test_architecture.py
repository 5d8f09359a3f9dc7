"""The package map in docs/architecture.md holds: no import cycle, no import against the map,
package docstrings that agree with it, and no top-level module named by a prefix of another."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "interlock"
MAP_DOC = ROOT / "docs" / "architecture.md"


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    return skip


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """interlock modules `path` imports, anywhere in the file (functions too), except under
    `if TYPE_CHECKING:` (never executed)."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_nodes(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("interlock"):
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("interlock"))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(path, modules) - {name} for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


# --- the map ---


def read_map(text: str) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """(unit -> its paths, unit -> units it may import) from the table in architecture.md."""
    paths: dict[str, list[str]] = {}
    allowed: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[1].startswith("`interlock/"):
            continue
        unit = cells[0]
        paths[unit] = re.findall(r"`(interlock/[^`]*)`", cells[1])
        allowed[unit] = {u.strip() for u in cells[3].split(",")}
    return paths, allowed


def unit_of(module: str, paths: dict[str, list[str]]) -> str | None:
    """The most specific unit naming the module's file or folder."""
    rel = module.replace(".", "/")
    files = (rel + ".py", rel + "/__init__.py")
    best, best_score = None, -1
    for unit, patterns in paths.items():
        for pattern in patterns:
            if pattern.endswith("/*.py"):
                folder = pattern[: -len("*.py")]
                hit = any(f.startswith(folder) and "/" not in f[len(folder) :] for f in files)
            elif pattern.endswith("/"):
                hit = any(f.startswith(pattern) for f in files)
            else:
                hit = pattern in files
            score = len(pattern) + (0 if pattern.endswith("/") or "*" in pattern else 1000)
            if hit and score > best_score:
                best, best_score = unit, score
    return best


def map_violations(
    graph: dict[str, set[str]], paths: dict[str, list[str]], allowed: dict[str, set[str]]
) -> list[str]:
    problems = []
    for module, deps in sorted(graph.items()):
        unit = unit_of(module, paths)
        if unit is None:
            problems.append(f"{module} is in no unit of the map")
            continue
        for dep in sorted(deps):
            dep_unit = unit_of(dep, paths)
            if dep_unit is not None and dep_unit != unit and dep_unit not in allowed[unit]:
                problems.append(f"{module} ({unit}) imports {dep} ({dep_unit})")
    return problems


@pytest.fixture(scope="module")
def the_map() -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    return read_map(MAP_DOC.read_text())


def test_no_import_cycle_between_interlock_modules():
    assert find_cycle(import_graph()) is None


def test_cycle_finder_reports_a_cycle_through_function_level_imports(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from interlock.engine import walk\n"
        "def f():\n    from interlock.memory import snapshot\n"
    )
    modules = {"interlock.memory.snapshot": source, "interlock.engine.walk": source}
    assert imports_of(source, modules) == {"interlock.memory.snapshot"}


def test_the_map_names_every_package_and_only_known_units(the_map):
    paths, allowed = the_map
    assert {"ground", "shell", "engine", "memory", "daemon", "hooks", "client"} <= set(paths)
    for unit, may in allowed.items():
        assert may <= set(paths), f"{unit} may import unknown units {may - set(paths)}"
    for module in module_files():
        assert unit_of(module, paths) is not None, module


def test_no_package_imports_against_the_map(the_map):
    paths, allowed = the_map
    assert map_violations(import_graph(), paths, allowed) == []


def test_an_upward_import_is_reported(the_map):
    paths, allowed = the_map
    graph = {
        "interlock.shell.lex": {"interlock.engine.walk"},
        "interlock.engine.walk": {"interlock.shell.lex"},
        "interlock.daemon.client": {"interlock.daemon.ops"},
    }
    assert map_violations(graph, paths, allowed) == [
        "interlock.daemon.client (client) imports interlock.daemon.ops (daemon)",
        "interlock.shell.lex (shell) imports interlock.engine.walk (engine)",
    ]


def test_each_package_docstring_says_what_it_holds_and_may_import(the_map):
    paths, allowed = the_map
    for init in sorted(PACKAGE.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc.splitlines()[0]) > 20, f"{init} needs a docstring"
        rel = init.parent.relative_to(ROOT).as_posix() + "/"
        units = [u for u, ps in paths.items() if rel in ps]
        if not units:
            continue  # a sub-package: its top package's docstring speaks for it
        said = re.search(r"^May import: (.*?)\.?$", doc, re.M)
        assert said, f"{init}: no 'May import:' line"
        listed = {u.strip() for u in said.group(1).split(",")}
        expected = allowed[units[0]] - {units[0]}
        if units[0] == "daemon":
            expected -= {"client"}  # the client lives inside daemon/; the docstring explains
        assert listed == expected, f"{init}: docstring says {listed}, the map {expected}"


def test_no_top_level_module_is_named_by_a_prefix_of_another():
    names = sorted(
        p.stem if p.suffix == ".py" else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and not p.name.startswith("__")
    )
    clashes = [(a, b) for a in names for b in names if a != b and b.startswith(a)]
    assert clashes == []
