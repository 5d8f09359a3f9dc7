"""git configuration that runs or renames commands, as a command line gives it.

Where configuration comes from on a command line: `git -c key=value`, `--config-env`,
`GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`, `GIT_CONFIG_PARAMETERS`,
and `git config KEY VALUE` (which writes it for every later git command). What in it runs
code: aliases (`alias.x`; `!` makes one a shell snippet), and the keys and environment
variables naming a program git starts (`core.pager`, `core.editor`, `core.fsmonitor`,
`core.sshCommand`, `credential.helper`, `diff.external`, `GIT_PAGER`, `GIT_SSH_COMMAND`, ...),
plus the `ext::` transport and `--upload-pack`-style options.

This module reads those forms (pure: the words only) and declares `git.config-code`, the
finding for such code when it is known only at run time. Literal code is judged as code by
`engine.hidden`, which also reads the aliases a repository's config files define.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.common import rule
from interlock.shell.model import Word

Pair = tuple[str, str | None]  # (key lower-cased, "" when unknown; value, None when unknown)

rule(
    "git.config-code",
    "unparsed",
    "git configuration names a program or alias whose code is only known at run time",
    "git runs the value of an alias (`alias.x`), of keys such as core.pager, core.editor, "
    "core.fsmonitor, core.sshCommand, credential.helper and diff.external, of variables such as "
    "GIT_PAGER, GIT_EDITOR and GIT_SSH_COMMAND, and of an `ext::` remote; literal code there is "
    "judged like the same command typed directly, but a value built at run time (or read from "
    "a config file named on the line) cannot be judged, so it is never assumed harmless",
    "spell the command out instead of routing it through git configuration",
    (
        'git -c core.pager="$PAGER_CMD" log',
        'GIT_SSH_COMMAND="$CMD" git fetch',
        'git -c alias.x="$CODE" x',
        'git config core.fsmonitor "$HOOK"',
        "GIT_CONFIG_GLOBAL=other.gitconfig git status",
    ),
    ("git -c core.pager=cat log", "GIT_PAGER=cat git log", "git config user.name Bot"),
)

# Keys whose value git runs as a shell command (lower-cased; `*` is a subsection).
_PROGRAM_KEYS = (
    "core.pager",
    "pager.*",
    "core.editor",
    "sequence.editor",
    "core.sshcommand",
    "core.askpass",
    "core.fsmonitor",
    "core.gitproxy",
    "core.alternaterefscommand",
    "credential.helper",
    "credential.*.helper",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "gpg.program",
    "gpg.*.program",
    "interactive.difffilter",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.proxy",
    "uploadpack.packobjectshook",
    "web.browser",
    "browser.*.cmd",
    "man.*.cmd",
    "difftool.*.cmd",
    "difftool.*.path",
    "mergetool.*.cmd",
    "mergetool.*.path",
    "man.*.path",
    "browser.*.path",
    "sendemail.tocmd",
    "sendemail.cccmd",
    "sendemail.headercmd",
    "sendemail.sendmailcmd",
    "sendemail.*.tocmd",
    "sendemail.*.cccmd",
    "sendemail.*.headercmd",
    "sendemail.*.sendmailcmd",
    "instaweb.httpd",
    "trailer.*.command",
    "trailer.*.cmd",
    "hook.*.command",
    "gpg.ssh.defaultkeycommand",
)
_PROGRAM_KEY_RE = re.compile(
    "^(" + "|".join(re.escape(k).replace(r"\*", r"[^=]+") for k in _PROGRAM_KEYS) + ")$"
)
# Keys that read more configuration from a file (which may define aliases and programs).
_INCLUDE_KEY_RE = re.compile(r"^(include\.path|includeif\..+\.path)$")
# Keys that are booleans or names where a program would be a path or a command line.
_BOOLEAN_WORDS = frozenset(("true", "false", "yes", "no", "on", "off", "1", "0", ""))

# Environment variables whose value git (and other programs) run as a command.
PROGRAM_ENV = frozenset(
    (
        "GIT_PAGER",
        "PAGER",
        "MANPAGER",
        "GIT_EDITOR",
        "EDITOR",
        "VISUAL",
        "GIT_SEQUENCE_EDITOR",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_EXTERNAL_DIFF",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_PROXY_COMMAND",
        "LESSOPEN",
        "LESSCLOSE",
    )
)
# Environment variables that make git read configuration (or programs) from elsewhere.
_ELSEWHERE_ENV = frozenset(
    ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR")
)
_HARMLESS_ELSEWHERE = frozenset(
    ("/dev/null", "/usr/lib/git-core", "/usr/libexec/git-core", "/usr/share/git-core/templates", "")
)

# Options of git subcommands whose value is a command git runs (as a shell command line).
PROGRAM_OPTIONS = {
    "fetch": ("--upload-pack",),
    "clone": ("--upload-pack", "-u"),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack", "--exec"),
    "archive": ("--exec",),
    "push": ("--receive-pack", "--exec"),
    "send-pack": ("--receive-pack", "--exec"),
    "fetch-pack": ("--upload-pack", "--exec"),
    "difftool": ("-x", "--extcmd"),
    "instaweb": ("-d", "--httpd"),
    "daemon": ("--access-hook",),
    "send-email": ("--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"),
}
# Options of git subcommands whose value is a directory of hook programs git runs.
TEMPLATE_OPTIONS = {"clone": ("--template",), "init": ("--template",)}
# Options whose command can only be attached (`git grep -O'CMD'`, `--open-files-in-pager=CMD`).
ATTACHED_PROGRAM_OPTIONS = {"grep": ("-O", "--open-files-in-pager=")}


def is_program_key(key: str) -> bool:
    """Whether git runs this config key's value as a command (`core.pager`, `pager.log`...)."""
    return bool(_PROGRAM_KEY_RE.match(key))


def is_include_key(key: str) -> bool:
    return bool(_INCLUDE_KEY_RE.match(key))


def program_code(key: str, value: str) -> str | None:
    """The command line a program key's value runs, or None when the value runs nothing
    (`pager.log=false`, `core.fsmonitor=true` (git's own daemon), a credential helper name
    that names `git credential-NAME`)."""
    lowered = value.strip().lower()
    if (key.startswith("pager.") or key == "core.fsmonitor") and lowered in _BOOLEAN_WORDS:
        return None
    if key.startswith("credential.") and key.endswith(".helper"):
        if value.startswith("!"):
            return value[1:]
        if not value.strip():
            return None  # an empty helper resets the list
        if "/" not in value.split(" ", 1)[0]:
            return f"git credential-{value}"
    return value if value.strip() else None


def env_code(name: str, value: str) -> str | None:
    """The command line a variable in PROGRAM_ENV runs (GIT_SSH is a program, not a script)."""
    if not value.strip():
        return None
    return shlex.quote(value) if name == "GIT_SSH" else value


def elsewhere_env(name: str, value: str | None) -> bool:
    """`GIT_CONFIG_GLOBAL=FILE` and friends: configuration (aliases, programs, hooksPath) read
    from a file the line names, which interlock does not read."""
    return name in _ELSEWHERE_ENV and value not in _HARMLESS_ELSEWHERE


def option_pair(text: str | None, prefix: str = "") -> Pair:
    """`-c key=value` (a bare `key` means true). When the word is not literal its value is
    unknown (None), and so is its key ("") unless the word's literal start (`prefix`) holds
    the whole key (`-c core.pager="$X"`: `core.pager=`)."""
    if text is None:
        key, eq, _ = prefix.partition("=")
        return (key.strip().lower(), None) if eq else ("", None)
    key, eq, value = text.partition("=")
    return (key.strip().lower(), value if eq else "true")


def _split_assignment(word: Word) -> tuple[str, str | None]:
    text = word.literal()
    if text is None:
        name = word.text.split("=", 1)[0]
        return name, None
    name, _, value = text.partition("=")
    return name, value


def env_pairs(assignments: Iterable[Word]) -> list[Pair]:
    """Configuration from GIT_CONFIG_COUNT/KEY_n/VALUE_n and GIT_CONFIG_PARAMETERS."""
    values: dict[str, str | None] = {}
    for word in assignments:
        name, value = _split_assignment(word)
        values[name] = value
    pairs: list[Pair] = []
    if "GIT_CONFIG_PARAMETERS" in values:
        pairs += _parameters(values["GIT_CONFIG_PARAMETERS"])
    count_text = values.get("GIT_CONFIG_COUNT")
    numbered = sorted(
        {int(n[len("GIT_CONFIG_KEY_") :]) for n in values if re.match(r"^GIT_CONFIG_KEY_\d+$", n)}
    )
    if "GIT_CONFIG_COUNT" in values or numbered:
        count = int(count_text) if count_text and count_text.isdigit() else None
        indexes = range(count) if count is not None else numbered
        for n in indexes:
            key = values.get(f"GIT_CONFIG_KEY_{n}")
            value = values.get(f"GIT_CONFIG_VALUE_{n}")
            pairs.append(("" if key is None else key.strip().lower(), value))
    return pairs


def _parameters(text: str | None) -> list[Pair]:
    """GIT_CONFIG_PARAMETERS: shell-quoted `'key=value'` or `'key'='value'` items."""
    if text is None:
        return [("", None)]
    try:
        items = shlex.split(text)
    except ValueError:
        return [("", None)]
    return [option_pair(item) for item in items]


def ext_command(url: str) -> str | None:
    """The command an `ext::` remote runs, as a shell command line (`ext::sh -c touch% x`
    runs `sh -c 'touch x'`): `% ` is a space inside an argument, `%%` a percent sign, and
    `%s`/`%S`/`%G`/`%V` stand for values git fills in."""
    if not url.lower().startswith("ext::"):
        return None
    words: list[str] = []
    current = ""
    body = url[5:]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "%" and i + 1 < len(body):
            nxt = body[i + 1]
            current += {" ": " ", "%": "%", "s": "git-upload-pack", "S": "upload-pack"}.get(
                nxt, "x"
            )
            i += 2
            continue
        if ch == " ":
            if current:
                words.append(current)
            current = ""
        else:
            current += ch
        i += 1
    if current:
        words.append(current)
    return shlex.join(words) if words else None


CONFIG_OPTS = spec(
    short_value="f",
    long_value="file blob type default comment value",
    long_flags=(
        "global system local worktree add replace-all unset unset-all get get-all get-regexp "
        "get-urlmatch list edit show-origin show-scope null name-only includes no-includes "
        "fixed-value bool int bool-or-int path expiry-date remove-section rename-section all "
        "regexp url"
    ),
)
_READS = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "-e", "--edit")
_REMOVES = ("--unset", "--unset-all", "--remove-section", "--rename-section")


def config_writes(args: tuple[Word, ...]) -> list[Pair]:
    """The (key, value) pairs `git config ARGS` writes (`git config alias.x 'reset --hard'`,
    `git config set --global core.pager 'less -R'`, `--add`, `--replace-all`)."""
    parsed = parse_args(args, CONFIG_OPTS)
    if parsed.has(*_READS) or parsed.has(*_REMOVES):
        return []
    operands = list(parsed.operands())
    if operands and operands[0].literal() in ("set", "get", "list", "unset", "edit"):
        if operands.pop(0).literal() != "set":
            return []
    if len(operands) < 2:
        return []
    key = operands[0].literal()
    value = operands[1].literal()
    if key is None:
        return [("", value)]
    return [(key.lower(), value)]


CLONE_OPTS = spec(
    short_value="obucj",
    long_value=(
        "origin branch upload-pack config jobs depth template reference reference-if-able "
        "separate-git-dir shallow-since shallow-exclude filter server-option bundle-uri "
        "ref-format revision"
    ),
)


def clone_config(args: tuple[Word, ...]) -> list[Pair]:
    """The configuration `git clone -c KEY=VALUE` / `--config` gives the new repository, which
    the clone itself already uses (`-c core.sshCommand=...` runs for the first fetch)."""
    opts = parse_args(args, CLONE_OPTS).values("-c", "--config")
    return [option_pair(opt.value, opt.prefix) for opt in opts]
