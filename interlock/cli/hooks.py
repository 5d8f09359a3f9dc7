"""`interlock install|uninstall`, `interlock hooks ...`, `hook run`, `approve`, `lost`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option
from interlock.commands import hooks as commands


@cli.command(name="install")
@click.option(
    "--service",
    is_flag=True,
    help="Also write and enable a systemd --user unit that keeps the daemon up across logins.",
)
@cwd_option
def install(service: bool, cwd: str | None) -> int:
    """Install interlock's git hooks into this repository and start its daemon.

    Hooks go to the common git dir (every linked worktree is covered), or to the directory
    core.hooksPath names when it lies inside the repository. A hook that was already there
    is kept as <name>.legacy and runs first. The daemon's recorder keeps every version of
    every changed file from now on (`interlock recover`). Running it twice changes nothing.

    \b
    Example:
      interlock install
      interlock install --service
      interlock install --cwd ~/src/project
    """
    return commands.install_hooks(cwd, service)


@cli.command(name="uninstall")
@click.option(
    "--purge",
    is_flag=True,
    help="Also remove every snapshot and recorded version (refs/interlock/*) and the state dir.",
)
@cwd_option
def uninstall(purge: bool, cwd: str | None) -> int:
    """Remove interlock's git hooks and put back the hooks they chained.

    Only files carrying interlock's marker line are removed, and the systemd user service if
    there is one. Snapshots, recorded versions and the state dir stay (the message says what
    stays) unless --purge, which stops the daemon, lists them and removes them. Exit 0 when
    there is nothing to do.

    \b
    Example:
      interlock uninstall
      interlock uninstall --purge
    """
    return commands.uninstall_hooks(cwd, purge)


@cli.group(name="hooks")
def hooks_group() -> None:
    """Install, remove and inspect interlock's git hooks.

    pre-commit audits the staged changes, pre-push stops pushes that drop remote commits,
    reference-transaction keeps the old tips of deleted or rewound branches (`interlock
    lost`), post-checkout and post-rewrite are journaled.
    """


@hooks_group.command(name="install")
@cwd_option
def hooks_install(cwd: str | None) -> int:
    """Install interlock's git hooks (the same as `interlock install`).

    \b
    Example:
      interlock hooks install
    """
    return commands.install_hooks(cwd)


@hooks_group.command(name="uninstall")
@cwd_option
def hooks_uninstall(cwd: str | None) -> int:
    """Remove interlock's git hooks (the same as `interlock uninstall`).

    \b
    Example:
      interlock hooks uninstall
    """
    return commands.uninstall_hooks(cwd)


@hooks_group.command(name="status")
@json_option
@cwd_option
def hooks_status(as_json: bool, cwd: str | None) -> int:
    """Show each hook: interlock's, another tool's or absent, what it chains, its Python.

    \b
    Example:
      interlock hooks status
      interlock hooks status --json
    """
    return commands.hooks_status(cwd, as_json)


@hooks_group.command(name="path")
@cwd_option
def hooks_path(cwd: str | None) -> int:
    """Print the directory git runs this repository's hooks from.

    \b
    Example:
      interlock hooks path
    """
    return commands.hooks_path(cwd)


@cli.group(name="hook", hidden=True)
def hook_group() -> None:
    """What the installed hook files run."""


@hook_group.command(
    name="run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def hook_run(argv: tuple[str, ...]) -> int:
    """Run hook NAME with git's arguments (the hook shims call this).

    \b
    Example:
      interlock hook run pre-commit
      interlock hook run --from .git/hooks/pre-push pre-push origin git@host:repo.git
    """
    return commands.hook_run(list(argv))


def _agent_hook(agent: str, example: str) -> None:
    @hook_group.command(name=agent)
    @click.argument("event")
    def agent_hook(event: str) -> int:
        return commands.agent_hook(agent, event)

    agent_hook.help = (
        f"Answer one {example} hook event read from stdin (its settings run this).\n\n"
        "Written into the agent's settings by `interlock integrate`; prints the agent's "
        "documented answer (allow, deny, ask, a held stop) and exits as the agent expects.\n\n"
        f"\b\nExample:\n  interlock hook {agent} {'PreToolUse' if agent != 'gemini' else 'BeforeTool'} < event.json"
    )


for _agent, _name in (("claude-code", "Claude Code"), ("codex", "Codex"), ("gemini", "Gemini CLI")):
    _agent_hook(_agent, _name)


@hook_group.command(name="shell")
@click.argument("fifos", nargs=-1)
def hook_shell(fifos: tuple[str, ...]) -> int:
    """Serve a person's interactive shell: the co-process shell/interlock.bash starts.

    \b
    Example:
      interlock hook shell /run/user/1000/interlock-sh.1234/in /run/user/1000/interlock-sh.1234/out
    """
    return commands.shell_helper(list(fifos))


@cli.command(name="approve")
@click.argument("finding_ids", nargs=-1)
@cwd_option
def approve(finding_ids: tuple[str, ...], cwd: str | None) -> int:
    """Approve exact audit findings, so the pre-commit hook lets them through.

    Only a person can approve. This refuses inside an agent's run, whatever the terminal
    says: INTERLOCK_RUN or INTERLOCK_WRAPPED set, or an ancestor process that is interlock's
    wrapper or a coding agent (claude, codex, gemini, aider...); and when stdin is not a
    terminal. Several ids approve several findings: all of them, or none if one is unknown.
    Without an id, lists the pending findings of the staged changes and the worktree with
    their ids. Approvals are journaled.

    \b
    Example:
      interlock approve
      interlock approve 3f9a1c2b7e
      interlock approve 3f9a1c2b7e 0d4e5f6a7b
    """
    return commands.approve(cwd, list(finding_ids))


@cli.group(name="lost", invoke_without_command=True)
@json_option
@cwd_option
@click.pass_context
def lost_group(ctx: click.Context, as_json: bool, cwd: str | None) -> int:
    """List the old tips of deleted or rewound branches that interlock kept.

    The reference-transaction hook keeps a branch's tip under refs/interlock/<worktree>/lost/
    when the branch is deleted or moved to a commit that does not contain it (branch -D,
    reset --hard, rebase, commit --amend), so it survives the reflog's deletion.

    \b
    Example:
      interlock lost
      interlock lost --json
      interlock lost restore feature
    """
    ctx.obj = cwd
    if ctx.invoked_subcommand is None:
        return commands.lost_list(cwd, as_json)
    return 0


@lost_group.command(name="restore")
@click.argument("name")
@cwd_option
@click.pass_context
def lost_restore(ctx: click.Context, name: str, cwd: str | None) -> int:
    """Recreate a lost branch at its kept tip (NAME-recovered-N when NAME exists).

    NAME is a branch (its newest kept tip), BRANCH@TIME as `interlock lost --json` shows in
    the ref, or the full refs/interlock/... ref.

    \b
    Example:
      interlock lost restore feature
      interlock lost restore refs/interlock/main/lost/feature/20250101T120000.000000Z
    """
    return commands.lost_restore(cwd or ctx.obj, name)
