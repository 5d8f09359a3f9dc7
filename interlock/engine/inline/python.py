"""Python inline code read with `ast`: every file write, delete and subprocess, however reached.

Names are resolved through imports (`import shutil as sh`, `from os import *`), assignments
(`r = os.remove`, `m = __import__('os')`, `p = Path('x')`), `getattr(MOD, 'name')`,
`MOD.__dict__['name']` and `vars(MOD)['name']`. What is found becomes shell terms the rules
already judge: a shell-out is a command line, `os.remove(P)` is `rm P`, `open(P, 'w')` is
`: > P`, `shutil.move(A, B)` is `mv A B`, `os.kill(PID, SIG)` is `kill PID`.
A dangerous function passed as a value (`map(os.remove, files)`) acts on unknown paths.
Code built at run time (`exec(x)`, `eval(x)`, `__import__(name)`, `getattr(os, name)`,
`globals()[name]`, ctypes) is unknown code: an action whose command is not a literal.
`exec`/`eval` of a literal (or base64-encoded literal) string is read as code too.
"""

from __future__ import annotations

import ast
import base64
import binascii

from interlock.shell.model import Word

Found = list[tuple[tuple[Word, ...], str | None]]
EXPR = "$PY_EXPR"  # stands for a Python value in a shell command line built from code
DYNAMIC = Word("<python code built at run time>", None)
_MAX_DEPTH = 3

_SHELL = frozenset(
    {
        "os.system",
        "os.popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
        "commands.getoutput",
        "pty.spawn",
        "pexpect.spawn",
        "pexpect.run",
        "platform.popen",
    }
)
_PROCESS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
    }
)
_EXEC_LIST = {"os.execv": 1, "os.execvp": 1, "os.execve": 1, "os.execvpe": 1, "os.posix_spawn": 1}
_EXEC_LIST |= {"os.posix_spawnp": 1, "os.spawnv": 2, "os.spawnvp": 2, "os.spawnve": 2}
_EXEC_ARGS = {"os.execl": 1, "os.execlp": 1, "os.execle": 1, "os.execlpe": 1, "os.spawnl": 2}
_EXEC_ARGS |= {"os.spawnlp": 2, "os.spawnle": 2, "asyncio.create_subprocess_exec": 0}
_DELETE = {
    "shutil.rmtree": ("rm", "-rf"),
    "os.remove": ("rm",),
    "os.unlink": ("rm",),
    "os.rmdir": ("rmdir",),
    "os.removedirs": ("rmdir", "-p"),
    "send2trash.send2trash": ("rm",),
}
_TWO_PATHS = {
    "shutil.copy": ("cp",),
    "shutil.copy2": ("cp",),
    "shutil.copyfile": ("cp",),
    "shutil.copytree": ("cp", "-r"),
    "shutil.move": ("mv",),
    "os.rename": ("mv",),
    "os.renames": ("mv",),
    "os.replace": ("mv",),
    "os.symlink": ("ln", "-sf"),
    "os.link": ("ln", "-f"),
}
_OPENERS = frozenset({"open", "io.open", "codecs.open", "builtins.open", "os.fdopen"})
_DYNAMIC_CALLS = frozenset(
    {
        "exec",
        "eval",
        "compile",
        "builtins.exec",
        "builtins.eval",
        "runpy.run_path",
        "runpy.run_module",
        "ctypes.CDLL",
        "ctypes.cdll.LoadLibrary",
        "ctypes.PyDLL",
        "cffi.FFI",
        "code.interact",
    }
)
_IMPORTERS = frozenset({"__import__", "importlib.import_module", "builtins.__import__"})
# Modules whose attributes, reached dynamically, may be any of the functions above.
_RISKY = frozenset(
    "os posix nt subprocess shutil pathlib builtins pty io sys importlib ctypes socket".split()
)
_PATH_TYPES = frozenset({"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "Path"})
_PATH_ONLY = {"unlink": ("rm",), "rmdir": ("rmdir",)}
_PATH_WRITES = frozenset({"write_text", "write_bytes"})
_STAR_NAMES = frozenset(_SHELL | _PROCESS | set(_DELETE) | set(_TWO_PATHS) | set(_EXEC_LIST))


def python_actions(code: str, depth: int = 0) -> Found | None:
    """What the code runs, writes or deletes; None when it is not valid Python."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    scanner = _Scanner(tree, depth)
    try:
        scanner.scan(tree)
    except RecursionError:
        return [((DYNAMIC,), None)]
    return scanner.found


def _word(expr: ast.expr) -> Word:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return Word(expr.value, None if "$" in expr.value else expr.value)
    return Word(ast.unparse(expr), None)


def _words(*names: str) -> tuple[Word, ...]:
    return tuple(Word(n, n) for n in names)


def _template(expr: ast.expr) -> str:
    """A shell command line built from a Python string expression, unknown parts as $PY_EXPR."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        return "".join(
            _template(v) if not isinstance(v, ast.FormattedValue) else EXPR for v in expr.values
        )
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _template(expr.left) + _template(expr.right)
    return EXPR


def _is_text(expr: ast.expr) -> bool:
    return isinstance(expr, (ast.JoinedStr, ast.BinOp)) or (
        isinstance(expr, ast.Constant) and isinstance(expr.value, str)
    )


def _argv(expr: ast.expr) -> tuple[Word, ...]:
    if isinstance(expr, (ast.List, ast.Tuple)):
        return tuple(_word(e) for e in expr.elts)
    return (_word(expr),)


def _arg(call: ast.Call, index: int, *keywords: str) -> ast.expr | None:
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg in keywords), None)


def _is_interlock(dotted: str) -> bool:
    return dotted == "interlock" or dotted.startswith("interlock.")


def _constant_text(expr: ast.expr | None) -> str | None:
    """A literal string, also one decoded from `base64.b64decode('...')` / `bytes.fromhex`."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (str, bytes)):
        value = expr.value
        return value if isinstance(value, str) else value.decode(errors="replace")
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr == "decode" and not expr.args:
            return _constant_text(expr.func.value)
        if expr.func.attr in ("b64decode", "fromhex") and expr.args:
            raw = _constant_text(expr.args[0])
            if raw is None:
                return None
            try:
                data = (
                    base64.b64decode(raw) if expr.func.attr == "b64decode" else bytes.fromhex(raw)
                )
            except (binascii.Error, ValueError):
                return None
            return data.decode(errors="replace")
    return None


class _Scanner:
    """One pass over the tree with the names it binds (module docstring)."""

    def __init__(self, tree: ast.AST, depth: int) -> None:
        self.depth = depth
        self.found: Found = []
        self.aliases: dict[str, str] = {}
        self.paths: dict[str, ast.expr] = {}  # names bound to Path(...) -> the path argument
        self.stars: list[str] = []
        self.bound: set[int] = set()  # values of assignments that only bind a name
        self.drives_interlock = False  # interlock's own code called without an import line
        self._bind(tree)

    # -- names ----------------------------------------------------------------------------
    def _bind(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    self.aliases[alias.asname or top] = alias.name if alias.asname else top
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if alias.name == "*":
                        self.stars.append(node.module)
                    else:
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    self._assign(target.id, node.value)
            elif isinstance(node, ast.NamedExpr):
                self._assign(node.target.id, node.value)

    def _assign(self, name: str, value: ast.expr) -> None:
        dotted = self.dotted(value)
        if dotted is not None:
            self.aliases[name] = dotted
            self.bound.add(id(value))
        elif isinstance(value, ast.Call) and self.dotted(value.func) in _PATH_TYPES and value.args:
            self.paths[name] = value.args[0]

    def dotted(self, expr: ast.expr) -> str | None:
        """`sh.rmtree` -> `shutil.rmtree`; getattr/__dict__/__import__ with literals resolved."""
        if isinstance(expr, ast.Name):
            if expr.id in self.aliases:
                return self.aliases[expr.id]
            for module in self.stars:
                if f"{module}.{expr.id}" in _STAR_NAMES:
                    return f"{module}.{expr.id}"
            return expr.id
        if isinstance(expr, ast.Attribute):
            base = self.dotted(expr.value)
            return None if base is None else f"{base}.{expr.attr}"
        if isinstance(expr, ast.Call):
            func = self.dotted(expr.func)
            if func in _IMPORTERS and expr.args:
                return _constant_text(expr.args[0])
            if func == "getattr" and len(expr.args) >= 2:
                base, attr = self.dotted(expr.args[0]), _constant_text(expr.args[1])
                return None if base is None or attr is None else f"{base}.{attr}"
        if isinstance(expr, ast.Subscript):
            key = _constant_text(expr.slice)
            holder = expr.value
            if key is not None and isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
                base = self.dotted(holder.value)
                return None if base is None else f"{base}.{key}"
            if (
                key is not None
                and isinstance(holder, ast.Call)
                and self.dotted(holder.func) == "vars"
            ):
                base = self.dotted(holder.args[0]) if holder.args else None
                return None if base is None else f"{base}.{key}"
            if key is not None and self.dotted(holder) == "sys.modules":
                return key
        return None

    # -- the pass ---------------------------------------------------------------------------
    def scan(self, tree: ast.AST) -> None:
        called: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called.add(id(node.func))
                self.call(node)
            elif isinstance(node, ast.Subscript):
                self.subscript(node)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in called:
                if id(node) not in self.bound:
                    self.reference(node)
        if self.drives_interlock or any(_is_interlock(v) for v in self.aliases.values()):
            # interlock's own code driven from inside the run: its words are its commands
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    self.add(_words("interlock", node.value))

    def add(self, argv: tuple[Word, ...] = (), script: str | None = None) -> None:
        self.found.append((argv, script))

    def call(self, call: ast.Call) -> None:
        name = self.dotted(call.func)
        if name is None:
            if isinstance(call.func, ast.Attribute):
                self._method(call.func, call)  # Path('a').unlink(), open(p).write(...)
            return
        # `__import__('interlock.cli').cli.main(...)`, `importlib.import_module('interlock')`
        imported = _constant_text(call.args[0]) if name in _IMPORTERS and call.args else None
        self.drives_interlock |= _is_interlock(name) or _is_interlock(imported or "")
        if self._runs(name, call) or self._changes(name, call):
            return
        if name in _DYNAMIC_CALLS:
            self._dynamic(name, call)
        elif name in _IMPORTERS or name == "getattr":
            self._dynamic_lookup(name, call)
        elif isinstance(call.func, ast.Attribute):
            self._method(call.func, call)

    def _runs(self, name: str, call: ast.Call) -> bool:
        if name in _SHELL or name in _PROCESS:
            arg = _arg(call, 0, "args", "cmd", "command")
            if arg is not None and _is_text(arg):
                self.add(script=_template(arg))
            elif arg is not None:
                self.add(_argv(arg))
            return True
        if name in _EXEC_LIST:
            arg = _arg(call, _EXEC_LIST[name])
            self.add(_argv(arg) if arg is not None else (DYNAMIC,))
            return True
        if name in _EXEC_ARGS:
            self.add(tuple(_word(a) for a in call.args[_EXEC_ARGS[name] :]) or (DYNAMIC,))
            return True
        return False

    def _changes(self, name: str, call: ast.Call) -> bool:
        if name in _DELETE:
            target = _arg(call, 0, "path", "paths")
            if target is not None:
                self.add(_words(*_DELETE[name]) + (_word(target),))
            return True
        if name in _TWO_PATHS:
            src, dst = _arg(call, 0, "src"), _arg(call, 1, "dst")
            if src is not None and dst is not None:
                self.add(_words(*_TWO_PATHS[name]) + (_word(src), _word(dst)))
            return True
        if name in _OPENERS or name == "os.open":
            self._open(name, call)
            return True
        if name in ("os.truncate", "os.chmod", "os.chown", "os.kill", "os.killpg", "os.lchmod"):
            self._os_call(name, call)
            return True
        return False

    def _open(self, name: str, call: ast.Call) -> None:
        target = _arg(call, 0, "file", "path", "filename")
        if target is None or name == "os.fdopen":
            return
        mode = _arg(call, 1, "flags" if name == "os.open" else "mode")
        if name == "os.open":
            text = ast.unparse(mode) if mode is not None else ""
            writes = not text or any(f in text for f in ("WRONLY", "RDWR", "TRUNC", "CREAT"))
            appends = "APPEND" in text and "TRUNC" not in text
        else:
            value = _constant_text(mode) if mode is not None else "r"
            writes = value is None or any(c in value for c in "wax+")
            appends = value is not None and ("a" in value or "r+" in value)
        if writes:
            self._write(_word(target), append=appends)

    def _write(self, target: Word, append: bool = False) -> None:
        quoted = _shell_word(target)
        self.add(script=f": {'>>' if append else '>'} {quoted}")

    def _os_call(self, name: str, call: ast.Call) -> None:
        first = _arg(call, 0, "path", "pid")
        if first is None:
            return
        if name == "os.truncate":
            self._write(_word(first))
        elif name in ("os.kill", "os.killpg"):
            self.add(_words("kill") + (_word(first),))
        elif name in ("os.chmod", "os.lchmod"):
            mode = _arg(call, 1, "mode")
            octal = (
                oct(mode.value)[2:]
                if isinstance(mode, ast.Constant) and isinstance(mode.value, int)
                else None
            )
            self.add(_words("chmod") + (Word(octal or EXPR, octal), _word(first)))
        else:
            self.add(_words("chown", "x") + (_word(first),))

    def _method(self, func: ast.Attribute, call: ast.Call) -> None:
        receiver = func.value
        path = self._path_of(receiver)
        method = func.attr
        if method in _PATH_ONLY:
            self.add(_words(*_PATH_ONLY[method]) + (path or _word(receiver),))
        elif method in _PATH_WRITES:
            self._write(path or Word(ast.unparse(receiver), None))
        elif method in ("rename", "replace", "symlink_to", "hardlink_to") and path is not None:
            other = _arg(call, 0, "target")
            if other is not None and method in ("rename", "replace"):
                self.add(_words("mv") + (path, _word(other)))
            elif other is not None:
                self.add(_words("ln", "-sf") + (_word(other), path))
        elif method == "open" and path is not None:
            mode = _constant_text(_arg(call, 0, "mode")) if call.args or call.keywords else "r"
            if mode is None or any(c in mode for c in "wax+"):
                self._write(path, append=mode is not None and "a" in mode)

    def _path_of(self, expr: ast.expr) -> Word | None:
        """The path a `Path(...)` expression (or a name bound to one) stands for."""
        if isinstance(expr, ast.Name) and expr.id in self.paths:
            return _word(self.paths[expr.id])
        if isinstance(expr, ast.Call) and self.dotted(expr.func) in _PATH_TYPES:
            return _word(expr.args[0]) if expr.args else Word(".", ".")
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
            base = self._path_of(expr.left)
            if base is not None:
                right = _word(expr.right)
                if base.literal() is not None and right.literal() is not None:
                    joined = f"{base.literal()}/{right.literal()}"
                    return Word(joined, joined)
                return Word(f"{base.text}/{right.text}", None)
        return None

    def _dynamic(self, name: str, call: ast.Call) -> None:
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Call) and self.dotted(first.func) == "compile" and first.args:
            if _constant_text(first.args[0]) is not None:
                return  # exec(compile('...')): the compile call is read itself
        source = _constant_text(first) if first is not None else None
        if name in ("exec", "eval", "builtins.exec", "builtins.eval", "compile") and source:
            inner = python_actions(source, self.depth + 1) if self.depth < _MAX_DEPTH else None
            if inner is not None:
                self.found.extend(inner)
                return
        self.add((DYNAMIC,))

    def _dynamic_lookup(self, name: str, call: ast.Call) -> None:
        if name in _IMPORTERS and call.args and _constant_text(call.args[0]) is None:
            self.add((DYNAMIC,))
        elif name == "getattr" and len(call.args) >= 2 and _constant_text(call.args[1]) is None:
            base = self.dotted(call.args[0])
            if base is None or base.split(".")[0] in _RISKY:
                self.add((DYNAMIC,))

    def subscript(self, node: ast.Subscript) -> None:
        """`globals()[name]`, `os.__dict__[name]`, `sys.modules[name]` with a run-time name."""
        if _constant_text(node.slice) is not None:
            return
        holder = node.value
        holder_name = self.dotted(holder.func) if isinstance(holder, ast.Call) else None
        dict_of = isinstance(holder, ast.Attribute) and holder.attr == "__dict__"
        if holder_name in ("globals", "locals", "vars") or dict_of:
            self.add((DYNAMIC,))
        elif self.dotted(holder) in ("sys.modules", "__builtins__", "builtins.__dict__"):
            self.add((DYNAMIC,))

    def reference(self, node: ast.Name | ast.Attribute) -> None:
        """A dangerous function used as a value (`map(os.remove, paths)`): unknown operands."""
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            return
        name = self.dotted(node)
        if name in _DELETE:
            self.add(_words(*_DELETE[name]) + (Word(EXPR, None),))
        elif name in _SHELL or name in _PROCESS:
            self.add((DYNAMIC,))


def _shell_word(word: Word) -> str:
    value = word.literal()
    if value is not None:
        return "'" + value.replace("'", "'\\''") + "'"
    return f'"{EXPR}"'
