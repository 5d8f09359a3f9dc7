"""Per-command cost of the shell wrapper: `interlock-sh -c true` against `bash -c true`.

    .venv/bin/python benchmarks/bench_wrapper.py [--repeat 60] [--cold 8]

On a normal install, as users get it (benchmarks/common.py: ./install.sh into
benchmarks/.work/install, with the `interlock-sh` launcher it writes). Interleaved, medians in
the same run, each as wall time and as the user+sys CPU time of the process (the CPU time is
what load from other work inflates least):
- `bash -c true` and `python -I -S -c pass` (the floors);
- `interlock-sh -c true` with the daemon warm (target: <= 15 ms over `bash -c true`);
- where the warm time goes: importing the wrapper's warm path (the wrapper and the minimal
  daemon client), and the daemon's requests (`attempt`, then `complete` on the same
  connection, not waited for when the daemon says it is quiet) from a warm process;
- `interlock-sh -c true` cold: the daemon down (INTERLOCK_NO_DAEMON), judged inline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import INSTALL, WORK, bench_env, installed, target

TARGET_MS = 15.0
WARM_PATH = "interlock.run.wrapper, interlock.run.link"


def repo() -> Path:
    path = WORK / "wrapper-repo"
    if not (path / ".git").exists():
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(path)], check=True)
        for i in range(100):
            (path / f"f{i:03d}.txt").write_text(f"file {i}\n")
        ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        subprocess.run(["git", "-C", str(path), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(path), *ident, "commit", "-q", "-m", "g"], check=True)
    return path


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, user+sys CPU ms) of one process, its output discarded."""
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: exec the command, output to /dev/null
        try:
            os.chdir(cwd)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - started) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({status})")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def interleaved(
    commands: dict[str, list[str]], repeat: int, cwd: Path, env: dict[str, str]
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Medians of (wall ms, CPU ms) per command, and the median of each command's paired
    wall difference with the first command (measured back to back, so load hits both)."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up, not counted
        timed(argv, cwd, env)
    for _ in range(repeat):
        for name, argv in commands.items():
            w, c = timed(argv, cwd, env)
            wall[name].append(w)
            cpu[name].append(c)
    first = next(iter(commands))
    added = {
        name: statistics.median(a - b for a, b in zip(wall[name], wall[first], strict=True))
        for name in commands
    }
    return (
        {n: statistics.median(v) for n, v in wall.items()},
        {n: statistics.median(v) for n, v in cpu.items()},
        added,
    )


def round_trips(python: Path, cwd: Path, env: dict[str, str], repeat: int) -> float:
    """Median ms of one command's requests from a warm process, as the wrapper makes them:
    connect, send `attempt` (the peer is verified while the daemon judges), then `complete`
    on the same connection (sent without waiting when the attempt's reply says it is quiet)."""
    code = f"""
import os, statistics, time
from interlock.daemon import hotclient
where = hotclient.find(os.getcwd())
build = hotclient.build_stamp()
req = dict(command="true", judge="true", cwd=os.getcwd(), run=None,
           agent=[os.getppid(), 0, "bench"], parent=None, pid=None, pid_start=None,
           env={{}}, build=build)
times = []
for _ in range({repeat}):
    t = time.perf_counter()
    channel = hotclient.connect(where, verify_first=False)
    reply = channel.ask("attempt", req, 10.0) if channel is not None else None
    if reply is None:  # not answered in time (a busy machine): not a round trip, skip it
        continue
    if not reply.get("ok"):
        raise SystemExit(f"the daemon refused: {{reply}}")
    done = dict(attempt=reply["attempt"], exit=0, signal=None, duration=0.0, tail=None,
                build=build)
    if not (reply.get("quiet") and channel.send("complete", done)):
        channel.ask("complete", done, 10.0)
    channel.close()
    times.append((time.perf_counter() - t) * 1000)
    time.sleep(0.005)  # an agent's next command comes after a process start at least
print(statistics.median(times))
"""
    out = subprocess.run(
        [str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"round trips failed:\n{out.stderr}")
    return float(out.stdout.strip())


def _daemon(python: Path, verb: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(
        [str(python), "-m", "interlock", "daemon", verb, "--cwd", str(cwd)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=verb == "start",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--cold", type=int, default=8)
    args = parser.parse_args()
    python, _ = installed()
    wrapper = INSTALL / "bin" / "interlock-sh"
    paths = subprocess.run(
        [str(python), "-c", "import interlock, os; print(os.path.dirname(interlock.__path__[0]))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    cwd = repo()
    env = bench_env()
    bash = subprocess.run(["sh", "-c", "command -v bash"], capture_output=True, text=True)
    bash_path = bash.stdout.strip() or "/bin/bash"
    # a daemon of an earlier build would stop at the first request and leave the rest inline
    _daemon(python, "stop", cwd, env)
    _daemon(python, "start", cwd, env)
    try:
        wall, cpu, added = interleaved(
            {
                "bash -c true": [bash_path, "-c", "true"],
                "python -I -S -c pass": [str(python), "-I", "-S", "-c", "pass"],
                "import the warm path": [
                    str(python),
                    "-I",
                    "-S",
                    "-c",
                    f"import sys; sys.path[:0] = [{paths!r}]; import {WARM_PATH}",
                ],
                "interlock-sh -c true (warm)": [str(wrapper), "-c", "true"],
            },
            args.repeat,
            cwd,
            env,
        )
        trips = round_trips(python, cwd, env, args.repeat)
    finally:
        _daemon(python, "stop", cwd, env)
    cold_env = {**env, "INTERLOCK_NO_DAEMON": "1"}
    cold_wall, cold_cpu, _ = interleaved(
        {
            "bash -c true": [bash_path, "-c", "true"],
            "python -I -S -c pass": [str(python), "-I", "-S", "-c", "pass"],
            "interlock-sh -c true (cold)": [str(wrapper), "-c", "true"],
        },
        args.cold,
        cwd,
        cold_env,
    )
    print(f"install: {wrapper} (./install.sh); load {os.getloadavg()[0]:.1f}")
    print(f"  {'':<32} {'wall ms':>8} {'x bash':>7} {'cpu ms':>8} {'x bash':>7}")
    base_wall, base_cpu = wall["bash -c true"], cpu["bash -c true"]
    for name in wall:
        print(
            f"  {name:<32} {wall[name]:8.1f} {wall[name] / base_wall:7.1f}"
            f" {cpu[name]:8.1f} {cpu[name] / base_cpu:7.1f}"
        )
    print(f"  {'attempt + complete, one connection':<32} {trips:8.1f}   (from a warm process)")
    name = "interlock-sh -c true (cold)"
    print(
        f"  {name:<32} {cold_wall[name]:8.1f} {cold_wall[name] / cold_wall['bash -c true']:7.1f}"
        f" {cold_cpu[name]:8.1f}   (python -I -S in that run: {cold_wall['python -I -S -c pass']:.1f}"
        f" ms wall, {cold_cpu['python -I -S -c pass']:.1f} ms cpu)"
    )
    warm = "interlock-sh -c true (warm)"
    python_start = "python -I -S -c pass"
    imports = wall["import the warm path"] - wall[python_start]
    print(
        f"added over bash -c true, daemon warm: {added[warm]:.1f} ms wall (paired median), "
        f"{cpu[warm] - base_cpu:.1f} ms cpu; a bare Python start adds {added[python_start]:.1f}"
        f" ms wall, {cpu[python_start] - base_cpu:.1f} ms cpu; importing the warm path "
        f"{imports:.1f} ms"
    )
    print(
        f"the warm wrapper costs {wall[warm] / wall[python_start]:.2f}x a bare Python start "
        f"(wall), {cpu[warm] / cpu[python_start]:.2f}x (cpu); cold: "
        f"{cold_wall[name] / cold_wall[python_start]:.1f}x (wall)"
    )
    target(
        "interlock-sh -c true, daemon warm, added over bash -c true",
        f"{added[warm]:.1f} ms",
        f"<= {TARGET_MS:.0f} ms",
        added[warm] <= TARGET_MS,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
