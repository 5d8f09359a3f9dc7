"""Prefix runners: `PROGRAM [options] COMMAND ARGS` hands the command over to run as words.

chroot, unshare, nsenter and systemd-run (which move the command: another root, directory,
namespace or service), xvfb-run, firejail, bwrap, dbus-run-session,
ssh-agent, sg, setpriv, prlimit, numactl, faketime, fakeroot, eatmydata, torsocks,
proxychains, sshpass, rlwrap, cpulimit, setarch, tsp, entr, ...; the `-- CMD` form of secret
and version managers (op run, doppler run, dotenvx run, mise exec, aws-vault exec); runners
of commands given as arguments (hyperfine, nodemon --exec, watchexec). See wrappers.py for
the Unwrap kinds.
"""

from __future__ import annotations

from collections.abc import Callable

from interlock.engine.mounts import OPAQUE, Mounts
from interlock.engine.unwrap import (
    KEEP,
    OptSpec,
    Script,
    Unwrap,
    command_name,
    exec_at,
    lit,
    parse_options,
    script_from,
)
from interlock.shell.model import Word

Handler = Callable[[tuple[Word, ...], str | None], Unwrap | None]


def _after_dashdash(via: str) -> Handler:
    """`PROGRAM [anything] -- CMD ARGS`: the command after the first `--`."""

    def handler(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
        for k, word in enumerate(words[1:], start=1):
            if lit(word) == "--":
                return exec_at(via, words, k + 1)
        return None

    return handler


# -- PROGRAM [options] COMMAND ARGS --------------------------------------

_RUNNERS: dict[str, tuple[OptSpec, int]] = {  # name -> (options with values, operands first)
    "xvfb-run": (
        OptSpec(
            "nsfepw",
            {"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"},
        ),
        0,
    ),
    "firejail": (OptSpec(""), 0),
    "dbus-run-session": (OptSpec("", {"config-file", "dbus-daemon"}), 0),
    "ssh-agent": (OptSpec("aEPt"), 0),
    "setpriv": (
        OptSpec(
            "",
            {
                "reuid",
                "regid",
                "groups",
                "inh-caps",
                "ambient-caps",
                "bounding-set",
                "securebits",
                "selinux-label",
                "apparmor-profile",
            },
        ),
        0,
    ),
    "prlimit": (OptSpec("p", {"pid"}), 0),
    "numactl": (
        OptSpec("CNmPpi", {"physcpubind", "cpunodebind", "membind", "preferred", "interleave"}),
        0,
    ),
    "faketime": (OptSpec("fm"), 1),
    "fakeroot": (OptSpec("is", {"lib", "faked"}), 0),
    "fakechroot": (OptSpec("ecl", {"environment", "config-dir", "lib"}), 0),
    "eatmydata": (OptSpec(""), 0),
    "torsocks": (OptSpec("uapP", {"user", "pass", "address", "port"}), 0),
    "proxychains": (OptSpec("f"), 0),
    "proxychains4": (OptSpec("f"), 0),
    "sshpass": (OptSpec("pfdP"), 0),
    "rlwrap": (OptSpec("aAbcCefFhHlmMnNoOpPqrRsStwz"), 0),
    "cpulimit": (OptSpec("lpe", {"limit", "pid", "exe"}), 0),
    "setarch": (OptSpec(""), 1),
    "linux32": (OptSpec(""), 0),
    "linux64": (OptSpec(""), 0),
    "tsp": (OptSpec("LDNW"), 0),
    "nq": (OptSpec(""), 0),
    "entr": (OptSpec(""), 0),
    "nocache": (OptSpec(""), 0),
    "catchsegv": (OptSpec(""), 0),
    "sg": (OptSpec(""), 1),
    "run-one": (OptSpec(""), 0),
    "daemonize": (OptSpec("aceElopuv"), 0),
    "bwrap": (
        OptSpec(
            "",
            {
                "args",
                "userns",
                "userns2",
                "pidns",
                "uid",
                "gid",
                "hostname",
                "chdir",
                "unsetenv",
                "lock-file",
                "sync-fd",
                "remount-ro",
                "exec-label",
                "file-label",
                "proc",
                "dev",
                "tmpfs",
                "mqueue",
                "dir",
                "seccomp",
                "add-seccomp-fd",
                "block-fd",
                "userns-block-fd",
                "info-fd",
                "json-status-fd",
                "cap-add",
                "cap-drop",
                "perms",
                "size",
                "chmod",
            },
        ),
        0,
    ),
}
# bwrap options that take two values (`--bind SRC DEST`).
_TWO_VALUES = frozenset(
    (
        "--bind",
        "--bind-try",
        "--dev-bind",
        "--dev-bind-try",
        "--ro-bind",
        "--ro-bind-try",
        "--setenv",
        "--symlink",
        "--file",
        "--bind-data",
        "--ro-bind-data",
        "--chmod",
    )
)


def _runner(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or ""
    spec, operands = _RUNNERS[name]
    i = 1
    if name == "bwrap":
        while i < len(words) and (v := lit(words[i])) is not None and v.startswith("--"):
            i += 3 if v in _TWO_VALUES else 2 if v[2:] in spec.long else 1
        return exec_at(name, words, i)
    if name == "sg" and len(words) > 3 and lit(words[2]) == "-c":
        return script_from(words[3], "sg -c")
    parsed = parse_options(words, i, spec)
    if parsed is None:
        return None
    clears = name == "setpriv" and parsed[0].has("--reset-env")  # only TERM and the user's
    return exec_at(name, words, parsed[1] + operands, clears_env=clears)


# -- runners that move the command: another root, directory, namespace or service -----------

_CHROOT = OptSpec("", {"userspec", "groups"})


def _chroot(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`chroot [opts] DIR CMD`: CMD runs at DIR's top, DIR its `/` (an unknown DIR: unknown)."""
    parsed = parse_options(words, 1, _CHROOT)
    if parsed is None or parsed[1] >= len(words):
        return None
    opts, i = parsed
    root = words[i].literal()
    if opts.has("--skip-chdir"):  # (only allowed when DIR is `/`)
        return exec_at("chroot", words, i + 1)
    return exec_at("chroot", words, i + 1, mounts=_new_root(root, "/"))


def _new_root(root: str | None, workdir: str) -> Mounts:
    """A command run under another root: its `/` is root (relative to where it starts)."""
    return OPAQUE if root is None else Mounts((("/", root),), workdir)


_UNSHARE = OptSpec(
    "SGRw",
    {
        "setuid",
        "setgid",
        "root",
        "wd",
        "propagation",
        "setgroups",
        "map-user",
        "map-group",
        "map-users",
        "map-groups",
        "monotonic",
        "boottime",
    },
    attached="muinpUCT",  # namespaces: an optional file, attached only
)


def _unshare(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`unshare [opts] CMD`: `-w/--wd DIR` runs it in DIR; `-R/--root DIR` makes DIR its `/`
    and its directory `/` there (or --wd's, inside the new root)."""
    parsed = parse_options(words, 1, _UNSHARE)
    if parsed is None:
        return None
    opts, i = parsed
    wd = opts.directory("-w", "--wd")
    if not opts.has("-R", "--root"):
        return exec_at("unshare", words, i, cwd=wd)
    root = opts.value("-R", "--root")
    wd = opts.directory("-w", "--wd", places=False)  # the host's places are not the root's
    inner = "/" if wd == KEEP else wd
    if inner is None or not inner.startswith("/"):  # relative to a directory outside it
        return exec_at("unshare", words, i, cwd=None)
    return exec_at("unshare", words, i, mounts=_new_root(root, inner))


# util-linux nsenter: namespaces, --root and --wd take an optional value, attached only.
_NSENTER = OptSpec(
    "tSGW",
    {"target", "setuid", "setgid", "wdns"},
    attached="muinpCUTrw",
    flags=(
        "all",
        "mount",
        "uts",
        "ipc",
        "net",
        "pid",
        "cgroup",
        "user",
        "time",
        "root",
        "wd",
        "no-fork",
        "preserve-credentials",
        "env",
        "follow-context",
        "join-cgroup",
        "keep-caps",
        "user-parent",
        "help",
        "version",
    ),
)


def _nsenter(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`nsenter [opts] CMD`: `-wDIR`/`--wd=DIR` runs CMD in DIR (opened before entering the
    namespaces); `-w` alone, `-W`, another mount namespace (`-m`, `-a`) or root (`-r`) put it
    where the target process is, which nobody here can name."""
    parsed = parse_options(words, 1, _NSENTER)
    if parsed is None:
        return None
    opts, i = parsed
    wd = opts.directory("-w", "--wd")
    elsewhere = ("-W", "--wdns", "-r", "--root", "-m", "--mount", "-a", "--all")
    if opts.has(*elsewhere) and (wd == KEEP or opts.has("-r", "--root")):
        wd = None
    return exec_at("nsenter", words, i, cwd=wd)


_SYSTEMD_RUN = OptSpec(
    "pEuMHC",
    {
        "property",
        "setenv",
        "unit",
        "description",
        "slice",
        "working-directory",
        "uid",
        "gid",
        "nice",
        "machine",
        "host",
        "on-calendar",
        "on-active",
        "on-boot",
        "on-startup",
        "on-unit-active",
        "on-unit-inactive",
        "on-clock-change",
        "on-timezone-change",
        "path-property",
        "socket-property",
        "timer-property",
        "service-type",
        "send-sighup",
        "background",
        "json",
    },
)
_SERVICE_HIDES = (
    "runs as a service (`systemd-run` without --wait): its exit status never comes back"
)


def _systemd_run(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`systemd-run [opts] CMD`: a service of the system manager runs in `/`, of the user's
    (`--user`) in the user's home, unless `--working-directory=DIR`, `-p WorkingDirectory=DIR`
    or `-d/--same-dir` say otherwise; `--scope` runs it here. On another machine or host
    (`-M`, `-H`), where it runs is unknown. Without --wait (or --pipe, --pty, --scope) the
    command's status never comes back."""
    parsed = parse_options(words, 1, _SYSTEMD_RUN)
    if parsed is None:
        return None
    opts, i = parsed
    cwd: str | None = "/"
    for name, value in opts.items:
        if name in ("-p", "--property") and (value is None or value.startswith("WorkingDir")):
            cwd = _working_directory(value.partition("=")[2] if value else None)
        elif name == "--working-directory":
            cwd = _working_directory(value)
    if opts.has("--user") and cwd == "/":
        cwd = None
    if opts.has("-d", "--same-dir", "--scope", "-S", "--shell"):
        cwd = KEEP
    if opts.has("-M", "--machine", "-H", "--host"):
        cwd = None
    waits = ("--wait", "-P", "--pipe", "-t", "--pty", "--scope", "-S", "--shell")
    masks = None if opts.has(*waits) else _SERVICE_HIDES
    return exec_at("systemd-run", words, i, cwd=cwd, masks=masks)


def _working_directory(value: str | None) -> str | None:
    """WorkingDirectory=: `-DIR` (a failure to enter it is ignored), `~` (the user's home)."""
    if value is None:
        return None
    path = value.removeprefix("-")
    return None if not path or path.startswith("~") else path


def _hyperfine(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    spec = OptSpec(
        "wmMrspcnSuLP",
        {
            "warmup",
            "min-runs",
            "max-runs",
            "runs",
            "setup",
            "prepare",
            "cleanup",
            "command-name",
            "shell",
            "parameter-scan",
            "parameter-list",
            "export-json",
            "export-csv",
            "export-markdown",
            "output",
            "style",
            "time-unit",
            "sort",
            "reference",
        },
    )
    parsed = parse_options(words, 1, spec)
    if parsed is None:
        return None
    opts, i = parsed
    texts = [
        v
        for n, v in opts.items
        if n in ("-s", "--setup", "-p", "--prepare", "-c", "--cleanup") and v
    ]
    scripts = [Script(t, "hyperfine") for t in texts]
    for word in words[i:]:
        scripts += script_from(word, "hyperfine").scripts
    return Unwrap("script", "hyperfine", scripts=tuple(scripts)) if scripts else None


def _watcher(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """nodemon --exec CMD, watchexec [-- ] CMD, reflex -- CMD."""
    name = command_name(words[0]) or ""
    for k, word in enumerate(words[1:], start=1):
        value = lit(word) or ""
        if value in ("-x", "--exec") and k + 1 < len(words) and name == "nodemon":
            return script_from(words[k + 1], name)
        if value == "--" and k + 1 < len(words):
            return exec_at(name, words, k + 1)
    if name == "watchexec" and len(words) > 1 and not (lit(words[-1]) or "-").startswith("-"):
        return script_from(words[-1], name)
    return None


RUNNERS: dict[str, Handler] = {
    "hyperfine": _hyperfine,
    "nodemon": _watcher,
    "watchexec": _watcher,
    "reflex": _watcher,
    "chroot": _chroot,
    "unshare": _unshare,
    "nsenter": _nsenter,
    "systemd-run": _systemd_run,
    **{name: _runner for name in _RUNNERS},
    **{
        name: _after_dashdash(name)
        for name in (
            "op",
            "doppler",
            "dotenvx",
            "mise",
            "rtx",
            "aws-vault",
            "infisical",
            "guix",
            "mosh",
            "pueue",
            "chamber",
            "teller",
            "envchain",
        )
    },
}
