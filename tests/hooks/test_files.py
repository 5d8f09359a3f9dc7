"""Installing and removing interlock's hooks, with real git and real commits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock.commands.hooks import install_hooks, uninstall_hooks
from interlock.errors import InterlockError
from interlock.git import require_repo
from interlock.hooks import files as hookfiles

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def mode_off(monkeypatch):
    """These tests are about hook files and chaining: interlock's own checks stay off, so each
    commit does not pay for loading the audit (tests/hooks/test_dispatch.py covers them)."""
    monkeypatch.setenv("INTERLOCK_MODE", "off")


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def said(result: subprocess.CompletedProcess[str]) -> str:
    """Everything a git command printed: git sends a hook's stdout to stderr."""
    return result.stdout + result.stderr


def write_hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


def hook_files(hooks: Path) -> dict[str, str]:
    return {
        p.name: p.read_text() for p in sorted(hooks.iterdir()) if not p.name.endswith(".sample")
    }


def test_install_twice_keeps_foreign_hook_and_chains_it(git_repo, cap_out):
    foreign = git_repo / ".git" / "hooks" / "pre-commit"
    write_hook(foreign, "echo foreign hook ran\n")

    assert install_hooks(git_repo) == 0
    after_first = hook_files(git_repo / ".git" / "hooks")
    assert install_hooks(git_repo) == 0  # idempotent
    assert hook_files(git_repo / ".git" / "hooks") == after_first
    assert "nothing to do" in cap_out[0].getvalue()
    assert "foreign hook ran" in (git_repo / ".git/hooks/pre-commit.legacy").read_text()
    result = git(git_repo, "commit", "--allow-empty", "-m", "x")
    assert result.returncode == 0
    assert "foreign hook ran" in said(result)


def test_uninstall_restores_foreign_hook_and_then_has_nothing_to_do(git_repo, cap_out):
    foreign = git_repo / ".git" / "hooks" / "pre-commit"
    write_hook(foreign, "echo foreign hook ran\n")
    original = foreign.read_text()
    install_hooks(git_repo)

    assert uninstall_hooks(git_repo) == 0
    assert foreign.read_text() == original
    assert os.access(foreign, os.X_OK)
    assert not (foreign.parent / "pre-commit.legacy").exists()
    assert all(not (foreign.parent / name).exists() for name in hookfiles.HOOK_NAMES[1:])
    assert uninstall_hooks(git_repo) == 0
    assert "nothing to do" in cap_out[0].getvalue()


def test_a_failing_foreign_hook_still_stops_the_commit(git_repo):
    write_hook(git_repo / ".git/hooks/pre-commit", "echo no way >&2\nexit 3\n")
    install_hooks(git_repo)

    result = git(git_repo, "commit", "--allow-empty", "-m", "x", check=False)

    assert result.returncode != 0
    assert "no way" in result.stderr
    assert git(git_repo, "log", "--format=%s").stdout.split() == ["initial"]


def test_uninstall_leaves_a_hook_that_is_not_interlocks(git_repo):
    install_hooks(git_repo)
    replaced = git_repo / ".git/hooks/post-checkout"
    write_hook(replaced, "echo another tool\n")

    uninstall_hooks(git_repo)

    assert replaced.read_text() == "#!/bin/sh\necho another tool\n"


def test_linked_worktree_runs_the_hooks_of_the_common_dir(git_repo, tmp_path):
    write_hook(git_repo / ".git/hooks/pre-commit", 'echo "foreign hook ran in $(pwd)"\n')
    install_hooks(git_repo)
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))

    result = git(linked, "commit", "--allow-empty", "-m", "from the linked worktree")

    assert f"foreign hook ran in {linked}" in said(result)
    assert hookfiles.resolve_hooks_dir(require_repo(linked)).path == git_repo / ".git" / "hooks"


def tracked_team_hooks(repo: Path) -> dict[str, str]:
    """A tracked .githooks/ (pre-commit and commit-msg), core.hooksPath pointing at it."""
    write_hook(repo / ".githooks" / "pre-commit", "echo team pre-commit ran\n")
    write_hook(repo / ".githooks" / "commit-msg", "echo team commit-msg ran\n")
    git(repo, "add", ".githooks")
    git(repo, "commit", "-qm", "team hooks")
    git(repo, "config", "core.hooksPath", ".githooks")
    return hook_files(repo / ".githooks")


def interlock_hooks_run(repo: Path, monkeypatch) -> bool:
    """interlock's reference-transaction hook keeps the tip of a deleted unmerged branch."""
    monkeypatch.delenv("INTERLOCK_MODE")  # interlock off does nothing in its hooks
    git(repo, "checkout", "-q", "-b", "probe")
    git(repo, "commit", "-q", "--allow-empty", "-m", "probe")
    git(repo, "checkout", "-q", "-")
    git(repo, "branch", "-q", "-D", "probe")
    kept = git(repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout
    return "/lost/probe/" in kept


def test_a_tracked_hooks_folder_is_never_written_and_its_hooks_still_run(
    git_repo, cap_out, monkeypatch
):
    team = tracked_team_hooks(git_repo)

    assert install_hooks(git_repo) == 0
    assert install_hooks(git_repo) == 0  # twice changes nothing

    own = git_repo / ".git" / "interlock" / "hooks"
    assert hook_files(git_repo / ".githooks") == team
    assert git(git_repo, "status", "--porcelain").stdout == ""
    assert git(git_repo, "config", "core.hooksPath").stdout.strip() == str(own)
    assert hookfiles.is_ours(own / "pre-commit")
    assert "tracked by git" in cap_out[0].getvalue()
    result = git(git_repo, "commit", "--allow-empty", "-m", "x")
    assert "team pre-commit ran" in said(result) and "team commit-msg ran" in said(result)
    assert interlock_hooks_run(git_repo, monkeypatch)

    assert uninstall_hooks(git_repo) == 0
    assert git(git_repo, "config", "core.hooksPath").stdout.strip() == ".githooks"
    assert not own.exists()
    assert hook_files(git_repo / ".githooks") == team
    assert "team pre-commit ran" in said(git(git_repo, "commit", "--allow-empty", "-m", "y"))


def test_an_older_interlocks_hooks_in_a_tracked_folder_are_taken_out(git_repo, cap_out):
    team = tracked_team_hooks(git_repo)
    hooks = git_repo / ".githooks"
    os.replace(hooks / "pre-commit", hooks / "pre-commit.legacy")  # as interlock used to
    (hooks / "pre-commit").write_text(hookfiles.render_shim("pre-commit"))

    assert install_hooks(git_repo) == 0

    assert hook_files(hooks) == team
    assert git(git_repo, "status", "--porcelain").stdout == ""


def test_an_ignored_hooks_folder_in_the_worktree_is_used_in_place(git_repo, cap_out):
    (git_repo / ".gitignore").write_text(".hooks-local/\n")
    write_hook(git_repo / ".hooks-local" / "pre-commit", "echo local hook ran\n")
    git(git_repo, "config", "core.hooksPath", ".hooks-local")

    assert install_hooks(git_repo) == 0

    assert hookfiles.is_ours(git_repo / ".hooks-local" / "pre-commit")
    assert git(git_repo, "config", "core.hooksPath").stdout.strip() == ".hooks-local"
    assert "local hook ran" in said(git(git_repo, "commit", "--allow-empty", "-m", "x"))


HUSKY_H = """\
#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
[ "${HUSKY-}" = "0" ] && exit 0
export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?
[ $c != 0 ] && echo "husky - $n script failed (code $c)"
exit $c
"""


def husky_install(repo: Path) -> None:
    """What `husky` (v9) does on `npm install`: .husky/_ rewritten, core.hooksPath set."""
    generated = repo / ".husky" / "_"
    generated.mkdir(parents=True, exist_ok=True)
    (generated / ".gitignore").write_text("*")
    (generated / "h").write_text(HUSKY_H)
    for name in ("pre-commit", "commit-msg", "pre-push", "post-checkout", "post-merge"):
        (generated / name).write_text('#!/usr/bin/env sh\n. "${0%/*}/h"')
        (generated / name).chmod(0o755)
    git(repo, "config", "core.hooksPath", ".husky/_")


def test_a_husky_layout_is_chained_from_the_git_dir_and_a_husky_reinstall_is_noticed(
    git_repo, cap_out, monkeypatch
):
    (git_repo / ".husky").mkdir()
    (git_repo / ".husky" / "pre-commit").write_text("echo husky pre-commit ran\n")
    git(git_repo, "add", ".husky/pre-commit")
    git(git_repo, "commit", "-qm", "husky")
    husky_install(git_repo)
    before = {p: p.read_bytes() for p in (git_repo / ".husky").rglob("*") if p.is_file()}

    assert install_hooks(git_repo) == 0

    assert {p: p.read_bytes() for p in (git_repo / ".husky").rglob("*") if p.is_file()} == before
    assert git(git_repo, "status", "--porcelain").stdout == ""
    assert "husky sets core.hooksPath back" in cap_out[0].getvalue()
    assert "husky pre-commit ran" in said(git(git_repo, "commit", "--allow-empty", "-m", "x"))
    assert interlock_hooks_run(git_repo, monkeypatch)

    husky_install(git_repo)  # the next `npm install`
    where, _ = hookfiles.hook_states(require_repo(git_repo))
    assert not where.active and where.chains == ".husky/_"
    assert install_hooks(git_repo) == 0
    assert hookfiles.resolve_hooks_dir(require_repo(git_repo)).active
    assert "husky pre-commit ran" in said(git(git_repo, "commit", "--allow-empty", "-m", "y"))

    assert uninstall_hooks(git_repo) == 0
    assert git(git_repo, "config", "core.hooksPath").stdout.strip() == ".husky/_"
    assert not (git_repo / ".git" / "interlock" / "hooks").exists()


def test_hooks_path_outside_the_repo_is_refused_with_the_fixing_command(git_repo, tmp_path):
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    git(git_repo, "config", "core.hooksPath", str(shared))

    with pytest.raises(InterlockError) as caught:
        install_hooks(git_repo)

    assert caught.value.hint and "git config core.hooksPath" in caught.value.hint
    assert list(shared.iterdir()) == []


FRAMEWORK_HOOK = """\
# File generated by pre-commit: https://pre-commit.com
# It runs <dir>/pre-commit.legacy itself, and refuses when that is itself.
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ -n "$PRE_COMMIT_RUNNING_LEGACY" ]; then echo "bug: migration mode" >&2; exit 1; fi
if [ -x "$HERE/pre-commit.legacy" ]; then
    PRE_COMMIT_RUNNING_LEGACY=1 "$HERE/pre-commit.legacy" "$@" || exit 1
fi
echo framework hooks ran
"""


def test_pre_commit_framework_hook_is_chained_and_keeps_its_own_legacy(git_repo):
    hooks = git_repo / ".git" / "hooks"
    write_hook(hooks / "pre-commit", FRAMEWORK_HOOK)
    write_hook(hooks / "pre-commit.legacy", "echo original hook ran\n")
    (git_repo / ".pre-commit-config.yaml").write_text("repos: []\n")

    install_hooks(git_repo)
    result = git(git_repo, "commit", "--allow-empty", "-m", "x")

    assert "original hook ran" in said(result)
    assert "framework hooks ran" in said(result)
    assert hookfiles.is_framework_hook(hooks / "pre-commit.pre-commit-framework")
    uninstall_hooks(git_repo)
    assert hookfiles.is_framework_hook(hooks / "pre-commit")
    assert "original hook ran" in (hooks / "pre-commit.legacy").read_text()


def test_reinstall_after_the_framework_moved_our_hook_aside(git_repo):
    hooks = git_repo / ".git" / "hooks"
    install_hooks(git_repo)
    os.replace(hooks / "pre-commit", hooks / "pre-commit.legacy")  # what `pre-commit install` does
    write_hook(hooks / "pre-commit", FRAMEWORK_HOOK)

    install_hooks(git_repo)

    assert hookfiles.is_ours(hooks / "pre-commit")
    assert not (hooks / "pre-commit.legacy").exists()
    result = git(git_repo, "commit", "--allow-empty", "-m", "x")
    assert "framework hooks ran" in said(result)


def test_two_foreign_hooks_for_one_name_refuse_and_change_nothing(git_repo):
    hooks = git_repo / ".git" / "hooks"
    write_hook(hooks / "pre-push", "echo one\n")
    write_hook(hooks / "pre-push.legacy", "echo two\n")
    before = hook_files(hooks)

    with pytest.raises(InterlockError) as caught:
        install_hooks(git_repo)

    assert "pre-push.legacy" in str(caught.value)
    assert hook_files(hooks) == before


def test_missing_interlock_fails_closed_for_pre_commit_only(git_repo):
    hooks = git_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "post-checkout"):
        (hooks / name).write_text(hookfiles.render_shim(name, python="/nonexistent/python"))
        (hooks / name).chmod(0o755)
    env = {**os.environ, "PATH": "/usr/bin:/bin"}

    commit = subprocess.run(
        ["git", "commit", "--allow-empty", "-m", "x"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        env=env,
    )
    checkout = subprocess.run(
        ["git", "checkout", "-q", "-b", "other"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        env=env,
    )

    assert commit.returncode == 1
    assert "cannot find interlock" in commit.stderr
    assert checkout.returncode == 0
    assert "cannot find interlock" in checkout.stderr


def test_hooks_dir_shim_is_the_packaged_template():
    packaged = ROOT / "interlock" / "resources" / "hook-shim"
    assert (ROOT / "hooks" / "hook-shim").read_text() == packaged.read_text()
    assert hookfiles.shim_template() == packaged.read_text()
    assert subprocess.run(["sh", "-n", str(packaged)]).returncode == 0


def test_status_names_ours_foreign_and_chained(git_repo):
    write_hook(git_repo / ".git/hooks/pre-push", "echo mine\n")
    install_hooks(git_repo)
    write_hook(git_repo / ".git/hooks/post-rewrite", "echo replaced\n")

    _, states = hookfiles.hook_states(require_repo(git_repo))

    by_name = {s.name: s for s in states}
    assert by_name["pre-push"].state == "ours"
    assert by_name["pre-push"].chained == git_repo / ".git/hooks/pre-push.legacy"
    assert by_name["post-rewrite"].state == "foreign"
    assert by_name["pre-commit"].python and os.path.exists(by_name["pre-commit"].python)


def test_hooks_cli_status_json_path_and_hook_run(git_repo, cap_out):
    import json

    from interlock.cli import run_cli

    out, err = cap_out
    assert run_cli(["hooks", "install", "--cwd", str(git_repo)]) == 0
    out.truncate(0)
    out.seek(0)
    assert run_cli(["hooks", "status", "--json", "--cwd", str(git_repo)]) == 0
    status = json.loads(out.getvalue())
    assert [h["state"] for h in status["hooks"]] == ["ours"] * len(hookfiles.HOOK_NAMES)
    assert all(h["python_exists"] for h in status["hooks"])
    out.truncate(0)
    out.seek(0)
    assert run_cli(["hooks", "path", "--cwd", str(git_repo)]) == 0
    assert out.getvalue().strip() == str(git_repo / ".git" / "hooks")
    assert run_cli(["hook", "run", "no-such-hook"]) == 2
    assert "unknown hook" in err.getvalue()
    assert run_cli(["hooks", "uninstall", "--cwd", str(git_repo)]) == 0
    assert not (git_repo / ".git/hooks/pre-commit").exists()


def test_uninstall_after_hooks_path_moved_to_husky_still_cleans_the_git_dir(git_repo):
    write_hook(git_repo / ".git/hooks/pre-commit", "echo mine\n")
    install_hooks(git_repo)
    write_hook(git_repo / ".husky" / "_" / "pre-commit", '. "$(dirname "$0")/h"\n')
    git(git_repo, "config", "core.hooksPath", ".husky/_")

    assert uninstall_hooks(git_repo) == 0

    assert (git_repo / ".git/hooks/pre-commit").read_text() == "#!/bin/sh\necho mine\n"
    assert not any(hookfiles.is_ours(p) for p in (git_repo / ".git/hooks").iterdir())
    assert (git_repo / ".husky/_/pre-commit").read_text() == '#!/bin/sh\n. "$(dirname "$0")/h"\n'


def test_pre_commit_and_pre_push_are_python_run_by_their_first_line_the_rest_stay_in_sh(
    git_repo,
):
    install_hooks(git_repo)
    hooks = git_repo / ".git" / "hooks"
    for name in hookfiles.HOOK_NAMES:
        first = (hooks / name).read_text().splitlines()[0]
        if name in ("pre-commit", "pre-push"):
            assert first == f"#!{sys.executable} -IS"
        else:
            assert first == "#!/bin/sh"
        assert hookfiles.is_ours(hooks / name)
    _, states = hookfiles.hook_states(require_repo(git_repo))
    assert {s.python for s in states} == {sys.executable}
    install_hooks(git_repo)  # the same text again: nothing to update
    assert [a.action for a in hookfiles.install(require_repo(git_repo)).actions] == [
        "unchanged"
    ] * len(hookfiles.HOOK_NAMES)


def test_a_direct_pre_commit_runs_interlock_and_the_chained_hook_with_git_s_arguments(
    git_repo, monkeypatch
):
    monkeypatch.delenv("INTERLOCK_MODE")
    write_hook(git_repo / ".git/hooks/pre-commit", 'echo "foreign ran with [$*]"\n')
    install_hooks(git_repo)
    (git_repo / "src" / "app.py").write_text("print('changed')\n")
    git(git_repo, "add", "src/app.py")

    result = git(git_repo, "commit", "-m", "through the direct hook", check=False)

    assert result.returncode == 0, said(result)
    assert "foreign ran with []" in said(result)
    from interlock import journal

    hooks_seen = [e.data.get("hook") for e in journal.events(require_repo(git_repo), "hook")]
    assert "pre-commit" in hooks_seen


def test_a_direct_pre_commit_whose_python_is_gone_stops_the_commit(git_repo, tmp_path):
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    hooks = git_repo / ".git" / "hooks"
    (hooks / "pre-commit").write_text(hookfiles.render_shim("pre-commit", python=str(python)))
    (hooks / "pre-commit").chmod(0o755)
    assert (hooks / "pre-commit").read_text().startswith(f"#!{python} -IS\n")
    python.unlink()

    commit = git(git_repo, "commit", "--allow-empty", "-m", "x", check=False)

    assert commit.returncode != 0
    assert "pre-commit" in commit.stderr
    assert git(git_repo, "rev-list", "--count", "HEAD").stdout.strip() == "1"


def test_an_interpreter_a_first_line_cannot_name_gets_the_sh_shim(git_repo, tmp_path):
    spaced = tmp_path / "my python" / "python"
    spaced.parent.mkdir()
    spaced.symlink_to(sys.executable)
    text = hookfiles.render_shim("pre-commit", python=str(spaced))
    assert text.startswith("#!/bin/sh\n")
    assert f"python='{spaced}'" in text
    hooks = git_repo / ".git" / "hooks"
    (hooks / "pre-commit").write_text(text)
    (hooks / "pre-commit").chmod(0o755)
    assert git(git_repo, "commit", "--allow-empty", "-m", "x", check=False).returncode == 0


def test_a_launcher_on_path_that_cannot_run_either_still_lets_checkout_go_on(git_repo, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "interlock").write_text("#!/nonexistent/python -IS\n")
    (bin_dir / "interlock").chmod(0o755)
    hooks = git_repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "post-checkout"):
        (hooks / name).write_text(hookfiles.render_shim(name, python="/nonexistent/python"))
        (hooks / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=git_repo, capture_output=True, text=True, env=env)

    commit = run("commit", "--allow-empty", "-m", "x")
    checkout = run("checkout", "-q", "-b", "other")

    assert commit.returncode == 1
    assert "cannot find interlock" in commit.stderr
    assert checkout.returncode == 0
    assert "cannot find interlock" in checkout.stderr
