"""`interlock audit`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option


@cli.command(name="audit")
@click.option(
    "--since",
    default=None,
    metavar="REV|SNAP",
    help="Compare with this git revision or snapshot; `baseline` and `green` are the open "
    "run's (default: the open run's baseline, else the newest baseline, else HEAD).",
)
@json_option
@cwd_option
def audit_run(since: str | None, as_json: bool, cwd: str | None) -> int:
    """Report tests, test config and check scripts weakened since the baseline.

    Compares validator definitions structurally (Python ast; JS/TS, Go, Rust, Java by
    their test blocks): assertions removed or weakened, tests deleted or skipped, bodies
    emptied, expected values changed, conftest hooks forging outcomes, runner config
    deselecting tests or hiding failures, subjects mocked, always-equal objects, new check
    scripts. Formatting, renames, splits, new and stronger tests are not findings.

    Kinds: assertion-removed, assertion-weakened, test-deleted, skip-added, focus-added,
    body-emptied, expectation-changed, outcome-forgery, runner-config-weakened,
    subject-mocked, always-equal, self-made-check. A changed expected value is only
    [review] (not tampering) when the code under test changed too.

    The worktree (tracked and untracked, not ignored) is compared with --since; staged
    versions that differ from the files on disk are audited too. Exit status: 0 clean,
    1 tampered (or a user error). --json prints {"verdict", "findings": [{"kind", "path",
    "line", "test", "detail", "severity"}], "base"} on stdout.

    \b
    Example:
      interlock audit
      interlock audit --since HEAD~1 --json
      interlock audit --since baseline
    """
    from interlock.commands import audit as commands  # the analysis loads only when used

    return commands.audit(cwd, since, as_json)
