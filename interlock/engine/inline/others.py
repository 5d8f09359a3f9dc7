"""Inline code in languages interlock does not read: julia, emacs lisp, tcl, groovy, scala,
kotlin, the lisps (guile, racket, sbcl, clisp, clojure, babashka), elixir and erlang.

Their code is not parsed. Code that names a way to touch files or run programs (a deletion, a
write, a shell-out, an eval) is unknown code, judged as interlock judges any code it cannot
read; code that names none (`julia -e 'using Pkg; Pkg.test()'`, `elixir -e 'IO.puts 1'`) runs
with no finding. A code option is looked for anywhere on the line (`emacs --batch -l x.el
--eval CODE`), which errs toward reading too much, never too little.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from interlock.shell.model import Word

# s-expressions: emacs lisp, scheme, common lisp, clojure (`(require 'ert)`, `(load "x.el")`
# run the project's own code, as `julia test/runtests.jl` does: not named here)
_LISP = (
    r"\((?:[\w.-]+[:/])*(?:delete-file|delete-directory|delete-file-recursively|rename-file|"
    r"copy-file|copy-directory|delete-directory/files|make-symbolic-link|set-file-modes|write-region|write-file|"
    r"save-buffer|append-to-file|with-temp-file|shell-command[\w-]*|call-process[\w-]*|"
    r"start-process[\w-]*|make-process|process-file|run-program|system\*?|process\*?|sh|"
    r"spit|delete-tree|delete-directory-and-files|with-output-to-file|open-output-file|"
    r"call-with-output-file|open|eval|funcall|apply)(?=[\s)])"
)
# the JVM languages: java.io/java.nio, groovy's GDK, scala.sys.process
_JVM = (
    r"\.(?:delete|deleteDir|deleteOnExit|deleteRecursively|renameTo|execute)\b"
    r"|\.(?:write|append|setText|setBytes|withWriter|newWriter|setWritable|setExecutable|"
    r"writeText|writeBytes|appendText)\s*\("
    r"|\.text\s*=|\bFiles\s*\.\s*\w+|\bRuntime\b|\bProcessBuilder\b|\bProcess\b"
    r"|\bsys\.process\b|\.!|\bFileUtils\b|\bFileWriter\b|\bFileOutputStream\b|\bPrintWriter\b"
    r"|\bGroovyShell\b|\bEval\b|\bevaluate\s*\(|\bClass\.forName\b|\bgetMethod\b|\binvoke\w*\b"
)
_CAPABLE = {
    "julia": (
        r"`|\b(?:rm|mv|cp|run|pipeline|write|touch|chmod|symlink|hardlink|success|readchomp|"
        r"ccall|eval|include_string|@eval)\b|\bMeta\.parse\b|\bopen\s*\([^)]*,\s*\"[wa+]"
    ),
    "emacs lisp": _LISP,
    "tcl": (
        r"\b(?:exec|eval|uplevel|interp|file\s+(?:delete|rename|copy|link|attributes))\b"
        r"|\bopen\s+\S+\s+[\"{]?[wa]"
    ),
    "jvm": _JVM,
    "lisp": _LISP,
    "elixir": (
        r"\bFile\.(?:rm|rm_rf|rmdir|write|rename|cp|cp_r|ln|ln_s|chmod|touch|open|stream)"
        r"|\bSystem\.(?:cmd|shell)|\bPort\.open|\bCode\.(?:eval|require|compile)\w*"
        r"|\bMix\.Shell|:(?:os|file|erlang)\.|\bapply\s*\("
    ),
    "erlang": (r"\b(?:os|file|filelib|erlang|code|c|compile)\s*:|\b(?:open_port|apply|spawn)\s*\("),
}


@dataclass(frozen=True)
class Other:
    """An interpreter: the language family it is read as, the options whose value is code
    (also written `--flag=CODE`), and whether it reads code from stdin when given none."""

    language: str
    flags: tuple[str, ...]
    stdin: bool


_OTHERS: dict[str, Other] = {
    "julia": Other("julia", ("-e", "--eval", "-E", "--print"), True),
    "emacs": Other("emacs lisp", ("--eval", "-eval"), False),
    "tclsh": Other("tcl", (), True),
    "wish": Other("tcl", (), True),
    "groovy": Other("jvm", ("-e",), False),
    "scala": Other("jvm", ("-e",), False),
    "kotlin": Other("jvm", ("-e",), False),
    "kotlinc": Other("jvm", ("-e", "-expression"), False),
    "guile": Other("lisp", ("-c",), True),
    "racket": Other("lisp", ("-e", "--eval"), False),
    "sbcl": Other("lisp", ("--eval",), True),
    "clisp": Other("lisp", ("-x",), True),
    "clojure": Other("lisp", ("-e", "--eval"), False),
    "clj": Other("lisp", ("-e", "--eval"), False),
    "bb": Other("lisp", ("-e", "--eval"), False),
    "elixir": Other("elixir", ("-e", "--eval"), False),
    "erl": Other("erlang", ("-eval",), False),
}


@dataclass(frozen=True)
class OtherCode:
    """What `other_code` found: the language family, how the code was given (`julia -e`,
    `tclsh <<`), the code (None when a word of it is known only at run time) and whether it
    must be judged as unknown code."""

    language: str
    via: str
    code: str | None
    unknown: bool


def other_code(name: str, words: tuple[Word, ...], stdin: str | None) -> OtherCode | None:
    """The inline code of `words` (whose command is `name`) when it is an interpreter of a
    language interlock does not read; None when it is not one or runs no inline code."""
    found = _OTHERS.get(re.sub(r"[0-9.]+$", "", name))
    if found is None:
        return None
    chunks: list[str] = []
    flag, known = "", True
    for i, word in enumerate(words[1:], start=1):
        value = word.literal()
        if value is None:
            continue
        option, eq, attached = value.partition("=")
        if eq and option in found.flags and option.startswith("--"):
            chunks.append(attached)
        elif value in found.flags and i + 1 < len(words):
            code = words[i + 1].literal()
            known &= code is not None
            chunks.append(code or "")
        else:
            continue
        flag = flag or option
    if flag:
        return _judged(found, f"{name} {flag}", "\n".join(chunks) if known else None)
    rest = [w for w in words[1:] if not (w.literal() or "").startswith("-") or w.literal() == "-"]
    if found.stdin and stdin is not None and (not rest or rest[0].literal() == "-"):
        return _judged(found, f"{name} <<", stdin)
    return None


@functools.cache
def _capable(language: str) -> re.Pattern[str]:
    """Compiled when a line first runs such code: every other check is spared the work."""
    return re.compile(_CAPABLE[language])


def _judged(found: Other, via: str, code: str | None) -> OtherCode:
    unknown = code is None or _capable(found.language).search(code) is not None
    return OtherCode(found.language, via, code, unknown)
