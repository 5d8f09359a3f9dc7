"""The safe-state rung on real trees: after a failure streak of twice the checkpoint threshold
on top of a green point with unverified edits, advisory writes nothing and names a restore it
can stand behind; auto sets the work aside and restores green, or declines and leaves the
tree exactly as it was when a path cannot be restored. Twice a run at most, once a streak.

The project's check here is a declared validator (`python3 check.py`: the same tests, read
the same way as pytest's), so a streak of failures costs milliseconds, not pytest starts."""

from __future__ import annotations

import sys

import pytest

CHECK = """\
import sys
import calc
tests = {
    "tests/test_calc.py::test_add": lambda: calc.add(2, 3) == 5,
    "tests/test_calc.py::test_mul": lambda: calc.mul(2, 3) == 6,
}
failed = [name for name, test in tests.items() if not test()]
for name in failed:
    print(f"FAILED {name} - assert False")
passed = len(tests) - len(failed)
print(f"{len(failed)} failed, {passed} passed in 0.01s" if failed else f"{passed} passed in 0.01s")
sys.exit(1 if failed else 0)
"""
FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
# Each breaks another part, so the failing set moves every time (no stuck search).
BREAKS = [
    "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
    "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a ** b\n",
    "def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return 1\n",
    "def add(a, b):\n    return b - a\n\n\ndef mul(a, b):\n    return b * a\n",
]


@pytest.fixture
def checked(project, git, configure):
    """`checked(mode)`: the project with check.py as its declared suite and this
    safe_state_abort; returns the check command."""

    def make(mode: str) -> str:
        command = f"{sys.executable} -S check.py"
        (project / "check.py").write_text(CHECK)
        configure(
            project,
            f'safe_state_abort = "{mode}"\nrepeat_threshold = 2\nvalidators = ["{command}"]\n',
            git,
        )
        return command

    return make


def _green_then_streak(agent, project, check, breaks: int):
    """A green point, then `breaks` failing checks in a row, each on a new edit."""
    agent("true")
    (project / "calc.py").write_text(FIXED)
    green = agent(check)
    assert green.code == 0 and "[green]" in green.messages, green.messages
    said = []
    for n in range(breaks):
        (project / "calc.py").write_text(BREAKS[n % len(BREAKS)] + f"# try {n}\n")
        said.append(agent(check))
    return green.messages.split("snapshot ")[1].split(" ")[0], said


def _fired(said) -> list[int]:
    return [n for n, s in enumerate(said, 1) if "interlock: [safe-state]" in s.messages]


def test_advisory_names_the_green_point_and_a_provable_restore_and_writes_nothing(
    agent, project, checked
):
    check = checked("advisory")
    green, said = _green_then_streak(agent, project, check, 5)
    assert _fired(said) == [4]  # 2 x repeat_threshold failures in a row, once a streak
    text = said[3].messages
    assert f"4 failing checks in a row on top of green point {green}" in text
    assert f"interlock restore {green} goes back, saving them first" in text
    assert "abandoned:" in text and "changed calc.py" in text and "FAILED tests/test_calc.py" in text
    assert "pick one new approach" in text
    assert (project / "calc.py").read_text() == BREAKS[0] + "# try 4\n"  # nothing written


def test_auto_sets_the_edits_aside_and_restores_green(agent, project, checked, git):
    check = checked("auto")
    green, said = _green_then_streak(agent, project, check, 4)
    text = said[3].messages
    assert f"on top of green point {green}" in text and ": restored it" in text
    assert (project / "calc.py").read_text() == FIXED
    aside = text.split("your edits are snapshot ")[1].split(" ")[0]
    ref = [r for r in git(project, "for-each-ref", "--format=%(refname)").stdout.split() if aside in r]
    assert "pre-restore" in ref[0]
    assert git(project, "show", f"{ref[0]}:calc.py").stdout.startswith(BREAKS[3])
    assert agent(check).code == 0  # the known-good tree


def test_auto_declines_when_a_path_cannot_be_restored_and_leaves_the_tree(
    agent, project, checked
):
    check = checked("auto")
    agent("true")
    (project / "calc.py").write_text(FIXED)
    assert agent(check).code == 0
    (project / ".git" / "info" / "exclude").write_text("cache.bin\n")
    (project / "README.md").unlink()
    (project / "README.md").mkdir()
    (project / "README.md" / "cache.bin").write_bytes(b"\1" * 32)  # ignored: in the way
    said = []
    for n in range(4):
        (project / "calc.py").write_text(BREAKS[n] + f"# try {n}\n")
        said.append(agent(check))
    text = said[3].messages
    assert "not restored: auto declined, nothing was changed: cannot restore" in text
    assert "README.md/cache.bin (in the way of README.md)" in text
    assert "not restorable as is" in text and "interlock restore" not in text.split("known good")[1]
    assert (project / "calc.py").read_text().startswith(BREAKS[3])
    assert (project / "README.md" / "cache.bin").read_bytes() == b"\1" * 32


def test_twice_a_run_at_most_and_once_a_streak(agent, project, checked):
    check = checked("advisory")
    _, first = _green_then_streak(agent, project, check, 6)
    assert _fired(first) == [4]
    for _ in range(2):
        (project / "calc.py").write_text(FIXED)
        assert agent(check).code == 0  # the streak ends
        said = []
        for n in range(5):
            (project / "calc.py").write_text(BREAKS[n % 4] + f"# again {n}\n")
            said.append(agent(check))
        first = first + said
    assert len([s for s in first if "interlock: [safe-state]" in s.messages]) == 2


def test_off_says_nothing(agent, project, checked):
    check = checked("off")
    _, said = _green_then_streak(agent, project, check, 5)
    assert _fired(said) == []


def test_without_a_green_point_it_does_not_fire(agent, project, checked):
    check = checked("advisory")
    agent("true")
    said = []
    for n in range(5):
        (project / "calc.py").write_text(BREAKS[n % 4] + f"# try {n}\n")
        said.append(agent(check))
    assert _fired(said) == []
