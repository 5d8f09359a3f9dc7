"""One turn of a run, under the monitor lock: count it, close an attempt record when it ran a
validator, look for progress, and decide the one thing to tell the agent.

A turn that ran a validator closes an attempt record (interlock.monitor.trace.Record): the
call, its normalised failure excerpt, exit status and failing set, the patch against the
baseline and how much it changed since the previous record (from the trees interlock reads,
whichever tool made the edit), the commands and failed commands since the last record, the
declared metrics measured on the tree, and what a harness marked (step, experiment, a
per-step config). Other turns count as tool calls (a failed or refused one as a tool error).

At most one monitor message per turn, the first that applies: the `max_turns` stop; after a
recovery, whether its one new approach moved the failing set; the stuck detector's verdict
(environment: check the world, then stop or go on as a context problem; search: one
recovery, then stop); the safe-state rung; `[stall]`; `[budget]`. What yields to another
applies on a later turn (its condition still holds), within its own ceiling.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from interlock.config import Config
from interlock.errors import InterlockError
from interlock.git import diff_tree_lines, open_repo, read_commit
from interlock.memory.scan import display_path
from interlock.memory.trees import diff_trees
from interlock.monitor import evidence, progress, recovery, safestate, settings, todo, world
from interlock.monitor.errortext import excerpt
from interlock.monitor.handoff import Why
from interlock.monitor.metrics import measure
from interlock.monitor.say import message
from interlock.monitor.state import MonitorState, Stored, add_record, read_records
from interlock.monitor.stop import stop_run
from interlock.monitor.stuck import STUCK_ENVIRONMENT, STUCK_SEARCH, Verdict, classify
from interlock.monitor.trace import Record
from interlock.run import records
from interlock.run.outcome import Outcome
from interlock.run.records import Attempt, Run
from interlock.run.session import Worktree

if TYPE_CHECKING:
    import pygit2

TOUCHED_KEPT = 10_000  # paths remembered as mutated (beyond: no more first-edit events)
MONITOR = "the run monitor"


class Watch:
    """The monitor's view of one run for one turn (see the module docstring). `environ`
    reads the agent's environment (given the wrapper's pid) when it is needed: to run a call
    again outside interlock."""

    def __init__(
        self,
        wt: Worktree,
        run: Run,
        config: Config,
        st: MonitorState,
        environ: Callable[[int | None], Mapping[str, str] | None] | None = None,
    ) -> None:
        self.wt = wt
        self.run = run
        self.config = config
        self.st = st
        self._environ = environ
        self.settings = settings.from_config(config)

    # Opened on first use: most turns (a command that ran no validator, with the stall monitor
    # off) need no tree at all.
    @functools.cached_property
    def repo(self) -> pygit2.Repository:
        return open_repo(self.wt.loc)

    @functools.cached_property
    def baseline_tree(self) -> str | None:
        commit = read_commit(self.repo, self.run.baseline) if self.run.baseline else None
        return commit[0] if commit else None

    def environ(self, pid: int | None) -> Mapping[str, str] | None:
        return self._environ(pid) if self._environ is not None else None

    # --- one turn ---

    def command(self, attempt: Attempt, tail: str | None) -> list[str]:
        """A command of the run ended (or was refused): what to tell the agent."""
        self.st.turns += 1
        done = attempt.completion
        ran = done is not None and done.status in ("exited", "signalled")
        stored = None
        tree = None
        if ran and attempt.data.get("validators"):
            tree = self.wt.tree_now()
            stored = self._close(attempt, tail, tree)
        else:
            failed = not ran or done is None or done.exit != 0 or done.signal is not None
            self._tool_call(failed)
        self._look_for_progress(tree)
        return self._decide(stored, tree)

    def harness_turn(self, failed: bool) -> list[str]:
        """`interlock turn`: a turn a harness counted (a tool call that was no command)."""
        self.st.turns += 1
        self._tool_call(failed)
        self._look_for_progress(None)
        return self._decide(None, None)

    def _tool_call(self, failed: bool) -> None:
        self.st.tool_calls += 1
        self.st.tool_errors += int(failed)

    # --- attempt records ---

    def _close(self, attempt: Attempt, tail: str | None, tree: str) -> Stored:
        st, done = self.st, attempt.completion
        assert done is not None
        prev = st.prev_tree or self.baseline_tree
        prev_lines = st.prev_lines if st.prev_tree else 0
        lines = diff_tree_lines(self.repo, self.baseline_tree, tree)
        changed = diff_tree_lines(self.repo, prev, tree)
        distance = 0.0 if not changed else round(min(1.0, changed / max(prev_lines, lines, 1)), 4)
        code = done.exit if done.signal is None else 128 + done.signal
        outcome = Outcome.from_json(done.data.get("outcome") or {})
        failing = list(outcome.failing)
        if code != 0 and not failing:  # a runner interlock cannot read: the call is the test
            failing = [f"{' '.join(attempt.command.split())[:120]} (exit {code})"]
        error = excerpt(tail) or (f"killed by signal {done.signal}" if done.signal else "")
        metrics: dict[str, float] = {}
        problems: dict[str, str] = {}
        if self.config.metrics:
            metrics, problems = measure(self.config.metrics, str(self.wt.loc.worktree))
        record = Record(
            step=st.step or "main",
            last_call=attempt.command,
            last_error=error,
            exit=code,
            patch_lines=lines,
            patch_distance=distance,
            tool_calls=st.tool_calls + 1,
            tool_errors=st.tool_errors,
            failing=tuple(sorted(set(failing))),
            metrics=metrics,
            experiment=st.next_experiment,
            config=dict(st.pending_config),
            duration=done.duration,
        )
        extra = {"green": done.green, "metric_problems": problems}
        add_record(self.wt.journal, self.run.id, st.records, attempt.id, tree, record, extra)
        stored = Stored(st.records, attempt.id, time.time(), tree, record, extra)
        st.records += 1
        st.tool_calls = st.tool_errors = 0
        st.prev_tree, st.prev_lines = tree, lines
        st.next_experiment, st.pending_config = False, {}
        self._verification(record.failed or bool(outcome.failing), done.green)
        return stored

    def _verification(self, red: bool, green: str | None) -> None:
        st = self.st
        st.streak, st.streak_fired = (st.streak + 1, st.streak_fired) if red else (0, False)
        if green is not None:
            if st.latch != "green":
                progress.note_progress(st, f"verification turned green (green point {green})")
            st.latch = "green"
        elif red:
            st.latch = "red"

    # --- progress ---

    def _look_for_progress(self, tree: str | None) -> None:
        st = self.st
        if self.config.progress_stall_threshold is None:
            return
        count: int | None
        try:
            count = len(todo.outstanding(self.wt.loc))
        except InterlockError:
            count = st.outstanding  # an unreadable board shows no progress, and no regress
        if count is not None and st.outstanding is not None and count < st.outstanding:
            progress.note_progress(st, "an objective was closed")
        st.outstanding = count
        tree = tree or self.wt.tree_now()
        before = st.last_tree or self.baseline_tree
        if tree != before and len(st.touched) < TOUCHED_KEPT:
            paths = [display_path(c.path) for c in diff_trees(self.repo, before, tree)]
            new = progress.first_mutations(st, paths)
            if new:
                more = f" (+{len(new) - 1} more)" if len(new) > 1 else ""
                progress.note_progress(st, f"a first edit of {new[0]}{more}")
        st.last_tree = tree

    # --- what to say ---

    def _decide(self, stored: Stored | None, tree: str | None) -> list[str]:
        st, config = self.st, self.config
        if config.max_turns is not None and st.turns >= config.max_turns:
            return [self._max_turns(tree)]
        if stored is not None:
            said = self._judge(stored, tree)
            if said:
                return said
        note = progress.stall_notice(st, config.progress_stall_threshold)
        if note is None:
            note = progress.budget_notice(st, config.max_turns, self._open_items())
        return [note] if note else []

    def _open_items(self) -> list[todo.Item]:
        try:
            return todo.outstanding(self.wt.loc)
        except InterlockError:
            return []

    def _judge(self, stored: Stored, tree: str | None) -> list[str]:
        st = self.st
        if st.recovery is not None:
            return self._after_recovery(stored, tree)
        segment = read_records(self.wt.journal, self.run.id, since=st.segment)
        labels = [f"#{s.attempt}" for s in segment]
        verdict = classify([s.record for s in segment], self.settings, labels=labels)
        st.verdict, st.verdict_reason = verdict.status, verdict.reason
        if verdict.status == STUCK_ENVIRONMENT:
            return self._environment(verdict, segment, tree)
        if verdict.status == STUCK_SEARCH:
            return self._search(verdict, segment, tree)
        red = stored.record.failed or bool(stored.record.failing)
        if tree is not None and safestate.due(st, self.config, red):
            note = safestate.fire(
                self.wt.loc, self.run, self.config, st, segment, tree, self._segment_start()
            )
            if note is not None:
                return [note]
        return []

    def _segment_start(self) -> str | None:
        return self.st.segment_tree or self.baseline_tree

    def _new_segment(self, tree: str | None) -> None:
        self.st.segment = self.st.records
        self.st.segment_tree = tree

    def _evidence(self, segment: list[Stored], verdict: Verdict) -> list[str]:
        rows = evidence.attempt_lines(self.wt.loc, segment, self._segment_start())
        wanted = {segment[i].attempt for i in verdict.evidence} or {s.attempt for s in segment}
        return [evidence.render_attempt(r) for r in rows if r["attempt"] in wanted]

    def _stop(self, why: Why, tree: str | None) -> str:
        return stop_run(self.wt.loc, self.wt.journal, self.run, why, MONITOR, self.st.turns, tree)

    def _max_turns(self, tree: str | None) -> str:
        limit = self.config.max_turns
        why = Why(
            "max_turns",
            f"max_turns ({limit}) reached",
            "review the changes since the last green point (interlock diff) and the open "
            "objectives; to go on, a person starts a new run (interlock run start)",
        )
        return self._stop(why, tree)

    def _after_recovery(self, stored: Stored, tree: str | None) -> list[str]:
        st = self.st
        rec = st.recovery
        assert rec is not None
        outcome = recovery.judge(st, stored, self.settings.min_patch_distance)
        if outcome is None:
            return []
        st.recovery = None
        st.recoveries.append({**rec, "status": outcome})
        self._new_segment(stored.tree)
        st.verdict, st.verdict_reason = "running", f"after a recovery, the failing set {outcome}"
        if outcome == "moved":
            return [recovery.moved_message(rec, stored)]
        rows = evidence.attempt_lines(self.wt.loc, [stored], rec.get("after_tree"))
        why = Why(
            "stuck",
            "after one recovery, the new approach left the same failing set",
            "read the set-aside patch and the failing tests (in the handoff); decide the "
            "approach, or split the step, before an agent tries again",
            [*rec.get("tried", []), "after the recovery: " + evidence.render_attempt(rows[0])],
        )
        return [self._stop(why, tree)]

    def _search(self, verdict: Verdict, segment: list[Stored], tree: str | None) -> list[str]:
        st = self.st
        last = segment[-1].record
        if not recovery.may_recover(self.wt.loc, st, last.step, last.failing):
            spent = sum(r.get("kind") == recovery.SEARCH for r in st.recoveries)
            if spent >= recovery.RECOVERY_CEILING:
                reason = f"stuck again after {spent} recoveries in this run"
                nothing = "the run used every recovery it has"
            else:
                reason = f"stuck again on step {last.step!r} with the failing set of its recovery"
                nothing = "nothing changed since the step's recovery (the failing set, or an "
                nothing += "objective a person added)"
            why = Why(
                "stuck",
                reason,
                f"{nothing}: decide the approach before an agent tries again",
                self._evidence(segment, verdict),
            )
            return [self._stop(why, tree)]
        note, rec, done = recovery.start(
            self.wt.loc, self.run, st, verdict, segment, self._segment_start()
        )
        st.recovery = rec
        st.stuck_notices += 1
        st.streak, st.streak_fired = 0, False
        if done is not None and done.done and done.point is not None:
            st.prev_tree = done.point.tree  # the next attempt's patch is measured from here
            st.prev_lines = diff_tree_lines(self.repo, self.baseline_tree, st.prev_tree)
            st.last_tree = st.prev_tree
        rec["after_tree"] = st.prev_tree
        self._new_segment(st.prev_tree)
        return [note]

    def _environment(self, verdict: Verdict, segment: list[Stored], tree: str | None) -> list[str]:
        st = self.st
        shown = [segment[i] for i in verdict.evidence] or segment
        attempt = records.get_attempt(self.wt.journal, int(shown[-1].attempt or 0))
        if attempt is None:
            return []
        environ = self.environ(attempt.pid)
        checks = world.look(self.wt.loc, attempt, shown, self._segment_start(), environ)
        found = world.problems(checks)
        lines = self._evidence(segment, verdict)
        shown_checks = "\n".join(
            f"{c.name}: {'ok' if c.ok else ('PROBLEM' if c.ok is False else '?')} - {c.detail}"
            for c in checks
        )
        used = [r for r in st.recoveries if r.get("kind") == recovery.CONTEXT]
        if found or used:
            diagnosis = "; ".join(c.detail for c in found)
            why = Why(
                "environment",
                f"an environment problem: {diagnosis}"
                if found
                else "the same call still fails the same way after the context notice",
                f"fix the environment ({diagnosis}), then start a new run (interlock run start)"
                if found
                else "read the error with the agent's last attempts; find what it keeps missing",
                lines,
                [c.to_json() for c in checks],
            )
            note = message(
                "stuck",
                f"{verdict.reason}: "
                + ("the environment, not the code" if found else "no way forward from here"),
                (
                    ("checks", shown_checks),
                    ("why", "no patch to the code can fix this" if found else ""),
                ),
            )
            return [note, self._stop(why, tree)]
        st.recoveries.append(
            {"kind": recovery.CONTEXT, "time": time.time(), "turn": st.turns, "record": st.records}
        )
        st.stuck_notices += 1
        self._new_segment(tree)
        return [
            message(
                "stuck",
                f"{verdict.reason}: the world checks out, so it is a context problem",
                (
                    ("checks", shown_checks),
                    ("why", "running the same call again gives the same failure"),
                    (
                        "instead",
                        "read the error again and change one thing before the next run; if "
                        "it fails the same way again, the run stops and hands off",
                    ),
                ),
            )
        ]
