"""Write the `interlock-sh` launcher of an installed interlock.

`shell/interlock-sh` finds its interpreter and the package next to itself when run from a
checkout. An install (install.sh) writes a launcher with the interpreter of interlock's own
virtualenv and the directories holding interlock and its dependencies written in, so it starts
`python -I -S` with exactly those on sys.path and reads nothing from the environment (no
PYTHONPATH, no user site, no other interlock). It is a Python script run by its `#!` line,
which saves the `sh` in between (~1 ms a command); when the interpreter's path cannot go in a
`#!` line (spaces, length), it is the sh template with `@PYTHON@` and `@PATHS@` filled in.

    python -m interlock.run.launcher TEMPLATE DEST
"""

from __future__ import annotations

import os
import shlex
import sys
import sysconfig
from pathlib import Path

from interlock.state import atomic_write


def import_paths() -> list[str]:
    """Where this interpreter finds interlock (first) and its dependencies."""
    here = str(Path(__file__).resolve().parents[2])
    paths = [here]
    for key in ("purelib", "platlib"):
        extra = sysconfig.get_paths().get(key)
        if extra and extra not in paths:
            paths.append(extra)
    return paths


def render_launcher(template: str, python: str, paths: list[str]) -> str:
    """The launcher text: the template with its placeholders filled in."""
    if "python=@PYTHON@" not in template or "paths=@PATHS@" not in template:
        raise ValueError("the template lacks the python=@PYTHON@ and paths=@PATHS@ lines")
    text = template.replace("python=@PYTHON@", f"python={shlex.quote(python)}", 1)
    return text.replace("paths=@PATHS@", f"paths={shlex.quote(chr(10).join(paths))}", 1)


_DIRECT = """#!{python} -IS
# interlock-sh: bash, with every command checked by interlock before it runs (written by
# install.sh from shell/interlock-sh; see that file and interlock's README).
import sys

sys.path[:0] = {paths!r}
from interlock.run.wrapper import launch

launch()
"""


def render_direct(python: str, paths: list[str]) -> str | None:
    """The launcher as a Python script run by its #! line, or None when `python` cannot be
    named there (whitespace, or longer than Linux reads of a #! line)."""
    if any(c.isspace() for c in python) or len(python) > 200:
        return None
    return _DIRECT.format(python=python, paths=paths)


def write_launcher(template: Path, dest: Path) -> None:
    paths = import_paths()
    text = render_direct(sys.executable, paths) or render_launcher(
        template.read_text("utf-8"), sys.executable, paths
    )
    atomic_write(dest, text.encode("utf-8"), mode=0o755)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: python -m interlock.run.launcher TEMPLATE DEST\n")
        return 2
    write_launcher(Path(argv[0]), Path(argv[1]))
    sys.stdout.write(f"{os.fspath(argv[1])}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
