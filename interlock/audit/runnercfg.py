"""pytest and tox configuration: the effective `[pytest]` options and tox test environments.

pytest reads the first of pytest.ini, .pytest.ini, pyproject.toml ([tool.pytest.ini_options]),
tox.ini ([pytest]) and setup.cfg ([tool:pytest]) at the root; the audit compares the effective
options before and after, so moving a config between files is not a change.
"""

from __future__ import annotations

import configparser
import fnmatch
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from interlock.audit.cmdline import command_weakenings, tokens
from interlock.audit.runnerargs import pytest_features

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
DEFAULT_PYTHON_CLASSES = ("Test",)
DEFAULT_PYTHON_FUNCTIONS = ("test",)
_TRUE = ("true", "1", "yes", "on")


@dataclass(frozen=True)
class PytestConfig:
    """Effective pytest ini options and the file they came from."""

    path: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def text(self, key: str) -> str:
        value = self.options.get(key)
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        return "" if value is None else str(value)

    def items(self, key: str) -> list[str] | None:
        value = self.options.get(key)
        if value is None:
            return None
        if isinstance(value, list):
            return [str(v) for v in value]
        return str(value).split()

    def lines(self, key: str) -> list[str]:
        value = self.options.get(key)
        if isinstance(value, list):
            return [str(v).strip() for v in value]
        return [ln.strip() for ln in str(value or "").splitlines() if ln.strip()]

    @property
    def python_files(self) -> tuple[str, ...]:
        return tuple(self.items("python_files") or DEFAULT_PYTHON_FILES)

    @property
    def python_functions(self) -> tuple[str, ...]:
        return tuple(self.items("python_functions") or DEFAULT_PYTHON_FUNCTIONS)

    @property
    def python_classes(self) -> tuple[str, ...]:
        return tuple(self.items("python_classes") or DEFAULT_PYTHON_CLASSES)


def read_ini(data: bytes) -> configparser.RawConfigParser | None:
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(data.decode("utf-8", errors="replace"))
    except configparser.Error:
        return None
    return parser


def read_toml(data: bytes) -> dict[str, Any] | None:
    try:
        return tomllib.loads(data.decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return None


def _pyproject_pytest(data: bytes) -> dict[str, Any] | None:
    doc = read_toml(data) or {}
    tool = doc.get("tool", {})
    pytest_table = tool.get("pytest", {}) if isinstance(tool, dict) else {}
    if isinstance(pytest_table, dict):
        options = pytest_table.get("ini_options", pytest_table)
        if isinstance(options, dict) and options:
            return {k: v for k, v in options.items() if not isinstance(v, dict)}
    return None


def effective_pytest(files: Mapping[str, bytes]) -> PytestConfig:
    """The pytest config pytest would use at the repository root."""
    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest")):
        if name in files:
            parser = read_ini(files[name])
            if parser is not None and parser.has_section(section):
                return PytestConfig(name, dict(parser.items(section)))
            return PytestConfig(name, {})
    if "pyproject.toml" in files and (opts := _pyproject_pytest(files["pyproject.toml"])):
        return PytestConfig("pyproject.toml", opts)
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if name in files:
            parser = read_ini(files[name])
            if parser is not None and parser.has_section(section):
                return PytestConfig(name, dict(parser.items(section)))
    return PytestConfig()


def _covered(path: str, roots: Sequence[str]) -> bool:
    for root in roots:
        root = root.strip().rstrip("/").removeprefix("./")
        if root in ("", "."):
            return True
        if path == root or path.startswith(root + "/") or fnmatch.fnmatch(path, root):
            return True
    return False


def compare_pytest(
    before: PytestConfig, after: PytestConfig, test_files: Sequence[str]
) -> list[str]:
    """How the effective pytest options select fewer tests or hide failures."""
    found: list[str] = []
    old_f, old_paths = pytest_features(_split(before.text("addopts")))
    new_f, new_paths = pytest_features(_split(after.text("addopts")))
    found += [f"addopts: {f}" for f in sorted(new_f - old_f) if not f.startswith("strict:")]
    found += [f"addopts: dropped {f[7:]}" for f in sorted(old_f - new_f) if f.startswith("strict:")]
    if [p for p in new_paths if p not in old_paths]:
        found.append(f"addopts now limits the run to {', '.join(new_paths)}")
    old_tp, new_tp = before.items("testpaths"), after.items("testpaths")
    if new_tp is not None and new_tp != old_tp:
        lost = [p for p in test_files if _covered(p, old_tp or [""]) and not _covered(p, new_tp)]
        if lost:
            found.append(f"testpaths {new_tp} no longer covers {_few(lost)}")
    lost_files = [p for p in test_files if not _name_in(p, after.python_files)]
    lost_files = [p for p in lost_files if _name_in(p, before.python_files)]
    if lost_files:
        found.append(
            f"python_files {list(after.python_files)} no longer collects {_few(lost_files)}"
        )
    for key, old_v, new_v in (
        ("python_functions", before.python_functions, after.python_functions),
        ("python_classes", before.python_classes, after.python_classes),
    ):
        dropped = [
            p for p in old_v if not any(p.startswith(n) or fnmatch.fnmatch(p, n) for n in new_v)
        ]
        if dropped:
            found.append(f"{key} no longer matches {dropped}")
    new_dirs = set(after.items("norecursedirs") or []) - set(before.items("norecursedirs") or [])
    hidden = [
        p
        for p in test_files
        if any(fnmatch.fnmatch(part, d) for d in new_dirs for part in p.split("/")[:-1])
    ]
    if hidden:
        found.append(f"norecursedirs {sorted(new_dirs)} now hides {_few(hidden)}")
    if (
        before.text("xfail_strict").lower() in _TRUE
        and after.text("xfail_strict").lower() not in _TRUE
    ):
        found.append("xfail_strict turned off: unexpected passes no longer fail")
    old_err = {w for w in before.lines("filterwarnings") if w.startswith("error")}
    if old_err - set(after.lines("filterwarnings")):
        found.append(
            f"filterwarnings dropped {sorted(old_err - set(after.lines('filterwarnings')))}"
        )
    return found


def _name_in(path: str, patterns: Sequence[str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _few(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:3])
    return f"{len(paths)} test file(s): {shown}" + (", ..." if len(paths) > 3 else "")


def _split(text: str) -> list[str]:
    return [t for t in tokens(text) if t]


def tox_envs(data: bytes) -> dict[str, dict[str, str]]:
    """tox.ini sections that define test environments, with their keys."""
    parser = read_ini(data)
    if parser is None:
        return {}
    envs = {}
    for section in parser.sections():
        if section == "tox" or section.startswith("testenv"):
            envs[section] = dict(parser.items(section))
    return envs


def _tox_commands(env: Mapping[str, str]) -> tuple[str, list[str]]:
    """Commands as one script, plus features of tox's own `- cmd` (ignore exit code) syntax."""
    lines, extra = [], []
    for key in ("commands", "commands_pre"):
        for line in env.get(key, "").splitlines():
            line = line.strip()
            if line.startswith("-") and not line.startswith("--"):
                extra.append(f"`{line}` ignores its exit code")
                line = line[1:].strip()
            if line:
                lines.append(line)
    return "\n".join(lines), extra


def compare_tox(before: bytes | None, after: bytes) -> list[str]:
    """How tox environments stopped checking (per section)."""
    old_envs = tox_envs(before) if before is not None else {}
    found: list[str] = []
    for name, env in tox_envs(after).items():
        old = old_envs.get(name, {})
        old_script, old_extra = _tox_commands(old)
        new_script, new_extra = _tox_commands(env)
        found += [f"[{name}] {x}" for x in new_extra if x not in old_extra]
        if name.startswith("testenv") and (old or new_script):
            found += [f"[{name}] {w}" for w in command_weakenings(old_script, new_script)]
        for key in ("ignore_outcome", "ignore_errors"):
            if (
                env.get(key, "").strip().lower() in _TRUE
                and old.get(key, "").strip().lower() not in _TRUE
            ):
                found.append(f"[{name}] {key} = true hides failures")
        old_add = _setenv(old).get("PYTEST_ADDOPTS", "")
        new_add = _setenv(env).get("PYTEST_ADDOPTS", "")
        added, _ = pytest_features(_split(new_add))
        removed, _ = pytest_features(_split(old_add))
        found += [
            f"[{name}] PYTEST_ADDOPTS {f}"
            for f in sorted(added - removed)
            if not f.startswith("strict:")
        ]
    old_list = _envlist(old_envs.get("tox", {}))
    new_list = _envlist(tox_envs(after).get("tox", {}))
    if old_list and new_list and set(old_list) - set(new_list):
        found.append(f"[tox] envlist dropped {sorted(set(old_list) - set(new_list))}")
    return found


def _setenv(env: Mapping[str, str]) -> dict[str, str]:
    values = {}
    for line in env.get("setenv", "").splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def _envlist(section: Mapping[str, str]) -> list[str]:
    raw = section.get("envlist", "") or section.get("env_list", "")
    return [e.strip() for e in raw.replace("\n", ",").split(",") if e.strip()]
