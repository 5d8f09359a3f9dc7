"""Per-command cost of the shell wrapper: `interlock-sh -c true` against `bash -c true`.

    .venv/bin/python benchmarks/bench_wrapper.py [--repeat 40] [--cold 8] [--editable]

On a normal (non-editable) install, as users get it: a virtualenv in benchmarks/.work/
made with `pip install .` (rebuilt when the sources change) and the launcher install.sh
writes. Interleaved, medians in milliseconds, in the same run:
- `bash -c true` and `python -I -S -c pass` (the floors);
- `interlock-sh -c true` with the daemon warm (target: <= 15 ms over `bash -c true`);
- where the warm time goes: importing the daemon client (`interlock.daemon.client`), and
  the two socket round trips (`attempt` and `complete`) from a warm process;
- `interlock-sh -c true` cold: the daemon down (INTERLOCK_NO_DAEMON), judged inline.
--editable measures the checkout's shell/interlock-sh with the dev .venv instead.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "benchmarks" / ".work"
TARGET_MS = 15.0


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "interlock").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    digest.update((ROOT / "shell" / "interlock-sh").read_bytes())
    return digest.hexdigest()


def installed() -> tuple[Path, Path]:
    """(python, interlock-sh) of a normal install, rebuilt when the sources changed."""
    venv = WORK / "wrapper-venv"
    stamp = venv / ".sources"
    digest = _sources_digest()
    if not (stamp.exists() and stamp.read_text() == digest):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, str(ROOT)], check=True)
        stamp.write_text(digest)
    launcher = venv / "bin" / "interlock-sh"
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-I",
            "-m",
            "interlock.run.launcher",
            str(ROOT / "shell" / "interlock-sh"),
            str(launcher),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return venv / "bin" / "python", launcher


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


def interleaved(
    commands: dict[str, list[str]], repeat: int, cwd: Path, env: dict[str, str]
) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up, not counted
        subprocess.run(argv, cwd=cwd, env=env, check=True)
    for _ in range(repeat):
        for name, argv in commands.items():
            started = time.perf_counter()
            subprocess.run(argv, cwd=cwd, env=env, check=True)
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def round_trips(python: Path, cwd: Path, env: dict[str, str], repeat: int) -> float:
    """Median ms of one attempt + complete pair over the socket, from a warm process."""
    code = f"""
import os, statistics, time
from interlock.daemon import client
from interlock.constants import build_stamp
loc = client.locate(os.getcwd())
req = dict(command="true", judge="true", cwd=os.getcwd(), run=None,
           agent=[os.getppid(), 0, "bench"], parent=None, pid=os.getpid(), pid_start=None,
           env={{}}, build=build_stamp())
times = []
for _ in range({repeat}):
    t = time.perf_counter()
    reply = client.request(loc, "attempt", **req)
    if reply is None:  # not answered in time (a busy machine): not a round trip, skip it
        continue
    if not reply.get("ok"):
        raise SystemExit(f"the daemon refused: {{reply}}")
    client.request(loc, "complete", attempt=reply["attempt"], exit=0, signal=None,
                   duration=0.0, tail=None, build=build_stamp())
    times.append((time.perf_counter() - t) * 1000)
print(statistics.median(times))
"""
    out = subprocess.run(
        [str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"round trips failed:\n{out.stderr}")
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--cold", type=int, default=8)
    parser.add_argument("--editable", action="store_true")
    args = parser.parse_args()
    if args.editable:
        python, launcher = ROOT / ".venv" / "bin" / "python", ROOT / "shell" / "interlock-sh"
        paths = str(ROOT)
    else:
        python, launcher = installed()
        paths = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    cwd = repo()
    env = {**os.environ, "INTERLOCK_DAEMON_IDLE": "900", "INTERLOCK_PYTHON": str(python)}
    env.pop("INTERLOCK_NO_DAEMON", None)
    interlock = [str(python), "-m", "interlock"]
    # a daemon of an earlier build would stop at the first request and leave the rest inline
    subprocess.run(
        [*interlock, "daemon", "stop", "--cwd", str(cwd)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    subprocess.run(
        [*interlock, "daemon", "start", "--cwd", str(cwd)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    try:
        warm = interleaved(
            {
                "bash -c true": ["bash", "-c", "true"],
                "python -I -S -c pass": [str(python), "-I", "-S", "-c", "pass"],
                "import the daemon client": [
                    str(python),
                    "-I",
                    "-S",
                    "-c",
                    f"import sys; sys.path[:0] = [{paths!r}]; import interlock.daemon.client",
                ],
                "interlock-sh -c true (warm)": [str(launcher), "-c", "true"],
            },
            args.repeat,
            cwd,
            env,
        )
        trips = round_trips(python, cwd, env, args.repeat)
    finally:
        subprocess.run(
            [*interlock, "daemon", "stop", "--cwd", str(cwd)], env=env, stdout=subprocess.DEVNULL
        )
    cold_env = {**env, "INTERLOCK_NO_DAEMON": "1"}
    cold = interleaved(
        {
            "bash -c true": ["bash", "-c", "true"],
            "interlock-sh -c true (cold)": [str(launcher), "-c", "true"],
        },
        args.cold,
        cwd,
        cold_env,
    )
    bash = warm["bash -c true"]
    print(f"install: {'editable checkout' if args.editable else 'normal (pip install .)'}")
    for name, ms in warm.items():
        print(f"  {name:<32} {ms:8.1f} ms  ({ms / bash:5.1f}x bash)")
    print(f"  {'attempt + complete round trips':<32} {trips:8.1f} ms  (from a warm process)")
    print(
        f"  {'interlock-sh -c true (cold)':<32} {cold['interlock-sh -c true (cold)']:8.1f} ms"
        f"  (bash in that run {cold['bash -c true']:.1f} ms)"
    )
    added = warm["interlock-sh -c true (warm)"] - bash
    client_ms = warm["import the daemon client"] - warm["python -I -S -c pass"]
    verdict = "met" if added <= TARGET_MS else "missed"
    print(
        f"added over bash -c true, daemon warm: {added:.1f} ms (target <= {TARGET_MS:.0f} ms: "
        f"{verdict}); of which importing the daemon client {client_ms:.1f} ms"
    )
    rest = added - client_ms
    print(
        f"added without the client's imports: {rest:.1f} ms "
        f"({rest / (warm['python -I -S -c pass'] - bash):.2f} x a bare Python start over bash)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
