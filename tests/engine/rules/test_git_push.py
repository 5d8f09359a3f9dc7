"""Force pushes and forced fetches by text (engine.rules.git.push): which refspecs and leases
make a push drop remote commits, what is left to the tree (a bare lease), and which local
refs a forced fetch overwrites."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules


@pytest.fixture(scope="session")
def found(inv: Callable[..., Invocation]) -> Callable[..., list[Finding]]:
    def discards(cmd: str, **kw: object) -> list[Finding]:
        return [f for f in rules.check_invocation(inv(cmd, **kw)) if f.kind == "discard"]

    return discards


def one(found, cmd: str) -> Finding:
    result = found(cmd)
    assert len(result) == 1, (cmd, result)
    return result[0]


@pytest.mark.parametrize(
    ("cmd", "refs"),
    [
        ("git push -f origin main", ("origin", "main")),
        ("git push origin +main", ("origin", "+main")),
        ("git push --force", ("",)),
        ("git push --repo=up +main", ("up", "+main")),
        ("git push --repo up -f", ("up",)),
        ("git push origin :old", ("origin", ":old")),
        ("git push origin :x", ("origin", ":x")),
        ("git push origin --delete old", ("origin", "old")),
        ("git push --mirror backup", ("backup",)),
        ("git push --prune origin", ("origin",)),
        ("git push origin main +topic", ("origin", "main", "+topic")),
        ('git push origin ":$B"', ("origin", '":$B"')),
    ],
)
def test_a_push_that_drops_remote_commits_whatever_the_tree(found, cmd: str, refs) -> None:
    finding = one(found, cmd)
    assert finding.rule == "git.push-force" and finding.targets is not None
    assert finding.targets.destroys == "remote" and not finding.targets.lease
    assert finding.targets.refs == refs
    assert "a bare --force-with-lease only checks the remote" not in finding.reason


@pytest.mark.parametrize(
    "cmd",
    [
        "git push origin main",
        "git push origin main:main other",
        "git push origin :",  # the matching refspec: deletes nothing
        "git push",
        "git push -n -f origin main",
        "git push --dry-run origin :old",
        "git push --force --no-force origin main",
        "git push --force-with-lease=main:abc origin +main",
        "git push --force-with-lease=refs/heads/main:abc origin +main",
        "git push --force-with-lease=main:abc origin +HEAD:main",
        "git push --force-with-lease=main:abc origin +HEAD:refs/heads/main",
        "git push --force-with-lease=:abc origin +main",
        "git push --force-with-lease=main --force-with-lease=main:abc origin +main",
        "git push --force-with-lease=main:abc --force-with-lease=other origin +main",
    ],
)
def test_a_push_that_keeps_remote_commits_is_allowed(found, cmd: str) -> None:
    assert found(cmd) == []


@pytest.mark.parametrize(
    "cmd",
    [
        "git push --force-with-lease=other:abc origin +main",
        "git push --force-with-lease=main:abc --no-force-with-lease origin +main",
        "git push --force-with-lease=refs/tags/v1:abc origin +main",
        "git push origin main +topic",
        "git push origin +a +b",
    ],
)
def test_a_forced_refspec_no_lease_protects_is_a_force_push(found, cmd: str) -> None:
    finding = one(found, cmd)
    assert finding.targets is not None and not finding.targets.lease


@pytest.mark.parametrize(
    "cmd",
    [
        "git push --force-with-lease",
        "git push --force-with-lease origin main",
        "git push --force-with-lease=main origin +main",
        "git push --force-with-lease=main:abc --force-with-lease=main origin +main",
        'git push --force-with-lease="$L" origin +main',
    ],
)
def test_a_bare_lease_is_left_to_the_tree(found, cmd: str) -> None:
    finding = one(found, cmd)
    assert finding.targets is not None and finding.targets.lease
    assert "a bare --force-with-lease only checks the remote" in finding.reason


def test_the_suggestion_names_the_first_branch_pushed(found) -> None:
    assert (
        "--force-with-lease=a:EXPECTED-SHA origin a" in one(found, "git push origin +a +b").instead
    )
    assert (
        "--force-with-lease=BRANCH:EXPECTED-SHA origin BRANCH" in one(found, "git push -f").instead
    )
    assert "origin b:c (names" in one(found, "git push origin +a:b:c").instead
    instead = one(found, "git push up +HEAD:refs/heads/main").instead
    assert "--force-with-lease=main:EXPECTED-SHA up refs/heads/main" in instead


@pytest.mark.parametrize(
    ("cmd", "refs", "unknown"),
    [
        ("git fetch origin +main:main", ("refs/heads/main",), False),
        ("git fetch -f origin main:topic", ("refs/heads/topic",), False),
        ("git fetch --force origin a:b c:d", ("refs/heads/b", "refs/heads/d"), False),
        ("git fetch origin +a:refs/x/y", ("refs/x/y",), False),
        ("git fetch origin +a:b:c", ("refs/heads/b:c",), False),
        ("git pull origin +main:topic", ("refs/heads/topic",), False),
        (
            "git fetch origin +a:a +refs/heads/*:refs/heads/*",
            ("refs/heads/a", "refs/heads/*"),
            True,
        ),
        ('git fetch origin "+$B:$B"', (), True),
        ('git fetch origin +a:a "+$B"', ("refs/heads/a",), True),
        ('git fetch -f origin "$SPEC"', (), True),
    ],
)
def test_a_forced_fetch_into_local_refs(found, cmd: str, refs, unknown: bool) -> None:
    finding = one(found, cmd)
    assert finding.rule == "git.fetch-force" and finding.targets is not None
    assert finding.targets.destroys == "commits"
    assert (finding.targets.refs, finding.targets.unknown) == (refs, unknown)


@pytest.mark.parametrize(
    "cmd",
    [
        "git fetch origin",
        "git fetch origin main",
        "git fetch origin main:main",
        "git fetch origin +main:",
        "git fetch origin +main:refs/remotes/origin/main",
        "git fetch origin '+refs/tags/*:refs/tags/*'",
        "git fetch -f host:repo.git main",
        'git fetch origin "$B"',
        'git fetch origin "$A:$B"',
        "git fetch --dry-run origin +main:main",
    ],
)
def test_a_fetch_that_overwrites_no_local_branch_is_allowed(found, cmd: str) -> None:
    assert found(cmd) == []
