"""Inline code after an option that takes a value: `perl -I lib -e CODE`, `ruby -r json -e
CODE`, `node -r ./env.js -e CODE`, `php -d k=v -r CODE`, `lua -l mod -e CODE` (the value word
was read as the script operand, so the code went unread), and php's per-line code options
`-B`, `-R`, `-E`, judged as `-r` is (engine.inline.interpreters)."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.inline.interpreters import inline_code
from interlock.shell.model import SimpleCommand
from interlock.shell.parse import parse


def code_of(text: str) -> str | None:
    root = parse(text).root
    assert isinstance(root, SimpleCommand)
    found = inline_code(root.words, None)
    return None if found is None else found.code


def judged(command: str) -> tuple[str, set[str]]:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return result.verdict, {f.rule for f in result.findings}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("php -R 'echo $argn;'", "echo $argn;"),
        ("php -B 'echo 1;'", "echo 1;"),
        ("php -E 'echo 2;'", "echo 2;"),
        ("php -nR 'echo 3;'", "echo 3;"),
        ("php -R'echo 4;'", "echo 4;"),
        ("php -B 'echo 1;' -R 'echo 2;' -E 'echo 3;'", "echo 1;\necho 2;\necho 3;"),
        ("php -d display_errors=1 -r 'echo 5;'", "echo 5;"),
        ("php -c php.ini -R 'echo 6;'", "echo 6;"),
        ("php -ddisplay_errors=1 -r 'echo 7;'", "echo 7;"),
        ("php -z ext.so -r 'echo 8;'", "echo 8;"),
        ("php8.2 -R 'echo 9;'", "echo 9;"),
        ("perl -I lib -e 'print 1'", "print 1"),
        ("perl -I lib -I t -ne 'print'", "print"),
        ("perl -Ilib -e 'print 2'", "print 2"),
        ("perl -l -n -e 'print 3'", "print 3"),
        ("perl -l0 -ne 'print 4'", "print 4"),
        ("perl -Mstrict -e 'print 5'", "print 5"),
        ("ruby -r json -e 'puts 1'", "puts 1"),
        ("ruby -C sub -e 'puts 2'", "puts 2"),
        ("ruby -I lib -n -e 'puts 3'", "puts 3"),
        ("ruby -E UTF-8 -e 'puts 4'", "puts 4"),
        ("ruby -X sub -e 'puts 5'", "puts 5"),
        ("ruby --encoding UTF-8 -e 'puts 6'", "puts 6"),
        ("node -r ./env.js -e 'x()'", "x()"),
        ("node -C dev -e 'y()'", "y()"),
        ("node --require ./env.js -e 'z()'", "z()"),
        ("node --input-type module -e 'w()'", "w()"),
        ("node -pe '1+1'", "1+1"),
        ("lua -l socket -e 'print(1)'", "print(1)"),
        ("lua -lsocket -e 'print(2)'", "print(2)"),
    ],
)
def test_code_after_an_option_and_its_value_is_read(text: str, code: str) -> None:
    assert code_of(text) == code


@pytest.mark.parametrize(
    "text",
    [
        "php -d x=1 script.php",
        "php -f script.php",
        "perl -I lib script.pl",
        "perl -l script.pl",
        "ruby -r json x.rb",
        "node -r ./env.js app.js",
        "node --require ./env.js app.js",
        "lua -l socket x.lua",
    ],
)
def test_a_script_operand_after_an_option_and_its_value_is_not_inline_code(text: str) -> None:
    assert code_of(text) is None


@pytest.mark.parametrize(
    "command",
    [
        "php -R 'system(\"rm -rf .\");'",
        "php -B 'system(\"rm -rf .\");'",
        "php -E 'system(\"rm -rf .\");'",
        "php -d x=1 -r 'system(\"rm -rf .\");'",
        "perl -I lib -e 'system(\"rm -rf .\")'",
        "perl -n -e 'system(\"rm -rf .\")'",
        "ruby -r json -e 'system(\"rm -rf .\")'",
        "ruby -n -e 'system(\"rm -rf .\")'",
        'node -r ./env.js -e \'require("child_process").execSync("rm -rf .")\'',
        "lua -l socket -e 'os.execute(\"rm -rf .\")'",
    ],
)
def test_a_discard_in_code_after_an_option_is_refused(command: str) -> None:
    assert judged(command) == ("block", {"fs.rm-recursive"}), command


@pytest.mark.parametrize("command", ['php -R "$CODE"', 'php -B "$CODE"', 'perl -I lib -e "$C"'])
def test_code_known_only_at_run_time_after_an_option_is_unknown(command: str) -> None:
    assert judged(command) == ("block", {"parse.unknown-code"}), command
