"""`interlock explain [RULE_ID]`."""

from __future__ import annotations

from interlock import exitcodes, output
from interlock.engine.findings import RuleInfo
from interlock.engine.rules import index as rules


def _as_json(info: RuleInfo) -> dict[str, object]:
    return {
        "id": info.id,
        "kind": info.kind,
        "summary": info.summary,
        "why": info.why,
        "instead": info.instead,
        "severity": info.severity,
        "blocks": list(info.examples_block),
        "allows": list(info.examples_allow),
        **info.extra,
    }


_SEVERITY = {
    "block": "refuses the command",
    "warn": "runs it with a warning; the run is recorded and never credited as green",
}


def explain(rule_id: str, as_json: bool) -> int:
    info = rules.rule_info(rule_id)
    if info is None:
        return exitcodes.ERROR
    if as_json:
        output.write_json(_as_json(info))
        return exitcodes.OK
    output.write_out(f"{info.id}  [{info.kind}]")
    output.write_out(f"  {info.summary}")
    output.write_out(f"  why:     {info.why}")
    output.write_out(f"  instead: {info.instead}")
    output.write_out(f"  blocking mode: {_SEVERITY[info.severity]}")
    if "judged" in info.extra:
        output.write_out(f"  judged:  {info.extra['judged']}")
    if info.kind == "discard":
        for note in rules.discard_notes():
            output.write_out(f"  line:    {note}")
    for example in info.examples_block:
        output.write_out(f"  flags:   {example}")
    for example in info.examples_allow:
        output.write_out(f"  allows:  {example}")
    return exitcodes.OK


def list_rules(as_json: bool) -> int:
    infos = sorted(rules.all_rules(), key=lambda r: r.id)
    if as_json:
        output.write_json([_as_json(i) for i in infos])
        return exitcodes.OK
    width = max((len(i.id) for i in infos), default=0)
    for info in infos:
        output.write_out(
            f"{info.id.ljust(width)}  {info.kind:<16} {info.severity:<5}  {info.summary}"
        )
    return exitcodes.OK
