"""Does a validator's failure reach the exit status of the whole command line?

`validator_masking(result, is_validator)` answers, for every invocation walk() finds and
is_validator accepts, with None (unmasked: its failure makes the line fail) or a short phrase
naming the construct that masks it (`|| true`, a later `; echo done`, a pipeline without
pipefail, `&`, `!`, `$(...)`, `if` without `else`...).

It interprets the tree the way bash runs it, with every command succeeding except the
validator under scrutiny (status 1), `false` (1), `exit N`/`return N`, `exit $?`,
`exit ${PIPESTATUS[i]}` and `exit $rc` after `rc=$?`. It follows `set -e`/`+e`,
`set -o pipefail`, `bash -e -o pipefail -c`, short-circuits, negation, background jobs,
pipelines and PIPESTATUS, subshells, groups, `if`/loops/`case` (a loop body runs once),
function calls, command substitution, `eval` and trampolines (`bash -c`, `timeout`, `xargs`,
... pass the inner status through; `find -exec ... ;`, `watch`, inline code do not).

Conservative reading of tests: `test`, `[`, `[[ ]]`, `(( ))`, `case` and an `exit` of an
unknown value can go either way; the validator counts as unmasked only if its failure fails
the line in every way they can go (so `[ -f x ] && pytest` is unmasked, but
`if [ -f x ]; then pytest; fi` is masked: when the test fails, pytest never runs and the
line succeeds). Up to 2**6 readings are tried; further unknowns succeed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from interlock.engine.invocation import Invocation
from interlock.engine.walk import InnerScript, Step, StepKey, Trace, trace
from interlock.shell.model import CommandList, Compound, Node, ParseResult, Pipeline, SimpleCommand

_MAX_UNKNOWNS = 6
_MAX_CALLS = 16
_VAR = re.compile(r'^"?\$(?:\{)?(\?|[A-Za-z_][A-Za-z0-9_]*|PIPESTATUS\[(\d+)\])(?:\})?"?$')
_COMPARISONS = frozenset({"-eq", "-ne", "=", "==", "!="})
NOT_RUN = "it does not always run (it depends on another command or a test)"


@dataclass(frozen=True)
class Status:
    """An exit status, and whether it comes from the validator's failure."""

    code: int
    tainted: bool = False

    @property
    def failed_by_validator(self) -> bool:
        return self.code != 0 and self.tainted


OK = Status(0)


class _Exit(Exception):
    def __init__(self, status: Status) -> None:
        self.status = status


class _Return(_Exit):
    pass


@dataclass
class _Shell:
    errexit: bool = False
    pipefail: bool = False
    last: Status = OK
    pipestatus: list[Status] = field(default_factory=list)
    variables: dict[str, Status] = field(default_factory=dict)
    functions: dict[str, tuple[Node, StepKey]] = field(default_factory=dict)
    background: Status = OK

    def copy(self) -> _Shell:
        return _Shell(
            self.errexit,
            self.pipefail,
            self.last,
            list(self.pipestatus),
            dict(self.variables),
            dict(self.functions),
            self.background,
        )


def validator_masking(
    result: ParseResult,
    is_validator: Callable[[Invocation], bool],
    walked: Trace | None = None,
) -> list[tuple[Invocation, str | None]]:
    """For each validator invocation, None when unmasked, else why it is masked.

    Pass walked (`walk.trace(result)`) to get back the very Invocation objects of
    `walked.invocations` (and not walk the line twice).
    """
    walked = walked if walked is not None else trace(result)
    verdicts: list[tuple[Invocation, str | None]] = []
    for inv in walked.invocations:
        if is_validator(inv):
            verdicts.append((inv, _masking(result, walked, inv)))
    return verdicts


def _masking(result: ParseResult, walked: Trace, target: Invocation) -> str | None:
    first = _Evaluator(walked, target, [])
    first.start(result)
    unknowns = min(first.used, _MAX_UNKNOWNS)
    readings = [first]
    for bits in itertools.product((False, True), repeat=unknowns):
        if any(bits):
            evaluator = _Evaluator(walked, target, list(bits))
            evaluator.start(result)
            readings.append(evaluator)
    for reading in readings:
        if reading.final.code == 0:
            if not reading.ran:
                return NOT_RUN
            return reading.note or "its failure does not reach the exit status"
    return None


class _Evaluator:
    """One reading of the line: runs it abstractly and remembers the first masking note."""

    def __init__(self, walked: Trace, target: Invocation, bits: list[bool]) -> None:
        self.steps = walked.steps
        self.target = target
        self.bits = bits
        self.used = 0
        self.suppress = 0  # > 0 where `set -e` does not fire (conditions, && || lists, !)
        self.calls = 0
        self.ran = False
        self.note: str | None = None
        self.final = OK

    def start(self, result: ParseResult) -> None:
        if result.root is None:
            return
        try:
            self.final = self.run(result.root, _Shell(), ())
        except _Exit as done:
            self.final = done.status

    def masked(self, dropped: Status, reason: str) -> None:
        if dropped.failed_by_validator and self.note is None:
            self.note = reason

    def unknown(self) -> Status:
        bit = self.bits[self.used] if self.used < len(self.bits) else False
        self.used += 1
        return Status(1 if bit else 0)

    def check(self, status: Status, sh: _Shell) -> Status:
        sh.last = status
        if status.code != 0 and sh.errexit and self.suppress == 0:
            raise _Exit(status)
        return status

    # -- structure ---------------------------------------------------------------------------
    def run(self, node: Node, sh: _Shell, key: StepKey) -> Status:
        if isinstance(node, SimpleCommand):
            return self.check(self.simple(node, sh, key), sh)
        if isinstance(node, Pipeline):
            return self.check(self.pipeline(node, sh, key), sh)
        if isinstance(node, CommandList):
            return self.command_list(node, sh, key)
        return self.check(self.compound(node, sh, key), sh)

    def quiet(self, node: Node, sh: _Shell, key: StepKey) -> Status:
        """Run where `set -e` does not fire."""
        self.suppress += 1
        try:
            return self.run(node, sh, key)
        finally:
            self.suppress -= 1

    def subshell(self, node: Node, sh: _Shell, key: StepKey, errexit: bool = True) -> Status:
        inner = sh.copy()
        inner.errexit = inner.errexit and errexit
        try:
            return self.run(node, inner, key)
        except _Exit as done:
            return done.status

    def command_list(self, node: CommandList, sh: _Shell, key: StepKey) -> Status:
        status, start = OK, 0
        for k, op in enumerate(node.ops):
            if op in ("&&", "||"):
                continue
            items, ops = node.items[start : k + 1], node.ops[start:k]
            previous = status
            if op == "&":
                self.suppress += 1
                try:
                    job = self.subshell(CommandList(items, ops + ("",)), sh, key)
                finally:
                    self.suppress -= 1
                self.masked(job, "it runs in the background (`&`)")
                sh.background, status = job, OK
                sh.last = OK
            else:
                try:
                    status = self.chain(items, ops, sh, key)
                except _Exit:
                    self.sequence(previous, items, ops, start)
                    raise
            self.sequence(previous, items, ops, start)
            start = k + 1
        return status

    def sequence(
        self, previous: Status, items: tuple[Node, ...], ops: tuple[str, ...], start: int
    ) -> None:
        if start > 0:
            text = items[0].text + "".join(
                f" {op} {item.text}" for op, item in zip(ops, items[1:], strict=False)
            )
            self.masked(previous, f"a later `; {text or '...'}` sets the exit status")

    def chain(
        self, items: tuple[Node, ...], ops: tuple[str, ...], sh: _Shell, key: StepKey
    ) -> Status:
        status = OK
        for k, item in enumerate(items):
            if k > 0 and (ops[k - 1] == "&&") != (status.code == 0):
                continue  # short-circuit: item does not run
            last = k == len(items) - 1
            swallow = f"`|| {item.text}` swallows its failure"
            try:
                new = self.run(item, sh, key) if last else self.quiet(item, sh, key)
            except _Exit as done:
                if k > 0 and done.status.code == 0:
                    self.masked(status, swallow)
                raise
            if k > 0 and ops[k - 1] == "||" and new.code == 0:
                self.masked(status, swallow)
            status = new
        return status

    def pipeline(self, node: Pipeline, sh: _Shell, key: StepKey) -> Status:
        statuses: list[Status] = []
        self.suppress += 1
        try:
            if len(node.commands) == 1:
                statuses.append(self.run(node.commands[0], sh, key))
            else:
                statuses.extend(self.subshell(cmd, sh, key) for cmd in node.commands)
        finally:
            self.suppress -= 1
        status = statuses[-1] if statuses else OK
        if sh.pipefail:
            status = next((s for s in reversed(statuses) if s.code != 0), OK)
        else:
            for dropped in statuses[:-1]:
                self.masked(dropped, "it is not the last command of a pipeline and pipefail is off")
        sh.pipestatus = statuses
        if node.negated:
            self.masked(status, "it is negated with `!`")
            status = Status(0 if status.code else 1)
        return status

    def compound(self, node: Compound, sh: _Shell, key: StepKey) -> Status:
        self.word_substitutions(node, sh, key)
        kind = node.kind
        if kind == "function":
            if node.name and node.parts:
                sh.functions[node.name] = (node.parts[0], key)
            return OK
        if kind == "subshell":
            return self.subshell(node.parts[0], sh, key) if node.parts else OK
        if kind == "group":
            return self.run(node.parts[0], sh, key) if node.parts else OK
        if kind == "if":
            return self.if_(node, sh, key)
        if kind in ("while", "until") and len(node.parts) == 2:
            cond = self.quiet(node.parts[0], sh, key)
            if (cond.code == 0) == (kind == "while"):
                return self.run(node.parts[1], sh, key)
            self.masked(cond, f"it is the condition of a `{kind}` loop")
            return OK
        if kind in ("for", "select"):
            return self.run(node.parts[0], sh, key) if node.parts else OK
        if kind == "case":
            for part in node.parts:
                if self.unknown().code:
                    return self.run(part, sh, key)
            return OK
        if kind == "cond":
            return self.test([w.text for w in node.words], sh)
        return self.unknown()  # `(( ))`

    def if_(self, node: Compound, sh: _Shell, key: StepKey) -> Status:
        parts = node.parts
        pairs = (len(parts) - (1 if node.has_else else 0)) // 2
        for k in range(pairs):
            cond = self.quiet(parts[2 * k], sh, key)
            if cond.code == 0:
                return self.run(parts[2 * k + 1], sh, key)
            self.masked(
                cond, "it is an `if` condition, and the branch taken when it fails does not fail"
            )
        if node.has_else and parts:
            return self.run(parts[-1], sh, key)
        return OK

    def word_substitutions(
        self, node: SimpleCommand | Compound, sh: _Shell, key: StepKey
    ) -> Status | None:
        words = node.words + (node.assignments if isinstance(node, SimpleCommand) else ())
        last: Status | None = None
        for word in words:
            for sub in word.substitutions:
                last = self.subshell(sub, sh, key, errexit=False)
                if isinstance(node, Compound) or node.words:
                    process = ("<(" in word.text or ">(" in word.text) and "$(" not in word.text
                    self.masked(
                        last,
                        "it runs in a process substitution"
                        if process
                        else "its output is captured by `$(...)` inside another command",
                    )
        for redirect in node.redirects:
            subs = redirect.substitutions + (
                redirect.target.substitutions if redirect.target else ()
            )
            for sub in subs:
                self.masked(
                    self.subshell(sub, sh, key, errexit=False),
                    "it runs inside a redirection or heredoc",
                )
        return last

    # -- simple commands ---------------------------------------------------------------------
    def simple(self, cmd: SimpleCommand, sh: _Shell, key: StepKey) -> Status:
        substituted = self.word_substitutions(cmd, sh, key)
        step = self.steps.get(key + (id(cmd),))
        if not cmd.words:
            for word in cmd.assignments:
                self.assign(word.text, sh)
            return substituted or OK
        return self.step(step, sh) if step is not None else OK

    def step(self, step: Step, sh: _Shell) -> Status:
        inv = step.invocation
        status = OK
        if inv is self.target:
            self.ran = True
            status = Status(1, True)
        elif inv is not None:
            status = self.command(inv, sh)
        for script in step.scripts:
            status = self.script(script, sh)
        for child in step.children:
            child_status = self.step(child, sh.copy())
            if child.masks is None and child_status.code != 0:
                status = child_status
        if step.masks is not None:
            self.masked(status, step.masks)
            status = OK
        if inv is not None and "exec" in inv.via:
            raise _Exit(status)
        return status

    def script(self, script: InnerScript, sh: _Shell) -> Status:
        root = script.result.root
        if root is None:
            return OK
        if script.same_shell:
            return self.run(root, sh, script.key)
        saved, self.suppress = self.suppress, 0
        try:
            return self.run(root, _Shell(script.errexit, script.pipefail), script.key)
        except _Exit as done:
            return done.status
        finally:
            self.suppress = saved

    def command(self, inv: Invocation, sh: _Shell) -> Status:
        name = inv.name
        args = inv.argv[1:]
        if name in ("true", ":") or name is None:
            return OK
        if name == "false":
            return Status(1)
        if name in ("exit", "return"):
            status = self.value(args[0].text, sh) if args else sh.last
            raise (_Exit if name == "exit" else _Return)(status)
        if name == "set":
            self.set_options([w.literal() or "" for w in args], sh)
        elif name in ("test", "["):
            texts = [w.text for w in args]
            return self.test(texts[:-1] if name == "[" and texts[-1:] == ["]"] else texts, sh)
        elif name == "wait":
            return sh.background if args else OK
        elif name in ("local", "declare", "typeset", "export", "readonly"):
            for word in args:
                self.assign(word.text, sh)
        elif name in sh.functions and self.calls < _MAX_CALLS:
            return self.call(name, sh)
        return OK

    def call(self, name: str, sh: _Shell) -> Status:
        body, key = sh.functions[name]
        self.calls += 1
        try:
            return self.run(body, sh, key)
        except _Return as done:
            return done.status
        finally:
            self.calls -= 1

    def test(self, args: list[str], sh: _Shell) -> Status:
        """`[ $rc -eq 0 ]`, `test ${PIPESTATUS[0]} != 0`: known when it compares a tracked
        status with a number; any other test can go either way."""
        if len(args) == 3 and args[1] in _COMPARISONS:
            left, right = self.tracked(args[0], sh), args[2].strip("'\"")
            if left is not None and right.isdigit():
                equal = left.code == int(right)
                holds = equal if args[1] in ("-eq", "=", "==") else not equal
                return Status(0 if holds else 1, left.tainted)
        return self.unknown()

    def tracked(self, text: str, sh: _Shell) -> Status | None:
        """The status a word stands for (`5`, `$?`, `${PIPESTATUS[0]}`, `$rc`), if known."""
        if text.isdigit():
            return Status(int(text) % 256)
        match = _VAR.match(text)
        if match is None:
            return None
        name, index = match.group(1), match.group(2)
        if name == "?":
            return sh.last
        if index is not None:
            k = int(index)
            return sh.pipestatus[k] if k < len(sh.pipestatus) else None
        return sh.variables.get(name)

    def value(self, text: str, sh: _Shell) -> Status:
        known = self.tracked(text, sh)
        return known if known is not None else self.unknown()

    def assign(self, text: str, sh: _Shell) -> None:
        name, eq, value = text.partition("=")
        if not eq:
            return
        match = _VAR.match(value)
        tracked = match is not None and (
            match.group(1) == "?" or match.group(2) is not None or match.group(1) in sh.variables
        )
        if tracked:
            sh.variables[name] = self.value(value, sh)
        else:
            sh.variables.pop(name, None)

    def set_options(self, args: list[str], sh: _Shell) -> None:
        k = 0
        while k < len(args):
            arg = args[k]
            if len(arg) > 1 and arg[0] in "-+":
                on = arg[0] == "-"
                for letter in arg[1:]:
                    if letter == "e":
                        sh.errexit = on
                    elif letter == "o" and k + 1 < len(args):
                        k += 1
                        if args[k] == "pipefail":
                            sh.pipefail = on
                        elif args[k] == "errexit":
                            sh.errexit = on
            k += 1
