#!/usr/bin/env bash
# interlock installer. Thin: installs the package, then protects a repository.
#
#   ./install.sh [REPO]   install interlock for this user and protect REPO (default: the
#                         git repository of the current directory, if any)
#   ./install.sh --dev    create .venv in this checkout with the test tools (for developers)
#
# Needs Python >= 3.11 with venv, and git. Nothing of yours is touched beyond REPO's hooks,
# which interlock chains (a hook already there keeps running, first).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}

die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

"$python" - <<'PY' || die "Python >= 3.11 is required (set PYTHON=/path/to/python3.11)"
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY
command -v git >/dev/null || die "git is required"

if [ "${1:-}" = "--dev" ]; then
    "$python" -m venv "$here/.venv"
    "$here/.venv/bin/python" -m pip install --quiet --upgrade pip
    "$here/.venv/bin/python" -m pip install --quiet -e "$here[test]"
    echo "install.sh: developer environment ready in $here/.venv"
    exit 0
fi

venv=${INTERLOCK_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/interlock/venv}
bindir=${INTERLOCK_BIN:-$HOME/.local/bin}
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "$here"
mkdir -p "$bindir"
write_launcher() {
    # The `interlock` command: Python without `site` (-I -S), interlock found by an explicit
    # path, so a warm `interlock check` costs about one bare Python start. Commands that need
    # the full CLI load `site` themselves (interlock/__main__.py). The pip script
    # $venv/bin/interlock and `python -m interlock` keep working; they only start slower.
    "$venv/bin/python" -I - "$bindir/interlock" <<'PY'
import os, shlex, sys, tempfile
import interlock

target, python = sys.argv[1], sys.executable
top = os.path.dirname(os.path.dirname(os.path.abspath(interlock.__file__)))
body = f"import sys\nsys.path.append({top!r})\nfrom interlock.launch import main\nsys.exit(main())\n"
note = "# interlock launcher, written by install.sh: Python without site; see interlock/launch.py\n"
if any(c.isspace() for c in python) or len(python) > 120:  # a #! line cannot hold it
    text = f"#!/bin/sh\n{note}exec {shlex.quote(python)} -I -S -c {shlex.quote(body)} \"$@\"\n"
else:
    text = f"#!{python} -IS\n{note}{body}"
fd, temp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".interlock.")
with os.fdopen(fd, "w") as handle:
    handle.write(text)
os.chmod(temp, 0o755)
os.replace(temp, target)
PY
}
write_launcher
# interlock-sh: the shell wrapper, with this virtualenv's interpreter and paths written in.
"$venv/bin/python" -I -m interlock.run.launcher "$here/shell/interlock-sh" "$bindir/interlock-sh" >/dev/null
echo "install.sh: interlock $("$venv/bin/interlock" --version | awk '{print $NF}') installed: $bindir/interlock"
echo "install.sh: the shell wrapper for agents: $bindir/interlock-sh (export SHELL=$bindir/interlock-sh)"
case ":$PATH:" in
    *":$bindir:"*) ;;
    *) echo "install.sh: add $bindir to your PATH (e.g. in ~/.bashrc: export PATH=\"$bindir:\$PATH\")" ;;
esac

repo=${1:-}
if [ -z "$repo" ]; then
    repo=$(git rev-parse --show-toplevel 2>/dev/null || true)
    # not interlock's own source, in this checkout or in another worktree of its repository
    common() { git -C "$1" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true; }
    if [ -n "$repo" ] && [ "$(common "$repo")" = "$(common "$here")" ]; then
        repo=""
    fi
fi
if [ -n "$repo" ]; then
    "$venv/bin/interlock" install --cwd "$repo"
else
    echo "install.sh: no repository given; protect one with: interlock install --cwd /path/to/repo"
fi
echo "install.sh: hook it into your agent: $bindir/interlock integrate claude-code|codex|gemini; into your shell: $bindir/interlock integrate shell"
echo "install.sh: check it: $bindir/interlock doctor${repo:+ --cwd $repo}"
echo "install.sh: undo: ${repo:+$bindir/interlock uninstall --cwd $repo; }rm -rf $venv $bindir/interlock $bindir/interlock-sh"
