"""Discarding pushes and fetches: a force push (also a remote delete, mirror, prune, `+refspec`,
and a bare `--force-with-lease`, which the tree judges), and fetch/pull with a forced refspec
into a local branch.
"""

from __future__ import annotations

from interlock.engine.findings import Finding, Targets
from interlock.engine.rules.args import Args, literal_or_text, literal_prefix, spec
from interlock.engine.rules.common import rule
from interlock.engine.rules.git.invocation import GitCall, git_finding

rule(
    "git.fetch-force",
    "discard",
    "git fetch/pull with a forced refspec (`+src:dst`, --force) into a local branch",
    "overwrites the local branch with the remote's; commits only that branch held (and, with "
    "--update-head-ok, the checked-out branch's) become unreferenced",
    "git fetch REMOTE (into remote-tracking branches), then merge or rebase",
    (
        "git fetch origin +main:main",
        "git fetch -f origin topic:topic",
        "git pull origin +main:topic",
    ),
    (
        "git fetch origin",
        "git fetch origin main",
        "git fetch origin +main:refs/remotes/origin/main",
    ),
)
rule(
    "git.push-force",
    "discard",
    "a force push (or a remote delete/mirror/prune) can drop commits on the remote",
    "overwrites the remote branch; commits pushed there by others (or earlier) are lost. A "
    "bare --force-with-lease only checks that the remote still matches this clone's "
    "remote-tracking branch: after a `reset --soft` or a rebase it drops the commits that "
    "branch shows, so it counts only when the pushed commit contains the remote tip (judged "
    "with the tree) or the lease names the expected commit",
    "git push --force-with-lease=BRANCH:EXPECTED-SHA REMOTE BRANCH (refuses if the remote moved)",
    (
        "git push --force",
        "git push -f origin main",
        "git push origin +main",
        "git push origin :old",
        "git push origin -- +main",
        "git push --forc",
        "git push --force-with-lease --force origin main",
    ),
    ("git push --force-with-lease=main:abc123", "git push origin main", "git push -n --force"),
)
PUSH = spec(
    short_value="o",
    long_value="repo receive-pack exec push-option recurse-submodules",
    long_flags=(
        "all branches mirror tags follow-tags atomic no-atomic dry-run porcelain delete prune "
        "force no-force force-with-lease no-force-with-lease force-if-includes "
        "no-force-if-includes verbose quiet progress no-progress set-upstream thin no-thin "
        "verify no-verify ipv4 ipv6 signed no-signed"
    ),
)
FETCH = spec(
    short_value="jo",
    long_value=(
        "depth deepen shallow-since shallow-exclude upload-pack jobs server-option "
        "recurse-submodules-default submodule-prefix negotiation-tip refmap filter "
        "recurse-submodules"
    ),
    long_flags=(
        "all append atomic force keep multiple prefetch prune prune-tags no-tags tags dry-run "
        "write-fetch-head no-write-fetch-head update-head-ok quiet verbose progress ipv4 ipv6 "
        "unshallow update-shallow no-recurse-submodules set-upstream show-forced-updates "
        "no-show-forced-updates auto-maintenance auto-gc rebase no-rebase ff-only ff no-ff "
        "squash no-squash commit no-commit edit no-edit autostash no-autostash stat no-stat "
        "verify-signatures"
    ),
)

Lease = tuple[str | None, str | None]  # (ref or None for every ref, expected value or None)


def _leases(args: Args) -> list[Lease]:
    """`--force-with-lease[=REF[:EXPECT]]` in order; `--no-force-with-lease` forgets them."""
    leases: list[Lease] = []
    for opt in args.opts:
        if opt.name == "--no-force-with-lease":
            leases = []
        elif opt.name == "--force-with-lease":
            if opt.value is None:
                leases.append((None, None))
            else:
                ref, colon, expect = opt.value.partition(":")
                leases.append((ref or None, expect if colon else None))
    return leases


def _short_ref(ref: str) -> str:
    for prefix in ("refs/heads/", "refs/tags/", "refs/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def _protection(leases: list[Lease], dst: str | None) -> str | None:
    """How a lease protects the pushed ref: None (no lease), `bare` or `explicit`."""
    specific = [
        lease
        for lease in leases
        if lease[0] is not None and dst is not None and _short_ref(lease[0]) == _short_ref(dst)
    ]
    candidates = specific or [lease for lease in leases if lease[0] is None]
    if not candidates:
        return None
    return "explicit" if candidates[-1][1] is not None else "bare"


def _destination(refspec: str) -> str:
    body = refspec.lstrip("+")
    return body.split(":", 1)[1] if ":" in body else body


def check_push(call: GitCall, args: Args) -> list[Finding]:
    if args.has("-n", "--dry-run"):
        return []
    texts = [literal_or_text(w) for w in args.operands()]
    # what each operand surely starts with (`+` of `"+$B"`, `:` of `":$B"`)
    heads = [literal_prefix(w) for w in args.operands()]
    repo = args.last("--repo")
    remote = repo.text if repo is not None else (texts[0] if texts else None)
    refspecs = texts if repo is not None else texts[1:]
    starts = heads if repo is not None else heads[1:]
    force = args.last("-f", "--force", "--no-force")
    forced = (force is not None and force.name != "--no-force") or args.has("--mirror")
    deletes = args.has("-d", "--delete", "--prune") or any(
        h.startswith(":") and len(r) > 1 for h, r in zip(starts, refspecs, strict=True)
    )
    leases = _leases(args)
    pushed: list[tuple[bool, str | None]] = [
        (h.startswith("+"), _destination(r)) for h, r in zip(starts, refspecs, strict=True)
    ]
    pushed = pushed or [(False, None)]
    protections = [
        _protection(leases, dst) if (plus or leases) else "explicit" for plus, dst in pushed
    ]
    unprotected = any(p is None and plus for p, (plus, _) in zip(protections, pushed, strict=True))
    if not (forced or deletes or unprotected or "bare" in protections):
        return []
    static = forced or deletes or unprotected
    refs = (remote or "",) + tuple(refspecs)
    targets = Targets("remote", refs=refs, git_dir_flag=call.elsewhere, lease=not static)
    branch = _destination(refspecs[0]) if refspecs else "BRANCH"
    where = f"{remote or 'origin'} {branch}"
    instead = (
        f"git push --force-with-lease={_short_ref(branch)}:EXPECTED-SHA {where} (names the "
        "remote commit you mean to replace; refuses if the remote holds anything else)"
    )
    reason = None
    if not static:
        reason = (
            "a bare --force-with-lease only checks the remote against this clone's "
            "remote-tracking branch; the push drops whatever commits that branch has and the "
            "pushed commit does not"
        )
    return [git_finding("git.push-force", call, targets, instead=instead, reason=reason)]


def check_fetch(call: GitCall, args: Args) -> list[Finding]:
    if args.has("--dry-run"):
        return []
    forced = args.has("-f", "--force")
    local: list[str] = []
    unknown = False
    for word in args.operands()[1:]:
        refspec = word.literal()
        if refspec is None:  # `"+$B:$B"`: a forced refspec into a branch named at run time
            unknown = unknown or literal_prefix(word).startswith("+") or forced
            continue
        if ":" not in refspec:
            continue
        dst = refspec.split(":", 1)[1]
        if not dst or dst.startswith(("refs/remotes/", "refs/tags/")):
            continue
        if refspec.startswith("+") or forced:
            local.append(dst if dst.startswith("refs/") else f"refs/heads/{dst}")
    if not local and not unknown:
        return []
    unknown = unknown or any("*" in ref for ref in local)
    targets = Targets("commits", refs=tuple(local), unknown=unknown, git_dir_flag=call.elsewhere)
    return [git_finding("git.fetch-force", call, targets)]
