"""Verified green: a real pytest run through the wrapper makes a green point, and nothing
that proves less does."""

from __future__ import annotations

from interlock.git import require_repo
from interlock.memory.snapshot import list_snapshots


def _greens(repo):
    return list_snapshots(require_repo(repo), kind="green")


def test_a_real_passing_pytest_makes_a_green_point(project, wrap, suite_cmd, journal_view):
    got = wrap(project, "-c", suite_cmd)
    assert got.returncode == 0, got.stderr
    assert b"3 passed" in got.stdout
    [green] = _greens(project)
    line = f"interlock: [green] 3 passed · snapshot {green.id} · tree verified green\n"
    assert got.stderr == line.encode()
    runs, [attempt] = journal_view(project)
    assert green.run == runs[0].id and green.command == suite_cmd
    done = attempt.completion
    assert done is not None and done.green == green.id and done.exit == 0
    assert done.data["outcome"]["passed"] == 3 and done.data["passed_tier"] == "slow"


def test_a_failing_run_records_the_failing_tests_and_makes_no_green(
    project, wrap, suite_cmd, journal_view
):
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    got = wrap(project, "-c", suite_cmd)
    assert got.returncode == 1
    assert _greens(project) == []
    _, [attempt] = journal_view(project)
    outcome = attempt.completion.data["outcome"]
    assert outcome["failed"] == 2
    assert outcome["failing"] == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_add_negative",
    ]


def test_no_green_after_a_masked_pytest(project, wrap, suite_cmd):
    for command in (
        f"{suite_cmd} || true",
        f"{suite_cmd} -k 'not zero'",
        f"{suite_cmd} | tail -3",
    ):
        got = wrap(project, "-c", command)
        assert got.returncode == 0
        assert b"[masked-validator]" in got.stderr
    assert _greens(project) == []


def test_blocking_mode_refuses_a_forged_pass_and_only_warns_on_a_hidden_one(
    project, wrap, suite_cmd, set_mode, git, journal_view
):
    set_mode(project, "blocking", git)
    hidden = wrap(project, "-c", f"{suite_cmd} 2>&1 | tail -3")
    assert hidden.returncode == 0 and b"passed" in hidden.stdout  # it ran: agents read output so
    assert b"interlock: [masked-validator] warning (runs, but is never credited as green)" in hidden.stderr
    forged = wrap(project, "-c", f"{suite_cmd} || true")
    assert forged.returncode == 126 and b"[masked-validator] refused" in forged.stderr
    _, attempts = journal_view(project)
    assert [(a.verdict, a.would_block) for a in attempts] == [("warn", False), ("block", True)]
    assert _greens(project) == []


def test_no_green_when_zero_tests_ran(project, wrap, suite_cmd, journal_view):
    got = wrap(project, "-c", f"{suite_cmd} -k no_such_test_anywhere")
    assert got.returncode == 5
    got = wrap(project, "-c", f"{suite_cmd} -k no_such_test_anywhere; exit 0")
    assert _greens(project) == []
    _, attempts = journal_view(project)
    assert all(not a.completion.green for a in attempts)


def test_no_green_for_a_weakened_test_and_the_message_names_it(
    project, wrap, suite_cmd, journal_view
):
    wrap(project, "-c", "true")  # the run starts: its baseline holds the real test
    test = project / "tests" / "test_calc.py"
    test.write_text(
        test.read_text().replace("assert add(-1, 1) == 0", "assert add(-1, 1) is not None")
    )
    got = wrap(project, "-c", suite_cmd)
    assert got.returncode == 0
    assert _greens(project) == []
    assert b"interlock: [self-authored] not credited as green:" in got.stderr
    assert b"test_add_negative" in got.stderr


def test_a_weakened_test_is_refused_in_blocking_mode(project, wrap, suite_cmd, set_mode, git):
    set_mode(project, "blocking", git)
    wrap(project, "-c", "true")
    test = project / "tests" / "test_calc.py"
    test.write_text(test.read_text().replace("assert add(2, 3) == 5", "pass"))
    got = wrap(project, "-c", suite_cmd)
    assert got.returncode == 126 and got.stdout == b""
    assert got.stderr.startswith(b"interlock: [self-authored] refused:")


def test_no_green_from_a_check_script_the_run_wrote(project, wrap, git):
    (project / ".interlock.toml").write_text('validators = ["python verify.py"]\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "declare verify.py as the suite")
    wrap(project, "-c", "true")
    (project / "verify.py").write_text(
        "from calc import add\nassert add(1, 1) == 2\nprint('all good')\n"
    )
    got = wrap(project, "-c", "python verify.py")
    assert got.returncode == 0 and got.stdout == b"all good\n"
    assert b"[self-authored]" in got.stderr and b"verify.py" in got.stderr
    assert _greens(project) == []


def test_a_fast_check_passing_is_recorded_but_never_green(project, wrap, suite_cmd, journal_view):
    got = wrap(project, "-c", f"{suite_cmd} tests/test_calc.py::test_add")
    assert got.returncode == 0 and got.stderr == b""
    assert _greens(project) == []
    _, [attempt] = journal_view(project)
    assert attempt.completion.data["passed_tier"] == "fast"


def test_a_pass_whose_count_fell_sharply_is_flagged_not_credited(project, wrap, suite_cmd):
    test = project / "tests" / "test_calc.py"
    test.write_text(
        test.read_text() + "".join(f"\n\ndef test_more_{i}():\n    assert True\n" for i in range(9))
    )
    assert wrap(project, "-c", suite_cmd).returncode == 0
    assert len(_greens(project)) == 1
    (project / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    (project / "conftest.py").write_text("")
    got = wrap(project, "-c", suite_cmd)
    assert got.returncode == 0
    assert len(_greens(project)) == 1
    assert b"not credited" in got.stderr


def test_tests_changed_before_the_run_are_its_baseline_not_a_weakening(project, wrap, suite_cmd):
    test = project / "tests" / "test_calc.py"
    test.write_text(test.read_text() + "\n\ndef test_written_before_the_run():\n    assert True\n")
    got = wrap(project, "-c", suite_cmd)  # the run starts here, with that test unstaged
    assert got.returncode == 0 and b"4 passed" in got.stdout
    assert b"tree verified green" in got.stderr
    assert len(_greens(project)) == 1


def test_warnings_of_a_kind_are_said_in_full_three_times_a_run_then_in_one_line(
    project, wrap, suite_cmd
):
    lines = []
    for _ in range(5):
        got = wrap(project, "-c", f"{suite_cmd} | tail -1")
        lines.append(got.stderr.decode())
    assert all("rule:" in text and "instead:" in text for text in lines[:3])
    for text in lines[3:]:
        [line] = text.splitlines()
        assert line.startswith("interlock: [masked-validator] warning") and "(rule " in line
