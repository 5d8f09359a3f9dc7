"""Run mutants: each in a worker's copy of the tree, against its tests, with a deadline.

A worker writes the mutant into its copy, forgets the module's cached bytecode, runs pytest
(`-x`: the first failing test kills the mutant) on the mutant's tests in their given order,
and writes the original back. The worktree is never touched; on Ctrl-C or SIGTERM the running
test processes are interrupted (so their fixtures stop the daemons they started), what is
left is killed by pid, and the copies are removed.

While the pause file (`benchmarks/.work/mutation/pause`) exists, no new mutant starts; the
running ones finish. Touch it before a benchmark that needs a quiet machine, and remove it
after: stopping the processes instead would run their deadlines out and count false kills.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import tree
from mutants import Mutant, apply_mutant

# pytest's exit codes: 0 all passed, 1 some failed, 2 interrupted (a collection error: the
# mutant broke an import), 3 internal error, 4 usage error (a conftest failed to import),
# 5 no tests collected.
_NO_TESTS = 5


@dataclass(frozen=True)
class Outcome:
    """What happened to one mutant. status: killed | survived | timeout | uncovered | error."""

    mutant: Mutant
    status: str
    tests: int
    seconds: float
    detail: str = ""

    @property
    def killed(self) -> bool:
        return self.status in ("killed", "timeout")


@dataclass(frozen=True)
class Job:
    mutant: Mutant
    tests: list[str]  # test ids, most likely killers first
    budget: float  # seconds before the run counts as hung


class Workers:
    """A pool of copies of the tree; one mutant at a time in each."""

    def __init__(
        self,
        copies: list[Path],
        sources: dict[str, str],
        verbose: bool = False,
        pause: Path | None = None,
    ) -> None:
        self.free: queue.Queue[Path] = queue.Queue()
        for copy in copies:
            self.free.put(copy)
        self.sources = sources  # module -> original text
        self.verbose = verbose  # keep pytest's whole output in each outcome
        self.stopping = threading.Event()
        self.running: dict[Path, subprocess.Popen[bytes]] = {}
        self.lock = threading.Lock()
        self.pause = pause  # while this file exists, no new mutant starts

    def run(self, job: Job) -> Outcome:
        if not job.tests:
            return Outcome(job.mutant, "uncovered", 0, 0.0, "no test runs this line")
        while self.pause is not None and self.pause.exists() and not self.stopping.is_set():
            self.stopping.wait(1.0)
        copy = self.free.get()
        try:
            return self._run_in(copy, job, self.verbose)
        finally:
            self.free.put(copy)

    def control(self, tests: list[str], budget: float) -> tuple[str, str]:
        """Run tests against the unmutated copy: they must pass, or no result means anything."""
        copy = self.free.get()
        try:
            select = copy / ".select.json"
            select.write_text(json.dumps(tests), encoding="utf-8")
            files = sorted({t.split("::")[0] for t in tests})
            return self._pytest(copy, select, files, budget, keep_output=True)
        finally:
            self.free.put(copy)

    def _run_in(self, copy: Path, job: Job, keep_output: bool) -> Outcome:
        module = job.mutant.module
        original = self.sources[module]
        select = copy / ".select.json"
        select.write_text(json.dumps(job.tests), encoding="utf-8")
        files = sorted({t.split("::")[0] for t in job.tests})
        (copy / module).write_text(apply_mutant(original, job.mutant), encoding="utf-8")
        tree.forget_bytecode(copy, module)
        started = time.monotonic()
        try:
            status, detail = self._pytest(copy, select, files, job.budget, keep_output)
            if status == "timeout":
                # A loaded machine runs out deadlines too: once more with twice the time, so
                # only a mutant that hangs (a loop that never ends) counts as killed by it.
                status, detail = self._pytest(copy, select, files, 2 * job.budget, keep_output)
        finally:
            (copy / module).write_text(original, encoding="utf-8")
            tree.forget_bytecode(copy, module)
        return Outcome(job.mutant, status, len(job.tests), time.monotonic() - started, detail)

    def _pytest(
        self, copy: Path, select: Path, files: list[str], budget: float, keep_output: bool
    ) -> tuple[str, str]:
        if self.stopping.is_set():
            return "error", "interrupted"
        env = tree.run_env(copy)
        env["MUTATION_SELECT"] = str(select)
        argv = tree.pytest_argv(copy, ["-x", "-p", "no:xdist", *files])
        proc = subprocess.Popen(
            argv,
            cwd=copy,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        with self.lock:
            self.running[copy] = proc
        try:
            out, _ = proc.communicate(timeout=budget)
        except subprocess.TimeoutExpired:
            tree.stop_group(proc)
            tree.sweep(copy)
            return "timeout", f"no result after {budget:.0f} s"
        finally:
            with self.lock:
                self.running.pop(copy, None)
        if self.stopping.is_set():
            return "error", "interrupted"
        text = out.decode(errors="replace")
        summary = text.strip().splitlines()[-1] if text.strip() else ""
        detail = text if keep_output else summary
        if proc.returncode == 0:
            return "survived", detail
        if proc.returncode == _NO_TESTS:
            return "error", "none of the selected tests were collected: " + detail
        return "killed", detail

    def interrupt(self) -> None:
        """Stop: interrupt the running test processes and kill what they left behind."""
        self.stopping.set()
        with self.lock:
            running = list(self.running.items())
        for copy, proc in running:
            tree.stop_group(proc, grace=5.0)
            tree.sweep(copy)


def run_all(
    workers: Workers, jobs: Iterable[Job], width: int, report: Callable[[Outcome], None]
) -> list[Outcome]:
    """Run jobs `width` at a time; `report` sees each outcome as it comes."""
    outcomes: list[Outcome] = []
    pending: set[Future[Outcome]] = set()
    todo = list(jobs)
    with ThreadPoolExecutor(max_workers=width) as pool:
        try:
            while todo or pending:
                while todo and len(pending) < width:
                    pending.add(pool.submit(workers.run, todo.pop(0)))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    outcome = future.result()
                    outcomes.append(outcome)
                    report(outcome)
        except BaseException:
            workers.interrupt()
            for future in pending:
                future.cancel()
            raise
    return outcomes
