"""Plain functions behind each CLI command; each returns an exit code (click stays in cli/).

May import: daemon, hooks, wrapper, monitor, run, engine, memory, audit, shell, client, ground.
"""
