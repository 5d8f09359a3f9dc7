"""Programs that launch a command somewhere else: other shells, terminal multiplexers, remote
and sandboxed shells, schedulers, and the many `PROGRAM [options] COMMAND...` runners.

Each handler reads one command's words (see wrappers.py for the Unwrap kinds):
- shells that are not sh-like: `fish -c`, `tcsh -c`, `pwsh -Command` (and `-EncodedCommand`),
  `cmd /c`, `xonsh -c`, `nu -c`, `elvish -c`; `busybox APPLET ...`, `wsl CMD`;
- `script -qc CMD`, `script -q /dev/null CMD` (BSD), `expect -c 'spawn ...; send ...'`;
- `tmux new/neww/splitw/respawnp/run-shell/if-shell/pipe-pane/popup CMD`, `tmux send-keys`
  (the keys typed into a shell are a command line), `tmux -c CMD`; `screen -dm CMD`,
  `screen -X stuff KEYS` / `-X exec CMD`;
- `ssh HOST CMD` (and `-o ProxyCommand=CMD`, which runs here), `nix-shell --run CMD`,
  `nix develop -c CMD`, `nix shell ... -c CMD`, `guix shell -- CMD`, `at`/`batch` fed a script;
(prefix runners such as chroot, firejail and `op run --` are in runners.py).
The launched command's exit status rarely comes back, so most mark it as masking.
"""

from __future__ import annotations

import base64
import binascii
import re
import shlex
from collections.abc import Callable
from dataclasses import replace

from interlock.engine.unwrap import (
    RUNTIME_CODE,
    STDIN_SHELLS,
    OptSpec,
    Script,
    Unwrap,
    command_name,
    exec_at,
    join_script,
    lit,
    parse_options,
    program_name,
    script_from,
    template,
)
from interlock.shell.model import Word

Handler = Callable[[tuple[Word, ...], str | None], Unwrap | None]
DETACHED = "runs detached (tmux, screen, at): its exit status never comes back"
TYPED = "$TYPED_KEYS"  # stands for keys typed into a shell that are not literal
CODE_VIAS = frozenset(
    (
        "tmux",
        "tmux send-keys",
        "screen",
        "screen stuff",
        "ssh",
        "nix-shell --run",
        "expect",
        "at",
        "pwsh -Command",
        "cmd /c",
    )
)


# -- other shells --------------------------------------------------------------------------

_C_FLAGS = {
    "fish": ("-c", "--command", "-C", "--init-command"),
    "tcsh": ("-c",),
    "csh": ("-c",),
    "xonsh": ("-c",),
    "nu": ("-c", "--commands"),
    "elvish": ("-c",),
    "rc": ("-c",),
    "es": ("-c",),
}


def _other_shell(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or ""
    flags = _C_FLAGS[name]
    scripts: list[Script] = []
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        key, eq, attached = value.partition("=")
        if eq and key in flags:
            scripts.append(Script(attached, f"{name} -c"))
        elif value in flags and k + 1 < len(words):
            scripts += script_from(words[k + 1], f"{name} -c").scripts
        elif value.startswith("-") and not value.startswith("--") and value[-1:] == "c":
            if k + 1 < len(words):  # `-fc CODE`: each of these shells takes `-c`
                scripts += script_from(words[k + 1], f"{name} -c").scripts
    if scripts:
        return Unwrap("script", f"{name} -c", scripts=tuple(scripts))
    if stdin is not None and all((lit(w) or "x").startswith("-") for w in words[1:]):
        return Unwrap("script", f"{name} <<", scripts=(Script(stdin, f"{name} <<"),))
    return None


def _pwsh(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    via = "pwsh -Command"
    for k, word in enumerate(words[1:], start=1):
        value = (lit(word) or "").lower()
        if value in ("-command", "-c", "/command", "/c", "-com", "-comm"):
            rest = words[k + 1 :]
            if rest and lit(rest[0]) == "-":
                return None  # the script comes from stdin
            return join_script(rest, via) if rest else None
        if value in ("-encodedcommand", "-ec", "-e", "-enc") and k + 1 < len(words):
            decoded = _decode_utf16(lit(words[k + 1]))
            if decoded is None:
                return Unwrap("script", via, scripts=(Script(TYPED, via, degraded=True),))
            return Unwrap("script", via, scripts=(Script(decoded, via),))
        if value in ("-file", "-f"):
            return None
    return None


def _decode_utf16(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return base64.b64decode(text, validate=True).decode("utf-16-le")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _cmd(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    for k, word in enumerate(words[1:], start=1):
        if (lit(word) or "").lower() in ("/c", "/k", "/r") and k + 1 < len(words):
            # the runtime that starts cmd quotes each argument, so the words keep their quoting
            rest = words[k + 1 :]
            text = " ".join(
                shlex.quote(v) if (v := lit(w)) is not None else template(w) for w in rest
            )
            return Unwrap("script", "cmd /c", scripts=(Script(text, "cmd /c"),))
    return None


def _busybox(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    if len(words) < 2 or (lit(words[1]) or "").startswith("-"):
        return None  # `busybox --list`; an applet named at run time is an unknown command
    return exec_at(command_name(words[0]) or "busybox", words, 1)


def _wsl(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    spec = OptSpec("dud", {"distribution", "user", "cd", "shell-type"})
    parsed = parse_options(words, 1, spec)
    if parsed is None:
        return None
    opts, i = parsed
    if opts.has("-e", "--exec"):
        return exec_at("wsl", words, i)
    if opts.has("-l", "--list", "--shutdown", "--status", "--install", "--update", "-s"):
        return None
    return exec_at("wsl", words, i)


# -- terminals and scripts -------------------------------------------------------------------


_SCRIPT_HIDES = "runs under `script` without -e, which exits 0 whatever the command returns"
# util-linux and BSD script's options that take a value; `-t` takes one only attached
# (util-linux `-t[FILE]`) or, on BSD, the next word unless it is an option (`-t TIME`)
_SCRIPT = OptSpec(
    "BcEFIOTmot",
    (
        "command",
        "echo",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
        "logging-format",
        "output-limit",
    ),
    flags=("append", "return", "flush", "force", "quiet", "timing", "version", "help"),
)


def _script_options(words: tuple[Word, ...], k: int) -> tuple[list[tuple[str, Word | None]], int]:
    """The options of the literal words[k] as getopt reads them (`-qec CMD`, `-cCMD`,
    `--comm CMD`, `--command=CMD`), each with its value word, and the index after them."""
    value = lit(words[k]) or ""
    following = words[k + 1] if k + 1 < len(words) else None
    if value.startswith("--"):
        name, eq, attached = value[2:].partition("=")
        name = "--" + _SCRIPT.resolve(name)
        if eq:
            return [(name, Word(attached, attached))], k + 1
        if name[2:] in _SCRIPT.long and following is not None:
            return [(name, following)], k + 2
        return [(name, None)], k + 1
    found: list[tuple[str, Word | None]] = []
    for j, letter in enumerate(value[1:], start=1):
        name, attached = "-" + letter, value[j + 1 :]
        if letter not in _SCRIPT.short:
            found.append((name, None))
        elif attached:
            return [*found, (name, Word(attached, attached))], k + 1
        elif following is None or (name == "-t" and (lit(following) or "").startswith("-")):
            return [*found, (name, None)], k + 1
        else:
            return [*found, (name, following)], k + 2
    return found, k + 1


def _script_util(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """util-linux `script [-q] [-e] -c CMD [file]` (also `-qc`, `-qec`, `-cCMD`,
    `--command=CMD`), BSD/macOS `script [-q] FILE CMD ARGS`. util-linux's script exits 0
    whatever the command returns unless `-e`/`--return` is given: then the status is hidden
    (BSD's passes it)."""
    positionals: list[int] = []
    returns = False
    found: Unwrap | None = None
    k = 1
    while k < len(words) and len(positionals) < 2:  # BSD: FILE then the command's own words
        value = lit(words[k])
        if value is None or value == "-" or not value.startswith("-"):
            positionals.append(k)
            k += 1
            continue
        options, k = _script_options(words, k)
        for name, word in options:
            if name in ("-e", "--return"):
                returns = True
            elif name in ("-c", "--command"):
                found = None if word is None else script_from(word, "script -c")
    if found is not None:
        return found if returns else replace(found, masks=_SCRIPT_HIDES)
    if len(positionals) >= 2:
        return exec_at("script", words, positionals[1])
    return None


_SEPARATORS = frozenset((";", "\\;"))


def _tcl_commands(code: str) -> list[list[str]]:
    """Tcl commands (newline or `;` separated) split into words; braces group like quotes."""
    commands: list[list[str]] = []
    for raw in re.split(r"[;\n]", code):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        text = text.replace("{", '"').replace("}", '"').replace("[", " ").replace("]", " ")
        try:
            commands.append(shlex.split(text, posix=True))
        except ValueError:
            commands.append(text.split())
    return commands


def _expect_scripts(code: str) -> list[Script]:
    """`spawn PROG ARGS`, `exec PROG ARGS`, `system CMD`, and what `send` types into a
    spawned shell (`spawn bash; send "git reset --hard\\r"`)."""
    scripts: list[Script] = []
    typed: list[str] = []
    spawned_shell = False
    for command in _tcl_commands(code):
        head, args = command[0], command[1:]
        while args and args[0].startswith("-") and head in ("spawn", "exec"):
            if args[0] == "--":
                args = args[1:]
                break
            args = args[2 if args[0] in ("-ignore", "-open", "-leaveopen") else 1 :]
        if head in ("spawn", "exec") and args:
            scripts.append(Script(shlex.join(args), "expect"))
            spawned_shell = spawned_shell or program_name(args[0]) in STDIN_SHELLS
        elif head == "system" and args:
            scripts.append(Script(" ".join(args), "expect"))
        elif head == "send" and args:
            typed.append(args[-1].replace("\\r", "\n").replace("\\n", "\n"))
    if spawned_shell and typed:
        scripts.append(Script("".join(typed), "expect"))
    return scripts


_WAIT_STATUS = re.compile(r"exit\s+\[\s*lindex\s+\[\s*wait")
_EXPECT_HIDES = "runs under expect, which exits with its script's status, not the spawned command's"


def _expect_unwrap(code: str) -> Unwrap | None:
    """expect exits with its script's status unless the script ends with
    `exit [lindex [wait] 3]`: otherwise a spawned command's failure is hidden."""
    scripts = _expect_scripts(code)
    if not scripts:
        return None
    masks = None if _WAIT_STATUS.search(code) else _EXPECT_HIDES
    return Unwrap("script", "expect", scripts=tuple(scripts), masks=masks)


def _expect(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    for k, word in enumerate(words[1:], start=1):
        if lit(word) == "-c" and k + 1 < len(words):
            code = lit(words[k + 1])
            if code is None:
                return Unwrap("script", "expect", scripts=(Script(TYPED, "expect", degraded=True),))
            return _expect_unwrap(code)
    if stdin is not None and len(words) == 1:
        return _expect_unwrap(stdin)
    return None


# -- tmux and screen -------------------------------------------------------------------------

_TMUX_GLOBAL = OptSpec("LSfcT")
_TMUX_RUNS = {  # tmux command -> option letters that take a value
    "new-session": "censtxyFfAX",
    "new": "censtxyFfAX",
    "new-window": "cenStF",
    "neww": "cenStF",
    "split-window": "celtF",
    "splitw": "celtF",
    "respawn-pane": "cet",
    "respawnp": "cet",
    "respawn-window": "cet",
    "respawnw": "cet",
    "run-shell": "dt",
    "run": "dt",
    "pipe-pane": "t",
    "pipep": "t",
    "display-popup": "bcdehsStTwxy",
    "popup": "bcdehsStTwxy",
}
_KEYS = {"enter": "\n", "c-m": "\n", "kpenter": "\n", "c-j": "\n", "space": " ", "tab": "\t"}


def _typed(keys: tuple[Word, ...], literal: bool) -> Script:
    """A shell's view of `send-keys`: the text typed, named keys (Enter, C-m, Space) applied."""
    parts: list[str] = []
    for word in keys:
        value = lit(word)
        if value is None:
            return Script(TYPED, "tmux send-keys", degraded=True)
        lowered = value.lower()
        if not literal and lowered in _KEYS:
            parts.append(_KEYS[lowered])
        elif not literal and re.match(r"^(c|m|s)-.$|^(escape|bspace|up|down|left|right)$", lowered):
            continue
        else:
            parts.append(value)
    return Script("".join(parts), "tmux send-keys")


def _tmux_command(words: tuple[Word, ...]) -> list[Script]:
    if not words:
        return []
    name = lit(words[0]) or ""
    if name in ("send-keys", "send"):
        parsed = parse_options(words, 1, OptSpec("NtcX"))
        if parsed is None:
            return []
        opts, i = parsed
        if opts.has("-X"):
            return []
        return [_typed(words[i:], opts.has("-l"))]
    if name in ("if-shell", "if"):
        parsed = parse_options(words, 1, OptSpec("t"))
        if parsed is None or parsed[1] >= len(words):
            return []
        opts, i = parsed
        scripts = [] if opts.has("-F") else list(script_from(words[i], "tmux").scripts)
        for branch in words[i + 1 :]:
            scripts += _tmux_branch(branch)
        return scripts
    if name not in _TMUX_RUNS:
        return []
    parsed = parse_options(words, 1, OptSpec(_TMUX_RUNS[name]))
    if parsed is None:
        return []
    opts, i = parsed
    if i >= len(words) or (name in ("run-shell", "run") and opts.has("-C")):
        return []
    if len(words) - i > 1 and name not in ("run-shell", "run", "pipe-pane", "pipep"):
        # several words: tmux runs them as a program and its arguments, not through sh -c
        rest = words[i:]
        text = " ".join(shlex.quote(v) if (v := lit(w)) is not None else template(w) for w in rest)
        return [Script(text, "tmux", degraded=any(lit(w) is None for w in rest))]
    return list(join_script(words[i:], "tmux").scripts)


def _tmux_branch(branch: Word) -> list[Script]:
    """An if-shell branch: a tmux command line; unknown code when tmux cannot split it
    (known only at run time, or an unbalanced quote)."""
    value = lit(branch)
    try:
        parts = shlex.split(value) if value is not None else None
    except ValueError:
        parts = None
    if parts is None:
        return [Script(RUNTIME_CODE, "tmux", degraded=True)]
    return _tmux_line(tuple(Word(p, p) for p in parts))


def _tmux_line(words: tuple[Word, ...]) -> list[Script]:
    scripts: list[Script] = []
    start = 0
    for k in range(len(words) + 1):
        if k == len(words) or lit(words[k]) in _SEPARATORS:
            scripts += _tmux_command(words[start:k])
            start = k + 1
    return scripts


def _tmux(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _TMUX_GLOBAL)
    if parsed is None:
        return None
    opts, i = parsed
    command = opts.value("-c")
    scripts: list[Script] = []
    if command is not None:
        scripts.append(Script(command, "tmux"))
    scripts += _tmux_line(words[i:])
    return Unwrap("script", "tmux", scripts=tuple(scripts), masks=DETACHED) if scripts else None


def _screen(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, OptSpec("SceEhpstTX"))
    if parsed is None:
        return None
    opts, i = parsed
    if opts.has("-X"):
        action, rest = opts.value("-X"), words[i:]
        if action is None:  # `-X "$A"`: a command known at run time may stuff keys or exec
            script = Script(RUNTIME_CODE, "screen", degraded=True)
            return Unwrap("script", "screen", scripts=(script,), masks=DETACHED)
        if action == "stuff" and rest:
            value = lit(rest[0])
            text = TYPED if value is None else value.replace("^M", "\n").replace("\\r", "\n")
            script = Script(text, "screen stuff", degraded=value is None)
            return Unwrap("script", "screen stuff", scripts=(script,), masks=DETACHED)
        if action in ("exec", "screen") and rest:
            return Unwrap("exec", "screen", rest=rest, masks=DETACHED)
        return None
    if opts.has("-ls", "-list", "-r", "-R", "-x", "-wipe", "-v", "-D"):
        return None
    return exec_at("screen", words, i, masks=DETACHED)


# -- remote, reproducible and scheduled shells --------------------------------------------

_SSH = OptSpec("BbcDEeFIiJLlmOopQRSWw")
_AUTOSSH = OptSpec(_SSH.short + "M")  # autossh's own -M PORT, then ssh's options


def _ssh(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _AUTOSSH if command_name(words[0]) == "autossh" else _SSH)
    if parsed is None:
        return None
    opts, i = parsed
    scripts: list[Script] = []
    for name, value in opts.items:
        if name == "-o" and value is not None:
            key, _, setting = re.sub(r"\s*=\s*|\s+", "=", value.strip(), count=1).partition("=")
            if key.lower() in ("proxycommand", "localcommand", "knownhostscommand"):
                scripts.append(Script(setting, "ssh"))
    if i + 1 < len(words):
        remote = join_script(words[i + 1 :], "ssh").scripts
        if stdin is not None and command_name(words[i + 1]) in STDIN_SHELLS:
            remote = (Script(stdin, "ssh"),)  # `ssh host bash <<EOF`: the here-document runs
        # Literal code is judged wherever it runs; code known only at run time is unknown
        # code when it runs on this machine (`ssh localhost "$CMD"`), not on another host.
        if all(not script.degraded for script in remote) or _is_local(words[i]):
            scripts += remote
    elif i < len(words) and stdin is not None:
        scripts.append(Script(stdin, "ssh"))
    return Unwrap("script", "ssh", scripts=tuple(scripts)) if scripts else None


def _is_local(host: Word) -> bool:
    value = lit(host)
    if value is None:
        return False
    name = value.removeprefix("ssh://").rpartition("@")[2].lower()
    if name.startswith("["):  # ssh://[::1]:22
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:  # ssh://host:22 (an IPv6 address has several colons)
        name = name.partition(":")[0]
    return name in ("localhost", "::1", "0.0.0.0", "ip6-localhost") or name.startswith("127.")


def _nix_shell(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        if value in ("--run", "--command") and k + 1 < len(words):
            return script_from(words[k + 1], "nix-shell --run")
        if value.startswith(("--run=", "--command=")):
            return Unwrap(
                "script",
                "nix-shell --run",
                scripts=(Script(value.split("=", 1)[1], "nix-shell --run"),),
            )
    return None


def _nix(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    sub = lit(words[1]) if len(words) > 1 else None
    if sub not in ("develop", "shell", "run"):
        return None
    for k, word in enumerate(words[2:], start=2):
        value = lit(word)
        if value in ("-c", "--command") and k + 1 < len(words):
            return exec_at(f"nix {sub}", words, k + 1)
        if value == "--" and sub == "shell":
            return exec_at(f"nix {sub}", words, k + 1)
    return None


def _at(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    if any((lit(w) or "").startswith(("-f", "-l", "-r", "-d", "-c")) for w in words[1:]):
        return None
    if stdin is None:
        return None
    return Unwrap("script", "at", scripts=(Script(stdin, "at"),), masks=DETACHED)


LAUNCHERS: dict[str, Handler] = {
    **{name: _other_shell for name in _C_FLAGS},
    "pwsh": _pwsh,
    "powershell": _pwsh,
    "cmd": _cmd,
    "busybox": _busybox,
    "toybox": _busybox,
    "wsl": _wsl,
    "script": _script_util,
    "expect": _expect,
    "tmux": _tmux,
    "screen": _screen,
    "ssh": _ssh,
    "autossh": _ssh,
    "nix-shell": _nix_shell,
    "nix": _nix,
    "at": _at,
    "batch": _at,
}
