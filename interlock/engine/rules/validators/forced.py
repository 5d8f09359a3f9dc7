"""Runner flags that make a check exit 0 whatever it finds.

`--exit-zero` (ruff, flake8, pylint, bandit), `--issues-exit-code=0` (golangci-lint),
`--no-fail` (hadolint), `--fail-under=0` (pylint: any score passes), `--fail-never` (maven),
`--suppress-tests-failed-exit-code` (pytest-custom_exit_code), `--ignore-errors`,
`--allow-failure`, phpcs's `--runtime-set ignore_errors_on_exit 1`. Read by the shape of the
flag, for every recognised runner, so a tool not listed here is judged the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from interlock.shell.model import Word

_FLAG = re.compile(
    r"^--(exit[-_]?zero|no[-_]fail(ure)?|fail[-_]never|ignore[-_](errors|failures?|exit[-_]?codes?)"
    r"|suppress[-_](tests?[-_])?fail(ed|ures?)?[-_]exit[-_]?codes?|allow[-_]fail(ure|ures|ing)?)$",
    re.I,
)
# Options whose value 0 means "never fail": --issues-exit-code=0, --fail-under=0, jest's
# --testFailureExitCode=0 (the exit code of a failure, of issues, of errors).
_ZERO = re.compile(
    r"^--([\w-]*(fail|error|issue)[\w-]*exit[-_]?code|fail[-_]under)$",
    re.I,
)
_RUNTIME = re.compile(r"^ignore_(errors|warnings)_on_exit$")


def forced_success(words: Sequence[Word]) -> str | None:
    """The flag that makes this run exit 0 when its check fails, or None."""
    lits = [w.literal() or "" for w in words]
    for k, lit in enumerate(lits):
        if lit == "--":
            break
        name, eq, value = lit.partition("=")
        if _FLAG.match(name) and (not eq or value.lower() not in ("0", "false", "no")):
            return lit
        if _ZERO.match(name):
            given = value if eq else (lits[k + 1] if k + 1 < len(lits) else "")
            if given.strip() in ("0", "0.0", "-1"):
                return f"{name}={given}"
        if lit == "--runtime-set" and k + 2 < len(lits) and _RUNTIME.match(lits[k + 1]):
            if lits[k + 2] not in ("0", "false"):
                return f"--runtime-set {lits[k + 1]} {lits[k + 2]}"
    return None
