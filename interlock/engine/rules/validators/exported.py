"""Variables a line exports before it runs a validator: `export MAKEFLAGS=-i; make test`,
`declare -x UPDATE_GOLDEN=1 && go test ./...`, `set -a; PYTEST_ADDOPTS='-k "not x"'; pytest`.

Runners read their environment (MAKEFLAGS, PYTEST_ADDOPTS, INSTA_UPDATE, UPDATE_GOLDEN...), so a
validator is judged with the variables exported earlier on the same line as if they were
written before it. Subshell scoping is not followed: a variable exported inside `( )` is taken
to reach later commands too, which can only flag more.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from interlock.engine.invocation import Invocation
from interlock.shell.model import Word

_EXPORTERS = frozenset(("export", "declare", "typeset", "local", "readonly"))


def _name(word: Word) -> str | None:
    lit = word.literal()
    text = lit if lit is not None else word.text
    name, _, _ = text.partition("=")
    return name if name.replace("_", "a").isalnum() and not name[:1].isdigit() else None


class _Environment:
    def __init__(self) -> None:
        self.exported: dict[str, Word] = {}
        self.plain: dict[str, Word] = {}
        self.all_export = False

    def words(self) -> tuple[Word, ...]:
        return tuple(self.exported.values())

    def see(self, inv: Invocation) -> None:
        name, args = inv.name, inv.argv[1:]
        if not inv.argv:  # `NAME=value` alone: a shell variable, exported under `set -a`
            for word in inv.assignments:
                key = _name(word)
                if key is not None:
                    (self.exported if self.all_export else self.plain)[key] = word
        elif name == "set":
            self.set_options(args)
        elif name in _EXPORTERS:
            self.export(name, args)
        elif name == "unset":
            for word in args:
                self.exported.pop(word.literal() or "", None)

    def set_options(self, args: tuple[Word, ...]) -> None:
        """`set -a` / `set -o allexport` export every variable assigned after; `+` undoes it."""
        for k, word in enumerate(args):
            flag = word.literal() or ""
            if flag in ("-o", "+o") and k + 1 < len(args) and args[k + 1].literal() == "allexport":
                self.all_export = flag == "-o"
            elif flag.startswith(("-", "+")) and "a" in flag[1:]:
                self.all_export = flag.startswith("-")

    def export(self, name: str, args: tuple[Word, ...]) -> None:
        flags = "".join((w.literal() or "")[1:] for w in args if (w.literal() or "")[:1] == "-")
        if name != "export" and "x" not in flags:
            return  # `declare NAME=v` without -x: a shell variable
        for word in args:
            key = _name(word)  # None for an option (`-x`) too
            if key is None:
                continue
            if "=" in (word.literal() or word.text):
                self.exported[key] = word
            elif key in self.plain:
                self.exported[key] = self.plain[key]


def with_line_environment(
    invocations: Iterable[Invocation],
) -> Iterator[tuple[Invocation, Invocation]]:
    """Each invocation, and the same invocation with the variables exported before it on the
    line added to its assignments (its own assignments first, so they win)."""
    env = _Environment()
    for inv in invocations:
        extra = env.words()
        yield inv, (replace(inv, assignments=inv.assignments + extra) if extra else inv)
        env.see(inv)
