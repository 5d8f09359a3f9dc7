"""interlock-sh: bash, with every command checked first (the door `shell/interlock-sh` opens).

    interlock-sh -c 'CMD' [NAME [ARGS...]]     interlock-sh SCRIPT [ARGS...]
    interlock-sh -lc 'CMD'   -e -o pipefail -c 'CMD'   ... < script-on-stdin

For every command: judge it (the warm daemon, else inline), print interlock's messages on
stderr, then either refuse it (exit 126, nothing runs) or run real bash with exactly the
arguments given, and journal how it ended. Inside the command, `INTERLOCK_WRAPPED=1`,
`INTERLOCK_RUN` and `INTERLOCK_ATTEMPT` are set, so a nested `$SHELL -c` joins the same run
as a part of this attempt.

If interlock itself fails while judging, the command is refused (exit 126, one line naming
the bug report), never run unjudged - except under `mode = "off"`. Interactive shells and
invocations that run no code (`--version`, `-n`) go straight to bash.

Hot path: this module, `bashargs`, `child`, `agent` and `link` import only the standard
library's C modules (`posix`, not `os`: ~1.5 ms a command) and the minimal daemon client
(interlock.daemon.hotclient, hotos for what os.path would do); the engine loads only when the
daemon cannot answer. tests/run/test_hotpath.py pins the list. `launch()`, the launchers'
entry point, ends the process with `posix._exit` once nothing is left to flush or run at exit
(Python's own finalisation costs another ~1 ms a command).

However it was started (the installed launcher, shell/interlock-sh from a checkout,
`python -m interlock.run.wrapper`), the process names itself `interlock-sh` (its comm, as
`ps` shows it), so the agent finder and `interlock approve` see a wrapper by one name.
"""

from __future__ import annotations

import posix
import sys
import time

from interlock import constants
from interlock.daemon import hotos
from interlock.run import agent, bashargs, child

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from interlock.run import link

_SEEK_SET, _SEEK_CUR = 0, 1  # os.SEEK_SET, os.SEEK_CUR (posix does not name them)
_BASH_CANDIDATES = ("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash")


def find_bash() -> str:
    """The real bash: $INTERLOCK_BASH, else the usual places, else bash on PATH."""
    named = hotos.getenv(constants.ENV_BASH)
    if named and posix.access(named, posix.X_OK):
        return named
    for path in _BASH_CANDIDATES:
        if posix.access(path, posix.X_OK):
            return path
    for folder in hotos.getenv("PATH").split(":"):
        path = hotos.join(folder or ".", "bash")
        if posix.access(path, posix.X_OK) and not _is_us(path):
            return path
    return "/bin/bash"


def _is_us(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"interlock-sh" in handle.read(512)
    except OSError:
        return False


def say(text: str) -> None:
    if text:
        try:
            posix.write(2, (text.rstrip("\n") + "\n").encode("utf-8", "replace"))
        except OSError:
            pass


def _read_script(call: bashargs.BashCall) -> tuple[str | None, int | None, str | None]:
    """(script text, fd to give bash as stdin, problem) for file and stdin scripts."""
    limit = constants.SCRIPT_MAX_BYTES
    if call.mode == "file" and call.script is not None:
        path = call.script
        if "/" not in path and not hotos.exists(path):
            for folder in hotos.getenv("PATH").split(":"):
                if hotos.isfile(hotos.join(folder or ".", path)):
                    path = hotos.join(folder or ".", path)
                    break
        try:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError:
            return None, None, None  # bash reports it (127/126) and runs nothing
        if len(data) > limit:
            return None, None, f"the script {call.script} is larger than {limit} bytes"
        return data.decode("utf-8", "replace"), None, None
    return _read_stdin(limit)


def _read_stdin(limit: int) -> tuple[str | None, int | None, str | None]:
    try:
        start = posix.lseek(0, 0, _SEEK_CUR)
    except OSError:
        start = None  # a pipe or a terminal: read it all, hand bash a copy
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = posix.read(0, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        return None, None, f"the script on stdin is larger than {limit} bytes"
    data = b"".join(chunks)
    if start is not None:
        posix.lseek(0, start, _SEEK_SET)
        return data.decode("utf-8", "replace"), None, None
    fd = posix.memfd_create("interlock-script")  # bash reads the same bytes, from a seekable file
    child.write_all(fd, data)
    posix.lseek(fd, 0, _SEEK_SET)
    return data.decode("utf-8", "replace"), fd, None


def _refuse_unreadable(why: str) -> int:
    say(
        f"interlock: [unparsed] refused: {why}\n"
        "  why:     interlock cannot tell what it would run\n"
        "  instead: run a smaller script, or pass the command with -c"
    )
    return 126


def _cwd() -> str:
    """Where the command runs; bash runs in a removed directory too, so judge it as $PWD."""
    try:
        return posix.getcwd()
    except OSError:
        return hotos.getenv("PWD") or "/"


def _request(call: bashargs.BashCall, code: str) -> dict[str, object]:
    environ = hotos.environ()
    env = {k: v for k, v in environ.items() if k.startswith(constants.ENV_PREFIX)}
    parent = environ.get(constants.ENV_ATTEMPT, "")
    run = environ.get(constants.ENV_RUN) or None
    return {
        "command": code if call.mode == "command" else f"bash {call.script or '-s'} (script)",
        "judge": call.judged_text(code),
        "cwd": _cwd(),
        "run": run,
        "agent": None if run else list(agent.agent_process()),
        "parent": int(parent) if parent.isdigit() else None,
        "pid": posix.getpid(),
        "pid_start": agent.start_time(posix.getpid()),
        "once": True,  # this process makes one attempt, however many begins reach the journal
        "env": env,
    }


def _bug(exc: BaseException, cwd: str) -> int:
    from interlock.run import link

    try:
        link.load_site()
        from interlock.bugreport import report_bug

        report = report_bug(exc)
    except Exception:
        report = "(no report could be written)"
    if link.mode_is_off(cwd):
        say(
            f"interlock: warning: the check failed ({type(exc).__name__}: {exc}); mode is off, so "
            f"the command runs unjudged (report: {report})"
        )
        return -1
    say(
        f"interlock: bug: the check failed ({type(exc).__name__}: {exc}); the command was not "
        f"run (report: {report})"
    )
    return 126


def name_process() -> None:
    """Set this process's name (comm) to `interlock-sh`: a launcher run by its #! line has that
    name already; one started as `python -I -S -c ...` or `-m` would otherwise be `python3`."""
    try:
        fd = posix.open("/proc/self/comm", posix.O_WRONLY | posix.O_CLOEXEC)
    except OSError:
        return
    try:
        posix.write(fd, agent.WRAPPER_NAME.encode())
    except OSError:
        pass
    finally:
        posix.close(fd)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    name_process()
    bash = find_bash()
    try:
        return _main(bash, args)
    except Exception as exc:  # never a traceback, never a command run unjudged
        if _bug(exc, _cwd()) >= 0:
            return 126
        posix.execv(bash, ["bash", *args])


def _main(bash: str, args: list[str]) -> int:
    call = bashargs.read_args(args, posix.isatty(0), posix.isatty(2))
    if call.mode in ("inert", "interactive"):
        posix.execv(bash, ["bash", *args])
    if call.mode == "invalid":
        return _refuse_unreadable(f"interlock-sh {' '.join(args)}: {call.error}")
    stdin_fd = None
    if call.mode == "command":
        code = call.command or ""
    else:
        text, stdin_fd, problem = _read_script(call)
        if problem is not None:
            return _refuse_unreadable(problem)
        if text is None:
            posix.execv(bash, ["bash", *args])
        code = text
    return _judged_run(bash, args, call, code, stdin_fd)


def _judged_run(
    bash: str, args: list[str], call: bashargs.BashCall, code: str, stdin_fd: int | None
) -> int:
    from interlock.run import link

    cwd = _cwd()
    try:
        req = _request(call, code)
        reply, door = link.begin(req)
    except Exception as exc:
        refused = _bug(exc, cwd)
        if refused >= 0:
            return refused
        reply, door = {"interpose": False}, link.Door(None)
    say(str(reply.get("messages") or ""))
    if reply.get("exit_code") == 126:
        door.close()
        return 126
    env = dict(hotos.environ())
    env[constants.ENV_WRAPPED] = "1"
    if reply.get("run"):
        env[constants.ENV_RUN] = str(reply["run"])
        env[constants.ENV_ATTEMPT] = str(reply["attempt"])
    started = time.monotonic()
    try:
        status, tail = child.run(
            bash, ["bash", *args], env, interpose=bool(reply.get("interpose")), stdin=stdin_fd
        )
    except OSError as exc:  # no bash to run: as a shell says for a command it cannot find
        say(f"interlock: error: cannot run {bash}: {exc.strerror}; set INTERLOCK_BASH to bash")
        status, tail = 127 << 8, None
    if door.where is not None and reply.get("attempt") is not None:
        _complete(door, cwd, reply, status, time.monotonic() - started, tail)
    door.close()
    return child.exit_like(status)


def _complete(
    door: link.Door,
    cwd: str,
    reply: dict[str, object],
    status: int,
    duration: float,
    tail: child.Tail | None,
) -> None:
    from interlock.run import link

    signalled = posix.WIFSIGNALED(status)
    done = {
        "attempt": reply["attempt"],
        "exit": None if signalled else posix.waitstatus_to_exitcode(status),
        "signal": posix.WTERMSIG(status) if signalled else None,
        "duration": round(duration, 6),
        "tail": tail.text() if tail is not None else None,
    }
    try:
        quiet = reply.get("quiet") is True
        say(str(link.complete(door, cwd, done, quiet).get("messages") or ""))
    except Exception as exc:  # the command ran; only its record is missing
        say(
            f"interlock: warning: could not record how the command ended ({exc}); "
            "`interlock log` shows it as unresolved"
        )


def launch() -> None:
    """The launchers' entry point: run `main()` and exit with its status. Python's own
    finalisation (module teardown, garbage collection: ~1 ms) is skipped when nothing needs
    it: no exit handler registered and nothing left in sys.stdout or sys.stderr's buffers
    (they are flushed first). The inline path, which loads the engine, exits normally."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    import atexit

    if atexit._ncallbacks() == 0 and "site" not in sys.modules:
        posix._exit(code & 0xFF)
    sys.exit(code)


if __name__ == "__main__":  # `python -I -S -m interlock.run.wrapper -c CMD`, as the launcher
    launch()
