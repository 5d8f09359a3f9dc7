"""Would this command kill interlock's daemon? Read the way the killing tools match processes.

The daemon is a Python process: its name (`comm`) is the interpreter's (`python3`, `python`,
`python3.12`) and its command line is `PYTHON -m interlock daemon run --cwd WORKTREE`. So
`pkill python`, `pkill -f interlock`, `pkill -f 'daemon run'`, `killall python3`,
`killall -r 'py.*'` all reach it, as do signals to every process (`kill -9 -1`), to every
process of the user (`pkill -u me`, `killall -u me`, `killall5`), and pids that name it
(`kill $(cat .git/interlock/daemon.pid)`, `kill $(pgrep -f interlock)`), also through a
variable (`P=$(pgrep -f interlock); kill $P`, `for p in $(pgrep ...)`, `pgrep ... | while
read p`: the commands a variable's value comes from, Word.carried).
Patterns are matched as the tools do: a regular expression searched in the name, or with
`-f` in the whole command line; `-x` must match all of it; `-i` ignores case.
"""

from __future__ import annotations

import re

from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_or_text, parse_args, spec
from interlock.shell.model import CommandList, Node, Pipeline, SimpleCommand, Word

# Names as `pkill` reads them (`comm`: the kernel keeps 15 characters; these are shorter).
DAEMON_NAMES = ("python3", "python", "python3.11", "python3.12", "python3.13", "interlock")
DAEMON_COMMANDS = (
    "/usr/bin/python3 -m interlock daemon run --cwd /home/user/project",
    "/home/user/.local/share/interlock/venv/bin/python -m interlock daemon run --cwd /srv/app",
)
_PKILL = spec(
    short_value="tFgGPsuUen",
    long_value="signal pgroup group parent session euid uid terminal pidfile ns nslist",
    long_flags="full exact ignore-case newest oldest inverse echo count logpidfile",
)
_KILLALL = spec(short_value="usyo", long_value="user signal younger-than older-than context")
_EVERYONE = frozenset(("-1",))
_GREP = spec(
    short_value="efmABCdD",
    long_value="regexp file max-count after-context before-context context label binary-files "
    "devices directories exclude include exclude-dir exclude-from group-separator",
    long_flags="ignore-case invert-match fixed-strings extended-regexp perl-regexp",
)
_RG = spec(  # rg: -E is --encoding, -r --replace; its regex reads as grep -E's
    short_value="efmABCgtTjErM",
    long_value="regexp file max-count after-context before-context context glob iglob type "
    "type-not threads encoding replace max-columns",
    long_flags="ignore-case smart-case invert-match fixed-strings",
)
# The short option each long one of grep and rg is (`-S`: rg's smart case may ignore case).
_GREP_LONG = {
    "--file": "-f",
    "--ignore-case": "-i",
    "--smart-case": "-S",
    "--invert-match": "-v",
    "--fixed-strings": "-F",
    "--extended-regexp": "-E",
    "--perl-regexp": "-P",
}


def _basename(path: str) -> str:
    return path.rpartition("/")[2]


def _matches(pattern: str, full: bool, exact: bool, ignore_case: bool, inverse: bool) -> bool:
    flags = re.IGNORECASE if ignore_case else 0
    targets = DAEMON_COMMANDS if full else DAEMON_NAMES
    try:
        regex = re.compile(pattern, flags)
    except re.error:
        return True  # a pattern we cannot read may match anything
    hit = any((regex.fullmatch(t) if exact else regex.search(t)) for t in targets)
    return hit != inverse


def pkill_reaches(argv: tuple[Word, ...]) -> bool:
    """`pkill [options] PATTERN` (or pgrep's options) would signal the daemon."""
    args = parse_args(argv[1:], _PKILL)
    patterns = [literal_or_text(w) for w in args.operands()]
    if any(w.literal() is None for w in args.operands()):
        return True
    full = args.has("-f", "--full")
    exact = args.has("-x", "--exact")
    ignore = args.has("-i", "--ignore-case")
    inverse = args.has("-v", "--inverse")
    if not patterns:
        # no pattern: every process of the named users, groups, sessions...
        return args.has("-u", "-U", "--euid", "--uid", "-g", "-G", "-s", "--session")
    return any(_matches(p, full, exact, ignore, inverse) for p in patterns)


def killall_reaches(argv: tuple[Word, ...]) -> bool:
    """`killall [options] NAME...` would signal the daemon."""
    args = parse_args(argv[1:], _KILLALL)
    names = args.operands()
    if any(w.literal() is None for w in names):
        return True
    if not names:
        return args.has("-u", "--user")
    regex = args.has("-r", "--regexp")
    ignore = args.has("-I", "--ignore-case")
    for word in names:
        name = literal_or_text(word)
        pattern = name if regex else re.escape(_basename(name))
        if _matches(pattern, full=False, exact=not regex, ignore_case=ignore, inverse=False):
            return True
    return False


def _basic_regex(pattern: str) -> str:
    """grep's basic regular expression as Python reads one: `(`, `|`, `+`... are literal
    unless escaped."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}|+?" else ch + nxt)
            i += 2
            continue
        out.append("\\" + ch if ch in "(){}|+?" else ch)
        i += 1
    return "".join(out)


def _prints_daemon_pid(node: Node) -> bool:
    """Whether the pids a `$(...)` body prints may include the daemon's: a list prints what
    each of its parts prints (`pgrep node; pgrep python`), a pipeline what its filters let
    through, a group or subshell what its body prints; other compounds (`if`, loops) are not
    read, and unknown is not safe."""
    if isinstance(node, SimpleCommand):
        return pids_reach_daemon([node])
    if isinstance(node, Pipeline):
        return pids_reach_daemon([c for c in node.commands if isinstance(c, SimpleCommand)])
    if isinstance(node, CommandList):
        return any(_prints_daemon_pid(item) for item in node.items)
    if node.kind in ("subshell", "group"):
        return any(_prints_daemon_pid(part) for part in node.parts)
    return True


def _grep_reaches(name: str, argv: tuple[Word, ...]) -> bool:
    """`grep [options] PATTERN` (`-e P`..., or patterns read from a file: unknown) lets a
    line of `ps` naming the daemon through, read with grep's or rg's options."""
    args = parse_args(argv, _RG if name == "rg" else _GREP)
    named = {_GREP_LONG.get(o.name, o.name) for o in args.opts}
    given = args.values("-e", "--regexp")
    values = [o.value for o in given] if given else [w.literal() for w in args.operands()[:1]]
    if "-f" in named or None in values:
        return True
    patterns = [v or "" for v in values]
    if not patterns:
        return False  # no pattern: grep fails, no pid comes through
    if name == "fgrep" or "-F" in named:
        patterns = [re.escape(p) for p in patterns]
    elif name == "grep" and not named & {"-E", "-P"}:
        patterns = [_basic_regex(p) for p in patterns]
    pattern = "|".join(f"(?:{p})" for p in patterns)
    return _matches(pattern, True, False, bool(named & {"-i", "-S"}), "-v" in named)


def finder_reaches(command: SimpleCommand) -> bool:
    """`pgrep ...`, `pidof NAME`, `grep PATTERN` (in `ps | grep`) find the daemon's pid.
    `command` is one of _FINDERS."""
    name = _basename(command.words[0].literal() or "")
    if name == "pgrep":
        return pkill_reaches(command.words)
    argv = command.words[1:]
    if name == "pidof":
        return any(
            w.literal() is None or _basename(w.literal() or "") in DAEMON_NAMES
            for w in argv
            if not (w.literal() or "").startswith("-")
        )
    return _grep_reaches(name, argv)  # grep, egrep, fgrep, rg


_FINDERS = frozenset(("pgrep", "pidof", "grep", "egrep", "fgrep", "rg"))


def pids_reach_daemon(commands: list[SimpleCommand]) -> bool:
    """Whether the pids these commands produce (a pipeline, or a `$(...)`) include the daemon's:
    every filter in it must let the daemon through (`ps | grep -v grep | grep node` does not),
    or, with no filter, a command names interlock's pid file or the daemon."""
    finders = [c for c in commands if c.words and _basename(c.words[0].literal() or "") in _FINDERS]
    if finders:
        return all(finder_reaches(c) for c in finders)
    return any("interlock" in c.text or "daemon.pid" in c.text for c in commands)


def kill_reaches(inv: Invocation) -> bool:
    """`kill` of every process (`-1`), or of pids computed by a command that finds the
    daemon (`$(cat .git/interlock/daemon.pid)`, `$(pgrep -f interlock)`)."""
    argv = inv.argv[1:]
    if inv.extra_args and any(_prints_daemon_pid(n) for n in inv.stdin):
        return True  # `echo "$P" | xargs kill`, `xargs kill <<< "$(pgrep x)"`
    i = 0
    if argv and argv[0].literal() in ("-s", "-n", "--signal"):
        i = 2
    elif argv and (argv[0].literal() or "").startswith("-"):
        i = 1  # the signal (`kill -1 PID` sends SIGHUP, `kill -9 -1` signals every process), `--`
    for word in argv[i:]:
        if word.literal() in _EVERYONE:
            return True
        if any(_prints_daemon_pid(n) for n in word.substitutions + word.carried):
            return True  # `kill $(pgrep x)`, `P=$(pgrep x); kill $P` (engine.shellvars)
    return False


def literal_pids(inv: Invocation) -> list[int]:
    """The literal pids a `kill` signals (`kill -9 1234 5678`), to compare with the daemon's
    pid file: copying the pid out of it first is killing it by pid too."""
    if inv.name != "kill":
        return []
    pids: list[int] = []
    for k, word in enumerate(inv.argv[1:], start=1):
        value = word.literal() or ""
        previous = inv.argv[k - 1].literal()  # `kill` itself before the first
        if value.isdigit() and previous not in ("-s", "-n", "--signal"):
            pids.append(int(value))
    return pids


def reaches_daemon(inv: Invocation) -> bool:
    """Whether the invocation signals the daemon (see the module docstring)."""
    name = inv.name
    if name in ("pkill", "skill", "slay"):
        return pkill_reaches(inv.argv)
    if name == "killall":
        return killall_reaches(inv.argv)
    if name == "killall5":
        return True
    if name == "kill":
        return kill_reaches(inv)
    return False
