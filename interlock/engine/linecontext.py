"""What a command line itself defines, for the commands later on it: `LineContext`.

Files written with their content (None when a program wrote it, `echo ... > x.sh` gives the
text), programs copied under another name (`cp /usr/bin/git ./g`), shell aliases, git aliases
set by `git config` or GIT_CONFIG_* assignments, the text piped into each command and the
commands before it in its pipeline, and a lazy reader of the repository's own git aliases (a
tree fact the caller supplies). `HiddenCode` is a command line one command runs for another
(engine.hidden finds them; the analysis judges them).
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from interlock.engine.invocation import Invocation
from interlock.engine.literal import literal_output
from interlock.engine.rules.args import known_path
from interlock.engine.rules.git.config import config_writes, env_pairs
from interlock.engine.rules.git.invocation import parse_git
from interlock.engine.rules.writes import touched_paths
from interlock.engine.unknowncode import pipe_feeders
from interlock.shell.lex import is_assignment_text
from interlock.shell.model import Node, Word

AliasLookup = Callable[[str | None], Mapping[str, str]]
STDIN_PATHS = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"))
SETTERS = frozenset(("export", "declare", "typeset", "readonly", "local", "env"))
PIPED = "the command piped into it"
_WRITE_OPS = frozenset((">", ">>", ">|", "&>", "&>>"))
_DOWNLOADERS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}
_WRITERS = frozenset(("tee", "cp", "install", "curl", "wget", "mv", "dd", "ln", "rsync"))


@dataclass(frozen=True)
class HiddenCode:
    """A command line run by something else: `text` (None when only known at run time), what
    runs it (`origin`, for messages), where it runs (relative to the line's start) and the
    rule an unknown one is reported under."""

    text: str | None
    origin: str
    cwd: str | None
    rule: str = "parse.unknown-code"


@dataclass
class LineContext:
    """What a command line itself defines, for the commands later on it (module docstring)."""

    files: dict[str, str | None] = field(default_factory=dict)
    names: dict[str, str | None] = field(default_factory=dict)
    programs: dict[str, str] = field(default_factory=dict)  # path key -> program copied there
    shell_aliases: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, list[str | None]] = field(default_factory=dict)
    fed: Mapping[int, str | None] = field(default_factory=dict)
    root: Node | None = None
    tree_aliases: AliasLookup | None = None
    _feeders: dict[int, tuple[Node, ...]] | None = None
    _tree_cache: dict[str | None, Mapping[str, str]] = field(default_factory=dict)

    def tree_alias(self, cwd: str | None, name: str) -> str | None:
        if self.tree_aliases is None:
            return None
        if cwd not in self._tree_cache:
            self._tree_cache[cwd] = self.tree_aliases(cwd)
        return self._tree_cache[cwd].get(name.lower())

    def feeders(self, inv: Invocation) -> tuple[Node, ...]:
        """The commands piped into this invocation's simple command (read once per line)."""
        if self.root is None or inv.source is None:
            return ()
        if self._feeders is None:
            self._feeders = pipe_feeders(self.root)
        return self._feeders.get(id(inv.source), ())

    def file(self, cwd: str | None, path: str) -> tuple[bool, str | None]:
        """(written on this line, content) for a path as seen from cwd."""
        key = path_key(cwd, path)
        if key is not None and key in self.files:
            return True, self.files[key]
        name = posixpath.basename(path)
        if (key is None or cwd is None) and name in self.names:
            return True, self.names[name]
        return False, None


def path_key(cwd: str | None, path: str) -> str | None:
    if path.startswith("/"):
        return posixpath.normpath(path)
    if cwd is None:
        return None
    return posixpath.normpath(posixpath.join(cwd or ".", path))


# -- the line's own definitions ------------------------------------------------------------


def assignments(inv: Invocation) -> list[Word]:
    words = list(inv.assignments)
    if inv.name in SETTERS:
        words += [w for w in inv.argv[1:] if is_assignment_text(w.literal() or w.text)]
    return words


def written(inv: Invocation, line: LineContext) -> list[tuple[Word, str | None, bool]]:
    """(path word, content or None, appends) for each file this invocation writes."""
    printed = literal_output(inv.argv, inv.redirects)
    found: list[tuple[Word, str | None, bool]] = []
    for r in inv.redirects:
        if r.op in _WRITE_OPS and r.target is not None and r.heredoc is None:
            found.append((r.target, printed, r.op.endswith(">>")))
    name = inv.name
    if name == "tee":
        fed = stdin_text(inv, line)
        files = [w for w in inv.argv[1:] if not (w.literal() or "").startswith("-")]
        appends = any(w.literal() in ("-a", "--append") for w in inv.argv[1:])
        found += [(w, fed[1] if fed else None, appends) for w in files]
    elif name in ("cp", "install") and len(inv.argv) >= 3:
        source = known_path(inv.argv[-2])
        _, content = line.file(inv.cwd, source) if source is not None else (False, None)
        found.append((inv.argv[-1], content, False))
    elif name in _DOWNLOADERS:
        flags = _DOWNLOADERS[name]
        for k, word in enumerate(inv.argv[:-1]):
            if word.literal() in flags:
                found.append((inv.argv[k + 1], None, False))
    seen = {id(w) for w, _, _ in found}
    for touch in touched_paths(inv):
        if touch.verb == "write" and id(touch.word) not in seen:
            found.append((touch.word, None, False))
    return found


def build_line(
    invocations: Iterable[Invocation],
    fed: Mapping[int, str | None],
    tree_aliases: AliasLookup | None = None,
    inherited: LineContext | None = None,
    root: Node | None = None,
) -> LineContext:
    """The files, aliases and piped text a command line defines (see LineContext)."""
    line = LineContext(fed=fed, tree_aliases=tree_aliases, root=root)
    if inherited is not None:
        line.files.update(inherited.files)
        line.names.update(inherited.names)
        line._tree_cache = inherited._tree_cache
    for inv in invocations:
        for key, value in env_pairs(assignments(inv)):
            if key.startswith("alias."):
                line.aliases.setdefault(key[len("alias.") :], []).append(value)
        call = parse_git(inv)
        if call is not None and call.sub == "config":
            for key, value in config_writes(call.args):
                if key.startswith("alias."):
                    line.aliases.setdefault(key[len("alias.") :], []).append(value)
        if inv.redirects or inv.name in _WRITERS:
            _record_writes(inv, line)
        if inv.name in ("cp", "ln", "install"):
            _record_copy(inv, line)
        elif inv.name == "alias":
            for word in inv.argv[1:]:
                name, eq, value = (word.literal() or "").partition("=")
                if eq and name:
                    line.shell_aliases[name] = value
    return line


def _program_of(word: Word) -> str | None:
    """The program a copy's source names: `/usr/bin/git`, `$(which git)`, `$(command -v git)`."""
    value = word.literal()
    if value is not None:
        return posixpath.basename(value) if "/" in value else None
    for node in word.substitutions:
        words = getattr(node, "words", ())
        texts = [w.literal() for w in words]
        if len(texts) >= 2 and texts[0] in ("which", "command", "type") and texts[-1]:
            return posixpath.basename(texts[-1])
    return None


def _record_copy(inv: Invocation, line: LineContext) -> None:
    """`cp /usr/bin/git ./g`, `ln -s $(which git) /tmp/g`: the copy runs as that program."""
    operands = [w for w in inv.argv[1:] if not (w.literal() or "x").startswith("-")]
    if len(operands) != 2:
        return
    program, target = _program_of(operands[0]), known_path(operands[1])
    if program is not None and target is not None:
        key = path_key(inv.cwd, target)
        line.programs[key if key is not None else posixpath.basename(target)] = program


def _record_writes(inv: Invocation, line: LineContext) -> None:
    for word, content, appends in written(inv, line):
        path = known_path(word)
        if path is None:
            continue
        key = path_key(inv.cwd, path)
        if appends:
            _, before = line.file(inv.cwd, path)
            content = (
                None if before is None and content is None else (before or "") + (content or "")
            )
        if key is not None:
            line.files[key] = content
        line.names[posixpath.basename(path)] = content


# -- what one invocation runs ---------------------------------------------------------------


def stdin_text(inv: Invocation, line: LineContext) -> tuple[str, str | None] | None:
    """(where from, text or None) of what the invocation reads on stdin, if it is fed."""
    for r in reversed(inv.redirects):
        if r.fd not in (None, 0):
            continue
        if r.heredoc is not None:
            return "a here-document", r.heredoc
        if r.op == "<<<" and r.target is not None:
            return "a here-string", r.target.literal()
        if r.op == "<" and r.target is not None:
            return file_source(r.target, inv, line)
    if inv.source is not None and id(inv.source) in line.fed:
        return PIPED, line.fed[id(inv.source)]
    return None


def file_source(word: Word, inv: Invocation, line: LineContext) -> tuple[str, str | None] | None:
    """What a file operand holds when the line decides it: a process substitution's output,
    or a file written earlier on the line; None for a file on disk (not read)."""
    if word.literal() is None and word.text.startswith(("<(", ">(")) and word.substitutions:
        inner = word.substitutions[0]
        words = getattr(inner, "words", ())
        redirects = getattr(inner, "redirects", ())
        return f"the process substitution {word.text}", literal_output(words, redirects)
    path = known_path(word)
    if path is None:
        return None
    if path in STDIN_PATHS:
        return stdin_text(inv, line)
    written, content = line.file(inv.cwd, path)
    return (f"{path}, written earlier on this line", content) if written else None


def words_text(words: Iterable[Word]) -> str:
    parts = []
    for word in words:
        value = word.literal()
        parts.append(shlex.quote(value) if value is not None and value == word.text else word.text)
    return " ".join(parts)
