"""A full disk (ENOSPC) and a read-only filesystem (EROFS), for real: the repository lives on a
small tmpfs mounted in a private user and mount namespace (`unshare -rm`, see nsdisk.py).
interlock must say "disk full" or "read-only" (exit 1, what to do), never report a bug, and
leave the worktree, the refs and the object store as they were (`git fsck`, byte for byte).

Skipped, with the reason, where the machine does not allow such namespaces.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

NSDISK = Path(__file__).with_name("nsdisk.py")
IL = f"{shlex.quote(sys.executable)} -m interlock"
TREE = "find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum"
TEMPS = "ls -a .git/objects .git/objects/pack | grep -E '^(tmp_|streamed_)' ; find . -name '.interlock-*'"
FILL = "dd if=/dev/zero of=../filler bs=64k 2>/dev/null; truncate -s -{free} ../filler"
REPO = (
    "git init -q -b main repo && cd repo && mkdir src && "
    'for i in $(seq 40); do echo "line $i" > src/f$i.txt; done && '
    "head -c 1500000 /dev/urandom > big.bin && git add -A && git commit -qm base"
)


@pytest.fixture(scope="module")
def namespaces(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Skip unless a private tmpfs can be mounted and remounted read-only here."""
    where = tmp_path_factory.mktemp("probe")
    script = f"mount -t tmpfs -o size=1m tmpfs {where} && mount -o remount,ro {where}"
    try:
        proc = subprocess.run(
            ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=30
        )
    except FileNotFoundError:
        pytest.skip("no `unshare` here (util-linux): cannot make a small filesystem to fill")
    if proc.returncode != 0:
        pytest.skip(
            "this machine does not allow a tmpfs in a private user and mount namespace "
            f"(unshare -rm: {proc.stderr.strip()})"
        )


def _run(tmp_path: Path, size: str, steps: list[dict[str, str]]) -> list[dict[str, object]]:
    where = tmp_path / "fs"
    where.mkdir()
    steps_file = tmp_path / "steps.json"
    steps_file.write_text(json.dumps(steps))
    proc = subprocess.run(
        ["unshare", "-rm", sys.executable, str(NSDISK), str(where), size, str(steps_file)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results: list[dict[str, object]] = json.loads(proc.stdout)
    return results


def _in_repo(script: str) -> dict[str, str]:
    return {"sh": script, "cwd": "repo"}


def _assert_clear_refusal(result: dict[str, object], what: str, isolated_env: Path) -> str:
    err = str(result["err"])
    assert result["rc"] == 1, err
    assert err.startswith(f"interlock: error: {what}: could not"), err
    assert "hint:" in err
    assert "bug" not in err and "Traceback" not in err
    assert not (isolated_env / "interlock-home" / "reports").exists()
    return err


def test_a_full_disk_stops_a_snapshot_cleanly_and_the_next_one_works(
    namespaces, tmp_path, isolated_env
):
    steps = [
        {"sh": REPO},
        _in_repo(f"{IL} snapshot >/dev/null; head -c 3000000 /dev/urandom > new.bin"),
        _in_repo(FILL.format(free="200K")),
        _in_repo(TREE),
        _in_repo(f"{IL} snapshot"),
        _in_repo(TREE),
        _in_repo("git for-each-ref refs/interlock/ | wc -l"),
        _in_repo(TEMPS),
        _in_repo("git fsck --strict --no-progress"),
        _in_repo(f"rm ../filler && {IL} snapshot"),
    ]
    setup, first, fill, before, snap, after, refs, temps, fsck, again = _run(tmp_path, "12m", steps)
    assert setup["rc"] == first["rc"] == fill["rc"] == 0, (setup, first, fill)

    err = _assert_clear_refusal(snap, "disk full", isolated_env)
    assert "no space left on the device" in err
    assert "no snapshot was taken, and nothing in the worktree changed" in err
    assert after["out"] == before["out"]
    assert str(refs["out"]).strip() == "1"  # the first snapshot only
    assert temps["out"] == ""
    assert fsck["rc"] == 0, fsck["err"]
    assert again["rc"] == 0, again["err"]


def test_a_full_disk_stops_a_restore_before_any_file_changes(namespaces, tmp_path, isolated_env):
    snapshot_id = f"{IL} snapshot --json | {shlex.quote(sys.executable)} -c " + shlex.quote(
        "import json, sys; print(json.load(sys.stdin)['id'])"
    )
    steps = [
        {"sh": REPO},
        _in_repo(f"{snapshot_id} > ../target && sha1sum big.bin > ../target.sum"),
        _in_repo(
            "head -c 1500000 /dev/urandom > big.bin && echo changed > src/f1.txt && "
            f"rm src/f2.txt && {IL} snapshot >/dev/null"
        ),
        _in_repo(FILL.format(free="300K")),
        _in_repo(TREE),
        _in_repo(f'{IL} restore "$(cat ../target)"'),
        _in_repo(TREE),
        _in_repo(TEMPS),
        _in_repo("git fsck --strict --no-progress"),
        _in_repo(f'rm ../filler && {IL} restore "$(cat ../target)" && sha1sum -c ../target.sum'),
    ]
    setup, target, changed, fill, before, restore, after, temps, fsck, again = _run(
        tmp_path, "12m", steps
    )
    assert setup["rc"] == target["rc"] == changed["rc"] == fill["rc"] == 0

    err = _assert_clear_refusal(restore, "disk full", isolated_env)
    assert "nothing was changed" in err
    assert after["out"] == before["out"]
    assert temps["out"] == ""
    assert fsck["rc"] == 0, fsck["err"]
    assert again["rc"] == 0, again["err"]


def test_a_read_only_filesystem_is_said_so_and_reading_still_works(
    namespaces, tmp_path, isolated_env
):
    steps = [
        {"sh": REPO},
        _in_repo(f"{IL} snapshot >/dev/null && echo changed > src/f1.txt"),
        _in_repo(TREE),
        {"remount": "ro"},
        _in_repo(f"{IL} snapshot"),
        _in_repo(f"{IL} restore latest"),
        _in_repo(f"{IL} snapshots"),
        _in_repo(f"{IL} diff latest"),
        _in_repo(TREE),
        _in_repo("git fsck --strict --no-progress"),
    ]
    setup, first, before, remount, snap, restore, listing, diff, after, fsck = _run(
        tmp_path, "12m", steps
    )
    assert setup["rc"] == first["rc"] == remount["rc"] == 0, (setup, first, remount)

    for refused in (snap, restore):
        err = _assert_clear_refusal(refused, "read-only", isolated_env)
        assert "the filesystem is read-only" in err
    assert listing["rc"] == 0 and "manual" in str(listing["out"]), listing["err"]
    assert diff["rc"] == 0 and "src/f1.txt" in str(diff["out"]), diff["err"]
    assert after["out"] == before["out"]
    assert fsck["rc"] == 0, fsck["err"]
