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
from typing import Protocol

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


# -- installs that replace interlock -------------------------------------------------------


class TreeReader(Protocol):
    """Reads the files of the tree (engine.scriptfiles.ScriptFiles)."""

    def text(self, cwd: str | None, name: str) -> str | None: ...

    def present(self, cwd: str | None, name: str) -> bool: ...


# program -> the words that install packages (after its global options)
_INSTALLERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "pip": (("install",),),
    "pipx": (("install",), ("reinstall",), ("upgrade",)),
    "uv": (("pip", "install"), ("tool", "install"), ("tool", "upgrade"), ("add",)),
    "poetry": (("add",),),
    "pdm": (("add",),),
    "pipenv": (("install",),),
    "conda": (("install",),),
    "mamba": (("install",),),
    "micromamba": (("install",),),
}
# Install options whose value is the next word (`-e` and the files of names are read).
_INSTALL_VALUE = _VALUE_OPTIONS | frozenset(
    "-t -i --index-url --extra-index-url -f --find-links --src --upgrade-strategy --platform "
    "--python-version --implementation --abi -C --config-settings --global-option --no-binary "
    "--only-binary --progress-bar --log --cache-dir --trusted-host --proxy --timeout --retries "
    "--exists-action --cert --client-cert --report --with --index --default-index --override "
    "--extra -E --optional --package --source --channel --suffix --pip-args --file".split()
)
_EDITABLE = ("-e", "--editable")
_NAME_FILES = ("-r", "--requirement", "--file")
_ARCHIVES = (".whl", ".tar.gz", ".tgz", ".tar.bz2", ".zip")
_NAMED_URL = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*@")
_EGG = re.compile(r"[#&]egg=([A-Za-z0-9._-]+)")
_MAX_NESTED = 3
_TILDE_PATH = re.compile(r"^~[A-Za-z0-9._-]*/[^$`'\"\\*?\[\]]*$")
_SETUP_NAME = re.compile(r"\bname\s*=\s*['\"]([^'\"]+)['\"]")


def _install_operands(words: Sequence[Word]) -> tuple[list[Word], list[Word], list[Word]]:
    """(requirements: names, paths, URLs; `-e` values: paths or URLs; files of requirements:
    `-r FILE`)."""
    requirements: list[Word] = []
    editables: list[Word] = []
    name_files: list[Word] = []
    k = 0
    while k < len(words):
        word, text = words[k], words[k].literal()
        if text is None or not text.startswith("-"):
            requirements.append(word)
            k += 1
            continue
        name, eq, attached = text.partition("=")
        short = name[:2] if not name.startswith("--") and len(name) > 2 else None
        if short in _EDITABLE + _NAME_FILES:  # `-e.`, `-rreqs.txt`
            name, eq, attached = short, "=", text[2:]
        if name in _INSTALL_VALUE or name in _EDITABLE:
            value = (
                Word(attached, attached) if eq else (words[k + 1] if k + 1 < len(words) else None)
            )
            k += 1 if eq else 2
            if value is not None and name in _EDITABLE:
                editables.append(value)
            elif value is not None and name in _NAME_FILES:
                name_files.append(value)
            continue
        k += 1
    return requirements, editables, name_files


def _dist_name(filename: str) -> str:
    """The project a wheel or sdist file holds (`interlock-0.1-py3-none-any.whl`)."""
    if filename.endswith(".whl"):
        return filename.split("-")[0]
    stem = re.sub(r"\.(tar\.gz|tgz|tar\.bz2|zip)$", "", filename)
    return re.sub(r"-[0-9][^-]*$", "", stem)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _project_name(directory: str, cwd: str | None, files: TreeReader) -> str | None:
    """The project name a source tree declares: pyproject.toml ([project] or
    [tool.poetry]), setup.cfg [metadata], or a literal `name=` in setup.py; None if none."""
    import configparser
    import tomllib

    pyproject = files.text(cwd, f"{directory}/pyproject.toml")
    if pyproject is not None:
        try:
            data = tomllib.loads(pyproject)
        except tomllib.TOMLDecodeError:
            data = {}
        poetry = data.get("tool", {}).get("poetry", {})
        for table in (data.get("project", {}), poetry):
            if isinstance(table, dict) and isinstance(table.get("name"), str):
                return str(table["name"])
    setup_cfg = files.text(cwd, f"{directory}/setup.cfg")
    if setup_cfg is not None:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg)
            if parser.has_option("metadata", "name"):
                return parser.get("metadata", "name")
        except configparser.Error:
            pass
    setup_py = files.text(cwd, f"{directory}/setup.py")
    found = _SETUP_NAME.search(setup_py or "")
    return found.group(1) if found else None


def _is_path(text: str) -> bool:
    return text.startswith((".", "/", "~")) or "/" in text or text.endswith(_ARCHIVES)


def _path_reason(text: str, cwd: str | None, files: TreeReader | None) -> str | None:
    directory = re.sub(r"\[[^\]]*\]$", "", text).rstrip("/") or "/"
    base = directory.rpartition("/")[2]
    if base.endswith(_ARCHIVES):
        named = _dist_name(base)
        return f"{text} holds the project {named}" if _canonical(named) == PACKAGE else None
    if files is None or directory.startswith("~"):  # the text alone: the directory's name
        return f"{text} is a tree named interlock" if base == PACKAGE else None
    project = _project_name(directory, cwd, files)
    if project is not None:
        if _canonical(project) != PACKAGE:
            return None
        return f"{text} is the source of the project {project}"
    if not files.present(cwd, directory):
        return None  # nothing there: the installer fails, nothing is replaced
    return f"{text} is a tree whose project name interlock cannot read"


def _requirement_reason(
    word: Word, cwd: str | None, files: TreeReader | None, editable: bool = False
) -> str | None:
    """Why installing this requirement (`-e` value: editable) replaces (or may replace)
    interlock, else None."""
    text = word.literal()
    if text is None and not _TILDE_PATH.match(word.text):
        return f"{word.text} is a package known only at run time"
    text = word.text if text is None else text  # `~/src/x`: a path, whatever $HOME is
    named = _NAMED_URL.match(text) or _EGG.search(text)
    if named is not None:
        name = named.group(1)
        return f"{text} is the project {name}" if _canonical(name) == PACKAGE else None
    if "://" in text:  # also `git+https://`, `git+ssh://`
        base = text.split("#")[0].rstrip("/").rpartition("/")[2].removesuffix(".git")
        named_base = _dist_name(base) if base.endswith(_ARCHIVES) else base
        return f"{text} is the project {base}" if _canonical(named_base) == PACKAGE else None
    if editable or _is_path(text):
        return _path_reason(text, cwd, files)
    return f"`{text}` names interlock's own package" if _normalized(text) == PACKAGE else None


def _reasons(
    requirements: list[Word], editables: list[Word], cwd: str | None, files: TreeReader | None
) -> list[str]:
    found = [_requirement_reason(w, cwd, files) for w in requirements]
    found += [_requirement_reason(w, cwd, files, editable=True) for w in editables]
    return [r for r in found if r is not None]


def _file_reasons(
    word: Word, cwd: str | None, files: TreeReader | None, depth: int = 0
) -> list[str]:
    """The requirements a file of names (`pip install -r reqs.txt`) lists that are interlock,
    and those of the files it names (`-r other.txt`, beside it); the file itself when it is
    only known at run time, cannot be read, or nests too deep."""
    path = word.literal()
    if path is None:
        return [f"the requirements file {word.text} is known only at run time"]
    if files is None:
        return []
    text = files.text(cwd, path)
    if text is None:
        return [f"the requirements file {path} cannot be read"] if files.present(cwd, path) else []
    if depth >= _MAX_NESTED:
        return [f"the requirements file {path} nests other files too deep"]
    lines = [line.split(" #")[0].strip() for line in text.splitlines()]
    words = [
        Word(w, w) for line in lines if line and not line.startswith("#") for w in line.split()
    ]
    requirements, editables, nested = _install_operands(words)
    reasons = _reasons(requirements, editables, cwd, files)
    here = path.rpartition("/")[0]
    for other in nested:
        name = other.literal() or ""
        beside = name if name.startswith("/") or not here else f"{here}/{name}"
        reasons += _file_reasons(Word(beside, beside), cwd, files, depth + 1)
    return reasons


def replaces_interlock(
    program: str | None, args: Sequence[Word], cwd: str | None, files: TreeReader | None
) -> str | None:
    """Why `program args...` installs a package over interlock's (or may), else None: a
    requirement named interlock (`pip install interlock==0.1`, `uv tool install interlock`), a
    source tree or archive whose project is interlock (`pip install -e /tmp/other` when its
    pyproject.toml says so; files: reads the tree, None judges a path by its name), a name or
    file of names known only at run time. It replaces or shadows the installed interlock, so
    every door runs another program."""
    installs = _INSTALLERS.get(_program(program))
    if installs is None:
        return None
    positionals, _ = _read(args)
    for sub in installs:
        if len(positionals) < len(sub) or any(positionals[k] != word for k, word in enumerate(sub)):
            continue
        rest = list(args)
        for word in sub:  # the operands after the subcommand's own words
            rest = rest[next(k for k, w in enumerate(rest) if w.literal() == word) + 1 :]
        requirements, editables, name_files = _install_operands(rest)
        reasons = _reasons(requirements, editables, cwd, files)
        for name_file in name_files:
            reasons += _file_reasons(name_file, cwd, files)
        if reasons:
            return f"`{program} {' '.join(sub)}` would replace interlock's package: " + "; ".join(
                reasons
            )
    return None
