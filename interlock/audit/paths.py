"""Which files are validator definitions: tests, runner configs, plugins, check scripts.

Globs follow the config's `protected` syntax: `**` spans directories, a pattern without a
slash matches the file name at any depth (like .gitignore).
"""

from __future__ import annotations

import fnmatch
import functools
import posixpath
import re
from collections.abc import Iterable, Sequence

PY_TEST_PATTERNS = ("test_*.py", "*_test.py", "test*.py")
JS_EXTS = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
CODE_EXTS = frozenset(
    (
        ".py",
        ".pyx",
        ".pyi",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".kts",
        ".scala",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cxx",
        ".hpp",
        ".hh",
        ".cs",
        ".rb",
        ".php",
        ".swift",
        ".m",
        ".mm",
        ".lua",
        ".pl",
        ".pm",
        ".r",
        ".jl",
        ".ex",
        ".exs",
        ".erl",
        ".hs",
        ".ml",
        ".clj",
        ".dart",
        ".vue",
        ".svelte",
        ".sql",
        ".json",
        ".yaml",
        ".yml",
        ".toml",
        ".csv",
        ".xml",
        ".html",
        ".css",
        ".scss",
        ".proto",
        ".graphql",
        ".ini",
        ".cfg",
        *JS_EXTS,
    )
)
DOC_NAMES = re.compile(
    r"^(readme|changelog|changes|history|license|licence|authors|notice|"
    r"contributing|todo|notes)(\..*)?$",
    re.I,
)
DOC_EXTS = frozenset((".md", ".rst", ".txt", ".adoc", ".org", ".png", ".jpg", ".svg", ".gif"))
TEST_DIRS = frozenset(("tests", "test", "testing", "__tests__", "spec", "specs", "t"))
PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
RUNNER_FILES = frozenset(
    (
        "pytest.ini",
        ".pytest.ini",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
        "package.json",
        "makefile",
        "gnumakefile",
        "noxfile.py",
        "cargo.toml",
        ".gitlab-ci.yml",
        ".travis.yml",
        "azure-pipelines.yml",
        "justfile",
        "taskfile.yml",
        ".mocharc.json",
        ".mocharc.yml",
        ".mocharc.js",
        "karma.conf.js",
    )
)


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            char = pattern[i]
            if char == "*":
                out.append("[^/]*")
            elif char == "?":
                out.append("[^/]")
            elif char == "[":
                end = pattern.find("]", i + 1)
                if end == -1:
                    out.append(re.escape(char))
                else:
                    out.append("[" + pattern[i + 1 : end].replace("!", "^", 1) + "]")
                    i = end
            else:
                out.append(re.escape(char))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    """Does a repo-relative posix path match a protected glob?"""
    pattern = pattern.strip().lstrip("/")
    if not pattern:
        return False
    if "/" not in pattern.rstrip("/"):
        return bool(_glob_regex(pattern).match(posixpath.basename(path)))
    return bool(_glob_regex(pattern).match(path))


def is_protected(path: str, protected: Sequence[str]) -> bool:
    """Does any protected glob match? One regular expression for all of them (every commit
    checks each changed path against the ~30 globs), the same answer as glob_match on each."""
    if isinstance(protected, tuple):
        try:
            combined = _protected_regexes(protected)
        except re.error:  # a glob that is no regular expression: each is tried in turn below
            combined = None
        if combined is not None:
            names, paths = combined
            if names is not None and names.match(posixpath.basename(path)):
                return True
            return paths is not None and paths.match(path) is not None
    return any(glob_match(path, pattern) for pattern in protected)


@functools.lru_cache(maxsize=64)
def _protected_regexes(
    protected: tuple[str, ...],
) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """(globs matched against the base name, globs matched against the whole path), each an
    alternation of glob_match's own expressions."""
    names: list[str] = []
    paths: list[str] = []
    for pattern in protected:
        pattern = pattern.strip().lstrip("/")
        if pattern:
            side = names if "/" not in pattern.rstrip("/") else paths
            side.append(f"(?:{_glob_regex(pattern).pattern})")
    return (
        re.compile("|".join(names)) if names else None,
        re.compile("|".join(paths)) if paths else None,
    )


def ext(path: str) -> str:
    return posixpath.splitext(path)[1].lower()


def base(path: str) -> str:
    return posixpath.basename(path)


def in_test_dir(path: str) -> bool:
    return any(part.lower() in TEST_DIRS for part in path.split("/")[:-1])


def language(path: str) -> str | None:
    """The language whose test conventions the audit knows for this file, or None."""
    suffix = ext(path)
    if suffix in (".py", ".pyw"):
        return "python"
    if suffix in JS_EXTS:
        return "js"
    if suffix == ".go":
        return "go"
    if suffix == ".rs":
        return "rust"
    if suffix in (".java", ".kt"):
        return "java"
    return None


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def is_python_test_name(path: str, python_files: Sequence[str] = ()) -> bool:
    """Would pytest or unittest discovery collect this file?"""
    name = base(path)
    return name.endswith(".py") and matches_any(name, (*PY_TEST_PATTERNS, *python_files))


def is_js_test_name(path: str) -> bool:
    name = base(path).lower()
    if ext(name) not in JS_EXTS:
        return False
    return bool(
        re.search(r"[._-](test|spec|e2e)\.[cm]?[jt]sx?$", name)
    ) or "__tests__" in path.split("/")


def is_test_file(path: str, python_files: Sequence[str] = ()) -> bool:
    """A file a test runner collects by its name (any language the audit knows)."""
    lang = language(path)
    name = base(path)
    if lang == "python":
        return is_python_test_name(path, python_files)
    if lang == "js":
        return is_js_test_name(path)
    if lang == "go":
        return name.endswith("_test.go")
    if lang == "java":
        return bool(re.search(r"(Test|Tests|IT|Spec)\.(java|kt)$", name)) or "/src/test/" in (
            "/" + path
        )
    return False


def is_runner_file(path: str) -> bool:
    name = base(path).lower()
    if name in RUNNER_FILES or name.startswith(("jest.config.", "vitest.config.")):
        return True
    return path.startswith((".github/workflows/", ".circleci/")) and ext(path) in (".yml", ".yaml")


def is_doc(path: str) -> bool:
    return ext(path) in DOC_EXTS or bool(DOC_NAMES.match(base(path)))


def is_code(path: str) -> bool:
    return ext(path) in CODE_EXTS
