"""git's discard rules: `worktree` (reset, checkout, restore, clean, stash...) and `history`
(branch, push, reflog, gc, update-ref...), both reading the call through `invocation`.
"""
