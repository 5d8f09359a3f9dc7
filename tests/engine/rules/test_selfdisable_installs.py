"""interlock's own install replaced or broken from inside the run (rules.uninstalls,
rules.ownpaths): an install whose package is interlock (by name, a wheel, a URL, a source tree
whose pyproject.toml names it, a requirements file listing it, a name known only at run time)
and a write to its programs (`bin/interlock`, `bin/interlock-sh`), its virtualenv or its
site-packages entry are `selfdisable.interlock-off`, as `pip uninstall interlock` is. Before,
each was allowed. Installs of other projects (`pip install -e .` in one) stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine.check import evaluate

OFF = "selfdisable.interlock-off"


def judged(command: str, cwd: str = "/", assume_dirty: bool = True) -> tuple[str, set[str]]:
    result = evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result
    return result.verdict, {f.rule for f in result.findings}


def reason(command: str, cwd: str = "/", assume_dirty: bool = True) -> str:
    result = evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result
    [finding] = [f for f in result.findings if f.rule == OFF]
    return finding.reason


@pytest.fixture
def tree(git_repo: Path) -> Path:
    """A project (`app`, pyproject.toml) with uncommitted work, beside other trees: one whose
    project is interlock by pyproject, by setup.cfg, by setup.py, one unnamed, one other."""
    (git_repo / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n')
    (git_repo / "README.md").write_text("work in progress\n")
    trees = {
        "other/pyproject.toml": '[project]\nname = "interlock"\nversion = "9"\n',
        "evil/setup.cfg": "[metadata]\nname = Interlock\n",
        "legacy/setup.py": "from setuptools import setup\nsetup(name='interlock')\n",
        "poetry/pyproject.toml": '[tool.poetry]\nname = "interlock"\n',
        "unnamed/setup.py": "import x\nx.go()\n",
        "broken/pyproject.toml": "[project\n",
        "lib/pyproject.toml": '[project]\nname = "interlock-tools"\n',
        "cfglib/setup.cfg": "[metadata]\nversion = 1\n",
        "cfgok/setup.cfg": "[metadata]\nname = app-two\n",
        "pyok/setup.py": "from setuptools import setup\nsetup(name='app-three')\n",
        "badcfg/setup.cfg": "name = x\n[metadata\n",
        "badcfg/setup.py": "setup(name='app-four')\n",
    }
    for name, text in trees.items():
        (git_repo / name).parent.mkdir(exist_ok=True)
        (git_repo / name).write_text(text)
    (git_repo / "requirements.txt").write_text("requests\n# pinned\ninterlock==0.1  # x\n")
    (git_repo / "dev.txt").write_text("pytest\n\n# interlock comes from install.sh\n-e ./lib\n")
    (git_repo / "req").mkdir()
    (git_repo / "req" / "all.txt").write_text("-r ../requirements.txt\n")
    (git_repo / "req" / "ok.txt").write_text("-r ../dev.txt\n")
    (git_repo / "loop.txt").write_text("-r loop.txt\n")
    (git_repo / "edit.txt").write_text("-e ./other\n")
    (git_repo / "bin.txt").write_bytes(b"\x00interlock\n")
    chain = {"deep.txt": "a.txt", "a.txt": "b.txt", "b.txt": "c.txt", "two.txt": "a2.txt"}
    for name, nested in chain.items():
        (git_repo / name).write_text(f"-r {nested}\n")
    (git_repo / "a2.txt").write_text("-r c.txt\n")
    (git_repo / "c.txt").write_text("requests\n")
    (git_repo / "r").write_text("interlock\n")
    return git_repo


@pytest.mark.parametrize(
    "command",
    [
        "pip install interlock==0.1",
        "pip install interlock",
        "pip3 install -U 'Interlock[dev]>=0.2'",
        "python3 -m pip install --force-reinstall interlock",
        "uv pip install interlock==0.1",
        "uv tool install interlock",
        "uv tool upgrade interlock",
        "uv add --dev interlock",
        "pipx install interlock",
        "pipx reinstall interlock",
        "poetry add interlock",
        "pdm add interlock",
        "pipenv install interlock",
        "conda install -y interlock",
        "pip install requests interlock",
        "pip install -q --no-deps interlock",
        "pip install --index-url https://x/simple interlock",
        "pip install $PKG",
        'pip install requests "$EXTRA"',
        "pip install dist/interlock-0.1-py3-none-any.whl",
        "pip install ./interlock-0.1.tar.gz",
        "pip install git+https://github.com/x/interlock.git",
        "pip install 'git+https://github.com/x/interlock.git#subdirectory=src'",
        "pip install 'git+https://example.com/x/y.git#egg=interlock'",
        "pip install 'interlock @ git+https://example.com/x/y'",
        "pip install https://example.com/interlock-0.1-py3-none-any.whl",
        "pip install -e ../interlock",
        "pip install --editable=/src/interlock/",
        "pip install -e/src/interlock",
        "pip install -e ~/src/interlock",
        "pip install ~dev/interlock/",
        'pip install "$HOME/src/mylib"',
        'pip install -r "$REQS"',
        "sudo pip install interlock",
    ],
)
def test_an_install_whose_package_is_interlock_is_interlock_off(command: str) -> None:
    verdict, found = judged(command)
    assert verdict == "block", command
    assert OFF in found, command


@pytest.mark.parametrize(
    "command",
    [
        "pip install requests",
        "pip install -U pip setuptools",
        "pip install interlocking",
        "pip install interlock-tools",
        "pip install -e .",
        "pip install -e '.[test]' -q",
        "pip install .",
        "pip install -r requirements.txt",
        "pip install git+https://github.com/psf/requests",
        "pip install 'requests @ git+https://example.com/interlock'",
        "pip install dist/app-1.0-py3-none-any.whl",
        "pip install dist/interlock-extras-1.0.tar.gz",
        "pip install interlock_extras-1.0-py3-none-any.whl",
        "pip install --target interlock requests",
        "pip install -e ~/src/mylib",
        "pip install ~/wheels/app-1.0-py3-none-any.whl",
        "pip install -",
        "pip install -t interlock requests",
        "pip install -i https://example.com/interlock/simple requests",
        "uv pip install -p interlock requests",
        "pip uninstall -y requests",
        "pip download interlock",
        "pip show interlock",
        "pip install",
        "npm install interlock",
        "echo pip install interlock",
    ],
)
def test_an_install_of_other_packages_is_allowed(command: str) -> None:
    assert judged(command) == ("allow", set()), command


@pytest.mark.parametrize(
    "command",
    [
        "pip install -e other",
        "pip install --force-reinstall ./evil",
        "pip install ./legacy",
        "pip install -e poetry/",
        "pip install -e ./unnamed",
        "pip install ./broken",
        "pip install -r requirements.txt",
        "pip install --requirement=req/all.txt",
        "pip install -redit.txt",
        "pip install -r loop.txt",
        "pip install -r bin.txt",
        "cd req && pip install -r all.txt",
        "pip install -r deep.txt",
        "pip install -rr",
        "cd other && pip install -e.",
        "pip install -e other requests",
        "pip install -e ~/src/interlock",
        "pip install --editable=./lib interlock",
        "pip install -e./lib ./other",
        "pip install --editable other requests",
        "pip install -e ./cfglib",
        "conda install --file requirements.txt",
    ],
)
def test_an_install_the_tree_shows_is_interlock_is_interlock_off(tree: Path, command: str) -> None:
    verdict, found = judged(command, str(tree), assume_dirty=False)
    assert verdict == "block", command
    assert OFF in found, command


@pytest.mark.parametrize(
    "command",
    [
        "pip install -e .",
        "pip install -e '.[test]'",
        "pip install .",
        "pip install -e ./lib",
        "pip install -e ~/src/mylib",
        "pip install -e /nonexistent/interlock-like",
        "pip install ./absent",
        "pip install -r dev.txt",
        "pip install -r req/ok.txt",
        "pip install -r two.txt",
        "pip install -e ./cfgok",
        "pip install ./pyok",
        "pip install ./badcfg",
        "pip install -e",
        "pip install requests -r",
        "pip install --target other requests",
        "pip install -t other -c dev.txt requests",
        "pip install -r absent.txt",
    ],
)
def test_an_install_the_tree_shows_is_another_project_is_allowed(tree: Path, command: str) -> None:
    assert judged(command, str(tree), assume_dirty=False) == ("allow", set()), command


def test_the_install_finding_names_the_tree_and_its_project(tree: Path) -> None:
    got = reason("pip install -e other", str(tree), assume_dirty=False)
    assert got == (
        "`pip install` would replace interlock's package: other is the source of the project "
        "interlock"
    )
    got = reason("pip install ./unnamed", str(tree), assume_dirty=False)
    assert got.endswith("./unnamed is a tree whose project name interlock cannot read")
    got = reason("pip install -r loop.txt", str(tree), assume_dirty=False)
    assert got.endswith("the requirements file loop.txt nests other files too deep")
    got = reason("pip install -r bin.txt", str(tree), assume_dirty=False)
    assert got.endswith("the requirements file bin.txt cannot be read")


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("pip install interlock==0.1", "`interlock==0.1` names interlock's own package"),
        ("pip install $PKG", "$PKG is a package known only at run time"),
        ('pip install -r "$R"', 'the requirements file "$R" is known only at run time'),
        (
            "pip install x/interlock-0.1.tar.gz",
            "x/interlock-0.1.tar.gz holds the project interlock",
        ),
        ("pip install -e ../interlock", "../interlock is a tree named interlock"),
        (
            "pip install 'interlock @ https://x/y'",
            "interlock @ https://x/y is the project interlock",
        ),
        (
            "pip install git+https://x/interlock.git",
            "git+https://x/interlock.git is the project interlock",
        ),
        ("uv tool install interlock", "`uv tool install` would replace interlock's package: "),
    ],
)
def test_the_install_finding_says_why_it_is_interlock(command: str, why: str) -> None:
    assert why in reason(command), command


@pytest.mark.parametrize(
    "command",
    [
        "rm ~/.local/bin/interlock",
        "rm -f /usr/local/bin/interlock-sh",
        "rm bin/interlock-sh",
        "ln -sf /bin/true ~/.local/bin/interlock",
        "echo > $(which interlock)",
        "echo 'exit 0' > \"$(command -v interlock-sh)\"",
        "truncate -s0 `type -P interlock`",
        "tee $(which interlock) < /dev/null",
        'cp /bin/true "$HOME/.local/bin/interlock"',
        "mv ~/.local/bin/interlock /tmp/il",
        "chmod -x ~/.local/bin/interlock",
        "chmod 644 ~/.local/bin/interlock-sh",
        "rm -rf ~/.local/share/interlock",
        'rm -rf "$XDG_DATA_HOME/share/interlock/venv"',
        "rm -rf .venv/lib/python3.12/site-packages/interlock",
        "rm -rf .venv/lib/python3.12/site-packages/interlock-0.1.0.dist-info",
        "rm .venv/lib/python3.12/site-packages/__editable__.interlock-0.1.0.pth",
        "sed -i 's/main()/0/' .venv/lib/python3.11/site-packages/interlock/cli.py",
    ],
)
def test_a_write_to_interlocks_programs_or_package_is_interlock_off(command: str) -> None:
    verdict, found = judged(command)
    assert verdict == "block", command
    assert OFF in found, command


@pytest.mark.parametrize(
    "command",
    [
        "cat ~/.local/bin/interlock",
        "ls -la ~/.local/share/interlock",
        "chmod +x ~/.local/bin/interlock",
        "chmod 755 ~/.local/bin/interlock-sh",
        "cp ~/.local/bin/interlock /tmp/backup",
        "rm interlock",
        "rm -rf interlock/",
        "rm bin/interlockd",
        "rm src/bin/interlock.py",
        "rm -rf build/lib/interlock",
        "echo > $(which python)",
        "echo > $(which interlocking)",
        "rm -rf .venv/lib/python3.12/site-packages/requests",
        "rm ~/.local/share/interlocker",
    ],
)
def test_other_paths_near_interlocks_install_are_not_interlock_off(command: str) -> None:
    """(judged with --assume-dirty, a removal is still a discard of unsaved work: nothing else)"""
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    assert {f.kind for f in result.findings} <= {"discard"}, command
