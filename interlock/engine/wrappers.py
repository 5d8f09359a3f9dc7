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

from dataclasses import replace

from interlock.engine.carriers import CARRIERS
from interlock.engine.containers import CONTAINERS
from interlock.engine.datacode import DATACODE
from interlock.engine.launchers import LAUNCHERS
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
    exec_at,
    join_script,
    lit,
    parse_options,
    script_from,
    shell_script,
    strip_version,
)
from interlock.shell.lex import scan_word
from interlock.shell.model import Word

# -- privilege and environment ---------------------------------------------------------------

_SUDO = OptSpec(
    "ughpCDrtTUR",
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
)


def _sudo(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _SUDO)
    if parsed is None:
        return None
    opts, i = parsed
    if opts.has("-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"):
        return None
    cwd = opts.value("-D", "--chdir")
    assignments, i = assignments_at(words, i)
    masks = "runs in the background (`sudo -b`)" if opts.has("-b", "--background") else None
    return exec_at(
        "sudo", words, i, assignments=assignments, masks=masks, cwd=KEEP if cwd is None else cwd
    )


def _doas(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, OptSpec("uC"))
    if parsed is None or parsed[0].has("-C"):
        return None
    return exec_at("doas", words, parsed[1])


_ENV = OptSpec("uCSPa", {"unset", "chdir", "split-string", "argv0"})


def _env(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    i = 1
    if i < len(words) and lit(words[i]) == "-":
        i += 1
    parsed = parse_options(words, i, _ENV)
    if parsed is None:
        return None
    opts, i = parsed
    cwd = opts.value("-C", "--chdir")
    assignments, i = assignments_at(words, i)
    # `-u NAME` empties NAME for the command as `NAME=` does (expansions and the rules that
    # read the command's environment, e.g. INTERLOCK_* overrides, see it that way)
    unset = tuple(
        Word(f"{value}=", f"{value}=")
        for name, value in opts.items
        if name in ("-u", "--unset") and value
    )
    assignments = unset + assignments
    split = opts.value("-S", "--split-string")
    if split is not None:
        rest = " ".join(w.literal() or scan_word(w.text, 0).template_text for w in words[i:])
        script = Script(f"{split} {rest}".strip(), "env -S")
        return Unwrap(
            "script",
            "env -S",
            scripts=(script,),
            assignments=assignments,
            cwd=KEEP if cwd is None else cwd,
        )
    return exec_at("env", words, i, assignments=assignments, cwd=KEEP if cwd is None else cwd)


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
    return None if parsed is None else exec_at("exec", words, parsed[1])


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
    parsed = parse_options(words, i, OptSpec("n", {"adjustment"}))
    return None if parsed is None else exec_at("nice", words, parsed[1])


def _timeout(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, OptSpec("sk", {"signal", "kill-after"}))
    return None if parsed is None else exec_at("timeout", words, parsed[1] + 1)


def _chrt(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(
        words, 1, OptSpec("TPD", {"sched-runtime", "sched-period", "sched-deadline"})
    )
    if parsed is None or parsed[0].has("-p", "--pid", "-m", "--max"):
        return None
    return exec_at("chrt", words, parsed[1] + 1)


def _taskset(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, OptSpec(""))
    if parsed is None or parsed[0].has("-p", "--pid"):
        return None
    return exec_at("taskset", words, parsed[1] + 1)


def _flock(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    spec = OptSpec("Ewc", {"conflict-exit-code", "timeout", "wait", "command"})
    parsed = parse_options(words, 1, spec)
    if parsed is None:
        return None
    opts, i = parsed
    i += 1  # the lock file
    more = parse_options(words, i, spec)
    if more is not None:
        opts, i = Options(opts.items + more[0].items), more[1]
    command = opts.value("-c", "--command")
    if command is not None:
        return script_from(Word(command, command), "flock -c")
    if i < len(words) and lit(words[i]) in ("-c", "--command") and i + 1 < len(words):
        return script_from(words[i + 1], "flock -c")
    return exec_at("flock", words, i)


def _watch(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    spec = OptSpec("nq", {"interval", "differences", "equexit"})
    parsed = parse_options(words, 1, spec)
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


def _su(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or "su"
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        if value in ("-c", "--command") and k + 1 < len(words):
            return script_from(words[k + 1], f"{name} -c")
        if value.startswith("--command="):
            text = value.split("=", 1)[1]
            return script_from(Word(text, text), f"{name} -c")
    return None


# -- runners of project tools --------------------------------------------------------------

_UV_RUN = OptSpec(
    "pfPC",
    {
        "with",
        "with-editable",
        "with-requirements",
        "python",
        "project",
        "directory",
        "package",
        "extra",
        "group",
        "only-group",
        "no-group",
        "env-file",
        "index",
        "default-index",
        "index-url",
        "extra-index-url",
        "find-links",
        "cache-dir",
        "config-file",
        "exclude-newer",
        "prerelease",
        "resolution",
        "index-strategy",
        "keyring-provider",
        "link-mode",
        "refresh-package",
        "reinstall-package",
        "upgrade-package",
        "no-binary-package",
        "no-build-package",
        "python-platform",
        "color",
        "allow-insecure-host",
        "config-setting",
        "from",
    },
)


def _uv(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    sub = lit(words[1]) if len(words) > 1 else None
    if sub == "run":
        parsed = parse_options(words, 2, _UV_RUN)
        if parsed is None:
            return None
        opts, i = parsed
        cwd = opts.value("--directory")
        if opts.has("-m", "--module") and i < len(words):
            python = (Word("python", "python"), Word("-m", "-m"))
            return Unwrap(
                "exec", "uv run", rest=python + words[i:], cwd=KEEP if cwd is None else cwd
            )
        return exec_at("uv run", words, i, cwd=KEEP if cwd is None else cwd)
    if sub == "tool" and len(words) > 2 and lit(words[2]) == "run":
        return _package_runner(words, 3, "uv tool run", _UV_RUN)
    return None


def _uvx(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    return _package_runner(words, 1, "uvx", _UV_RUN)


def _env_runner(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """poetry/pipenv/pdm/hatch/conda/mamba run."""
    name = command_name(words[0]) or ""
    spec = OptSpec("CPnp", {"directory", "project", "name", "prefix", "cwd", "env"})
    parsed = parse_options(words, 1, spec)
    if parsed is None:
        return None
    opts, i = parsed
    if i >= len(words) or lit(words[i]) != "run":
        return None
    more = parse_options(words, i + 1, spec)
    if more is None:
        return None
    cwd = opts.value("-C", "--directory") or more[0].value("--cwd")
    return exec_at(f"{name} run", words, more[1], cwd=KEEP if cwd is None else cwd)


_NPX = OptSpec("pc", {"package", "call", "cache", "userconfig", "registry"})


def _package_runner(
    words: tuple[Word, ...], i: int, via: str, spec: OptSpec = _NPX
) -> Unwrap | None:
    parsed = parse_options(words, i, spec)
    if parsed is None:
        return None
    opts, i = parsed
    call = opts.value("-c", "--call")
    if call is not None and via in ("npx", "npm exec"):
        return script_from(Word(call, call), f"{via} -c")
    if i >= len(words):
        return None
    head = words[i]
    if not opts.has("-p", "--package", "--from") and (value := head.literal()) is not None:
        head = Word(head.text, strip_version(value), head.has_glob, head.substitutions)
    return Unwrap("exec", via, rest=(head,) + words[i + 1 :])


def _npx(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or "npx"
    return _package_runner(words, 1, "npx" if name in ("npx", "pnpx") else name)


def _js_pm(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """pnpm exec/dlx, yarn dlx/exec, bun x, npm exec/x."""
    name = command_name(words[0]) or ""
    sub = lit(words[1]) if len(words) > 1 else None
    if sub not in ("exec", "dlx", "x"):
        return None
    return _package_runner(words, 2, "npm exec" if name == "npm" else f"{name} {sub}")


def _dotenv(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    i = 1
    if i < len(words) and lit(words[i]) == "run":
        i += 1
    for k in range(i, len(words)):
        if lit(words[k]) == "--":
            return exec_at("dotenv", words, k + 1)
    parsed = parse_options(words, i, OptSpec("evpf", {"file"}))
    return None if parsed is None else exec_at("dotenv", words, parsed[1])


def _direnv(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    if len(words) > 2 and lit(words[1]) == "exec":
        cwd = lit(words[2])
        return exec_at("direnv exec", words, 3, cwd=cwd)
    return None


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
    "uv": _uv,
    "uvx": _uvx,
    "npx": _npx,
    "pnpx": _npx,
    "bunx": _npx,
    "pnpm": _js_pm,
    "yarn": _js_pm,
    "bun": _js_pm,
    "npm": _js_pm,
    "dotenv": _dotenv,
    "direnv": _direnv,
    **{name: _simple for name in _SIMPLE_OPTS},
    **{
        name: _env_runner
        for name in ("poetry", "pipenv", "pdm", "hatch", "conda", "mamba", "micromamba", "rye")
    },
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
