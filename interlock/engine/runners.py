"""Prefix runners: `PROGRAM [options] COMMAND ARGS` hands the command over to run as words.

chroot, unshare, nsenter, systemd-run, xvfb-run, firejail, bwrap, dbus-run-session,
ssh-agent, sg, setpriv, prlimit, numactl, faketime, fakeroot, eatmydata, torsocks,
proxychains, sshpass, rlwrap, cpulimit, setarch, tsp, entr, ...; the `-- CMD` form of secret
and version managers (op run, doppler run, dotenvx run, mise exec, aws-vault exec); runners
of commands given as arguments (hyperfine, nodemon --exec, watchexec). See wrappers.py for
the Unwrap kinds.
"""

from __future__ import annotations

from collections.abc import Callable

from interlock.engine.unwrap import (
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
    "chroot": (OptSpec("", {"userspec", "groups"}), 1),
    "unshare": (OptSpec("SGRw", {"setuid", "setgid", "root", "wd", "propagation"}), 0),
    "nsenter": (OptSpec("tSGwr", {"target", "setuid", "setgid", "wd", "root"}), 0),
    "systemd-run": (
        OptSpec(
            "pEuMH",
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
            },
        ),
        0,
    ),
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
    return exec_at(name, words, parsed[1] + operands)


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
