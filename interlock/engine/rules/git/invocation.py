"""Reading a git invocation: global options, the subcommand, and where it acts.

`git -C ../other -c color.ui=never --no-pager reset --hard` is the subcommand `reset` with
args (`--hard`), acting in `../other`. `git-reset --hard` (the dashed form) reads the same.
Aliases the command line itself defines (`git -c alias.wipe='reset --hard' wipe`,
GIT_CONFIG_COUNT/KEY_n/VALUE_n, GIT_CONFIG_PARAMETERS) are expanded here, chains included;
`!` aliases and aliases from config files are judged by `engine.hidden`.
"""

from __future__ import annotations

import shlex

from interlock.engine.findings import Finding, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.places import cwd_of
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.common import catalog, join_cwd, make_finding
from interlock.engine.rules.git.config import Pair, env_pairs, option_pair
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

# git's own commands (builtins and the programs in its exec path). git runs these before it
# looks at aliases, so an alias can never rename one; any other name may be an alias.
GIT_COMMANDS = GIT_SUBCOMMANDS | frozenset(
    """add--interactive annotate backfill bisect--helper bugreport cat-file check-attr
    check-ignore check-mailmap check-ref-format checkout--worker cherry column commit-graph
    commit-tree count-objects credential credential-cache credential-cache--daemon
    credential-store daemon diagnose diff-files diff-index diff-tree difftool difftool--helper
    env--helper fast-export fast-import fetch-pack fmt-merge-msg for-each-ref for-each-repo
    fsck fsck-objects fsmonitor--daemon get-tar-commit-id hash-object help hook http-backend
    http-fetch http-push imap-send index-pack init-db instaweb interpret-trailers last-modified
    ls-remote ls-tree mailinfo mailsplit maintenance merge-base merge-file merge-index
    merge-octopus merge-one-file merge-ours merge-recursive merge-recursive-ours
    merge-recursive-theirs merge-resolve merge-subtree merge-tree mergetool mktag mktree
    multi-pack-index name-rev pack-objects pack-redundant pack-refs patch-id pickaxe
    prune-packed quiltimport range-diff receive-pack refs remote-ext remote-fd remote-ftp
    remote-ftps remote-http remote-https repack replace replay repo request-pull rerere
    rev-list rev-parse send-email send-pack sh-i18n--envsubst shell shortlog show-branch
    show-index show-ref sparse-checkout stage stripspace submodule--helper subtree survey
    symbolic-ref unpack-file unpack-objects update-index update-server-info upload-archive
    upload-archive--writer upload-pack var verify-commit verify-pack verify-tag version
    web--browse whatchanged write-tree gui citool gitk p4 svn cvsimport cvsserver
    cvsexportcommit archimport""".split()
)

# Assignments that point git at another repository or worktree.
_ELSEWHERE_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


class GitCall:
    """One git subcommand as it would run.

    sub: the subcommand (`reset`), or None when it is not a literal.
    args: the words after the subcommand.
    cwd: where it acts (the invocation's cwd combined with every `-C DIR`); None if unknown.
    elsewhere: --git-dir/--work-tree/GIT_DIR= point it at another repository or tree.
    config: configuration the command line gives (`-c key=value`, `--config-env`, the
      GIT_CONFIG_* variables), keys lower-cased, in the order git applies them.
    informational: `--help`/`--version` before the subcommand: nothing runs.
    exec_paths: the directories `--exec-path=DIR` makes git run its programs from (None:
      only known at run time).
    aliases: the command-line aliases expanded to reach `sub`: (name, value) pairs.
    """

    __slots__ = (
        "inv",
        "sub",
        "args",
        "cwd",
        "elsewhere",
        "config",
        "informational",
        "aliases",
        "exec_paths",
    )

    def __init__(
        self,
        inv: Invocation,
        sub: str | None,
        args: tuple[Word, ...],
        cwd: str | None,
        elsewhere: bool,
        config: tuple[Pair, ...],
        informational: bool = False,
        aliases: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.inv = inv
        self.sub = sub
        self.args = args
        self.cwd = cwd
        self.elsewhere = elsewhere
        self.config = config
        self.informational = informational
        self.aliases = aliases
        self.exec_paths: tuple[str | None, ...] = ()


def _alias_words(value: str) -> tuple[Word, ...] | None:
    try:
        parts = shlex.split(value)
    except ValueError:
        return None
    return tuple(Word(p, p) for p in parts)


def alias_value(config: tuple[Pair, ...], name: str) -> str | None:
    """The value the command line gives `alias.NAME` (the last one wins), or None."""
    key = f"alias.{name.lower()}"
    for found, value in reversed(config):
        if found == key:
            return value
    return None


def _expand_alias(call: GitCall) -> GitCall:
    """Expand aliases the command line itself defines (`-c alias.x=...`, GIT_CONFIG_*), chains
    included; a `!` alias is shell code, judged by engine.hidden, and stays unexpanded here."""
    seen: set[str] = set()
    exec_paths = call.exec_paths
    while call.sub is not None and call.sub not in seen and call.sub not in GIT_COMMANDS:
        name = call.sub
        seen.add(name)
        value = alias_value(call.config, name)
        if value is None or value.startswith("!"):
            return call
        words = _alias_words(value)
        if not words:
            return call
        call = GitCall(
            call.inv,
            words[0].literal(),
            words[1:] + call.args,
            call.cwd,
            call.elsewhere,
            call.config,
            call.informational,
            call.aliases + ((name, value),),
        )
        call.exec_paths = exec_paths
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
    config: list[Pair] = env_pairs(inv.assignments)
    exec_paths: list[str | None] = []
    for opt in parsed.opts:
        if opt.name == "-C":
            place = opt.word.place if opt.word is not None else None  # (never a literal's)
            if place is not None:  # `-C "$(git rev-parse --show-toplevel)"`: a known place
                cwd = cwd_of(place)  # wherever git was, the place is known
                continue
            cwd = join_cwd(cwd, opt.value) if opt.value != "" else cwd
            elsewhere = elsewhere or opt.value is None  # `-C "$d"`: any repository at all
        elif opt.name == "-c":
            config.append(option_pair(opt.value, opt.prefix))
        elif opt.name == "--config-env":
            key = (opt.value or "").rsplit("=", 1)[0] if opt.value is not None else None
            config.append((key.strip().lower(), None) if key is not None else ("", None))
        elif opt.name in ("--git-dir", "--work-tree"):
            elsewhere = True
        elif opt.name == "--exec-path" and (opt.value is not None or opt.unknown_value):
            exec_paths.append(opt.value)
    informational = parsed.has("--help", "-h", "--version", "-v") or any(
        o.name.endswith("-path") and o.name != "--exec-path" for o in parsed.opts
    )
    # `-c core.worktree=DIR` is --work-tree (a key only known at run time may be it)
    elsewhere = elsewhere or any(key in ("core.worktree", "") for key, _ in config)
    rest = parsed.rest or parsed.after_dashdash
    while len(rest) > 1 and rest[0].literal() is None and rest[1].literal() in GIT_SUBCOMMANDS:
        rest = rest[1:]  # `git $OPTS reset --hard`: the unknown word is read as an option
    sub = rest[0].literal() if rest else None
    call = GitCall(inv, sub, tuple(rest[1:]), cwd, elsewhere, tuple(config), informational)
    call.exec_paths = tuple(exec_paths)
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
