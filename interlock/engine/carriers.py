"""Programs whose options carry a command: the program runs, and runs that command too.

- tar `--to-command`, `--checkpoint-action=exec=`, `-I`/`--use-compress-program`, `-F`;
  rsync `-e`/`--rsh`; zip `-TT`; man `-P`;
- vim/vi/nvim/ex `-c`/`+`/`--cmd` with `!CMD`, `:r !CMD`, `system(...)`, `:terminal CMD`;
- gdb `-ex 'shell CMD'`/`'!CMD'`/`'python CODE'`; sqlite3 `.shell`/`.system`/`.once |CMD`;
  psql/mysql `\\! CMD`, mysql `system CMD`; osascript `do shell script "CMD"`;
  emacs `--eval '(shell-command "CMD")'`; make `--eval` and `-f -` recipes.
Each handler returns a `spawn` Unwrap (see wrappers.py) whose children are those commands.
"""

from __future__ import annotations

import re
import shlex

from interlock.engine.datacode import Handler, quoted_value, spawn, unknown, word_text
from interlock.engine.unwrap import Script, Unwrap, command_name, lit, script_from
from interlock.shell.model import Word

_STRING = r'"(?:[^"\\]|\\.)*"'


# -- options that name a command -------------------------------------------------------------

_OPTION_COMMANDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (options whose value is a command, of them the short ones taking an attached value)
    "tar": (
        (
            "--to-command",
            "--use-compress-program",
            "-I",
            "--info-script",
            "--new-volume-script",
            "-F",
            "--rsh-command",
        ),
        ("-I", "-F"),
    ),
    "rsync": (("-e", "--rsh"), ("-e",)),
    "zip": (("-TT", "--unzip-command"), ()),
    "man": (("-P", "--pager"), ("-P",)),
}


def _option_command(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or ""
    options, attached = _OPTION_COMMANDS[name]
    found: list[Script] = []
    for k, word in enumerate(words[1:], start=1):
        value, literal = word_text(word)
        key, eq, rest = value.partition("=")
        if not literal and not (eq and key in options) and key != "--checkpoint-action":
            continue
        if name == "tar" and key == "--checkpoint-action" and rest.startswith("exec="):
            found.append(Script(rest[5:], name))
        elif eq and key in options:
            found.append(Script(rest, name))
        elif value in options and k + 1 < len(words):
            found += script_from(words[k + 1], name).scripts
        elif any(value.startswith(s) and len(value) > len(s) for s in attached):
            found.append(Script(value[2:], name))
    return spawn(name, found)


def _vim_command(command: str) -> Script | None:
    text = re.sub(r"^[:\s]*(?:silent!?\s+|exe(?:cute)?\s+|sil!?\s+)*", "", command)
    match = re.match(r"^(?:(?:r|read|w|write|\d*,?\d*)\s*)?!(.*)$", text)
    if match:
        return Script(match.group(1), "vim")
    match = re.match(r"^(?:term|terminal)\s+(.+)$", text)
    if match:
        return Script(match.group(1), "vim")
    if re.search(r"\bsystem(?:list)?\s*\(", text):
        string = re.search(r"\bsystem(?:list)?\s*\(\s*(['\"])(.*?)\1\s*\)", text)
        return Script(string.group(2), "vim") if string else unknown("vim")
    return None


def _vim(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    commands: list[str | None] = []
    for k, word in enumerate(words[1:], start=1):
        value = lit(word)
        if value is not None and value.startswith("+") and len(value) > 1:
            commands.append(value[1:])
        elif value is not None and k + 1 < len(words):
            if value in ("-c", "--cmd") or re.match(r"^-[a-zA-Z]+c$", value):
                commands.append(lit(words[k + 1]))
    found: list[Script] = []
    for command in commands:
        script = unknown("vim") if command is None else _vim_command(command)
        if script is not None:
            found.append(script)
    return spawn("vim", found)


def _gdb(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    flags = ("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command")
    found: list[Script] = []
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        key, eq, attached = value.partition("=")
        command = attached if eq and key in flags else None
        if value in flags and k + 1 < len(words):
            command = lit(words[k + 1])
            if command is None:
                found.append(unknown("gdb"))
                continue
        if command is None:
            continue
        if re.match(r"^\s*(shell\s|!)", command):
            found.append(Script(re.sub(r"^\s*(shell\s+|!)", "", command), "gdb"))
        elif re.match(r"^\s*(python|py|pi|python-interactive)\s", command):
            code = re.sub(r"^\s*\S+\s+", "", command)
            found.append(Script(f"python3 -c {shlex.quote(code)}", "gdb"))
    return spawn("gdb", found)


def _sql_client(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or ""
    texts: list[str | None] = []
    flags = {"sqlite3": ("-cmd",), "psql": ("-c", "--command"), "mysql": ("-e", "--execute")}
    for k, word in enumerate(words[1:], start=1):
        value = lit(word)
        if value in flags[name] and k + 1 < len(words):
            texts.append(lit(words[k + 1]))
        elif value is not None and "=" in value and value.split("=", 1)[0] in flags[name]:
            texts.append(value.split("=", 1)[1])
        elif name == "sqlite3" and k >= 2 and (value is None or not value.startswith("-")):
            texts.append(value)
    found: list[Script] = []
    for text in texts:
        if text is None:
            if name == "sqlite3":
                found.append(unknown(name))
            continue
        for line in text.splitlines() or [text]:
            stripped = line.strip()
            match = re.match(r"^(?:\.shell|\.system|\\!|system)\s+(.*)$", stripped)
            pipe = re.match(r"^\.(?:once|output)\s+(?:-\w+\s+)*['\"]?\|(.*?)['\"]?$", stripped)
            if match:
                found.append(Script(match.group(1), name))
            elif pipe:
                found.append(Script(pipe.group(1), name))
    return spawn(name, found)


def _osascript(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    found: list[Script] = []
    for k, word in enumerate(words[1:], start=1):
        if lit(word) == "-e" and k + 1 < len(words):
            code = lit(words[k + 1])
            if code is None:
                found.append(unknown("osascript"))
                continue
            for match in re.finditer(r"do shell script\s+(\"(?:[^\"\\]|\\.)*\"|\S+)", code):
                text = quoted_value(match.group(1))
                found.append(
                    Script(text, "osascript") if text is not None else unknown("osascript")
                )
    return spawn("osascript", found)


def _emacs(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    found: list[Script] = []
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        code = value.split("=", 1)[1] if value.startswith("--eval=") else None
        if value in ("--eval", "-eval") and k + 1 < len(words):
            code = lit(words[k + 1])
        if code is None:
            continue
        for match in re.finditer(
            r"\((?:async-)?shell-command(?:-to-string)?\s+(" + _STRING + r"|[^\s)]+)", code
        ):
            text = quoted_value(match.group(1))
            found.append(Script(text, "emacs") if text is not None else unknown("emacs"))
    return spawn("emacs", found)


def make_recipes(makefile: str) -> str:
    """The shell lines of a makefile's recipes (tab-indented lines and `target: ; cmd`), as
    one script; `@`, `-` and `+` prefixes dropped, line continuations joined."""
    lines: list[str] = []
    text = makefile.replace("\\\n", " ")
    for raw in text.split("\n"):
        if raw.startswith("\t"):
            lines.append(raw[1:].lstrip("@-+ "))
        elif ":" in raw and ";" in raw.split(":", 1)[1] and not raw.lstrip().startswith("#"):
            lines.append(raw.split(":", 1)[1].split(";", 1)[1].strip().lstrip("@-+ "))
    return "\n".join(line for line in lines if line.strip())


def _make(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`make --eval 'TEXT'` and `make -f - <<EOF`: recipes given on the command line."""
    texts: list[str] = []
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        if value in ("--eval", "-E") and k + 1 < len(words):
            texts.append(lit(words[k + 1]) or "")
        elif value.startswith("--eval="):
            texts.append(value.split("=", 1)[1])
        elif (
            value in ("-f", "--file")
            and k + 1 < len(words)
            and lit(words[k + 1]) in ("-", "/dev/stdin")
        ):
            texts.append(stdin or "")
    recipes = "\n".join(make_recipes(t) for t in texts if t)
    return spawn("make", [Script(recipes, "make")]) if recipes.strip() else None


CARRIERS: dict[str, Handler] = {
    **{name: _option_command for name in _OPTION_COMMANDS},
    **{name: _vim for name in ("vim", "vi", "nvim", "ex", "view", "vimdiff", "gvim", "rvim")},
    "gdb": _gdb,
    "sqlite3": _sql_client,
    "psql": _sql_client,
    "mysql": _sql_client,
    "osascript": _osascript,
    "emacs": _emacs,
    "make": _make,
    "gmake": _make,
}
