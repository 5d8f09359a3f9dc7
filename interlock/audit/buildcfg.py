"""Build and CI files that run the tests: Makefile recipes, package.json scripts and jest
config, CI workflows, jest/vitest/mocha config files, Cargo.toml, noxfile.py, pyproject
task tables. Each `compare_*` returns human phrases for what now checks less.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from interlock.audit.cmdline import analyze_command, command_weakenings, runs_tests
from interlock.audit.runnercfg import read_toml

_TEST_TARGET = re.compile(
    r"(^|[-_:])(tests?|check|ci|verify|unit|pytest|spec|coverage|all)($|[-_:])"
)
_RULE = re.compile(r"^([^\s#=:][^=:]*?)\s*::?(?!=)\s*(.*)$")
_VAR = re.compile(r"^(?:override\s+|export\s+)?([A-Za-z_][\w.]*)\s*(:=|::=|\?=|\+=|!=|=)\s*(.*)$")


def _logical_lines(text: str) -> list[str]:
    return re.sub(r"\\\n[ \t]*", " ", text).splitlines()


def parse_makefile(text: str) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Recipes by target and variables (values after `+=` appended)."""
    rules: dict[str, list[str]] = {}
    variables: dict[str, str] = {}
    current: list[str] = []
    for line in _logical_lines(text):
        if line.startswith("\t"):
            for target in current:
                rules[target].append(line[1:])
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        var = _VAR.match(line)
        if var:
            name, op, value = var.groups()
            variables[name] = (
                (variables.get(name, "") + " " + value).strip() if op == "+=" else value
            )
            current = []
            continue
        rule = _RULE.match(line)
        if rule:
            current = rule.group(1).split()
            for target in current:
                rules.setdefault(target, [])
                if target.startswith("."):
                    rules[target] = rules[target] + [f"#prereqs {rule.group(2)}"]
            recipe = rule.group(2).split(";", 1)
            if len(recipe) == 2 and recipe[1].strip():
                for target in current:
                    rules[target].append(recipe[1].strip())
        else:
            current = []
    return rules, variables


def _expand(line: str, variables: Mapping[str, str]) -> str:
    for _ in range(4):
        new = re.sub(r"\$[({](\w+)[)}]", lambda m: variables.get(m.group(1), m.group(0)), line)
        if new == line:
            break
        line = new
    return line


def _recipe(lines: list[str], variables: Mapping[str, str]) -> tuple[str, list[str]]:
    """The recipe as a script (prefixes removed) and the commands marked `-` (ignore errors)."""
    script, ignored = [], []
    for raw in lines:
        if raw.startswith("#prereqs"):
            continue
        stripped = raw.lstrip()
        prefix = re.match(r"^[@+\-\s]*", stripped)
        flags = prefix.group(0) if prefix else ""
        command = _expand(stripped[len(flags) :], variables)
        script.append(command)
        if "-" in flags:
            ignored.append(command)
    return "\n".join(script), ignored


def _judged(name: str, old: str | None, new: str) -> bool:
    """Whose weakening counts: a target or script named like a test run or running a test
    runner, or one that already ran any validator (a linter included) before the run."""
    if _TEST_TARGET.search(name) or runs_tests(new) or (old is not None and runs_tests(old)):
        return True
    return old is not None and bool(analyze_command(old).validators)


def compare_makefile(before: bytes | None, after: bytes) -> list[str]:
    old_rules, old_vars = parse_makefile(before.decode(errors="replace")) if before else ({}, {})
    new_rules, new_vars = parse_makefile(after.decode(errors="replace"))
    found: list[str] = []
    for target in {**old_rules, **new_rules}:
        if target.startswith("."):
            continue
        old_script, old_ignored = _recipe(old_rules.get(target, []), old_vars)
        new_script, new_ignored = _recipe(new_rules.get(target, []), new_vars)
        if not _judged(target, old_script if target in old_rules else None, new_script):
            continue
        if target not in new_rules:
            found.append(f"target `{target}` was removed")
            continue
        for command in new_ignored:
            if command not in old_ignored and analyze_command(command).validators:
                found.append(f"`{target}` recipe line `-{command}` ignores its failure")
        found += [f"`{target}`: {w}" for w in command_weakenings(old_script, new_script)]
        ignore = new_rules.get(".IGNORE")
        if ignore is not None and ".IGNORE" not in old_rules:
            prereqs = " ".join(x for x in ignore if x.startswith("#prereqs")).split()[1:]
            if not prereqs or target in prereqs:
                found.append(f".IGNORE makes make ignore every failure of `{target}`")
    old_flags, new_flags = old_vars.get("MAKEFLAGS", ""), new_vars.get("MAKEFLAGS", "")
    if re.search(r"(^|\s)(-\w*i|--ignore-errors)", new_flags) and not re.search(
        r"(^|\s)(-\w*i|--ignore-errors)", old_flags
    ):
        found.append("MAKEFLAGS now ignores errors (-i)")
    if new_vars.get("SHELL") != old_vars.get("SHELL") and re.search(
        r"true|echo|:", new_vars.get("SHELL", "")
    ):
        found.append(f"SHELL = {new_vars['SHELL']} runs no recipe for real")
    return found


def _scripts_weakened(old: Mapping[str, str], new: Mapping[str, str], where: str) -> list[str]:
    found = []
    for name in {**old, **new}:
        if not _judged(name, old.get(name), new.get(name, "")):
            continue
        if name not in new:
            found.append(f"{where} `{name}` was removed")
            continue
        found += [
            f"{where} `{name}`: {w}" for w in command_weakenings(old.get(name, ""), new[name])
        ]
    return found


def _load_json(data: bytes | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        doc = json.loads(data.decode("utf-8", errors="replace"))
    except json.JSONDecodeError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _str_dict(value: Any) -> dict[str, str]:
    return {k: v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


def compare_package_json(before: bytes | None, after: bytes) -> list[str]:
    old, new = _load_json(before), _load_json(after)
    found = _scripts_weakened(
        _str_dict(old.get("scripts")), _str_dict(new.get("scripts")), "script"
    )
    for key in ("jest", "mocha", "ava", "vitest"):
        found += [
            f"{key}: {w}"
            for w in compare_runner_options(_flatten(old.get(key)), _flatten(new.get(key)))
        ]
    return found


def _flatten(value: Any) -> dict[str, list[str]]:
    """A runner config section as key -> list of string values (booleans as 'true'/'false')."""
    if not isinstance(value, dict):
        return {}
    flat: dict[str, list[str]] = {}
    for key, item in value.items():
        if isinstance(item, list):
            flat[key] = [str(x) for x in item]
        elif isinstance(item, str | bool | int):
            flat[key] = [str(item).lower() if isinstance(item, bool) else str(item)]
    return flat


def compare_runner_options(old: Mapping[str, list[str]], new: Mapping[str, list[str]]) -> list[str]:
    """Runner options: more ignore/exclude entries, narrower match/roots, passWithNoTests."""
    found = []
    for key, values in new.items():
        before = old.get(key, [])
        low = key.lower()
        if "ignore" in low or "exclude" in low:
            added = [v for v in values if v not in before]
            if added and "coverage" not in low:
                found.append(f"{key} now also skips {added}")
        elif low in (
            "testmatch",
            "testregex",
            "roots",
            "include",
            "spec",
            "files",
            "match",
            "testnamepattern",
            "grep",
            "only",
        ):
            if before and [v for v in before if v not in values]:
                found.append(f"{key} narrowed from {before} to {values}")
            elif not before and low in ("testnamepattern", "grep", "only"):
                found.append(f"{key} {values} runs only matching tests")
        elif low == "passwithnotests" and values == ["true"] and before != ["true"]:
            found.append("passWithNoTests: true passes when no test runs")
    return found


def text_options(data: bytes | None) -> dict[str, list[str]]:
    """Options of a JS config file (jest.config.js, vitest.config.ts, .mocharc.*), read loosely."""
    if not data:
        return {}
    text = data.decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        return _flatten(_load_json(data))
    found: dict[str, list[str]] = {}
    for key, body in re.findall(r"(\w+)\s*:\s*\[([^\]]*)\]", text):
        found.setdefault(key, []).extend(re.findall(r"""['"`]([^'"`]*)['"`]""", body))
    for key, value in re.findall(r"(\w+)\s*:\s*(true|false|'[^']*'|\"[^\"]*\")", text):
        found.setdefault(key, []).append(value.strip("'\""))
    return found


_CI_FLAGS = (
    (re.compile(r"continue-on-error:\s*(true|\$\{\{\s*true\s*\}\})"), "continue-on-error: true"),
    (re.compile(r"allow_failure:\s*true"), "allow_failure: true"),
    (re.compile(r"\bif:\s*(false|\$\{\{\s*false\s*\}\})"), "if: false disables a step"),
)


def _ci_scripts(text: str) -> str:
    """The shell lines of `run:` / `script:` entries (single line, block or list)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        match = re.match(
            r"^(\s*)(?:-\s*)?(run|script|command|commands|before_script)\s*:\s*(.*)$", line
        )
        if not match:
            continue
        indent, _, rest = match.groups()
        rest = rest.strip()
        if rest not in ("|", ">", "|-", ">-", "|+", ">+", ""):
            out.append(rest.strip("'\""))
            continue
        for follow in lines[i + 1 :]:
            if follow.strip() and len(follow) - len(follow.lstrip()) <= len(indent):
                break
            item = follow.strip()
            if not rest and item.startswith("- "):
                item = item[2:]
            out.append(item.strip("'\""))
    return "\n".join(out)


def compare_ci(before: bytes | None, after: bytes) -> list[str]:
    old = before.decode(errors="replace") if before else ""
    new = after.decode(errors="replace")
    found = []
    for pattern, what in _CI_FLAGS:
        if len(pattern.findall(new)) > len(pattern.findall(old)):
            found.append(f"{what} added")
    found += command_weakenings(_ci_scripts(old), _ci_scripts(new)) if old else []
    return found


def compare_cargo(before: bytes | None, after: bytes) -> list[str]:
    def count(data: bytes | None) -> int:
        text = data.decode(errors="replace") if data else ""
        return len(re.findall(r"^\s*(test|autotests|harness)\s*=\s*false", text, re.M))

    return (
        ["Cargo.toml now turns tests off (test/autotests/harness = false)"]
        if count(after) > count(before)
        else []
    )


def _nox_commands(data: bytes | None) -> tuple[str, int]:
    try:
        tree = ast.parse(data or b"")
    except (SyntaxError, ValueError):
        return "", 0
    lines, codes = [], 0
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (node.func.attr in ("run", "run_always"))
        ):
            words = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            lines.append(" ".join(words))
            codes += any(k.arg == "success_codes" for k in node.keywords)
    return "\n".join(lines), codes


def compare_noxfile(before: bytes | None, after: bytes) -> list[str]:
    old, old_codes = _nox_commands(before)
    new, new_codes = _nox_commands(after)
    found = command_weakenings(old, new) if before else []
    if new_codes > old_codes:
        found.append("session.run(..., success_codes=...) accepts failing exit codes")
    return found


def pyproject_scripts(data: bytes | None) -> dict[str, str]:
    """Task runners' scripts in pyproject.toml (poe, hatch, pdm, taskipy, rye)."""
    doc = read_toml(data or b"") or {}
    tool = doc.get("tool", {}) if isinstance(doc.get("tool"), dict) else {}
    tables: list[tuple[str, Any]] = [
        (n, tool.get(n, {}).get(k))
        for n, k in (("poe", "tasks"), ("pdm", "scripts"), ("taskipy", "tasks"), ("rye", "scripts"))
    ]
    envs = tool.get("hatch", {}).get("envs", {})
    tables += [(f"hatch.{e}", v.get("scripts")) for e, v in envs.items() if isinstance(v, dict)]
    found: dict[str, str] = {}
    for prefix, table in tables:
        for name, value in (table or {}).items() if isinstance(table, dict) else []:
            if isinstance(value, dict):
                value = value.get("cmd") or value.get("shell") or value.get("cmds") or ""
            if isinstance(value, list):
                value = "\n".join(str(v) for v in value)
            if isinstance(value, str):
                found[f"{prefix}:{name}"] = value
    return found


def compare_pyproject_scripts(before: bytes | None, after: bytes) -> list[str]:
    return _scripts_weakened(pyproject_scripts(before), pyproject_scripts(after), "task")
