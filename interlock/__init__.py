"""interlock: keeps a git worktree safe while an AI coding agent, or a person, works in it."""

__version__ = "0.1.0"
