"""The self-disable rules: ids, why each matters, and what to do instead."""

from __future__ import annotations

from interlock.rules.common import rule

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
    ("INTERLOCK_MODE=off git reset --hard", "export INTERLOCK_MODE=off", "unset INTERLOCK_RUN_ID"),
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
