"""The object store's parsed-tree cache: its weight estimate bounds what it holds."""

from __future__ import annotations

from interlock.git import open_repo, require_repo
from interlock.memory import store
from interlock.memory.store import ObjectStore


def _measured(oid: str) -> int:
    """The parts of a cached tree, measured one by one (names, sort keys, raw entries)."""
    entries, formatted = store._cache[oid]
    names = sum(len(name) for name in entries)
    parts = sum(len(key) + len(raw) for key, raw in (formatted or {}).values())
    return 200 + names + parts + len(entries) * store._ENTRY_OVERHEAD


def test_a_cached_trees_weight_is_never_below_its_measured_parts(git, git_repo):
    for i in range(40):
        (git_repo / "src" / f"a-rather-long-module-name-{i:03}.py").write_text(f"{i}\n")
    (git_repo / "x").mkdir()
    (git_repo / "x" / "y").write_text("y\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "more")
    store.clear_cache()
    objects = ObjectStore(open_repo(require_repo(git_repo)))
    root = git(git_repo, "rev-parse", "HEAD^{tree}").stdout.strip()
    src = objects.read_tree(root)[b"src"][1]
    objects.read_tree(src)
    built = objects.tree({**objects.read_tree(src), b"new.py": (0o100644, "0" * 40)}, src)
    for oid in (root, src, built):
        assert store._cache_weight[oid] >= _measured(oid), oid
    assert store.cache_bytes() == sum(store._cache_weight.values())
