"""Runners of project tools: what `uv run`, `npx`, `pnpm exec`, `yarn dlx`, `bun x`,
`poetry run`, `dotenv run`, `direnv exec`... run, and where. See wrappers.py for the Unwrap
kinds.

Each reads its own options: those naming the directory the command runs in (`pnpm -C DIR`,
`npm --prefix DIR`, `yarn --cwd DIR`, `uv --directory DIR`; a value only known at run time
makes the directory unknown), those running it in directories only known at run time
(workspaces, recursive runs, filters), and those giving a command line instead
(`npx -c CMD`, `pnpm exec -c`, `yarn exec`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

from interlock.engine.unwrap import (
    Options,
    OptSpec,
    Unwrap,
    command_name,
    exec_at,
    join_script,
    lit,
    parse_options,
    script_from,
    strip_version,
)
from interlock.shell.model import Word

_NO_OPTIONS = Options(())


_UV_RUN = OptSpec(
    "pfPC",
    {
        "with",
        "with-editable",
        "with-requirements",
        "python",
        "project",
        "directory",
        "package",
        "extra",
        "group",
        "only-group",
        "no-group",
        "env-file",
        "index",
        "default-index",
        "index-url",
        "extra-index-url",
        "find-links",
        "cache-dir",
        "config-file",
        "exclude-newer",
        "prerelease",
        "resolution",
        "index-strategy",
        "keyring-provider",
        "link-mode",
        "refresh-package",
        "reinstall-package",
        "upgrade-package",
        "no-binary-package",
        "no-build-package",
        "python-platform",
        "color",
        "allow-insecure-host",
        "config-setting",
        "from",
    },
)


class _Tool(NamedTuple):
    """How a package runner reads its options: which take a value (spec), which name the
    directory the command runs in (chdir), which run it in directories only known at run time
    (elsewhere: workspaces, recursive runs, filters), which give a command line as their value
    (call: `npx -c CMD`) and which run the words as a command line (shell: `pnpm exec -c`)."""

    spec: OptSpec
    chdir: tuple[str, ...] = ()
    elsewhere: tuple[str, ...] = ()
    call: tuple[str, ...] = ()
    shell: tuple[str, ...] = ()


_UV = _Tool(_UV_RUN, chdir=("--directory",))
_NPM = _Tool(
    OptSpec(
        "pcCw",
        {
            "package",
            "call",
            "cache",
            "userconfig",
            "globalconfig",
            "registry",
            "prefix",
            "workspace",
            "loglevel",
            "script-shell",
        },
    ),
    chdir=("-C", "--prefix"),
    elsewhere=("-w", "--workspace", "--workspaces"),
    call=("-c", "--call"),
)
_PNPM = _Tool(
    OptSpec(
        "CF",
        {
            "dir",
            "filter",
            "filter-prod",
            "workspace-concurrency",
            "reporter",
            "loglevel",
            "resume-from",
            "package",
        },
    ),
    chdir=("-C", "--dir"),
    elsewhere=("-r", "--recursive", "-w", "--workspace-root", "-F", "--filter", "--filter-prod"),
    shell=("-c", "--shell-mode"),
)
_YARN = _Tool(OptSpec("p", {"cwd", "package"}), chdir=("--cwd",))
_BUN = _Tool(
    OptSpec("Fp", {"cwd", "filter", "config", "package"}),
    chdir=("--cwd",),
    elsewhere=("-F", "--filter"),
)
_JS_TOOLS = {
    "npm": _NPM,
    "npx": _NPM,
    "pnpm": _PNPM,
    "pnpx": _PNPM,
    "yarn": _YARN,
    "bun": _BUN,
    "bunx": _BUN,
}


def _run_cwd(opts: Options, tool: _Tool) -> str | None:
    return None if opts.has(*tool.elsewhere) else opts.directory(*tool.chdir)


def _uv(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _UV_RUN)  # uv's global options (`--directory DIR`)
    if parsed is None:
        return None
    before, k = parsed
    sub = lit(words[k]) if k < len(words) else None
    if sub == "run":
        more = parse_options(words, k + 1, _UV_RUN)
        if more is None:
            return None
        opts, i = before.merged(more[0]), more[1]
        cwd = _run_cwd(opts, _UV)
        if opts.has("-m", "--module") and i < len(words):
            python = (Word("python", "python"), Word("-m", "-m"))
            return Unwrap("exec", "uv run", rest=python + words[i:], cwd=cwd)
        return exec_at("uv run", words, i, cwd=cwd)
    if sub == "tool" and k + 1 < len(words) and lit(words[k + 1]) == "run":
        return _package_runner(words, k + 2, "uv tool run", _UV, before)
    return None


def _uvx(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    return _package_runner(words, 1, "uvx", _UV)


# Each environment runner's own options before and after `run`: those taking a value, and
# which of them name the directory the command runs in (poetry's -C; conda's --cwd). A flag
# read as taking a value (`poetry -n run`: --no-interaction) would hide the command.
_ENV_RUNNERS = {
    "poetry": OptSpec("CP", {"directory", "project"}),
    "pipenv": OptSpec("", {"python", "pypi-mirror"}),
    "pdm": OptSpec("p", {"project", "venv"}),
    "hatch": OptSpec("ep", {"env", "project", "data-dir", "cache-dir", "config"}),
    "conda": OptSpec("np", {"name", "prefix", "cwd"}),
    "mamba": OptSpec("np", {"name", "prefix", "cwd"}),
    "micromamba": OptSpec("npa", {"name", "prefix", "cwd", "attach", "root-prefix"}),
    "rye": OptSpec("", {"pyproject"}),
}


def _env_runner(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """poetry/pipenv/pdm/hatch/conda/mamba/micromamba/rye run."""
    name = command_name(words[0]) or ""
    spec = _ENV_RUNNERS[name]
    parsed = parse_options(words, 1, spec)
    if parsed is None:
        return None
    opts, i = parsed
    if i >= len(words) or lit(words[i]) != "run":
        return None
    more = parse_options(words, i + 1, spec)
    if more is None:
        return None
    cwd = opts.merged(more[0]).directory("-C", "--directory", "--cwd")
    return exec_at(f"{name} run", words, more[1], cwd=cwd)


def _package_runner(
    words: tuple[Word, ...],
    i: int,
    via: str,
    tool: _Tool,
    before: Options = _NO_OPTIONS,
    shell: bool = False,
) -> Unwrap | None:
    """`npx [opts] PKG ARGS`, `pnpm exec`, `uvx`...: the package's command, or the command line
    of `-c`; `before`: the options read before the subcommand (`pnpm -C dir exec`)."""
    parsed = parse_options(words, i, tool.spec)
    if parsed is None:
        return None
    opts, i = parsed
    every = before.merged(opts)
    cwd = _run_cwd(every, tool)
    call = every.word(*tool.call)
    if call is not None:
        return replace(script_from(call, f"{via} -c"), cwd=cwd)
    if i >= len(words):
        return None
    if shell or every.has(*tool.shell):  # the words are a command line for a shell
        found = join_script(words[i:], via if shell else f"{via} -c")
        return replace(found, cwd=cwd)
    head = words[i]
    if not opts.has("-p", "--package", "--from") and (value := head.literal()) is not None:
        head = Word(head.text, strip_version(value), head.has_glob, head.substitutions)
    return Unwrap("exec", via, rest=(head,) + words[i + 1 :], cwd=cwd)


def _npx(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    name = command_name(words[0]) or "npx"
    return _package_runner(words, 1, name, _JS_TOOLS[name])


_YARN_FOREACH = OptSpec("j", {"jobs", "include", "exclude", "from", "since"})


def _js_pm(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """pnpm exec/dlx, yarn dlx/exec, bun x, npm exec/x; `yarn workspace NAME ...` and
    `yarn workspaces foreach ...` run in the workspaces' directories."""
    name = command_name(words[0]) or ""
    tool = _JS_TOOLS[name]
    parsed = parse_options(words, 1, tool.spec)
    if parsed is None:
        return None
    before, i = parsed
    sub = lit(words[i]) if i < len(words) else None
    inner: tuple[Word, ...] | None = None
    if name == "yarn" and sub == "workspace" and i + 2 < len(words):
        inner = words[i + 2 :]
    elif name == "yarn" and sub == "workspaces" and i + 1 < len(words):
        foreach = parse_options(words, i + 2, _YARN_FOREACH)
        if lit(words[i + 1]) == "foreach" and foreach is not None:
            inner = words[foreach[1] :]
    if inner is not None:
        found = _js_pm(words[:1] + inner, stdin)
        return None if found is None else replace(found, cwd=None)
    if sub not in ("exec", "dlx", "x"):
        return None
    via = "npm exec" if name == "npm" else f"{name} {sub}"
    shell = name == "yarn" and sub == "exec"  # yarn's exec runs a shell script
    return _package_runner(words, i + 1, via, tool, before, shell)


# python-dotenv: `dotenv [-f FILE] [-q MODE] [-e BOOL] run [--override|--no-override] CMD...`
# (its other subcommands run nothing); dotenv-cli: `dotenv [-e FILE] [-v V=X] [-c ENV] CMD...`.
_DOTENV = OptSpec("fqevpc", {"file", "quote", "export"})


def _dotenv(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _DOTENV)
    if parsed is None:
        return None
    i = parsed[1]
    if i < len(words) and lit(words[i]) == "run":
        run = parse_options(words, i + 1, OptSpec(""))
        return None if run is None else exec_at("dotenv", words, run[1])
    return exec_at("dotenv", words, i)


def _direnv(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    # `direnv exec DIR CMD`: loads DIR's .envrc, runs CMD where it is (no cd)
    if len(words) > 2 and lit(words[1]) == "exec":
        return exec_at("direnv exec", words, 3)
    return None


PKG_RUNNERS: dict[str, Callable[[tuple[Word, ...], str | None], Unwrap | None]] = {
    "uv": _uv,
    "uvx": _uvx,
    "npx": _npx,
    "pnpx": _npx,
    "bunx": _npx,
    "pnpm": _js_pm,
    "yarn": _js_pm,
    "bun": _js_pm,
    "npm": _js_pm,
    "dotenv": _dotenv,
    "direnv": _direnv,
    **{name: _env_runner for name in _ENV_RUNNERS},
}
