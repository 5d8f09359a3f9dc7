"""Properties of the whole check: it never raises, and wrapping never lowers a verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlock.engine.check import evaluate

RANK = {"allow": 0, "warn": 1, "block": 2}
SEEDS = [
    "git reset --hard",
    "git checkout -- .",
    "git clean -fdx",
    "git stash clear",
    "git branch -D topic",
    "git push --force",
    "rm -rf src",
    "find . -name '*.py' -delete",
    "git commit --no-verify -m wip",
    "pytest || true",
    "pytest -k 'not slow'",
    "git -c core.hooksPath=/dev/null commit -m x",
]


@pytest.fixture(scope="module")
def blocked_seeds(corpus_dir: Path) -> list[str]:
    """SEEDS, and every one-line corpus case that is flagged (none with single quotes):
    refused, or (a validator whose status is only hidden) warned."""
    seeds = list(SEEDS)
    corpus = corpus_dir / "commands.jsonl"
    if corpus.exists():
        for line in corpus.read_text().splitlines():
            case = json.loads(line)
            if (
                "safe" not in case["expect"]
                and "slow" not in case["expect"]
                and "fast" not in case["expect"]
            ):
                if "\n" not in case["cmd"] and "'" not in case["cmd"]:
                    seeds.append(case["cmd"])
    return seeds


# Prefix wrappers run one simple command, so they only wrap seeds that are one.
PREFIX_WRAPPERS = [
    "sudo {}",
    "timeout 5 {}",
    "env A=1 {}",
    "nohup {}",
    "nice -n 5 {}",
    "command {}",
    "docker run --rm -v /src:/src img {}",
    'docker run --rm -v "$PWD":/app -w /app img {}',
    "podman run -v .:/w -w /w/sub img {}",
    "docker run --mount type=bind,src=$(pwd),dst=/r img {}",
    "env -u PYTHONPATH {}",
    'env PYTHONPATH="$PWD" {}',
    "sudo HOME=$H {}",
    "docker exec -it web {}",
    "docker compose run --rm app {}",
    "podman run --rm img {}",
    "kubectl exec -it pod-0 -- {}",
    "uv run {}",
    "poetry run {}",
]
WRAPPERS = [
    "true && {}",
    "bash -c '{}'",
    "sh -c '{}'",
    "( {} )",
    "{{ {}; }}",
    "echo $( {} )",
    "{{ {}; }} | cat",
    "if true; then {}; fi",
    "for i in 1; do {}; done",
    "false || {}",
    "echo start; {}",
    "eval '{}'",
    "x=$( {} )",
    "cd sub && {}",
    "for i in 1 2; do {}; done",
    "while true; do {}; break; done",
    "trap 'rm -f /tmp/x' EXIT; {}",
    "script -qec '{}' /dev/null",
    "script -qc '{}' /dev/null",
    "docker run --rm img sh -c '{}'",
    "export CI=1; {}",
]


def verdict(command: str) -> str:
    return evaluate(command, "/", mode="blocking", assume_dirty=True).result.verdict


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(max_size=300))
def test_check_never_raises_on_any_text(text):
    result = evaluate(text, "/", mode="blocking", assume_dirty=True).result
    assert result.verdict in RANK
    assert result.parse in ("ok", "degraded", "unparsed")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "git",
                "reset",
                "--hard",
                "&&",
                "||",
                ";",
                "|",
                "$(",
                ")",
                "'",
                '"',
                "\\",
                "<<EOF",
                "\n",
                "`",
                "rm",
                "-rf",
                "{",
                "}",
                "(",
                "bash",
                "-c",
                "*",
                "$X",
            ]
        ),
        max_size=25,
    )
)
def test_check_never_raises_on_shell_shaped_noise(tokens):
    result = evaluate(" ".join(tokens), "/", mode="blocking", assume_dirty=True).result
    assert result.verdict in RANK


@settings(max_examples=300, deadline=None)
@given(st.data(), st.lists(st.sampled_from(WRAPPERS), min_size=1, max_size=3))
def test_wrapping_a_blocked_command_never_lowers_its_verdict(blocked_seeds, data, wrappers):
    seed = data.draw(st.sampled_from(blocked_seeds), label="seed")
    before = verdict(seed)
    assert before != "allow", seed
    command = seed
    for wrapper in wrappers:
        if "'" in wrapper and "'" in command:
            continue  # single quotes do not nest; other wrappers cover this depth
        command = wrapper.format(command)
    assert RANK[verdict(command)] >= RANK[before], command


def _is_simple(command: str) -> bool:
    if "=" in command.split()[0]:
        return False  # `sudo A=1 git` runs a program named "A=1"
    return not any(op in command for op in ("|", "&", ";", "(", "!", "{", "$", "<", ">", "\n"))


@settings(max_examples=150, deadline=None)
@given(st.data(), st.lists(st.sampled_from(PREFIX_WRAPPERS), min_size=1, max_size=3))
def test_prefix_wrappers_never_lower_a_simple_blocked_command(blocked_seeds, data, wrappers):
    seed = data.draw(st.sampled_from([s for s in blocked_seeds if _is_simple(s)]), label="seed")
    before = verdict(seed)
    command = seed
    for wrapper in wrappers:
        command = wrapper.format(command)
    assert RANK[verdict(command)] >= RANK[before], command


# Single files, devices, cwd and line state (the overwrite, disk and sequence families).
LINE_SEEDS = [
    ": > src/app.py",
    "> src/app.py",
    "truncate -s 0 src/app.py",
    "cp /dev/null src/app.py",
    "rm -f src/app.py",
    "sort notes.md > notes.md",
    "git show HEAD:src/app.py > src/app.py",
    "git diff | git apply -R",
    "git archive HEAD | tar -x",
    "sed -i /x/d src/app.py",
    "sort -o words.txt words.txt",
    "dd if=/dev/zero of=/dev/sda",
    "mkfs.ext4 /dev/sdb1",
    "wipefs -a /dev/sdb",
    "fdisk /dev/sda",
    "cd /tmp/x; rm -rf *",
    "ln -s /home/me/repo /tmp/x && rm -rf /tmp/x/src",
]
# Forms that put state before a blocked command without saving what it destroys: a cd that
# may fail, a save joined by `;` or `||`, a save of other paths, a link elsewhere.
LINE_FORMS = [
    "cd sub; {}",
    "cd /tmp/elsewhere; {}",
    "pushd sub; {}; popd",
    "git stash; {}",
    "git stash || true; {}",
    "git stash push -- unrelated.txt && {}",
    "git commit -am wip; {}",
    "cp other.txt other.bak && {}",
    "ln -s /opt/x /tmp/y && {}",
    "set +e; {}",
    "cd /tmp/w || true; {}",
    "true; {}",
    "{} 2>/dev/null",
    "{} || true",
]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(LINE_SEEDS),
    st.lists(st.sampled_from(LINE_FORMS + WRAPPERS + PREFIX_WRAPPERS[:3]), min_size=1, max_size=3),
)
def test_line_state_and_wrappers_never_lower_a_single_file_or_device_discard(seed, forms):
    before = verdict(seed)
    assert before == "block", seed
    command = seed
    for form in forms:
        if "'" in form and "'" in command:
            continue
        if form in PREFIX_WRAPPERS and not _is_simple(command):
            continue
        command = form.format(command)
    assert RANK[verdict(command)] >= RANK[before], command
