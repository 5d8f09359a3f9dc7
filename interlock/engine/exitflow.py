"""Does a validator's failure reach the exit status of the whole command line?

`validator_masking(result, is_validator)` answers, for every invocation walk() finds and
is_validator accepts, with None (unmasked: its failure makes the line fail) or a `Masking`:
a short phrase naming the construct that masks it, and whether that construct *forges* a
success or only *hides* the status.

- Forged: the line is made to succeed because the validator failed, or whatever it returns:
  `|| true`, `|| echo failed`, `; exit 0`, `; true`, `!`, an `else` branch that succeeds, a
  `trap 'exit 0' EXIT` or `ERR`.
- Hidden: the status is only dropped on the way: a pipe without pipefail (`| tail`), a later
  `; echo done`, `&`, `$(...)`, an `if` without `else`, a loop whose later iteration sets the
  status, a wrapper that ignores the status (`watch`, `find -exec ... ;`, `script` without
  `-e`), or a validator that does not always run. Agents read their test output this way all
  day; the run proves nothing, but nothing was faked.

The line is interpreted the way bash runs it (exiteval.py), with every command succeeding
except the validator under scrutiny (status 1), `false`, `exit N`/`return N`, `exit $?`,
`exit ${PIPESTATUS[i]}` and `exit $rc` after `rc=$?`. It follows `set -e`/`+e`,
`set -o pipefail`, `bash -e -o pipefail -c`, short-circuits, negation, background jobs,
pipelines and PIPESTATUS, subshells, groups, `if`/`case`, loops (read as two iterations: the
validator fails in the first and passes or fails in the second, since a loop exits with its
last iteration's status), `break`/`continue`, function calls, EXIT and ERR traps, command
substitution, `eval` and trampolines (`bash -c`, `timeout`, `xargs`, ... pass the inner status
through; `find -exec ... ;`, `watch`, inline code do not).

Conservative reading of tests: `test`, `[`, `[[ ]]`, `(( ))`, `case` and an `exit` of an
unknown value can go either way; the validator counts as unmasked only if its failure fails
the line in every way they can go (so `[ -f x ] && pytest` is unmasked, but
`if [ -f x ]; then pytest; fi` is masked: when the test fails, pytest never runs and the line
succeeds). Every path through the unknowns is read, up to 64 readings; a line with more paths
than that is called masked (hidden) unless a reading already found it masked: past the budget
the answer is the guarded one, never "unmasked".
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from interlock.engine.exiteval import Evaluator
from interlock.engine.invocation import Invocation
from interlock.engine.walk import trace
from interlock.engine.walksteps import Trace
from interlock.shell.model import ParseResult

MAX_READINGS = 64
NOT_RUN = "it does not always run (it depends on another command or a test)"
TOO_MANY = (
    "it depends on more conditions than interlock follows, so it may not reach the exit status"
)
_LOST = "its failure does not reach the exit status"


@dataclass(frozen=True)
class Masking:
    """Why a validator's failure cannot fail the line, and whether the line forges a success."""

    reason: str
    forged: bool


def validator_masking(
    result: ParseResult,
    is_validator: Callable[[Invocation], bool],
    walked: Trace | None = None,
) -> list[tuple[Invocation, Masking | None]]:
    """For each validator invocation, None when unmasked, else why it is masked.

    Pass walked (`walk.trace(result)`) to get back the very Invocation objects of
    `walked.invocations` (and not walk the line twice).
    """
    walked = walked if walked is not None else trace(result)
    # a loop's earlier passes (walk reads a short literal `for` list once per word) are
    # followed through the steps of its last pass
    validators = [
        inv for inv in walked.invocations if id(inv) not in walked.repeats and is_validator(inv)
    ]
    others = frozenset(id(inv) for inv in validators)
    return [(inv, _masking(result, walked, inv, others)) for inv in validators]


def _readings(
    result: ParseResult, walked: Trace, target: Invocation, others: frozenset[int], strict: bool
) -> tuple[Evaluator | None, bool]:
    """Read every path through the unknowns until one ends in success while the validator
    failed (a strict one must have run the validator and met a construct that forges):
    (that reading or None, whether every path was read)."""
    queue: deque[list[bool]] = deque([[]])
    count = 0
    while queue:
        if count >= MAX_READINGS:
            return None, False
        bits = queue.popleft()
        reading = Evaluator(walked.steps, target, bits, strict, others)
        reading.start(result)
        count += 1
        # a note implies the validator ran: only its failure is ever noted as dropped
        if reading.final.code == 0 and (not strict or reading.note is not None):
            return reading, True
        for position in range(len(bits), reading.used):
            queue.append(bits + [False] * (position - len(bits)) + [True])
    return None, True


def _masking(
    result: ParseResult, walked: Trace, target: Invocation, others: frozenset[int]
) -> Masking | None:
    masked, complete = _readings(result, walked, target, others, strict=False)
    if masked is None:
        return None if complete else Masking(TOO_MANY, forged=False)
    forged, _ = _readings(result, walked, target, others, strict=True)
    if forged is not None and forged.note is not None:
        return Masking(forged.note.reason, forged=True)
    if not masked.ran:
        return Masking(NOT_RUN, forged=False)
    return Masking(masked.note.reason if masked.note is not None else _LOST, forged=False)
