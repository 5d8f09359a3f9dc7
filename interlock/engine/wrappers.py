"""Prefix wrappers and trampolines: what a command line really runs behind `sudo`, `env`, ...

`unwrap(words, stdin)` looks at one command's words and says what it hands control to:
- kind `exec`: a prefix wrapper (`sudo -E`, `timeout 5`, `nice -n 5`, `xargs -0`, `uv run`,
  `npx`...): `rest` is the inner command's words, with the cwd, assignments and run-time
  arguments the wrapper adds;
- kind `script`: a trampoline (`bash -c STRING`, `eval`, `sh <<EOF`, `env -S`, `watch`,
  `flock -c`, `su -c`...): `scripts` are command lines to parse and walk;
- kind `spawn`: the command runs itself and also runs others (`find -exec`, `git rebase -x`,
  `git submodule foreach`, `git bisect run`): `children` are exec/script unwraps.
None means the words are a plain command. The walker (walk.py) loops until that.
"""

from __future__ import annotations

import re
from dataclasses import replace

from interlock.engine.carriers import CARRIERS
from interlock.engine.containers import CONTAINERS
from interlock.engine.datacode import DATACODE
from interlock.engine.launchers import LAUNCHERS
from interlock.engine.pkgrunners import PKG_RUNNERS
from interlock.engine.runners import RUNNERS
from interlock.engine.spawners import SPAWNERS
from interlock.engine.unwrap import (
    KEEP,
    RUNTIME_CODE,
    SHELLS,
    Options,
    OptSpec,
    Script,
    ScriptFlags,
    Unwrap,
    assignments_at,
    command_name,
    could_be_option,
    exec_after,
    exec_at,
    is_one_word,
    join_script,
    lit,
    parse_options,
    script_from,
    shell_script,
)
from interlock.shell.model import Word

_NO_OPTIONS = Options(())
_NO_VALUES = OptSpec("")

# -- privilege and environment ---------------------------------------------------------------

# sudo's getopt: `-h` alone is --help, its host value only attached (`h::`); `-a TYPE` (BSD
# auth) and `-c CLASS` (login class) take a value.
_SUDO = OptSpec(
    "ugpCDrtTURac",
    {
        "user",
        "group",
        "host",
        "prompt",
        "close-from",
        "chdir",
        "role",
        "type",
        "command-timeout",
        "other-user",
        "chroot",
    },
    attached="h",
    flags=(
        "askpass",
        "background",
        "bell",
        "edit",
        "preserve-env",
        "set-home",
        "help",
        "login",
        "remove-timestamp",
        "reset-timestamp",
        "list",
        "non-interactive",
        "preserve-groups",
        "stdin",
        "shell",
        "version",
        "validate",
    ),
)


def _sudo(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _SUDO)
    if parsed is None:
        return None
    opts, i = parsed
    if opts.has("-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"):
        return None
    assignments, i = assignments_at(words, i)
    masks = "runs in the background (`sudo -b`)" if opts.has("-b", "--background") else None
    cwd = opts.directory("-D", "--chdir")
    login = opts.has("-i", "--login")
    if not login and not opts.has("-s", "--shell"):
        return exec_at("sudo", words, i, assignments=assignments, masks=masks, cwd=cwd)
    # -s: a shell runs the command (`$SHELL -c`); -i: the target user's login shell, in that
    # user's home directory (unknown here: its relative paths are not this tree's)
    via = "sudo -i" if login else "sudo -s"
    where = None if login else cwd
    if i < len(words):
        found = _sudo_shell_code(words[i:], via)
    elif stdin is not None:  # no command: the shell reads its commands from stdin
        found = Unwrap("script", via, scripts=(Script(stdin, via),))
    else:
        return None
    # -i: a login shell starts from a fresh environment (sudo's own env_reset otherwise keeps
    # what sudoers says, a person's choice)
    return replace(found, assignments=assignments, masks=masks, cwd=where, clears_env=login)


_SUDO_PLAIN = frozenset("_-$/.,:@+%^")


def _sudo_shell_code(words: tuple[Word, ...], via: str) -> Unwrap:
    """The command line `sudo -s`/`-i` hands the shell: each word with every character but
    letters, digits, `_`, `-` and `$` escaped by a backslash, so a `$` in a word expands in
    that shell (`sudo -s rm '$D'` removes what $D names there). (Characters no shell reads
    specially are left unescaped here, so messages quote the command as it was written.)"""
    values = [w.literal() for w in words]
    if any(v is None for v in values):  # expanded here, then its `$`s expand again there
        return join_script(words, via)
    text = " ".join(
        "".join(c if c.isalnum() or c in _SUDO_PLAIN else "\\" + c for c in v or "") for v in values
    )
    return Unwrap("script", via, scripts=(Script(text, via),))


def _doas(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, OptSpec("uC"))
    if parsed is None or parsed[0].has("-C"):
        return None
    opts, i = parsed
    if opts.has("-s") and i >= len(words) and stdin is not None:  # the shell reads stdin
        return Unwrap("script", "doas -s", scripts=(Script(stdin, "doas -s"),))
    return exec_at("doas", words, i)


_ENV = OptSpec(
    "uCSPa",
    {"unset", "chdir", "split-string", "argv0"},
    flags=(
        "ignore-environment",
        "null",
        "debug",
        "block-signal",
        "default-signal",
        "ignore-signal",
        "list-signal-handling",
        "help",
        "version",
    ),
)


def _env(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _ENV)
    if parsed is None:
        return None
    opts, i = parsed
    clears = opts.has("-i", "--ignore-environment")
    if i < len(words) and lit(words[i]) == "-":  # `env -`: `env -i`
        clears, i = True, i + 1
    cwd = opts.directory("-C", "--chdir")
    assignments, i = assignments_at(words, i)
    # `-u NAME` empties NAME for the command as `NAME=` does (expansions and the rules that
    # read the command's environment, e.g. INTERLOCK_* overrides, see it that way)
    unset = tuple(
        Word(f"{value}=", f"{value}=")
        for name, value in opts.items
        if name in ("-u", "--unset") and value
    )
    assignments = unset + assignments
    split = opts.word("-S", "--split-string")
    if split is not None:
        found = join_script((split,) + words[i:], "env -S")
        return replace(found, assignments=assignments, cwd=cwd, clears_env=clears)
    return exec_at("env", words, i, assignments=assignments, cwd=cwd, clears_env=clears)


def _command(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    i = 1
    while i < len(words) and lit(words[i]) in ("-p", "--"):
        i += 1
    if i < len(words) and (lit(words[i]) or "").startswith("-"):
        return None  # `command -v git`: a lookup, nothing runs
    return exec_at("command", words, i)


def _builtin(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    return exec_at("builtin", words, 1)


def _exec_builtin(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, OptSpec("a"))
    if parsed is None:
        return None
    opts, i = parsed
    return exec_at("exec", words, i, clears_env=opts.has("-c"))  # `exec -c`: an empty env


# -- process control -----------------------------------------------------------------------

_SIMPLE_OPTS: dict[str, OptSpec] = {
    "nohup": OptSpec(""),
    "setsid": OptSpec(""),
    "stdbuf": OptSpec("ioe", {"input", "output", "error"}),
    "caffeinate": OptSpec("tw"),
    "unbuffer": OptSpec(""),
    "time": OptSpec("fo", {"format", "output"}),
    "ionice": OptSpec("cnpPu", {"class", "classdata", "pid", "pgid", "uid"}),
    "chronic": OptSpec(""),
    "strace": OptSpec("eopsuEabIOPSX"),
    "ltrace": OptSpec("eopsuEabIOPSXnlLAD"),
    "valgrind": OptSpec(""),
}


def _simple(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or ""
    parsed = parse_options(words, 1, _SIMPLE_OPTS[name])
    if parsed is None or (name == "ionice" and parsed[0].has("-p", "-P", "-u", "--pid")):
        return None
    return exec_at(name, words, parsed[1])


def _nice(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    i = 1
    if i < len(words) and (v := lit(words[i])) is not None and v.lstrip("-+").isdigit():
        i += 1  # `nice -10 cmd`
    parsed = parse_options(words, i, OptSpec("n", {"adjustment"}, flags=("help", "version")))
    return None if parsed is None else exec_at("nice", words, parsed[1])


_TIMEOUT = OptSpec(
    "sk", {"signal", "kill-after"}, flags=("foreground", "preserve-status", "verbose", "help")
)


# What can be the operand: a duration (`5`, `2.5m`, `.5`, `1e3`, `0x10`, `inf`), a
# priority, a CPU mask or list (`0x3`, `0-3,5`).
_DURATION = re.compile(r"^\+?(\d|\.\d|inf|nan|0x)", re.IGNORECASE)
_PRIORITY = re.compile(r"^[+-]?\d+$")
_CPUS = re.compile(r"^[0-9a-fA-FxX,:-]+$")


def _timeout(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _TIMEOUT)
    if parsed is None:
        return None
    return exec_after("timeout", words, parsed[1], _TIMEOUT, _DURATION.match)


_CHRT = OptSpec("TPD", {"sched-runtime", "sched-period", "sched-deadline"})


def _chrt(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _CHRT)
    if parsed is None or parsed[0].has("-p", "--pid", "-m", "--max"):
        return None
    return exec_after("chrt", words, parsed[1], _CHRT, _PRIORITY.match)


def _taskset(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _NO_VALUES)
    if parsed is None or parsed[0].has("-p", "--pid"):
        return None
    return exec_after("taskset", words, parsed[1], _NO_VALUES, _CPUS.match)


# util-linux: `flock [opts] FILE CMD...`, `flock [opts] FILE -c STRING`, `flock [opts] FD`;
# options end at FILE (getopt `+`), and after it only `-c`/`--command` is read.
_FLOCK = OptSpec(
    "wE",
    {"timeout", "wait", "conflict-exit-code", "start", "length"},
    flags=(
        "shared",
        "exclusive",
        "unlock",
        "nonblocking",
        "nb",
        "close",
        "no-fork",
        "verbose",
        "fcntl",
        "help",
        "version",
    ),
)


def _flock(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _FLOCK)
    if parsed is None:
        return None
    i = parsed[1]  # the lock file (a descriptor when nothing follows)
    if (
        i + 2 < len(words)
        and (not could_be_option(words[i]) or is_one_word(words[i]))
        and lit(words[i + 1]) in ("-c", "--command")
    ):
        return script_from(words[i + 2], "flock -c")
    return exec_after("flock", words, i, _FLOCK)


# procps-ng watch: `-d[permanent]` takes only an attached value; options end at the command.
_WATCH = OptSpec(
    "nqs",
    {"interval", "equexit", "shotsdir"},
    attached="d",
    flags=(
        "beep",
        "color",
        "no-color",
        "differences",
        "errexit",
        "follow",
        "chgexit",
        "precise",
        "no-rerun",
        "no-title",
        "no-wrap",
        "exec",
        "help",
        "version",
    ),
)


def _watch(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _WATCH)
    if parsed is None or parsed[1] >= len(words):
        return None
    opts, i = parsed
    masks = None
    if not opts.has("-e", "--errexit", "-g", "--chgexit"):
        masks = "runs under `watch`, which repeats it whatever it returns"
    if opts.has("-x", "--exec"):
        return exec_at("watch", words, i, masks=masks)
    unwrap = join_script(words[i:], "watch")
    return Unwrap("script", "watch", scripts=unwrap.scripts, masks=masks)


# -- shells and eval -----------------------------------------------------------------------


def _shell(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or "sh"
    found = shell_script(words)
    if found is None:
        return None
    index, errexit, pipefail, mode = found
    flags = ScriptFlags(errexit=errexit, pipefail=pipefail)
    if mode == "c":
        if index >= len(words):
            # `xargs sh -c`, `parallel bash -c`: the code is the input they hand over (alone,
            # bash refuses `-c` without an operand)
            unknown = Script(RUNTIME_CODE, f"{name} -c", degraded=True, **flags)
            return Unwrap("script", f"{name} -c", scripts=(unknown,))
        code = script_from(words[index], f"{name} -c", **flags)
        args = words[index + 1 :]  # `$0`, then the positional parameters
        return replace(code, scripts=tuple(replace(s, args=args) for s in code.scripts))
    if mode == "stdin" and stdin is not None:
        return Unwrap("script", f"{name} <<", scripts=(Script(stdin, f"{name} <<", **flags),))
    return None


def _eval(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    if len(words) < 2:
        return None
    return join_script(words[1:], "eval", same_shell=True)


# util-linux su and runuser; getopt permutes, so options may follow the user.
_SU = OptSpec(
    "cgGswu",
    {
        "command",
        "session-command",
        "group",
        "supp-group",
        "shell",
        "whitelist-environment",
        "user",
    },
    flags=("fast", "login", "preserve-environment", "pty", "no-pty", "help", "version"),
)
_SU_CODE = ("-c", "--command", "--session-command")


def _su(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """su/runuser [options] [-] [USER [ARGS]]: the code of `-c` (the last one), else the
    commands the shell reads from stdin; `runuser -u USER [--] CMD ARGS` runs CMD directly.
    A login shell (`-`, `-l`) runs in the user's home directory, unknown here."""
    name = command_name(words[0]) or "su"
    found = _su_operands(words)
    if found is None:
        return None
    opts, operands, hidden = found
    login = opts.has("-l", "--login") or any(lit(w) == "-" for w in operands)
    cwd = None if login else KEEP  # a login shell also starts from a fresh environment
    via = f"{name} -c"
    if hidden:
        unknown = Script(RUNTIME_CODE, via, degraded=True)
        return Unwrap("script", via, scripts=(unknown,), cwd=cwd, clears_env=login)
    code = opts.word(*_SU_CODE)
    if code is not None:
        return replace(script_from(code, via), cwd=cwd, clears_env=login)
    if name == "runuser" and opts.has("-u", "--user"):
        return exec_at(name, tuple(operands), 0, cwd=cwd, clears_env=login)
    # the words after the user are the shell's (`su -- root -c CODE`, `su root x.sh`)
    args = tuple(w for w in operands if lit(w) != "-")[1:]
    shell = _shell((Word("sh", "sh"),) + args, stdin)
    return None if shell is None else replace(shell, cwd=cwd, clears_env=login)


def _su_operands(words: tuple[Word, ...]) -> tuple[Options, list[Word], bool] | None:
    """su's options (getopt permutes them: they may follow the user), its operands in order
    (everything after `--`), and whether an operand known only at run time may be an option
    after the last `-c` (`su -c X "$U"`: "$U" may be `-cCODE`)."""
    operands: list[Word] = []
    opts, hidden, i = _NO_OPTIONS, False, 1
    while i < len(words):
        parsed = parse_options(words, i, _SU)
        if parsed is None:
            return None
        got, j = parsed
        opts = opts.merged(got)
        hidden = hidden and not got.has(*_SU_CODE)  # the last `-c` wins
        ended = (
            j > i and lit(words[j - 1]) == "--" and not any(w is words[j - 1] for _, w in got.words)
        )
        if ended:
            operands += words[j:]
            break
        if j < len(words):
            operands.append(words[j])
            hidden = hidden or could_be_option(words[j])
        i = j + 1
    return opts, operands, hidden


WRAPPERS = {
    "sudo": _sudo,
    "doas": _doas,
    "env": _env,
    "command": _command,
    "builtin": _builtin,
    "exec": _exec_builtin,
    "nice": _nice,
    "timeout": _timeout,
    "gtimeout": _timeout,
    "chrt": _chrt,
    "taskset": _taskset,
    "flock": _flock,
    "watch": _watch,
    "eval": _eval,
    "su": _su,
    "runuser": _su,
    **{name: _simple for name in _SIMPLE_OPTS},
    **PKG_RUNNERS,
    **{name: _shell for name in SHELLS},
    **SPAWNERS,
    **CONTAINERS,
    **LAUNCHERS,
    **RUNNERS,
    **DATACODE,
    **CARRIERS,
}


def unwrap(words: tuple[Word, ...], stdin: str | None = None) -> Unwrap | None:
    """What the command in words hands control to, or None for a plain command.

    stdin is the text a heredoc or literal here-string feeds it (for `bash <<EOF`).
    """
    name = command_name(words[0]) if words else None
    handler = WRAPPERS.get(name) if name is not None else None
    return handler(words, stdin) if handler is not None else None
