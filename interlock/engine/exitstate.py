"""The state exit-status flow keeps while it reads a line: statuses, shell options, traps.

A `Status` says whether a non-zero code comes from the validator under scrutiny (`tainted`).
A `Note` is why the validator's failure was dropped, and whether the construct that dropped
it forges a success (`|| true`, `; exit 0`, `!`, a trap) or only hides the status (a pipe, a
later `; echo done`, `&`, a loop's last iteration). `Shell` holds what a bash process carries
from command to command.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from interlock.engine.walksteps import StepKey
from interlock.shell.model import Node, ParseResult


@dataclass(frozen=True)
class Status:
    """An exit status, and whether it comes from the validator's failure."""

    code: int
    tainted: bool = False

    @property
    def failed_by_validator(self) -> bool:
        return self.code != 0 and self.tainted


OK = Status(0)


@dataclass(frozen=True)
class Note:
    """Why a validator's failure did not reach the exit status."""

    reason: str
    forged: bool


class Exit(Exception):
    """`exit N` (and the end of a shell): unwinds to the shell that runs the script."""

    def __init__(self, status: Status) -> None:
        self.status = status


class Return(Exit):
    """`return N`: unwinds to the function call (or the sourced script)."""


class Break(Exit):
    """`break`: unwinds to the innermost loop, which then ends with this status."""


class Continue(Exit):
    """`continue`: unwinds to the innermost loop, which then starts its next iteration."""


@dataclass(frozen=True)
class Trap:
    """A trap body, parsed and walked (steps keyed under `key`), e.g. `trap 'exit 0' EXIT`."""

    result: ParseResult
    key: StepKey
    text: str


@dataclass
class Shell:
    """What one bash process carries from command to command."""

    errexit: bool = False
    pipefail: bool = False
    last: Status = OK
    pipestatus: list[Status] = field(default_factory=list)
    variables: dict[str, Status] = field(default_factory=dict)
    functions: dict[str, tuple[Node, StepKey]] = field(default_factory=dict)
    background: Status = OK
    traps: dict[str, Trap] = field(default_factory=dict)

    def copy(self) -> Shell:
        return Shell(
            self.errexit,
            self.pipefail,
            self.last,
            list(self.pipestatus),
            dict(self.variables),
            dict(self.functions),
            self.background,
            dict(self.traps),
        )

    def subshell(self, errexit: bool = True) -> Shell:
        """A `( )`, pipeline element or `$( )`: a copy whose EXIT/ERR traps are not inherited
        (bash resets them in subshells; `set -E` is not followed)."""
        inner = self.copy()
        inner.errexit = inner.errexit and errexit
        inner.traps = {}
        return inner
