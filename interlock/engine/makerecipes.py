"""The recipe lines `make TARGET` runs, read from a Makefile (for judging `make test` as the
commands it runs).

What is read: variables (`=`, `:=`, `::=`, `?=`, `+=`, `export`, `override`), rules
(`a b: prereqs`, `target: ; recipe`), recipe lines with their `@`/`-`/`+` prefixes and `\\`
continuations, prerequisites (run first, depth first), the default goal (`.DEFAULT_GOAL` or the
first ordinary target), `.IGNORE`, `.ONESHELL`, `SHELL` and `.SHELLFLAGS` (`-o pipefail`).
Expansion: `$(VAR)`/`${VAR}`, `$(MAKE)`, `$$`, `$@`/`$<`/`$^`; anything else (functions, `$(shell
...)`, variables defined elsewhere) becomes a shell variable whose value is unknown, never
a command. `include` and pattern rules are not followed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ASSIGN = re.compile(
    r"^(?:(?:export|override)\s+)*(?P<name>[A-Za-z_.][A-Za-z0-9_.-]*)\s*"
    r"(?P<op>::=|:::=|:=|\?=|\+=|!=|=)\s*(?P<value>.*)$"
)
_RULE = re.compile(
    r"^(?P<targets>[^:=#\t][^:=#]*?)\s*::?(?!=)\s*(?P<prereqs>[^;#]*)(;(?P<recipe>.*))?$"
)
_REF = re.compile(r"\$(?:\((?P<paren>[^()]*)\)|\{(?P<brace>[^{}]*)\}|(?P<char>[@<^?*$]))")
_MAX_TARGETS = 24
_MAX_DEPTH = 8


@dataclass
class Recipe:
    """One recipe line as make hands it to the shell: `text` expanded, prefixes removed."""

    target: str
    text: str
    ignore_errors: bool


@dataclass
class Makefile:
    variables: dict[str, str] = field(default_factory=dict)
    rules: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    first: str | None = None
    ignore: set[str] = field(default_factory=set)
    ignore_all: bool = False
    oneshell: bool = False


def _logical_lines(text: str) -> list[str]:
    joined: list[str] = []
    buffer = ""
    for raw in text.splitlines():
        if raw.endswith("\\"):
            buffer += raw[:-1] + " "
            continue
        joined.append(buffer + raw)
        buffer = ""
    if buffer:
        joined.append(buffer)
    return joined


def parse(text: str) -> Makefile:
    mk = Makefile()
    current: list[str] | None = None
    for line in _logical_lines(text):
        if line.startswith("\t"):
            if current is not None:
                current.append(line[1:])
            continue
        stripped = line.split("#", 1)[0].rstrip() if not line.startswith("#") else ""
        if not stripped.strip():
            continue
        assign = _ASSIGN.match(stripped.strip())
        if assign is not None:
            _assign(mk, assign.group("name"), assign.group("op"), assign.group("value"))
            current = None
            continue
        rule = _RULE.match(stripped)
        if rule is None:
            current = None
            continue
        targets = rule.group("targets").split()
        prereqs = rule.group("prereqs").split()
        current = [rule.group("recipe").strip()] if rule.group("recipe") else []
        _special(mk, targets, prereqs)
        for target in targets:
            mk.rules[target] = (prereqs, current)
            if mk.first is None and not target.startswith(".") and "%" not in target:
                mk.first = target
    return mk


def _assign(mk: Makefile, name: str, op: str, value: str) -> None:
    if op == "?=" and name in mk.variables:
        return
    if op == "+=":
        mk.variables[name] = f"{mk.variables.get(name, '')} {value}".strip()
    elif op != "!=":  # `!=` runs a shell command: its value stays unknown
        mk.variables[name] = value.strip()


def _special(mk: Makefile, targets: list[str], prereqs: list[str]) -> None:
    if ".IGNORE" in targets:
        if prereqs:
            mk.ignore.update(prereqs)
        else:
            mk.ignore_all = True
    if ".ONESHELL" in targets:
        mk.oneshell = True


def expand(
    mk: Makefile, text: str, target: str = "", prereqs: tuple[str, ...] = (), depth: int = 0
) -> str:
    """Expand make references in a recipe line; unknown ones become unknown shell values."""

    def one(match: re.Match[str]) -> str:
        char = match.group("char")
        if char == "$":
            return "$"
        if char == "@":
            return target
        if char in ("<", "^", "?"):
            return (prereqs[0] if prereqs else "") if char == "<" else " ".join(prereqs)
        if char == "*":
            return "${MAKE_STEM}"
        name = match.group("paren") if match.group("paren") is not None else match.group("brace")
        name = (name or "").strip()
        if name in ("MAKE", "MAKE_COMMAND"):
            return "make"
        if name in mk.variables and depth < _MAX_DEPTH:
            return expand(mk, mk.variables[name], target, prereqs, depth + 1)
        safe = re.sub(r"[^A-Za-z0-9_]", "_", name)[:40] or "X"
        return "${MAKE_" + safe + "}"

    return _REF.sub(one, text)


def _prefixes(line: str) -> tuple[str, bool]:
    """Strip `@`, `-`, `+` (any order); True when `-` asks make to ignore a failure."""
    ignore = False
    stripped = line.lstrip()
    while stripped[:1] in ("@", "-", "+"):
        ignore = ignore or stripped[0] == "-"
        stripped = stripped[1:].lstrip()
    return stripped, ignore


def _shell_prefix(mk: Makefile) -> str:
    flags = mk.variables.get(".SHELLFLAGS", "")
    shell = mk.variables.get("SHELL", "")
    parts = []
    if "pipefail" in flags and "bash" in shell:
        parts.append("set -o pipefail")
    if re.search(r"(^|\s)-[a-z]*e", flags):
        parts.append("set -e")
    return "; ".join(parts) + "; " if parts else ""


def recipes(mk: Makefile, goals: tuple[str, ...]) -> list[Recipe]:
    """The recipe lines `make GOALS` runs, prerequisites first (each target once)."""
    wanted = goals or ((mk.variables.get(".DEFAULT_GOAL") or mk.first or ""),)
    done: set[str] = set()
    found: list[Recipe] = []
    prefix = _shell_prefix(mk)

    def visit(target: str, depth: int) -> None:
        if target in done or target not in mk.rules or len(done) >= _MAX_TARGETS:
            return
        done.add(target)
        prereqs, lines = mk.rules[target]
        if depth < _MAX_DEPTH:
            for prereq in prereqs:
                visit(prereq, depth + 1)
        ignore_all = mk.ignore_all or target in mk.ignore
        stripped = [
            _prefixes(expand(mk, line, target, tuple(prereqs))) for line in lines if line.strip()
        ]
        if mk.oneshell and stripped:
            text = "\n".join(text for text, _ in stripped)
            found.append(Recipe(target, prefix + text, ignore_all or stripped[0][1]))
            return
        for text, ignore in stripped:
            found.append(Recipe(target, prefix + text, ignore_all or ignore))

    for goal in wanted:
        if goal:
            visit(goal, 0)
    return found
