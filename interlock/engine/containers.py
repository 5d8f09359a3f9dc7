"""Commands run inside containers: `docker run IMAGE CMD`, `docker exec CONTAINER CMD`,
`docker compose run SERVICE CMD` (and `docker-compose`, `podman`, `nerdctl`), `kubectl exec
POD -- CMD`. The command inside is walked like any other (a validator in a container is a
validator); its exit status comes back (`docker run` returns the container's), except with
`-d`/`--detach`. Its working directory is inside the container, so it is unknown here.
"""

from __future__ import annotations

from interlock.engine.mounts import OPAQUE, Mounts, read_mounts
from interlock.engine.unwrap import OptSpec, Unwrap, command_name, lit, parse_options
from interlock.shell.model import Word

# Options of `docker run` / `docker create` that take a value (short letters, long names).
_RUN = OptSpec(
    "aceEhlmpuvw",
    {
        "add-host",
        "annotation",
        "attach",
        "blkio-weight",
        "cap-add",
        "cap-drop",
        "cgroup-parent",
        "cgroupns",
        "cidfile",
        "cpu-period",
        "cpu-quota",
        "cpu-shares",
        "cpus",
        "cpuset-cpus",
        "cpuset-mems",
        "detach-keys",
        "device",
        "dns",
        "dns-option",
        "dns-search",
        "domainname",
        "entrypoint",
        "env",
        "env-file",
        "expose",
        "gpus",
        "group-add",
        "health-cmd",
        "health-interval",
        "health-retries",
        "health-start-period",
        "health-timeout",
        "hostname",
        "ip",
        "ip6",
        "ipc",
        "isolation",
        "label",
        "label-file",
        "link",
        "log-driver",
        "log-opt",
        "mac-address",
        "memory",
        "memory-reservation",
        "memory-swap",
        "mount",
        "name",
        "network",
        "network-alias",
        "oom-score-adj",
        "pid",
        "pids-limit",
        "platform",
        "publish",
        "pull",
        "restart",
        "runtime",
        "security-opt",
        "shm-size",
        "stop-signal",
        "stop-timeout",
        "storage-opt",
        "sysctl",
        "tmpfs",
        "ulimit",
        "user",
        "userns",
        "uts",
        "volume",
        "volumes-from",
        "workdir",
    },
)
_EXEC = OptSpec("euw", {"env", "env-file", "user", "workdir", "detach-keys"})
_COMPOSE = OptSpec(
    "fp",
    {
        "file",
        "project-name",
        "profile",
        "env-file",
        "project-directory",
        "ansi",
        "progress",
        "parallel",
    },
)
_COMPOSE_RUN = OptSpec(
    "elpuvw",
    {
        "env",
        "label",
        "name",
        "publish",
        "user",
        "volume",
        "workdir",
        "entrypoint",
        "cap-add",
        "cap-drop",
        "pull",
        "index",
    },
)
_DETACHED = "it runs detached (`-d`): the container's exit status never comes back"


def _after(
    via: str,
    words: tuple[Word, ...],
    i: int,
    detach: bool,
    entry: str | None,
    mounts: Mounts | None = None,
) -> Unwrap | None:
    """Hand over to words[i:] (the command inside), run from an unknown directory unless
    `mounts` says where it is on the host (the walker maps it: engine.mounts)."""
    rest = words[i:]
    if entry is not None:
        rest = (Word(entry, entry),) + rest
    if not rest:
        return None
    masks = _DETACHED if detach else None
    # binds not on the line (`docker exec`): any path inside may be the host's (mounts.hide)
    return Unwrap("exec", via, rest=rest, masks=masks, mounts=mounts or OPAQUE)


def _docker_run(via: str, words: tuple[Word, ...], i: int) -> Unwrap | None:
    parsed = parse_options(words, i, _RUN)
    if parsed is None or parsed[1] >= len(words):
        return None
    opts, image = parsed
    detach = opts.has("-d", "--detach")
    mounts = read_mounts(words[i:image], _RUN.short)
    return _after(via, words, image + 1, detach, opts.value("--entrypoint"), mounts)


def _docker_exec(via: str, words: tuple[Word, ...], i: int) -> Unwrap | None:
    parsed = parse_options(words, i, _EXEC)
    if parsed is None or parsed[1] >= len(words):
        return None
    opts, container = parsed
    return _after(via, words, container + 1, opts.has("-d", "--detach"), None)


def _compose(via: str, words: tuple[Word, ...], i: int) -> Unwrap | None:
    parsed = parse_options(words, i, _COMPOSE)
    if parsed is None or parsed[1] >= len(words):
        return None
    sub = lit(words[parsed[1]])
    if sub not in ("run", "exec"):
        return None
    inner = parse_options(words, parsed[1] + 1, _COMPOSE_RUN)
    if inner is None or inner[1] >= len(words):
        return None
    opts, service = inner
    detach = opts.has("-d", "--detach")
    return _after(f"{via} {sub}", words, service + 1, detach, opts.value("--entrypoint"))


def _docker(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """docker/podman/nerdctl run|exec|container run|compose run."""
    name = command_name(words[0]) or "docker"
    i = 1
    while i < len(words) and (lit(words[i]) or "").startswith("-"):
        i += 2 if lit(words[i]) in ("-H", "--host", "--context", "-c", "--config") else 1
    sub = lit(words[i]) if i < len(words) else None
    if sub == "container" and i + 1 < len(words):
        i += 1
        sub = lit(words[i])
    if sub in ("run", "create"):
        return _docker_run(f"{name} run", words, i + 1)
    if sub == "exec":
        return _docker_exec(f"{name} exec", words, i + 1)
    if sub == "compose":
        return _compose(f"{name} compose", words, i + 1)
    return None


def _docker_compose(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    return _compose(command_name(words[0]) or "docker-compose", words, 1)


def _kubectl(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`kubectl exec [-it] POD [-c C] -- CMD...`: the command follows `--`."""
    if len(words) < 2 or lit(words[1]) != "exec":
        return None
    for k, word in enumerate(words[2:], start=2):
        if lit(word) == "--":
            return _after("kubectl exec", words, k + 1, False, None)
    return None


CONTAINERS = {
    "docker": _docker,
    "podman": _docker,
    "nerdctl": _docker,
    "docker-compose": _docker_compose,
    "podman-compose": _docker_compose,
    "kubectl": _kubectl,
    "oc": _kubectl,
}
