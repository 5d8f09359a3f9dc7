"""Code git runs for a command: aliases (`!` shell snippets, aliases from config files and
from earlier on the same line, chains), programs named by configuration (`-c core.pager=...`,
GIT_CONFIG_* variables, `git config` writes of them), `ext::` remotes and options whose value
is a command (`--upload-pack`, `difftool -x`, `grep -O`). See rules/git/config.py for the keys.
"""

from __future__ import annotations

import shlex

from interlock.engine.invocation import Invocation
from interlock.engine.linecontext import HiddenCode, LineContext, words_text
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.git.config import (
    ATTACHED_PROGRAM_OPTIONS,
    PROGRAM_OPTIONS,
    clone_config,
    config_writes,
    ext_command,
    is_program_key,
    program_code,
)
from interlock.engine.rules.git.invocation import GIT_COMMANDS, GLOBAL_OPTS, GitCall, parse_git

_MAX_ALIAS_CHAIN = 8


def _alias_values(name: str, call: GitCall, line: LineContext) -> list[str | None]:
    key = f"alias.{name.lower()}"
    given = [value for found, value in call.config if found == key]
    if given:
        return given[-1:]
    values = list(line.aliases.get(name.lower(), []))
    tree = line.tree_alias(call.cwd, name)
    return values + ([tree] if tree is not None else [])


def _alias_code(call: GitCall, line: LineContext, globals_text: str) -> list[HiddenCode]:
    found: list[HiddenCode] = []
    pending = [(call.sub or "", words_text(call.args), 0)]
    seen: set[str] = set()
    while pending:
        name, args, depth = pending.pop()
        if name in GIT_COMMANDS or name in seen or depth > _MAX_ALIAS_CHAIN:
            continue
        seen.add(name)
        origin = f"git alias `{name}`"
        for value in _alias_values(name, call, line):
            if value is None:
                found.append(
                    HiddenCode(
                        None, f"{origin}, only known at run time", call.cwd, "git.config-code"
                    )
                )
            elif value.startswith("!"):
                found.append(HiddenCode(f"{value[1:]} {args}".strip(), origin, call.cwd))
            else:
                try:
                    words = shlex.split(value)
                except ValueError:
                    found.append(
                        HiddenCode(None, f"{origin} cannot be read", call.cwd, "git.config-code")
                    )
                    continue
                if words and words[0] in GIT_COMMANDS:
                    text = f"git {globals_text} {value} {args}"
                    found.append(HiddenCode(" ".join(text.split(" ")), origin, call.inv.cwd))
                elif words:
                    pending.append((words[0], f"{shlex.join(words[1:])} {args}".strip(), depth + 1))
    return found


def git_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    call = parse_git(inv)
    if call is None or call.informational:
        return []
    found: list[HiddenCode] = []
    pairs = call.config + tuple(clone_config(call.args) if call.sub == "clone" else ())
    for key, value in pairs:
        if value is not None and is_program_key(key):
            if (code := program_code(key, value)) is not None:
                found.append(HiddenCode(code, f"git config `{key}`", call.cwd))
    if call.sub is None:
        return found
    if call.sub == "config":
        for key, value in config_writes(call.args):
            if value is None:
                continue
            if is_program_key(key) and (code := program_code(key, value)) is not None:
                found.append(HiddenCode(code, f"`{key}`, which this sets", call.cwd))
            elif key.startswith("alias."):
                text = value[1:] if value.startswith("!") else f"git {value}"
                found.append(HiddenCode(text, f"the alias `{key[6:]}` this defines", call.cwd))
    options = PROGRAM_OPTIONS.get(call.sub, ())
    if options:
        takes = spec(
            short_value="".join(o[1] for o in options if len(o) == 2),
            long_value=" ".join(o[2:] for o in options if o.startswith("--")),
        )
        for opt in parse_args(call.args, takes).values(*options):
            if opt.value:
                found.append(HiddenCode(opt.value, f"git {call.sub} {opt.name}", call.cwd))
    attached = ATTACHED_PROGRAM_OPTIONS.get(call.sub, ())
    for word in call.args:
        value = word.literal()
        if value is not None and (code := ext_command(value)) is not None:
            found.append(HiddenCode(code, f"the remote {value}", call.cwd))
        prefix = next((p for p in attached if value and value.startswith(p)), None)
        if value is not None and prefix is not None and len(value) > len(prefix):
            found.append(HiddenCode(value[len(prefix) :], f"git {call.sub} {prefix}", call.cwd))
    if call.sub not in GIT_COMMANDS:
        rest = parse_args(inv.argv[1:], GLOBAL_OPTS).rest
        globals_text = words_text(inv.argv[1 : len(inv.argv) - len(rest)])
        found += _alias_code(call, line, globals_text)
    return found
