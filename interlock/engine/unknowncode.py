"""Code interlock cannot read: never assumed harmless (STYLE: unknown is not safe).

Three shapes, each an `unparsed` finding so blocking mode blocks and advisory mode warns:
- a code trampoline whose code is not a literal: `eval "$X"`, `bash -c "$SCRIPT"`;
- a shell reading its commands from stdin fed by another program: `curl ... | sh`,
  `sed ... | bash`. When the feeder is literal text (`echo 'cmd' | bash`,
  `printf 'cmd\\n' | sh`, `cat <<EOF | bash`), that text is analysed instead;
- a command whose name is not a literal: `$CMD --all` (a `~/bin/tool` path is a path).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from interlock.engine.datacode import CODE_VIAS as _DATA_VIAS
from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.launchers import CODE_VIAS as _LAUNCH_VIAS
from interlock.engine.literal import literal_output
from interlock.engine.rules.git.invocation import parse_git
from interlock.engine.unwrap import STDIN_SHELLS, shell_script
from interlock.shell.model import (
    CommandList,
    Compound,
    Node,
    Pipeline,
    SimpleCommand,
    Word,
)

SHELLS = STDIN_SHELLS  # kept for callers that name it here
_CODE_VIAS = (
    frozenset(("eval", "env -S", "git rebase -x", "git submodule foreach"))
    | _LAUNCH_VIAS
    | _DATA_VIAS
)


def reads_stdin(inv: Invocation) -> bool:
    """A shell with neither `-c CODE` nor a script file (or `at`/`batch` without `-f`): it
    runs what stdin gives it."""
    if inv.name in ("at", "batch"):
        flags = [w.literal() or "" for w in inv.argv[1:]]
        return not any(f.startswith(("-f", "-l", "-r", "-d", "-c")) for f in flags)
    if inv.name not in SHELLS or shell_script(inv.argv) is None:
        return False  # not a shell, or one that runs nothing (`bash -n`)
    words = inv.argv[1:]
    i = 0
    while i < len(words):
        value = words[i].literal()
        if value is None:
            return False
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if value == "-s" or value == "--":
            return True
        if value.startswith("-") and not value.startswith("--"):
            if "c" in value[1:]:
                return False
        elif not value.startswith("-"):
            return False  # a script file
        i += 1
    return True


def _children(node: Node) -> Iterator[Node]:
    if isinstance(node, CommandList):
        yield from node.items
    elif isinstance(node, Pipeline):
        yield from node.commands
    elif isinstance(node, Compound):
        yield from node.parts
    words: tuple[Word, ...] = ()
    if isinstance(node, SimpleCommand):
        words = node.assignments + node.words
    elif isinstance(node, Compound):
        words = node.words
    for word in words:
        yield from word.substitutions


def _nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(_children(node))


def _literal_text(feeder: Node) -> str | None:
    """The text a literal feeder writes into a pipe (see literal_output)."""
    if not isinstance(feeder, SimpleCommand):
        return None
    return literal_output(feeder.words, feeder.redirects)


def pipe_feeders(root: Node) -> dict[int, tuple[Node, ...]]:
    """For each command in a pipeline: id of its simple command -> the commands before it."""
    found: dict[int, tuple[Node, ...]] = {}
    for node in _nodes(root):
        if isinstance(node, Pipeline):
            for k, consumer in enumerate(node.commands):
                if isinstance(consumer, SimpleCommand) and k:
                    found[id(consumer)] = node.commands[:k]
    return found


def stdin_scripts(root: Node) -> dict[int, str | None]:
    """For each shell in a pipeline fed by the command before it: id of the shell's simple
    command -> the literal script it is fed, or None when that is not known."""
    found: dict[int, str | None] = {}
    for node in _nodes(root):
        if not isinstance(node, Pipeline):
            continue
        for feeder, consumer in zip(node.commands, node.commands[1:], strict=False):
            if isinstance(consumer, SimpleCommand):
                found[id(consumer)] = _literal_text(feeder)
    return found


def _finding(rule: str, inv: Invocation, reason: str, instead: str) -> Finding:
    return Finding("unparsed", rule, inv.text or "(unknown)", reason, instead, cwd=inv.cwd)


def unknown_findings(
    inv: Invocation, scripts: dict[int, str | None]
) -> tuple[list[Finding], str | None]:
    """Findings for one invocation, and a literal stdin script to analyse in its place."""
    if not inv.argv:
        return [], None
    head = inv.argv[0]
    if head.literal() is None and not head.text.startswith("~/"):
        code = bool(inv.via) and (inv.via[-1] in _CODE_VIAS or inv.via[-1].endswith(" -c"))
        if bool(inv.via) and head.text.startswith("<") and head.text.endswith(">"):
            # the inline scanners' mark for code they cannot read (built at run time)
            reason = f"{head.text[1:-1]}, run through `{inv.via[-1]}`"
            return [_finding("parse.unknown-code", inv, reason, _INSTEAD_CODE)], None
        if code:
            reason = (
                f"the code `{head.text}` run through `{inv.via[-1]}` is only known when it runs"
            )
            return [_finding("parse.unknown-code", inv, reason, _INSTEAD_CODE)], None
        reason = f"the command name `{head.text}` is only known when it runs"
        return [_finding("parse.unknown-command", inv, reason, "spell the command name out")], None
    if inv.name == "git":
        call = parse_git(inv)
        unknown = [w for w in inv.argv[1:] if w.literal() is None]
        if call is not None and call.sub is None and unknown and not call.informational:
            reason = f"the git subcommand `{unknown[0].text}` is only known when it runs"
            return [
                _finding("parse.unknown-command", inv, reason, "spell the subcommand out")
            ], None
        built = [w for w in unknown if _BUILT_OPTION.match(w.text)]
        if call is not None and built and not call.informational:
            reason = f"the git option `{built[0].text}` is only known when it runs"
            return [_finding("parse.unknown-command", inv, reason, "spell the option out")], None
    if reads_stdin(inv) and inv.source is not None and id(inv.source) in scripts:
        script = scripts[id(inv.source)]
        if script is not None:
            return [], script
        reason = f"`{inv.text}` runs whatever the command before it in the pipe writes"
        return [_finding("parse.unknown-code", inv, reason, _INSTEAD_CODE)], None
    return [], None


# An option whose name (before any `=`) is built at run time: `--ha$(echo)rd`, `-D$X`.
_BUILT_OPTION = re.compile(r"^['\"]?-[-\w]*(\$|`)[^=]*$")

_INSTEAD_CODE = (
    "write the script to a file, read it, and run that file; or run the commands themselves"
)
