"""The one list of regenerable output: build products, caches and environments.

Ignored paths under these names can be recreated by a build or an install, so removing them
discards nothing; the snapshot engine skips them and the command engine does not count them
as unsaved work. Any other ignored file (`.env`, `secrets/local.json`) is hand-made.
"""

from __future__ import annotations

import fnmatch

# Directory names: any path with one of these as a component is regenerable.
REGENERABLE_DIRS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        "build",
        "dist",
        "target",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".cache",
        ".gradle",
        ".next",
        ".nuxt",
        ".parcel-cache",
        ".turbo",
        ".svelte-kit",
        "coverage",
        "htmlcov",
        ".eggs",
        "bower_components",
        ".terraform",
        "_build",
        ".bundle",
        "Pods",
        "DerivedData",
        "cmake-build-debug",
        "cmake-build-release",
        "CMakeFiles",
    }
)

# File name patterns.
REGENERABLE_FILES = (
    "*.pyc",
    "*.pyo",
    "*.o",
    "*.obj",
    "*.so",
    "*.a",
    "*.dylib",
    "*.class",
    "*.egg-info",
    ".coverage",
    ".coverage.*",
    "coverage.xml",
    ".DS_Store",
    "*.tsbuildinfo",
)


def is_regenerable(path: str) -> bool:
    """True when a worktree-relative path is build output, a cache or an environment."""
    parts = [p for p in path.strip("/").split("/") if p]
    if any(part in REGENERABLE_DIRS or part.endswith(".egg-info") for part in parts):
        return True
    name = parts[-1] if parts else ""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in REGENERABLE_FILES)
