"""What a literal writer prints: `echo ...`, `printf FMT ARGS`, `cat <<EOF` (and `<<<`).

Used wherever printed text becomes code or a file's content: a script piped into a shell, a
file written earlier on the line and then run, a line appended to a shell startup file.
"""

from __future__ import annotations

from interlock.shell.model import Redirect, Word


def _printf(fmt: str, args: list[str]) -> str | None:
    """printf FMT ARGS for the formats a script writer uses (%s, %b, %%); None otherwise."""
    out: list[str] = []
    pending = list(args)
    while True:
        i = 0
        while i < len(fmt):
            if fmt[i] == "%" and i + 1 < len(fmt):
                spec = fmt[i + 1]
                if spec == "%":
                    out.append("%")
                elif spec in "sb":
                    out.append(pending.pop(0) if pending else "")
                else:
                    return None
                i += 2
                continue
            out.append(fmt[i])
            i += 1
        if not pending or "%" not in fmt:
            break
    return "".join(out).replace("\\n", "\n").replace("\\t", "\t")


def literal_output(words: tuple[Word, ...], redirects: tuple[Redirect, ...]) -> str | None:
    """The text a literal writer prints: `echo ...`, `printf FMT ARGS`, `cat <<EOF ... EOF`
    (also `cat <<< TEXT`); None when it is not one of those or any word is not literal."""
    if not words:
        return None
    values = [w.literal() for w in words]
    if any(v is None for v in values):
        return None
    name, args = values[0] or "", [v or "" for v in values[1:]]
    if name == "echo":
        newline = "\n"
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            newline = "" if "n" in args[0] else newline
            args = args[1:]
        return " ".join(args) + newline
    if name == "printf" and args:
        return _printf(args[0], args[1:])
    if name == "cat" and not args:
        bodies = [r.heredoc for r in redirects if r.heredoc is not None]
        for r in redirects:
            if r.op == "<<<" and r.target is not None and (text := r.target.literal()) is not None:
                bodies.append(text + "\n")
        return bodies[0] if len(bodies) == 1 else None
    return None
