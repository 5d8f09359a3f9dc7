"""Inline interpreter code: shell-outs and deletions inside `python -c`, `node -e`, `perl -e`...

`inline_code(words, stdin)` recognises an interpreter running code given on its command line
(or fed by a heredoc / here-string) and scans that code for what it would do to the machine:
- shell-outs (`os.system('...')`, `subprocess.run([...])`, `child_process.execSync`,
  perl/ruby `system`/backticks/`%x()`, php `shell_exec`...) become a Script (a command line to
  parse) or an argv (a list of words);
- deletions (`shutil.rmtree(P)`, `os.remove(P)`, `Path(P).unlink()`, `fs.rmSync(P)`,
  `rimraf`, perl `unlink`/`rmtree`, ruby `FileUtils.rm_rf`, php `unlink`...) become argv
  like (`rm`, `-rf`, P). A path that is not a literal string is a Word with value None.
Python is read with `ast` when it parses (so `import shutil as sh; sh.rmtree(p)` is seen),
else, and for the other languages, with regular expressions. It is best effort: the walker
marks what comes from here as degraded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from interlock.engine.inline.textscan import regex_actions
from interlock.engine.unwrap import command_name, template
from interlock.shell.model import Word

_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")


@dataclass(frozen=True)
class Action:
    """One effect found in code: `argv` (words of a command) or `script` (a shell command
    line, e.g. the string given to os.system)."""

    argv: tuple[Word, ...] = ()
    script: str | None = None


@dataclass(frozen=True)
class InlineCode:
    """Code an interpreter runs from its command line: language, via (`python -c`), the code
    (None when it is not a literal: unknown) and what scanning it found."""

    language: str
    via: str
    code: str | None
    actions: tuple[Action, ...]


def inline_code(words: tuple[Word, ...], stdin: str | None = None) -> InlineCode | None:
    """Scan the code of `python -c CODE`, `node -e CODE`, ... (None when words are not that)."""
    name = command_name(words[0]) if words else None
    if name is None:
        return None
    if _PYTHON.match(name):
        found = _python_code(words, stdin)
        language = "python"
    elif name in ("node", "nodejs", "bun", "deno"):
        found = _flag_code(words, stdin, ("-e", "--eval", "-p", "--print", "eval"), "erC", "node")
        language = "node"
    elif name == "perl":
        found = _flag_code(words, stdin, ("-e", "-E"), "eEiIMmlx0CdD", "perl")
        language = "perl"
    elif name == "ruby":
        found = _flag_code(words, stdin, ("-e",), "eIrCEFKTWxX", "ruby")
        language = "ruby"
    elif name.startswith("php"):
        # -B, -R and -E run code before, for and after each line of stdin, as -r runs it once
        found = _flag_code(words, stdin, ("-r", "-B", "-R", "-E"), _PHP_VALUE, "php")
        language = "php"
    elif name in ("lua", "luajit") or re.match(r"^lua[0-9.]+$", name):
        found = _flag_code(words, stdin, ("-e",), "elW", "lua")
        language = "lua"
    elif name in ("rscript", "r"):
        found = _flag_code(words, stdin, ("-e", "--expr"), "e", "r")
        language = "r"
    else:
        return _other(name, words, stdin)
    if found is None:
        return None
    flag, code = found
    via = f"{name} {flag}"
    if code is None:
        return InlineCode(language, via, None, (Action(argv=(UNREADABLE,)),))
    text, literal = code
    return InlineCode(language, via, text if literal else None, scan_code(language, text, literal))


UNREADABLE = Word("<inline code interlock cannot read>", None)


# The interpreters inline/others.py reads: it is imported for them only (a cold check would
# spend about a millisecond on it for every line; tests/engine/test_inline.py keeps the two
# lists the same).
OTHER_NAMES = frozenset(
    "julia emacs tclsh wish groovy scala kotlin kotlinc guile racket sbcl clisp clojure clj bb "
    "elixir erl".split()
)


def _other(name: str, words: tuple[Word, ...], stdin: str | None) -> InlineCode | None:
    """A language interlock does not read (others.py): its code is unknown code when it names
    a way to touch files or run programs, and does nothing interlock judges otherwise."""
    if re.sub(r"[0-9.]+$", "", name) not in OTHER_NAMES:
        return None
    from interlock.engine.inline.others import other_code

    found = other_code(name, words, stdin)
    if found is None:
        return None
    actions = (Action(argv=(UNREADABLE,)),) if found.unknown else ()
    return InlineCode(found.language, found.via, found.code, actions)


# php's short options that take a value, attached or the next word (getopt's `-d k=v`, `-dk=v`).
_PHP_VALUE = "rBREcdzfFtS"
# Per language: the short options whose value, when not attached, is the next word (`perl -I
# lib -e CODE`, `ruby -r json -e CODE`, `php -d k=v -r CODE`, `lua -l mod -e CODE`), and the
# long ones that take the next word (`node --require ./env.js -e CODE`, as engine.hidden reads
# them). Other value letters take only an attached value (`perl -Mstrict`, `-i.bak`).
_SEPARATE: dict[str, tuple[str, tuple[str, ...]]] = {
    "node": (
        "rC",
        (
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "--conditions",
            "--input-type",
            "--env-file",
            "--inspect-port",
            "--disable-warning",
            "--redirect-warnings",
            "--title",
        ),
    ),
    "perl": ("I", ()),
    "ruby": ("IrCEX", ("--encoding", "--external-encoding", "--internal-encoding")),
    "php": (_PHP_VALUE, ()),
    "lua": ("l", ()),
    "r": ("", ()),
}
# Words that give Python code a way to touch files or run programs: code that does not parse
# but mentions one of them cannot be read, so it is unknown code, not harmless.
_CAPABLE = re.compile(
    r"\b(subprocess|shutil|pty|ctypes|__import__|importlib|exec|eval|compile|getattr|pexpect)\b"
    r"|\bos\.(system|popen|remove|unlink|rmdir|removedirs|renames?|replace|exec\w*|spawn\w*|"
    r"kill|truncate|chmod|symlink|link|open)\b"
    r"|\bopen\s*\([^)]*['\"][rwax]*[wax+]"
    r"|\.(write_text|write_bytes|unlink|rmdir)\s*\("
)


def scan_code(language: str, code: str, literal: bool = True) -> tuple[Action, ...]:
    """The shell-outs, writes and deletions in code (see the module docstring). Python code
    built with shell expansions (`python -c "...$F..."`) is read as written when it parses,
    its expansions unknown; any other code that cannot be read is one unknown action."""
    if language == "python":
        from interlock.engine.inline.python import python_actions

        found = python_actions(code)
        if found is not None:
            return tuple(Action(argv, script) for argv, script in found)
    if not literal:
        # Python's parser tells a shell expansion inside a string from one in code position;
        # for the pattern-read languages an expansion may be code, so the code is unreadable
        return (Action(argv=(UNREADABLE,)),)
    actions = tuple(Action(argv, script) for argv, script in regex_actions(language, code))
    if language == "python" and not actions and _CAPABLE.search(code):
        return (Action(argv=(UNREADABLE,)),)
    return actions


Code = tuple[str, bool]  # (text, literal): a non-literal word gives its template text


def _code_of(word: Word | None) -> Code:
    if word is None:
        return "", True
    value = word.literal()
    return (value, True) if value is not None else (template(word), False)


def _python_code(words: tuple[Word, ...], stdin: str | None) -> tuple[str, Code | None] | None:
    i = 1
    while i < len(words):
        v = words[i].literal()
        if v is None or not v.startswith("-") or v == "-":
            break
        if v == "--":
            i += 1
            break
        letters = v[1:]
        for j, ch in enumerate(letters):
            if ch == "c":
                if letters[j + 1 :]:
                    return "-c", (letters[j + 1 :], True)
                return "-c", _code_of(words[i + 1] if i + 1 < len(words) else None)
            if ch == "m":
                return None  # `python -m module`: runs a module, not inline code
            if ch in "WX":
                i += 0 if letters[j + 1 :] else 1
                break
        i += 1
    rest = words[i:]
    if (not rest or rest[0].literal() == "-") and stdin is not None:
        return "<<", (stdin, True)
    return None


def _flag_code(
    words: tuple[Word, ...],
    stdin: str | None,
    flags: tuple[str, ...],
    with_value: str,
    language: str,
) -> tuple[str, Code | None] | None:
    """`-e CODE` style: flags that take code; with_value lists short letters taking a value
    (the code flags among them), so `perl -lne CODE` and `ruby -rjson -e CODE` are read; an
    option's value given as the next word (_SEPARATE) is skipped, never read as the script."""
    separate, long_value = _SEPARATE[language]
    chunks: list[str] = []
    flag_used = ""
    unknown = False
    i = 1
    while i < len(words):
        v = words[i].literal()
        if v is None:
            break
        if v in flags or v.startswith("--eval=") or v.startswith("--print="):
            if "=" in v:
                chunks.append(v.split("=", 1)[1])
            elif i + 1 < len(words):
                text, literal = _code_of(words[i + 1])
                unknown |= not literal
                chunks.append(text)
                i += 1
            flag_used = flag_used or v.split("=", 1)[0]
        elif v in long_value:
            i += 1
        elif v.startswith("-") and len(v) > 1 and not v.startswith("--") and with_value:
            for j, ch in enumerate(v[1:], start=1):
                if ch not in with_value or (
                    language == "perl" and ch in "l0" and not v[j + 1 : j + 2].isdigit()
                ):
                    continue  # perl's -l and -0 take only digits: `-lne` is -l -n -e
                if "-" + ch in flags:
                    if v[j + 1 :]:
                        text, literal = v[j + 1 :], True
                    else:
                        text, literal = _code_of(words[i + 1] if i + 1 < len(words) else None)
                        i += 1
                    unknown |= not literal
                    chunks.append(text)
                    flag_used = flag_used or "-" + ch
                elif ch in separate and not v[j + 1 :]:
                    i += 1  # `-I lib`: the next word is the option's value
                break
        elif not v.startswith("-") or v == "-":
            break
        i += 1
    if flag_used:
        return flag_used, ("\n".join(chunks), not unknown)
    rest = words[i:]
    if (not rest or rest[0].literal() == "-") and stdin is not None:
        return "<<", (stdin, True)
    return None
