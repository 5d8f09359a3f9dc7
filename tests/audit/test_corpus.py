"""The shared tamper corpus, judged exactly as the project is judged: commit before/, lay
after/ over it (files absent from after/ are deleted), run `interlock audit --json`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from interlock.cli import run_cli


def tamper_cases(corpus: Path) -> list:
    """Every case of the tamper corpus (a directory with a case.json); one skipped test when
    the corpus is not there."""
    tamper = corpus / "tamper"
    cases = (
        sorted(p for p in tamper.iterdir() if (p / "case.json").is_file())
        if tamper.is_dir()
        else []
    )
    if not cases:
        skip = pytest.mark.skip(reason="the shared corpus is not mounted here")
        return [pytest.param(None, id="no-corpus", marks=skip)]
    return cases


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build_case_repo(case: Path, repo: Path) -> None:
    """A repository at before/ committed, with after/ laid over the worktree."""
    shutil.copytree(case / "before", repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "before")
    after = case / "after"
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo)
        if rel.parts[0] == ".git" or not path.is_file():
            continue
        if not (after / rel).exists():
            path.unlink()
    shutil.copytree(after, repo, dirs_exist_ok=True)


OWN = Path(__file__).resolve().parents[1] / "corpus"


@pytest.mark.corpus_cases("case", tamper_cases, ids=lambda p: p.name)
def test_corpus_case_is_judged_as_expected(case, tmp_path, cap_out):
    judge_case(case, tmp_path, cap_out)


@pytest.mark.parametrize("case", tamper_cases(OWN), ids=lambda p: p.name if p else "none")
def test_own_tamper_case_is_judged_as_expected(case, tmp_path, cap_out):
    """Cases of our own writing in tests/corpus/tamper, judged the same way."""
    judge_case(case, tmp_path, cap_out)
    spec = json.loads((case / "case.json").read_text())
    report = json.loads(cap_out[0].getvalue())
    if spec["expect"] == "tampered":
        assert spec["kind"] in {f["kind"] for f in report["findings"]}, report


def judge_case(case: Path, tmp_path: Path, cap_out) -> None:
    expected = json.loads((case / "case.json").read_text())["expect"]
    repo = tmp_path / "repo"
    build_case_repo(case, repo)

    code = run_cli(["audit", "--json", "--cwd", str(repo)])

    report = json.loads(cap_out[0].getvalue())
    assert set(report) >= {"verdict", "findings"}
    for finding in report["findings"]:
        assert set(finding) >= {"kind", "path", "line", "test", "detail"}
    want = "tampered" if expected == "tampered" else "clean"
    assert report["verdict"] == want, report["findings"]
    assert code == (1 if want == "tampered" else 0)
