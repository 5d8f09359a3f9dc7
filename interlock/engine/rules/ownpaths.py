"""Which changed paths are interlock's own: hooks, config, state, git config files, and its
install: the `interlock` and `interlock-sh` programs in a `bin/` directory, its virtualenv
(`~/.local/share/interlock/`), its package in a `site-packages/` (a change to any of them
removes or replaces every door at once, as `pip uninstall interlock` does).

A literal path is resolved against the invocation's cwd and read component by component
(`cd .git && rm hooks/pre-commit` is `.git/hooks/pre-commit`; a bare repository's
`repo.git/hooks` counts too). A path built from expansions is read from its text
(`"$(git rev-parse --git-dir)/hooks/pre-commit"`, `$(git rev-parse --git-path hooks)/x`).
"""

from __future__ import annotations

import re

from interlock.constants import CONFIG_FILE, PYPROJECT, STATE_DIR_NAME
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import known_path, literal_or_text, parse_args
from interlock.engine.rules.common import resolve
from interlock.engine.rules.writes import AWK_SPEC, Touch, awk_in_place

_ONLY_ADDS_EXEC = r"^[ugoa]*\+[xX]+$"
_TEXT_HOOKS = r"(/hooks(/|$)|git-path\s+hooks)"
_TEXT_STATE = r"/" + STATE_DIR_NAME + r"(/|$)"


def _keeps_hook_running(mode: str) -> bool:
    """`+x`, `u+x`, or an octal mode whose owner can execute (755, 0700): not disabling."""
    if re.match(_ONLY_ADDS_EXEC, mode):
        return True
    return mode.isdigit() and len(mode) >= 3 and int(mode[-3]) & 1 == 1


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _under_git_dir(parts: list[str], name: str) -> bool:
    """`<something>.git/<name>` appears in the path."""
    return any(parts[i].endswith(".git") and parts[i + 1] == name for i in range(len(parts) - 1))


def _is_git_config(parts: list[str]) -> bool:
    if not parts:
        return False
    if parts[-1] == ".gitconfig":
        return True
    if len(parts) >= 2 and parts[-1] == "config":
        return parts[-2].endswith(".git") or (parts[-2] == "git" and ".config" in parts[:-2])
    return False


_PROGRAMS = ("interlock", "interlock-sh")
# `$(which interlock)`, `` `command -v interlock-sh` ``: the path of the program on PATH
_FINDS_PROGRAM = re.compile(
    r"\b(which|whereis|command\s+-[vV]|type\s+-[apP]+|realpath|readlink\s+-f)\s+"
    r"([^\s)`]*/)?interlock(-sh)?\b"
)
_PACKAGE_ENTRY = re.compile(r"^(interlock|interlock[-.].*|__editable__[._]+interlock[-_.].*)$")


def _is_install(parts: list[str]) -> bool:
    """`.../bin/interlock`, `.../bin/interlock-sh`, `.../share/interlock[/...]` (install.sh's
    virtualenv), `.../site-packages/interlock[-0.1.dist-info, .pth, ...]`."""
    if len(parts) >= 2 and parts[-1] in _PROGRAMS and parts[-2] == "bin":
        return True
    pairs = list(zip(parts, parts[1:], strict=False))
    return ("share", "interlock") in pairs or any(
        a == "site-packages" and _PACKAGE_ENTRY.match(b.lower()) for a, b in pairs
    )


def _install_rule(touch: Touch, parts: list[str]) -> str | None:
    if touch.verb == "mode" and touch.mode and _keeps_hook_running(touch.mode):
        return None  # `chmod +x ~/.local/bin/interlock` keeps it running
    return "selfdisable.interlock-off" if _is_install(parts) else None


def _literal_rule(touch: Touch, path: str) -> str | None:
    parts = _parts(path)
    if _under_git_dir(parts, "hooks"):
        if touch.verb == "mode" and touch.mode and _keeps_hook_running(touch.mode):
            return None
        return "selfdisable.hooks-edit"
    if touch.verb == "remove" and parts and parts[-1] == ".git":
        return "selfdisable.hooks-edit"
    if _under_git_dir(parts, STATE_DIR_NAME):
        return "selfdisable.state-edit"
    if parts and parts[-1] == CONFIG_FILE:
        return "selfdisable.config-edit"
    if touch.verb != "mode" and _is_git_config(parts):
        return "selfdisable.hooks-path"
    return _install_rule(touch, parts)


def _text_rule(touch: Touch, text: str) -> str | None:
    clean = text.replace('"', "").replace("'", "")
    lowered = clean.lower()
    if "git" in lowered and re.search(_TEXT_HOOKS, clean):
        return "selfdisable.hooks-edit"
    if "git" in lowered and re.search(_TEXT_STATE, clean):
        return "selfdisable.state-edit"
    if clean.endswith(CONFIG_FILE):
        return "selfdisable.config-edit"
    if touch.verb != "mode" and (clean.endswith("/.gitconfig") or clean.endswith("git/config")):
        return "selfdisable.hooks-path"
    if _FINDS_PROGRAM.search(clean):
        return _install_rule(touch, ["bin", "interlock"])
    return _install_rule(touch, _parts(clean))


def rule_for(touch: Touch, cwd: str | None) -> str | None:
    """The self-disable rule a change to this path falls under, or None."""
    literal = known_path(touch.word)
    if literal is None:
        return _text_rule(touch, touch.word.text)
    path = resolve(cwd, literal) if cwd is not None else literal
    return _literal_rule(touch, path) or _literal_rule(touch, literal)


# Where the daemon's state and socket live: <git-dir>/interlock/ (daemon.sock, daemon.pid,
# journal.db), or a short socket path in $XDG_RUNTIME_DIR/interlock/ or /tmp/interlock-UID/.
_STATE_MENTION = re.compile(
    r"(\.git/(worktrees/[^/]+/)?interlock(/|$|\b)|(^|/)interlock/(daemon\.|journal\.db|recorder)"
    r"|daemon\.sock|/interlock-\d+/|(git-dir|git-common-dir|git-path)[^/]*\)?/?\s*interlock)"
)
# Commands that only read what they name (and find, without -delete: see mentions_state).
_READERS = frozenset(
    "cat less more head tail ls stat file wc grep egrep fgrep rg test [ realpath readlink "
    "du tree diff cmp md5sum sha1sum sha256sum strings hexdump xxd od echo printf cd pushd "
    "lsof ss interlock git".split()
)


def mentions_state(inv: Invocation) -> bool:
    """A command other than a reader naming interlock's state dir or socket path in its words
    (`socat UNIX-LISTEN:.git/interlock/daemon.sock`, `python -c "s.bind('...daemon.sock')"`)."""
    if inv.name in _READERS or inv.name is None:
        return False
    if inv.name == "find" and not any(w.literal() == "-delete" for w in inv.argv):
        return False
    return any(_STATE_MENTION.search(literal_or_text(w)) for w in inv.argv[1:])


_IN_PLACE = frozenset(("sed", "gsed", "perl"))


def _in_place(inv: Invocation, texts: list[str]) -> bool:
    """sed/perl `-i` (`-i.bak`, `--in-place`, `-Ei`), gawk `-i inplace`."""
    if inv.name in ("gawk", "awk"):
        return awk_in_place(parse_args(inv.argv[1:], AWK_SPEC))
    return inv.name in _IN_PLACE and any(
        t.startswith("-i")
        or t.startswith("--in-place")
        or (t.startswith("-") and "i" in t[1:] and not t.startswith("--"))
        for t in texts
    )


def edits_interlock_table(inv: Invocation) -> bool:
    """`sed -i '/tool.interlock/,$d' pyproject.toml`: an in-place edit of pyproject.toml whose
    script names interlock (its `[tool.interlock]` table is interlock's configuration)."""
    texts = [literal_or_text(w) for w in inv.argv[1:]]
    if not _in_place(inv, texts):
        return False
    edits_pyproject = any(t.rsplit("/", 1)[-1] == PYPROJECT for t in texts)
    return edits_pyproject and any(
        "interlock" in t.lower() for t in texts if not t.endswith(PYPROJECT)
    )
