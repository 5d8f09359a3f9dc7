"""Python inline code read with `ast`: shell-outs and deletions, robust to import aliases."""

from __future__ import annotations

import ast

from interlock.shell.model import Word

Found = list[tuple[tuple[Word, ...], str | None]]

_SHELL = frozenset(
    {
        "os.system",
        "os.popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "asyncio.create_subprocess_shell",
        "commands.getoutput",
        "pty.spawn",
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
_EXEC_LIST = frozenset({"os.execv", "os.execvp", "os.execve", "os.execvpe"})
_EXEC_ARGS = frozenset(
    {"os.execl", "os.execlp", "os.execle", "os.execlpe", "asyncio.create_subprocess_exec"}
)
_DELETE = {
    "shutil.rmtree": ("rm", "-rf"),
    "os.remove": ("rm",),
    "os.unlink": ("rm",),
    "os.rmdir": ("rmdir",),
    "os.removedirs": ("rmdir", "-p"),
}
_PATH_TYPES = frozenset({"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "Path"})
_PATH_METHODS = {"unlink": ("rm",), "rmdir": ("rmdir",)}
EXPR = "$PY_EXPR"  # stands for a Python value in a shell command line built from code


def python_actions(code: str) -> Found | None:
    """What the code runs or deletes; None when it is not valid Python."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    aliases = _aliases(tree)
    found: Found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            _call(node, aliases, found)
    return found


def _aliases(tree: ast.AST) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                aliases[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(expr: ast.expr, aliases: dict[str, str]) -> str | None:
    if isinstance(expr, ast.Name):
        return aliases.get(expr.id, expr.id)
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value, aliases)
        return None if base is None else f"{base}.{expr.attr}"
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "__import__"
        and expr.args
        and isinstance(expr.args[0], ast.Constant)
        and isinstance(expr.args[0].value, str)
    ):
        return expr.args[0].value
    return None


def _first(call: ast.Call, *keywords: str) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg in keywords), None)


def _word(expr: ast.expr) -> Word:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return Word(expr.value, expr.value)
    return Word(ast.unparse(expr), None)


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


def _argv(expr: ast.expr) -> tuple[Word, ...]:
    if isinstance(expr, (ast.List, ast.Tuple)):
        return tuple(_word(e) for e in expr.elts)
    return (_word(expr),)


def _is_text(expr: ast.expr) -> bool:
    return isinstance(expr, (ast.JoinedStr, ast.BinOp)) or (
        isinstance(expr, ast.Constant) and isinstance(expr.value, str)
    )


def _call(call: ast.Call, aliases: dict[str, str], found: Found) -> None:
    name = _dotted(call.func, aliases)
    if name in _SHELL or name in _PROCESS:
        arg = _first(call, "args", "cmd", "command")
        if arg is None:
            return
        if _is_text(arg):
            found.append(((), _template(arg)))
        else:
            found.append((_argv(arg), None))
    elif name in _EXEC_LIST and len(call.args) >= 2:
        found.append((_argv(call.args[1]), None))
    elif name in _EXEC_ARGS and call.args:
        args = call.args[1:] if name != "asyncio.create_subprocess_exec" else call.args
        found.append((tuple(_word(a) for a in args), None))
    elif name in _DELETE:
        target = _first(call, "path")
        if target is not None:
            found.append((tuple(Word(w, w) for w in _DELETE[name]) + (_word(target),), None))
    elif isinstance(call.func, ast.Attribute) and call.func.attr in _PATH_METHODS:
        _path_method(call.func, aliases, found)


def _path_method(func: ast.Attribute, aliases: dict[str, str], found: Found) -> None:
    receiver = func.value
    target = Word(ast.unparse(receiver), None)
    if isinstance(receiver, ast.Call) and _dotted(receiver.func, aliases) in _PATH_TYPES:
        if receiver.args:
            target = _word(receiver.args[0])
    words = tuple(Word(w, w) for w in _PATH_METHODS[func.attr])
    found.append((words + (target,), None))
