"""One reading of a command line by the exit-status flow (see exitflow.py).

The `Evaluator` runs the parsed line abstractly: every command succeeds except the validator
under scrutiny (`target`: status 1, tainted), `false`, `exit N`, tests that may go either way
(`unknown()`, decided by the reading's bits) and what builtins compute. It records the first
construct that drops the validator's failure (`note`).

In a *strict* reading, constructs that only hide a status (a pipe without pipefail, a later
`; echo done`, `&`, `$(...)`, an `if` without `else`, a loop's later iteration, a wrapper that
ignores the status) let the validator's failure through instead; whatever still turns that
failure into a success forges it (`|| true`, `; exit 0`, `!`, an `else` that succeeds, a trap).
"""

from __future__ import annotations

from interlock.engine import exitbuiltins as builtins
from interlock.engine.exitstate import OK, Break, Continue, Exit, Shell, Status
from interlock.engine.exitsteps import StepReader
from interlock.engine.walksteps import StepKey
from interlock.shell.model import CommandList, Compound, Node, ParseResult, Pipeline, SimpleCommand

_STATUS_SETTERS = frozenset(("true", ":"))
_TRANSPARENT = frozenset(("command", "builtin", "env", "exec"))
# Compounds that set PIPESTATUS to their own status, as a simple command does; the others
# (`{ }`, `if`, loops, `case`) leave it as the last pipeline inside them set it.
_ONE_COMMAND = frozenset(("subshell", "cond", "arith"))
LOOP_NOTE = "a loop exits with its last iteration's status, so an earlier failing run is dropped"


def _sets_status(items: tuple[Node, ...]) -> bool:
    """A chain ending in a command that exists to set the status: `true`, `:`, `/bin/true`,
    `command true`, `(exit 0)`, `{ true; }`."""
    last = items[-1] if items else None
    if isinstance(last, CommandList):
        return _sets_status(last.items)
    if isinstance(last, Compound) and last.kind in ("subshell", "group"):
        return _sets_status(last.parts)
    if not isinstance(last, SimpleCommand):
        return False
    words = [w.literal() for w in last.words]
    while words and words[0] in _TRANSPARENT:
        words = words[1:]
    if not words or words[0] is None:
        return False
    name = words[0].rpartition("/")[2].lstrip("\\")
    return name in _STATUS_SETTERS or (name in ("exit", "return") and words[1:] == ["0"])


def _repeats(node: Compound) -> bool:
    """Can a `for` loop run its body more than once? (`for x in a b`, a glob, `$LIST`, `"$@"`)"""
    if len(node.words) != 1:
        return True  # a list of words, or none (`for x; do`: over "$@")
    [word] = node.words
    return word.literal() is None or word.has_glob


class Evaluator(StepReader):
    """One reading of the line (see the module docstring)."""

    def start(self, result: ParseResult) -> None:
        if result.root is None:
            return
        sh = Shell()
        try:
            status = self.run(result.root, sh, ())
        except Exit as done:
            status = done.status
        self.final = self.on_exit(sh, status)

    # -- structure ---------------------------------------------------------------------------
    def run(self, node: Node, sh: Shell, key: StepKey) -> Status:
        if isinstance(node, SimpleCommand):
            status = self.simple(node, sh, key)
            sh.pipestatus = [status]  # a pipeline of one: `pytest | tee; echo; ${PIPESTATUS[0]}`
            return self.check(status, sh)
        if isinstance(node, Pipeline):
            return self.check(self.pipeline(node, sh, key), sh)
        if isinstance(node, CommandList):
            return self.command_list(node, sh, key)
        status = self.compound(node, sh, key)
        if node.kind in _ONE_COMMAND:
            sh.pipestatus = [status]
        return self.check(status, sh)

    def command_list(self, node: CommandList, sh: Shell, key: StepKey) -> Status:
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
                sh.background, status = job, OK
                if self.hide(job, "it runs in the background (`&`)"):
                    status = job
                sh.last = status
            else:
                status = self.sequenced(previous, items, ops, sh, key)
            start = k + 1
        return status

    def sequenced(
        self,
        previous: Status,
        items: tuple[Node, ...],
        ops: tuple[str, ...],
        sh: Shell,
        key: StepKey,
    ) -> Status:
        """A `;`-separated chain after `previous`: its status replaces previous's. (The first
        chain of a list comes after OK, which no construct can drop.)"""
        text = items[0].text + "".join(
            f" {op} {item.text}" for op, item in zip(ops, items[1:], strict=False)
        )
        reason = f"a later `; {text or '...'}` sets the exit status"
        noted = self.note
        try:
            status = self.chain(items, ops, sh, key)
        except (Break, Continue) as done:
            if self.hide(previous, reason):
                raise type(done)(previous) from None
            raise
        except Exit:
            self.masked(previous, reason, forged=True)  # `exit`/`return` name the status
            raise
        if previous.failed_by_validator:
            if _sets_status(items):
                self.masked(previous, reason, forged=True)
            elif self.note is not noted and self.note is not None and self.note.forged:
                pass  # the chain itself forged a success from the status (`rc=$?; ... || echo`)
            elif self.hide(previous, reason) and status.code == 0:
                status = previous
                sh.last = previous
        return status

    def chain(
        self, items: tuple[Node, ...], ops: tuple[str, ...], sh: Shell, key: StepKey
    ) -> Status:
        status = OK
        for k, item in enumerate(items):
            if k > 0 and (ops[k - 1] == "&&") != (status.code == 0):
                continue  # short-circuit: item does not run
            last = k == len(items) - 1
            swallow = f"`|| {item.text}` swallows its failure"
            others = self.other_runs
            try:
                new = self.run(item, sh, key) if last else self.quiet(item, sh, key)
            except Exit as done:
                if done.status.code == 0:  # the first item's `status` is OK: nothing to drop
                    self.masked(status, swallow, forged=True)
                raise
            if k > 0 and ops[k - 1] == "||" and new.code == 0:
                if self.other_runs > others:  # `pytest --lf || pytest`: a retry, not a forgery
                    reason = (
                        f"`|| {item.text}` runs a validator when it fails: the line has that status"
                    )
                    if self.hide(status, reason):
                        new = status
                else:
                    self.masked(status, swallow, forged=True)
            status = new
        return status

    def pipeline(self, node: Pipeline, sh: Shell, key: StepKey) -> Status:
        statuses: list[Status] = []
        self.suppress += 1
        try:
            if len(node.commands) == 1:
                [only] = node.commands
                statuses.append(self.run(only, sh, key))
            else:
                statuses.extend(self.subshell(cmd, sh, key) for cmd in node.commands)
        finally:
            self.suppress -= 1
        status = statuses[-1] if statuses else OK
        if sh.pipefail:
            status = next((s for s in reversed(statuses) if s.code != 0), OK)
        else:
            for dropped in statuses[:-1]:
                reason = "it is not the last command of a pipeline and pipefail is off"
                if self.hide(dropped, reason) and status.code == 0:
                    status = dropped
        sh.pipestatus = statuses
        if node.negated:
            self.masked(status, "it is negated with `!`", forged=True)
            status = Status(0 if status.code else 1)
        return status

    def compound(self, node: Compound, sh: Shell, key: StepKey) -> Status:
        hidden = self.word_substitutions(node, sh, key)[1]
        status = self.compound_body(node, sh, key)
        if hidden is not None and status.code == 0:
            return hidden
        return status

    def compound_body(self, node: Compound, sh: Shell, key: StepKey) -> Status:
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
            return self.loop(node, node.parts[0], node.parts[1], sh, key)
        if kind in ("for", "select"):
            return self.loop(node, None, node.parts[0], sh, key) if node.parts else OK
        if kind == "case":
            for part in node.parts:
                if self.unknown().code:
                    return self.run(part, sh, key)
            return OK
        if kind == "cond":
            return builtins.test([w.text for w in node.words], sh, self.unknown)
        return self.unknown()  # `(( ))`

    def if_(self, node: Compound, sh: Shell, key: StepKey) -> Status:
        parts = node.parts
        pairs = len(parts) // 2  # an `else` body is the odd part out
        failed: Status | None = None
        for k in range(pairs):
            cond = self.quiet(parts[2 * k], sh, key)
            if cond.code == 0:
                status = self.run(parts[2 * k + 1], sh, key)
                if failed is not None and status.code == 0:
                    self.masked(failed, "the `elif` branch taken when it fails succeeds", True)
                return status
            failed = failed or (cond if cond.failed_by_validator else None)
        if node.has_else and parts:
            status = self.run(parts[-1], sh, key)
            if failed is not None and status.code == 0:
                self.masked(failed, "the `else` branch taken when it fails succeeds", True)
            return status
        if failed is not None:
            reason = "it is an `if` condition without `else`: when it fails, nothing fails"
            if self.hide(failed, reason):
                return failed
        return OK

    def loop(
        self, node: Compound, cond: Node | None, body: Node, sh: Shell, key: StepKey
    ) -> Status:
        """A loop read as at most two iterations: in the first the validator fails, in the
        second it passes or fails (a loop's status is its last body's, or 0 when none ran)."""
        runs = self.runs
        status = OK
        failed: Status | None = None
        note = LOOP_NOTE
        for iteration in (0, 1):
            self.passing += iteration
            try:
                if cond is not None:
                    tested = self.quiet(cond, sh, key)
                    if tested.failed_by_validator and failed is None:
                        failed = tested
                        note = (
                            f"it is the condition of a `{node.kind}` loop"
                            if node.kind == "while"
                            else "the `until` loop runs it again until it passes"
                        )
                    if (tested.code == 0) != (node.kind == "while"):
                        break
                status = self.run(body, sh, key)
            except Break as done:
                status = done.status
                break
            except Continue as done:
                status = done.status
            finally:
                self.passing -= iteration
            if status.failed_by_validator and failed is None:
                failed = status
            if self.runs == runs or (cond is None and not _repeats(node)):
                break  # the validator is not in this loop, or the loop runs once
        if failed is not None and status.code == 0 and self.hide(failed, note):
            return failed
        return status
