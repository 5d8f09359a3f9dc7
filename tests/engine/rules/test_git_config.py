"""git configuration that runs or renames commands, as a command line gives it
(engine.rules.git.config): which keys run programs, what code a value runs, where the
configuration comes from (-c, GIT_CONFIG_*, `git config`, `git clone -c`) and `ext::` remotes."""

from __future__ import annotations

import shlex

import pytest

from interlock.engine.rules.git.config import (
    clone_config,
    config_writes,
    elsewhere_env,
    env_code,
    env_pairs,
    ext_command,
    is_include_key,
    is_program_key,
    option_pair,
    program_code,
)
from interlock.shell.model import Word


def words(text: str) -> tuple[Word, ...]:
    """Literal words, or a non-literal one for each `$`-word (`$X` -> unknown)."""
    return tuple(Word(w, None if "$" in w else w) for w in shlex.split(text))


@pytest.mark.parametrize(
    "key",
    [
        "core.pager",
        "pager.log",
        "pager.my log",
        "credential.helper",
        "credential.https://example.com.helper",
        "diff.foo.textconv",
        "filter.lfs.smudge",
        "mergetool.x.path",
        "trailer.sign.command",
        "hook.lint.command",
        "gpg.ssh.defaultkeycommand",
    ],
)
def test_keys_whose_value_git_runs(key: str) -> None:
    assert is_program_key(key)


@pytest.mark.parametrize(
    "key", ["core.pagerx", "xcore.pager", "pager.", "color.ui", "user.name", "diff.foo.color"]
)
def test_keys_whose_value_git_does_not_run(key: str) -> None:
    assert not is_program_key(key)


def test_include_keys() -> None:
    assert is_include_key("include.path")
    assert is_include_key("includeif.gitdir:~/x/.path")
    assert not is_include_key("include.pathx")
    assert not is_include_key("core.pager")


@pytest.mark.parametrize(
    ("key", "value", "code"),
    [
        ("core.pager", "less -R", "less -R"),
        ("core.pager", "  ", None),
        ("pager.log", "false", None),
        ("pager.log", "OFF", None),
        ("pager.log", "less", "less"),
        ("core.fsmonitor", "true", None),
        ("core.fsmonitor", "./hook", "./hook"),
        ("core.editor", "true", "true"),
        ("core.editor", "", None),
        ("credential.helper", "!rm -rf x", "rm -rf x"),
        ("credential.helper", "store --file x", "git credential-store --file x"),
        ("credential.helper", "/usr/bin/helper --x", "/usr/bin/helper --x"),
        ("credential.helper", "store ./a/b", "git credential-store ./a/b"),
        ("credential.helper", " ", None),
        ("credential.https://h.helper", "cache", "git credential-cache"),
        ("core.sshcommand", "!ssh", "!ssh"),
        ("diff.external", "helper", "helper"),
        ("x.helper", "store", "store"),  # a helper outside credential.*: no credential- prefix
        ("credential.username", "bob", "bob"),
    ],
)
def test_program_code(key: str, value: str, code: str | None) -> None:
    assert program_code(key, value) == code


def test_env_code() -> None:
    assert env_code("GIT_SSH", "/opt/my ssh") == "'/opt/my ssh'"
    assert env_code("GIT_SSH_COMMAND", "ssh -v") == "ssh -v"
    assert env_code("GIT_PAGER", "  ") is None


def test_elsewhere_env() -> None:
    assert elsewhere_env("GIT_CONFIG_GLOBAL", "x.cfg")
    assert elsewhere_env("GIT_EXEC_PATH", None)
    assert not elsewhere_env("GIT_CONFIG_GLOBAL", "/dev/null")
    assert not elsewhere_env("GIT_EXEC_PATH", "/usr/lib/git-core")
    assert not elsewhere_env("GIT_PAGER", "x.cfg")


def test_option_pair() -> None:
    assert option_pair("Core.Pager=less -R") == ("core.pager", "less -R")
    assert option_pair(" color.ui ") == ("color.ui", "true")
    assert option_pair("a.b=") == ("a.b", "")
    assert option_pair(None, "Core.Pager=") == ("core.pager", None)
    assert option_pair(None, "core.") == ("", None)
    assert option_pair(None) == ("", None)


def assign(text: str) -> Word:
    return Word(text, None if "$" in text else text)


def test_env_pairs_from_count_keys_and_values() -> None:
    found = env_pairs(
        [
            assign("GIT_CONFIG_COUNT=2"),
            assign("GIT_CONFIG_KEY_0=Core.Pager"),
            assign("GIT_CONFIG_VALUE_0=less"),
            assign("GIT_CONFIG_KEY_1=$K"),
            assign("GIT_CONFIG_VALUE_1=$V"),
            assign("GIT_CONFIG_KEY_2=ignored"),
        ]
    )
    assert found == [("core.pager", "less"), ("", None)]


def test_env_pairs_without_a_count_read_every_numbered_key() -> None:
    found = env_pairs([assign("GIT_CONFIG_KEY_1=b.c"), assign("GIT_CONFIG_KEY_0=a.b")])
    assert found == [("a.b", None), ("b.c", None)]
    unknown = env_pairs([assign("GIT_CONFIG_COUNT=$N"), assign("GIT_CONFIG_KEY_0=a.b")])
    assert unknown == [("a.b", None)]
    assert env_pairs([assign("GIT_CONFIG_COUNT=1")]) == [("", None)]
    assert env_pairs([assign("GIT_CONFIG_KEY_X=a.b"), assign("FOO=1")]) == []


def test_env_pairs_from_parameters() -> None:
    found = env_pairs([assign("GIT_CONFIG_PARAMETERS='core.pager=cat' 'alias.x'")])
    assert found == [("core.pager", "cat"), ("alias.x", "true")]
    assert env_pairs([assign('GIT_CONFIG_PARAMETERS="$P"')]) == [("", None)]
    assert env_pairs([assign("GIT_CONFIG_PARAMETERS='unclosed")]) == [("", None)]
    both = env_pairs(
        [assign("GIT_CONFIG_PARAMETERS=a.b=1"), assign("GIT_CONFIG_COUNT=1"), assign("FOO=x=y")]
    )
    assert both == [("a.b", "1"), ("", None)]


@pytest.mark.parametrize(
    ("url", "command"),
    [
        ("ext::sh -c touch% x", "sh -c 'touch x'"),
        ("EXT::cmd  two", "cmd two"),
        ("ext::a%%b %s %S", "a%b git-upload-pack upload-pack"),
        ("ext::a%Gb", "axb"),
        ("ext::abc%", "abc%"),
        ("ext::x ", "x"),
        ("ext::", None),
        ("ext:: ", None),
        ("https://example.com/x", None),
    ],
)
def test_ext_command(url: str, command: str | None) -> None:
    assert ext_command(url) == command


@pytest.mark.parametrize(
    ("args", "pairs"),
    [
        ("alias.x 'reset --hard'", [("alias.x", "reset --hard")]),
        ("--global Core.Pager less", [("core.pager", "less")]),
        ("set --global core.pager less", [("core.pager", "less")]),
        ("--add core.pager $P", [("core.pager", None)]),
        ("$KEY value", [("", "value")]),
        ("--file x.cfg -f y alias.x status", [("alias.x", "status")]),
        ("core.pager", []),
        ("--get core.pager", []),
        ("--list", []),
        ("--unset core.pager", []),
        ("--rename-section a b", []),
        ("get core.pager", []),
        ("unset core.pager", []),
        ("list", []),
        ("edit", []),
        ("edit core.pager less", []),
        ("list core.pager less", []),
        ("get core.pager less", []),
        ("unset alias.x y", []),
        ("set core.pager", []),
        ("", []),
    ],
)
def test_config_writes(args: str, pairs) -> None:
    assert config_writes(words(args)) == pairs


def test_clone_config() -> None:
    found = clone_config(words("-o up -c Core.SshCommand=ssh --config a.b=c --depth 1 url d"))
    assert found == [("core.sshcommand", "ssh"), ("a.b", "c")]
    assert clone_config(words("-c core.pager=$X url")) == [("core.pager", None)]
    assert clone_config(words("-c $KV url")) == [("", None)]
    assert clone_config(words("-b -c url")) == []
