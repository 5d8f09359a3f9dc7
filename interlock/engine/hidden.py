"""Code hidden in data: command lines a command runs that are not among its own words.

`hidden_code(inv, line)` lists them for one invocation; the analysis judges each literal one
like the same command line typed directly (its findings say what ran it) and reports one
whose text is only known at run time as unknown code. The sources:
- git: `!` aliases, aliases from config files and from earlier on the same line
  (`git config alias.x '...' && git x`), chains of them; keys and variables that name a
  program (`-c core.pager=...`, GIT_SSH_COMMAND, EDITOR, ...), also when `git config` writes
  them; `ext::` remotes; `--upload-pack`-style options (see rules/git/config.py);
- `trap 'BODY' SIGNAL`: the body runs later, on the signal or at exit;
- a shell, `source`/`.` or an interpreter (python, node, perl, ruby, php) given a script that
  is a process substitution (`bash <(curl ...)`), its stdin (`sh /dev/stdin`, `. /dev/fd/0`,
  `python -`, `< <(...)`, a pipe), or a file written earlier on the same line
  (`echo 'git reset --hard' > x.sh && sh x.sh`, `cat > t.py <<EOF ... && python t.py`).
`LineContext` holds what the line itself defines: files written with their content (None when
a program wrote it), aliases set by `git config` or GIT_CONFIG_* assignments, the text piped
into each command, and a lazy reader of the repository's own aliases (a tree fact).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from interlock.engine.invocation import Invocation
from interlock.engine.literal import literal_output
from interlock.engine.rules.args import known_path, parse_args, spec
from interlock.engine.rules.daemonkill import finder_reaches
from interlock.engine.rules.git.config import (
    PROGRAM_ENV,
    PROGRAM_OPTIONS,
    config_writes,
    env_code,
    env_pairs,
    ext_command,
    is_program_key,
    program_code,
)
from interlock.engine.rules.git.invocation import GIT_COMMANDS, GLOBAL_OPTS, GitCall, parse_git
from interlock.engine.rules.writes import touched_paths
from interlock.engine.unknowncode import pipe_feeders
from interlock.engine.unwrap import STDIN_SHELLS as SHELLS
from interlock.engine.unwrap import shell_script
from interlock.shell.lex import is_assignment_text
from interlock.shell.model import Node, SimpleCommand, Word

AliasLookup = Callable[[str | None], Mapping[str, str]]
STDIN_PATHS = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"))
_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
_INTERPRETERS = {"node": "node", "nodejs": "node", "perl": "perl", "ruby": "ruby", "php": "php"}
# Options that take a value, per interpreter, and the ones that give code (no script then).
_INTERP_VALUE = {"python": "WXQ", "node": "r", "perl": "IMmx", "ruby": "IrCEFKx", "php": "cdz"}
_INTERP_CODE = {"python": "cm", "node": "ep", "perl": "eE", "ruby": "e", "php": "r"}
_SETTERS = frozenset(("export", "declare", "typeset", "readonly", "local", "env"))
_WRITE_OPS = frozenset((">", ">>", ">|", "&>", "&>>"))
_DOWNLOADERS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}
_MAX_ALIAS_CHAIN = 8
_PIPED = "the command piped into it"


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
        key = _path_key(cwd, path)
        if key is not None and key in self.files:
            return True, self.files[key]
        name = posixpath.basename(path)
        if (key is None or cwd is None) and name in self.names:
            return True, self.names[name]
        return False, None


def _path_key(cwd: str | None, path: str) -> str | None:
    if path.startswith("/"):
        return posixpath.normpath(path)
    if cwd is None:
        return None
    return posixpath.normpath(posixpath.join(cwd or ".", path))


# -- the line's own definitions ------------------------------------------------------------


def _assignments(inv: Invocation) -> list[Word]:
    words = list(inv.assignments)
    if inv.name in _SETTERS:
        words += [w for w in inv.argv[1:] if is_assignment_text(w.literal() or w.text)]
    return words


def _written(inv: Invocation, line: LineContext) -> list[tuple[Word, str | None, bool]]:
    """(path word, content or None, appends) for each file this invocation writes."""
    printed = literal_output(inv.argv, inv.redirects)
    found: list[tuple[Word, str | None, bool]] = []
    for r in inv.redirects:
        if r.op in _WRITE_OPS and r.target is not None and r.heredoc is None:
            found.append((r.target, printed, r.op.endswith(">>")))
    name = inv.name
    if name == "tee":
        fed = _stdin_text(inv, line)
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
        for key, value in env_pairs(_assignments(inv)):
            if key.startswith("alias."):
                line.aliases.setdefault(key[len("alias.") :], []).append(value)
        call = parse_git(inv)
        if call is not None and call.sub == "config":
            for key, value in config_writes(call.args):
                if key.startswith("alias."):
                    line.aliases.setdefault(key[len("alias.") :], []).append(value)
        if inv.redirects or inv.name in ("tee", "cp", "install", "curl", "wget", "mv", "dd"):
            _record_writes(inv, line)
    return line


def _record_writes(inv: Invocation, line: LineContext) -> None:
    for word, content, appends in _written(inv, line):
        path = known_path(word)
        if path is None:
            continue
        key = _path_key(inv.cwd, path)
        if appends:
            _, before = line.file(inv.cwd, path)
            content = (
                None if before is None and content is None else (before or "") + (content or "")
            )
        if key is not None:
            line.files[key] = content
        line.names[posixpath.basename(path)] = content


# -- what one invocation runs ---------------------------------------------------------------


def _stdin_text(inv: Invocation, line: LineContext) -> tuple[str, str | None] | None:
    """(where from, text or None) of what the invocation reads on stdin, if it is fed."""
    for r in reversed(inv.redirects):
        if r.fd not in (None, 0):
            continue
        if r.heredoc is not None:
            return "a here-document", r.heredoc
        if r.op == "<<<" and r.target is not None:
            return "a here-string", r.target.literal()
        if r.op == "<" and r.target is not None:
            return _file_source(r.target, inv, line)
    if inv.source is not None and id(inv.source) in line.fed:
        return _PIPED, line.fed[id(inv.source)]
    return None


def _file_source(word: Word, inv: Invocation, line: LineContext) -> tuple[str, str | None] | None:
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
        return _stdin_text(inv, line)
    written, content = line.file(inv.cwd, path)
    return (f"{path}, written earlier on this line", content) if written else None


def _option_operand(argv: tuple[Word, ...], language: str) -> int | None:
    """Index of an interpreter's script operand; None when code comes from its options."""
    takes_value, gives_code = _INTERP_VALUE[language], _INTERP_CODE[language]
    i = 1
    while i < len(argv):
        value = argv[i].literal()
        if value is None:
            return i
        if value == "--":
            return i + 1
        if not value.startswith("-") or value == "-":
            return i
        if not value.startswith("--"):
            for j, ch in enumerate(value[1:], start=1):
                if ch in gives_code:
                    return None
                if ch in takes_value:
                    i += 0 if value[j + 1 :] else 1
                    break
        elif value[2:].split("=")[0] in ("eval", "print", "command"):
            return None
        i += 1
    return i


def _runner(inv: Invocation) -> tuple[str, int | None] | None:
    """(language, index of the script operand) for a shell, `source`, an interpreter or a
    path being executed; the index is len(argv) when it reads its script from stdin."""
    name = inv.name
    if name is None:
        return None
    if name in SHELLS:
        found = shell_script(inv.argv)
        if found is None or found[3] == "c":
            return None
        return "sh", found[0] if found[3] == "file" else len(inv.argv)
    if name in ("source", "."):
        return ("sh", 1) if len(inv.argv) > 1 else None
    language = "python" if _PYTHON.match(name) else _INTERPRETERS.get(name)
    if language is not None:
        return language, _option_operand(inv.argv, language)
    head = inv.argv[0].literal() or ""
    if "/" in head and not head.endswith("/"):
        return "exec", 0
    return None


def _delimiter(text: str) -> str:
    delim = "INTERLOCK_SCRIPT"
    while delim in text:
        delim += "_"
    return delim


def _as_command(language: str, text: str) -> str:
    """The command line that runs `text` the way the runner would."""
    if language == "exec":
        first = text.split("\n", 1)[0]
        interpreter = next(
            (k for k in ("python", "node", "perl", "ruby", "php") if k in first), None
        )
        if not first.startswith("#!") or interpreter is None:
            return text
        language = interpreter
    if language == "sh":
        return text
    delim = _delimiter(text)
    return f"{language} - <<'{delim}'\n{text}\n{delim}"


def _script_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    found = _runner(inv)
    if found is None:
        return []
    language, index = found
    if index is None:
        return []
    if index >= len(inv.argv):
        if inv.extra_args:
            return []  # `xargs php -l`: the operands come at run time, stdin is not code
        source = _stdin_text(inv, line)
        if source is not None and language == "sh" and source[0] == _PIPED:
            return []  # `... | bash`: unknowncode reads what the pipe feeds a shell
    else:
        source = _file_source(inv.argv[index], inv, line)
    stdin_mode = index >= len(inv.argv) or inv.argv[index].literal() == "-"
    if source is None or (stdin_mode and source[0].startswith("a here-")):
        return []  # nothing fed, or `bash <<EOF`, `python <<EOF`: the walker reads that code
    origin, text = source
    if text is None:
        return [HiddenCode(None, f"{inv.text} runs {origin}, only known at run time", inv.cwd)]
    return [HiddenCode(_as_command(language, text), origin, inv.cwd)]


def _trap_code(inv: Invocation) -> list[HiddenCode]:
    args = list(inv.argv[1:])
    if args and args[0].literal() == "--":
        args = args[1:]
    if len(args) < 2 or (args[0].literal() or "").startswith("-"):
        return []
    body = args[0].literal()
    if body is None:
        return [HiddenCode(None, f"the trap body {args[0].text}, only known at run time", inv.cwd)]
    return [HiddenCode(body, "a trap", inv.cwd)] if body.strip() else []


_STARTUP = re.compile(
    r"(^|/)(\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zshenv|\.zprofile|"
    r"\.zlogin|\.kshrc|\.cshrc|\.tcshrc|\.envrc|\.pam_environment|config\.fish|"
    r"bash\.bashrc|environment)$|^/etc/(profile|profile\.d/.*|zsh/.*)$"
)


def _own_writes(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    """Content written where interlock reads its settings: `export INTERLOCK_...` into a shell
    startup file, or `[tool.interlock]` into pyproject.toml."""
    found: list[HiddenCode] = []
    for word, content, _ in _written(inv, line):
        path = known_path(word)
        if path is None or content is None:
            continue
        if _STARTUP.search(path) and "INTERLOCK_" in content:
            origin = f"`{inv.text}` sets INTERLOCK_* in {path}, which every new shell reads"
            found.append(HiddenCode(None, origin, inv.cwd, "selfdisable.env-override"))
        elif posixpath.basename(path) == "pyproject.toml" and "interlock" in content.lower():
            origin = f"`{inv.text}` writes interlock's configuration into {path}"
            found.append(HiddenCode(None, origin, inv.cwd, "selfdisable.config-edit"))
    return found


def _env_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    found: list[HiddenCode] = []
    words = _assignments(inv)
    for word in words:
        text = word.literal()
        if text is None:
            continue
        name, _, assigned = text.partition("=")
        if name in ("BASH_ENV", "ENV") and assigned:
            written, content = line.file(inv.cwd, assigned)
            if written:
                origin = f"`{name}` ({assigned}, written earlier on this line), which shells read"
                found.append(HiddenCode(content, origin, inv.cwd))
        if name in PROGRAM_ENV and (code := env_code(name, assigned)) is not None:
            found.append(HiddenCode(code, f"`{name}`", inv.cwd))
    for key, pair_value in env_pairs(words):
        if pair_value is not None and is_program_key(key):
            if (code := program_code(key, pair_value)) is not None:
                found.append(HiddenCode(code, f"git config `{key}`", inv.cwd))
    return found


def _words_text(words: Iterable[Word]) -> str:
    parts = []
    for word in words:
        value = word.literal()
        parts.append(shlex.quote(value) if value is not None and value == word.text else word.text)
    return " ".join(parts)


def _alias_values(name: str, call: GitCall, line: LineContext) -> list[str | None]:
    key = f"alias.{name.lower()}"
    given = [value for found, value in call.config if found == key]
    if given:
        return given[-1:]
    values = list(line.aliases.get(name.lower(), []))
    tree = line.tree_alias(call.cwd, name)
    return values + ([tree] if tree is not None else [])


def _alias_code(call: GitCall, line: LineContext, globals_text: str) -> list[HiddenCode]:
    found: list[HiddenCode] = []
    pending = [(call.sub or "", _words_text(call.args), 0)]
    seen: set[str] = set()
    while pending:
        name, args, depth = pending.pop()
        if name in GIT_COMMANDS or name in seen or depth > _MAX_ALIAS_CHAIN:
            continue
        seen.add(name)
        origin = f"git alias `{name}`"
        for value in _alias_values(name, call, line):
            if value is None:
                found.append(
                    HiddenCode(
                        None, f"{origin}, only known at run time", call.cwd, "git.config-code"
                    )
                )
            elif value.startswith("!"):
                found.append(HiddenCode(f"{value[1:]} {args}".strip(), origin, call.cwd))
            else:
                try:
                    words = shlex.split(value)
                except ValueError:
                    found.append(
                        HiddenCode(None, f"{origin} cannot be read", call.cwd, "git.config-code")
                    )
                    continue
                if words and words[0] in GIT_COMMANDS:
                    text = f"git {globals_text} {value} {args}"
                    found.append(HiddenCode(" ".join(text.split(" ")), origin, call.inv.cwd))
                elif words:
                    pending.append((words[0], f"{shlex.join(words[1:])} {args}".strip(), depth + 1))
    return found


def _git_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    call = parse_git(inv)
    if call is None or call.informational:
        return []
    found: list[HiddenCode] = []
    for key, value in call.config:
        if value is not None and is_program_key(key):
            if (code := program_code(key, value)) is not None:
                found.append(HiddenCode(code, f"git config `{key}`", call.cwd))
    if call.sub is None:
        return found
    if call.sub == "config":
        for key, value in config_writes(call.args):
            if value is None:
                continue
            if is_program_key(key) and (code := program_code(key, value)) is not None:
                found.append(HiddenCode(code, f"`{key}`, which this sets", call.cwd))
            elif key.startswith("alias."):
                text = value[1:] if value.startswith("!") else f"git {value}"
                found.append(HiddenCode(text, f"the alias `{key[6:]}` this defines", call.cwd))
    options = PROGRAM_OPTIONS.get(call.sub, ())
    if options:
        takes = spec(
            short_value="".join(o[1] for o in options if len(o) == 2),
            long_value=" ".join(o[2:] for o in options if o.startswith("--")),
        )
        for opt in parse_args(call.args, takes).values(*options):
            if opt.value:
                found.append(HiddenCode(opt.value, f"git {call.sub} {opt.name}", call.cwd))
    for word in call.args:
        value = word.literal()
        if value is not None and (code := ext_command(value)) is not None:
            found.append(HiddenCode(code, f"the remote {value}", call.cwd))
    if call.sub not in GIT_COMMANDS:
        rest = parse_args(inv.argv[1:], GLOBAL_OPTS).rest
        globals_text = _words_text(inv.argv[1 : len(inv.argv) - len(rest)])
        found += _alias_code(call, line, globals_text)
    return found


def _piped_kill(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    """`pgrep -f interlock | xargs kill`: the pids piped in are the daemon's."""
    for feeder in line.feeders(inv):
        if isinstance(feeder, SimpleCommand) and finder_reaches(feeder):
            origin = f"`{inv.text}` is fed the pids `{feeder.text}` finds, the daemon's among them"
            return [HiddenCode(None, origin, inv.cwd, "selfdisable.kill-daemon")]
    return []


def hidden_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    """The command lines `inv` runs that are not among its own words (module docstring)."""
    if not inv.argv:
        return _env_code(inv, line)
    found = _env_code(inv, line) if (inv.assignments or inv.name in _SETTERS) else []
    if inv.redirects or inv.name == "tee":
        found += _own_writes(inv, line)
    name = inv.name
    if name == "kill" and inv.extra_args:
        found += _piped_kill(inv, line)
    elif name == "trap":
        found += _trap_code(inv)
    elif name == "git" or (name is not None and name.startswith("git-")):
        found += _git_code(inv, line)
    else:
        found += _script_code(inv, line)
    return found
