"""Deferred standard-library modules: not run until used, then the very module a plain import
gives; and a cold check defers them and still judges as the full CLI does."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_probe(code: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run code as the installed launcher runs interlock: -I -S, site-packages on the path."""
    paths = [str(ROOT), sysconfig.get_paths()["purelib"]]
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path += {paths!r}\n{code}"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_deferred_module_runs_at_its_first_use_and_is_then_the_real_module():
    out = run_probe(
        """
from interlock import lazymodules
print(lazymodules.defer(("inspect", "base64", "no_such_module_here")))
import inspect, base64
print("ast" in sys.modules, "tokenize" in sys.modules)
import dataclasses
@dataclasses.dataclass
class NoDoc:
    x: int
print(NoDoc.__doc__, "ast" in sys.modules)
print(base64.b64decode("aGk=").decode(), type(inspect).__name__, inspect.isclass(NoDoc))
"""
    )
    assert out.splitlines() == [
        "['inspect', 'base64']",
        "False False",
        "NoDoc(x: int) True",
        "hi module True",
    ]


def test_modules_imported_already_are_left_alone():
    out = run_probe(
        "import inspect\nfrom interlock import lazymodules\n"
        "print(lazymodules.defer(('inspect',)), type(sys.modules['inspect']).__name__)"
    )
    assert out == "[] module"


def test_a_cold_check_runs_neither_inspect_nor_ipaddress(git_repo):
    out = run_probe(
        "from interlock.__main__ import main\n"
        "code = main(['check', '--json', 'git status && ls -la'])\n"
        "ran = [m for m in ('inspect', 'ipaddress', 'base64') if m in sys.modules and\n"
        "       type(sys.modules[m]).__name__ != '_Deferred']\n"
        "ran += [m for m in ('ast', 'tokenize', 'dis') if m in sys.modules]\n"
        "print('\\n', code, ran)",
        cwd=git_repo,
        env={"INTERLOCK_NO_DAEMON": "1", "PATH": "/usr/bin:/bin"},
    )
    assert out.splitlines()[-1].strip() == "0 []"
