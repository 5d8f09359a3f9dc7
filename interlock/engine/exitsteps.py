"""Simple commands in a reading of the exit-status flow: what a command, a wrapper's step, a
script handed to a shell, a function call and a trap do to the status (see exiteval.py for
the structure around them, exitflow.py for the whole).

`StepReader` holds a reading's state: the unknowns it consumed, the validator's runs, and the
first note of a construct that dropped the validator's failure.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
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
from interlock.engine.walk import trace
from interlock.engine.walksteps import InnerScript, Step, StepKey
from interlock.shell.model import Compound, Node, ParseResult, SimpleCommand, Word
from interlock.shell.parse import parse

_MAX_CALLS = 16
# Programs that start a command and return before it ends (a terminal multiplexer's new
# session or window, a job queue): however the walker reaches them, the status stays there.
_DETACHING = frozenset(("tmux", "screen", "at", "batch", "dtach", "abduco", "byobu"))


def _detached(vias: tuple[str, ...]) -> str | None:
    """The detaching program among the wrappers a command ran through, if any."""
    for via in vias:
        name = via.split(" ", 1)[0].rsplit("/", 1)[-1]
        if name in _DETACHING:
            return name
    return None


@lru_cache(maxsize=64)
def _trap_script(text: str) -> tuple[ParseResult, dict[StepKey, Step]]:
    """A trap body the walker did not read, parsed and walked on its own."""
    result = parse(text)
    return result, trace(result).steps


class StepReader(ABC):
    """A reading's state and its simple commands; the structure (lists, pipelines, compounds)
    is the subclass's `run` (exiteval.Evaluator, the only one)."""

    def __init__(
        self,
        steps: dict[StepKey, Step],
        target: Invocation,
        bits: list[bool],
        strict: bool,
        validators: frozenset[int] = frozenset(),
    ) -> None:
        self.steps = steps
        self.validators = validators  # ids of every validator invocation of the line
        self.other_runs = 0  # times another validator ran (it passes, like any command)
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
    @abstractmethod
    def run(self, node: Node, sh: Shell, key: StepKey) -> Status:
        """Read one node of the structure (lists, pipelines, compounds)."""

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
            self.other_runs += id(inv) in self.validators
            status = self.command(inv, sh)
        detached = _detached(inv.via) if inv is not None else None
        for script in step.scripts:
            got = self.script(script, sh)
            # a validator that runs a script file (`./ci.sh`) fails when it fails: what the
            # file's code returns is followed for the validators inside it
            status = status if inv is not None and inv is self.target else got
            detached = detached or _detached((script.via,))
        if detached is not None:
            reason = f"it runs detached under `{detached}`, whose exit status never comes back"
            if not self.hide(status, reason):
                status = OK
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
        if name is not None and name in sh.functions:
            # bash finds a function before a builtin: `true() { false; }` makes `|| true` fail
            return self.call(name, sh) if self.calls < _MAX_CALLS else OK
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
        """Run a trap body with `$?` = status; an `exit` in it ends the shell (raises Exit).
        bash gives `$?` and PIPESTATUS back after the body: `trap 'echo x' ERR; pytest;
        exit $?` exits with pytest's status, not echo's."""
        if trap.result.root is None:
            return status
        saved = sh.pipestatus
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
        sh.last, sh.pipestatus = status, saved
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
