"""The cache of compiled regular expressions: a pattern from the cache is the pattern re builds
(same program), a cache that is damaged or another Python's is ignored, and a cold check
judges the same with it."""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = [
    (r"a(?P<x>b)+c", 0),
    (r"(?i)straße|ǅ", 0),
    (r"^\s*(?:git|hg)\b(?=.*--force)", 8),  # re.MULTILINE
    (r"(?<=-)[0-9]{2,}$", 2),  # re.IGNORECASE
    (b"\\x00[\\x80-\\xff]+", 0),
    ("  x  # a comment\n  (y)?", 64),  # re.VERBOSE
    (r"(?P<a>.)(?P=a)|(?s:.)", 32),  # re.ASCII
]
PROBE = """
import sys
sys.path.insert(0, {root!r})
from interlock import recache
recache.enable({path!r})
import re
original = recache._state["original"]
patterns = {patterns!r}
hits = [(p, f) in recache._cache for p, f in patterns]
same = [re.compile(p, f) == original(p, f) for p, f in patterns]
groups = [re.compile(p, f).groupindex == original(p, f).groupindex for p, f in patterns]
print(hits, same, groups, re.compile("a(?P<x>b)+c").fullmatch("abbc").group("x"))
"""


def probe(path: Path) -> str:
    code = PROBE.format(root=str(ROOT), path=str(path), patterns=PATTERNS)
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_pattern_from_the_cache_is_the_pattern_re_compiles(tmp_path):
    cache = tmp_path / "re.bin"
    n = len(PATTERNS)
    assert probe(cache) == f"{[False] * n} {[True] * n} {[True] * n} b"
    assert cache.exists()  # written at exit
    assert probe(cache) == f"{[True] * n} {[True] * n} {[True] * n} b"


def test_a_damaged_or_foreign_cache_is_ignored_and_patterns_stay_right(tmp_path):
    cache = tmp_path / "re.bin"
    probe(cache)
    raw = cache.read_bytes()
    magic, body = raw[:4], marshal.loads(raw[4:])
    n = len(PATTERNS)
    for damaged in (b"junk", b"\x00\x00\x00\x00" + raw[4:], raw[:-7], magic + marshal.dumps([1])):
        cache.write_bytes(damaged)
        assert probe(cache).endswith(f"{[True] * n} {[True] * n} b")
    # A program altered in place: _sre refuses it, and the pattern is compiled as usual.
    for key, (flags, code, groups, groupindex, indexgroup) in body.items():
        body[key] = (flags, [255] + code[1:], groups, groupindex, indexgroup)
    cache.write_bytes(magic + marshal.dumps(body))
    assert probe(cache) == f"{[True] * n} {[True] * n} {[True] * n} b"


def test_a_cold_check_judges_the_same_with_the_cache_written_and_read(git_repo, tmp_path):
    (git_repo / "src" / "app.py").write_text("print('unsaved work')\n")
    launch = (
        "import sys; sys.path.insert(0, {root!r}); from interlock import recache; "
        "recache.enable({path!r}); from interlock.__main__ import main; "
        "sys.exit(main(['check', '--json', '--mode', 'blocking', {cmd!r}]))"
    )
    env = {"INTERLOCK_NO_DAEMON": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    outputs = []
    for cmd in ("git checkout -- .", "grep -E '^a+$' x | sed -n 's/a/b/p'", "rm -rf src"):
        for path in (tmp_path / "none" / "re.bin", tmp_path / "re.bin", tmp_path / "re.bin"):
            code = launch.format(root=str(ROOT), path=str(path), cmd=cmd)
            proc = subprocess.run(
                [sys.executable, "-I", "-S", "-c", code],
                cwd=git_repo,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            outputs.append((cmd, proc.returncode, proc.stdout))
    for i in range(0, len(outputs), 3):
        assert outputs[i] == outputs[i + 1] == outputs[i + 2]
    verdicts = [out.split('"verdict": "')[1].split('"')[0] for _, _, out in outputs[::3]]
    assert verdicts == ["block", "allow", "block"]  # judged, not skipped


THREADS_PROBE = """
import sys, threading
sys.path.insert(0, {root!r})
from interlock import recache
recache.enable({path!r})
import re
original = recache._state["original"]
texts = [f"(?P<g{{i}}>x{{i}})+|y{{i}}[a-z]{{{{{{i % 5}},}}}}" for i in range(400)]
def work(part):
    for text in texts[part::8]:
        re.compile(text)
        re.Scanner([(text, None)])  # compiles a parsed pattern: never cached
threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print(sum((t, 0) in recache._cache for t in texts),
      all(re.compile(t) == original(t, 0) for t in texts))
"""


def test_patterns_compiled_on_many_threads_are_cached_each_with_its_own_program(tmp_path):
    cache = tmp_path / "re.bin"
    code = THREADS_PROBE.format(root=str(ROOT), path=str(cache))
    for expected in ("400 True", "400 True"):  # compiled on threads, then read back
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == expected
