"""The disk cache of the methods dataclasses writes: classes are the same with it, warm or cold,
and a cache that is damaged, foreign or not writable never breaks a command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from interlock import classcache

ROOT = Path(__file__).resolve().parents[1]

# Defines dataclasses of every shape interlock uses and prints what they do, as JSON.
PROBE = """
import dataclasses, json, sys
sys.path.insert(0, {root!r})
from interlock import classcache
if {enable!r}:
    classcache.enable({path!r})

@dataclasses.dataclass(frozen=True)
class Frozen:
    name: str
    size: int = 3
    tags: tuple = ()
    extra: dict = dataclasses.field(default_factory=dict)

@dataclasses.dataclass(order=True)
class Ordered:
    a: int
    b: str = "x"

f = Frozen("n", extra={{"k": 1}})
try:
    f.name = "other"
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(json.dumps({{
    "repr": [repr(f), repr(Ordered(1))],
    "eq": f == Frozen("n", extra={{"k": 1}}),
    "hash": Ordered.__hash__ is None and hash(Frozen("n", 4, extra=None)) == hash(Frozen("n", 4, extra=None)),
    "frozen": frozen,
    "order": Ordered(1, "a") < Ordered(1, "b"),
    "replace": repr(dataclasses.replace(f, size=9)),
    "dirty": bool(classcache._state.get("dirty")),
    "cached": len(classcache._cache),
}}))
"""


def probe(path: Path, *, enable: bool = True, env: dict[str, str] | None = None) -> dict:
    code = PROBE.format(root=str(ROOT), enable=enable, path=str(path))
    run_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**run_env, **(env or {})}
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def behaviour(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in ("dirty", "cached")}


def test_classes_are_the_same_without_the_cache_with_a_cold_one_and_with_a_warm_one(tmp_path):
    cache = tmp_path / "methods.bin"
    plain = probe(cache, enable=False)
    cold = probe(cache)
    assert cache.exists()
    warm = probe(cache)
    assert behaviour(plain) == behaviour(cold) == behaviour(warm)
    assert cold["cached"] >= 8 and warm["cached"] == cold["cached"]
    assert warm["dirty"] is False  # every method came from the file: nothing compiled


def test_a_damaged_or_foreign_cache_is_ignored_and_written_anew(tmp_path):
    cache = tmp_path / "methods.bin"
    reference = behaviour(probe(cache, enable=False))
    for junk in (b"", b"not a cache", b"\x00\x01\x02" * 50, b"\x42\x0d\x0d\x0a" + b"\x00" * 20):
        cache.write_bytes(junk)
        assert behaviour(probe(cache)) == reference
        assert classcache.load(str(cache), classcache.magic_number() or b"") != {}


def test_a_cache_of_another_shape_is_not_loaded(tmp_path):
    import marshal

    magic = classcache.magic_number()
    assert magic is not None
    cache = tmp_path / "methods.bin"
    cache.write_bytes(magic + marshal.dumps({"def f(): pass": "not code"}))
    assert classcache.load(str(cache), magic) == {}
    cache.write_bytes(magic + marshal.dumps(["a list"]))
    assert classcache.load(str(cache), magic) == {}
    cache.write_bytes(magic[:2] + b"\xff\xff" + marshal.dumps({}))  # another Python's
    assert classcache.load(str(cache), magic) == {}


def test_nothing_is_written_when_bytecode_writing_is_off(tmp_path):
    cache = tmp_path / "methods.bin"
    result = probe(cache, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert result["cached"] >= 8
    assert not cache.exists()


def test_an_unwritable_cache_directory_costs_nothing_but_the_cache(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root ignores the mode: nothing to show here
            return
        cache = locked / "methods.bin"
        assert behaviour(probe(cache)) == behaviour(probe(cache, enable=False))
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


def test_exec_without_namespaces_runs_in_the_callers_like_the_builtin():
    def caller(run) -> list[object]:
        seen: list[object] = []
        local_value = 5  # noqa: F841 - read by the executed text
        run("seen.append(local_value * 2); seen.append(ROOT.name)")
        return seen

    assert caller(classcache._cached_exec) == caller(exec) == [10, ROOT.name]
    scope: dict[str, object] = {"x": 2}
    classcache._cached_exec("y = x + 1", scope, None)
    assert scope["y"] == 3


def test_an_entry_that_is_not_code_is_compiled_again(monkeypatch):
    import marshal

    monkeypatch.setattr(classcache, "_cache", {"y = x * 3": marshal.dumps("not code")})
    monkeypatch.setattr(classcache, "_state", {})
    scope: dict[str, object] = {"x": 2}
    classcache._cached_exec("y = x * 3", scope)
    assert scope["y"] == 6
    assert classcache._state["dirty"] is True
    assert type(marshal.loads(classcache._cache["y = x * 3"])).__name__ == "code"
