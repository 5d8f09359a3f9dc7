"""git configuration whose code is only known at run time: the `git.config-code` findings.

An alias, a program key (`core.pager`, `credential.helper`, ...), a program variable
(`GIT_SSH_COMMAND`, `GIT_PAGER`, `EDITOR`, ...), an `--upload-pack`-style option or an `ext::`
remote whose value is built at run time, and configuration read from a file the line names
(`include.path`, `GIT_CONFIG_GLOBAL`). Literal values are judged as code by engine.hidden;
what this module reports is the code nobody can read before it runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.common import catalog, make_finding
from interlock.engine.rules.git.config import (
    PROGRAM_ENV,
    PROGRAM_OPTIONS,
    TEMPLATE_OPTIONS,
    Pair,
    clone_config,
    config_writes,
    elsewhere_env,
    is_include_key,
    is_program_key,
)
from interlock.engine.rules.git.invocation import GitCall
from interlock.shell.lex import is_assignment_text
from interlock.shell.model import Word

_SETTERS = frozenset(("export", "declare", "typeset", "readonly", "local", "env"))


def _finding(inv: Invocation, reason: str, cwd: str | None | bool) -> Finding:
    return make_finding(catalog()["git.config-code"], inv, reason=reason, cwd=cwd)


def _pair_problem(key: str, value: str | None, aliases: Iterable[str]) -> str | None:
    if is_include_key(key):
        return f"`{key}` loads more configuration (aliases, programs) from a file"
    if value is not None:
        return None
    if is_program_key(key):
        return f"git runs the value of `{key}`, which is only known at run time"
    if key.startswith("alias.") and key[len("alias.") :] in aliases:
        return f"the alias `{key[len('alias.') :]}` is only known at run time"
    return None


def _config_findings(inv: Invocation, call: GitCall) -> list[Finding]:
    found: list[Finding] = []
    names = {call.sub or ""} | {name for name, _ in call.aliases}
    pairs: list[Pair] = list(call.config)
    if call.sub == "clone":
        pairs += clone_config(call.args)
    if call.sub == "config" and not call.informational:
        written = config_writes(call.args)
        pairs += written
        if any(key == "" for key, _ in written):
            found.append(
                _finding(inv, "`git config` writes a key only known at run time", call.cwd)
            )
        names |= {key[len("alias.") :] for key, _ in written if key.startswith("alias.")}
    for key, value in pairs:
        problem = _pair_problem(key, value, names)
        if problem is not None:
            found.append(_finding(inv, problem, call.cwd))
    return found


def _option_findings(inv: Invocation, call: GitCall) -> list[Finding]:
    options = PROGRAM_OPTIONS.get(call.sub or "", ())
    templates = TEMPLATE_OPTIONS.get(call.sub or "", ())
    found: list[Finding] = []
    if options or templates:
        short = "".join(o[1] for o in options if len(o) == 2)
        longs = " ".join(o[2:] for o in options + templates if o.startswith("--"))
        args = parse_args(call.args, spec(short_value=short, long_value=longs))
        for opt in args.values(*options):
            if opt.value is None:
                found.append(_finding(inv, f"git runs `{opt.name}` {opt.text}", call.cwd))
        for opt in args.values(*templates):
            if opt.value is None:
                reason = f"git runs the hooks of the template directory {opt.text}"
                found.append(_finding(inv, reason, call.cwd))
    for word in call.args:
        if word.literal() is None and word.text.lstrip("'\"").lower().startswith("ext::"):
            found.append(_finding(inv, f"the `ext::` remote {word.text} runs a command", call.cwd))
    return found


def _assignments(inv: Invocation) -> list[Word]:
    words = list(inv.assignments)
    if inv.name in _SETTERS:
        words += [w for w in inv.argv[1:] if is_assignment_text(w.literal() or w.text)]
    return words


# Builtins that set variables to a value read at run time, with their options that take a
# value: `read -r GIT_PAGER`, `printf -v GIT_SSH_COMMAND ...`, `mapfile EDITOR`, `getopts`.
_READ = spec(short_value="adinNptu")
_MAPFILE = spec(short_value="dnOsuCc")


def _read_names(inv: Invocation) -> list[str]:
    """The variables a builtin sets to a value known only at run time. An inherited variable
    is already exported, so this reaches git as surely as `NAME=value` does; a value-less
    `export NAME` of an inherited one changes nothing and is no finding."""
    name = inv.name
    words = inv.argv[1:]
    if name == "read":
        operands = parse_args(words, _READ).operands()
        return [w.literal() or "" for w in operands] or ["REPLY"]
    if name in ("mapfile", "readarray"):
        return [w.literal() or "" for w in parse_args(words, _MAPFILE).operands()[:1]]
    if name == "getopts":
        return [w.literal() or "" for w in words[1:2]]
    if name == "printf":
        opt = parse_args(words, spec(short_value="v")).last("-v")
        return [opt.value or ""] if opt is not None else []
    return []


def _env_findings(inv: Invocation) -> list[Finding]:
    found: list[Finding] = []
    words = _assignments(inv) + [Word(f"{n}=$REPLY", None) for n in _read_names(inv)]
    for word in words:
        literal = word.literal()
        name, eq, rest = (literal or word.text).partition("=")
        if not eq:
            continue
        value = rest if literal is not None else None
        if name in PROGRAM_ENV and value is None:
            found.append(_finding(inv, f"`{name}` names a program only known at run time", True))
        elif elsewhere_env(name, value):
            reason = f"`{name}` makes git read configuration or programs from elsewhere"
            found.append(_finding(inv, reason, True))
    if inv.argv:
        return found
    shown = " ".join(w.text for w in inv.assignments)  # `F=x;`: a command of assignments only
    return [replace(f, text=shown) for f in found]


def check_config_code(inv: Invocation, call: GitCall | None) -> list[Finding]:
    """`git.config-code` findings of one invocation (at most one per reason)."""
    found = _env_findings(inv)
    if call is not None:
        found += _config_findings(inv, call) + _option_findings(inv, call)
        for path in call.exec_paths:
            if elsewhere_env("GIT_EXEC_PATH", path):
                reason = "`--exec-path` makes git run its programs from another directory"
                found.append(_finding(inv, reason, call.cwd))
    unique: dict[str, Finding] = {}
    for finding in found:
        unique.setdefault(finding.reason, finding)
    return list(unique.values())
