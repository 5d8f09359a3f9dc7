"""Which tests run which lines of the scope modules: one traced run of the suite, cached.

The map is kept in benchmarks/.work/mutation/map.json.gz. It is reused while the code and the
test files are unchanged; when only some test files changed (the usual case while raising a
score), only those files are traced again; when anything else changed (interlock/, a
conftest, test data, the tool itself), the whole suite is traced again (a few minutes).

A mutant runs against the tests that ran one of its lines. A line that runs at import time
(module-level code, a table built by a factory, a default argument) affects every test that
uses the module, so its mutants run against every test that ran any line of the module.
Tests that failed while tracing are left out, and counted.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import tree

FORMAT = 2


@dataclass
class TestMap:
    """Per test: its duration (seconds, traced) and, per module, the lines it ran (an index
    into `sets`, so the thousands of tests that run the same lines share one list)."""

    source_key: str = ""
    files: dict[str, str] = field(default_factory=dict)  # test file -> content digest
    durations: dict[str, float] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    hits: dict[str, dict[str, int]] = field(default_factory=dict)  # test -> module -> set index
    imports: dict[str, list[int]] = field(default_factory=dict)  # module -> import-time lines
    sets: list[list[int]] = field(default_factory=list)
    _line_index: dict[str, dict[int, set[str]]] = field(default_factory=dict, repr=False)

    def lines_index(self, module: str) -> dict[int, set[str]]:
        index = self._line_index.get(module)
        if index is None:
            index = {}
            for test, modules in self.hits.items():
                if test in self.failed or module not in modules:
                    continue
                for line in self.sets[modules[module]]:
                    index.setdefault(line, set()).add(test)
            self._line_index[module] = index
        return index

    def reach(self, module: str) -> set[str]:
        """Every usable test that ran any line of module."""
        found: set[str] = set()
        for tests in self.lines_index(module).values():
            found |= tests
        return found

    def tests_for(self, module: str, lines: range, import_time: bool) -> set[str]:
        if import_time or any(line in self.imports.get(module, ()) for line in lines):
            return self.reach(module)
        index = self.lines_index(module)
        found: set[str] = set()
        for line in lines:
            found |= index.get(line, set())
        return found


def _source_names(names: list[str]) -> list[str]:
    """Everything but the test modules themselves: a change here re-traces the whole suite."""
    return [n for n in names if not _is_test_module(n) and (n.startswith(("interlock/", "tests/")))]


def _is_test_module(name: str) -> bool:
    base = os.path.basename(name)
    return name.startswith("tests/") and base.startswith("test_") and base.endswith(".py")


def source_key(root: Path, names: list[str], scope: list[str]) -> str:
    tool = sorted(p.relative_to(tree.HERE).as_posix() for p in tree.INJECT.glob("*.py"))
    parts = [tree.digest(root, _source_names(names) + ["pyproject.toml"])]
    parts.append(tree.digest(tree.HERE, tool))
    parts.append("\n".join(scope))
    return f"{FORMAT}:" + ":".join(parts)


def load(path: Path) -> TestMap | None:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return TestMap(
        source_key=data["source_key"],
        files=data["files"],
        durations=data["durations"],
        failed=set(data["failed"]),
        hits=data["hits"],
        imports=data["imports"],
        sets=data["sets"],
    )


def save(path: Path, tmap: TestMap) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "source_key": tmap.source_key,
        "files": tmap.files,
        "durations": tmap.durations,
        "failed": sorted(tmap.failed),
        "hits": tmap.hits,
        "imports": tmap.imports,
        "sets": tmap.sets,
    }
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(tmp, path)


def _trace(copy: Path, scope: list[str], test_files: list[str], jobs: int) -> Path:
    """Run the given test files (all of tests/ when empty) traced; the directory of results."""
    out = copy / ".trace"
    out.mkdir()
    env = tree.run_env(copy, trace_dir=out)
    env["MUTATION_TARGETS"] = json.dumps([str(copy / m) for m in scope])
    args = ["-n", str(jobs)] if jobs > 1 else ["-p", "no:xdist"]
    argv = tree.pytest_argv(copy, [*args, *(test_files or ["tests"])])
    print(f"mutation: tracing {len(test_files) or 'all'} test file(s), {jobs} job(s)", flush=True)
    proc = subprocess.run(argv, cwd=copy, env=env, stdout=subprocess.PIPE, text=True)
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    print(f"mutation: traced run finished: {' '.join(tail) or proc.returncode}", flush=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"mutation: the traced test run failed to run:\n{proc.stdout[-4000:]}")
    return out


def _merge(tmap: TestMap, out: Path, copy: Path) -> None:
    prefix = str(copy) + "/"
    set_ids = {tuple(s): i for i, s in enumerate(tmap.sets)}
    collected: dict[str, dict[str, set[int]]] = {}
    imports = {m: set(lines) for m, lines in tmap.imports.items()}
    for result in sorted(out.glob("*.json")):
        data = json.loads(result.read_text(encoding="utf-8"))
        tmap.durations.update(data.get("durations", {}))
        tmap.failed |= set(data.get("failed", ()))
        for context, files in data["hits"].items():
            for filename, lines in files.items():
                module = filename.removeprefix(prefix)
                if context == "<import>":
                    imports.setdefault(module, set()).update(lines)
                elif "::" in context:
                    collected.setdefault(context, {}).setdefault(module, set()).update(lines)
    for test, modules in collected.items():
        entry: dict[str, int] = {}
        for module, lines in modules.items():
            key = tuple(sorted(lines))
            if key not in set_ids:
                set_ids[key] = len(tmap.sets)
                tmap.sets.append(list(key))
            entry[module] = set_ids[key]
        tmap.hits[test] = entry
    tmap.imports = {m: sorted(lines) for m, lines in imports.items()}


def build(
    root: Path, copy: Path, names: list[str], scope: list[str], cache: Path, jobs: int, fresh: bool
) -> TestMap:
    """The map for the tree as it is now: cached, partly re-traced, or traced from scratch."""
    key = source_key(root, names, scope)
    wanted = {n: tree.digest(root, [n]) for n in names if _is_test_module(n)}
    tmap = None if fresh else load(cache)
    if tmap is not None and tmap.source_key == key and tmap.files == wanted:
        return tmap
    if tmap is None or tmap.source_key != key:
        tmap, todo = TestMap(source_key=key), []
    else:
        todo = sorted(n for n, d in wanted.items() if tmap.files.get(n) != d)
        stale = {n for n in tmap.files if tmap.files[n] != wanted.get(n)}
        for test in [t for t in tmap.hits if t.split("::")[0] in stale]:
            del tmap.hits[test]
            tmap.durations.pop(test, None)
            tmap.failed.discard(test)
    _merge(tmap, _trace(copy, scope, todo, jobs), copy)
    tmap.files = wanted
    tmap._line_index = {}
    save(cache, tmap)
    if tmap.failed:
        print(f"mutation: {len(tmap.failed)} test(s) failed while tracing; they are not used")
    return tmap
