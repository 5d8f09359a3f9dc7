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
from interlock.engine.rules import ownpaths as paths
from interlock.engine.rules.args import literal_or_text, parse_args, spec
from interlock.engine.rules.common import catalog, make_finding, rule
from interlock.engine.rules.git.invocation import GitCall, parse_git
from interlock.engine.rules.writes import touched_paths

# `interlock X` subcommands that turn interlock down (`hooks uninstall`, `daemon stop` and
# `config set` are read separately).
INTERLOCK_OFF_SUBCOMMANDS = frozenset(
    ("off", "disable", "uninstall", "allow", "approve", "pause", "bypass", "suspend")
)

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
    "interlock off / uninstall / allow / approve from inside the run",
    f"the run would turn off or overrule its own guard ({_PERSON})",
    "do what the finding asks instead; a person can approve it outside the run",
    ("interlock off", "interlock uninstall", "interlock allow", "interlock hooks uninstall"),
    ("interlock check 'git status'", "interlock explain git.reset-hard", "interlock status"),
)
rule(
    "selfdisable.env-override",
    "self-disable",
    "INTERLOCK_* environment variables set or unset inside the run",
    f"interlock's settings come from the environment a person set up; changing them from "
    f"inside the run relaxes the guard ({_PERSON})",
    "run the command without the INTERLOCK_* assignment",
    ("INTERLOCK_MODE=off git reset --hard", "export INTERLOCK_MODE=off", "unset INTERLOCK_RUN"),
    ("echo $INTERLOCK_MODE", "env | grep INTERLOCK"),
)
rule(
    "selfdisable.kill-daemon",
    "self-disable",
    "stopping or killing the interlock daemon",
    f"the daemon records every change to the tree; without it lost work cannot be recovered "
    f"({_PERSON})",
    "leave the daemon running; `interlock daemon status` shows what it does",
    (
        "pkill -f interlock",
        "killall interlock",
        "kill $(cat .git/interlock/daemon.pid)",
        "interlock daemon stop",
    ),
    ("pkill -f pytest", "interlock daemon status", "kill %1"),
)
rule(
    "selfdisable.config-edit",
    "self-disable",
    "editing interlock's configuration (.interlock.toml) from inside the run",
    f"the run would write its own rules ({_PERSON}; the run keeps reading the config as it "
    "was at its baseline)",
    "leave .interlock.toml alone; propose the change to a person",
    (
        "echo 'mode = \"off\"' > .interlock.toml",
        "rm .interlock.toml",
        "sed -i 's/blocking/off/' .interlock.toml",
    ),
    ("cat .interlock.toml", "interlock config show"),
)
rule(
    "selfdisable.state-edit",
    "self-disable",
    "writing to or removing interlock's state (.git/interlock/)",
    f"the journal, the daemon's socket and pid file are interlock's memory of the run ({_PERSON})",
    "leave .git/interlock/ alone; `interlock daemon status` and `interlock snapshots` read it",
    ("rm -rf .git/interlock", "sqlite3 .git/interlock/journal.db 'delete from events'"),
    ("cat .git/interlock/daemon.log",),
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
    if operands[0] in ("get", "list", "edit"):
        return False
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
    elif _no_verify(call):
        found.append(_find("selfdisable.no-verify", inv))
    return found


def _env_findings(inv: Invocation) -> list[Finding]:
    found: list[Finding] = []
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
        names = [o.removeprefix("--unset=").removeprefix("-u").split("=", 1)[0] for o in operands]
        if any(re.match(_ENV_NAME, n) for n in names):
            found.append(_find("selfdisable.env-override", inv))
    return found


def _interlock_findings(inv: Invocation) -> list[Finding]:
    argv = [w.literal() for w in inv.argv]
    name = inv.name
    if name == "interlock":
        words = argv[1:]
    elif (
        name is not None and re.match(r"^python[0-9.]*$", name) and argv[1:3] == ["-m", "interlock"]
    ):
        words = argv[3:]
    else:
        return []
    words = [w for w in words if w is None or not w.startswith("-")]
    if not words:
        return []
    first, second = words[0], (words[1] if len(words) > 1 else "")
    if first is None:
        return [_find("selfdisable.interlock-off", inv)]
    if first in INTERLOCK_OFF_SUBCOMMANDS or (
        first == "hooks" and second in ("uninstall", "remove")
    ):
        return [_find("selfdisable.interlock-off", inv)]
    if first == "daemon" and second in ("stop", "kill"):
        return [_find("selfdisable.kill-daemon", inv)]
    if first == "config" and second in ("set", "unset", "edit", "reset"):
        return [_find("selfdisable.config-edit", inv)]
    return []


def _kill_findings(inv: Invocation) -> list[Finding]:
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


def _path_findings(inv: Invocation) -> list[Finding]:
    found: list[Finding] = []
    for touch in touched_paths(inv):
        rule_id = paths.rule_for(touch, inv.cwd)
        if rule_id is not None:
            found.append(_find(rule_id, inv))
    return found


def check_selfdisable(inv: Invocation, call: GitCall | None = None) -> list[Finding]:
    """Self-disable findings for one invocation (deduplicated by rule).

    call: `inv` already read as git (or None: read it here).
    """
    found = _env_findings(inv) + _interlock_findings(inv) + _kill_findings(inv)
    call = call if call is not None else parse_git(inv)
    if call is not None:
        found += _git_findings(inv, call)
    found += _path_findings(inv)
    unique: dict[str, Finding] = {}
    for finding in found:
        unique.setdefault(finding.rule, finding)
    return list(unique.values())
