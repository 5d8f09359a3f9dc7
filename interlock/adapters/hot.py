"""`interlock hook AGENT EVENT`: the door an agent's hook settings start, once per event.

    interlock hook claude-code PreToolUse < event.json
    interlock hook codex Stop < event.json
    interlock hook gemini BeforeTool < event.json

Every tool call of the agent pays for this process, so it runs like the shell wrapper:
Python started with `-I -S`, the standard library's C modules, interlock.constants and the
minimal daemon client (`interlock.daemon.hotclient`, on `hotos` instead of `os`);
tests/adapters/test_hot.py pins that list. It reads the event, finds
the worktree from the event's `cwd`, and asks the warm daemon's `agent` op, which judges
it (`interlock.adapters.serve`) and answers the hook's stdout, stderr and exit status in
the agent's format. When the daemon cannot answer, it is started in the background for the
next event and this one is judged inline (`interlock.adapters.inline`).

If interlock itself fails, the agent still gets a documented answer, never a traceback:
before a tool runs the call is not let through unjudged (Claude Code asks the person;
Codex and Gemini CLI refuse it, naming the bug report), after it the hook fails as a
non-blocking error (exit 1), and a Codex Stop still prints its required JSON.

The same holds when judging takes too long. An agent that times a hook out runs the tool
call anyway, so the door answers by itself once BUDGET seconds have passed (an alarm; well
inside the timeout `interlock integrate` writes, hookplan.HOOK_TIMEOUT): the call is not let
through unjudged, and the daemon's work goes on (a discard's snapshot is still taken).
"""

import _signal  # type: ignore[import-not-found]  # no stub; `signal` would load enum
import posix
import sys

from interlock import constants
from interlock.daemon import hotclient, hotos

AGENTS = ("claude-code", "codex", "gemini")
MAX_EVENT = 64 << 20  # bytes of event JSON read at most (a Write of a large file)
AGENT_DEADLINE = 120.0  # seconds the daemon may take (a discard's snapshot, the audit)
_PRE = ("PreToolUse", "BeforeTool")
BUDGET = 100.0  # seconds before the door answers unjudged (hookplan.HOOK_TIMEOUT is 120)
ENV_BUDGET = "INTERLOCK_HOOK_BUDGET"  # may shorten BUDGET (tests), never lengthen it


def _read_event() -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_EVENT:
        try:  # 64 KiB (a pipe's capacity): a larger buffer is mapped and unmapped every read
            chunk = posix.read(0, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[: MAX_EVENT + 1]


def here() -> str:
    """The hook's own directory (its PWD when that is gone, else /)."""
    try:
        return hotos.getcwd()
    except OSError:
        return hotos.getenv("PWD") or "/"


def event_cwd(data: object, hook_cwd: str) -> str:
    """Where an event is judged: its `cwd` when that is an existing absolute directory, else
    the hook's own (the daemon applies the same rule to an event forwarded raw: agentop)."""
    cwd = data.get("cwd") if isinstance(data, dict) else None
    if isinstance(cwd, str) and cwd.startswith("/") and hotos.isdir(cwd):
        return cwd
    return hook_cwd


def _event_cwd(raw: bytes, hook_cwd: str) -> str:
    try:
        data = hotclient.decode(raw)
    except ValueError:
        data = None
    return event_cwd(data, hook_cwd)


def _fields(agent: str, event: str) -> dict[str, object]:
    """The request's fields besides the event: the agent above the hook is named by the
    hook's parent pid; whoever judges reads the agent from /proc (interlock.run.agent) while
    this process waits, so the door does not import it."""
    env = hotos.environ_of(constants.ENV_PREFIX)
    return {
        "agent": agent,
        "event": event,
        "run": env.get(constants.ENV_RUN) or None,
        "agent_parent": posix.getppid(),
        "env": env,
    }


def _disarm() -> None:
    """An answer is going out: the budget's own (_arm_budget) must not follow it."""
    _signal.setitimer(_signal.ITIMER_REAL, 0)


def _write(stdout: str, stderr: str) -> None:
    _disarm()
    for fd, text in ((1, stdout), (2, stderr)):
        data = text.encode("utf-8", "replace")
        while data:
            try:
                data = data[posix.write(fd, data) :]
            except OSError:
                break


def _unjudged(agent: str, event: str, why: str) -> int:
    """The answer for an event interlock did not judge: before a tool runs the call is not
    let through (Claude Code asks the person, Codex and Gemini CLI refuse it); after it, a
    non-blocking error (exit 1); a Codex Stop still prints its required JSON."""
    reason = hotclient.encode(why + "; the call was not judged")
    if event in _PRE:
        if agent == "gemini":
            _write('{"decision":"deny","reason":' + reason + "}", why + "\n")
            return 0
        decision = "ask" if agent == "claude-code" else "deny"
        _write(
            '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"'
            + decision
            + '","permissionDecisionReason":'
            + reason
            + "}}",
            why + "\n",
        )
        return 0
    _write("{}" if agent == "codex" and event.endswith("Stop") else "", why + "\n")
    return 1


def _arm_budget(agent: str, event: str, env: dict[str, str]) -> None:
    """Answer unjudged once the budget is spent (see the module docstring)."""
    budget = BUDGET
    try:
        budget = min(budget, float(env.get(ENV_BUDGET, BUDGET)))
    except ValueError:
        pass
    if not budget > 0:  # 0, a negative or NaN would never fire: the default stands
        budget = BUDGET

    def spent(signum: int, frame: object) -> None:
        why = (
            f"interlock: [unparsed] judging this {agent} {event} event took over {budget:g} s, "
            "near the agent's hook timeout (past it the agent runs the call anyway); split a "
            "very long command line into smaller ones"
        )
        code = _unjudged(agent, event, why)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        posix._exit(code)

    _signal.signal(_signal.SIGALRM, spent)
    _signal.setitimer(_signal.ITIMER_REAL, budget)


def _bug(agent: str, event: str, exc: BaseException) -> int:
    try:
        from interlock.run import link

        link.load_site()
        from interlock.bugreport import report_bug

        report = report_bug(exc)
    except Exception:
        report = "(no report could be written)"
    why = f"interlock: bug: the {agent} {event} hook failed ({type(exc).__name__}: {exc}); report: {report}"
    return _unjudged(agent, event, why)


def main(argv: list[str]) -> int:
    """One event answered (see the module docstring); its exit status."""
    return _answer(argv)[0]


def door(argv: list[str]) -> int:
    """`interlock hook AGENT EVENT` as its own process (interlock/__main__.py): `main()`, and
    when the warm daemon answered, the process ends as soon as its output is out.

    Python's own shutdown (module teardown, the collector, flushing the standard streams) is
    ~1.5 ms of a warm event's ~12, and nothing on the warm path needs it: the answer went out
    through posix.write or a flushed sys.stdout/sys.stderr, the socket is closed, no file,
    database or atexit handler was opened or registered. The inline path (the journal, the
    engine, a daemon started in the background) exits normally."""
    code, warm = _answer(argv)
    if not warm:
        return code
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the agent closed the pipe: nothing more to say
            pass
    posix._exit(code)


def _answer(argv: list[str]) -> tuple[int, bool]:
    """(exit status, True when the warm daemon answered)."""
    if len(argv) != 2 or argv[0] not in AGENTS:
        _write("", "interlock: usage: interlock hook claude-code|codex|gemini EVENT < event.json\n")
        return 2, False
    agent, event = argv
    try:
        fields = _fields(agent, event)
        env = fields["env"]
        _arm_budget(agent, event, env if isinstance(env, dict) else {})
        raw = _read_event()
        hook_cwd = here()
    except Exception as exc:  # never a traceback to the agent
        return _bug(agent, event, exc), False
    try:
        forwarded = _forward(fields, raw, hook_cwd)
    except Exception:  # the hot path must not decide on a bug: judge inline
        forwarded = _INLINE
    if type(forwarded) is int:
        return forwarded, True
    try:
        cwd = _event_cwd(raw, hook_cwd)
        req = {**fields, "payload": raw.decode("utf-8", "replace"), "cwd": cwd}
    except Exception as exc:
        return _bug(agent, event, exc), False
    code = None
    if forwarded == _JSON:
        try:
            code = _warm(req, cwd)
        except Exception:
            code = None
    if code is not None:
        return code, True
    try:
        from interlock.adapters.inline import answer

        reply = answer(req, cwd)
    except Exception as exc:
        return _bug(agent, event, exc), False
    _write(reply.stdout, reply.stderr)
    return reply.exit_code, False


_JSON, _INLINE = "json", "inline"  # how an event the raw forward did not settle goes on


def _forward(fields: dict[str, object], raw: bytes, hook_cwd: str) -> int | str:
    """The event forwarded raw to the daemon of the hook's own worktree, which finds the
    event's cwd itself (interlock.daemon.agentop) and answers in a frame: no JSON decoded or
    encoded here beyond a few plain names. Its exit status once printed; _JSON to go the
    JSON path (no daemon reached here: the hook runs outside a worktree, its daemon is down,
    or the event is another worktree's); _INLINE when the daemon reached did not answer
    (as when `ask` fails: started again if need be) or refused."""
    if hotclient.daemon_disabled():
        return _INLINE
    try:  # the hook's own directory as getcwd() gave it is real (not PWD: see here())
        real = hook_cwd == hotos.getcwd()
    except OSError:
        real = False
    where = hotclient.find(hook_cwd, real)
    if where is None:
        return _JSON
    fields = {**fields, "hook_cwd": hook_cwd, "build": hotclient.build_stamp()}
    # Sent before the peer is verified, which then runs while the daemon judges: only the
    # daemon this door will trust acts on it (hotclient.Channel), so an event is never
    # journaled by a daemon whose answer is thrown away and again inline.
    request = hotclient.body_request(where, "agent", fields, raw)
    channel = hotclient.connect(where, verify_first=False)
    if channel is None:
        return _JSON
    try:
        reply = channel.forward(request, AGENT_DEADLINE, hotclient.frame_end)
    finally:
        channel.close()
    frame = hotclient.frame_of(reply) if reply is not None else None
    if frame is None:
        hotclient.ensure_daemon(where)
        return _INLINE
    if isinstance(frame, str):
        return _JSON if frame == "elsewhere" else _INLINE
    code, out, err = frame
    if code not in (0, 1, 2):
        return _INLINE
    _disarm()
    for fd, data in ((1, out), (2, err)):
        hotclient.write_all(fd, data)  # False: the agent closed its end; the event was judged
    return code


def _warm(req: dict[str, object], cwd: str) -> int | None:
    if hotclient.daemon_disabled():
        return None
    where = hotclient.find(cwd)
    if where is None:
        return None
    fields = {**req, "build": hotclient.build_stamp()}
    # Sent before the peer is verified, which then runs while the daemon judges: only the
    # daemon this door will trust acts on it (hotclient.Channel), so an event is never
    # journaled by a daemon whose answer is thrown away and again inline.
    reply = hotclient.ask(where, "agent", fields, AGENT_DEADLINE, verify_first=False)
    if reply is None:
        hotclient.ensure_daemon(where)
        return None
    _disarm()
    try:
        return hotclient.printed(reply, (0, 1, 2))
    except OSError:  # the agent closed its end: the event was judged (and journaled) once
        code = reply.get("exit_code")
        return code if type(code) is int else 1


if __name__ == "__main__":  # pragma: no cover - `python -m interlock.adapters.hot` by hand
    sys.exit(door(sys.argv[1:]))
