"""Runs that regenerate the expectations they check: snapshot and golden-file updates.

`jest -u`, `vitest --update`, `playwright test --update-snapshots`, `pytest --snapshot-update`
(syrupy, snapshottest), `--force-regen` (pytest-regressions), `--inline-snapshot=fix`,
`--regtest-reset`, `cargo insta test --accept`, `go test ./pkg -update` (the golden-file
convention), and variables read by snapshot libraries or test helpers: `UPDATE_GOLDEN=1`,
`UPDATE_SNAPSHOTS=true`, `INSTA_UPDATE=always`, `INSTA_FORCE_PASS=1`, `UPDATE_EXPECT=1`,
`TRYBUILD=overwrite`, `SNAPSHOT_TESTING_RECORD=all`, `BLESS=1`.

Recognised by the shape of the flag or variable name (an update verb and an expectation noun),
not by a list of tools, so a project's own `REGENERATE_FIXTURES=1` is seen too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from interlock.shell.model import Word

_VERB = r"(update|regen|regenerate|record|rerecord|bless|accept|overwrite|rewrite|rebaseline|reset)"
_NOUN = (
    r"(golden|goldens|snapshot|snapshots|snap|snaps|expect|expected|expectation|expectations|"
    r"fixture|fixtures|baseline|baselines|output|outputs|testdata|refs|reference|references|all)"
)
# Verbs that mean "rewrite the expectations" even without a noun (`--update` of vitest,
# `--accept` of insta, `--bless` of rustc's ui tests); `--record` (cypress uploads a
# recording) and `--reset` alone mean other things.
_BARE = r"(update|regen|regenerate|bless|accept|overwrite|rewrite|rebaseline)"
# `--update`, `--snapshot-update`, `--update-snapshots`, `-update`, `--force-regen`, ...
_FLAG = re.compile(
    rf"^--?({_BARE}|{_VERB}[-_.]?{_NOUN}|{_NOUN}[-_.]?{_VERB}|force[-_]?{_VERB}|"
    rf"regtest[-_]?reset|updatesnapshot)(=(?P<value>.*))?$",
    re.I,
)
# Values that turn an update flag off, or that review without writing.
_OFF = frozenset(("", "0", "false", "no", "off", "none", "never", "disable", "report"))
_VAR = re.compile(
    rf"^({_VERB}[_-]?{_NOUN}|{_NOUN}[_-]?{_VERB}|{_NOUN}[_-]?testing[_-]?record|bless|"
    rf"(insta|trybuild|macrotest)[_-]?(update|force[_-]?pass)?|pytest[_-]?regtest[_-]?reset)$",
    re.I,
)
# Values of INSTA_UPDATE/TRYBUILD/... that only write files for review and still fail.
_REVIEW_ONLY = frozenset(("new", "auto", "wip", "unseen"))
# `-u`, and clusters such as `-iu`, `-ut NAME` (jest/vitest flags before `u` take no value).
_SHORT_UPDATE = re.compile(r"^-[ibeo]{0,3}u[a-zA-Z]{0,3}$")
_INLINE = re.compile(r"^--(inline-snapshot|insta)=(?P<value>.+)$")


def _truthy(value: str) -> bool:
    low = value.strip().strip("'\"").lower()
    return low not in _OFF and low not in _REVIEW_ONLY


def regenerating_flag(words: Iterable[Word], short_update: bool = False) -> str | None:
    """The flag that makes this run rewrite its expectations, e.g. `--snapshot-update`.

    short_update: `-u` means "update snapshots" for this runner (jest, vitest, playwright).
    """
    for word in words:
        lit = word.literal()
        if lit is None:
            continue
        if short_update and _SHORT_UPDATE.match(lit):
            return lit
        inline = _INLINE.match(lit)  # (an inline form never matches _FLAG below)
        if inline is not None and re.search(r"create|fix|update|review|accept", inline["value"]):
            return lit
        match = _FLAG.match(lit)
        if match is None:
            continue
        value = match.group("value")
        if value is None or _truthy(value):
            return lit
    return None


def regenerating_variable(assignments: Iterable[Word]) -> str | None:
    """The assignment that makes snapshot or golden-file helpers rewrite, e.g. `UPDATE_GOLDEN=1`."""
    for word in assignments:
        lit = word.literal()
        text = lit if lit is not None else word.text
        name, eq, value = text.partition("=")
        if eq and _VAR.match(name) and (lit is None or _truthy(value)):
            return text
    return None
