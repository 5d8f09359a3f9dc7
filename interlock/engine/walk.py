"""Find every command a command line would run, wherever it hides.

`walk(result)` returns one Invocation per effective command, in the order they would start:
substitutions before the command that uses them, lists, pipelines, subshells, groups, `if`,
loops, `case`, function bodies, heredoc bodies, and through wrappers and trampolines
(wrappers.py, spawners.py) and inline interpreter code (inline/). It tracks the working
directory through `cd`/`pushd`/`popd`/`env -C` (a subshell, pipeline element, background job
or `bash -c` does not leak its `cd`); `cd -`, `cd` to a non-literal and ambiguous branches give
cwd None. A `cd` that may fail without stopping the line (`cd build; rm -rf *`, not
`cd build && ...`, `cd build || exit`, or under `set -e`) leaves the directory it started from
as an alternative (`Invocation.alt_cwds`). Each invocation also records which earlier ones
surely exited 0 before it starts (`Invocation.succeeded`: an `&&` chain, an `if` condition,
`X || exit`, `set -e`), and the pipeline it belongs to (`Invocation.pipe`). Trampolines nested
deeper than depth_cap are not walked: an unknown, degraded Invocation stands for the rest.

`is_degraded(result, invocations)` says whether the analysis was best effort: the parse was
not clean, or an invocation came from a fallback path (a non-literal `bash -c`/`eval`, inline
code, which also marks the interpreter's own invocation).

`trace(result)` also returns, for each simple command, the Step it became (exitflow.py follows
exit statuses through them); steps are keyed by the ids of the trampoline commands leading
to them and of the simple command itself.

Given a `ScriptFiles` reader (a tree fact), a command that runs a script file it can read
(`./x.sh`, `bash x.sh`, `source x.sh`, `python x.py`: engine.scriptfiles) is walked into:
the file's commands are invocations of the line, in a child shell (`source`: the same one),
with their place in the file (`Trace.origins`). A file already on the chain (a script that
runs itself) is not read again, and files nest at most _FILE_DEPTH deep.
"""

from __future__ import annotations

import os
from dataclasses import replace
from types import MappingProxyType
from typing import NamedTuple

from interlock.engine import mounts, scriptfiles, shellvars
from interlock.engine.findexpr import Search
from interlock.engine.inline.interpreters import InlineCode, inline_code, scan_code
from interlock.engine.invocation import Invocation
from interlock.engine.shellstate import (
    Scope,
    Success,
    change_directory,
    ends_shell,
    is_cd,
    is_popd,
    join_cwd,
    place_of,
    set_options,
)
from interlock.engine.unwrap import KEEP, Script, Unwrap
from interlock.engine.walksteps import InnerScript, Origin, Step, StepKey, Trace
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

INLINE_MASKS = "it runs inside inline interpreter code, whose exit status is not followed"
_SHELL_BUILTIN_VIA = frozenset({"command", "builtin"})
_FILE_DEPTH = 4  # script files run by script files, at most
_FILE_KEY = -1  # the step key of a script file's code under the command that runs it
_ALT_KEY = -2  # the step keys of the other readings of a wrapper's words
_CALL_KEY = -3  # the step keys of a function's body walked again where it is called
ALT_MASKS = "it is another reading of a wrapper's words (where the command starts is unknown)"


class _InFile(NamedTuple):
    """The script file being walked: its name as shown, the line of each of its simple
    commands (by id), the origin of the command that ran it, and the chain of files."""

    shown: str
    lines: dict[int, int]
    outer: str
    chain: tuple[str, ...]


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
    arg_search: Search | None = None
    arg_file: bool = False
    pipe: int = 0
    own: int = 0  # redirects written on the simple command itself (the last ones)
    file: _InFile | None = None  # the script file these commands are read from
    origin: Origin | None = None
    fed: tuple[tuple[int, str], ...] = ()  # the files `<` on the simple command opens, by fd
    # what stdin may carry besides what is piped in (`piped`: `pgrep x | while read p`): what
    # the variables of the earlier commands carry (`echo "$P" | ...`), or a redirection's
    # (`done < <(pgrep x)`, `<<< "$P"`: the redirects of a command hold the enclosing ones)
    stdin: tuple[Node, ...] = ()
    piped: Pipeline | None = None
    clears_env: bool = False  # an enclosing `env -i` emptied the environment
    unmapped: tuple[str, ...] = ()  # in a container: its paths whose host place is not known


def walk(
    result: ParseResult, depth_cap: int = 8, files: scriptfiles.ScriptFiles | None = None
) -> list[Invocation]:
    """Every command the parsed line would run, as Invocations (see the module docstring)."""
    return trace(result, depth_cap, files).invocations


def trace(
    result: ParseResult, depth_cap: int = 8, files: scriptfiles.ScriptFiles | None = None
) -> Trace:
    """walk() plus the Step of every simple command, for exitflow; `files` reads the script
    files the line runs (None: the text alone)."""
    walker = _Walker(depth_cap, files)
    traps: dict[int, str] = {}
    if result.root is not None:
        scope = Scope(vars=shellvars.from_environment(os.environ))
        walker.node(result.root, scope, _Env(degraded=result.status != "ok"))
        for inv, shell, at_trap in walker.traps:
            text = " ".join(w.literal() or "" for w in inv.argv)
            if shell is scope.shell:  # it runs at the end of this shell (a subshell's: unknown)
                traps[id(inv)] = shellvars.trap_prelude(text, at_trap, scope.vars)
    return Trace(
        walker.invocations,
        walker.steps,
        frozenset(walker.repeats),
        walker.origins,
        walker.runs,
        traps,
    )


def is_degraded(result: ParseResult, invocations: list[Invocation]) -> bool:
    """True when the analysis is best effort: see the module docstring."""
    return result.status != "ok" or any(inv.degraded for inv in invocations)


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


def _stdin_nodes(redirects: tuple[Redirect, ...], v: shellvars.Vars) -> tuple[Node, ...] | None:
    """The commands whose output a redirection feeds to stdin: `< <(pgrep x)`,
    `<<< "$(pgrep x)"`, `<<< "$P"` (what P carries), a heredoc's `$(...)` or `$P`; None when
    no redirection feeds it."""
    nodes: list[Node] | None = None
    for r in redirects:
        if r.fd in (None, 0) and r.op in ("<", "<<<", "<<", "<<-"):
            nodes = [*(nodes or []), *r.substitutions]
            if r.target is not None:
                nodes += shellvars.carried_by(r.target, v)
            if r.heredoc:
                nodes += shellvars.carried_by(Word(r.heredoc, None), v)
    return None if nodes is None else tuple(nodes)


def _carried_out(commands: tuple[Node, ...], v: shellvars.Vars) -> tuple[Node, ...]:
    """What the variables the first `commands` of a pipeline expand carry, which their output
    may hold (`echo "$P" | xargs kill`)."""
    held = [
        shellvars.carried_by(w, v)
        for c in commands
        if isinstance(c, SimpleCommand)
        for w in c.words
    ]
    return tuple(n for nodes in held for n in nodes)


def _fed_files(redirects: tuple[Redirect, ...]) -> tuple[tuple[int, str], ...]:
    """The literal files `< FILE` / `3< FILE` open for the command, by descriptor (a later
    redirection of the same descriptor replaces an earlier one)."""
    fed: dict[int, str | None] = {}
    for r in redirects:
        fd = 0 if r.fd is None else r.fd
        if r.heredoc is not None or r.op == "<<<":
            fed[fd] = None
        elif r.op == "<" and r.target is not None:
            fed[fd] = r.target.literal()
    return tuple((fd, path) for fd, path in fed.items() if path is not None)


class _Walker:
    def __init__(self, depth_cap: int, files: scriptfiles.ScriptFiles | None = None) -> None:
        self.depth_cap = depth_cap
        self.files = files
        self.invocations: list[Invocation] = []
        self.steps: dict[StepKey, Step] = {}
        self.repeats: set[int] = set()
        self.origins: dict[int, Origin] = {}
        self.runs: dict[int, str] = {}
        self.moving: set[str] = set()  # functions whose body may change the directory
        # functions defined on the line: the body, and the place it was walked at (a call
        # elsewhere walks it again there: `f() { rm a.py; }; cd src && f` removes src/a.py)
        self.bodies: dict[str, tuple[Compound, set[tuple[str | None, tuple[str | None, ...]]]]] = {}
        self.calling: set[str] = set()  # functions whose body is being walked for a call
        self.traps: list[tuple[Invocation, object, shellvars.Vars]] = []  # with shell and vars

    # -- structure ---------------------------------------------------------------------------
    def node(self, node: Node, scope: Scope, env: _Env) -> Success:
        """Walk `node`; return what surely exited 0 if it does (see `Success`)."""
        if isinstance(node, SimpleCommand):
            return self.simple(node, scope, env)
        if isinstance(node, Pipeline):
            inner = env._replace(pipe=id(node)) if len(node.commands) > 1 else env
            last: Success = ()
            for k, command in enumerate(node.commands):  # each element runs in a subshell
                if k:
                    fed = node.commands[:k]
                    stdin = _carried_out(fed, scope.vars)
                    inner = inner._replace(stdin=stdin, piped=Pipeline(fed))
                last = self.node(command, scope.copy(), inner)
            return () if node.negated else last
        if isinstance(node, CommandList):
            return self.command_list(node, scope, env)
        return self.compound(node, scope, env)

    def substitutions(self, nodes: tuple[Node, ...], scope: Scope, env: _Env) -> None:
        for node in nodes:
            self.node(node, scope.copy(), env)

    def words(self, words: tuple[Word, ...], scope: Scope, env: _Env) -> None:
        for word in words:
            self.substitutions(word.substitutions, scope, env)

    def redirects(self, redirects: tuple[Redirect, ...], scope: Scope, env: _Env) -> None:
        for r in redirects:
            if r.target is not None:
                self.substitutions(r.target.substitutions, scope, env)
            self.substitutions(r.substitutions, scope, env)

    def command_list(self, node: CommandList, scope: Scope, env: _Env) -> Success:
        start = 0
        last: Success = ()
        for k, op in enumerate(node.ops):
            if op in ("&&", "||"):
                continue
            chain = node.items[start : k + 1]
            chain_ops = node.ops[start:k]
            target = scope.copy() if op == "&" else scope  # a background job is a subshell
            got = self.chain(chain, chain_ops, target, env)
            last = () if op == "&" else got
            start = k + 1
        return last

    def chain(
        self, items: tuple[Node, ...], ops: tuple[str, ...], scope: Scope, env: _Env
    ) -> Success:
        """An `&&`/`||` chain. Besides the cwd on success, it follows what surely succeeded
        before each item, and where a failed `cd` leaves the line when it falls out of the
        chain (`cd X; cmd`, `cd X && make; cmd`)."""
        before = after = scope.cwd
        start_done = scope.done
        prefix: Success = ()  # what surely succeeded if the chain so far did
        held: Success = ()  # the prefix before the last item
        fallout: list[str | None] = []
        fails: set[str | None] = set()  # where the chain stands if what ran so far failed
        start_vars = first_vars = scope.vars
        for k, item in enumerate(items):
            op = ops[k - 1] if k else "&&"
            scope.done = start_done + prefix if op == "&&" else start_done
            ran_vars = scope.vars  # after every item so far ran
            if op == "||" and scope.vars is not start_vars:  # what ran before is unknown here
                scope.vars = shellvars.merge([start_vars, scope.vars])
            pre_cwd, pre_alts = scope.cwd, scope.alts
            if k > 0 and op == "||" and fails != {after}:
                # item runs only when an earlier one failed: where that one left the line
                # (`cd X && make || rm -rf *`: in X when make failed, here when the cd did)
                success = after
                scope.cwd = next(iter(fails)) if len(fails) == 1 else None
                before = scope.cwd
                got = self.node(item, scope, env)
                if not ends_shell(item) and scope.cwd != success:
                    scope.cwd = None
                elif ends_shell(item):
                    scope.cwd = success
                after = scope.cwd
            else:
                before = scope.cwd
                got = self.node(item, scope, env)
                after = scope.cwd
                last = k == len(items) - 1
                stays = last and scope.errexit or is_popd(item)  # popd fails only where it is
                moved = (after, scope.alts) != (pre_cwd, pre_alts)
                if moved and "||" not in ops[k:] and not stays:
                    fallout += [pre_cwd, *pre_alts]  # a failure here skips to after the chain
            failed = before if is_cd(item) else after if after == before else None
            fails = fails | {failed} if op == "&&" else {failed}
            held = prefix
            prefix = prefix + got if op == "&&" else ()
            first_vars = scope.vars if k == 0 else first_vars
        guarded = len(items) > 1 and ops[-1] == "||" and ends_shell(items[-1])
        if guarded and "||" not in ops[:-1]:
            scope.vars = ran_vars  # `T=$(mktemp -d) || exit 1`: goes on only if all ran
        elif scope.vars is not first_vars:  # an assignment after the first item may not have run
            scope.vars = shellvars.merge([first_vars, scope.vars])
        if fallout:
            scope.set_alts(scope.alts + tuple(fallout))
        if guarded:
            scope.done = start_done + held  # `X || exit`: the line goes on only if X succeeded
        elif len(items) == 1 and scope.errexit:
            scope.done = start_done + prefix
        else:
            scope.done = start_done
        return prefix

    def compound(self, node: Compound, scope: Scope, env: _Env) -> Success:
        self.words(node.words, scope, env)
        self.redirects(node.redirects, scope, env)
        inner = env._replace(redirects=env.redirects + node.redirects) if node.redirects else env
        kind = node.kind
        success: Success = ()
        if kind == "function" and node.name:
            functions = {**scope.vars.functions, node.name: node.text}
            scope.vars = replace(scope.vars, functions=MappingProxyType(functions))
        if kind in ("subshell", "function"):
            moves = False
            for part in node.parts:
                body = scope.copy()
                success = self.node(part, body, inner)
                moves = moves or (body.cwd, body.alts, body.stack) != (
                    scope.cwd,
                    scope.alts,
                    scope.stack,
                )
            if kind == "function" and node.name:  # a call runs the body in this shell
                self.moving.discard(node.name)
                if moves:
                    self.moving.add(node.name)
                self.bodies[node.name] = (node, {(scope.cwd, scope.alts)})
        elif kind == "group":
            for part in node.parts:
                success = self.node(part, scope, inner)
        elif kind == "arith":  # `(( F++ ))`, `(( F = 2 ))`
            scope.vars = scope.vars.forget_assigned_in(node.text)
        elif kind == "if":
            self.if_(node, scope, inner)
        elif kind == "case":
            self.branches([(part,) for part in node.parts], scope, inner, may_skip=True)
        elif node.parts:
            self.loop(node, scope, inner)
        return success if kind != "function" else ()

    def loop(self, node: Compound, scope: Scope, env: _Env) -> None:
        """while, until, for, select: the body is read once, with what a later pass may have
        assigned unknown; a `for` over a few literal words is read once per word, with its
        variable set (`for f in a b; do rm $f; done` removes a, then b)."""
        name = shellvars.loop_variable(node.text) if node.kind in ("for", "select") else None
        values = shellvars.loop_values(name, node.words, scope.vars) if node.kind == "for" else None
        scope.vars = scope.vars.forget_assigned_in(node.text)
        if name is not None:  # `for p in $(pgrep x)`: p holds what the pgrep prints
            held = [shellvars.carried_by(w, scope.vars) for w in node.words]
            scope.vars = scope.vars.carry([name], tuple(n for nodes in held for n in nodes))
        if name is None or not values or not shellvars.uses(name, node.text):
            guarded = node.kind == "while" and len(node.parts) == 2
            self.branches([node.parts], scope, env, may_skip=True, guarded=guarded)
            return
        for k, value in enumerate(values):
            first = len(self.invocations)
            scope.vars = scope.vars.assign(name, value)
            self.branches([node.parts], scope, env, may_skip=True)
            if k < len(values) - 1:  # exit statuses are followed through the last pass only
                self.repeats.update(id(inv) for inv in self.invocations[first:])

    def if_(self, node: Compound, scope: Scope, env: _Env) -> None:
        parts = node.parts
        pairs = [parts[k : k + 2] for k in range(0, len(parts) - (1 if node.has_else else 0), 2)]
        branches = list(pairs)
        if node.has_else and parts:
            branches.append((parts[-1],))
        self.branches(branches, scope, env, may_skip=not node.has_else, guarded=True)

    def branches(
        self,
        branches: list[tuple[Node, ...]],
        scope: Scope,
        env: _Env,
        may_skip: bool,
        guarded: bool = False,
    ) -> None:
        """Branches from the same start; `guarded`: a two-part branch is (condition, body),
        and the body runs only when the condition succeeded."""
        start = scope.cwd
        ends: set[str | None] = {start} if may_skip else set()
        var_ends = [scope.vars] if may_skip else []
        alts: list[str | None] = list(scope.alts)
        for branch in branches:
            inner = scope.at(start, scope.alts)
            for k, part in enumerate(branch):
                got = self.node(part, inner, env)
                if guarded and k == 0 and len(branch) == 2:
                    inner.done = inner.done + got
            ends.add(inner.cwd)
            var_ends.append(inner.vars)
            alts += inner.alts
        scope.cwd = ends.pop() if len(ends) == 1 else None
        scope.vars = shellvars.merge(var_ends) if var_ends else scope.vars
        scope.set_alts(tuple(alts))

    # -- simple commands ---------------------------------------------------------------------
    def emit(
        self,
        argv: tuple[Word, ...],
        env: _Env,
        cwd: str | None,
        degraded: bool,
        scope: Scope,
        alts: tuple[str | None, ...] | None = None,
    ) -> Invocation:
        others = scope.alts if alts is None else alts
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
            alt_cwds=tuple(a for a in others if a != cwd or a is None),
            succeeded=scope.done,
            pipe=env.pipe,
            own_redirects=env.own,
            arg_search=env.arg_search,
            arg_file=env.arg_file,
            stdin=env.stdin,
            clears_env=env.clears_env,
        )
        self.invocations.append(inv)
        if env.origin is not None:
            self.origins[id(inv)] = env.origin
        return inv

    def simple(self, cmd: SimpleCommand, scope: Scope, env: _Env) -> Success:
        self.words(cmd.assignments + cmd.words, scope, env)
        self.redirects(cmd.redirects, scope, env)
        key = env.key + (id(cmd),)
        if env.file is not None:
            env = env._replace(origin=_origin_of(cmd, env.file, env.origin))
        words, assignments, redirects = cmd.words, cmd.assignments, cmd.redirects
        if env.unmapped:  # `sh -c 'echo > /w/x'` in a container: an unknown target
            redirects = tuple(_hidden(r, env.unmapped) for r in redirects)
        known = scope.vars
        if not known.empty:  # variables the line assigned earlier, put in (engine.shellvars)
            words = shellvars.expand_words(words, known)
            assignments = tuple(shellvars.expand_assignment(w, known) for w in assignments)
            redirects = tuple(shellvars.expand_redirect(r, known) for r in redirects)
            for word in cmd.assignments + cmd.words:
                scope.vars = shellvars.forget_in_word(word, scope.vars)
        words = tuple(_placed(word, scope) for word in words)  # `"$(pwd)"`: a known place
        env = env._replace(
            source=env.source or cmd,
            key=key,
            assignments=env.assignments + assignments,
            redirects=env.redirects + redirects,
            own=len(redirects),
        )
        if (redirected := _stdin_nodes(env.redirects, scope.vars)) is not None:
            env = env._replace(stdin=redirected, piped=None)  # not the pipe
        if not words:  # assignments or redirections only: rules still want to see them
            inv = self.emit((), env, scope.cwd, env.degraded, scope)
            self.steps[key] = Step(invocation=inv, success=(inv,))
            if not cmd.words:
                scope.vars = shellvars.assigned(assignments, scope.vars)
            return (inv,)
        env = env._replace(fed=_fed_files(redirects))
        step = self.resolve(words, _stdin_text(redirects), scope, env)
        self.steps[key] = step
        return step.success

    def resolve(self, words: tuple[Word, ...], stdin: str | None, scope: Scope, env: _Env) -> Step:
        """Strip wrappers from words; walk what they hand over to; return the Step."""
        masks: str | None = None
        local_via: tuple[str, ...] = ()
        cwd, alts = scope.cwd, scope.alts
        readings: list[tuple[tuple[Word, ...], _Env, Scope]] = []  # Unwrap.alternatives
        while (found := unwrap(words, stdin)) is not None and found.kind in ("exec", "script"):
            if found.cwd != KEEP:
                moved = found.cwd
                if moved is not None and mounts.is_under(moved, env.unmapped):
                    moved = None  # `env -C /w` in a container: where /w is on the host
                cwd = None if moved is None else join_cwd(cwd, moved)
                alts = tuple(None if moved is None else join_cwd(a, moved) for a in alts)
            masks = masks or found.masks
            outer = () if found.clears_env else env.assignments
            env = env._replace(
                assignments=outer + found.assignments,
                extra_args=env.extra_args or found.extra_args,
                arg_roots=found.arg_roots if found.extra_args else env.arg_roots,
                arg_search=found.arg_search if found.extra_args else env.arg_search,
                arg_file=env.arg_file or found.arg_file,
                clears_env=env.clears_env or found.clears_env,
            )
            if found.kind == "script":
                same_shell = all(s.same_shell for s in found.scripts) and cwd == scope.cwd
                target = scope if same_shell else scope.at(cwd, alts)
                return self.scripts(found, target, env, masks, inherit=not local_via)
            local_via += (found.via,)
            env = env._replace(via=env.via + (found.via,))
            words = found.rest
            readings += [(other, env, scope.at(cwd, alts)) for other in found.alternatives]
            if found.mounts is not None:  # a container: its paths where they are on the host
                # only a command run directly: paths inside code it runs are not mapped
                direct = not alts and unwrap(words, None) is None and not inline_code(words, None)
                if direct:
                    words, cwd = mounts.enter(found.mounts, words, cwd, scope.cwd)
                else:  # `sh -c 'rm /w/x'`: those paths are unknown in all it runs
                    cwd = None
                    env = env._replace(unmapped=env.unmapped + found.mounts.reach())
                alts = ()
        words = mounts.hide_args(words, env.unmapped)  # in a container (_Env.unmapped)
        code = inline_code(words, stdin)
        ran = self.file_run(words, cwd, found, env)
        inv = self.emit(words, env, cwd, env.degraded or code is not None, scope, alts)
        step = Step(invocation=inv, masks=masks, success=(inv,))
        inner_scope = scope.at(cwd, alts)
        same = False  # a sourced file walked in this shell: its variables are known
        if ran is not None:
            builtin = set(local_via) <= _SHELL_BUILTIN_VIA
            same = ran.same_shell and cwd == scope.cwd and builtin
            self.run_file(ran, step, scope if same else inner_scope, env, not local_via)
        if found is not None:  # a spawner: find -exec, git rebase -x, ...
            for k, child in enumerate(found.children):
                child_env = env._replace(key=env.key + (k,))
                step.children.append(self.child(child, inner_scope, child_env))
        if code is not None:
            step.children.extend(self.inline(code, inner_scope, env))
        for k, (other, at_env, at_scope) in enumerate(readings):
            other_env = at_env._replace(key=env.key + (_ALT_KEY, k), own=0)
            alternative = self.resolve(other, None, at_scope, other_env)
            alternative.masks = ALT_MASKS  # the wrapper's status is the first reading's
            step.children.append(alternative)
        if set(local_via) <= _SHELL_BUILTIN_VIA:
            self.call(words[0].literal() if words else None, scope, env)
            change_directory(inv, scope)
            if words and words[0].literal() in self.moving:  # `f() { cd src; }; f; rm x`
                scope.cwd, scope.alts = None, ()
            set_options(inv, scope)
            if inv.name == "trap":
                self.traps.append((inv, scope.shell, scope.vars))
            if not same:
                scope.vars = shellvars.after_command(inv.name, inv.argv, scope.vars)
                fed = env.stdin + ((env.piped,) if env.piped is not None else ())
                scope.vars = shellvars.after_reading(inv.name, inv.argv, scope.vars, fed)
        return step

    def call(self, name: str | None, scope: Scope, env: _Env) -> None:
        """A call of a function defined on the line, from a place its body was not walked at
        yet: its commands run here, so they are walked here too (for what they do; the call's
        own status stays the command's)."""
        if name is None or name not in self.bodies or name in self.calling:
            return
        node, places = self.bodies[name]
        if (scope.cwd, scope.alts) in places:
            return
        places.add((scope.cwd, scope.alts))
        self.calling.add(name)
        try:
            body = scope.copy()
            call_env = env._replace(key=env.key + (_CALL_KEY,))
            for part in node.parts:
                self.node(part, body, call_env)
        finally:
            self.calling.discard(name)

    def inline(self, code: InlineCode, scope: Scope, env: _Env) -> list[Step]:
        """What interpreter code runs (scanned, so degraded); its status is not followed."""
        steps: list[Step] = []
        for k, action in enumerate(code.actions):
            child_env = env._replace(degraded=True, key=env.key + (k,), own=0)
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

    def child(self, child: Unwrap, scope: Scope, env: _Env) -> Step:
        """A command that find -exec, git rebase -x, ... runs."""
        env = env._replace(
            extra_args=env.extra_args or child.extra_args,
            arg_roots=child.arg_roots if child.extra_args else env.arg_roots,
            arg_search=replace(child.arg_search, base=scope.cwd) if child.arg_search else None,
            arg_file=env.arg_file or child.arg_file,
            own=0,
        )
        if child.cwd is None:  # `git -C DIR rebase -x`: the top of a work tree found at run time
            scope = Scope(None)
        if child.kind == "script":
            return self.scripts(child, scope.copy(), env, child.masks)
        env = env._replace(via=env.via + (child.via,))
        if child.via.endswith("dir"):  # find -execdir/-okdir: runs in each file's directory
            scope = Scope(None)
        step = self.resolve(child.rest, None, scope.copy(), env)
        step.masks = step.masks or child.masks
        return step

    def scripts(
        self, found: Unwrap, scope: Scope, env: _Env, masks: str | None, inherit: bool = False
    ) -> Step:
        step = Step(masks=masks or found.masks)
        for k, script in enumerate(found.scripts):
            inner = self.script(script, scope, env._replace(key=env.key + (k,)), inherit)
            if inner is not None:
                step.scripts.append(inner)
                step.success = inner.success
        return step

    def script(
        self,
        script: Script,
        scope: Scope,
        env: _Env,
        inherit: bool = False,
        parsed: ParseResult | None = None,
    ) -> InnerScript | None:
        """Walk a script a trampoline runs; `inherit`: a new shell started with nothing
        between that may clear its environment (it sees the line's exported variables);
        `parsed`: the script's text, already parsed."""
        env = env._replace(via=env.via + (script.via,), depth=env.depth + 1, own=0)
        outer = scope.vars
        if script.degraded:  # a `$` left in the text may be the outer shell's: resolve nothing
            scope.vars = shellvars.BLIND
        try:
            return self._script(script, scope, env, inherit, parsed)
        finally:
            if script.degraded:
                scope.vars = outer.forget() if script.same_shell else outer

    def _script(
        self, script: Script, scope: Scope, env: _Env, inherit: bool, parsed: ParseResult | None
    ) -> InnerScript | None:
        result = parsed if parsed is not None else parse(script.text)
        if result.root is None and result.status == "ok":
            return InnerScript(result, env.key, script.via)  # empty: runs nothing
        if env.depth > self.depth_cap or result.root is None:
            self.emit((Word(script.text, None),), env, scope.cwd, True, scope)  # unknown
            return None
        degraded = env.degraded or script.degraded or result.status != "ok"
        target = scope if script.same_shell else scope.copy()
        if not script.same_shell:  # a new shell: `set -e` and unexported variables are not kept
            target.errexit = script.errexit
            known = shellvars.for_new_shell(scope.vars, env.assignments, script.args, inherit)
            known = shellvars.BLIND if script.degraded else known
            target.vars = replace(known, open=env.extra_args) if known.params is not None else known
        success = self.node(result.root, target, env._replace(degraded=degraded, pipe=0))
        return InnerScript(
            result,
            env.key,
            script.via,
            script.same_shell,
            script.errexit,
            script.pipefail,
            success,
        )

    # -- script files ------------------------------------------------------------------------
    def file_run(
        self, words: tuple[Word, ...], cwd: str | None, found: Unwrap | None, env: _Env
    ) -> scriptfiles.FileRun | None:
        """The script file the command runs, when it is to be walked into (module docstring)."""
        if self.files is None or found is not None or not words:
            return None
        ran = scriptfiles.runs_file(words, cwd, self.files, dict(env.fed))
        if ran is None:
            return None
        chain = env.file.chain if env.file is not None else ()
        if ran.file.path in chain or len(chain) >= _FILE_DEPTH:
            return None  # a script that runs itself: what it does is being judged already
        if scriptfiles.written_earlier(self.invocations, cwd, ran.file.shown):
            return None  # `cat > x.sh <<EOF ... && bash x.sh`: what runs is what the line wrote
        return ran

    def run_file(
        self, ran: scriptfiles.FileRun, step: Step, scope: Scope, env: _Env, inherit: bool
    ) -> None:
        """Walk a script file's code as run by the step's command (see the module docstring)."""
        file = ran.file
        if step.invocation is not None:
            self.runs[id(step.invocation)] = file.path
        chain = (env.file.chain if env.file is not None else ()) + (file.path,)
        outer = env.origin.text + ", " if env.origin is not None else ""
        files = (env.origin.files if env.origin is not None else ()) + (file.path,)
        here = Origin(outer + file.shown, files)
        env = env._replace(key=env.key + (_FILE_KEY,), origin=here, own=0)
        if ran.language == "python":
            env = env._replace(file=_InFile(file.shown, {}, outer, chain))
            code = InlineCode("python", ran.via, file.text, scan_code("python", file.text))
            step.children.extend(self.inline(code, scope.copy(), env))
            return
        script = Script(
            file.text,
            ran.via,
            same_shell=ran.same_shell,
            errexit=ran.errexit,
            pipefail=ran.pipefail,
        )
        result = parse(file.text)
        lines = _line_numbers(file.text, result.root) if result.root is not None else {}
        env = env._replace(file=_InFile(file.shown, lines, outer, chain))
        inner = self.script(script, scope, env, inherit, result)
        if inner is not None:
            step.scripts.append(inner)
            step.success = step.success + inner.success


def _hidden(redirect: Redirect, reach: tuple[str, ...]) -> Redirect:
    if redirect.target is None:
        return redirect
    (target,) = mounts.hide((redirect.target,), reach)
    return replace(redirect, target=target)


def _placed(word: Word, scope: Scope) -> Word:
    place = place_of(word, scope)
    return word if place is None else replace(word, place=place)


def _origin_of(cmd: SimpleCommand, file: _InFile, enclosing: Origin | None) -> Origin:
    """`x.sh line 3` for a command of the file; a command inside another command's code
    (`bash -c '...'` in the file) stands where that command does."""
    line = file.lines.get(id(cmd))
    if line is None and enclosing is not None:
        return enclosing
    where = f"{file.shown} line {line}" if line is not None else file.shown
    files = enclosing.files if enclosing is not None else file.chain
    return Origin(file.outer + where, files)


def _simple_commands(node: Node) -> list[SimpleCommand]:
    """The simple commands of a parsed text in the order they are written."""
    found: list[SimpleCommand] = []
    stack: list[Node] = [node]
    while stack:
        current = stack.pop()
        children: list[Node] = []
        if isinstance(current, SimpleCommand):
            found.append(current)
            for word in current.assignments + current.words:
                children.extend(word.substitutions)
        elif isinstance(current, Pipeline):
            children.extend(current.commands)
        elif isinstance(current, CommandList):
            children.extend(current.items)
        else:
            for word in current.words:
                children.extend(word.substitutions)
            children.extend(current.parts)
        stack.extend(reversed(children))
    return found


def _line_numbers(text: str, root: Node) -> dict[int, int]:
    """The line each simple command starts on, found by its text in written order."""
    lines: dict[int, int] = {}
    at = 0
    for cmd in _simple_commands(root):
        probe = cmd.text.split("\n", 1)[0].strip()
        pos = text.find(probe, at) if probe else -1
        if pos < 0:
            continue
        lines[id(cmd)] = text.count("\n", 0, pos) + 1
        at = pos
    return lines
