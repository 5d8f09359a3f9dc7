"""What walk() records besides the invocations, for exitflow: the Step each simple command
became (keyed by the ids of the trampolines leading to it and of the command itself) and the
scripts trampolines hand over to."""

from __future__ import annotations

from dataclasses import dataclass, field

from interlock.engine.invocation import Invocation
from interlock.engine.shellstate import Success
from interlock.shell.model import ParseResult

StepKey = tuple[int, ...]


@dataclass(frozen=True)
class Origin:
    """Where a command read from a script file stands: `x.sh line 3` (`a.sh line 2, b.sh
    line 1` through nested files), and the files, absolute, outermost first."""

    text: str
    files: tuple[str, ...]


@dataclass
class InnerScript:
    """A command line a trampoline runs, as read: steps inside are keyed under `key`."""

    result: ParseResult
    key: StepKey
    via: str
    same_shell: bool = False
    errexit: bool = False
    pipefail: bool = False
    success: Success = ()


@dataclass
class Step:
    """What one simple command became: the effective command (None for a pure trampoline),
    the scripts it hands over to, the commands it spawns (find -exec, inline code), and why a
    wrapper hides the exit status (`masks`), if one does."""

    invocation: Invocation | None = None
    scripts: list[InnerScript] = field(default_factory=list)
    children: list[Step] = field(default_factory=list)
    masks: str | None = None
    success: Success = ()


@dataclass
class Trace:
    """walk()'s invocations plus the Step of every simple command (see the module docstring)."""

    invocations: list[Invocation]
    steps: dict[StepKey, Step]
    repeats: frozenset[int] = frozenset()  # ids of invocations from a loop's earlier passes
    origins: dict[int, Origin] = field(default_factory=dict)  # by id: read from script files
    runs: dict[int, str] = field(default_factory=dict)  # by id: the script file it runs
    # by id of a `trap` in the line's own shell: assignments its body is read after, for the
    # variables as they are when it runs (shellvars.trap_prelude)
    traps: dict[int, str] = field(default_factory=dict)
