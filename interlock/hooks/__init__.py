"""git hooks: the shim files interlock installs, and what each hook does when git runs it.

`files` installs and removes the hook files (chaining a foreign hook), `dispatch` runs a hook
(warm through the daemon, else inline), `precommit` audits the staged changes, `prepush`
guards remote commits, `approval` records a person's approval of one finding.

May import: run, engine, memory, audit, client, ground.
"""
