"""Regular-expression scan of inline code (node, perl, ruby, php, unparsable python)."""

from __future__ import annotations

import re

from interlock.shell.model import Word

Found = list[tuple[tuple[Word, ...], str | None]]

_CALL = r"\s*(?=\()"
_PATTERNS: dict[str, list[tuple[str, str]]] = {
    "python": [
        (
            r"\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|"
            r"getoutput|getstatusoutput))" + _CALL,
            "shell",
        ),
        (r"\bshutil\.rmtree" + _CALL, "rmrf"),
        (r"\bos\.(?:remove|unlink)" + _CALL, "rm"),
        (r"\bos\.(?:rmdir|removedirs)" + _CALL, "rmdir"),
    ],
    "node": [
        (
            r"(?:\b(?:child_process|childProcess|cp)\.exec(?:Sync)?|(?<=\))\.exec|(?<![.\w])exec|"
            r"\bexecSync)" + _CALL,
            "shell",
        ),
        (r"\b(?:spawn|spawnSync|execFile|execFileSync)" + _CALL, "argv"),
        (
            r"(?:\b(?:fs|fsp|fse|fsExtra)(?:\.promises)?\.|(?<=\))\.)(?:rm|rmdir|remove|emptyDir)"
            + _CALL,
            "rmrf",
        ),
        (r"\b(?:rmSync|rmdirSync|removeSync|emptyDirSync|rimraf(?:\.sync)?)" + _CALL, "rmrf"),
        (r"(?:\b(?:fs|fsp)(?:\.promises)?\.|(?<=\))\.)unlink" + _CALL, "rm"),
        (r"\bunlinkSync" + _CALL, "rm"),
    ],
    "perl": [
        (r"\b(?:system|exec)\b", "shell"),
        (r"\bunlink\b", "rm"),
        (r"\b(?:rmtree|remove_tree)\b", "rmrf"),
        (r"\brmdir\b", "rmdir"),
    ],
    "ruby": [
        (r"\b(?:system|exec|spawn|IO\.popen|Open3\.\w+)\b", "shell"),
        (
            r"\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)\b",
            "rmrf",
        ),
        (r"\b(?:FileUtils\.(?:rm|rm_f|remove)|File\.(?:delete|unlink))\b", "rm"),
        (r"\b(?:Dir|FileUtils)\.(?:rmdir|delete|unlink)\b", "rmdir"),
    ],
    "php": [
        (r"\b(?:shell_exec|system|exec|passthru|popen|proc_open)" + _CALL, "shell"),
        (r"\bunlink" + _CALL, "rm"),
        (r"\brmdir" + _CALL, "rmdir"),
    ],
}
_DELETE = {"rm": ("rm",), "rmrf": ("rm", "-rf"), "rmdir": ("rmdir",)}
_QUOTE_OPERATOR = re.compile(r"(?:\bqx|%x)\s*([^\w\s])")
_CLOSERS = {"(": ")", "{": "}", "[": "]", "<": ">"}
_INTERPOLATION = re.compile(r"#\{[^}]*\}")


def regex_actions(language: str, code: str) -> Found:
    """Shell-outs and deletions found by pattern; see interpreters.py."""
    located: list[tuple[int, tuple[Word, ...], str | None]] = []
    for pattern, kind in _PATTERNS.get(language, []):
        for match in re.finditer(pattern, code):
            args = _arguments(code, match.end())
            if args is not None:
                found: Found = []
                _action(kind, args, language, found)
                located.extend((match.start(), argv, script) for argv, script in found)
    if language in ("perl", "ruby", "php"):
        for at, body in _backticks(code):
            located.append((at, (), _shell_text(body, language)))
    located.sort(key=lambda item: item[0])
    return [(argv, script) for _, argv, script in located]


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


def _action(kind: str, args: list[str], language: str, found: Found) -> None:
    if not args:
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
