"""An agent's event judged in the hook's own process: the daemon could not answer (down,
stalled, not trusted, another build). Loads the installed packages first (the hook starts
with `python -I -S`), opens the worktree's journal, judges, closes."""

from __future__ import annotations

import os
from typing import Any

from interlock.adapters.event import Reply


def answer(req: dict[str, Any], start: str) -> Reply:
    from interlock.run import link

    link.load_site()
    from interlock.adapters.desk import Desk
    from interlock.adapters.serve import serve
    from interlock.git import discover

    loc = discover(start)
    if loc is None:
        return serve(None, req)
    wt = link.inline_worktree(os.fspath(loc.worktree))
    try:
        reply = serve(Desk(wt), req)
        if wt.journal.warning:
            note = f"interlock: warning: {wt.journal.warning}\n"
            reply = Reply(reply.stdout, note + reply.stderr, reply.exit_code)
        return reply
    finally:
        wt.journal.close()
