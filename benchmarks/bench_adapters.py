"""Agent hooks and the advisory shell, warm: the cost of one event, and of one typed command.

For each agent (Claude Code, Codex, Gemini CLI), the hook command `interlock integrate`
writes (`exec` and the install.sh launcher: `python -I -S`) is run as the agent runs it (`sh -c CMD`,
the event JSON on stdin) for a PreToolUse of a harmless command with the daemon warm,
interleaved with `python3 -I -S -c pass`
(the floor). Target: <= 1.5x the floor per event, in wall time; the same ratio in CPU time
(user + sys of sh, the hook process and its children, plus what the daemon spent meanwhile)
is printed beside it. `--before LAUNCHER` times another install's hooks in the same run (the
previous version, say: `git archive OLD | tar -x -C /tmp/old && INTERLOCK_VENV=/tmp/old/venv
INTERLOCK_BIN=/tmp/old/bin /tmp/old/install.sh`, then `--before /tmp/old/bin/interlock`).

The advisory shell: an interactive bash (`bash -i`) with shell/interlock.bash sourced
times `$(__interlock_check)` - PS0's subshell, the line to the co-process, the daemon's
advise op, the answer - against `$(:)`, PS0's subshell alone. Target: <= 15 ms added.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from collections.abc import Callable
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

from interlock.adapters.hookplan import hook_command  # noqa: E402

REPEAT = 40
AGENTS = ("claude-code", "codex", "gemini")


def repo(name: str = "adapters-repo") -> Path:
    path = WORK / name
    if not (path / ".git").exists():
        path.mkdir(parents=True, exist_ok=True)
        env = bench_env()
        subprocess.run(["git", "init", "-q"], cwd=path, check=True, env=env)
        (path / "a.py").write_text("print('a')\n")
        subprocess.run(["git", "add", "-A"], cwd=path, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=path, check=True, env=env)
    return path


def _event(agent: str, cwd: Path) -> tuple[str, str]:
    common = {"session_id": "bench", "cwd": str(cwd), "tool_use_id": "t1"}
    if agent == "gemini":
        data = {
            **common,
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls"},
        }
        return "BeforeTool", json.dumps(data)
    data = {
        **common,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    return "PreToolUse", json.dumps(data)


def hook_sample(command: str, payload: str, cwd: Path, env: dict[str, str]) -> Sample:
    """One event as the agent sends it: `sh -c COMMAND`, the JSON on stdin; wall and CPU."""
    import os
    import time

    started = time.perf_counter()
    proc = subprocess.Popen(
        ["sh", "-c", command],
        stdin=subprocess.PIPE,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(payload.encode())
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    wall = (time.perf_counter() - started) * 1000
    return Sample(wall, (usage.ru_utime + usage.ru_stime) * 1000)


SHELL_PROBE = r"""
. {file} {launcher}
history -s 'git status'
for i in 1 2 3; do x=$(__interlock_check); done
a=0; b=0
for i in $(seq {repeat}); do
  t0=$EPOCHREALTIME; x=$(:); t1=$EPOCHREALTIME; x=$(__interlock_check); t2=$EPOCHREALTIME
  a="$a + ($t1 - $t0)"; b="$b + ($t2 - $t1)"
  echo "$t0 $t1 $t2"
done
"""


def shell_added_ms(launcher: Path, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    script = SHELL_PROBE.format(
        file=ROOT / "shell" / "interlock.bash", launcher=shlex.quote(str(launcher)), repeat=REPEAT
    )
    out = subprocess.run(
        ["bash", "-i", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    ).stdout
    bare, checked = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            t0, t1, t2 = map(float, parts)
            bare.append((t1 - t0) * 1000)
            checked.append((t2 - t1) * 1000)
    import statistics

    return statistics.median(bare), statistics.median(checked)


def _before_steps(before: str, env: dict[str, str]) -> dict[str, Callable[[], Sample]]:
    """The hooks of another install (`--before LAUNCHER`: e.g. the previous version, as its
    integrate wrote them: `exec LAUNCHER hook AGENT EVENT`), on a repository and warm daemon
    of its own."""
    other = repo("adapters-repo-before")
    subprocess.run([before, "daemon", "start"], cwd=other, env=env, check=True, capture_output=True)
    daemon = DaemonCpu(other)
    steps: dict[str, Callable[[], Sample]] = {}
    for agent in AGENTS:
        event, payload = _event(agent, other)
        command = hook_command(agent, event, [before])
        steps[f"{agent} before"] = lambda c=command, p=payload: daemon.around(
            lambda: hook_sample(c, p, other, env)
        )
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="LAUNCHER", help="also time another install's hooks")
    parser.add_argument("--repeat", type=int, default=REPEAT, help="rounds (default %(default)s)")
    args = parser.parse_args()
    python, launcher = installed()
    cwd = repo()
    env = bench_env(INTERLOCK_RUN="bench-run")
    subprocess.run(
        [str(launcher), "daemon", "start"], cwd=cwd, env=env, check=True, capture_output=True
    )
    ok = True
    daemon = DaemonCpu(cwd)
    steps = {"floor": lambda: run([str(python), "-I", "-S", "-c", "pass"], cwd, env)}
    for agent in AGENTS:
        event, payload = _event(agent, cwd)
        command = hook_command(agent, event, [str(launcher)])  # what integrate writes
        steps[agent] = lambda c=command, p=payload: daemon.around(
            lambda: hook_sample(c, p, cwd, env)
        )
    if args.before:
        steps.update(_before_steps(args.before, env))
    medians = measure(steps, args.repeat)
    floor = medians["floor"]
    print(
        f"python -I -S -c pass (the install's python): {floor.wall:.1f} ms, "
        f"cpu {floor.cpu:.1f} ms (medians of {args.repeat})"
    )
    for agent in AGENTS:
        got = medians[agent]
        ratio, cpu_ratio = got.wall / floor.wall, got.cpu / floor.cpu
        print(
            f"{agent} hook, PreToolUse of `ls`, warm, through sh -c: {got.wall:.1f} ms = "
            f"{ratio:.2f}x; cpu (with the daemon's) {got.cpu:.1f} ms = {cpu_ratio:.2f}x"
        )
        old = medians.get(f"{agent} before")
        if old is not None:
            print(
                f"  before ({args.before}): {old.wall:.1f} ms = {old.wall / floor.wall:.2f}x; "
                f"cpu {old.cpu:.1f} ms = {old.cpu / floor.cpu:.2f}x"
            )
        ok &= target(
            f"{agent} hook event, daemon warm",
            f"{got.wall:.1f} ms = {ratio:.2f}x the floor",
            "<= 1.5x python -I -S -c pass",
            ratio <= 1.5,
            cpu_note(f"{got.cpu:.1f} ms = {cpu_ratio:.2f}x", cpu_ratio <= 1.5),
        )
    bare, checked = shell_added_ms(launcher, cwd, env)
    added = checked - bare
    print(f"advisory shell: PS0 subshell alone {bare:.2f} ms, with the check {checked:.2f} ms")
    ok &= target(
        "advisory shell, added per typed command", f"{added:.2f} ms", "<= 15 ms", added <= 15
    )
    subprocess.run([str(launcher), "daemon", "stop"], cwd=cwd, env=env, capture_output=True)
    if args.before:
        other = repo("adapters-repo-before")
        subprocess.run([args.before, "daemon", "stop"], cwd=other, env=env, capture_output=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
