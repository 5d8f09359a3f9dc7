"""Regular-expression scan of inline code (node, perl, ruby, php, lua, R, unparsable python):
the patterns are in patterns.py; this module finds their arguments and turns each into shell
terms (a command line, an argv, `rm P`, `: > P`, `mv A B`...). Code the patterns say is chosen
at run time becomes an unknown action (UNREADABLE)."""

from __future__ import annotations

import re

from interlock.engine.inline.patterns import PATTERNS
from interlock.shell.model import Word

Found = list[tuple[tuple[Word, ...], str | None]]
UNREADABLE = Word("<inline code interlock cannot read>", None)
_MAX_DEPTH = 3
_TWO = {"copy": ("cp",), "move": ("mv",), "link": ("ln", "-sf")}
_NODE_MODULE = r"(?:node:)?child_process"

_DELETE = {"rm": ("rm",), "rmrf": ("rm", "-rf"), "rmdir": ("rmdir",)}
_QUOTE_OPERATOR = re.compile(r"(?:\bqx|%x)\s*([^\w\s])")
_CLOSERS = {"(": ")", "{": "}", "[": "]", "<": ">"}
_INTERPOLATION = re.compile(r"#\{[^}]*\}")


def _node_bindings(code: str) -> list[tuple[str, str]]:
    """Patterns for names bound to child_process (`const run = require('child_process')`,
    `const {execSync: run} = require(...)`, `import {exec as run} from ...`)."""
    found: list[tuple[str, str]] = []
    source = (
        r"(?:require\s*\(\s*['\"`]"
        + _NODE_MODULE
        + r"['\"`]\s*\)|from\s+['\"]"
        + _NODE_MODULE
        + ")"
    )
    for match in re.finditer(
        r"(?:const|let|var|import)\s+(\*\s+as\s+)?(\w+)\s*(?:=|from)\s*" + source, code
    ):
        found.append((rf"\b{match.group(2)}\.exec(?:Sync)?\s*(?=\()", "shell"))
    for match in re.finditer(r"\{([^}]*)\}\s*(?:=\s*)?" + source, code):
        for entry in match.group(1).split(","):
            parts = re.split(r"\s*(?::|\bas\b)\s*", entry.strip())
            name, bound = parts[0], parts[-1]
            if bound and bound != name:
                kind = "shell" if name.startswith("exec") and "File" not in name else "argv"
                found.append((rf"(?<![.\w]){re.escape(bound)}\s*(?=\()", kind))
    return found


def regex_actions(language: str, code: str, depth: int = 0) -> Found:
    """Shell-outs, writes and deletions found by pattern; see interpreters.py."""
    located: list[tuple[int, tuple[Word, ...], str | None]] = []
    patterns = list(PATTERNS.get(language, []))
    if language == "node" and "child_process" in code:
        patterns += _node_bindings(code)
    for pattern, kind in patterns:
        for match in re.finditer(pattern, code):
            found: Found = []
            if kind == "dynamic":
                found.append(((UNREADABLE,), None))
            elif kind == "template":
                body = _backtick_body(code, match.end())
                found.append(((), body) if body is not None else ((UNREADABLE,), None))
            else:
                args = _arguments(code, match.end())
                if args is not None:
                    _action(kind, args, language, found, depth)
            located.extend((match.start(), argv, script) for argv, script in found)
    if language in ("perl", "ruby", "php"):
        for at, body in _backticks(code):
            located.append((at, (), _shell_text(body, language)))
    located.sort(key=lambda item: item[0])
    unique: Found = []
    seen: set[tuple[tuple[str, ...], str | None]] = set()
    for _, argv, script in located:
        key = (tuple(w.text for w in argv), script)
        if key not in seen:  # two patterns may name one call (`fs.writeFileSync`)
            seen.add(key)
            unique.append((argv, script))
    return unique


def _arguments(code: str, i: int) -> list[str] | None:
    while i < len(code) and code[i] in " \t":
        i += 1
    if i < len(code) and code[i] == "(":
        end = _matching(code, i)
        return _split(code[i + 1 : end])
    stop = i
    while stop < len(code) and code[stop] not in ";\n}":
        stop = _skip_quoted(code, stop) if code[stop] in "'\"`" else stop + 1
    text = code[i:stop].strip()
    return _split(text) if text else None


def _skip_quoted(code: str, i: int) -> int:
    quote, i = code[i], i + 1
    while i < len(code) and code[i] != quote:
        i += 2 if code[i] == "\\" else 1
    return i + 1


def _matching(code: str, i: int) -> int:
    depth = 0
    while i < len(code):
        ch = code[i]
        if ch in "'\"`":
            i = _skip_quoted(code, i)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(code)


def _split(text: str) -> list[str]:
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "'\"`":
            i = _skip_quoted(text, i)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _string(arg: str, language: str) -> tuple[str, bool] | None:
    """(content, interpolated) of a quoted string literal, or None when arg is not one."""
    if len(arg) < 2 or arg[0] not in "'\"`" or arg[-1] != arg[0]:
        return None
    body = arg[1:-1]
    if arg[0] == "'":
        return body.replace("\\'", "'").replace("\\\\", "\\"), False
    interpolated = (
        ("${" in body)
        if arg[0] == "`" or language == "node"
        else ("$" in body or "#{" in body or "@" in body and language == "perl")
    )
    return body.replace('\\"', '"'), interpolated


def _word(arg: str, language: str) -> Word:
    found = _string(arg, language)
    if found is None or found[1]:
        return Word(arg, None)
    return Word(found[0], found[0])


def _array(arg: str, language: str) -> tuple[Word, ...] | None:
    if arg.startswith("[") and arg.endswith("]"):
        return tuple(_word(a, language) for a in _split(arg[1:-1]))
    if arg.startswith("%w") and len(arg) > 3:
        return tuple(Word(w, w) for w in arg[3:-1].split())
    return None


def _shell_text(body: str, language: str) -> str:
    return _INTERPOLATION.sub("$RUBY_EXPR", body) if language == "ruby" else body


def _backtick_body(code: str, i: int) -> str | None:
    end = code.find("`", i + 1)
    if end < 0:
        return None
    body = code[i + 1 : end]
    return re.sub(r"\$\{[^}]*\}", "$JS_EXPR", body)


def _target(word: Word) -> str:
    value = word.literal()
    if value is None:
        return '"$CODE_EXPR"'
    return "'" + value.replace("'", "'\\''") + "'"


def _special(kind: str, args: list[str], language: str, found: Found, depth: int) -> bool:
    """Kinds that are not one command: writes, two paths, chmod, kill, eval, perl's open."""
    words = [_word(a, language) for a in args]
    if kind in ("write", "append"):
        found.append(((), f": {'>>' if kind == 'append' else '>'} {_target(words[0])}"))
    elif kind in _TWO:
        if len(words) >= 2:
            found.append((tuple(Word(w, w) for w in _TWO[kind]) + (words[0], words[-1]), None))
    elif kind.startswith("chmod"):
        modes = [
            Word(a, a.replace("0o", "")) if re.fullmatch(r"0?o?[0-7]{3,4}", a) else w
            for a, w in zip(args, words, strict=True)
        ]
        mode, paths = (
            (modes[0], words[1:]) if kind == "chmod_mode_first" else (modes[-1], words[:1])
        )
        found.extend(((Word("chmod", "chmod"), mode, path), None) for path in paths)
    elif kind in ("kill", "kill_first"):
        found.append(
            ((Word("kill", "kill"), words[0] if kind == "kill_first" else words[-1]), None)
        )
    elif kind == "eval":
        text = _string(args[0], language)
        if text is None or text[1] or depth >= _MAX_DEPTH:
            found.append(((UNREADABLE,), None))
        else:
            found.extend(regex_actions(language, text[0], depth + 1))
    elif kind == "perl_open":
        _perl_open(args, language, found)
    elif kind == "ruby_pipe_open":
        text = _string(args[0], language)
        found.append(((), _shell_text(text[0][1:], language)) if text else ((UNREADABLE,), None))
    elif kind == "ruby_send":
        symbol = args[0].lstrip(":").strip("'\"")
        if symbol in ("system", "exec", "spawn", "`") and len(args) >= 2:
            _action("shell", args[1:], language, found, depth)  # send(:system, "cmd")
        elif symbol in ("system", "exec", "spawn", "`", "eval", "instance_eval", "send"):
            found.append(((UNREADABLE,), None))
        elif not re.fullmatch(r"\w+", symbol):
            found.append(((UNREADABLE,), None))  # send(name, ...): a method chosen at run time
    else:
        return False
    return True


def _perl_open(args: list[str], language: str, found: Found) -> None:
    """perl `open(FH, MODE, PATH)` / `open(FH, "MODE PATH")`: writes and pipes."""
    if len(args) >= 3:
        mode = _string(args[1], language)
        target = args[2]
        text = (mode[0] if mode else "").strip()
        if text in ("|-", "-|"):
            command = _string(target, language)
            found.append(((), command[0]) if command and not command[1] else ((UNREADABLE,), None))
        elif text.startswith((">", "+<", "+>")):
            found.append(
                (
                    (),
                    f": {'>>' if text.startswith('>>') else '>'} {_target(_word(target, language))}",
                )
            )
        return
    spec = _string(args[1], language) if len(args) == 2 else None
    if spec is None or spec[1]:
        return
    text = spec[0].strip()
    if text.endswith("|") or text.startswith("|"):
        found.append(((), text.strip("|").strip()))
    elif text.startswith((">", "+<", "+>")):
        path = text.lstrip(">+<").strip()
        found.append(
            ((), f": {'>>' if text.startswith('>>') else '>'} {_target(Word(path, path))}")
        )


def _action(kind: str, args: list[str], language: str, found: Found, depth: int = 0) -> None:
    if not args:
        return
    if _special(kind, args, language, found, depth):
        return
    if kind in _DELETE:
        words = tuple(Word(w, w) for w in _DELETE[kind])
        found.extend((words + (_word(arg, language),), None) for arg in args[:1])
        return
    array = _array(args[-1] if kind == "argv" else args[0], language)
    if kind == "argv":
        found.append(((_word(args[0], language),) + (array or ()), None))
        return
    strings = [a for a in args if _string(a, language) is not None]
    first = _string(args[0], language)
    if array is not None:
        found.append((array, None))
    elif first is not None and len(strings) == 1:
        found.append(((), _shell_text(first[0], language)))
    elif first is not None:
        found.append((tuple(_word(a, language) for a in strings), None))
    else:
        found.append(((Word(args[0], None),), None))


def _backticks(code: str) -> list[tuple[int, str]]:
    bodies: list[tuple[int, str]] = []
    i = 0
    while i < len(code):
        ch = code[i]
        if ch == "`":
            end = code.find("`", i + 1)
            if end < 0:
                break
            bodies.append((i, code[i + 1 : end]))
            i = end + 1
        elif ch in "'\"":
            i = _skip_quoted(code, i)
        else:
            match = _QUOTE_OPERATOR.match(code, i)
            if match is None:
                i += 1
                continue
            opener = match.group(1)
            closer = _CLOSERS.get(opener, opener)
            end = code.find(closer, match.end())
            if end < 0:
                break
            bodies.append((i, code[match.end() : end]))
            i = end + 1
    return bodies
