"""interlock.engine.inline.interpreters: shell-outs and deletions in python -c, node -e, perl -e, ruby -e, php -r."""

from __future__ import annotations

import pytest

from interlock.engine.inline.interpreters import inline_code, scan_code
from interlock.engine.walk import is_degraded, walk
from interlock.shell.model import SimpleCommand
from interlock.shell.parse import parse


def actions(language: str, code: str) -> list[object]:
    """Each action as an argv list of literals, or ('sh', script)."""
    out: list[object] = []
    for action in scan_code(language, code):
        if action.script is not None:
            out.append(("sh", action.script))
        else:
            out.append([w.literal() for w in action.argv])
    return out


def code_of(text: str) -> str | None:
    root = parse(text).root
    assert isinstance(root, SimpleCommand)
    redirects = root.redirects
    stdin = next((r.heredoc for r in redirects if r.heredoc is not None), None)
    if stdin is None:
        stdin = next((r.target.literal() for r in redirects if r.op == "<<<" and r.target), None)
    found = inline_code(root.words, stdin)
    return None if found is None else found.code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("python -c 'print(1)'", "print(1)"),
        ("python3 -c 'print(1)'", "print(1)"),
        ("python3.12 -u -c 'print(1)'", "print(1)"),
        ("python -W ignore -c 'print(1)'", "print(1)"),
        ("pypy3 -c 'print(1)'", "print(1)"),
        ("python - <<'EOF'\nprint(1)\nEOF", "print(1)\n"),
        ("python3 <<EOF\nprint(1)\nEOF", "print(1)\n"),
        ("python3 <<< 'print(1)'", "print(1)"),
        ("node -e 'console.log(1)'", "console.log(1)"),
        ("node --eval 'x()'", "x()"),
        ("node --eval='x()'", "x()"),
        ("node -p '1+1'", "1+1"),
        ("perl -e 'print 1'", "print 1"),
        ("perl -E 'say 1'", "say 1"),
        ("perl -lne 'print' file", "print"),
        ("perl -pi -e 's/a/b/' f", "s/a/b/"),
        ("ruby -e 'puts 1'", "puts 1"),
        ("ruby -rjson -e 'puts 1'", "puts 1"),
        ("php -r 'echo 1;'", "echo 1;"),
    ],
)
def test_inline_code_is_found_in_each_interpreters_flags(text, code):
    assert code_of(text) == code


@pytest.mark.parametrize(
    "text",
    [
        "python script.py",
        "python -m pytest",
        "python3 -m http.server",
        "node app.js",
        "perl script.pl",
        "ruby x.rb",
        "php artisan migrate",
        "python",
        "pythonista -c x",
    ],
)
def test_running_a_file_or_module_is_not_inline_code(text):
    assert code_of(text) is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import shutil; shutil.rmtree('build')", [["rm", "-rf", "build"]]),
        ("import shutil as sh; sh.rmtree('build')", [["rm", "-rf", "build"]]),
        ("from shutil import rmtree as r; r('build')", [["rm", "-rf", "build"]]),
        ("import os; os.remove('a.txt')", [["rm", "a.txt"]]),
        ("import os; os.unlink(p)", [["rm", None]]),
        ("import os; os.rmdir('d')", [["rmdir", "d"]]),
        ("from pathlib import Path; Path('a').unlink()", [["rm", "a"]]),
        ("import pathlib; pathlib.Path('d').rmdir()", [["rmdir", "d"]]),
        ("p.unlink(missing_ok=True)", [["rm", None]]),
        ("import os; os.system('git reset --hard')", [("sh", "git reset --hard")]),
        ("__import__('os').system('git reset --hard')", [("sh", "git reset --hard")]),
        ("import subprocess; subprocess.run(['git', 'clean', '-fd'])", [["git", "clean", "-fd"]]),
        ("import subprocess as sp; sp.check_call('rm -rf x', shell=True)", [("sh", "rm -rf x")]),
        ("from subprocess import Popen; Popen(['rm', f])", [["rm", None]]),
        ("import subprocess; subprocess.run(args=['ls'])", [["ls"]]),
        ("import subprocess; subprocess.run(cmd)", [[None]]),
        ("import os; os.system(f'rm -rf {d}')", [("sh", "rm -rf $PY_EXPR")]),
        ("import os; os.system('rm -rf ' + d)", [("sh", "rm -rf $PY_EXPR")]),
        ("import os; os.execvp('git', ['git', 'push', '-f'])", [["git", "push", "-f"]]),
        ("print(1 + 1)", []),
        ("import os; print(os.getcwd())", []),
    ],
)
def test_python_code_is_read_with_ast(code, expected):
    assert actions("python", code) == expected


def test_unparsable_python_falls_back_to_patterns():
    code = "import os\nos.system('rm -rf x')\nif True print(1)\nshutil.rmtree('b')"
    assert actions("python", code) == [("sh", "rm -rf x"), ["rm", "-rf", "b"]]


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        ("node", "require('child_process').execSync('git clean -fdx')", [("sh", "git clean -fdx")]),
        (
            "node",
            "const {execSync} = require('child_process'); execSync('rm -rf x')",
            [("sh", "rm -rf x")],
        ),
        ("node", "child_process.exec(`rm -rf ${d}`)", [("sh", "rm -rf ${d}")]),
        ("node", "spawnSync('git', ['push', '-f'])", [["git", "push", "-f"]]),
        ("node", "require('fs').rmSync('dist', {recursive: true})", [["rm", "-rf", "dist"]]),
        ("node", "fs.rmdirSync('d', {recursive: true})", [["rm", "-rf", "d"]]),
        ("node", "rimraf.sync('build')", [["rm", "-rf", "build"]]),
        ("node", "fs.unlinkSync('a.txt')", [["rm", "a.txt"]]),
        ("node", "fs.promises.rm(dir, {recursive: true})", [["rm", "-rf", None]]),
        ("node", "/ab/.exec(s); console.log(1)", []),
        ("perl", "unlink 'a.txt'; system('rm -rf x')", [["rm", "a.txt"], ("sh", "rm -rf x")]),
        (
            "perl",
            "my $o = `git status`; qx(git clean -fd)",
            [("sh", "git status"), ("sh", "git clean -fd")],
        ),
        ("perl", "use File::Path; rmtree('build')", [["rm", "-rf", "build"]]),
        ("perl", "system('git', 'push', '-f')", [["git", "push", "-f"]]),
        ("perl", "unlink $f", [["rm", None]]),
        ("perl", "s/a/b/g", []),
        ("ruby", "FileUtils.rm_rf('tmp')", [["rm", "-rf", "tmp"]]),
        ("ruby", "File.delete('a')", [["rm", "a"]]),
        ("ruby", 'system("rm -rf #{d}")', [("sh", "rm -rf $RUBY_EXPR")]),
        ("ruby", "%x(git reset --hard)", [("sh", "git reset --hard")]),
        ("ruby", "puts `ls`", [("sh", "ls")]),
        (
            "php",
            "shell_exec('rm -rf /tmp/x'); unlink('y');",
            [("sh", "rm -rf /tmp/x"), ["rm", "y"]],
        ),
        ("php", "echo `whoami`;", [("sh", "whoami")]),
    ],
)
def test_other_languages_are_scanned_with_patterns(language, code, expected):
    assert actions(language, code) == expected


def test_non_literal_code_is_an_unknown_action():
    found = inline_code(parse('python -c "$CODE"').root.words)  # type: ignore[union-attr]
    assert found is not None
    assert found.code is None
    assert found.actions[0].argv[0].literal() is None


def test_walk_turns_inline_findings_into_degraded_invocations():
    result = parse(
        """python3 -c "import shutil, os; shutil.rmtree('build'); os.system('git push -f')\""""
    )
    found = walk(result)
    assert [inv.literals() for inv in found] == [
        ["python3", "-c", "import shutil, os; shutil.rmtree('build'); os.system('git push -f')"],
        ["rm", "-rf", "build"],
        ["git", "push", "-f"],
    ]
    assert all(inv.degraded for inv in found)
    assert found[1].via == ("python3 -c",)
    assert found[2].via == ("python3 -c",)
    assert is_degraded(result, found)


def test_harmless_inline_code_has_no_findings_but_is_degraded():
    result = parse("python -c 'print(1+1)'")
    found = walk(result)
    assert [inv.name for inv in found] == ["python"]
    assert found[0].degraded
    assert is_degraded(result, found)


def test_inline_code_behind_wrappers_and_heredocs_is_scanned():
    found = walk(parse("uv run python - <<'EOF'\nimport os\nos.remove('db.sqlite3')\nEOF"))
    assert found[-1].literals() == ["rm", "db.sqlite3"]
    assert found[-1].via == ("uv run", "python <<")


def test_inline_shell_out_is_walked_through_its_own_wrappers():
    found = walk(parse("""node -e "require('child_process').execSync('sudo rm -rf /opt/x')\""""))
    assert found[-1].literals() == ["rm", "-rf", "/opt/x"]
    assert found[-1].via == ("node -e", "sudo")


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("open('a.txt', 'w').write('x')", [("sh", ": > 'a.txt'")]),
        ("open('a.txt', mode='a')", [("sh", ": >> 'a.txt'")]),
        ("open(p, 'wb')", [("sh", ': > "$PY_EXPR"')]),
        ("open(p, m)", [("sh", ': > "$PY_EXPR"')]),
        ("open('a.txt').read()", []),
        ("import io; io.open('a', 'x')", [("sh", ": > 'a'")]),
        ("import os; os.open('a', os.O_WRONLY | os.O_TRUNC)", [("sh", ": > 'a'")]),
        ("import os; os.open('a', os.O_RDONLY)", []),
        ("from pathlib import Path; Path('a.py').write_text('')", [("sh", ": > 'a.py'")]),
        ("from pathlib import Path; p = Path('a'); p.write_bytes(b'')", [("sh", ": > 'a'")]),
        ("from pathlib import Path; (Path('a') / 'b').unlink()", [["rm", "a/b"]]),
        ("from pathlib import Path; Path('a').open('w')", [("sh", ": > 'a'")]),
        ("from pathlib import Path; Path('a').rename('b')", [["mv", "a", "b"]]),
        ("'a-b'.replace('-', '_')", []),
        ("import shutil; shutil.move('a', 'b')", [["mv", "a", "b"]]),
        ("import shutil; shutil.copy('a', 'b')", [["cp", "a", "b"]]),
        ("import shutil; shutil.copytree('a', 'b')", [["cp", "-r", "a", "b"]]),
        ("import os; os.replace('a', 'b')", [["mv", "a", "b"]]),
        ("import os; os.symlink('/dev/null', 'h')", [["ln", "-sf", "/dev/null", "h"]]),
        ("import os; os.chmod('h', 0o644)", [["chmod", "644", "h"]]),
        ("import os; os.truncate('a', 0)", [("sh", ": > 'a'")]),
        ("import os, signal; os.kill(pid, signal.SIGKILL)", [["kill", None]]),
        ("import os; r = os.remove; r('a')", [["rm", "a"]]),
        ("import os; list(map(os.remove, files))", [["rm", None]]),
        ("from os import *; system('git status')", [("sh", "git status")]),
        ("from os import *; remove('a')", [["rm", "a"]]),
        ("getattr(__import__('os'), 'system')('ls')", [("sh", "ls")]),
        ("import os; os.__dict__['remove']('a')", [["rm", "a"]]),
        ("vars(__import__('shutil'))['rmtree']('src')", [["rm", "-rf", "src"]]),
        ("import sys; sys.modules['os'].system('ls')", [("sh", "ls")]),
        ("m = __import__('os'); m.unlink('a')", [["rm", "a"]]),
        ("import importlib; importlib.import_module('shutil').rmtree('x')", [["rm", "-rf", "x"]]),
        ("exec('import os; os.remove(\"a\")')", [["rm", "a"]]),
        ("exec(compile('import os; os.remove(\"a\")', 'f', 'exec'))", [["rm", "a"]]),
        (
            "import base64; exec(base64.b64decode('aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2xzJyk='))",
            [("sh", "ls")],
        ),
        ("import pexpect; pexpect.spawn('interlock approve 3')", [("sh", "interlock approve 3")]),
        ("import os; os.posix_spawn('/bin/rm', ['rm', 'a'], {})", [["rm", "a"]]),
    ],
)
def test_python_writes_deletes_and_runs_are_found_however_reached(code, expected):
    assert actions("python", code) == expected


@pytest.mark.parametrize(
    "code",
    [
        "exec(x)",
        "eval(input())",
        "exec(open('script.py').read())",
        "__import__(name).system('ls')",
        "getattr(__import__('os'), name)('ls')",
        "import os; getattr(os, 'sys' + 'tem')('ls')",
        "globals()[name]('x')",
        "import os; os.__dict__[n]('a')",
        "import sys; sys.modules[name]",
        "import ctypes; ctypes.CDLL(None).system(b'ls')",
        "import runpy; runpy.run_path('x.py')",
        "import os; callbacks = [os.system]",
    ],
)
def test_python_code_built_at_run_time_is_unknown(code):
    assert [None] in actions("python", code)


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        ("node", "require('fs').writeFileSync('a', 'x')", [("sh", ": > 'a'")]),
        ("node", "fs.appendFileSync('a', 'x')", [("sh", ": >> 'a'")]),
        ("node", "fs.renameSync('a', 'b')", [["mv", "a", "b"]]),
        ("node", "fs.copyFileSync('a', 'b')", [["cp", "a", "b"]]),
        ("node", "fs.chmodSync('h', 0o644)", [["chmod", "644", "h"]]),
        ("node", "const x = require('child_process'); x.exec('ls')", [("sh", "ls")]),
        ("node", "const {execSync: run} = require('child_process'); run('ls')", [("sh", "ls")]),
        ("node", "import {exec as run} from 'child_process'; run('ls')", [("sh", "ls")]),
        ("node", "Bun.$`git status`", [("sh", "git status")]),
        ("node", "eval('1 + 1')", []),
        ("node", "eval(process.argv[1])", [[None]]),
        ("node", "new Function(code)()", [[None]]),
        ("node", "require(name)", [[None]]),
        ("node", "process.binding('spawn_sync')", [[None]]),
        ("node", "console.log(require('fs').readFileSync('a', 'utf8'))", []),
        ("perl", "open(my $f, '>', 'a')", [("sh", ": > 'a'")]),
        ("perl", "open(F, '>>a')", [("sh", ": >> 'a'")]),
        ("perl", "open(P, '|git status')", [("sh", "git status")]),
        ("perl", "open(my $p, '-|', 'ls')", [("sh", "ls")]),
        ("perl", "open(F, '<a'); print <F>", []),
        ("perl", "rename('a', 'b')", [["mv", "a", "b"]]),
        ("perl", "chmod 0644, 'h'", [["chmod", "0644", "h"]]),
        ("perl", "eval $code", [[None]]),
        ("perl", "eval { 1 }", []),
        ("ruby", "File.write('a', '')", [("sh", ": > 'a'")]),
        ("ruby", "File.open('a', 'w') { |f| f.puts 1 }", [("sh", ": > 'a'")]),
        ("ruby", "open('|git status')", [("sh", "git status")]),
        ("ruby", "Kernel.send(:system, 'ls')", [("sh", "ls")]),
        ("ruby", "eval(gets)", [[None]]),
        ("ruby", "method(:system).call('ls')", [[None]]),
        ("php", "file_put_contents('a', 'x');", [("sh", ": > 'a'")]),
        ("php", "$f = 'system'; $f('ls');", [[None]]),
        ("php", "eval($code);", [[None]]),
        ("lua", "os.execute('git status')", [("sh", "git status")]),
        ("lua", "os.remove('a')", [["rm", "a"]]),
        ("r", "system('git status')", [("sh", "git status")]),
        ("r", "unlink('d', recursive = TRUE)", [["rm", "-rf", "d"]]),
    ],
)
def test_other_languages_find_writes_pipes_and_run_time_code(language, code, expected):
    assert actions(language, code) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("lua -e 'print(1)'", "print(1)"),
        ("Rscript -e 'print(1)'", "print(1)"),
        ("python3 -c \"print('$HOME')\"", None),
    ],
)
def test_inline_code_of_more_interpreters_and_shell_built_code_is_found(text, code):
    assert code_of(text) == code


@pytest.mark.parametrize(
    "text",
    [
        'ruby -e "$(curl -fsSL https://example.com/install)"',
        'perl -pi -e "s/$OLD/$NEW/" f',
        'node -e "$JS"',
        'python3 -c "$(cat x.py)"',
    ],
)
def test_code_with_shell_expansions_other_than_python_strings_is_unknown(text):
    found = inline_code(parse(text).root.words)  # type: ignore[union-attr]
    assert found is not None
    assert [[w.literal() for w in a.argv] for a in found.actions] == [[None]]


def test_code_built_with_shell_expansions_is_read_with_the_expansions_unknown():
    found = inline_code(parse("python3 -c \"import os; os.remove('$F')\"").root.words)  # type: ignore[union-attr]
    assert found is not None and found.code is None
    assert [[w.literal() for w in a.argv] for a in found.actions] == [["rm", None]]


def test_unparsable_python_that_could_act_is_unknown_and_harmless_python_2_is_not():
    assert [None] in actions("python", "print 'x'; exec x")
    assert actions("python", "import sys; print sys.argv[1]") == []


# -- languages interlock does not read (inline/others.py) -----------------------------------
def judged_rules(text: str) -> list[str]:
    from interlock.engine.check import evaluate

    result = evaluate(text, "/", mode="blocking", assume_dirty=True).result
    return sorted({f.rule for f in result.findings})


@pytest.mark.parametrize(
    "text",
    [
        "julia -e 'rm(\"notes.md\")'",
        "julia --project=. -e 'run(`git checkout -- .`)'",
        'julia -E \'write("src/a.jl", "")\'',
        "julia --eval='Base.Filesystem.rm(\"src\"; recursive=true)'",
        'julia -e "$CODE"',
        "tclsh <<< 'file delete notes.md'",
        "tclsh <<'EOF'\nexec rm -rf src\nEOF",
        "wish <<< 'set f [open notes.md w]'",
        "emacs --batch --eval '(delete-file \"notes.md\")'",
        "emacs --batch -l x.el --eval '(shell-command \"git clean -fdx\")'",
        "emacs -Q --batch a.el --eval='(progn (erase-buffer) (save-buffer))'",
        "groovy -e 'new File(\"notes.md\").delete()'",
        "groovy -e '\"git reset --hard\".execute()'",
        "scala -e 'new java.io.File(\"notes.md\").delete'",
        "scala -e 'import sys.process._; \"rm -rf src\".!'",
        "kotlin -e 'java.io.File(\"src\").deleteRecursively()'",
        "kotlinc -e 'java.nio.file.Files.delete(java.nio.file.Path.of(\"a\"))'",
        "guile -c '(delete-file \"notes.md\")'",
        "guile <<< '(system \"rm -rf src\")'",
        "racket -e '(delete-directory/files \"src\")'",
        "racket -e '(system \"git stash clear\")'",
        "sbcl --eval '(delete-file \"notes.md\")' --quit",
        "sbcl --eval '(uiop:run-program \"rm -rf src\")'",
        "clisp -x '(delete-file \"notes.md\")'",
        "clojure -e '(clojure.java.io/delete-file \"notes.md\")'",
        'bb -e \'(clojure.java.shell/sh "rm" "notes.md")\'',
        'bb --eval \'(spit "src/a.clj" "")\'',
        "elixir -e 'File.rm_rf!(\"src\")'",
        'elixir --eval \'System.cmd("git", ["clean", "-fdx"])\'',
        "erl -eval 'file:delete(\"notes.md\"), halt().' -noshell",
        "erl -noshell -eval 'os:cmd(\"rm -rf src\"), halt().'",
    ],
)
def test_code_that_can_touch_files_in_a_language_interlock_does_not_read_is_unknown(text):
    assert "parse.unknown-code" in judged_rules(text)


@pytest.mark.parametrize(
    "text",
    [
        "julia -e 'using Pkg; Pkg.test()'",
        "julia --project=. -e 'using Pkg; Pkg.instantiate(); Pkg.test(coverage=true)'",
        "julia -e 'include(\"test/runtests.jl\")'",  # the project's own code, as a script is
        "julia -e 'println(open(\"x.txt\") do f; read(f, String); end)'",
        "julia test/runtests.jl",
        "julia -t 4 -e 'println(Threads.nthreads())'",
        "tclsh <<< 'puts [expr 1+1]'",
        "tclsh build.tcl",
        "emacs --batch -l ert -l tests.el -f ert-run-tests-batch-and-exit",
        'emacs -Q --batch --eval "(progn (require \'package) (package-initialize))"',
        "groovy -e 'println 1'",
        "scala -e 'println(1 + 1)'",
        "guile -c '(display (+ 1 2))'",
        "racket -e '(displayln 3)'",
        "sbcl --non-interactive --eval '(print 1)'",
        "clojure -e '(println (+ 1 2))'",
        "elixir -e 'IO.puts System.version'",
        "erl -noshell -eval 'io:format(\"~p~n\", [1]), halt().'",
    ],
)
def test_code_that_names_no_way_to_touch_files_is_judged_harmless(text):
    assert judged_rules(text) == []


@pytest.mark.parametrize(
    ("text", "via", "code"),
    [
        ("julia -e 'x = 1'", "julia -e", "x = 1"),
        ("julia --eval='x = 1'", "julia --eval", "x = 1"),
        ("julia1.10 -e a -e b", "julia1.10 -e", "a\nb"),
        ("emacs --batch -l x.el --eval '(x)'", "emacs --eval", "(x)"),
        ("tclsh <<< 'puts 1'", "tclsh <<", "puts 1"),
        ("tclsh - <<< 'puts 1'", "tclsh <<", "puts 1"),
        ('julia -e "$X"', "julia -e", None),
    ],
)
def test_the_code_of_an_unread_language_is_found_by_its_options(text, via, code):
    from interlock.engine.inline.others import other_code

    root = parse(text).root
    assert isinstance(root, SimpleCommand)
    stdin = next((r.target.literal() for r in root.redirects if r.op == "<<<" and r.target), None)
    name = root.words[0].literal() or ""
    found = other_code(name, root.words, stdin)
    assert found is not None and (found.via, found.code) == (via, code)


@pytest.mark.parametrize(
    "text",
    [
        "julia x.jl",
        "tclsh x.tcl <<< 'puts 1'",  # reads the file, not stdin
        "emacs x.el",
        "groovy -e",  # no code after the option
        "ocaml -e 'x'",  # not an interpreter listed here
    ],
)
def test_an_unread_language_running_no_inline_code_is_not_inline_code(text):
    from interlock.engine.inline.others import other_code

    root = parse(text).root
    assert isinstance(root, SimpleCommand)
    stdin = next((r.target.literal() for r in root.redirects if r.op == "<<<" and r.target), None)
    assert other_code(root.words[0].literal() or "", root.words, stdin) is None


def test_the_interpreters_that_import_others_are_the_ones_it_reads():
    from interlock.engine.inline.interpreters import OTHER_NAMES
    from interlock.engine.inline.others import _OTHERS

    assert OTHER_NAMES == set(_OTHERS)
