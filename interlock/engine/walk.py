"""Find every command a command line would run, wherever it hides.

`walk(result)` returns one Invocation per effective command, in the order they would start:
substitutions before the command that uses them, lists, pipelines, subshells, groups, `if`,
loops, `case`, function bodies, heredoc bodies, and through wrappers and trampolines
(wrappers.py, spawners.py) and inline interpreter code (inline/). It tracks the working
directory through `cd`/`pushd`/`popd`/`env -C` (a subshell, pipeline element, background job
or `bash -c` does not leak its `cd`); `cd -`, `cd` to a non-literal and ambiguous branches give
cwd None. Trampolines nested deeper than depth_cap are not walked: an unknown, degraded
Invocation stands for the rest.

`is_degraded(result, invocations)` says whether the analysis was best effort: the parse was
not clean, or an invocation came from a fallback path (a non-literal `bash -c`/`eval`, inline
code, which also marks the interpreter's own invocation).

`trace(result)` also returns, for each simple command, the Step it became (exitflow.py follows
exit statuses through them); steps are keyed by the ids of the trampoline commands leading
to them and of the simple command itself.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import NamedTuple

from interlock.engine.inline.interpreters import InlineCode, inline_code
from interlock.engine.invocation import Invocation
from interlock.engine.unwrap import KEEP, Script, Unwrap
from interlock.engine.wrappers import unwrap
from interlock.shell.model import (
    CommandList,
    Compound,
    Node,
    ParseResult,
    Pipeline,
    Redirect,
    SimpleCommand,
    Word,
)
from interlock.shell.parse import parse

StepKey = tuple[int, ...]
INLINE_MASKS = "it runs inside inline interpreter code, whose exit status is not followed"
_SHELL_BUILTIN_VIA = frozenset({"command", "builtin"})


@dataclass
class InnerScript:
    """A command line a trampoline runs, as read: steps inside are keyed under `key`."""

    result: ParseResult
    key: StepKey
    via: str
    same_shell: bool = False
    errexit: bool = False
    pipefail: bool = False


@dataclass
class Step:
    """What one simple command became: the effective command (None for a pure trampoline),
    the scripts it hands over to, the commands it spawns (find -exec, inline code), and why a
    wrapper hides the exit status (`masks`), if one does."""

    invocation: Invocation | None = None
    scripts: list[InnerScript] = field(default_factory=list)
    children: list[Step] = field(default_factory=list)
    masks: str | None = None


@dataclass
class Trace:
    """walk()'s invocations plus the Step of every simple command (see the module docstring)."""

    invocations: list[Invocation]
    steps: dict[StepKey, Step]


@dataclass
class _Scope:
    """Shell state that `cd` changes; copied for subshells."""

    cwd: str | None = ""
    stack: list[str | None] = field(default_factory=list)

    def copy(self) -> _Scope:
        return _Scope(self.cwd, list(self.stack))


class _Env(NamedTuple):
    """What an enclosing construct passes down to the commands inside it."""

    via: tuple[str, ...] = ()
    degraded: bool = False
    source: SimpleCommand | None = None
    key: StepKey = ()
    depth: int = 0
    redirects: tuple[Redirect, ...] = ()
    assignments: tuple[Word, ...] = ()
    extra_args: bool = False
    arg_roots: tuple[str, ...] | None = None


def walk(result: ParseResult, depth_cap: int = 8) -> list[Invocation]:
    """Every command the parsed line would run, as Invocations (see the module docstring)."""
    return trace(result, depth_cap).invocations


def trace(result: ParseResult, depth_cap: int = 8) -> Trace:
    """walk() plus the Step of every simple command, for exitflow."""
    walker = _Walker(depth_cap)
    if result.root is not None:
        walker.node(result.root, _Scope(), _Env(degraded=result.status != "ok"))
    return Trace(walker.invocations, walker.steps)


def is_degraded(result: ParseResult, invocations: list[Invocation]) -> bool:
    """True when the analysis is best effort: see the module docstring."""
    return result.status != "ok" or any(inv.degraded for inv in invocations)


def join_cwd(cwd: str | None, directory: str) -> str | None:
    """`sub` + `../x` -> `x`; absolute stays absolute; '' is where the line started."""
    if directory.startswith("/"):
        return posixpath.normpath(directory)
    if cwd is None:
        return None
    joined = posixpath.normpath(posixpath.join(cwd or ".", directory))
    return "" if joined == "." else joined


def _ends_shell(node: Node) -> bool:
    """`exit`/`return` (alone or last in a group): the list does not go on after it."""
    if isinstance(node, SimpleCommand):
        return bool(node.words) and node.words[0].literal() in ("exit", "return")
    if isinstance(node, Compound) and node.kind == "group" and node.parts:
        return _ends_shell(node.parts[0])
    if isinstance(node, CommandList) and node.items:
        return _ends_shell(node.items[-1])
    return False


def _is_cd(node: Node) -> bool:
    return (
        isinstance(node, SimpleCommand)
        and bool(node.words)
        and node.words[0].literal() in ("cd", "pushd", "popd")
    )


def _stdin_text(redirects: tuple[Redirect, ...]) -> str | None:
    text = None
    for r in redirects:
        if r.fd not in (None, 0):
            continue
        if r.heredoc is not None:
            text = r.heredoc
        elif r.op == "<<<" and r.target is not None:
            value = r.target.literal()
            text = (value if value is not None else r.target.text) + "\n"
    return text


class _Walker:
    def __init__(self, depth_cap: int) -> None:
        self.depth_cap = depth_cap
        self.invocations: list[Invocation] = []
        self.steps: dict[StepKey, Step] = {}

    # -- structure ---------------------------------------------------------------------------
    def node(self, node: Node, scope: _Scope, env: _Env) -> None:
        if isinstance(node, SimpleCommand):
            self.simple(node, scope, env)
        elif isinstance(node, Pipeline):
            for command in node.commands:  # each element runs in a subshell
                self.node(command, scope.copy(), env)
        elif isinstance(node, CommandList):
            self.command_list(node, scope, env)
        else:
            self.compound(node, scope, env)

    def substitutions(self, nodes: tuple[Node, ...], scope: _Scope, env: _Env) -> None:
        for node in nodes:
            self.node(node, scope.copy(), env)

    def words(self, words: tuple[Word, ...], scope: _Scope, env: _Env) -> None:
        for word in words:
            self.substitutions(word.substitutions, scope, env)

    def redirects(self, redirects: tuple[Redirect, ...], scope: _Scope, env: _Env) -> None:
        for r in redirects:
            if r.target is not None:
                self.substitutions(r.target.substitutions, scope, env)
            self.substitutions(r.substitutions, scope, env)

    def command_list(self, node: CommandList, scope: _Scope, env: _Env) -> None:
        start = 0
        for k, op in enumerate(node.ops):
            if op in ("&&", "||"):
                continue
            chain = node.items[start : k + 1]
            chain_ops = node.ops[start:k]
            target = scope.copy() if op == "&" else scope  # a background job is a subshell
            self.chain(chain, chain_ops, target, env)
            start = k + 1

    def chain(
        self, items: tuple[Node, ...], ops: tuple[str, ...], scope: _Scope, env: _Env
    ) -> None:
        before = after = scope.cwd
        for k, item in enumerate(items):
            if k > 0 and ops[k - 1] == "||" and after != before:
                # item runs only when the previous one failed: not after its `cd`
                success = after
                scope.cwd = before if _is_cd(items[k - 1]) else None
                before = scope.cwd
                self.node(item, scope, env)
                if not _ends_shell(item) and scope.cwd != success:
                    scope.cwd = None
                elif _ends_shell(item):
                    scope.cwd = success
                after = scope.cwd
                continue
            before = scope.cwd
            self.node(item, scope, env)
            after = scope.cwd

    def compound(self, node: Compound, scope: _Scope, env: _Env) -> None:
        self.words(node.words, scope, env)
        self.redirects(node.redirects, scope, env)
        inner = env._replace(redirects=env.redirects + node.redirects) if node.redirects else env
        kind = node.kind
        if kind in ("subshell", "function"):
            for part in node.parts:
                self.node(part, scope.copy(), inner)
        elif kind == "group":
            for part in node.parts:
                self.node(part, scope, inner)
        elif kind == "if":
            self.if_(node, scope, inner)
        elif kind == "case":
            self.branches([(part,) for part in node.parts], scope, inner, may_skip=True)
        elif node.parts:  # while, until, for, select: the body runs once in our reading
            self.branches([node.parts], scope, inner, may_skip=True)

    def if_(self, node: Compound, scope: _Scope, env: _Env) -> None:
        parts = node.parts
        pairs = [parts[k : k + 2] for k in range(0, len(parts) - (1 if node.has_else else 0), 2)]
        branches = list(pairs)
        if node.has_else and parts:
            branches.append((parts[-1],))
        self.branches(branches, scope, env, may_skip=not node.has_else)

    def branches(
        self, branches: list[tuple[Node, ...]], scope: _Scope, env: _Env, may_skip: bool
    ) -> None:
        start = scope.cwd
        ends: set[str | None] = {start} if may_skip else set()
        for branch in branches:
            inner = _Scope(start, list(scope.stack))
            for part in branch:
                self.node(part, inner, env)
            ends.add(inner.cwd)
        scope.cwd = ends.pop() if len(ends) == 1 else None

    # -- simple commands ---------------------------------------------------------------------
    def emit(
        self, argv: tuple[Word, ...], env: _Env, cwd: str | None, degraded: bool
    ) -> Invocation:
        inv = Invocation(
            argv,
            env.assignments,
            env.redirects,
            env.source,
            cwd,
            env.via,
            env.extra_args,
            env.arg_roots,
            degraded,
        )
        self.invocations.append(inv)
        return inv

    def simple(self, cmd: SimpleCommand, scope: _Scope, env: _Env) -> None:
        self.words(cmd.assignments + cmd.words, scope, env)
        self.redirects(cmd.redirects, scope, env)
        key = env.key + (id(cmd),)
        env = env._replace(
            source=env.source or cmd,
            key=key,
            assignments=env.assignments + cmd.assignments,
            redirects=env.redirects + cmd.redirects,
        )
        if not cmd.words:  # assignments or redirections only: rules still want to see them
            self.steps[key] = Step(invocation=self.emit((), env, scope.cwd, env.degraded))
            return
        self.steps[key] = self.resolve(cmd.words, _stdin_text(cmd.redirects), scope, env)

    def resolve(self, words: tuple[Word, ...], stdin: str | None, scope: _Scope, env: _Env) -> Step:
        """Strip wrappers from words; walk what they hand over to; return the Step."""
        masks: str | None = None
        local_via: tuple[str, ...] = ()
        cwd = scope.cwd
        while (found := unwrap(words, stdin)) is not None and found.kind in ("exec", "script"):
            if found.cwd != KEEP:
                cwd = None if found.cwd is None else join_cwd(cwd, found.cwd)
            masks = masks or found.masks
            env = env._replace(
                assignments=env.assignments + found.assignments,
                extra_args=env.extra_args or found.extra_args,
                arg_roots=found.arg_roots if found.extra_args else env.arg_roots,
            )
            if found.kind == "script":
                same_shell = all(s.same_shell for s in found.scripts) and cwd == scope.cwd
                target = scope if same_shell else _Scope(cwd, list(scope.stack))
                return self.scripts(found, target, env, masks)
            local_via += (found.via,)
            env = env._replace(via=env.via + (found.via,))
            words = found.rest
        code = inline_code(words, stdin)
        inv = self.emit(words, env, cwd, env.degraded or code is not None)
        step = Step(invocation=inv, masks=masks)
        inner_scope = _Scope(cwd, list(scope.stack))
        if found is not None:  # a spawner: find -exec, git rebase -x, ...
            for k, child in enumerate(found.children):
                child_env = env._replace(key=env.key + (k,))
                step.children.append(self.child(child, inner_scope, child_env))
        if code is not None:
            step.children.extend(self.inline(code, inner_scope, env))
        if set(local_via) <= _SHELL_BUILTIN_VIA:
            self.change_directory(inv, scope)
        return step

    def inline(self, code: InlineCode, scope: _Scope, env: _Env) -> list[Step]:
        """What interpreter code runs (scanned, so degraded); its status is not followed."""
        steps: list[Step] = []
        for k, action in enumerate(code.actions):
            child_env = env._replace(degraded=True, key=env.key + (k,))
            if action.script is not None:
                script = Script(action.script, code.via, degraded=True)
                found = Unwrap("script", code.via, scripts=(script,))
                step = self.scripts(found, scope.copy(), child_env, INLINE_MASKS)
            else:
                child_env = child_env._replace(via=env.via + (code.via,))
                step = self.resolve(action.argv, None, scope.copy(), child_env)
            step.masks = INLINE_MASKS
            steps.append(step)
        return steps

    def child(self, child: Unwrap, scope: _Scope, env: _Env) -> Step:
        """A command that find -exec, git rebase -x, ... runs."""
        env = env._replace(
            extra_args=env.extra_args or child.extra_args,
            arg_roots=child.arg_roots if child.extra_args else env.arg_roots,
        )
        if child.kind == "script":
            return self.scripts(child, scope.copy(), env, child.masks)
        env = env._replace(via=env.via + (child.via,))
        if child.via.endswith("dir"):  # find -execdir/-okdir: runs in each file's directory
            scope = _Scope(None)
        step = self.resolve(child.rest, None, scope.copy(), env)
        step.masks = step.masks or child.masks
        return step

    def scripts(self, found: Unwrap, scope: _Scope, env: _Env, masks: str | None) -> Step:
        step = Step(masks=masks or found.masks)
        for k, script in enumerate(found.scripts):
            inner = self.script(script, scope, env._replace(key=env.key + (k,)))
            if inner is not None:
                step.scripts.append(inner)
        return step

    def script(self, script: Script, scope: _Scope, env: _Env) -> InnerScript | None:
        env = env._replace(via=env.via + (script.via,), depth=env.depth + 1)
        result = parse(script.text)
        if result.root is None and result.status == "ok":
            return InnerScript(result, env.key, script.via)  # empty: runs nothing
        if env.depth > self.depth_cap or result.root is None:
            self.emit((Word(script.text, None),), env, scope.cwd, True)  # unknown, never safe
            return None
        degraded = env.degraded or script.degraded or result.status != "ok"
        target = scope if script.same_shell else scope.copy()
        self.node(result.root, target, env._replace(degraded=degraded))
        return InnerScript(
            result, env.key, script.via, script.same_shell, script.errexit, script.pipefail
        )

    def change_directory(self, inv: Invocation, scope: _Scope) -> None:
        name = inv.name
        if name not in ("cd", "pushd", "popd"):
            return
        args = [w for w in inv.argv[1:] if (w.literal() or "x")[0] != "-" or w.literal() == "-"]
        if name == "popd":
            scope.cwd = scope.stack.pop() if scope.stack and not args else None
            return
        target = args[0].literal() if args else None
        if name == "pushd":
            scope.stack.append(scope.cwd)
            if target is not None and target[:1] in "+-" and target[1:].isdigit():
                target = None
        if target is None or target == "-" or args[0].has_glob:
            scope.cwd = None
        else:
            scope.cwd = join_cwd(scope.cwd, target)
