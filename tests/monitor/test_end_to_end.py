"""The run monitor end to end, through the real wrapper (shell/interlock-sh) in temp
repositories: an agent that keeps rewriting a function without moving the failing test gets
[stuck], one recovery, then a handoff; a verbatim repeat gets the environment diagnosis; a
codemod whose metric keeps falling is never stopped."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from interlock.git import require_repo
from interlock.memory.snapshot import resolve_snapshot


def _handoff(repo: Path, run: str) -> tuple[str, dict]:
    folder = repo / ".git" / "interlock" / "handoff"
    return (folder / f"{run}.md").read_text(), json.loads((folder / f"{run}.json").read_text())


def test_rewrites_that_never_move_the_failing_test_get_one_recovery_then_a_handoff(
    project, wrap, git, interlock, suite, rewrite, configure, calc_source
):
    configure(project, 'mode = "blocking"\n', git)
    env = {"INTERLOCK_RUN": "fix-mul"}
    assert interlock(project, "todo", "add", "make mul multiply", env=env).returncode == 0
    first = wrap(project, suite, env)
    assert first.returncode == 1 and "interlock: [" not in first.stderr  # the red starting point
    tries = ["x = a;return x + b + 2", "total = 0;return total + a + b", "y = b;return a + y - 1"]
    for n, body in enumerate(tries):
        rewrite(project, body)
        got = wrap(project, suite, env)
        assert got.returncode == 1
        if n < 2:
            assert "interlock: [stuck]" not in got.stderr, got.stderr
    said = got.stderr
    assert said.count("interlock: [stuck] stepping back once:") == 1, said
    assert "3 materially different attempts (#2..#4) left the same 1 failing test(s)" in said
    assert "tests/test_calc.py::test_mul" in said and "changed calc.py" in said
    assert "try exactly one new approach" in said
    # the tree is back at the baseline; the abandoned patch is kept, nothing deleted
    assert (project / "calc.py").read_text() == calc_source
    set_aside = said.split("your patch is snapshot ")[1].split(" ")[0]
    snap = resolve_snapshot(require_repo(project), set_aside)
    kept = git(project, "show", f"{snap.oid}:calc.py").stdout
    assert "return a + y - 1" in kept

    rewrite(project, "z = a;return z + b + 10")  # one new approach: the same test fails
    got = wrap(project, suite, env)
    assert got.returncode == 1
    assert "interlock: [handoff] the run stops here" in got.stderr
    assert ".git/interlock/handoff/fix-mul.md" in got.stderr
    text, data = _handoff(project, "fix-mul")
    assert data["kind"] == "stuck"
    assert data["reason"] == "after one recovery, the new approach left the same failing set"
    assert len(data["evidence"]) == 4 and data["evidence"][-1].startswith("after the recovery: #5")
    assert data["changed_since"]["kind"] == "baseline"
    assert data["changed_since"]["paths"] == [{"path": "calc.py", "change": "modified"}]
    assert [s["snapshot"] for s in data["set_aside"]] == [set_aside]
    assert [c["attempt"] for c in data["checks"]] == [1, 2, 3, 4, 5]
    assert all(c["result"] == "1 failed, 1 passed" for c in data["checks"])
    assert data["failing"]["now"] == ["tests/test_calc.py::test_mul"]
    assert data["failing"]["history"][0]["attempts"] == 5
    assert [i["text"] for i in data["outstanding"]] == ["make mul multiply"]
    assert data["next_action"].startswith("read the set-aside patch")
    assert "## Work set aside" in text and f"interlock diff {set_aside}" in text
    assert "#1 make mul multiply" in text
    # blocking mode: the run is over, every further command refused
    refused = wrap(project, "echo more", env)
    assert refused.returncode == 126 and refused.stdout == ""
    assert refused.stderr.startswith("interlock: [handoff] refused: echo more")
    status = json.loads(interlock(project, "status", "--json", env=env).stdout)
    assert status["monitor"]["state"] == "stopped"


def test_a_verbatim_repeat_of_a_missing_module_gets_the_environment_diagnosis(
    project, wrap, git, suite
):
    (project / "tests" / "test_client.py").write_text("import httpx_not_installed_here\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "client test")
    env = {"INTERLOCK_RUN": "client"}
    command = f"{suite} tests/test_client.py"
    for _ in range(2):
        got = wrap(project, command, env)
        assert got.returncode == 2 and "interlock: [" not in got.stderr
    got = wrap(project, command, env)
    assert got.returncode == 2
    said = got.stderr
    assert "interlock: [stuck] the last 3 counted records (#1..#3) failed the same way" in said
    assert "the environment, not the code" in said
    assert "error: PROBLEM - a Python module is not installed" in said
    assert "outside: ok - fails the same way outside interlock (exit 2)" in said
    assert "interlock: [handoff] the run stops here: an environment problem: a Python module" in said
    _, data = _handoff(project, "client")
    assert data["kind"] == "environment"
    checks = {c["check"]: c["ok"] for c in data["world_checks"]}
    assert checks == {
        "error": False,
        "edit": None,
        "outside": True,
        "cwd": True,
        "disk": True,
        "writable": True,
    }
    assert data["next_action"].startswith("fix the environment (a Python module is not installed")
    # advisory mode (the default): further commands run, with a bounded reminder
    reminders = [wrap(project, "true", env).stderr for _ in range(4)]
    assert [r.count("interlock: [handoff] this run was stopped") for r in reminders] == [1, 1, 1, 0]


def test_a_codemod_whose_metric_keeps_falling_is_never_stopped(
    project, wrap, git, suite, configure
):
    src = project / "src"
    for n in range(4):
        (src / f"mod{n}.py").write_text(f"def f{n}():\n    return old_api({n}) + old_api({n})\n")
    (project / "tests" / "test_migrated.py").write_text(
        "import pathlib\n\n\ndef test_no_legacy_calls():\n"
        "    text = ''.join(p.read_text() for p in pathlib.Path('src').glob('*.py'))\n"
        "    assert 'old_api(' not in text\n"
    )
    configure(
        project,
        'monotone_metric = "legacy"\n'
        "[metrics]\n"
        "legacy = \"grep -o 'old_api(' -r src | wc -l\"\n",
        git,
    )
    env = {"INTERLOCK_RUN": "codemod"}
    assert wrap(project, "true", env).returncode == 0  # the run starts before the first edit
    command = f"{suite} tests/test_migrated.py"
    said = []
    for n in range(4):
        path = src / f"mod{n}.py"
        path.write_text(path.read_text().replace("old_api(", "new_api(") + f"# migrated {n}\n" * 3)
        got = wrap(project, command, env)
        said.append(got.stderr)
        assert got.returncode == (0 if n == 3 else 1)
    assert not any("interlock: [stuck]" in s or "[handoff]" in s for s in said), said
    records = [
        json.loads(line)
        for line in subprocess.run(
            ["sqlite3", str(project / ".git/interlock/journal.db"),
             "SELECT data FROM events WHERE kind = 'monitor-record' ORDER BY id"],
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
    ]
    assert [r["record"]["metrics"]["legacy"] for r in records] == [6, 4, 2, 0]
    # the failing set never moved over three material attempts: only the metric kept it going
    assert [r["record"]["failing"] for r in records[:3]] == [
        ["tests/test_migrated.py::test_no_legacy_calls"]
    ] * 3
    assert all(r["record"]["patch_distance"] >= 0.1 for r in records)
