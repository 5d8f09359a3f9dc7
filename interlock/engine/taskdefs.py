"""Task definitions read from the tree: the tree fact behind judging `npm test`, `make test`,
`tox -e py311`, `hatch run test` or `pdm run test` as the commands they run.

`TaskFiles(start, root)` answers a `TaskRef` (engine/rules/validators/tasks.py) with the
`Definition`s its file gives: package.json `scripts` (the script, with the arguments npm
appends), Makefile recipes (makerecipes.py), tox.ini / setup.cfg `[testenv]` commands (with
`{posargs}`, a leading `-` and `ignore_outcome`), pyproject.toml `[tool.hatch.envs.*.scripts]`
and `[tool.pdm.scripts]`. Files are read only inside the worktree; a file that is missing,
unreadable or malformed gives no definition (the task is then judged by its name, as before).
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from dataclasses import replace
from pathlib import Path

from interlock.engine.rules.validators.tasks import Definition, TaskRef, shell_words

# Imported where used (configparser, json, tomllib, makerecipes): every check in a repository
# makes a TaskFiles, few look a task up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import configparser
    from typing import Any

_MAX_BYTES = 1 << 20
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


class TaskFiles:
    """Reads definitions for tasks run from `start` (an absolute directory) in the worktree
    at `root`; each file is read at most once per check."""

    def __init__(self, start: str, root: Path, cache: dict[str, str | None] | None = None) -> None:
        self.start = start
        self.root = str(root)
        self.cache: dict[str, str | None] = {} if cache is None else cache

    def at(self, directory: str) -> TaskFiles:
        """A reader for a definition's own commands, which run where its file is."""
        return TaskFiles(directory or self.start, Path(self.root), self.cache)

    def __call__(self, ref: TaskRef) -> list[Definition]:
        import configparser

        directory = self.directory(ref)
        if directory is None:
            return []
        found: list[Definition] = []
        try:
            if ref.kind == "npm":
                found = self.npm(directory, ref)
            elif ref.kind == "make":
                found = self.make(directory, ref)
            elif ref.kind == "tox":
                found = self.tox(directory, ref)
            elif ref.kind in ("hatch", "pdm", "rye"):
                found = self.pyproject(directory, ref)
        except (ValueError, TypeError, KeyError, AttributeError, configparser.Error):
            return []  # a malformed file defines nothing we can read
        return [replace(d, directory=directory) for d in found]

    def directory(self, ref: TaskRef) -> str | None:
        if ref.cwd is None:
            return None
        base = ref.cwd if posixpath.isabs(ref.cwd) else posixpath.join(self.start, ref.cwd)
        path = posixpath.normpath(posixpath.join(base, ref.directory))
        inside = path == self.root or path.startswith(self.root.rstrip("/") + "/")
        return path if inside else None

    def read(self, path: str) -> str | None:
        if path not in self.cache:
            try:
                if os.path.getsize(path) > _MAX_BYTES:
                    self.cache[path] = None
                else:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        self.cache[path] = handle.read()
            except OSError:
                self.cache[path] = None
        return self.cache[path]

    # -- package.json ------------------------------------------------------------------------
    def label(self, path: str) -> str:
        return posixpath.relpath(path, self.root)

    def npm(self, directory: str, ref: TaskRef) -> list[Definition]:
        path = posixpath.join(directory, "package.json")
        text = self.read(path)
        if text is None:
            return []
        import json

        scripts = json.loads(text).get("scripts") or {}
        script = scripts.get(ref.names[0]) if isinstance(scripts, dict) else None
        if not isinstance(script, str):
            return []
        extra = " ".join(shlex.quote(a) for a in ref.args)
        line = f"{script} {extra}".strip()
        return [Definition(f"{self.label(path)} scripts.{ref.names[0]}", line)]

    # -- Makefile ----------------------------------------------------------------------------
    def make(self, directory: str, ref: TaskRef) -> list[Definition]:
        from interlock.engine import makerecipes

        names = (ref.file,) if ref.file else _MAKEFILES
        for name in names:
            path = posixpath.join(directory, name)
            text = self.read(path)
            if text is None:
                continue
            mk = makerecipes.parse(text)
            label = self.label(path)
            return [
                Definition(f"{label} recipe of `{r.target}`", r.text, r.ignore_errors)
                for r in makerecipes.recipes(mk, ref.names)
            ]
        return []

    # -- tox ---------------------------------------------------------------------------------
    def tox(self, directory: str, ref: TaskRef) -> list[Definition]:
        for name, prefix in ((ref.file or "tox.ini", ""), ("setup.cfg", "tox:")):
            path = posixpath.join(directory, name)
            text = self.read(path)
            if text is None or (prefix and "[tox:tox]" not in text):
                continue
            import configparser

            parser = configparser.ConfigParser(interpolation=None, strict=False)
            parser.read_string(text)
            return _tox_definitions(parser, ref, self.label(path), prefix)
        return []

    # -- pyproject scripts -------------------------------------------------------------------
    def pyproject(self, directory: str, ref: TaskRef) -> list[Definition]:
        text = self.read(posixpath.join(directory, "pyproject.toml"))
        if text is None:
            return []
        import tomllib

        tool = tomllib.loads(text).get("tool", {})
        if ref.kind == "hatch":
            env, _, script = ref.names[0].rpartition(":")
            scripts = tool.get("hatch", {}).get("envs", {}).get(env or "default", {})
            return _hatch(scripts.get("scripts", {}), script, ref.args, env or "default")
        table = tool.get(ref.kind, {}).get("scripts", {})
        return _pdm(table, ref.names[0], ref.args, ref.kind, 0)


def _tox_definitions(
    parser: configparser.ConfigParser, ref: TaskRef, name: str, prefix: str
) -> list[Definition]:
    main = parser[f"{prefix}tox"] if parser.has_section(f"{prefix}tox") else {}
    envs = ref.names or tuple(
        e.strip() for e in re.split(r"[,\s]+", main.get("envlist", main.get("env_list", ""))) if e
    )
    found: list[Definition] = []
    for env in envs[:8]:
        section = f"{prefix}testenv:{env}"
        own = parser[section] if parser.has_section(section) else {}
        base = parser[f"{prefix}testenv"] if parser.has_section(f"{prefix}testenv") else {}
        commands = own.get("commands", base.get("commands", ""))
        outcome = own.get("ignore_outcome", base.get("ignore_outcome", "false"))
        ignore_all = outcome.strip().lower() == "true"
        for line in _tox_lines(commands, env, parser, ref.args):
            ignore = line.startswith("-")
            text = shell_words(line.lstrip("-").strip())
            found.append(Definition(f"{name} [{section}] commands", text, ignore_all or ignore))
    return found


def _tox_lines(
    commands: str, env: str, parser: configparser.ConfigParser, posargs: tuple[str, ...]
) -> list[str]:
    factors = set(re.split(r"[-_.]", env)) | {env}

    def substitute(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner.startswith("posargs"):
            default = inner.split(":", 1)[1] if ":" in inner else ""
            return " ".join(shlex.quote(a) for a in posargs) if posargs else default
        ref = re.match(r"^\[([^\]]+)\]([\w-]+)$", inner)
        if ref and parser.has_option(ref.group(1), ref.group(2)):
            return parser.get(ref.group(1), ref.group(2))
        if inner in ("envpython", "envbindir"):
            return "python"
        return "${TOX_" + re.sub(r"\W", "_", inner)[:30] + "}"

    lines: list[str] = []
    for raw in re.sub(r"\\\n", " ", commands).splitlines():
        line = re.sub(r"\{([^{}]*)\}", substitute, raw.strip())
        conditional = re.match(r"^([\w,!-]+):\s+(.*)$", line)
        if conditional is not None:
            wanted = conditional.group(1).split(",")
            if not any(w.lstrip("!") in factors for w in wanted):
                continue
            line = conditional.group(2)
        for part in line.splitlines():
            if part.strip():
                lines.append(part.strip())
    return lines


def _hatch(
    scripts: Any, name: str, args: tuple[str, ...], env: str, depth: int = 0
) -> list[Definition]:
    if not isinstance(scripts, dict) or name not in scripts or depth > 4:
        return []
    value = scripts[name]
    commands = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    found: list[Definition] = []
    quoted = " ".join(shlex.quote(a) for a in args)

    def fill(match: re.Match[str]) -> str:
        return quoted or (match.group(1) or ":")[1:]

    for command in commands:
        if not isinstance(command, str):
            continue
        ignore = command.startswith("- ")
        command = command[2:] if ignore else command
        head = command.split(" ", 1)[0]
        if head in scripts and head != name:  # a script that runs another script
            found.extend(_hatch(scripts, head, args, env, depth + 1))
            continue
        text = re.sub(r"\{args(:[^}]*)?\}", fill, command)
        label = f"pyproject.toml [tool.hatch.envs.{env}.scripts] {name}"
        found.append(Definition(label, text, ignore))
    return found


def _pdm(table: Any, name: str, args: tuple[str, ...], kind: str, depth: int) -> list[Definition]:
    if not isinstance(table, dict) or name not in table or depth > 4:
        return []
    value = table[name]
    label = f"pyproject.toml [tool.{kind}.scripts] {name}"
    extra = " ".join(shlex.quote(a) for a in args)
    if isinstance(value, str):
        return [Definition(label, f"{shell_words(value)} {extra}".strip())]
    if not isinstance(value, dict):
        return []
    keep_going = bool(value.get("keep_going"))
    if isinstance(value.get("shell"), str):
        return [Definition(label, f"{value['shell']} {extra}".strip())]
    cmd = value.get("cmd")
    if isinstance(cmd, list):
        cmd = " ".join(shlex.quote(str(c)) for c in cmd)
    if isinstance(cmd, str):
        return [Definition(label, f"{shell_words(cmd)} {extra}".strip())]
    steps = value.get("composite", value.get("chain"))
    found: list[Definition] = []
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, str) and step.split(" ", 1)[0] in table:
            inner = _pdm(table, step.split(" ", 1)[0], (), kind, depth + 1)
            found.extend(Definition(d.origin, d.text, d.ignore_errors or keep_going) for d in inner)
        elif isinstance(step, str):
            found.append(Definition(label, shell_words(step), keep_going))
    return found
