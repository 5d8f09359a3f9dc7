"""Code hidden in data: command lines a command runs that are not among its own words.

`hidden_code(inv, line)` lists them for one invocation; the analysis judges each literal one
like the same command line typed directly (its findings say what ran it) and reports one
whose text is only known at run time as unknown code. The sources:
- git: aliases and the programs its configuration names (gitcode.py);
- variables that name a program (`GIT_PAGER=...`, `EDITOR=...`, GIT_CONFIG_* program keys),
  and `BASH_ENV`/`ENV` naming a file, which a shell started with it reads before its command:
  one written earlier on the line, else the file in the tree (read through the ScriptFiles
  tree fact); a name known only at run time, or a file that cannot be read, is unknown code;
- `trap 'BODY' SIGNAL`: the body runs later, on the signal or at exit;
- a shell, `source`/`.` or an interpreter (python, node, perl, ruby, php) given a script that
  is a process substitution (`bash <(curl ...)`), its stdin (`sh /dev/stdin`, `. /dev/fd/0`,
  `python -`, `< <(...)`, a pipe), or a file written earlier on the same line
  (`echo 'git reset --hard' > x.sh && sh x.sh`, `cat > t.py <<EOF ... && python t.py`);
  `make` reading a makefile written on the line; a program copied under another name
  (`cp /usr/bin/git ./g && ./g reset --hard`); a shell alias defined on the line;
- self-disable that only the line shows: INTERLOCK_* written into a shell startup file,
  `[tool.interlock]` into pyproject.toml, the daemon's pids piped into `xargs kill`;
  and that only the tree shows: an install whose package is interlock (`pip install -e DIR`
  where DIR's pyproject.toml names interlock; rules.uninstalls reads it).
What the line defines is in linecontext.py.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from interlock.engine.carriers import make_recipes
from interlock.engine.gitcode import git_code
from interlock.engine.invocation import Invocation
from interlock.engine.linecontext import (
    PIPED,
    SETTERS,
    STDIN_PATHS,
    HiddenCode,
    LineContext,
    assignments,
    file_source,
    path_key,
    stdin_text,
    words_text,
    written,
)
from interlock.engine.rules import uninstalls
from interlock.engine.rules.args import known_path, parse_args, spec
from interlock.engine.rules.common import join_cwd
from interlock.engine.rules.daemonkill import pids_reach_daemon
from interlock.engine.rules.git.config import (
    PROGRAM_ENV,
    env_code,
    env_pairs,
    is_program_key,
    program_code,
)
from interlock.engine.rules.selfdisable import package_manager
from interlock.engine.scriptfiles import ScriptFiles
from interlock.engine.unwrap import STDIN_SHELLS as SHELLS
from interlock.engine.unwrap import shell_script, template
from interlock.shell.model import SimpleCommand, Word

_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
_INTERPRETERS = {"node": "node", "nodejs": "node", "perl": "perl", "ruby": "ruby", "php": "php"}
# Short options that take a value (attached or the next word), per interpreter, and the ones
# that give code (no script then). A value only ever attached is no option's here: `perl -x
# t.pl`, `ruby -x t.rb` run t.pl and t.rb (perl's -M/-m and ruby's -F/-K/-x are the same).
_INTERP_VALUE = {"python": "WXQ", "node": "rC", "perl": "I", "ruby": "IrCEX", "php": "cdz"}
_INTERP_CODE = {"python": "cm", "node": "ep", "perl": "eE", "ruby": "e", "php": "rBRE"}
# Long options that take the next word as their value (`node --require ./env.js app.js`).
_INTERP_LONG_VALUE = {
    "python": ("check-hash-based-pycs",),
    "node": (
        "require",
        "import",
        "loader",
        "experimental-loader",
        "conditions",
        "input-type",
        "env-file",
        "inspect-port",
        "disable-warning",
        "redirect-warnings",
        "title",
    ),
    "ruby": ("encoding", "external-encoding", "internal-encoding", "enable", "disable"),
}
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# GNU make's options that take a value (-j and -l take one only when it is a number).
_MAKE_OPTS = spec(
    short_value="CfIoWE",
    long_value=(
        "directory file makefile include-dir old-file assume-old new-file assume-new what-if eval"
    ),
)


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
        elif value[2:] in _INTERP_LONG_VALUE.get(language, ()):
            i += 1
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


def _copied_program(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    head = inv.argv[0].literal() or ""
    # a bare name is looked up on PATH, never in the directory the copy was made in
    key = path_key(inv.cwd, head) if "/" in head else None
    if key is None or (program := line.programs.get(key)) is None:
        return []
    text = " ".join([shlex.quote(program), words_text(inv.argv[1:])]).strip()
    return [HiddenCode(text, f"{head}, a copy of {program} made earlier on this line", inv.cwd)]


def _make_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    """`make` reading a makefile written earlier on the line (or `-f -` fed one), read as GNU
    make reads its options (`-kfmk`, `-C DIR`: the makefiles and recipes are DIR's)."""
    parsed = parse_args(inv.argv[1:], _MAKE_OPTS)
    cwd = inv.cwd
    names: list[str] = []
    for opt in parsed.opts:
        if opt.name in ("-C", "--directory"):
            cwd = join_cwd(cwd, opt.value)
        elif opt.name in ("-f", "--file", "--makefile"):
            names.append(opt.value or "")
    for name in names or _MAKEFILES:
        if name in STDIN_PATHS:
            source = stdin_text(inv, line)
            if source is None:
                return []
            origin, text = source
        else:
            written, text = line.file(cwd, name)
            if not written:
                continue
            origin = f"{name}, written earlier on this line"
        if text is None:
            return [HiddenCode(None, f"make runs the recipes of {origin}", cwd)]
        recipes = make_recipes(text)
        return [HiddenCode(recipes, f"the recipes of {origin}", cwd)] if recipes else []
    return []


def _script_code(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    if line.programs and (copied := _copied_program(inv, line)):
        return copied
    if inv.name in ("make", "gmake"):
        return _make_code(inv, line)
    found = _runner(inv)
    if found is None:
        return []
    language, index = found
    if index is None:
        return []
    if index >= len(inv.argv):
        if inv.extra_args:
            return []  # `xargs php -l`: the operands come at run time, stdin is not code
        source = stdin_text(inv, line)
        if source is not None and language == "sh" and source[0] == PIPED:
            return []  # `... | bash`: unknowncode reads what the pipe feeds a shell
    else:
        source = file_source(inv.argv[index], inv, line)
    stdin_mode = index >= len(inv.argv) or inv.argv[index].literal() == "-"
    if source is None or (stdin_mode and source[0].startswith("a here-")):
        return []  # nothing fed, or `bash <<EOF`, `python <<EOF`: the walker reads that code
    origin, text = source
    if text is None:
        return [HiddenCode(None, f"{inv.text} runs {origin}, only known at run time", inv.cwd)]
    return [HiddenCode(_as_command(language, text), origin, inv.cwd)]


TRAP = "a trap"  # the origin of a trap's body (engine.analysis reads it with the line's vars)


def _trap_code(inv: Invocation) -> list[HiddenCode]:
    args = list(inv.argv[1:])
    if args and args[0].literal() == "--":
        args = args[1:]
    if len(args) < 2 or (args[0].literal() or "").startswith("-"):
        return []
    body = args[0].literal()
    if body is None:
        return [HiddenCode(None, f"the trap body {args[0].text}, only known at run time", inv.cwd)]
    return [HiddenCode(body, TRAP, inv.cwd)] if body.strip() else []


_STARTUP = re.compile(
    r"(^|/)(\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zshenv|\.zprofile|"
    r"\.zlogin|\.kshrc|\.cshrc|\.tcshrc|\.envrc|\.pam_environment|config\.fish|"
    r"bash\.bashrc|environment)$|(^|/)\.bashrc\.d/[^/]+$|^/etc/(profile|profile\.d/.*|zsh/.*)$"
)


def _own_writes(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    """Content written where interlock reads its settings: `export INTERLOCK_...` into a shell
    startup file, or `[tool.interlock]` into pyproject.toml."""
    found: list[HiddenCode] = []
    for word, content, _ in written(inv, line):
        if content is None:
            continue
        # `"$HOME/.bashrc"` shows the file's name; `"$RC"` may name any file, a startup one too
        path = known_path(word) or template(word)
        unnamed = word.literal() is None and "$" in posixpath.basename(path)
        if (_STARTUP.search(path) or unnamed) and "INTERLOCK_" in content:
            origin = f"`{inv.text}` sets INTERLOCK_* in {path}, which every new shell may read"
            found.append(HiddenCode(None, origin, inv.cwd, "selfdisable.env-override"))
        elif posixpath.basename(path) == "pyproject.toml" and "interlock" in content.lower():
            origin = f"`{inv.text}` writes interlock's configuration into {path}"
            found.append(HiddenCode(None, origin, inv.cwd, "selfdisable.config-edit"))
    return found


def _env_code(inv: Invocation, line: LineContext, files: ScriptFiles | None) -> list[HiddenCode]:
    found: list[HiddenCode] = []
    words = assignments(inv)
    for word in words:
        found += _startup_file(word, inv, line, files)
        text = word.literal()
        if text is None:
            continue
        name, _, assigned = text.partition("=")
        if name in PROGRAM_ENV and (code := env_code(name, assigned)) is not None:
            found.append(HiddenCode(code, f"`{name}`", inv.cwd))
    for key, pair_value in env_pairs(words):
        if pair_value is not None and is_program_key(key):
            if (code := program_code(key, pair_value)) is not None:
                found.append(HiddenCode(code, f"git config `{key}`", inv.cwd))
    return found


_STARTUP_ENV = ("BASH_ENV", "ENV")
_EMPTY_FILES = ("/dev/null",)


def _startup_file(
    word: Word, inv: Invocation, line: LineContext, files: ScriptFiles | None
) -> list[HiddenCode]:
    """`BASH_ENV=FILE` (`ENV=FILE`): a shell started with it reads FILE before its command,
    so FILE's text is code the line runs (`BASH_ENV=e.sh bash -c ls` runs e.sh first)."""
    text = word.literal()
    name, _, assigned = (text if text is not None else word.text).partition("=")
    if name not in _STARTUP_ENV or not assigned or assigned in _EMPTY_FILES:
        return []
    if text is None:
        origin = f"`{name}` ({assigned}), a file known only at run time, which shells read first"
        return [HiddenCode(None, origin, inv.cwd)]
    found: list[HiddenCode] = []
    for cwd in dict.fromkeys((inv.cwd, *inv.alt_cwds)):  # `cd sub; X`: sub, or here
        found += _startup_text(name, assigned, cwd, line, files)
    return found


def _startup_text(
    name: str, assigned: str, cwd: str | None, line: LineContext, files: ScriptFiles | None
) -> list[HiddenCode]:
    written, content = line.file(cwd, assigned)
    if written:
        origin = f"`{name}` ({assigned}, written earlier on this line), which shells read"
        return [HiddenCode(content, origin, cwd)]
    script = files.read(cwd, assigned, "here") if files is not None else None
    if script is not None:
        return [HiddenCode(script.text, f"`{name}` ({assigned}), which shells read first", cwd)]
    if files is not None and not files.present(cwd, assigned):
        return []  # no such file: the shell reads nothing
    origin = f"`{name}` ({assigned}), a file interlock cannot read, which shells read first"
    return [HiddenCode(None, origin, cwd)]


def _install_code(inv: Invocation, files: ScriptFiles | None) -> list[HiddenCode]:
    """An install that replaces interlock's package (rules.uninstalls.replaces_interlock)."""
    program, args = package_manager(inv)
    reason = uninstalls.replaces_interlock(program, args, inv.cwd, files)
    if reason is None:
        return []
    return [HiddenCode(None, reason, inv.cwd, "selfdisable.interlock-off")]


def _piped_kill(inv: Invocation, line: LineContext) -> list[HiddenCode]:
    """`pgrep -f interlock | xargs kill`: the pids piped in are the daemon's."""
    feeders = [f for f in line.feeders(inv) if isinstance(f, SimpleCommand)]
    if feeders and pids_reach_daemon(feeders):
        found_by = " | ".join(f.text for f in feeders)
        origin = f"`{inv.text}` is fed the pids `{found_by}` finds, the daemon's among them"
        return [HiddenCode(None, origin, inv.cwd, "selfdisable.kill-daemon")]
    return []


def hidden_code(
    inv: Invocation, line: LineContext, files: ScriptFiles | None = None
) -> list[HiddenCode]:
    """The command lines `inv` runs that are not among its own words (module docstring);
    files: reads the files of the tree (None: the line's text alone)."""
    if not inv.argv:
        return _env_code(inv, line, files)
    found = _env_code(inv, line, files) if (inv.assignments or inv.name in SETTERS) else []
    if inv.redirects or inv.name == "tee":
        found += _own_writes(inv, line)
    found += _install_code(inv, files)
    name = inv.name
    if name == "kill" and inv.extra_args:
        found += _piped_kill(inv, line)
    elif name == "trap":
        found += _trap_code(inv)
    elif name == "git" or (name is not None and name.startswith("git-")):
        found += git_code(inv, line)
    else:
        found += _script_code(inv, line)
    head = inv.argv[0].literal()
    if head is not None and head in line.shell_aliases:
        text = f"{line.shell_aliases[head]} {words_text(inv.argv[1:])}".strip()
        found.append(HiddenCode(text, f"the shell alias `{head}`", inv.cwd))
    return found
