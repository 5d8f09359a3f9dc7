"""One command of a run, before and after: what the daemon does warm and the wrapper inline.

`begin(wt, req)`: find or start the run; judge the command with the run's config (the one
judging path, `engine.check.evaluate`); sort any discard by whose work it destroys, snapshot
and hold before allowing it; in blocking mode refuse a validator whose definitions the run
weakened; hold a repeated side effect; journal the attempt; answer the verdict and the
messages for stderr. A wrapper (its request says `once`: pid and start time are its own) has
one attempt: its second begin (a daemon that answers after the wrapper gave up and judged
inline, or the other way round) answers from the row the first one wrote, and notes an
`attempt-again` event. An agent's hook events send the agent's pid, and no `once`: an agent
runs the same command many times.
`complete(wt, req)`: journal how the command ended; for a top-level validator, read its
outcome and decide a green point.

Requests and replies are plain dicts (they travel as JSON from the wrapper):
begin   {command, judge, cwd, run, agent: [pid, start, name] | null, parent, pid, pid_start,
         once, env}
     -> {verdict, exit_code, would_block, messages, attempt, run, interpose, mode, quiet}
        quiet: the gate's completion of this attempt has nothing to say and nothing another
        command waits on (not refused, no top-level validator, no side effect); the run
        monitor narrows it (interlock.monitor.desk), and the wrapper then sends `complete`
        without waiting for its answer
complete {attempt, exit, signal, duration, tail} -> {messages}
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from interlock import constants, exitcodes
from interlock.config import Config
from interlock.engine.check import evaluate
from interlock.engine.findings import Finding
from interlock.engine.verdict import CheckResult, ValidatorReport
from interlock.errors import InterlockError
from interlock.journal import append_event
from interlock.run import discards, effects, green, inforce, records, session, tiers
from interlock.run.notices import WARNINGS_IN_FULL, Notice, render
from interlock.run.records import Attempt, Run
from interlock.run.session import Worktree
from interlock.state import file_lock, repo_state_dir

AGAIN_EVENT = "attempt-again"  # a wrapper's second begin (the daemon late, or inline late)


def _validators(result: CheckResult, config: Config) -> list[dict[str, Any]]:
    def declared(v: ValidatorReport) -> bool:
        text = " ".join(v.text.split())
        return v.tool == "declared" or any(
            text == d or text.startswith(d + " ")
            for d in map(" ".join, map(str.split, config.validators))
        )

    return [
        {
            "text": v.text,
            "tier": v.tier,
            "tool": v.tool,
            "masked": v.masked,
            "masked_by": v.masked_by,
            "declared": declared(v),
            "scripts": list(v.scripts),
        }
        for v in result.validators
    ]


def _audit_notice(wt: Worktree, run: Run) -> Notice | None:
    problem = green.audit_problem(wt, run)
    if problem is None:
        return None
    return Notice(
        "self-authored",
        "validator whose definitions this run weakened",
        (
            ("why", problem),
            (
                "instead",
                "restore the validator definitions (interlock audit shows them), then run it again",
            ),
        ),
        True,
    )


def _warned(wt: Worktree, run: Run, findings: list[Finding], verdict: str) -> Callable[[str], bool]:
    """Count this command's warnings against the run's ceilings; which kinds are past them."""
    if verdict != "warn":
        return lambda kind: False
    past: set[str] = set()
    for kind in {f.kind for f in findings}:
        key = f"warning:{kind}"
        if records.count_events(wt.journal, run.id, "message", key) >= WARNINGS_IN_FULL:
            past.add(kind)
        else:
            append_event(wt.journal, "message", {"key": key}, run=run.id)
    return past.__contains__


def _not_work(wt: Worktree) -> Callable[[str], bool]:
    """Whether an edited path is no work to verify: ignored, or gone without git ever having
    known it (an editor's or a tool's temp file, renamed or removed)."""
    from interlock.git import index_has, is_ignored, open_repo

    opened: list[Any] = []  # the repository, opened on the first question (most commands ask none)

    def check(path: str) -> bool:
        if not opened:
            opened.append(open_repo(wt.loc))
        repo = opened[0]
        raw = path.encode("utf-8", "surrogateescape")
        if not os.path.lexists(os.path.join(wt.loc.worktree, path)):
            return not index_has(repo, raw)
        return is_ignored(repo, wt.loc, raw)

    return check


@contextlib.contextmanager
def _effects_lock(wt: Worktree, needed: bool) -> Iterator[None]:
    if not needed:
        yield
        return
    with file_lock(repo_state_dir(wt.loc) / constants.EFFECT_LOCK_FILE):
        yield


def begin(wt: Worktree, req: dict[str, Any]) -> dict[str, Any]:
    """Judge and journal one command of a run (see the module docstring). A wrapper's second
    begin (a late daemon, or the inline path after the daemon wrote the attempt) answers from
    the attempt the first one journaled."""
    command = str(req["command"])
    cwd = str(req["cwd"])
    pid, pid_start = _int(req.get("pid")), _int(req.get("pid_start"))
    once = req.get("once") is True  # the wrapper's: one attempt per process (see records)
    earlier = records.attempt_of_wrapper(wt.journal, pid, pid_start, command, cwd) if once else None
    if earlier is not None:
        return _again(wt, earlier, req)
    parent = _int(req.get("parent"))
    agent_info = tuple(req["agent"]) if req.get("agent") else None
    run, _ = session.resolve_run(wt, req.get("run"), agent_info, req.get("env") or {})
    config = inforce.run_config(run)
    text = str(req.get("judge") or command)
    # Tree facts cost a barrier on the watcher (or a git status): evaluate asks for them only
    # when a discard needs them.
    outcome = evaluate(text, cwd, facts=wt.facts, config=config)
    result = outcome.result
    findings = list(result.findings)
    notices: list[Notice] = []
    data: dict[str, Any] = {"parse": result.parse, "mode": config.mode}
    data["warm"] = bool(req.get("warm"))  # answered by the daemon (else inline)
    if any(f.kind == "discard" for f in findings):
        step = discards.DiscardStep(wt, run, config, cwd, command)
        findings, more = step.judge(findings)
        notices += more
        data["discard"] = step.data
    validators = _validators(result, config)
    top = parent is None
    if top and validators and wt.streak is not None:
        wt.streak.validator_began()
    if top and config.mode == "blocking" and any(not v["masked"] for v in validators):
        notice = _audit_notice(wt, run)
        if notice is not None:
            notices.append(notice)
    found = effects.find_effects(outcome.invocations, cwd)
    with _effects_lock(wt, bool(found)):
        hold = _hold(wt, found, run)
        if hold is not None:
            notices.append(hold)
        # Blocking mode refuses what forges or loses (severity `block`) and only warns on
        # what hides (severity `warn`: `pytest | tail`, a narrowed run), as `interlock check`.
        would_block = any(f.severity == "block" for f in findings) or any(n.blocks for n in notices)
        verdict = (
            "allow"
            if not (findings or would_block) or config.mode == "off"
            else ("block" if config.mode == "blocking" and would_block else "warn")
        )
        messages = render(findings, notices, verdict, _warned(wt, run, findings, verdict))
        if verdict != "block" and top and not validators and wt.streak is not None:
            edited = wt.streak.take_nudge(_not_work(wt))
            nudge = tiers.midrun_nudge(wt, run, config, edited) if edited else None
            if nudge:
                messages.append(nudge)
        data.update(
            findings=[f.to_json() for f in findings],
            notices=[{"tag": n.tag, "text": n.text, "blocks": n.blocks} for n in notices],
            validators=validators,
            messages="\n".join(messages),
        )
        if found:
            data["effect"] = {
                "tools": [e.tool for e in found],
                "plan": effects.push_plan(found[0]) if found[0].tool == "git push" else None,
            }
        attempt, new = records.claim_attempt(
            wt.journal,
            once=once,
            run=run.id,
            parent=parent,
            command=command,
            cwd=cwd,
            pid=pid,
            pid_start=pid_start,
            verdict=verdict,
            would_block=would_block,
            effect="\n".join(e.key for e in found) or None,
            data=data,
        )
    if not new:  # the wrapper's other begin wrote it first: answer as that one did
        claimed = records.get_attempt(wt.journal, attempt)
        if claimed is not None:
            return _again(wt, claimed, req)
    if verdict == "block":
        records.insert_completion(wt.journal, attempt, run.id, "refused", exit=exitcodes.BLOCKED)
    interpose = top and bool(validators)
    quiet = verdict != "block" and not interpose and not found
    return _reply(
        verdict, would_block, data["messages"], attempt, run.id, interpose, config.mode, quiet
    )


def _int(value: object) -> int | None:
    return value if type(value) is int else None


def _hold(wt: Worktree, found: list[effects.Effect], run: Run) -> Notice | None:
    """The notice holding a side effect whose identical earlier attempt is unsettled."""
    for effect in found:
        hold = effects.settle_pending(wt.journal, effect, run.id)
        if hold is not None:
            return Notice(
                "side-effect",
                hold.attempt.command,
                (("why", hold.why), ("instead", hold.instead)),
                True,
            )
    return None


def _reply(
    verdict: str,
    would_block: bool,
    messages: str,
    attempt: int,
    run: str,
    interpose: bool,
    mode: object,
    quiet: bool,
) -> dict[str, Any]:
    return {
        "verdict": verdict,
        "exit_code": exitcodes.BLOCKED if verdict == "block" else exitcodes.OK,
        "would_block": would_block,
        "messages": messages,
        "attempt": attempt,
        "run": run,
        "interpose": interpose,
        "mode": mode,
        "quiet": quiet,
    }


def _again(wt: Worktree, attempt: Attempt, req: dict[str, Any]) -> dict[str, Any]:
    """A wrapper's second begin: noted (how often a daemon answers too late), then answered
    from the first one's row."""
    note = {"attempt": attempt.id, "warm": bool(req.get("warm"))}
    append_event(wt.journal, AGAIN_EVENT, note, run=attempt.run)
    return reply_of(attempt)


def reply_of(attempt: Attempt) -> dict[str, Any]:
    """The begin reply an attempt was given, from its journal row."""
    interpose = attempt.parent is None and bool(attempt.data.get("validators"))
    return _reply(
        attempt.verdict,
        attempt.would_block,
        str(attempt.data.get("messages") or ""),
        attempt.id,
        attempt.run,
        interpose,
        attempt.data.get("mode"),
        attempt.verdict != "block" and not interpose and not attempt.effect,
    )


def complete(wt: Worktree, req: dict[str, Any]) -> dict[str, Any]:
    """Journal how an attempt ended; for a top-level validator, its outcome and green."""
    attempt = records.get_attempt(wt.journal, int(req["attempt"]))
    if attempt is None:
        raise InterlockError(f"no attempt {req['attempt']} in this worktree's journal")
    if attempt.completion is not None:
        return {"messages": ""}
    code = req.get("exit")
    signal = req.get("signal")
    data: dict[str, Any] = {}
    messages: list[str] = []
    green_id = None
    if attempt.parent is None and attempt.data.get("validators"):
        run = records.get_run(wt.journal, attempt.run)
        if run is not None:
            call = green.decide_green(wt, run, attempt, code, req.get("tail"))
            data.update(call.data())
            messages += call.messages
            green_id = call.green
    records.insert_completion(
        wt.journal,
        attempt.id,
        attempt.run,
        "signalled" if signal else "exited",
        exit=code,
        signal=signal,
        duration=req.get("duration"),
        green=green_id,
        data=data,
    )
    return {"messages": "\n".join(messages)}
