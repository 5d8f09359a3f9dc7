"""Commands that run other commands given as their arguments: xargs, find -exec, parallel,
and git's rebase -x, submodule foreach and bisect run. See wrappers.py for the Unwrap kinds.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from interlock.engine.findexpr import find_layout, find_search
from interlock.engine.searchers import fd_spawn
from interlock.engine.unwrap import (
    STDIN_SHELLS,
    OptSpec,
    Script,
    Unwrap,
    command_name,
    join_script,
    lit,
    parse_options,
    script_from,
    template,
)
from interlock.shell.model import Word

# -i, -e and -l take only an attached value (`-i{}`), so they are read as flags.
_XARGS = OptSpec(
    "InPdEsLa", {"max-args", "max-procs", "delimiter", "max-chars", "arg-file", "process-slot-var"}
)
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_PARALLEL = OptSpec(
    "jSNnIdaELlC",
    {
        "jobs",
        "sshlogin",
        "max-args",
        "colsep",
        "delimiter",
        "arg-file",
        "joblog",
        "results",
        "tmpdir",
        "timeout",
        "retries",
        "delay",
        "eof",
        "env",
        "halt",
        "memfree",
        "load",
        "workdir",
        "wd",
        "basefile",
        "return",
        "transfer-file",
        "tagstring",
        "sshloginfile",
        "profile",
        "max-replace-args",
        "max-lines",
        "max-chars",
        "shebang-wrap",
        "ssh",
        "termseq",
    },
)
_PARALLEL_SEPARATORS = (":::", "::::", ":::+", "::::+")
_PARALLEL_MARKS = ("{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}", "{1}", "{2}", "{3}")
_GIT_GLOBAL_WITH_VALUE = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env")
_FIND_MASKS = "find ignores the exit status of `{} ... ;`"


RUNTIME_ARG = "$RUNTIME_ARG"  # stands for an argument xargs, find or parallel fill in


def with_placeholders(words: tuple[Word, ...], marks: tuple[str, ...]) -> tuple[Word, ...]:
    """Words where xargs/find/parallel put their input (`{}`, `-I X`) are not literal: the
    input lands there, so `sh -c '{}'` runs input as code and `rm {}` removes unknown paths."""
    out: list[Word] = []
    for word in words:
        value = word.literal()
        if value is not None and any(mark in value for mark in marks):
            text = word.text
            for mark in marks:  # `xargs -I{}` inside the code keeps its own placeholder
                text = re.sub(r"(?<!-I)" + re.escape(mark), RUNTIME_ARG, text)
            out.append(Word(text, None, word.has_glob, word.substitutions))
        else:
            out.append(word)
    return tuple(out)


def _find_placeholders(command: list[Word]) -> list[Word]:
    """find's `{}` in a command that runs code (`sh -c {}`, `sh -c 'rm {}'`, `python -c`)
    splices a file name into that code; elsewhere it stays a run-time path operand, which the
    file rules read with find's start paths."""
    head = command_name(command[0]) or ""
    runs_code = (
        head in STDIN_SHELLS
        or head in ("eval", "perl", "ruby", "node", "php")
        or (head.startswith("python"))
    )
    return list(with_placeholders(tuple(command), ("{}",))) if runs_code else command


def _xargs(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _XARGS)
    if parsed is None or parsed[1] >= len(words):
        return None
    opts, i = parsed
    marks = [v for name, v in opts.items if name in ("-I", "--replace") and v]
    marks += ["{}" for name, v in opts.items if name in ("-i", "--replace") and not v]
    marks += [name[2:] for name, v in opts.items if name.startswith("-i") and len(name) > 2]
    rest = with_placeholders(words[i:], tuple(marks)) if marks else words[i:]
    return Unwrap("exec", "xargs", rest=rest, extra_args=True)


def _find_roots(words: tuple[Word, ...]) -> tuple[tuple[str, ...] | None, int]:
    first, end, _ = find_layout([lit(w) for w in words[1:]])
    starts = words[1 + first : 1 + end]
    if not starts:
        return (".",), 1 + end
    roots = [None if w.has_glob else lit(w) for w in starts]
    known = tuple(r for r in roots if r is not None)
    return (known if len(known) == len(roots) else None), 1 + end


def _find(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    arg_roots, i = _find_roots(words)
    children: list[Unwrap] = []
    while i < len(words):
        action = lit(words[i])
        i += 1
        if action not in _FIND_EXEC:
            continue
        command: list[Word] = []
        while i < len(words):
            v = lit(words[i])
            if v == ";" or (v == "+" and command and lit(command[-1]) == "{}"):
                break
            command.append(words[i])
            i += 1
        plus = i < len(words) and lit(words[i]) == "+"
        i += 1
        if command:
            command = _find_placeholders(command)
            masks = None if plus else _FIND_MASKS.format(action)
            search = find_search(words[1:], None, target=len(children))
            children.append(
                Unwrap(
                    "exec",
                    f"find {action}",
                    rest=tuple(command),
                    extra_args=True,
                    arg_roots=arg_roots,
                    arg_search=search,
                    masks=masks,
                )
            )
    return Unwrap("spawn", "find", children=tuple(children)) if children else None


def _parallel(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _PARALLEL)
    if parsed is None:
        return None
    i = parsed[1]
    end = next((k for k in range(i, len(words)) if lit(words[k]) in _PARALLEL_SEPARATORS), None)
    command = with_placeholders(words[i : len(words) if end is None else end], _PARALLEL_MARKS)
    if command:
        found = join_script(command, "parallel")
        return Unwrap("script", "parallel", scripts=found.scripts, extra_args=True)
    if end is None:  # commands come from stdin
        unknown = Script("$STDIN_COMMANDS", "parallel", degraded=True)
        return Unwrap("script", "parallel", scripts=(unknown,))
    args = [w for w in words[end:] if lit(w) not in _PARALLEL_SEPARATORS]
    scripts = tuple(script_from(w, "parallel").scripts[0] for w in args)
    return Unwrap("script", "parallel", scripts=scripts) if scripts else None


def _git(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    i = 1
    while i < len(words) and (v := lit(words[i])) is not None and v.startswith("-"):
        i += 2 if v in _GIT_GLOBAL_WITH_VALUE else 1
    sub = lit(words[i]) if i < len(words) else None
    child: Unwrap | None = None
    if sub == "rebase":
        child = _rebase_exec(words[i + 1 :])
    elif sub == "submodule":
        k = i + 1
        while k < len(words) and lit(words[k]) in ("-q", "--quiet"):
            k += 1
        if k < len(words) and lit(words[k]) == "foreach":
            k += 1
            while k < len(words) and lit(words[k]) in ("--recursive", "-q", "--quiet"):
                k += 1
            if k < len(words):
                child = join_script(words[k:], "git submodule foreach")
    elif sub == "bisect" and i + 2 < len(words) and lit(words[i + 1]) == "run":
        masks = "`git bisect run` reads its exit status as good or bad"
        child = Unwrap("exec", "git bisect run", rest=words[i + 2 :], masks=masks)
    return Unwrap("spawn", "git", children=(child,)) if child is not None else None


def _rebase_exec(words: tuple[Word, ...]) -> Unwrap | None:
    scripts: list[Script] = []
    for k, word in enumerate(words):
        v = lit(word) or ""
        if v in ("-x", "--exec") and k + 1 < len(words):
            scripts.extend(script_from(words[k + 1], "git rebase -x").scripts)
        elif v.startswith("--exec="):
            text = v.split("=", 1)[1]
            scripts.append(Script(text, "git rebase -x"))
        elif v.startswith("-x") and len(v) > 2 and not v.startswith("--"):
            scripts.append(Script(v[2:], "git rebase -x"))
        elif lit(word) is None and template(word).startswith("--exec="):
            text = template(word).split("=", 1)[1]
            scripts.append(Script(text, "git rebase -x", degraded=True))
    return Unwrap("script", "git rebase -x", scripts=tuple(scripts)) if scripts else None


SPAWNERS: dict[str, Callable[[tuple[Word, ...], str | None], Unwrap | None]] = {
    "xargs": _xargs,
    "find": _find,
    "fd": fd_spawn,
    "fdfind": fd_spawn,
    "parallel": _parallel,
    "git": _git,
}
