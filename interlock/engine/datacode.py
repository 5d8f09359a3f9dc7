"""Programs whose data is code: the program runs, and runs the commands its program text names.

Each handler returns a `spawn` Unwrap (see wrappers.py) whose children are the command lines
found, or an unknown script when the command is built at run time:
- awk/gawk/mawk/nawk/busybox awk: `system(CMD)`, `print ... | CMD`, `CMD | getline`, and
  `print > FILE` (a write); a shell fed by awk's output runs data as code;
- sed (GNU): the `e` command, the `e` flag of `s///`, and `w FILE` writes.
Options that name a command (tar, vim, gdb, sqlite3, make...) are in carriers.py.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from interlock.engine.unwrap import (
    STDIN_SHELLS,
    Script,
    Unwrap,
    lit,
    template,
)
from interlock.shell.model import Word

Handler = Callable[[tuple[Word, ...], str | None], Unwrap | None]
UNKNOWN = "$PROGRAM_DATA"  # stands for a command built from data at run time
CODE_VIAS = frozenset(
    (
        "awk",
        "sed",
        "tar",
        "rsync",
        "zip",
        "man",
        "vim",
        "gdb",
        "sqlite3",
        "psql",
        "mysql",
        "osascript",
        "emacs",
    )
)
_MASKS = "{} does not return the exit status of the commands it runs"
_STRING = r'"(?:[^"\\]|\\.)*"'


def spawn(via: str, scripts: list[Script]) -> Unwrap | None:
    if not scripts:
        return None
    child = Unwrap("script", via, scripts=tuple(scripts), masks=_MASKS.format(via))
    return Unwrap("spawn", via, children=(child,))


def unknown(via: str) -> Script:
    return Script(UNKNOWN, via, degraded=True)


def _write(path: str, via: str) -> Script | None:
    if path in ("/dev/stdout", "/dev/stderr", "/dev/null", "-"):
        return None
    return Script(f": > {shlex.quote(path)}", via)


# -- awk -------------------------------------------------------------------------------------

_AWK_VALUE = frozenset("fvFeiElWx")
_EXPANSION = re.compile(r"\$(\{[^}]*\}|\w+|[@*#?$!0-9-])")
_ONLY_EXPANSION = re.compile(r"^\s*(\$(\{[^}]*\}|\w+|[@*#?$!0-9-])\s*)+$")


def word_text(word: Word) -> tuple[str, bool]:
    """A word's value, or its template (expansions kept as `$NAME`) and False."""
    value = lit(word)
    return (value, True) if value is not None else (template(word), False)


def _awk_programs(words: tuple[Word, ...]) -> list[str | None]:
    """The program texts of `awk [options] 'PROGRAM' files` (gawk `-e`/`--source` too); None
    for a program that is nothing but an expansion (`awk "$PROG"`)."""
    texts = [word_text(w)[0] for w in words]
    programs: list[str] = []
    from_file = False
    i = 1
    while i < len(texts):
        value = texts[i]
        if value == "--":
            i += 1
            break
        if value.startswith("--"):
            key, eq, attached = value[2:].partition("=")
            nxt = texts[i + 1] if i + 1 < len(texts) else ""
            if key == "source":
                programs.append(attached if eq else nxt)
            from_file = from_file or key in ("file", "exec")
            i += (
                1
                if eq
                or key
                not in ("source", "file", "exec", "field-separator", "assign", "include", "load")
                else 2
            )
            continue
        if not value.startswith("-") or value == "-":
            break
        letter = value[1:2]
        if letter in _AWK_VALUE:
            text = value[2:] or (texts[i + 1] if i + 1 < len(texts) else "")
            if letter == "e":
                programs.append(text)
            from_file = from_file or letter in "fE"
            i += 1 if value[2:] else 2
            continue
        i += 1
    if not programs and not from_file and i < len(texts):
        programs.append(texts[i])
    return [None if _ONLY_EXPANSION.match(p) else p for p in programs]


def quoted_value(expr: str) -> str | None:
    """The value of an awk expression made only of string literals, else None."""
    parts = re.findall(_STRING, expr)
    if not parts or re.sub(_STRING, "", expr).strip():
        return None
    return "".join(_unescape(p[1:-1]) for p in parts)


def _unescape(body: str) -> str:
    return body.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")


def _awk_command(expr: str, assigned: dict[str, str]) -> str | None:
    """A command line built by an awk expression: string literals kept, other values (fields,
    variables) as `$AWK_VALUE`; None when the command name itself is not literal."""
    expr = expr.strip()
    if re.fullmatch(r"[A-Za-z_]\w*", expr) and expr in assigned:
        return assigned[expr]
    pieces: list[str] = []
    for match in re.finditer(_STRING + r"|[^\s\"]+", expr):
        token = match.group(0)
        pieces.append(_unescape(token[1:-1]) if token.startswith('"') else " $AWK_VALUE ")
    text = "".join(pieces).strip()
    if not text or text.startswith("$AWK_VALUE") or not pieces[0].strip():
        return None
    return text


def _balanced(text: str, start: int) -> str:
    """The text inside the parenthesis opening at `start`."""
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            match = re.match(_STRING, text[i:])
            i += len(match.group(0)) if match else 1
            continue
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return text[start + 1 : i]
        i += 1
    return text[start + 1 :]


def _feeds_a_shell(command: str) -> bool:
    words = command.split()
    return bool(words) and words[0].rsplit("/", 1)[-1] in STDIN_SHELLS and "-c" not in words


def awk_scripts(program: str) -> list[Script]:
    """The commands an awk program runs (see the module docstring)."""
    via = "awk"
    assigned = {
        m.group(1): _unescape(m.group(2)[1:-1])
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*=\s*(" + _STRING + r")\s*[;}\n]", program)
    }
    scripts: list[Script] = []

    def run(expr: str, fed: bool = False) -> None:
        text = _awk_command(expr, assigned)
        if text is None or (fed and _feeds_a_shell(text)):
            scripts.append(unknown(via))
        else:
            scripts.append(Script(text, via, degraded="$AWK_VALUE" in text))

    for match in re.finditer(r"\bsystem\s*\(", program):
        run(_balanced(program, match.end() - 1))
    pipe_to = r"\bprintf?\b[^;{}\n]*?(?<!\|)\|&?\s*(" + _STRING + r"(?:\s*" + _STRING
    for match in re.finditer(pipe_to + r")*|[A-Za-z_]\w*)", program):
        run(match.group(1), fed=True)
    piece = _STRING + r"|\$?[A-Za-z_0-9]+"
    for match in re.finditer(r"((?:(?:" + piece + r")\s*)+)\|&?\s*getline", program):
        run(match.group(1))
    for match in re.finditer(r"\bprintf?\b[^;{}\n|]*?>>?\s*(" + _STRING + ")", program):
        path = quoted_value(match.group(1))
        if path is not None and (write := _write(path, via)) is not None:
            scripts.append(write)
    return scripts


def _awk(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    scripts: list[Script] = []
    for program in _awk_programs(words):
        if program is None:
            scripts.append(unknown("awk"))  # `awk "$PROG"`: a program known only at run time
        else:
            scripts += awk_scripts(program)
    return spawn("awk", scripts)


# -- sed -------------------------------------------------------------------------------------


_S_FLAGS = frozenset("gpeIiMm0123456789 \t")
_HOLE = "\0"  # where a shell expansion sits in a sed script built at run time


def _sed_address(text: str, i: int) -> int:
    """Skip one address (`12`, `$`, `/re/I`, `\\%re%`, `first~step`, `+N`); an expansion
    followed by a command letter (`"${n}p"`) is an address too."""
    if i < len(text) and text[i] == _HOLE:
        nxt = text[i + 1 : i + 2]
        if nxt.isalpha() or (nxt and nxt in ",!{~"):
            return i + 1
    if i < len(text) and (text[i].isdigit() or text[i] in "+~"):
        i += 1
        while i < len(text) and (text[i].isdigit() or text[i] == "~"):
            i += 1
    elif i < len(text) and text[i] == "$":
        i += 1
    elif i < len(text) and text[i] in "/\\":
        delim = text[i] if text[i] == "/" else text[i + 1 : i + 2]
        i += 1 if text[i] == "/" else 2
        while i < len(text) and text[i] != delim:
            i += 2 if text[i] == "\\" else 1
        i += 1
        while i < len(text) and text[i] in "IM":
            i += 1
    return i


def _rest_of_line(text: str, i: int) -> tuple[str, int]:
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    return text[i:end].strip(), end


def _sed_s(text: str, i: int) -> tuple[str, int]:
    """Skip `s/re/repl/` from the `s`; return its flags (a `w FILE` flag runs to the end of
    the line) and where they end."""
    if i + 1 >= len(text):
        return "", len(text)
    delim, i, parts = text[i + 1], i + 2, 0
    while i < len(text) and parts < 2:
        if text[i] == "\\":
            i += 2
            continue
        parts += text[i] == delim
        i += 1
    start = i
    while i < len(text) and text[i] not in ";\n}":
        if text[i] == "w":
            _, end = _rest_of_line(text, i)
            return text[start:end], end
        if text[i] not in _S_FLAGS:
            return "", i  # not a flag: sed refuses the script, nothing runs
        i += 1
    return text[start:i], i


def sed_scripts(script: str) -> list[Script]:
    """Commands and writes in a sed script: `e CMD`, `s///e`, `w FILE`, `s///w FILE`."""
    via = "sed"
    found: list[Script] = []
    i = 0
    while i < len(script):
        while i < len(script) and script[i] in " \t\n;{}!":
            i += 1
        i = _sed_address(script, i)
        if i < len(script) and script[i] == ",":
            i = _sed_address(script, i + 1)
        while i < len(script) and script[i] in " \t!":
            i += 1
        if i >= len(script):
            break
        command = script[i]
        if command == _HOLE:
            found.append(unknown(via))  # a command that is only known at run time
            i += 1
        elif command in "aicrR#":
            _, i = _rest_of_line(script, i + 1)
        elif command in ":bTtvlLqQ":
            i += 1
            while i < len(script) and script[i] not in ";\n}":
                i += 1
        elif command in "wW":
            path, i = _rest_of_line(script, i + 1)
            if (write := _write(path, via)) is not None:
                found.append(write)
        elif command == "e":
            text, i = _rest_of_line(script, i + 1)
            found.append(Script(text, via) if text else unknown(via))
        elif command == "s":
            flags, i = _sed_s(script, i)
            if "e" in flags.split("w", 1)[0]:
                found.append(unknown(via))  # the pattern space (input data) runs as a command
            if "w" in flags and (write := _write(flags.split("w", 1)[1].strip(), via)):
                found.append(write)
        elif command == "y":
            delim = script[i + 1 : i + 2]
            i += 2
            for _ in range(2):
                while i < len(script) and script[i] != delim:
                    i += 2 if script[i] == "\\" else 1
                i += 1
        else:
            i += 1
    return found


def _holes(template_text: str) -> str:
    """A sed script built at run time, each expansion a hole (`$(...)` first: its marker
    would swallow the letters after it)."""
    return _EXPANSION.sub(_HOLE, template_text.replace("$__interlock_subst", _HOLE))


def _sed(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    scripts: list[str] = []
    positionals: list[str] = []
    texts = [word_text(w) for w in words]
    i = 1
    while i < len(texts):
        value, literal = texts[i]
        script = value if literal else _holes(value)
        if value in ("-e", "--expression") and i + 1 < len(texts):
            nxt, nxt_literal = texts[i + 1]
            scripts.append(nxt if nxt_literal else _holes(nxt))
            i += 2
            continue
        if value.startswith("--expression="):
            scripts.append(script.split("=", 1)[1])
        elif value.startswith("-e") and len(value) > 2 and not value.startswith("--"):
            scripts.append(script[2:])
        elif value in ("-f", "--file", "-l", "--line-length", "-s", "--separate"):
            scripts += [""] if value in ("-f", "--file") else []
            i += 1 if value in ("-f", "--file", "-l", "--line-length") else 0
        elif not value.startswith("-") or value == "-":
            positionals.append(script)
        i += 1
    if not scripts and positionals:
        scripts.append(positionals[0])
    found: list[Script] = []
    for script in scripts:
        found += sed_scripts(script)
    return spawn("sed", found)


DATACODE: dict[str, Handler] = {
    **{name: _awk for name in ("awk", "gawk", "mawk", "nawk", "original-awk")},
    "sed": _sed,
    "gsed": _sed,
}
