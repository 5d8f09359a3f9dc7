"""bashlex's tree turned into interlock's types (interlock.shell.model). bashlex is imported
here only.

`bashlex_parse()` reads a prepared text (see prep.py), guarding bashlex against the inputs it
loops on; `Converter` walks its nodes. Word values come from interlock's own scanner (lex.py),
so `$'a\\nb'`, `${X:-$(cmd)}` and other spots where bashlex is wrong or blind read the same
whichever parser built the tree. Substitution bodies are handed back to the caller's
`sub_parser`, which reads them with the same machinery.
"""

from __future__ import annotations

from typing import Any

from interlock.shell.fallback import SubParser, token_word
from interlock.shell.lex import find_subs, scan_word
from interlock.shell.model import (
    EMPTY,
    CommandList,
    Compound,
    Node,
    Pipeline,
    Redirect,
    SimpleCommand,
    Word,
)
from interlock.shell.prep import Mask, Prepared


def bashlex_parse(text: str) -> list[Any]:
    import bashlex

    _guard_bashlex()
    return list(bashlex.parse(text))


def _guard_bashlex() -> None:
    """bashlex 0.18 loops forever on a `${` with no `}` after it in the word it expands (even
    inside single quotes: `echo '${'`); make that a parse error, which we fall back from."""
    import bashlex.errors
    import bashlex.subst

    original = getattr(bashlex.subst, "_paramexpand", None)
    if original is None or getattr(original, "interlock_guard", False):
        return

    def guarded(parserobj: Any, string: str, sindex: int) -> Any:
        if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
            raise bashlex.errors.ParsingError("bad substitution: no closing `}`", string, sindex)
        return original(parserobj, string, sindex)

    guarded.interlock_guard = True  # type: ignore[attr-defined]
    bashlex.subst._paramexpand = guarded


class Converter:
    """bashlex nodes -> interlock's types, for one (masked) text."""

    def __init__(self, source: str, prepared: Prepared, sub_parser: SubParser) -> None:
        self.src = source
        self.masks = prepared.masks
        self.sub = sub_parser
        # The tokenizer already scanned every top-level word: reuse those scans (parse once).
        tokens = prepared.tokenizer.tokens if prepared.tokenizer is not None else ()
        self.scans = {t.start: t.scan for t in tokens if t.kind == "word" and t.scan is not None}

    def text(self, n: Any) -> str:
        return self.src[n.pos[0] : n.pos[1]]

    def top(self, trees: list[Any]) -> Node | None:
        nodes = [node for node in (self.node(t) for t in trees) if node is not None]
        if len(nodes) <= 1:
            return nodes[0] if nodes else None
        items: list[Node] = []
        ops: list[str] = []
        for node in nodes:
            if isinstance(node, CommandList) and node.items:
                items.extend(node.items)
                ops.extend(node.ops[:-1])
                ops.append(node.ops[-1] or ";")
            else:
                items.append(node)
                ops.append(";")
        return CommandList(tuple(items), tuple(ops), self.src)

    def node(self, n: Any) -> Node | None:
        kind = n.kind
        if kind == "list":
            return self.list(n)
        if kind == "pipeline":
            return self.pipeline(n)
        if kind == "command":
            return self.command(n)
        if kind == "compound":
            return self.compound(n)
        if kind == "function":
            body = self.node(n.body) or EMPTY
            return Compound("function", (body,), name=n.name.word, text=self.text(n))
        if kind in ("reservedword", "operator", "pipe"):
            return None
        raise ValueError(f"bashlex node kind {kind}")

    def list(self, n: Any) -> Node | None:
        items: list[Node] = []
        ops: list[str] = []
        for part in n.parts:
            if part.kind == "operator":
                if len(ops) < len(items):
                    ops.append(";" if part.op == "\n" else part.op)
                continue
            node = self.node(part)
            if node is None:
                continue
            if len(ops) < len(items):
                ops.append(";")
            items.append(node)
        ops.extend("" for _ in range(len(items) - len(ops)))
        if len(items) == 1 and ops[0] in ("", ";"):
            return items[0]
        return CommandList(tuple(items), tuple(ops), self.text(n)) if items else None

    def pipeline(self, n: Any) -> Node | None:
        negated = False
        commands: list[Node] = []
        stderr: list[bool] = []
        for part in n.parts:
            if part.kind == "reservedword" and part.word == "!":
                negated = not negated
            elif part.kind == "pipe":
                stderr.append(part.pipe == "|&")
            elif (node := self.node(part)) is not None:
                commands.append(node)
        if len(commands) == 1 and not negated:
            return commands[0]
        return Pipeline(tuple(commands), negated, self.text(n), tuple(stderr))

    def command(self, n: Any) -> Node:
        first = n.parts[0]
        mask = self.masks.get(first.pos[0]) if first.kind == "word" else None
        if mask is not None and mask.kind in ("cond", "arith"):
            return self.masked_compound(n, mask)
        assignments: list[Word] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        for part in n.parts:
            if part.kind == "assignment" and not words:
                assignments.append(self.word(part))
            elif part.kind in ("word", "assignment"):
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(self.redirect(part))
        return SimpleCommand(tuple(assignments), tuple(words), tuple(redirects), self.text(n))

    def masked_compound(self, n: Any, mask: Mask) -> Compound:
        words = tuple(token_word(mask.source, tok, self.sub) for tok in mask.tokens)
        redirects = tuple(self.redirect(p) for p in n.parts if p.kind == "redirect")
        kind = "arith" if mask.kind == "arith" else "cond"
        return Compound(kind, (), words, redirects, text=self.src[mask.start : mask.end])

    def word(self, n: Any) -> Word:
        start, end = n.pos
        scan = self.scans.get(start)
        if scan is None or scan.end != end:
            scan = scan_word(self.src, start, end)
        # bashlex also reports substitutions inside single quotes: only the scanner's count.
        found = {p.pos[0]: p for p in n.parts if p.kind.endswith("substitution")}
        nodes: list[Node] = []
        for sub in scan.subs:
            known = found.pop(sub.start, None)
            if known is not None and sub.kind != "backtick" and known.command is not None:
                node = self.node(known.command)
            else:
                body = sub.body(self.src)
                node = self.sub(body) if body.strip() else None
            if node is not None:
                nodes.append(node)
        return Word(self.src[start:end], scan.value, scan.has_glob, tuple(nodes))

    def redirect(self, n: Any) -> Redirect:
        output = n.output
        fd = n.input if isinstance(n.input, int) else None
        if isinstance(output, int) or isinstance(output, str):
            return Redirect(n.type, fd, Word(str(output), str(output)))
        mask = self.masks.get(output.pos[0])
        if mask is not None and mask.kind == "heredoc" and mask.doc is not None:
            return self.heredoc(fd, mask)
        return Redirect(n.type, fd, self.word(output))

    def heredoc(self, fd: int | None, mask: Mask) -> Redirect:
        doc = mask.doc
        assert doc is not None
        op = "<<-" if doc.strip_tabs else "<<"
        delimiter = self.src[mask.start - 1 + len(op) : mask.end].strip()
        nodes: list[Node] = []
        if not doc.quoted:
            body_end = doc.body_start + len(doc.body)
            for sub in find_subs(self.src, doc.body_start, body_end):
                body = sub.body(self.src)
                if body.strip() and (node := self.sub(body)) is not None:
                    nodes.append(node)
        target = Word(delimiter, doc.delimiter)
        return Redirect(op, fd, target, doc.body, doc.quoted, tuple(nodes))

    def compound(self, n: Any) -> Node:
        redirects = tuple(self.redirect(r) for r in n.redirects)
        first = n.list[0]
        if first.kind == "reservedword" and first.word in ("(", "{"):
            body = self.node(n.list[1]) if len(n.list) > 2 else None
            kind = "subshell" if first.word == "(" else "group"
            return Compound(kind, (body or EMPTY,), redirects=redirects, text=self.text(n))
        kind = first.kind
        parts: list[Node] = []
        words: list[Word] = []
        has_else = False
        seen_in = False
        for part in first.parts:
            if part.kind == "reservedword":
                has_else |= part.word == "else"
                seen_in |= part.word == "in"
            elif part.kind == "word":
                mask = self.masks.get(part.pos[0])
                if seen_in:
                    words.append(self.word(part))
                elif mask is not None and mask.kind == "arith":
                    words.append(self.masked_compound(part, mask).words[0])
            else:
                parts.append(self.node(part) or EMPTY)
        return Compound(kind, tuple(parts), tuple(words), redirects, has_else, text=self.text(n))
