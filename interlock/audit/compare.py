"""compare_file_sets: the pure audit of two file sets (path -> bytes).

Only paths whose content differs are analysed (plus the root runner configs, read for
context). A mapping may also offer `ident(path)` and `prefetch(paths)` (see sources.GitFiles)
so that unchanged files are never read.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from interlock.audit import runnercfg
from interlock.audit.fileset import Identified, changed_paths
from interlock.audit.forgehooks import Trick
from interlock.audit.forgery import forgery_tricks
from interlock.audit.model import REVIEW, TAMPERED, AuditFinding, AuditReport, make_report
from interlock.audit.paths import (
    base,
    ext,
    in_test_dir,
    is_code,
    is_doc,
    is_protected,
    is_python_test_name,
    is_runner_file,
    is_test_file,
    language,
)
from interlock.audit.pyast import Collect, PyModule, module_dump, parse_module
from interlock.audit.source import always_equal_classes
from interlock.config import DEFAULT_PROTECTED

_ROOT_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _conftests_above(path: str) -> list[str]:
    """`conftest.py` in the folder of `path` and in each folder above it."""
    parts = path.split("/")[:-1]
    return ["/".join([*parts[:n], "conftest.py"]) for n in range(len(parts), -1, -1)]


def _subset(files: Mapping[str, bytes], paths: Iterable[str]) -> dict[str, bytes]:
    return {p: files[p] for p in paths if p in files}


def _configs(files: Mapping[str, bytes]) -> dict[str, bytes]:
    return _subset(files, _ROOT_CONFIGS)


class _Audit:
    def __init__(
        self, before: Mapping[str, bytes], after: Mapping[str, bytes], protected: Sequence[str]
    ) -> None:
        self.before, self.after, self.protected = before, after, protected
        self.changed = changed_paths(before, after)
        for files in (before, after):
            if isinstance(files, Identified):
                files.prefetch([*self.changed, *_ROOT_CONFIGS])
        self.cfg_before = runnercfg.effective_pytest(_configs(before))
        self.cfg_after = runnercfg.effective_pytest(_configs(after))
        self.collect_before = Collect(
            self.cfg_before.python_functions, self.cfg_before.python_classes
        )
        self.collect_after = Collect(self.cfg_after.python_functions, self.cfg_after.python_classes)
        self.findings: list[AuditFinding] = []
        self._tests_before: list[str] | None = None
        self._imported: set[str] | None = None

    def add(
        self, kind: str, path: str, detail: str, line: int | None = None, severity: str = TAMPERED
    ) -> None:
        self.findings.append(AuditFinding(kind, path, line, None, detail, severity))

    def is_validator_py(self, path: str) -> bool:
        return language(path) == "python" and (
            is_python_test_name(path, self.cfg_before.python_files + self.cfg_after.python_files)
            or in_test_dir(path)
            or is_protected(path, self.protected)
            or base(path) == "conftest.py"
        )

    def is_source(self, path: str) -> bool:
        if is_runner_file(path) or is_doc(path) or not is_code(path) or in_test_dir(path):
            return False
        if is_test_file(path, self.cfg_after.python_files) or is_protected(path, self.protected):
            return False
        return base(path) != "conftest.py"

    def source_changed(self) -> bool:
        for path in self.changed:
            if not self.is_source(path):
                continue
            old, new = self.before.get(path), self.after.get(path)
            if old is None and new is not None and self.self_made(path, new):
                continue  # a check script is not the code under test
            if old is None or new is None:
                return True
            if ext(path) == ".py":
                if module_dump(old) != module_dump(new):
                    return True
            elif b" ".join(old.split()) != b" ".join(new.split()):
                return True
        return False

    def self_made(self, path: str, data: bytes) -> str | None:
        """Why a new file is a self-made check script (see selfcheck.py), or None."""
        from interlock.audit.selfcheck import self_made_check  # loaded only for new files

        return self_made_check(path, data, self.cfg_after.python_files, self.imported())

    def imported(self) -> set[str]:
        """Module name parts imported by the changed Python files (new modules they use)."""
        if self._imported is None:
            self._imported = set()
            for path in self.changed:
                data = self.after.get(path) if ext(path) == ".py" else None
                module = parse_module(path, data, self.collect_after) if data is not None else None
                if module is not None:
                    for origin in module.imports.values():
                        self._imported.update(origin.split("."))
        return self._imported

    def run(self) -> list[AuditFinding]:
        source_changed = self.source_changed()
        py = [p for p in self.changed if self.is_validator_py(p)]
        if py:
            self.python_tests(py, source_changed)
        others = [
            p
            for p in self.changed
            if language(p) not in (None, "python")
            and (
                is_test_file(p)
                or in_test_dir(p)
                or is_protected(p, self.protected)
                or language(p) == "rust"
            )
        ]
        if others:
            # Loaded only when needed: the CLI's start-up time is part of every audit.
            from interlock.audit.otherlangs import compare_other

            self.findings += compare_other(
                _subset(self.before, others), _subset(self.after, others), source_changed
            )
        self.python_tricks()
        self.runner_configs()
        self.new_scripts()
        self.data_files(source_changed)
        if source_changed:
            self.source_cheats()
        return self.findings

    def source_cheats(self) -> None:
        """Code under test that detects the tests or copies their expectations."""
        from interlock.audit.sourcecheats import source_findings  # loaded when source changed

        def test_paths() -> list[str]:
            files = self.cfg_after.python_files
            paths = [p for p in self.after if is_python_test_name(p, files)]
            for files_set in (self.after,):
                if isinstance(files_set, Identified):
                    files_set.prefetch(paths)
            return paths

        self.findings += source_findings(
            self.changed, self.before, self.after, self.is_source, test_paths
        )

    def python_tests(self, py: list[str], source_changed: bool) -> None:
        from interlock.audit.pychecks import PyContext, compare_python  # loaded when needed

        cfg_b, cfg_a = self.cfg_before, self.cfg_after
        ctx = PyContext(
            source_changed=source_changed,
            python_files_before=cfg_b.python_files,
            python_files_after=cfg_a.python_files,
            collect_before=self.collect_before,
            collect_after=self.collect_after,
            async_auto=cfg_a.text("asyncio_mode").strip() == "auto",
        )
        paths = sorted({*py, *self.python_context(py)})
        self.findings += compare_python(
            _subset(self.before, paths), _subset(self.after, paths), ctx
        )

    def python_context(self, py: list[str]) -> set[str]:
        """Unchanged files the changed tests lean on: the conftest.py files that apply to them
        (in their folder and above: fixtures) and the test helper modules they import, read on
        both sides so fixtures and helpers resolve."""
        context = {
            conftest
            for path in py
            for conftest in _conftests_above(path)
            if conftest in self.after or conftest in self.before
        }
        for path in py:
            data = self.after.get(path)
            module = parse_module(path, data, self.collect_after) if data is not None else None
            if module is None:
                continue
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            for origin in module.imports.values():
                parts = origin.split(".")
                for cut in range(len(parts), 0, -1):
                    stem = "/".join(parts[:cut]) + ".py"
                    for candidate in (stem, f"{folder}/{stem}" if folder else stem):
                        if candidate in self.after and self.is_validator_py(candidate):
                            context.add(candidate)
        return context

    def python_tricks(self) -> None:
        for path in self.changed:
            if ext(path) == ".pth" and path in self.after and b"import" in self.after[path]:
                self.add("outcome-forgery", path, "a .pth file runs code at every Python start")
            if ext(path) != ".py" or path not in self.after:
                continue
            new = parse_module(path, self.after[path], self.collect_after)
            if new is None:
                continue
            tricks = self.tricks_of(path, new)
            equal = list(always_equal_classes(new))
            if not tricks and not equal:
                continue  # nothing forging here now, so nothing new
            before = self.before.get(path)
            old = parse_module(path, before, self.collect_before) if before is not None else None
            self.new_tricks(path, old, tricks)
            self.new_always_equal(path, old, equal)

    def is_test_path(self, text: str) -> bool:
        """Does a collect_ignore entry name (or match) test files?"""
        entry = text.strip().lstrip("./").rstrip("/")
        if "test" in entry.lower():
            return True
        if self._tests_before is None:
            self._tests_before = [
                p for p in self.before if is_test_file(p, self.cfg_before.python_files)
            ]
        return any(
            p == entry
            or p.startswith(entry + "/")
            or p.endswith("/" + entry)
            or fnmatch.fnmatch(p, entry)
            or fnmatch.fnmatch(p, "*/" + entry)
            or fnmatch.fnmatch(base(p), entry)
            for p in self._tests_before
        )

    def tricks_of(self, path: str, module: PyModule) -> list[Trick]:
        plugin = (
            self.is_validator_py(path)
            or base(path) in ("sitecustomize.py", "usercustomize.py")
            or any(n.startswith("pytest_") for n in module.functions)
        )
        return forgery_tricks(module, self.is_test_path, plugin)

    def new_tricks(self, path: str, old: PyModule | None, tricks: list[Trick]) -> None:
        old_keys = Counter(t.key for t in self.tricks_of(path, old)) if old else Counter()
        for trick in tricks:
            if old_keys[trick.key] > 0:
                old_keys[trick.key] -= 1
                continue
            self.add(trick.kind, path, trick.detail, trick.line)

    def new_always_equal(
        self, path: str, old: PyModule | None, found: list[tuple[str, str, int]]
    ) -> None:
        old_eq = {(c, m) for c, m, _ in always_equal_classes(old)} if old else set()
        for cls, method, line in found:
            if (cls, method) not in old_eq:
                says = "True" if method == "__eq__" else "False"
                self.add(
                    "always-equal",
                    path,
                    f"class {cls} defines {method} that always returns {says}: "
                    "every comparison with it passes",
                    line,
                )

    def runner_configs(self) -> None:
        root_changed = [p for p in self.changed if p in _ROOT_CONFIGS]
        if root_changed:
            tests = [p for p in self.before if is_python_test_name(p, self.cfg_before.python_files)]
            where = self.cfg_after.path or self.cfg_before.path or root_changed[0]
            for detail in runnercfg.compare_pytest(self.cfg_before, self.cfg_after, tests):
                self.add("runner-config-weakened", where, detail)
        for path in self.changed:
            if path not in self.after:
                continue
            for detail in self.config_details(path, self.before.get(path), self.after[path]):
                self.add("runner-config-weakened", path, detail)

    def config_details(self, path: str, old: bytes | None, new: bytes) -> list[str]:
        name = base(path).lower()
        if not (is_runner_file(path) or ext(path) in (".mk", ".sh", ".bash")):
            return []
        from interlock.audit import buildcfg  # loaded only when a runner file changed
        from interlock.audit.cmdline import command_weakenings

        if name == "tox.ini":
            return runnercfg.compare_tox(old, new)
        if name == "pyproject.toml":
            return buildcfg.compare_pyproject_scripts(old, new)
        if name in ("makefile", "gnumakefile") or ext(path) == ".mk":
            return buildcfg.compare_makefile(old, new)
        if name == "package.json":
            return buildcfg.compare_package_json(old, new)
        if name.startswith(("jest.config.", "vitest.config.", ".mocharc", "karma.conf")):
            return buildcfg.compare_runner_options(
                buildcfg.text_options(old), buildcfg.text_options(new)
            )
        if name == "cargo.toml":
            return buildcfg.compare_cargo(old, new)
        if name == "noxfile.py":
            return buildcfg.compare_noxfile(old, new)
        if is_runner_file(path) or name in (".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml"):
            return buildcfg.compare_ci(old, new)
        if ext(path) in (".sh", ".bash") and old is not None:
            return command_weakenings(old.decode(errors="replace"), new.decode(errors="replace"))
        return []

    def new_scripts(self) -> None:
        for path in self.changed:
            if path in self.before or path not in self.after:
                continue
            why = self.self_made(path, self.after[path])
            if why:
                self.add("self-made-check", path, why)

    def data_files(self, source_changed: bool) -> None:
        """Expected outputs kept as data (golden files, snapshots) rewritten in the run."""
        for path in self.changed:
            if path not in self.before or path not in self.after or language(path) is not None:
                continue
            if (
                is_runner_file(path)
                or is_doc(path)
                or ext(path) in (".sh", ".bash", ".cfg", ".ini")
            ):
                continue
            if not (in_test_dir(path) or "__snapshots__" in path or "golden" in path.lower()):
                continue
            old_lines = self.before[path].splitlines()
            new_lines = set(self.after[path].splitlines())
            if all(line in new_lines for line in old_lines):
                continue  # only additions: new cases, not changed expectations
            if source_changed:
                self.add(
                    "expectation-changed",
                    path,
                    "expected data changed together with the code under test: worth a look",
                    severity=REVIEW,
                )
            else:
                self.add(
                    "expectation-changed",
                    path,
                    "expected data changed while no code under test changed",
                )


def compare_file_sets(
    before: Mapping[str, bytes],
    after: Mapping[str, bytes],
    protected: Sequence[str] = DEFAULT_PROTECTED,
    base_label: str = "",
) -> AuditReport:
    """Audit the validator definitions that differ between two file sets."""
    return make_report(_Audit(before, after, protected).run(), base_label)
