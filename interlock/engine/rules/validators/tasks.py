"""Task runners whose work is defined in a file of the tree: `npm test` (package.json
scripts), `make test` (the Makefile recipe), `tox -e py311` (tox.ini commands), `hatch run
test` / `pdm run test` / `rye run test` (pyproject scripts).

`reference(inv)` reads, from the words alone, which task an invocation runs and where its
definition lives (`TaskRef`). Reading the definition is a tree fact (engine/taskdefs.py); the
engine then judges the definition's commands like a command line of their own, so `npm test`
whose script is `jest --passWithNoTests || true` is as masked as that script typed out.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Protocol

from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.validators.build import MAKE
from interlock.engine.rules.validators.python import TOX
from interlock.shell.model import Word

_PM_GLOBAL = spec(
    short_value="wC", long_value="prefix workspace dir cwd filter", stop_at_positional=True
)
_PM_TEST = frozenset(("test", "t", "tst"))
# Package-manager commands that are not scripts (yarn and pnpm run scripts by bare name).
_PM_OWN = frozenset(
    "exec dlx x install i add remove rm uninstall ci create init up upgrade update link "
    "unlink publish pack why info view outdated audit config set cache store import".split()
)
_PM_RUN = frozenset(("run", "run-script", "rum", "urn"))
_SCRIPT_RUNNERS = {"hatch run": "hatch", "pdm run": "pdm", "rye run": "rye"}


@dataclass(frozen=True)
class TaskRef:
    """A task an invocation runs: `kind` (npm, make, tox, hatch, pdm, rye), the task names
    (empty: the default target or env list), the arguments passed on to it, and where the
    definition file is, relative to the invocation's cwd (`make -C sub` -> `sub`)."""

    kind: str
    names: tuple[str, ...]
    args: tuple[str, ...]
    directory: str
    cwd: str | None
    file: str | None = None  # `make -f build.mk`, `tox -c other.ini`
    manager: str = ""


@dataclass(frozen=True)
class Definition:
    """One command line a task runs, as its file defines it, e.g. origin `package.json
    scripts.test`, text `jest --passWithNoTests`. `ignore_errors`: the runner goes on and
    succeeds whatever it returns (`-cmd` in a Makefile or tox.ini, `ignore_outcome`)."""

    origin: str
    text: str
    ignore_errors: bool = False
    directory: str = ""  # where its commands run (the file's directory), absolute


class Lookup(Protocol):
    """Reads the definitions of a task (engine/taskdefs.TaskFiles)."""

    def __call__(self, ref: TaskRef) -> list[Definition]: ...

    def at(self, directory: str) -> Lookup:
        """The same reader for commands that run in `directory`."""
        ...


def _lits(words: tuple[Word, ...]) -> list[str] | None:
    values = [w.literal() for w in words]
    return None if any(v is None for v in values) else [v or "" for v in values]


def _npm(manager: str, words: tuple[Word, ...], inv: Invocation) -> TaskRef | None:
    parsed = parse_args(words, _PM_GLOBAL)
    rest = _lits(parsed.rest)
    if not rest:
        return None
    directory = parsed.last("--prefix", "--dir", "-C", "--cwd")
    command = rest[0]
    if command in _PM_TEST:
        name, extra = "test", rest[1:]
    elif command in _PM_RUN and len(rest) > 1:
        name, extra = rest[1], rest[2:]
    elif manager != "npm" and not command.startswith("-") and command not in _PM_OWN:
        name, extra = command, rest[1:]  # `yarn lint`, `pnpm build`
    else:
        return None
    if extra[:1] == ["--"]:
        extra = extra[1:]
    where = directory.value if directory is not None and directory.value else ""
    return TaskRef("npm", (name,), tuple(extra), where, inv.cwd, manager=manager)


def _make(words: tuple[Word, ...], inv: Invocation) -> TaskRef | None:
    args = parse_args(words, MAKE)
    operands = _lits(args.operands())
    if operands is None:
        return None
    targets = tuple(o for o in operands if "=" not in o)
    directory = "/".join(o.value or "" for o in args.values("-C", "--directory")) or ""
    makefile = args.last("-f", "--file", "--makefile")
    return TaskRef("make", targets, (), directory, inv.cwd, makefile.value if makefile else None)


def _tox(words: tuple[Word, ...], inv: Invocation) -> TaskRef | None:
    args = parse_args(words, TOX)
    envs = tuple(n for opt in args.values("-e") for n in (opt.value or "").split(",") if n)
    posargs = _lits(args.after_dashdash)
    config = args.last("-c", "--conf")
    return TaskRef("tox", envs, tuple(posargs or ()), "", inv.cwd, config.value if config else None)


def reference(inv: Invocation) -> TaskRef | None:
    """The task `inv` runs, when its definition lives in a file of the tree."""
    if inv.via and inv.via[-1] in _SCRIPT_RUNNERS:
        words = _lits(inv.argv)
        if words:
            kind = _SCRIPT_RUNNERS[inv.via[-1]]
            return TaskRef(kind, (words[0],), tuple(words[1:]), "", inv.cwd)
        return None
    name = inv.name
    rest = inv.argv[1:]
    if name in ("npm", "yarn", "pnpm", "bun"):
        return _npm(name, rest, inv)
    if name in ("make", "gmake"):
        return _make(rest, inv)
    if name == "tox":
        return _tox(rest, inv)
    return None


def shell_words(text: str) -> str:
    """A command run without a shell (tox, pdm's `cmd`) as a shell line: each argument
    quoted, so `||` in it stays an argument, as the runner would pass it."""
    try:
        return " ".join(shlex.quote(w) for w in shlex.split(text))
    except ValueError:
        return text
