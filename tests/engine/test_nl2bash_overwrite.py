"""The single-file and device families over NL2Bash's 12,607 real one-liners, judged by text
alone (`--assume-dirty --mode blocking`): how many lines `fs.rm-file`, `overwrite.*` and
`disk.*` flag, each printed for a person to review (run with `-s`).

By text alone a write that may create its file is no discard, so what remains are deletions
of named files, files emptied or cut short, in-place edits that delete, writes over a file the
same command reads, git content put back over files, and devices.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from interlock.engine.check import evaluate

FAMILIES = ("fs.rm-file", "overwrite.", "disk.")
# Every command these families read, and the redirection and device signs: a line without one
# of them cannot reach them, so the test skips it (the full check runs in test_nl2bash_review).
REACHES = re.compile(
    r">|/dev/|\b(rm|unlink|srm|rimraf|tee|sponge|truncate|fallocate|cp|mv|install|ln|rsync|dd|"
    r"curl|wget|sed|gsed|perl|ruby|sort|shuf|uniq|ex|vi|vim|nvim|view|gvim|ed|git|patch|tar|"
    r"gtar|bsdtar|unzip|7z|7za|7zr|7zz|cpio|mkfs[.\w]*|mke2fs|mkswap|mkdosfs|mkntfs|newfs\w*|"
    r"wipefs|blkdiscard|fdisk|sfdisk|cfdisk|parted|gdisk|sgdisk|cryptsetup|zpool|nvme|mdadm|"
    r"hdparm|diskutil|badblocks|shred|pv|mformat|mkexfatfs)\b"
)


def test_nl2bash_lines_flagged_by_the_single_file_and_device_families(corpus_dir):
    corpus = corpus_dir / "nl2bash.txt"
    if not corpus.exists():
        pytest.skip(f"corpus not found at {corpus}")
    lines = [line for line in corpus.read_text(encoding="utf-8").split("\n") if line.strip()]
    per_rule: Counter[str] = Counter()
    flagged: list[tuple[str, str]] = []
    only_ours = 0
    for line in lines:
        if not REACHES.search(line):
            continue
        result = evaluate(line, "/", mode="blocking", assume_dirty=True).result
        ours = sorted({f.rule for f in result.findings if f.rule.startswith(FAMILIES)})
        if not ours:
            continue
        per_rule.update(ours)
        flagged.append((",".join(ours), line))
        only_ours += all(f.rule.startswith(FAMILIES) for f in result.findings)
    share = len(flagged) / len(lines)
    print(
        f"\nnl2bash: {len(flagged)} of {len(lines)} lines ({share:.2%}) flagged by "
        f"{', '.join(FAMILIES)}; {only_ours} of them flagged by nothing else"
    )
    print(f"per rule: {dict(per_rule.most_common())}")
    for rules, line in sorted(flagged):
        print(f"  [{rules}] {line}")
    # People wrote these one-liners to do real work on files; most of it creates or edits.
    assert share <= 0.01
    assert per_rule["disk.write-device"] + per_rule["disk.format"] <= 15
