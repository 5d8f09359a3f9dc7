"""The installed launcher's entry point: `interlock hook AGENT EVENT` straight to the agent
hook door, `interlock check ...` and `interlock snapshot ...` to their warm doors
(interlock.checkdoor, interlock.snapdoor) first, everything else to interlock.__main__.

install.sh writes the `interlock` launcher (`python -I -S`, interlock on an explicit path) to
call `main()` here, and `interlock integrate` writes hook commands that run that launcher.
Every tool call of an agent starts one, so the hook event does not load interlock.__main__
(its doors' parsers and the cold paths, ~0.1 ms): this module holds only the test of the
arguments, the one __main__ makes too (tests/adapters/test_hot.py holds them to it).
A `snapshot` no daemon answered is taken inline (interlock.__main__.answer_inline) and, once
printed, ends with `posix._exit` too: its git status is most of its time, and the ~4 ms
Python's shutdown spent on its modules came after the answer.
"""

import posix
import sys

AGENT_HOOKS = ("claude-code", "codex", "gemini")  # interlock.adapters.hot.AGENTS


def is_agent_hook(args: list[str]) -> bool:
    """`hook AGENT ...` without a help flag: the agent hook door answers it."""
    return (
        args[:1] == ["hook"]
        and len(args) >= 2
        and args[1] in AGENT_HOOKS
        and not {"-h", "--help"} & set(args)
    )


def _flush_std() -> None:
    """Write what sys.stdout and sys.stderr still buffer (a reader gone: nothing to write to)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def main() -> int:
    args = sys.argv[1:]
    if is_agent_hook(args):
        from interlock.adapters.hot import door

        return door(args[1:])
    if args[:1] in (["check"], ["snapshot"]):
        try:
            if args[0] == "check":
                from interlock.checkdoor import door as warm_door
            else:
                from interlock.snapdoor import door as warm_door
            code = warm_door(args[1:])
        except Exception:  # a bug on the hot path must not decide: the entry point answers
            code = None
        if code is not None:
            posix._exit(code)  # the answer is written (posix.write): nothing left to flush
        from interlock.__main__ import answer_inline, full_cli

        code = answer_inline(args)
        if code is None:
            return full_cli(args)
        if args[0] == "snapshot":
            # Taken and printed: nothing is left open that Python's shutdown must close (the
            # snapshot's git processes are ended, its files written and renamed), and tearing
            # down the ~120 modules it loaded cost ~4 ms after the answer.
            _flush_std()
            posix._exit(code)
        return code
    from interlock.__main__ import main as everything_else

    return everything_else(args)
