"""What interlock's git hooks add to git: commit, push and a rewind, against the same git
command in an identical repository without hooks, interleaved in the same run, medians.

    .venv/bin/python benchmarks/bench_hooks.py [--repeat 21] [--files 200] [--against REF]

Measured on a normal install (benchmarks/common.py), hooks installed by its `interlock`:
- `git commit` of a one-line change to a source file (the audit finds nothing), with the
  daemon warm, and with no daemon (INTERLOCK_NO_DAEMON=1);
- `git push` of a new commit (fast-forward) to a local bare remote, daemon warm;
- `git reset --hard HEAD~1` (the tip is kept by the reference-transaction shim, in sh).
Targets: commit <= +25 ms, push <= +25 ms, rewind <= +10 ms over the bare command. Each also
in CPU time: git and every process it started (hooks, the Python they run), plus what the warm
daemon spent meanwhile.

--against REF also installs git revision REF of this repository (its own install.sh, into
benchmarks/.work/against-SHA) and times its warm commit and its rewind in the same interleaved
rounds: a before/after comparison of a change, both measured under the same load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    ROOT,
    WORK,
    DaemonCpu,
    Sample,
    bench_env,
    cpu_note,
    installed,
    measure,
    run,
    target,
)

ENV = bench_env()


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env or ENV)


def make_repo(root: Path, name: str, files: int) -> tuple[Path, Path]:
    repo, remote = root / name, root / f"{name}-remote.git"
    (repo / "src").mkdir(parents=True)
    (repo / "tests").mkdir()
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "init", "-q", "-b", "main")
    for i in range(files):
        (repo / "src" / f"mod{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        (repo / "tests" / f"test_mod{i}.py").write_text(
            f"from src.mod{i} import f{i}\n\n\ndef test_f{i}():\n    assert f{i}(1) == {i + 1}\n"
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    return repo, remote


def install_revision(ref: str) -> tuple[str, Path]:
    """(short sha, the `interlock` launcher) of git revision `ref` installed on its own."""
    sha = subprocess.run(
        ["git", "rev-parse", "--verify", f"{ref}^{{commit}}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()[:12]
    home = WORK / f"against-{sha}"
    launcher = home / "bin" / "interlock"
    if launcher.exists():
        return sha, launcher
    shutil.rmtree(home, ignore_errors=True)
    (home / "src").mkdir(parents=True)
    archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(home / "src")], input=archive.stdout, check=True)
    print(f"installing {ref} ({sha}) into {home} ...", flush=True)
    # install.sh protects the repository it is started in: start it outside any repository
    # (inside this checkout it would install hooks into the repository every worktree shares)
    with tempfile.TemporaryDirectory(prefix="bench-install-") as outside:
        env = {
            **os.environ,
            "INTERLOCK_VENV": str(home / "venv"),
            "INTERLOCK_BIN": str(home / "bin"),
            "HOME": str(home / "home"),
            "GIT_CEILING_DIRECTORIES": str(Path(outside).parent),
        }
        subprocess.run([str(home / "src" / "install.sh")], cwd=outside, env=env, check=True)
    return sha, launcher


class Steps:
    """Timed git commands on one repository; `env` says whether a daemon may answer."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.repo, self.env, self.n = repo, env, 0
        self.daemon = DaemonCpu(repo)

    def timed(self, *args: str) -> Sample:
        return self.daemon.around(lambda: run(["git", *args], self.repo, self.env, check=True))

    def commit(self) -> Sample:
        self.n += 1
        tag = f"{id(self)} {self.n}"
        (self.repo / "src" / "mod0.py").write_text(f"def f0(x):\n    return x  # {tag}\n")
        git(self.repo, "add", "src/mod0.py", env=self.env)
        return self.timed("commit", "-q", "-m", f"change {self.n}")

    def push(self) -> Sample:
        git(self.repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "p", env=self.env)
        return self.timed("push", "-q", "origin", "main")

    def rewind(self) -> Sample:
        git(self.repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "r", env=self.env)
        return self.timed("reset", "-q", "--hard", "HEAD~1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--files", type=int, default=200, help="source and test files per repo")
    parser.add_argument("--against", metavar="REF", help="also time REF's install (a before)")
    args = parser.parse_args(argv)
    python, launcher = installed()
    root = WORK / "hooks"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    plain, _ = make_repo(root, "plain", args.files)
    hooked, _ = make_repo(root, "hooked", args.files)
    subprocess.run([str(launcher), "install"], cwd=hooked, env=ENV, check=True, capture_output=True)
    cold_env = bench_env(INTERLOCK_NO_DAEMON="1")
    bare, warm, cold = Steps(plain, ENV), Steps(hooked, ENV), Steps(hooked, cold_env)
    steps = {"commit bare": bare.commit, "commit warm": warm.commit}
    daemons = [(launcher, hooked)]
    if args.against:
        sha, old_launcher = install_revision(args.against)
        before, _ = make_repo(root, "before", args.files)
        subprocess.run([str(old_launcher), "install"], cwd=before, env=ENV, check=True)
        old = Steps(before, ENV)
        steps[f"commit warm {sha}"] = old.commit
        steps[f"rewind hooked {sha}"] = old.rewind
        daemons.append((old_launcher, before))
    steps.update(
        {
            "commit cold": cold.commit,
            "push bare": bare.push,
            "push warm": warm.push,
            "rewind bare": bare.rewind,
            "rewind hooked": warm.rewind,
        }
    )
    print(f"repositories of {args.files * 2} files; interleaved, medians of {args.repeat}")
    for daemon_launcher, repo in daemons:
        subprocess.run(
            [str(daemon_launcher), "daemon", "start"], cwd=repo, env=ENV, capture_output=True
        )
    try:
        got = measure(steps, args.repeat)
    finally:
        for daemon_launcher, repo in daemons:
            subprocess.run(
                [str(daemon_launcher), "daemon", "stop"], cwd=repo, env=ENV, capture_output=True
            )
    print("                   wall (median)   cpu (median)")
    for name, (wall, cpu) in got.items():
        print(f"  {name:<16} {wall:7.1f} ms     {cpu:7.1f} ms")
    cold_wall = got["commit cold"].wall - got["commit bare"].wall
    cold_cpu = got["commit cold"].cpu - got["commit bare"].cpu
    print(f"  commit, no daemon: +{cold_wall:.1f} ms (cpu +{cold_cpu:.1f} ms)")
    for name in [n for n in got if n.startswith(("commit warm ", "rewind hooked "))]:
        bare_name = "commit bare" if name.startswith("commit") else "rewind bare"
        wall, cpu = got[name].wall - got[bare_name].wall, got[name].cpu - got[bare_name].cpu
        print(f"  {name} (the --against install): +{wall:.1f} ms (cpu +{cpu:.1f} ms)")
    for label, door, bare, limit in (
        ("git commit, daemon warm", "commit warm", "commit bare", 25),
        ("git push, daemon warm", "push warm", "push bare", 25),
        ("rewind (reset --hard HEAD~1)", "rewind hooked", "rewind bare", 10),
    ):
        wall = got[door].wall - got[bare].wall
        cpu = got[door].cpu - got[bare].cpu
        target(
            label,
            f"+{wall:.1f} ms over {got[bare].wall:.1f} ms",
            f"<= +{limit} ms",
            wall <= limit,
            cpu_note(f"+{cpu:.1f} ms over {got[bare].cpu:.1f} ms", cpu <= limit),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
