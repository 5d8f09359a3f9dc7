"""Reading a git invocation: global options, the subcommand, and where it acts.

`git -C ../other -c color.ui=never --no-pager reset --hard` is the subcommand `reset` with
args (`--hard`), acting in `../other`. `git-reset --hard` (the dashed form) reads the same.
Aliases defined on the command line (`git -c alias.wipe='reset --hard' wipe`) are expanded;
aliases from config files are not (they are not visible in the command line).
"""

from __future__ import annotations

import shlex

from interlock.engine.findings import Finding, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.common import catalog, join_cwd, make_finding
from interlock.shell.model import Word

GLOBAL_OPTS = spec(
    short_value="Cc",
    long_value="git-dir work-tree namespace config-env super-prefix attr-source list-cmds",
    long_flags=(
        "no-pager paginate bare exec-path literal-pathspecs glob-pathspecs noglob-pathspecs "
        "icase-pathspecs no-replace-objects no-lazy-fetch no-optional-locks no-advice "
        "html-path man-path info-path version help"
    ),
    stop_at_positional=True,
)

# Subcommands, to see `git $OPTS reset --hard` (an unknown word where an option may be).
GIT_SUBCOMMANDS = frozenset(
    "add am apply archive bisect blame branch bundle checkout checkout-index cherry-pick clean "
    "clone commit config describe diff fetch filter-branch filter-repo format-patch gc grep init "
    "log ls-files merge mv notes prune pull push read-tree rebase reflog remote reset restore "
    "revert rm show stash status submodule switch tag update-ref worktree".split()
)

# Assignments that point git at another repository or worktree.
_ELSEWHERE_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


class GitCall:
    """One git subcommand as it would run.

    sub: the subcommand (`reset`), or None when it is not a literal.
    args: the words after the subcommand.
    cwd: where it acts (the invocation's cwd combined with every `-C DIR`); None if unknown.
    elsewhere: --git-dir/--work-tree/GIT_DIR= point it at another repository or tree.
    config: `-c key=value` and `--config-env=key=ENV` pairs, keys lower-cased.
    informational: `--help`/`--version` before the subcommand: nothing runs.
    """

    __slots__ = ("inv", "sub", "args", "cwd", "elsewhere", "config", "informational")

    def __init__(
        self,
        inv: Invocation,
        sub: str | None,
        args: tuple[Word, ...],
        cwd: str | None,
        elsewhere: bool,
        config: tuple[tuple[str, str | None], ...],
        informational: bool = False,
    ) -> None:
        self.inv = inv
        self.sub = sub
        self.args = args
        self.cwd = cwd
        self.elsewhere = elsewhere
        self.config = config
        self.informational = informational


def _config_pair(text: str | None) -> tuple[str, str | None]:
    if text is None:
        return ("", None)
    key, eq, value = text.partition("=")
    return (key.strip().lower(), value if eq else "true")


def _alias_words(value: str) -> tuple[Word, ...] | None:
    try:
        parts = shlex.split(value)
    except ValueError:
        return None
    return tuple(Word(p, p) for p in parts)


def _expand_alias(call: GitCall) -> GitCall:
    for key, value in reversed(call.config):
        if call.sub is None or key != f"alias.{call.sub.lower()}" or value is None:
            continue
        if value.startswith("!"):
            return call
        words = _alias_words(value)
        if not words:
            return call
        return GitCall(
            call.inv,
            words[0].literal(),
            words[1:] + call.args,
            call.cwd,
            call.elsewhere,
            call.config,
            call.informational,
        )
    return call


def parse_git(inv: Invocation, assume_git: bool = False) -> GitCall | None:
    """Read `inv` as git, or None when it is not git.

    assume_git: the command name is unknown (`$GIT reset --hard`); read it as git anyway.
    """
    name = inv.name
    words = inv.argv[1:]
    if name is not None and name.startswith("git-") and len(name) > 4:
        words = (Word(name[4:], name[4:]),) + words
    elif name != "git" and not (assume_git and name is None):
        return None
    parsed = parse_args(words, GLOBAL_OPTS)
    cwd = inv.cwd
    elsewhere = any(
        (w.literal() or w.text).split("=", 1)[0] in _ELSEWHERE_ENV for w in inv.assignments
    )
    config: list[tuple[str, str | None]] = []
    for opt in parsed.opts:
        if opt.name == "-C":
            cwd = join_cwd(cwd, opt.value) if opt.value != "" else cwd
        elif opt.name == "-c":
            config.append(_config_pair(opt.value))
        elif opt.name == "--config-env":
            key = (opt.value or "").rsplit("=", 1)[0] if opt.value is not None else None
            config.append(_config_pair(None if key is None else key + "="))
        elif opt.name in ("--git-dir", "--work-tree"):
            elsewhere = True
    informational = parsed.has("--help", "-h", "--version", "-v") or any(
        o.name.endswith("-path") and o.name != "--exec-path" for o in parsed.opts
    )
    rest = parsed.rest or parsed.after_dashdash
    while len(rest) > 1 and rest[0].literal() is None and rest[1].literal() in GIT_SUBCOMMANDS:
        rest = rest[1:]  # `git $OPTS reset --hard`: the unknown word is read as an option
    sub = rest[0].literal() if rest else None
    call = GitCall(inv, sub, tuple(rest[1:]), cwd, elsewhere, tuple(config), informational)
    return _expand_alias(call)


def git_finding(
    rule_id: str,
    call: GitCall,
    targets: Targets,
    *,
    instead: str | None = None,
    reason: str | None = None,
) -> Finding:
    """A finding of a git rule, acting where the call acts (after -C)."""
    return make_finding(
        catalog()[rule_id], call.inv, targets, cwd=call.cwd, instead=instead, reason=reason
    )
