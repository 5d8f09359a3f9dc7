"""The body form of the daemon's `agent` op: an agent's hook event forwarded as the agent
wrote it, so the door (interlock.adapters.hot) neither decodes nor encodes any JSON.

The door sends the event's bytes as the request's body (`body_bytes`, server._request_of),
with `hook_cwd`, the directory it runs in, and asks for a framed answer (server.framed). The
daemon then does what the door's JSON path does before it asks: the event's `cwd`, by the
door's own rule (`hot.event_cwd`, on the same decoder); that cwd's worktree must be this
daemon's, else the answer is `elsewhere`, given before anything is judged or journaled, and
the door asks the right daemon its usual way. The op then judges the very request the JSON
path would have sent: the payload text decoded as the door decodes it, and that cwd.
"""

from __future__ import annotations

from typing import Any

from interlock.adapters.hot import event_cwd
from interlock.daemon import hotclient
from interlock.daemon.server import Elsewhere, UsageProblem


def opened(req: dict[str, Any], worktree: str) -> dict[str, Any]:
    """The `agent` request with its body read as the door's JSON path would have sent it (a
    request without a body, unchanged); Elsewhere when the event is not this worktree's."""
    body = req.get("body")
    if body is None:
        return req
    here = req.get("hook_cwd")
    if not isinstance(body, bytes) or not isinstance(here, str):
        raise UsageProblem("an agent event's body needs the hook's cwd (hook_cwd)")
    try:
        data = hotclient.decode(body)
    except ValueError:
        data = None
    cwd = event_cwd(data, here)
    # The door connected here because its own directory lies in this worktree: an event in
    # that directory needs no second look (a client that lied would only misroute itself).
    if cwd != here:
        where = hotclient.find(cwd)
        if where is None or where.worktree != worktree:
            raise Elsewhere(f"the event's cwd {cwd!r} is not in this daemon's worktree")
    fields = {k: v for k, v in req.items() if k not in ("body", "hook_cwd")}
    return {**fields, "payload": body.decode("utf-8", "replace"), "cwd": cwd}
