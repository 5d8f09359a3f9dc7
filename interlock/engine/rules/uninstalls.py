"""Would this command remove interlock's own package? Read as the package managers read it.

interlock is a Python package (installed by `install.sh` into its venv, by pip or pipx, by
`uv tool`, or as a project's dev dependency); removing it removes every door at once: the
hook shims and the wrapper find no interlock to run. So `pip uninstall -y interlock`,
`python3 -m pip uninstall interlock`, `uv pip uninstall`, `pipx uninstall` (`uninstall-all`),
`uv tool uninstall`, `uv remove`, `poetry remove`, `pdm remove`, `pipenv uninstall` and
`conda remove` of it turn interlock off as `interlock uninstall` does. A name known only at run
time, or read from a file (`pip uninstall -r reqs.txt`), may be interlock's, and removing
everything (`pipx uninstall-all`, `uv tool uninstall --all`) removes it too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from interlock.shell.model import Word

PACKAGE = "interlock"

_REMOVE_ALL = ("uninstall-all",)
# program -> the words that remove packages (after its global options)
_REMOVERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "pip": (("uninstall",),),
    "pipx": (("uninstall",), _REMOVE_ALL),
    "uv": (("pip", "uninstall"), ("tool", "uninstall"), ("remove",)),
    "poetry": (("remove",),),
    "pdm": (("remove",),),
    "pipenv": (("uninstall",),),
    "conda": (("remove",), ("uninstall",)),
    "mamba": (("remove",), ("uninstall",)),
    "micromamba": (("remove",), ("uninstall",)),
}
_PIP = re.compile(r"^pip[0-9.]*$")  # pip3, pip3.12
# Options whose value is the next word (a file of names, a group, an environment, a python).
_VALUE_OPTIONS = frozenset(
    "-r --requirement -c --constraint -p --python --prefix --target -n --name -G --group "
    "--root-user-action --directory --project".split()
)
_FROM_FILE = frozenset(("-r", "--requirement"))
_EVERYTHING = frozenset(("--all",))


def _program(name: str | None) -> str:
    """The package manager a program name is (`pip3.12` is pip; "" for none)."""
    if name is not None and _PIP.match(name):
        return "pip"
    return name or ""


def _normalized(requirement: str) -> str:
    """A requirement's project name, as PyPI compares it with `interlock` (`Interlock[x]>=1`)."""
    return re.split(r"[\[<>=!~;@ ]", requirement.strip())[0].lower()


def _read(words: Sequence[Word]) -> tuple[list[str | None], bool]:
    """The positional words (None: known only at run time) and whether an option makes the
    names unknown (a requirements file) or everything (`--all`)."""
    positionals: list[str | None] = []
    unknown = False
    skip = False
    for word in words:
        text = word.literal()
        if skip:
            skip = False
        elif text is None or not text.startswith("-"):
            positionals.append(text)
        else:
            name = text.partition("=")[0]
            unknown = unknown or name in _FROM_FILE | _EVERYTHING or text[:2] in _FROM_FILE
            skip = name in _VALUE_OPTIONS and "=" not in text
    return positionals, unknown


def removes_interlock(program: str | None, args: Sequence[Word]) -> bool:
    """`program args...` (a package manager's name, `pip3` as `pip`) removes interlock's
    package, or may (see the module docstring)."""
    removals = _REMOVERS.get(_program(program))
    if removals is None:
        return False
    positionals, unknown = _read(args)
    for sub in removals:
        if len(positionals) < len(sub):
            continue
        if any(positionals[k] not in (None, word) for k, word in enumerate(sub)):
            continue
        if unknown or sub == _REMOVE_ALL:
            return True
        names = positionals[len(sub) :]
        if any(n is None or _normalized(n) == PACKAGE for n in names):
            return True
    return False
