"""Self-disabling commands: what would switch interlock off from inside a run.

Skipping hooks (`--no-verify`, `commit -n`), pointing git at other hooks (`-c core.hooksPath`,
`git config core.hooksPath`, GIT_CONFIG_* overrides, edits of git config files), editing or
removing `.git/hooks/*`, `interlock off|uninstall|allow|...`, `INTERLOCK_*` environment
overrides, killing the daemon, and edits of `.interlock.toml` or interlock's state dir.
Only a person, outside the run, can turn interlock down.
"""

from __future__ import annotations

import re

from interlock.constants import ENV_PREFIX
from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules import daemonkill, uninstalls
from interlock.engine.rules import ownpaths as paths
from interlock.engine.rules.args import Opt, literal_or_text, parse_args, spec
from interlock.engine.rules.common import catalog, make_finding, rule
from interlock.engine.rules.git.config import CONFIG_OPTS, config_writes
from interlock.engine.rules.git.invocation import GitCall, parse_git
from interlock.engine.rules.writes import Touch, touched_paths
from interlock.engine.unwrap import could_be_option
from interlock.shell.model import Word

# `interlock X` subcommands that turn interlock down (`hooks uninstall`, `daemon stop` and
# `config set` are read separately). `pause` and `stop` are not here: they turn it up (no new
# run; the run refused), so an agent stopping itself is not disabling anything.
INTERLOCK_OFF_SUBCOMMANDS = frozenset(
    ("off", "disable", "uninstall", "allow", "approve", "bypass", "suspend")
)
# `interlock run X` subcommands that end, restart or settle the run (`run` alone: its help).
RUN_CONTROL = frozenset(("start", "end", "reconcile"))
# `interlock turn` options that relax the stuck detector for what comes next (`--step`: a new
# step earns a new recovery).
TURN_RELAXERS = ("--set", "--experiment", "--step")

_PERSON = "only a person, outside the run, can turn interlock down"

rule(
    "selfdisable.no-verify",
    "self-disable",
    "--no-verify (commit -n) skips git hooks",
    f"the hooks are how interlock checks a commit or a push; skipping them switches it off ({_PERSON})",
    "commit without --no-verify and fix what the hook reports",
    (
        "git commit --no-verify -m wip",
        "git commit -n -m wip",
        "git commit -anm wip",
        "git push --no-verify",
    ),
    ("git commit -m 'skip --no-verify'", "git push -n", "git merge -n topic"),
)
rule(
    "selfdisable.hooks-path",
    "self-disable",
    "core.hooksPath pointed elsewhere (or git's config edited) bypasses interlock's hooks",
    f"git then runs other hooks, or none, instead of interlock's ({_PERSON})",
    "leave core.hooksPath alone; ask a person if the hooks are in the way",
    (
        "git -c core.hooksPath=/dev/null commit -m wip",
        "git config core.hooksPath .nohooks",
        "git config --unset core.hooksPath",
        "echo '[core] hooksPath = x' >> .git/config",
    ),
    ("git config core.hooksPath", "git config --get core.hooksPath", "git config user.name Bot"),
)
rule(
    "selfdisable.hooks-edit",
    "self-disable",
    "writing to or removing .git/hooks/* changes or removes interlock's hooks",
    f"a hook that is removed, replaced or made non-executable no longer checks anything ({_PERSON})",
    "leave .git/hooks alone; `interlock hooks status` shows what is installed",
    (
        "rm .git/hooks/pre-commit",
        "chmod -x .git/hooks/pre-commit",
        "echo 'exit 0' > .git/hooks/pre-commit",
        "mv .git/hooks .git/hooks.off",
    ),
    ("cat .git/hooks/pre-commit", "ls .git/hooks", "chmod +x .git/hooks/pre-commit"),
)
rule(
    "selfdisable.interlock-off",
    "self-disable",
    "interlock off / uninstall / allow / approve from inside the run, or its package or "
    "programs removed or replaced",
    f"the run would turn off or overrule its own guard ({_PERSON}); removing or replacing "
    "interlock's package (`pip uninstall interlock`, `pip install interlock==0.1`, an install "
    "of a tree whose project is interlock; pipx, uv, poetry, conda) or its programs "
    "(`bin/interlock`, `bin/interlock-sh`, its virtualenv) changes every door at once",
    "do what the finding asks instead; a person can approve it outside the run",
    (
        "interlock off",
        "interlock uninstall",
        "interlock allow",
        "interlock hooks uninstall",
        "pip uninstall -y interlock",
        "rm ~/.local/bin/interlock",
        "ln -sf /bin/true ~/.local/bin/interlock-sh",
    ),
    (
        "interlock check 'git status'",
        "interlock explain git.reset-hard",
        "interlock status",
        "pip uninstall -y requests",
        "pip install requests",
        "cat ~/.local/bin/interlock",
    ),
)
rule(
    "selfdisable.run-control",
    "self-disable",
    "ending, restarting or settling the run, or lifting a pause, from inside the run",
    "`interlock run start|end` ends the run the monitor watches (a new one starts with a fresh "
    "budget, stuck detector and baseline), `run reconcile` says for a person that a cut-off "
    "push or publish did or did not happen, `resume` lifts a person's pause or stop, and "
    "`turn --set|--experiment|--step` relaxes the stuck detector; from inside the run each turns "
    f"interlock down ({_PERSON}). `interlock stop` and `pause` turn it up and are not refused here",
    "go on with the work; ask a person to end, restart or settle the run",
    (
        "interlock run end",
        "interlock run start --id fresh",
        "interlock run reconcile 42 --landed",
        "interlock resume",
        "interlock turn --set repeat_threshold=99",
        "interlock turn --experiment",
    ),
    (
        "interlock stop",
        "interlock pause",
        "interlock runs",
        "interlock turn",
        "interlock todo list",
    ),
)
rule(
    "selfdisable.env-override",
    "self-disable",
    "INTERLOCK_* environment variables set or unset inside the run (or in shell startup files)",
    "interlock's settings come from the environment a person set up; changing them from "
    "inside the run relaxes the guard, and so does writing them into ~/.bashrc, ~/.profile, "
    f"~/.zshrc, .envrc or a file named by BASH_ENV/ENV, which later shells read ({_PERSON})",
    "run the command without the INTERLOCK_* assignment",
    ("INTERLOCK_MODE=off git reset --hard", "export INTERLOCK_MODE=off", "unset INTERLOCK_RUN"),
    ("echo $INTERLOCK_MODE", "env | grep INTERLOCK"),
)
rule(
    "selfdisable.hook-skip-env",
    "self-disable",
    "variables that make hook managers skip their hooks (HUSKY=0, SKIP=..., LEFTHOOK=0)",
    "husky, pre-commit, lefthook and overcommit read these to skip the hooks they run; interlock "
    f"runs among them or alongside them, so skipping them skips checks ({_PERSON})",
    "commit without the variable and fix what the hooks report",
    (
        "HUSKY=0 git commit -m wip",
        "SKIP=interlock,flake8 git commit -m wip",
        "PRE_COMMIT_ALLOW_NO_CONFIG=1 git commit -m wip",
        "LEFTHOOK=0 git push",
        "export HUSKY_SKIP_HOOKS=1",
        "env OVERCOMMIT_DISABLE=1 git commit -m x",
    ),
    ("HUSKY=1 git commit -m x", "SKIP=1 pytest", "git commit -m 'SKIP=lint'"),
)
rule(
    "selfdisable.kill-daemon",
    "self-disable",
    "stopping or killing the interlock daemon",
    "the daemon records every change to the tree; without it lost work cannot be recovered. "
    "It is a Python process (`python3 -m interlock daemon run`), so killing python processes "
    f"by name, every process of the user, or its pid reaches it ({_PERSON})",
    "leave the daemon running; `interlock daemon status` shows what it does",
    (
        "pkill -f interlock",
        "pkill python",
        "pkill -9 -f 'daemon run'",
        "killall python3",
        "killall -r 'py.*'",
        "killall interlock",
        "kill $(cat .git/interlock/daemon.pid)",
        "kill -9 $(pgrep -f interlock)",
        "kill -9 -1",
        "pkill -u dev",
        "interlock daemon stop",
    ),
    (
        "pkill -f pytest",
        "pkill -f 'python app.py'",
        "pkill node",
        "killall uvicorn",
        "interlock daemon status",
        "kill %1",
        "kill -1 1234",
    ),
)
rule(
    "selfdisable.config-edit",
    "self-disable",
    "editing interlock's configuration (.interlock.toml, [tool.interlock]) from inside the run",
    f"the run would write its own rules ({_PERSON}; the run keeps reading the config as it "
    "was at its baseline). Any writer counts: a redirect, an editor, sed -i, inline code, awk "
    "or sed writing a file, and content naming interlock written into pyproject.toml",
    "leave .interlock.toml alone; propose the change to a person",
    (
        "echo 'mode = \"off\"' > .interlock.toml",
        "rm .interlock.toml",
        "sed -i 's/blocking/off/' .interlock.toml",
        "vim .interlock.toml",
        "sed -i '/tool.interlock/,$d' pyproject.toml",
    ),
    ("cat .interlock.toml", "interlock config show", "sed -i 's/requests/httpx/' pyproject.toml"),
)
rule(
    "selfdisable.state-edit",
    "self-disable",
    "writing to, removing or listening on interlock's state (.git/interlock/, the socket)",
    "the journal, the daemon's socket and pid file are interlock's memory of the run; a "
    "program listening on the socket path would answer for the daemon, so any command but a "
    f"reader that names them is refused ({_PERSON})",
    "leave .git/interlock/ alone; `interlock daemon status` and `interlock snapshots` read it",
    (
        "rm -rf .git/interlock",
        "sqlite3 .git/interlock/journal.db 'delete from events'",
        "socat UNIX-LISTEN:.git/interlock/daemon.sock,fork EXEC:cat",
        "nc -lU .git/interlock/daemon.sock",
        "ln -sf /tmp/fake.sock .git/interlock/daemon.sock",
        "vim .git/interlock/daemon.pid",
    ),
    ("cat .git/interlock/daemon.log", "ls -la .git/interlock", "tail -f .git/interlock/daemon.log"),
)

# Per subcommand: options whose value could look like `--no-verify` or `-n`.
_NO_VERIFY_SPECS = {
    "commit": spec(
        short_value="mFCct",
        short_optional="uS",
        long_value=(
            "message file author date reuse-message reedit-message fixup squash template "
            "cleanup trailer pathspec-from-file"
        ),
        long_flags="no-verify verify no-post-rewrite no-edit no-status amend all patch",
    ),
    "merge": spec(short_value="msXF", long_value="message strategy strategy-option file into-name"),
    "pull": spec(short_value="sX", long_value="strategy strategy-option"),
    "push": spec(short_value="o", long_value="repo receive-pack exec push-option"),
    "rebase": spec(short_value="sXx", long_value="onto strategy strategy-option exec"),
    "am": spec(short_value="pSC", long_value="patch-format resolvemsg"),
    "cherry-pick": spec(short_value="msX", long_value="mainline strategy strategy-option"),
    "revert": spec(short_value="msX", long_value="mainline strategy strategy-option"),
}
_SKIP_HOOKS = ("--no-verify", "--no-post-rewrite")
_KILLERS = frozenset(("kill", "pkill", "killall", "skill", "slay", "fuser", "xkill"))
_SERVICE = frozenset(("systemctl", "launchctl", "service", "supervisorctl"))
_SETTERS = frozenset(("export", "declare", "typeset", "local", "readonly", "setenv", "unset"))
_ENV_NAME = r"^" + ENV_PREFIX + r"\w*"
_HOOKS_KEY = "core.hookspath"
# Variables hook managers read to skip hooks: name -> the values that skip (None: any value).
_HOOK_SKIP_ENV: dict[str, frozenset[str] | None] = {
    "HUSKY": frozenset(("0", "false", "off", "no")),
    "HUSKY_SKIP_HOOKS": None,
    "PRE_COMMIT_ALLOW_NO_CONFIG": None,
    "LEFTHOOK": frozenset(("0", "false", "off", "no")),
    "LEFTHOOK_EXCLUDE": None,
    "LEFTHOOK_SKIP": None,
    "OVERCOMMIT_DISABLE": None,
    "SKIP_HOOKS": None,
    "GIT_HOOKS_SKIP": None,
    "SKIP": None,  # pre-commit's list of hook ids; only where git reads it (see below)
}
_EDITORS = frozenset(
    "vi vim nvim nano pico emacs emacsclient ed ex micro joe jed mcedit kak hx helix code "
    "codium subl gedit kate mousepad vis".split()
)


def _find(rule_id: str, inv: Invocation) -> Finding:
    return make_finding(catalog()[rule_id], inv)


def _skips_hooks(literal: str) -> bool:
    """`--no-verify` or an unambiguous abbreviation of it (`--no-veri`), `--no-post-rewrite`."""
    return literal in _SKIP_HOOKS or (
        len(literal) >= len("--no-veri") and "--no-verify".startswith(literal)
    )


def _no_verify(call: GitCall) -> bool:
    args = parse_args(call.args, _NO_VERIFY_SPECS.get(call.sub or "", spec()))
    if any(_skips_hooks(opt.name) for opt in args.opts):
        return True
    return call.sub == "commit" and args.has("-n")


def _config_writes_hooks_path(call: GitCall) -> bool:
    """`git config [scope] core.hooksPath VALUE`, `--unset`, `set`/`unset`, section removal."""
    args = parse_args(call.args, spec(short_value="f", long_value="file blob type default comment"))
    operands = [literal_or_text(w).lower() for w in args.operands()]
    if not operands:
        return False
    action = (
        operands[0] if operands[0] in ("set", "unset", "remove-section", "rename-section") else None
    )
    keys = operands[1:] if action else operands
    if args.has("--remove-section", "--rename-section") or action in (
        "remove-section",
        "rename-section",
    ):
        return bool(keys) and keys[0] == "core"
    if not keys or keys[0] != _HOOKS_KEY:
        return False
    writes = args.has("--unset", "--unset-all", "--add", "--replace-all") or action is not None
    reads = args.has("--get", "--get-all", "--get-regexp", "-l", "--list", "--get-urlmatch")
    return writes or (len(keys) >= 2 and not reads)


def _git_findings(inv: Invocation, call: GitCall) -> list[Finding]:
    found: list[Finding] = []
    if any(key == _HOOKS_KEY or (key == "" and value is None) for key, value in call.config):
        found.append(_find("selfdisable.hooks-path", inv))
    if call.informational or call.sub is None:
        return found
    if call.sub == "config" and _config_writes_hooks_path(call):
        found.append(_find("selfdisable.hooks-path", inv))
    elif call.sub == "config":
        found += _config_file_findings(inv, call)
    elif _no_verify(call):
        found.append(_find("selfdisable.no-verify", inv))
    return found


def _config_file_findings(inv: Invocation, call: GitCall) -> list[Finding]:
    """`git config -f .interlock.toml KEY VALUE`: git config writes any ini file it is given."""
    args = parse_args(call.args, CONFIG_OPTS)
    target = args.last("-f", "--file")
    if target is None or not config_writes(call.args):
        return []
    word = target.word
    if word is None:
        if target.value is None:
            return []
        word = Word(target.value, target.value)
    rule_id = paths.rule_for(Touch(word, "write"), call.cwd)
    return [_find(rule_id, inv)] if rule_id is not None else []


def _skips_hooks_env(name: str, value: str, word: Word, persistent: bool, git: bool) -> bool:
    """An empty value skips nothing (`env -u HUSKY_SKIP_HOOKS` empties it: hooks run)."""
    if name not in _HOOK_SKIP_ENV or (name == "SKIP" and not (persistent or git)):
        return False
    if word.literal() is None:
        return True
    skipping, value = _HOOK_SKIP_ENV[name], value.strip().lower()
    return value != "" if skipping is None else value in skipping


def _env_findings(inv: Invocation) -> list[Finding]:
    found: list[Finding] = []
    persistent = inv.name in _SETTERS or not inv.argv  # export X=1, or X=1 alone
    git = inv.name == "git" or (inv.name or "").startswith("git-")
    words = list(inv.assignments)
    if inv.name in _SETTERS or inv.name == "env":
        words += [w for w in inv.argv[1:] if "=" in literal_or_text(w)]
    last: dict[str, tuple[str, Word]] = {}  # the value each variable ends with
    for word in words:
        name, _, value = literal_or_text(word).partition("=")
        last[name] = (value, word)
    for name, (value, word) in last.items():
        if _skips_hooks_env(name, value, word, persistent or inv.name == "env", git):
            found.append(_find("selfdisable.hook-skip-env", inv))
    for word in inv.assignments:
        text = literal_or_text(word)
        name, _, value = text.partition("=")
        if re.match(_ENV_NAME, name):
            found.append(_find("selfdisable.env-override", inv))
        elif name == "GIT_CONFIG_PARAMETERS" or name.startswith("GIT_CONFIG_KEY_"):
            if _HOOKS_KEY in value.lower() or word.literal() is None:
                found.append(_find("selfdisable.hooks-path", inv))
    operands = [literal_or_text(w) for w in inv.argv[1:]]
    if inv.name in _SETTERS or inv.name == "env":
        names = [o.removeprefix("--unset=").removeprefix("-u").partition("=")[0] for o in operands]
        if any(re.match(_ENV_NAME, n) for n in names):
            found.append(_find("selfdisable.env-override", inv))
    if inv.name in _SETTERS and any(_unknown_name(w) for w in inv.argv[1:]):
        found.append(_override(inv, _UNKNOWN_NAME.format(inv.name), _NAME_IT))
    named = _written_names(inv)
    if any(re.match(_ENV_NAME, (w.literal() or "").partition("=")[0]) for w in named):
        found.append(_find("selfdisable.env-override", inv))
    if any(_unknown_name(w) for w in named):
        found.append(_override(inv, _UNKNOWN_NAME.format(inv.name), _NAME_IT))
    if inv.clears_env and _reads_interlock_env(inv):
        found.append(_override(inv, _CLEARED, _KEEP_ENV))
    return found


# Builtins that write a variable an operand names (an exported INTERLOCK_* changes for what
# runs next): `read [-a] NAME`, `printf -v NAME`, `getopts OPTSTRING NAME`, `let NAME=EXPR`.
_READ = spec(short_value="adinNptu")
_PRINTF = spec(short_value="v")


def _written_names(inv: Invocation) -> list[Word]:
    """The words naming the variables `read`, `printf -v`, `getopts` and `let` write."""
    name, args = inv.name, inv.argv[1:]
    if name == "read":
        parsed = parse_args(args, _READ)
        return list(parsed.operands()) + _option_names(parsed.values("-a"))
    if name == "printf":
        return _option_names(parse_args(args, _PRINTF).values("-v"))
    if name == "getopts":
        return list(args[1:2])
    if name == "let":
        return list(args)
    return []


def _option_names(opts: list[Opt]) -> list[Word]:
    """An option's value as a word (`-vNAME`, `-v "$N"`)."""
    words: list[Word] = []
    for opt in opts:
        if opt.value is not None:
            words.append(Word(opt.value, opt.value))
        elif opt.word is not None:  # known only at run time
            words.append(opt.word)
    return words


def _reads_interlock_env(inv: Invocation) -> bool:
    """A program that reads the run's INTERLOCK_* variables: git (its hooks run interlock),
    interlock itself (`interlock`, `interlock-sh`, `python -m interlock`), or a program known
    only at run time (it may be either). A plain program (`env -i sort`) reads none, and the
    commands a shell runs are judged each with the emptied environment."""
    name = inv.name
    if name is None or name in ("git", "interlock-sh") or name.startswith("git-"):
        return True
    return _interlock_words(inv) is not None


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_UNKNOWN_NAME = (
    '`{}` names a variable known only at run time (`export "$N"=1`, `export $(cat .env)`): '
    "it may set or unset an INTERLOCK_* variable, which relaxes the guard; unknown is not safe "
    f"({_PERSON})"
)
_CLEARED = (
    "the environment is emptied for it (`env -i`, `exec -c`, `setpriv --reset-env`, a login "
    "shell: `sudo -i`, `su -`): every INTERLOCK_* variable the run "
    "was given is unset, as `env -u INTERLOCK_RUN` unsets one, so git's hooks and interlock "
    f"itself no longer know they are inside the run ({_PERSON})"
)

_NAME_IT = 'write the variable\'s name out (`export NAME="$VALUE"`)'
_KEEP_ENV = "keep the environment; drop only what you mean to with `env -u NAME` (not INTERLOCK_*)"


def _override(inv: Invocation, reason: str, instead: str) -> Finding:
    info = catalog()["selfdisable.env-override"]
    return make_finding(info, inv, reason=reason, instead=instead)


def _unknown_name(word: Word) -> bool:
    """A setter's operand whose variable name is known only at run time (`"$N"=1`, `$N`,
    `$(cat .env)`, `X{A,B}=1`); an option (`-x`) or a written name (`PATH="$PWD:$PATH"`)
    is not."""
    if word.literal() is not None:
        return False
    # `unset 'a[1]'`, `a[$i]=1`: the variable is the name before the subscript
    name = word.text.partition("=")[0].partition("[")[0].replace('"', "").replace("'", "")
    return not _IDENTIFIER.match(name) and not name.startswith("-")


_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
_PYTHON_LONG_VALUE = ("--check-hash-based-pycs",)  # python's long options that take a value


def _interlock_words(inv: Invocation) -> list[str | None] | None:
    """The words after `interlock`, also for `python [opts] -m interlock[.cli] ...` and
    `python PATH/interlock ...`; None when the command is not interlock."""
    argv = [w.literal() for w in inv.argv]
    name = inv.name
    if name == "interlock":
        return argv[1:]
    if name is None or not _PYTHON.match(name):
        return None
    module, i = _python_module_of(inv)
    if module is not None:
        return argv[i:] if _is_interlock_module(module) else _module_runs_interlock(argv[i:])
    if i < len(argv) and _is_interlock_path(literal_or_text(inv.argv[i])):
        return argv[i + 1 :]
    return None


def _python_module_of(inv: Invocation) -> tuple[str | None, int]:
    """`_python_module` of a python invocation's words: a word only known at run time may be
    an option there unless it cannot begin with `-`."""
    options = [w.literal() if could_be_option(w) else literal_or_text(w) for w in inv.argv]
    return _python_module(options)


def _is_interlock_module(name: str) -> bool:
    return name.split(".")[0] == "interlock"


def _is_interlock_path(path: str) -> bool:
    """`~/.local/bin/interlock`, a checkout's `interlock/` or `interlock/__main__.py`."""
    parts = path.rstrip("/").split("/")
    return parts[-1] == "interlock" or parts[-2:] == ["interlock", "__main__.py"]


def _module_runs_interlock(args: list[str | None]) -> list[str | None] | None:
    """A module that runs another one (`-m pdb -m interlock off`, `-m cProfile -m interlock`,
    `-m runpy interlock off`, `-m trace --module interlock off`): the words after the one
    naming interlock; None when no word does."""
    for k, word in enumerate(args):
        name = (word or "").removeprefix("-m")
        if name and _is_interlock_module(name):
            return args[k + 1 :]
    return None


def _python_module(argv: list[str | None]) -> tuple[str | None, int]:
    """`python [opts] -m MODULE ARGS` (`-mMODULE`, `-Im MODULE`, `-X dev -m MODULE`,
    `--check-hash-based-pycs always -m MODULE`): the module and the index of its first
    argument; else (None, the index of the script operand; len(argv) after `-c CODE`). A
    word only known at run time may be an option (`python3 $OPTS -m interlock off`): the
    options go on after it."""
    i = 1
    while i < len(argv) and ((word := argv[i]) is None or word.startswith("-")) and word != "-":
        if word is None or word.startswith("--"):
            if word == "--":
                return None, i + 1
            i += 2 if word in _PYTHON_LONG_VALUE else 1
            continue
        step = 1
        for pos, letter in enumerate(word[1:], start=2):
            if letter in "cmWX":  # options with a value
                attached, following = word[pos:], argv[i + 1 : i + 2]
                value = attached or (following[0] if following else None)
                step = 1 if attached else 2
                if letter == "m":
                    return value or "", i + step
                if letter == "c":  # the code's own arguments follow: no operand
                    return None, len(argv)
                break
        i += step
    return None, i


_APPROVE = (
    "approval belongs to a person outside the run: `interlock approve` from inside it (under "
    "script, unbuffer, expect or tmux too) would overrule the guard"
)


def _interlock_findings(inv: Invocation) -> list[Finding]:
    words = _interlock_words(inv)
    if words is None:
        return []
    if words[:1] == ["integrate"] and "--remove" in words:  # an agent's or a shell's hooks
        return [_find("selfdisable.interlock-off", inv)]
    every, words = words, [w for w in words if w is None or not w.startswith("-")]
    if not words:
        return []
    first, second = words[0], (words[1] if len(words) > 1 else "")
    if first is None:
        return [_find("selfdisable.interlock-off", inv)]
    if first == "approve":
        info = catalog()["selfdisable.interlock-off"]
        return [make_finding(info, inv, reason=_APPROVE)]
    if first in INTERLOCK_OFF_SUBCOMMANDS or (
        first == "hooks" and second in ("uninstall", "remove")
    ):
        return [_find("selfdisable.interlock-off", inv)]
    if first == "resume" or (first == "run" and (second is None or second in RUN_CONTROL)):
        return [_find("selfdisable.run-control", inv)]
    if first == "turn" and any(
        w is None or w.partition("=")[0] in TURN_RELAXERS for w in every[1:]
    ):
        return [_find("selfdisable.run-control", inv)]
    if first == "daemon" and second in ("stop", "kill"):
        return [_find("selfdisable.kill-daemon", inv)]
    if first == "config" and second in ("set", "unset", "edit", "reset"):
        return [_find("selfdisable.config-edit", inv)]
    return []


def package_manager(inv: Invocation) -> tuple[str | None, tuple[Word, ...]]:
    """The program and its arguments, `python3 -m pip ...` read as `pip ...`."""
    program, args = inv.name, inv.argv[1:]
    if program is not None and _PYTHON.match(program):
        program, i = _python_module_of(inv)
        args = inv.argv[i:]
    return program, args


def _uninstall_findings(inv: Invocation) -> list[Finding]:
    """A package manager removing interlock's package (`pip uninstall -y interlock`, also as
    `python3 -m pip uninstall interlock`): interlock off for every door at once."""
    if uninstalls.removes_interlock(*package_manager(inv)):
        return [_find("selfdisable.interlock-off", inv)]
    return []


def _kill_findings(inv: Invocation) -> list[Finding]:
    if daemonkill.reaches_daemon(inv):
        return [_find("selfdisable.kill-daemon", inv)]
    name = inv.name
    texts = [literal_or_text(w).lower() for w in inv.argv[1:]]
    if name in _KILLERS or (
        name in _SERVICE
        and any(
            t in ("stop", "kill", "disable", "mask", "unload", "bootout", "remove") for t in texts
        )
    ):
        if name == "fuser" and not any(t.startswith("-") and "k" in t for t in texts):
            return []
        if any("interlock" in t for t in texts):
            return [_find("selfdisable.kill-daemon", inv)]
    return []


def _editor_touches(inv: Invocation) -> list[Touch]:
    """An editor opening a file may write it (`vim .interlock.toml`, `nano .git/hooks/x`)."""
    if inv.name not in _EDITORS:
        return []
    return [
        Touch(w, "write") for w in inv.argv[1:] if not (w.literal() or "x").startswith(("-", "+"))
    ]


def _path_findings(inv: Invocation) -> list[Finding]:
    found: list[Finding] = []
    for touch in touched_paths(inv) + _editor_touches(inv):
        rule_id = paths.rule_for(touch, inv.cwd)
        if rule_id is not None:
            found.append(_find(rule_id, inv))
    if paths.mentions_state(inv):
        found.append(_find("selfdisable.state-edit", inv))
    if paths.edits_interlock_table(inv):
        found.append(_find("selfdisable.config-edit", inv))
    return found


def check_selfdisable(inv: Invocation, call: GitCall | None = None) -> list[Finding]:
    """Self-disable findings for one invocation (deduplicated by rule).

    call: `inv` already read as git (or None: read it here).
    """
    found = _env_findings(inv) + _interlock_findings(inv) + _uninstall_findings(inv)
    found += _kill_findings(inv)
    call = call if call is not None else parse_git(inv)
    if call is not None:
        found += _git_findings(inv, call)
    found += _path_findings(inv)
    unique: dict[str, Finding] = {}
    for finding in found:
        unique.setdefault(finding.rule, finding)
    return list(unique.values())
