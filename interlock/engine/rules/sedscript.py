"""Reading sed, ex/vim and ed scripts for what deletes content (for `editors`).

`sed_deletes(script, quiet)` says why a sed script deletes text (`d`, `D`, `c`, `z`, `q`
before the last line, `s/.*//`, `-n` printing only some lines) or None when it only edits
(`s/a/b/`, `y`, `a`, `i`). `ex_deletes(commands)` does the same for ex/vim `-c` commands and
ed scripts that delete lines and then write the file.
"""

from __future__ import annotations

import re

# Regexes that match every line: `s/<this>//` empties it.
_WHOLE_LINE = frozenset((".*", "^.*", "^.*$", ".*$", "^.\\+$", ".\\+", "^.+$", ".+", "^\\(.*\\)$"))
_SIMPLE = set("=pPnNgGhHxFlLz")
_TO_EOL = set("rRwWe")
_LABEL = set(":btT")
_TEXT = set("aic")


def _delimited(script: str, i: int, delim: str) -> int:
    """The index after the next unescaped `delim` from i (or the end)."""
    while i < len(script):
        ch = script[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "\n" and delim != "\n":
            return i
        if ch == delim:
            return i + 1
        i += 1
    return i


def _eol(script: str, i: int, stops: str = "\n") -> int:
    while i < len(script) and script[i] not in stops:
        i += 1
    return i


def _one_address(script: str, i: int, second: bool) -> int:
    if i < len(script) and script[i].isdigit():
        while i < len(script) and (script[i].isdigit() or script[i] == "~"):
            i += 1
    elif script[i : i + 1] == "$":
        i += 1
    elif script[i : i + 1] == "/":
        i = _delimited(script, i + 1, "/")
    elif script[i : i + 1] == "\\" and i + 1 < len(script):
        i = _delimited(script, i + 2, script[i + 1])
    elif second and script[i : i + 1] in ("+", "~"):
        i += 1
        while i < len(script) and script[i].isdigit():
            i += 1
    else:
        return i
    while script[i : i + 1] in ("I", "M"):
        i += 1
    return i


def _address(script: str, i: int) -> tuple[str, int]:
    """(the address text, the index of the command after it and any `!`)."""
    start = i
    i = _one_address(script, i, False)
    if i > start and script[i : i + 1] == ",":
        i = _one_address(script, i + 1, True)
    address = script[start:i].strip()
    while i < len(script) and script[i] in " \t!":
        i += 1
    return address, i


def sed_commands(script: str) -> list[tuple[str, str, str, str]]:
    """(address, command letter, regex, replacement) for each command; regex and replacement
    only for `s`. Reading stops at a letter that is not a sed command."""
    found: list[tuple[str, str, str, str]] = []
    i = 0
    while i < len(script):
        ch = script[i]
        if ch in " \t\n;{}":
            i += 1
            continue
        if ch == "#":
            i = _eol(script, i)
            continue
        address, i = _address(script, i)
        if i >= len(script):
            break
        cmd = script[i]
        if cmd in "sy" and i + 1 < len(script):
            delim = script[i + 1]
            middle = _delimited(script, i + 2, delim)
            end = _delimited(script, middle, delim)
            regex, repl = script[i + 2 : middle - 1], script[middle : end - 1]
            i = end
            while i < len(script) and (script[i].isalnum()):
                if script[i] == "w":  # s///w FILE writes a file
                    i = _eol(script, i)
                    break
                i += 1
            found.append((address, cmd, regex, repl))
            continue
        if cmd in _TEXT or cmd in _TO_EOL:
            found.append((address, cmd, "", ""))
            i = _eol(script, i + 1)
        elif cmd in _LABEL:
            found.append((address, cmd, "", ""))
            i = _eol(script, i + 1, "\n;")
        elif cmd in _SIMPLE or cmd in "dDqQ":
            found.append((address, cmd, "", ""))
            i += 1
            while i < len(script) and script[i].isdigit():  # q5, l 40
                i += 1
        elif cmd == "{":
            i += 1
        else:
            found.append((address, "?", "", ""))
            break
    return found


def sed_deletes(script: str, quiet: bool) -> str | None:
    """Why the sed script deletes text from the file it edits in place, or None."""
    commands = sed_commands(script)
    quiet = quiet or script.startswith("#n\n") or script == "#n"
    for address, cmd, regex, repl in commands:
        if cmd in "dD":
            return "its `d` command deletes lines"
        if cmd == "c":
            return "its `c` command replaces lines with fixed text"
        if cmd == "z":
            return "its `z` command empties lines"
        if cmd in "qQ" and address != "$":
            return "it stops early, and sed -i keeps only what it printed until then"
        if cmd == "s" and repl == "" and regex in _WHOLE_LINE:
            return f"s/{regex}// empties every line it reaches"
    if quiet:
        if any(cmd in "pP" and not address for address, cmd, _, _ in commands):
            return None
        return "with -n, sed -i keeps only the lines the script prints"
    return None


_EX_RANGE = r"^(\s|[%$.,;]|\d+|'[a-z<>]|/(\\.|[^/])*/|\?(\\.|[^?])*\?|[+-]\d*)*"
_EX_DELETE = frozenset(("d", "de", "del", "dele", "delet", "delete", "c", "change"))
_EX_WRITE = frozenset(
    "w write wq wqa wqall x xit xa xall exit up update wa wall sav saveas".split()
)


def _ex_one(command: str) -> tuple[str | None, bool]:
    """(why this ex/ed command deletes, whether it writes the file)."""
    text = command.strip().lstrip(":").strip()
    body = re.sub(_EX_RANGE, "", text)
    glob = re.match(r"^(g|global|v|vglobal)!?\s*(\W)(.*?)(?<!\\)\2(.*)$", body)
    if glob:
        return _ex_one(glob.group(4))
    if body.startswith("!") and body != text:
        return "it filters lines through a command that replaces them", False
    name = re.match(r"^[a-zA-Z]*", body).group(0)  # type: ignore[union-attr]
    if name in _EX_DELETE:
        return "it deletes lines", False
    if name in ("norm", "normal") and re.search(r"[dxDcCsS]", body[len(name) :]):
        return "its normal-mode keys delete text", False
    sub = re.match(r"^s(ubstitute)?\s*(\W)(.*?)(?<!\\)\2(.*?)\2", body)
    if sub and sub.group(4) == "" and sub.group(3) in _WHOLE_LINE:
        return "it empties every line", False
    return None, name in _EX_WRITE or name.startswith(("wq", "x"))


def ex_deletes(commands: list[str]) -> str | None:
    """Why ex/vim/ed commands delete text from the file and write it back, or None."""
    why: str | None = None
    writes = False
    for command in commands:
        for part in command.split("|") if "|" in command else [command]:
            deletes, wrote = _ex_one(part)
            why = why or deletes
            writes = writes or wrote
    return why if writes else None
