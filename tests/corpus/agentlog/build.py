"""Build commands.jsonl: a sample of shell commands as coding agents issue them.

    python tests/corpus/agentlog/build.py > tests/corpus/agentlog/commands.jsonl

Not real logs: commands written from templates modelled on the tool calls of SWE-agent,
OpenHands and Claude Code trajectories on SWE-bench-style Python repositories (plus some
JavaScript, Go and Rust work), with the proportions those trajectories show: mostly reading
(ls, find, grep, cat, sed -n), test runs piped to tail/head, reproduction scripts written with
heredocs and run, edits with sed -i, git inspection and commits, installs and one-off
`python -c` checks, and cleanup of the files the agent made. Each line is
{"cmd": ..., "class": ...}; the seed is fixed, so the file is reproducible.
"""

from __future__ import annotations

import json
import random

RNG = random.Random(20240909)

REPOS = ["/testbed", "/repo", "/workspace/project", "/app", "."]
PKGS = ["django", "sympy", "astropy", "requests", "flask", "sklearn", "xarray", "pylint", "sphinx"]
MODULES = [
    "django/db/models/query.py",
    "sympy/core/expr.py",
    "astropy/io/fits/header.py",
    "requests/sessions.py",
    "src/flask/app.py",
    "sklearn/utils/validation.py",
    "xarray/core/dataset.py",
    "pylint/checkers/base.py",
    "sphinx/ext/autodoc/__init__.py",
    "src/app/models.py",
    "lib/parser.py",
]
TESTS = [
    "tests/test_query.py",
    "sympy/core/tests/test_expr.py",
    "astropy/io/fits/tests/test_header.py",
    "tests/test_sessions.py",
    "tests/test_basic.py",
    "sklearn/utils/tests/test_validation.py",
    "xarray/tests/test_dataset.py",
    "tests/checkers/unittest_base.py",
    "tests/test_ext_autodoc.py",
    "tests/unit/test_models.py",
]
NAMES = ["test_roundtrip", "test_empty_input", "test_unicode", "test_bulk_update", "test_repr",
         "test_issue_1234", "test_none_default", "TestHeader::test_update", "test_merge_keys"]
SYMBOLS = ["def _check_", "class QuerySet", "def as_sql", "__repr__", "raise ValueError",
           "def validate", "import warnings", "TODO", "deprecated", "def merge"]
TAILS = ["tail -20", "tail -30", "tail -50", "tail -100", "head -50", "head -100", "tail -n 40"]


def pick(items: list[str]) -> str:
    return RNG.choice(items)


def explore() -> str:
    repo, mod, test, sym = pick(REPOS), pick(MODULES), pick(TESTS), pick(SYMBOLS)
    forms = [
        f"ls {repo}",
        f"ls -la {repo}",
        f"cd {repo} && ls",
        f"find {repo} -name '*.py' -path '*{mod.split('/')[0]}*' | head -20",
        f"find . -type f -name '{mod.rsplit('/', 1)[-1]}'",
        f"grep -rn '{sym}' {mod.split('/')[0]}/ | head -30",
        f"grep -rn \"{sym}\" --include='*.py' . | head -20",
        f"grep -n '{sym}' {mod}",
        f"rg -n '{sym}' {mod.split('/')[0]}",
        f"cat {mod}",
        f"cat -n {mod} | sed -n '{RNG.randint(1, 400)},+40p'",
        f"sed -n '{(start := RNG.randint(1, 600))},{start + RNG.choice([20, 40, 60])}p' {mod}",
        f"head -80 {test}",
        f"wc -l {mod} {test}",
        f"tree -L 2 {repo} | head -50",
        f"ls {test.rsplit('/', 1)[0]}",
        f"grep -c 'def test' {test}",
        f"awk 'NR>=100 && NR<=140' {mod}",
        f"python -c \"import {pick(PKGS)}; print({pick(PKGS)}.__file__)\"",
        f"pip show {pick(PKGS)}",
        "pwd",
        "which python && python --version",
    ]
    return pick(forms)


def test_run() -> str:
    test, name, tail = pick(TESTS), pick(NAMES), pick(TAILS)
    runner = pick(["python -m pytest", "pytest", "python3 -m pytest"])
    cd = pick(["", f"cd {pick(REPOS)} && "])
    forms = [
        f"{cd}{runner} {test} -x -q 2>&1 | {tail}",
        f"{cd}{runner} {test}::{name} -xvs 2>&1 | {tail}",
        f"{cd}{runner} {test} -k {name.split('::')[-1]} -v 2>&1 | {tail}",
        f"{cd}{runner} {test} --tb=short -q 2>&1 | {tail}",
        f"{cd}{runner} {test}::{name} -v",
        f"{cd}{runner} {test} -q",
        f"{cd}{runner} -q {test} 2>&1 | grep -E '(PASS|FAIL|ERROR|passed|failed)'",
        f"timeout 300 {runner} {test} -x 2>&1 | {tail}",
        f"{runner} {test} -x -q --no-header -p no:cacheprovider 2>&1 | {tail}",
        f"python -m pytest {test} -q 2>&1 | tee /tmp/test_out.txt | {tail}",
        f"python runtests.py {test.rsplit('/', 1)[-1][:-3]} --verbosity 2 2>&1 | {tail}",
        f"cd {pick(REPOS)} && python -m unittest {test.replace('/', '.')[:-3]} 2>&1 | {tail}",
        f"bin/test -C sympy/core/tests/test_expr.py 2>&1 | {tail}",
        f"npm test -- {pick(['src/parser.test.ts', 'tests/app.test.js'])} 2>&1 | {tail}",
        f"npx jest src/utils.test.ts -t '{name}' 2>&1 | {tail}",
        f"go test ./{pick(['internal/api', 'pkg/parser', 'cmd/server'])}/... -run Test{name.title().replace('_', '')} 2>&1 | {tail}",
        f"cargo test {name} 2>&1 | {tail}",
        f"python -m pytest {test} -x -q",
    ]
    return pick(forms)


def write_files() -> str:
    mod = pick(MODULES)
    pkg = mod.split("/")[0]
    body = pick(
        [
            f"from {pkg} import *\nprint('before fix')\nresult = run_example()\nprint(repr(result))",
            f"import {pick(PKGS)}\nx = [1, 2, 3]\nprint(len(x))\nassert len(x) == 3\nprint('ok')",
            "import sys\nsys.path.insert(0, '.')\nfrom lib.parser import parse\nprint(parse('a=1'))",
        ]
    )
    name = pick(["reproduce.py", "repro.py", "test_repro.py", "/tmp/check.py", "debug_issue.py"])
    forms = [
        f"cat > {name} << 'EOF'\n{body}\nEOF",
        f"cat > {name} <<EOF\n{body}\nEOF",
        f"cat > {name} << 'EOF'\n{body}\nEOF\npython {name}",
        f"echo 'print(1)' > {name}",
        f"mkdir -p tests/fixtures && touch tests/fixtures/__init__.py",
        f"python {name}",
        f"cd {pick(REPOS)} && python {name}",
        f"python {name} 2>&1 | head -40",
        f"cp {mod} /tmp/{mod.rsplit('/', 1)[-1]}.orig",
        f"printf 'line1\\nline2\\n' > /tmp/input.txt",
    ]
    return pick(forms)


def edit() -> str:
    mod = pick(MODULES)
    line = RNG.randint(10, 900)
    forms = [
        f"sed -i 's/return None/return {pick(['default', 'value', 'result'])}/' {mod}",
        f"sed -i '{line}s/.*/        return self._value/' {mod}",
        f"sed -i '{line}a\\        if value is None:\\n            return None' {mod}",
        f"perl -pi -e 's/old_name/new_name/g' {mod}",
        f"git apply /tmp/fix.patch",
        f"patch -p1 < /tmp/fix.patch",
        f"python - << 'EOF'\nimport re\np = '{mod}'\ns = open(p).read()\ns = s.replace('a == b', 'a is b')\nopen(p, 'w').write(s)\nEOF",
    ]
    return pick(forms)


def git_cmd() -> str:
    mod = pick(MODULES)
    forms = [
        "git status",
        "git status --short",
        "git diff",
        f"git diff {mod}",
        "git diff --stat",
        "git log --oneline -10",
        f"git log -3 --format='%h %s' -- {mod}",
        f"git show HEAD --stat",
        f"git blame -L {RNG.randint(1, 300)},+10 {mod}",
        "git add -A && git commit -m 'Fix handling of empty input'",
        f"git add {mod} && git commit -m 'Handle None default'",
        "git stash && python -m pytest tests/test_basic.py -q 2>&1 | tail -5; git stash pop",
        "git branch --show-current",
        f"git checkout -b fix/issue-{RNG.randint(1000, 9999)}",
        "git log --oneline | head -5",
    ]
    return pick(forms)


def install() -> str:
    forms = [
        "pip install -e .",
        "pip install -e '.[test]' -q",
        f"pip install {pick(['pytest', 'hypothesis', 'numpy==1.26.4', 'pytest-xdist'])}",
        "pip list | grep -i pytest",
        "npm install",
        "npm ci",
        "python setup.py develop 2>&1 | tail -5",
        "go mod download",
        "cargo build 2>&1 | tail -20",
    ]
    return pick(forms)


def snippet() -> str:
    pkg = pick(PKGS)
    forms = [
        f"python -c \"import {pkg}; print({pkg}.__version__)\"",
        f"python -c \"from {pkg} import *; print('imported')\"",
        "python -c \"import sys; print(sys.version)\"",
        f"cd {pick(REPOS)} && python -c \"import ast; print(ast.dump(ast.parse('x = 1')))\"",
        "python3 -c 'print(sorted({3, 1, 2}))'",
        "node -e \"console.log(require('./package.json').version)\"",
        "python -m mypy lib/parser.py 2>&1 | tail -20",
        "ruff check lib/ 2>&1 | head -30",
        "flake8 lib/parser.py",
        "black --check lib/parser.py",
        "npx tsc --noEmit 2>&1 | head -40",
        "go vet ./...",
        "go build ./... && echo BUILD OK",
    ]
    return pick(forms)


def cleanup() -> str:
    forms = [
        f"rm {pick(['reproduce.py', 'repro.py', 'debug_issue.py', 'test_repro.py'])}",
        "rm -f /tmp/check.py /tmp/input.txt",
        "rm -rf /tmp/test_env",
        "rm -rf .pytest_cache",
        "find . -name '__pycache__' -type d -exec rm -rf {} +",
        "rm -rf build/ dist/ *.egg-info",
    ]
    return pick(forms)


def misc() -> str:
    forms = [
        "echo $PYTHONPATH",
        "export PYTHONPATH=$PWD:$PYTHONPATH",
        "env | grep -i python",
        "ps aux | grep -c python",
        "sleep 2",
        "curl -s http://localhost:8000/health | head -5",
        "python -m http.server 8000 > /dev/null 2>&1 &",
        "jobs",
        "date",
        "df -h . | tail -1",
    ]
    return pick(forms)


# class -> (generator, share of the sample): the proportions agent trajectories show.
CLASSES = {
    "explore": (explore, 0.34),
    "test": (test_run, 0.20),
    "write": (write_files, 0.11),
    "edit": (edit, 0.08),
    "git": (git_cmd, 0.09),
    "install": (install, 0.04),
    "snippet": (snippet, 0.07),
    "cleanup": (cleanup, 0.03),
    "misc": (misc, 0.04),
}
TOTAL = 600


def main() -> None:
    for name, (generate, share) in CLASSES.items():
        for _ in range(round(TOTAL * share)):
            print(json.dumps({"cmd": generate(), "class": name}))


if __name__ == "__main__":
    main()
