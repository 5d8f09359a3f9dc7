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

from functools import lru_cache

from interlock.engine import exitbuiltins as builtins
from interlock.engine.exitstate import (
    OK,
    Break,
    Continue,
    Exit,
    Note,
    Return,
    Shell,
    Status,
    Trap,
)
from interlock.engine.invocation import Invocation
from interlock.engine.walk import InnerScript, Step, StepKey, trace
from interlock.shell.model import (
    CommandList,
    Compound,
    Node,
    ParseResult,
    Pipeline,
    SimpleCommand,
    Word,
)
from interlock.shell.parse import parse

_MAX_CALLS = 16
_STATUS_SETTERS = frozenset(("true", ":"))
LOOP_NOTE = "a loop exits with its last iteration's status, so an earlier failing run is dropped"


@lru_cache(maxsize=64)
def _trap_script(text: str) -> tuple[ParseResult, dict[StepKey, Step]]:
    """A trap body the walker did not read, parsed and walked on its own."""
    result = parse(text)
    return result, trace(result).steps


def _sets_status(items: tuple[Node, ...]) -> bool:
    """A chain ending in `true` or `:`: it exists to set the status."""
    last = items[-1] if items else None
    return (
        isinstance(last, SimpleCommand)
        and bool(last.words)
        and last.words[0].literal() in _STATUS_SETTERS
    )


def _repeats(node: Compound) -> bool:
    """Can a `for` loop run its body more than once? (`for x in a b`, a glob, `$LIST`, `"$@"`)"""
    if not node.words:
        return True
    return len(node.words) > 1 or any(w.literal() is None or w.has_glob for w in node.words)


class Evaluator:
    """One reading of the line (see the module docstring)."""

    def __init__(
        self, steps: dict[StepKey, Step], target: Invocation, bits: list[bool], strict: bool
    ) -> None:
        self.steps = steps
        self.target = target
        self.bits = bits
        self.strict = strict
        self.used = 0
        self.suppress = 0  # > 0 where `set -e` does not fire (conditions, && || lists, !)
        self.calls = 0
        self.runs = 0  # times the target ran
        self.passing = 0  # > 0 in a loop's later iteration, where the target may pass
        self.in_trap = False
        self.note: Note | None = None
        self.final = OK

    @property
    def ran(self) -> bool:
        return self.runs > 0

    def start(self, result: ParseResult) -> None:
        if result.root is None:
            return
        sh = Shell()
        try:
            status = self.run(result.root, sh, ())
        except Exit as done:
            status = done.status
        self.final = self.on_exit(sh, status)

    # -- notes -------------------------------------------------------------------------------
    def masked(self, dropped: Status, reason: str, forged: bool) -> None:
        if dropped.failed_by_validator and self.note is None and (forged or not self.strict):
            self.note = Note(reason, forged)

    def hide(self, dropped: Status, reason: str) -> bool:
        """A construct that only hides `dropped`: note it, or (strict) say to let it through."""
        self.masked(dropped, reason, forged=False)
        return self.strict and dropped.failed_by_validator

    def unknown(self) -> Status:
        bit = self.bits[self.used] if self.used < len(self.bits) else False
        self.used += 1
        return Status(1 if bit else 0)

    def check(self, status: Status, sh: Shell) -> Status:
        sh.last = status
        if status.code != 0 and self.suppress == 0:
            trap = sh.traps.get("ERR")
            if trap is not None and not self.in_trap:
                self.run_trap(trap, sh, status, "ERR")
            if sh.errexit:
                raise Exit(status)
        return status

    # -- structure ---------------------------------------------------------------------------
    def run(self, node: Node, sh: Shell, key: StepKey) -> Status:
        if isinstance(node, SimpleCommand):
            return self.check(self.simple(node, sh, key), sh)
        if isinstance(node, Pipeline):
            return self.check(self.pipeline(node, sh, key), sh)
        if isinstance(node, CommandList):
            return self.command_list(node, sh, key)
        return self.check(self.compound(node, sh, key), sh)

    def quiet(self, node: Node, sh: Shell, key: StepKey) -> Status:
        """Run where `set -e` (and the ERR trap) does not fire."""
        self.suppress += 1
        try:
            return self.run(node, sh, key)
        finally:
            self.suppress -= 1

    def subshell(self, node: Node, sh: Shell, key: StepKey, errexit: bool = True) -> Status:
        inner = sh.subshell(errexit)
        try:
            status = self.run(node, inner, key)
        except Exit as done:
            status = done.status
        return self.on_exit(inner, status)

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
                status = self.sequenced(previous, items, ops, start, sh, key)
            start = k + 1
        return status

    def sequenced(
        self,
        previous: Status,
        items: tuple[Node, ...],
        ops: tuple[str, ...],
        start: int,
        sh: Shell,
        key: StepKey,
    ) -> Status:
        """A `;`-separated chain after `previous`: its status replaces previous's."""
        text = items[0].text + "".join(
            f" {op} {item.text}" for op, item in zip(ops, items[1:], strict=False)
        )
        reason = f"a later `; {text or '...'}` sets the exit status"
        try:
            status = self.chain(items, ops, sh, key)
        except (Break, Continue) as done:
            if start > 0 and self.hide(previous, reason):
                raise type(done)(previous) from None
            raise
        except Exit:
            if start > 0:  # `exit`/`return` name the status explicitly
                self.masked(previous, reason, forged=True)
            raise
        if start == 0 or not previous.failed_by_validator:
            return status
        if _sets_status(items):
            self.masked(previous, reason, forged=True)
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
            try:
                new = self.run(item, sh, key) if last else self.quiet(item, sh, key)
            except Exit as done:
                if k > 0 and done.status.code == 0:
                    self.masked(status, swallow, forged=True)
                raise
            if k > 0 and ops[k - 1] == "||" and new.code == 0:
                self.masked(status, swallow, forged=True)
            status = new
        return status

    def pipeline(self, node: Pipeline, sh: Shell, key: StepKey) -> Status:
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
        pairs = (len(parts) - (1 if node.has_else else 0)) // 2
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

    def word_substitutions(
        self, node: SimpleCommand | Compound, sh: Shell, key: StepKey
    ) -> tuple[Status | None, Status | None]:
        """Run `$(...)`, `<(...)` and redirection bodies: (the last status, a validator failure
        that a strict reading lets through)."""
        words = node.words + (node.assignments if isinstance(node, SimpleCommand) else ())
        last: Status | None = None
        hidden: Status | None = None
        for word in words:
            for sub in word.substitutions:
                last = self.subshell(sub, sh, key, errexit=False)
                if isinstance(node, Compound) or node.words:
                    process = ("<(" in word.text or ">(" in word.text) and "$(" not in word.text
                    reason = (
                        "it runs in a process substitution"
                        if process
                        else "its output is captured by `$(...)` inside another command"
                    )
                    if self.hide(last, reason):
                        hidden = hidden or last
        for redirect in node.redirects:
            subs = redirect.substitutions + (
                redirect.target.substitutions if redirect.target else ()
            )
            for sub in subs:
                status = self.subshell(sub, sh, key, errexit=False)
                if self.hide(status, "it runs inside a redirection or heredoc"):
                    hidden = hidden or status
        return last, hidden

    # -- simple commands ---------------------------------------------------------------------
    def simple(self, cmd: SimpleCommand, sh: Shell, key: StepKey) -> Status:
        substituted, hidden = self.word_substitutions(cmd, sh, key)
        step = self.steps.get(key + (id(cmd),))
        if not cmd.words:
            for word in cmd.assignments:
                builtins.assign(word.text, sh, self.unknown)
            return substituted or OK
        if cmd.words[0].literal() == "trap":
            self.set_trap(cmd.words[1:], sh, step)
            return OK
        status = self.step(step, sh) if step is not None else OK
        if hidden is not None and status.code == 0:
            return hidden
        return status

    def step(self, step: Step, sh: Shell) -> Status:
        inv = step.invocation
        status = OK
        if inv is self.target:
            self.runs += 1
            # in a loop's later iteration it may pass or fail again: a reading decides
            fails = not self.passing or self.unknown().code != 0
            status = Status(1, True) if fails else OK
        elif inv is not None:
            status = self.command(inv, sh)
        for script in step.scripts:
            status = self.script(script, sh)
        for child in step.children:
            child_status = self.step(child, sh.copy())
            if child.masks is None and child_status.code != 0:
                status = child_status
        if step.masks is not None and not self.hide(status, step.masks):
            status = OK
        if inv is not None and "exec" in inv.via:
            raise Exit(status)
        return status

    def script(self, script: InnerScript, sh: Shell) -> Status:
        root = script.result.root
        if root is None:
            return OK
        if script.same_shell:
            return self.run(root, sh, script.key)
        inner = Shell(script.errexit, script.pipefail)
        saved, self.suppress = self.suppress, 0
        try:
            status = self.run(root, inner, script.key)
        except Exit as done:
            status = done.status
        finally:
            self.suppress = saved
        return self.on_exit(inner, status)

    def command(self, inv: Invocation, sh: Shell) -> Status:
        name = inv.name
        args = inv.argv[1:]
        if name in ("true", ":") or name is None:
            return OK
        if name == "false":
            return Status(1)
        if name in ("exit", "return"):
            status = builtins.value(args[0].text, sh, self.unknown) if args else sh.last
            raise (Exit if name == "exit" else Return)(status)
        if name in ("break", "continue"):
            raise (Break if name == "break" else Continue)(OK)
        if name == "set":
            builtins.set_options([w.literal() or "" for w in args], sh)
        elif name in ("test", "["):
            texts = [w.text for w in args]
            if name == "[" and texts[-1:] == ["]"]:
                texts = texts[:-1]
            return builtins.test(texts, sh, self.unknown)
        elif name == "wait":
            return sh.background if args else OK
        elif name == "trap":
            self.set_trap(args, sh, None)
        elif name in ("local", "declare", "typeset", "export", "readonly"):
            for word in args:
                builtins.assign(word.text, sh, self.unknown)
        elif name in sh.functions and self.calls < _MAX_CALLS:
            return self.call(name, sh)
        return OK

    def call(self, name: str, sh: Shell) -> Status:
        body, key = sh.functions[name]
        self.calls += 1
        try:
            return self.run(body, sh, key)
        except Return as done:
            return done.status
        finally:
            self.calls -= 1

    # -- traps -------------------------------------------------------------------------------
    def set_trap(self, args: tuple[Word, ...], sh: Shell, step: Step | None) -> None:
        spec = builtins.trap_spec(args)
        if spec is None:
            return
        trap: Trap | None = None
        if spec.body:
            walked = step.scripts[0] if step is not None and step.scripts else None
            if walked is not None:
                trap = Trap(walked.result, walked.key, spec.body)
            else:
                result, steps = _trap_script(spec.body)
                if any(k not in self.steps for k in steps):
                    self.steps = {**self.steps, **steps}
                trap = Trap(result, (), spec.body)
        for signal in spec.signals:
            if trap is None:
                sh.traps.pop(signal, None)
            else:
                sh.traps[signal] = trap

    def run_trap(self, trap: Trap, sh: Shell, status: Status, signal: str) -> Status:
        """Run a trap body with `$?` = status; an `exit` in it ends the shell (raises Exit)."""
        if trap.result.root is None:
            return status
        sh.last = status
        self.in_trap = True
        try:
            self.run(trap.result.root, sh, trap.key)
        except Exit as done:
            if done.status.code == 0:
                self.masked(status, f"a `trap '{trap.text}' {signal}` exits with 0", True)
            raise Exit(done.status) from None
        finally:
            self.in_trap = False
        return status

    def on_exit(self, sh: Shell, status: Status) -> Status:
        """The shell ends with `status`; its EXIT trap may set another one."""
        trap = sh.traps.pop("EXIT", None)
        if trap is None or self.in_trap:
            return status
        try:
            self.run_trap(trap, sh, status, "EXIT")
        except Exit as done:
            return done.status
        return status
