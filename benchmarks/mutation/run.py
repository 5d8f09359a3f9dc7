"""Mutation testing of the modules that decide safety: one command, run outside CI.

    .venv/bin/python benchmarks/mutation/run.py interlock/config.py [MODULE ...]
    .venv/bin/python benchmarks/mutation/run.py --all [--check] [--record]
    .venv/bin/python benchmarks/mutation/run.py interlock/config.py --tests tests/test_config.py
    .venv/bin/python benchmarks/mutation/run.py interlock/config.py --survivors
    .venv/bin/python benchmarks/mutation/run.py interlock/config.py --list | --show ID | --mutant ID

Each mutant of a module (see mutants.py) runs in a temporary copy of the worktree against the
tests that run its line (see testmap.py), until one fails; it is killed when one fails or the
run hangs past its deadline, survived when all pass. The score is killed / (tried - listed
equivalents). See README.md in this directory for how to review a survivor.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

import ledger
import testmap
import tree
from execute import Job, Outcome, Workers, run_all
from mutants import Mutant, apply_mutant, find_mutants
from selection import import_time_lines, order_tests, preflight

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = ROOT / "benchmarks" / ".work" / "mutation"
EQUIVALENTS = HERE / "equivalent.toml"
SCORES = HERE / "scores.json"

# The modules that decide safety (issue 14), by their names in docs/architecture.md.
SCOPE_PATTERNS = (
    "interlock/config.py",
    "interlock/engine/exitflow.py",
    "interlock/engine/exiteval.py",
    "interlock/engine/exitsteps.py",
    "interlock/engine/exitstate.py",
    "interlock/engine/exitbuiltins.py",
    "interlock/engine/precision.py",
    "interlock/engine/facts.py",
    "interlock/engine/treepaths.py",
    "interlock/engine/walk.py",
    "interlock/engine/shellstate.py",
    "interlock/engine/wrappers.py",
    "interlock/engine/pkgrunners.py",
    "interlock/engine/launchers.py",
    "interlock/engine/spawners.py",
    "interlock/engine/unwrap.py",
    "interlock/engine/hidden.py",
    "interlock/engine/rules/fs.py",
    "interlock/engine/rules/overwrite*.py",
    "interlock/engine/rules/disk.py",
    "interlock/engine/rules/sequence.py",
    "interlock/engine/rules/saves.py",
    "interlock/engine/rules/git/*.py",
    "interlock/engine/rules/selfdisable.py",
    "interlock/engine/rules/ownpaths.py",
    "interlock/engine/rules/daemonkill.py",
    "interlock/engine/rules/uninstalls.py",
    "interlock/engine/rules/writes.py",
    "interlock/engine/rules/validators/*.py",
    "interlock/engine/verdict.py",
    "interlock/memory/restore.py",
    "interlock/memory/staging.py",
    "interlock/memory/recorder.py",
    "interlock/memory/recindex.py",
    "interlock/memory/rechistory.py",
)


def scope() -> list[str]:
    found: list[str] = []
    for pattern in SCOPE_PATTERNS:
        for path in sorted(ROOT.glob(pattern)):
            if path.name != "__init__.py":
                found.append(path.relative_to(ROOT).as_posix())
    return found


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="run.py",
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("modules", nargs="*", help="module paths, e.g. interlock/config.py")
    p.add_argument("--all", action="store_true", help="every module in the scope")
    p.add_argument("--tests", nargs="+", metavar="TEST", help="run every mutant against these")
    p.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    p.add_argument(
        "--cap",
        type=int,
        metavar="N",
        help="run each mutant against at most its first N tests (a quick first pass; the score "
        "is then a lower bound, and --survivors reruns them in full)",
    )
    p.add_argument("--timeout-factor", type=float, default=3.0, help="deadline x traced time")
    p.add_argument("--check", action="store_true", help="exit 1 below the record or 90%%")
    p.add_argument("--record", action="store_true", help="write the scores to scores.json")
    p.add_argument("--survivors", action="store_true", help="rerun only last run's survivors")
    p.add_argument("--mutant", nargs="+", metavar="ID", help="run only these mutants, verbosely")
    p.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    p.add_argument("--show", metavar="ID", help="print one mutant as a diff, run nothing")
    p.add_argument("--refresh-map", action="store_true", help="trace the whole suite again")
    p.add_argument("--no-nice", action="store_true", help="do not lower the priority")
    p.add_argument("--self-test", action="store_true", help="run the tool's own tests")
    args = p.parse_args(argv)
    if args.self_test:
        return args
    if args.all:
        args.modules = scope()
    if not args.modules:
        p.error("name a module (e.g. interlock/config.py) or --all")
    for module in args.modules:
        if not (ROOT / module).is_file():
            p.error(f"{module}: no such file under {ROOT}")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.cap is not None and args.cap < 1:
        p.error("--cap must be at least 1")
    if args.cap and args.check:
        p.error("--cap gives a lower bound, which cannot fail or pass --check; drop one")
    return args


def location(m: Mutant) -> str:
    return f"{m.module}:{m.line}"


def show(source: str, mutant: Mutant) -> None:
    diff = difflib.unified_diff(
        source.splitlines(keepends=True),
        apply_mutant(source, mutant).splitlines(keepends=True),
        f"a/{mutant.module}",
        f"b/{mutant.module} (mutant {mutant.id})",
        n=3,
    )
    print(f"{location(mutant)} {mutant.id} {mutant.describe()}")
    print(f"key: {mutant.key}")
    sys.stdout.writelines(diff)


def pick(args: argparse.Namespace, module: str, source: str, found: list[Mutant]) -> list[Mutant]:
    if args.mutant:
        return [m for m in found if m.id in args.mutant]
    if args.survivors:
        last = ledger.last_survivors(results_path(module), source)
        if last is None:
            print(f"mutation: {module}: no earlier run of this exact source; running every mutant")
            return found
        return [m for m in found if m.key in last]
    return found


def results_path(module: str) -> Path:
    return WORK / "results" / (module.replace("/", "__") + ".json")


def print_outcome(outcome: Outcome, index: int, total: int, verbose: bool) -> None:
    m = outcome.mutant
    tests = f"{outcome.tests} test(s), {outcome.seconds:.1f} s"
    print(f"  [{index}/{total}] {outcome.status:9} {m.id} {location(m)} {m.describe()} ({tests})")
    if verbose and outcome.detail:
        print("    " + outcome.detail.replace("\n", "\n    "))


def list_survivors(outcomes: list[Outcome], entries: list[ledger.Equivalent]) -> None:
    left = [o for o in outcomes if not o.killed]
    listed = [o for o in left if ledger.equivalent_for(o.mutant, entries)]
    real = [o for o in left if not ledger.equivalent_for(o.mutant, entries)]
    for o in sorted(real, key=lambda o: o.mutant.line):
        why = f" ({o.detail})" if o.status in ("uncovered", "error") else ""
        print(f"  SURVIVED {location(o.mutant)} {o.mutant.id} {o.mutant.describe()}{why}")
    if listed:
        print(f"  ({len(listed)} listed equivalent mutant(s) survived, as expected)")
    for o in outcomes:
        entry = ledger.equivalent_for(o.mutant, entries)
        if o.killed and entry is not None:
            print(
                f"  KILLED BUT LISTED AS EQUIVALENT: {location(o.mutant)} {o.mutant.id}; delete it"
            )


def stale_entries(module: str, found: list[Mutant], entries: list[ledger.Equivalent]) -> None:
    for entry in entries:
        if entry.module == module and not any(entry.matches(m) for m in found):
            print(
                f"  STALE equivalent.toml entry: {entry.function}: `{entry.original}` -> "
                f"`{entry.mutant}` matches no mutant any more; update or delete it"
            )


def table(rows: dict[str, ledger.Score], recorded: dict[str, dict[str, float | int]]) -> None:
    width = max([len(m) for m in rows] + [6])
    print(f"\n{'module':{width}}  tried  killed  survived  equivalent   score  recorded")
    for module, s in rows.items():
        rec = recorded.get(module)
        was = f"{rec['score']}%" if rec else "-"
        print(
            f"{module:{width}}  {s.tried:5}  {s.killed:6}  {s.survived:8}  {s.equivalent:10}"
            f"  {s.score:5.1f}%  {was}"
        )
        if s.capped:
            print(f"  (a lower bound: each mutant ran at most {s.capped} of its tests)")


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def self_test() -> int:
    """The tool's own tests (a known mutant is applied and killed, ...)."""
    argv = [sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider"]
    return subprocess.run([*argv, "-p", "no:xdist", str(HERE / "tests")], cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.self_test:
        return self_test()
    entries = ledger.load_equivalents(EQUIVALENTS)
    sources = {m: (ROOT / m).read_text(encoding="utf-8") for m in args.modules}
    found = {m: find_mutants(sources[m], m) for m in args.modules}
    if args.list or args.show:
        for module in args.modules:
            for mutant in found[module]:
                if args.show and mutant.id == args.show:
                    show(sources[module], mutant)
                    return 0
                if args.list:
                    print(f"{location(mutant)} {mutant.id} {mutant.describe()}")
        return 0 if args.list else 1
    if not args.no_nice:
        os.nice(19)
    signal.signal(signal.SIGTERM, _interrupt)
    workdir = Path(tempfile.mkdtemp(prefix="mut-")).resolve()
    print(f"mutation: working in {workdir} (removed at the end)", flush=True)
    try:
        return run(args, entries, sources, found, workdir)
    except KeyboardInterrupt:
        print("\nmutation: interrupted; the worktree was never touched", file=sys.stderr)
        return 130
    finally:
        for copy in workdir.glob("t*"):
            tree.sweep(copy)
        shutil.rmtree(workdir, ignore_errors=True)


def run(
    args: argparse.Namespace,
    entries: list[ledger.Equivalent],
    sources: dict[str, str],
    found: dict[str, list[Mutant]],
    workdir: Path,
) -> int:
    names = tree.tree_files(ROOT)
    copies = [tree.make_copy(ROOT, names, workdir) for _ in range(args.jobs)]
    preflight(copies[0], args.modules[0])
    explicit = None
    tmap = None
    if args.tests:
        explicit = collect(copies[0], args.tests)
    else:
        traced = sorted(set(scope()) | set(args.modules))
        tmap = testmap.build(
            ROOT, copies[0], names, traced, WORK / "map.json.gz", args.jobs, args.refresh_map
        )
    workers = Workers(copies, sources, verbose=bool(args.mutant), pause=WORK / "pause")
    recorded = ledger.load_scores(SCORES)
    rows: dict[str, ledger.Score] = {}
    failures: list[str] = []
    for module in args.modules:
        chosen = pick(args, module, sources[module], found[module])
        print(f"\nmutation: {module}: {len(chosen)} of {len(found[module])} mutant(s)", flush=True)
        jobs = plan(args, module, sources[module], chosen, explicit, tmap)
        took = control(workers, module, jobs)
        if took is None:
            return 1
        if explicit is not None:  # no traced times: the deadline comes from the control run
            budget = 30 + args.timeout_factor * took
            jobs = [dataclasses.replace(job, budget=budget) for job in jobs]
        outcomes = run_jobs(workers, jobs, args)
        if args.survivors and not args.mutant:
            outcomes += kept_kills(found[module], chosen)
        if not args.mutant:  # a few mutants' outcomes must not replace the module's last run
            ledger.save_results(results_path(module), sources[module], outcomes)
        list_survivors(outcomes, entries)
        stale_entries(module, found[module], entries)
        if args.mutant:
            continue
        rows[module] = ledger.score_of(outcomes, entries, capped=args.cap)
        problem = ledger.check(module, rows[module], recorded.get(module))
        if problem:
            failures.append(problem)
    if rows:
        table(rows, recorded)
    if args.record and rows:
        # read again: another run may have recorded its modules since this one started
        ledger.save_scores(SCORES, ledger.merge_scores(ledger.load_scores(SCORES), rows))
        print(f"mutation: recorded in {SCORES.relative_to(ROOT)}")
    if args.check:
        for problem in failures:
            print(f"mutation: check failed: {problem}")
        return 1 if failures else 0
    return 0


def plan(
    args: argparse.Namespace,
    module: str,
    source: str,
    chosen: list[Mutant],
    explicit: list[str] | None,
    tmap: testmap.TestMap | None,
) -> list[Job]:
    """Each mutant with its tests (likeliest killers first) and its deadline."""
    early = import_time_lines(source)
    jobs = []
    for mutant in chosen:
        if explicit is not None:
            jobs.append(Job(mutant, explicit, 600.0))
            continue
        assert tmap is not None
        picked = tmap.tests_for(module, mutant.lines, bool(early & set(mutant.lines)))
        tests = order_tests(module, picked, tmap.durations)[: args.cap or None]
        budget = 30 + args.timeout_factor * sum(tmap.durations.get(t, 1.0) for t in tests)
        jobs.append(Job(mutant, tests, budget))
    return jobs


def run_jobs(workers: Workers, jobs: list[Job], args: argparse.Namespace) -> list[Outcome]:
    count = iter(range(1, len(jobs) + 1))

    def report(outcome: Outcome) -> None:
        print_outcome(outcome, next(count), len(jobs), bool(args.mutant))

    return run_all(workers, jobs, args.jobs, report)


def control(workers: Workers, module: str, jobs: list[Job]) -> float | None:
    """The module's likeliest-killer tests pass on the unmutated copy (else stop: a broken
    baseline would count every mutant as killed): the seconds they took, or None."""
    tests: list[str] = []
    for job in jobs:
        tests += [t for t in job.tests[:50] if t not in tests]
    if not tests:
        return 0.0
    started = time.monotonic()
    status, detail = workers.control(tests[:300], 600.0)
    if status == "survived":
        return time.monotonic() - started
    print(f"mutation: {module}: the tests fail without any mutant ({status}):\n{detail[-4000:]}")
    return None


def kept_kills(found: list[Mutant], rerun: list[Mutant]) -> list[Outcome]:
    """With --survivors, the mutants not rerun were killed last time (module unchanged)."""
    again = {m.key for m in rerun}
    return [
        Outcome(m, "killed", 0, 0.0, "killed in the last run") for m in found if m.key not in again
    ]


def collect(copy: Path, tests: list[str]) -> list[str]:
    """The test ids that `--tests` names, in pytest's order."""
    argv = tree.pytest_argv(copy, ["-p", "no:xdist", "--collect-only", *tests])
    proc = subprocess.run(argv, cwd=copy, env=tree.run_env(copy), capture_output=True, text=True)
    ids = [line for line in proc.stdout.splitlines() if "::" in line]
    if proc.returncode != 0 or not ids:
        raise SystemExit(f"mutation: cannot collect {' '.join(tests)}:\n{proc.stdout[-3000:]}")
    return ids


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
