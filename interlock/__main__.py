"""Entry point. Keeps the agent's hot path light: `check` may be answered by the thin client."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from interlock.cli import run_cli

    return run_cli(args)


if __name__ == "__main__":
    sys.exit(main())
