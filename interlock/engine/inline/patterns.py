"""What inline code in node, perl, ruby, php, lua and R does, as patterns (textscan.py reads
them): per language, (regular expression, kind). The expression ends where the call's
arguments begin.

Kinds: `shell` (a command line, or an argv list), `argv` (program then an argument list),
`rm`/`rmrf`/`rmdir` (delete the first argument), `write` (truncate or write the first
argument), `append`, `copy`/`move`/`link` (two paths), `chmod_mode_first`/`chmod_path_first`,
`kill` (the last argument is the pid), `eval` (code in the same language: read when it is a
literal, unknown code otherwise) and `dynamic` (code or a callee chosen at run time: unknown).
"""

from __future__ import annotations

_CALL = r"\s*(?=\()"
_NODE_FS = r"(?:\b(?:fs|fsp|fse|fsExtra|promises)(?:\.promises)?\.|(?<=\))\.)"

PATTERNS: dict[str, list[tuple[str, str]]] = {
    "python": [
        (
            r"\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|"
            r"getoutput|getstatusoutput))" + _CALL,
            "shell",
        ),
        (r"\bshutil\.rmtree" + _CALL, "rmrf"),
        (r"\bos\.(?:remove|unlink)" + _CALL, "rm"),
        (r"\bos\.(?:rmdir|removedirs)" + _CALL, "rmdir"),
        (r"\bshutil\.(?:move|copy|copy2|copyfile)" + _CALL, "copy"),
    ],
    "node": [
        (
            r"(?:\b(?:child_process|childProcess|cp)\.exec(?:Sync)?|(?<=\))\.exec|(?<![.\w])exec|"
            r"\bexecSync)" + _CALL,
            "shell",
        ),
        (r"\b(?:spawn|spawnSync|execFile|execFileSync|fork)" + _CALL, "argv"),
        (r"\bBun\.spawn(?:Sync)?" + _CALL, "shell"),
        (r"\bBun\.\$(?=`)", "template"),
        (r"\bDeno\.(?:run|Command)" + _CALL, "shell"),
        (_NODE_FS + r"(?:rm|rmdir|remove|emptyDir)" + _CALL, "rmrf"),
        (r"\b(?:rmSync|rmdirSync|removeSync|emptyDirSync|rimraf(?:\.sync)?)" + _CALL, "rmrf"),
        (r"\bDeno\.remove" + _CALL, "rmrf"),
        (_NODE_FS + r"unlink" + _CALL, "rm"),
        (r"\bunlinkSync" + _CALL, "rm"),
        (
            _NODE_FS + r"(?:writeFile|writeFileSync|createWriteStream|truncate|truncateSync|"
            r"outputFile|outputFileSync|writeJson|writeJsonSync)" + _CALL,
            "write",
        ),
        (r"\b(?:writeFileSync|Bun\.write|Deno\.writeTextFile|Deno\.writeFile)" + _CALL, "write"),
        (_NODE_FS + r"(?:appendFile|appendFileSync)" + _CALL, "append"),
        (_NODE_FS + r"(?:copyFile|copyFileSync|cp|cpSync|copy|copySync)" + _CALL, "copy"),
        (_NODE_FS + r"(?:rename|renameSync|move|moveSync)" + _CALL, "move"),
        (_NODE_FS + r"(?:symlink|symlinkSync|link|linkSync)" + _CALL, "link"),
        (_NODE_FS + r"(?:chmod|chmodSync)" + _CALL, "chmod_path_first"),
        (r"\bprocess\.kill" + _CALL, "kill_first"),
        (r"(?<![.\w])eval" + _CALL, "eval"),
        (r"\b(?:new\s+)?Function" + _CALL, "dynamic"),
        (
            r"\bvm\.(?:runInThisContext|runInNewContext|runInContext|compileFunction|Script)",
            "dynamic",
        ),
        (r"\brequire\s*\(\s*(?!['\"`][\w.@/][\w./:@-]*['\"`]\s*\))", "dynamic"),
        (r"\bimport\s*\(\s*(?!['\"`][\w.@/][\w./:@-]*['\"`]\s*\))", "dynamic"),
        (r"\bprocess\.(?:binding|_linkedBinding|dlopen)\b", "dynamic"),
        (r"\b(?:child_process|childProcess|cp|globalThis|global)\s*\[", "dynamic"),
    ],
    "perl": [
        (r"\b(?:system|exec)\b", "shell"),
        (r"\bunlink\b", "rm"),
        (r"\b(?:rmtree|remove_tree)\b", "rmrf"),
        (r"\brmdir\b", "rmdir"),
        (r"\bopen\b", "perl_open"),
        (r"\brename\b", "move"),
        (r"\b(?:File::Copy::)?(?:copy|cp)(?=\s*\()", "copy"),
        (r"\b(?:File::Copy::)?(?:move|mv)(?=\s*\()", "move"),
        (r"\bsymlink\b", "link"),
        (r"\btruncate\b", "write"),
        (r"\bchmod\b", "chmod_mode_first"),
        (r"\bkill\b", "kill"),
        (r"\beval\b(?!\s*\{)", "eval"),
        (r"\bdo\s+(?=['\"$])", "dynamic"),
        (r"\brequire\s+(?=\$)", "dynamic"),
        (r"&\s*(?:\{|\$)", "dynamic"),
        (r"\bsyscall\b", "dynamic"),
    ],
    "ruby": [
        (r"(?<![:.\w])(?:system|exec|spawn)\b", "shell"),
        (r"\b(?:IO\.popen|Open3\.\w+|Process\.spawn|Kernel\.(?:system|exec|spawn))\b", "shell"),
        (r"(?<![.\w])open(?=\s*\(?\s*['\"]\|)", "ruby_pipe_open"),
        (
            r"\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)\b",
            "rmrf",
        ),
        (r"\b(?:FileUtils\.(?:rm|rm_f|remove)|File\.(?:delete|unlink))\b", "rm"),
        (r"\b(?:Dir|FileUtils)\.(?:rmdir|delete|unlink)\b", "rmdir"),
        (r"\b(?:File|IO)\.(?:write|binwrite)\b", "write"),
        (r"\b(?:File\.open|File\.new)(?=\s*\(?\s*[^,)]+,\s*['\"][^'\"]*[wa+])", "write"),
        (r"\bFileUtils\.(?:cp|copy|cp_r|install)\b", "copy"),
        (r"\b(?:FileUtils\.(?:mv|move)|File\.rename)\b", "move"),
        (r"\b(?:FileUtils\.ln_sf?|File\.symlink)\b", "link"),
        (r"\b(?:FileUtils|File)\.chmod\b", "chmod_mode_first"),
        (r"\bProcess\.kill\b", "kill"),
        (r"\b(?:eval|instance_eval|class_eval|module_eval)\b", "eval"),
        (r"\.(?:send|public_send|__send__)\b", "ruby_send"),
        (r"\bmethod\s*\(\s*:(?:system|exec|spawn|`)", "dynamic"),
        (r"\b(?:const_get|constantize)\b", "dynamic"),
    ],
    "php": [
        (r"\b(?:shell_exec|system|exec|passthru|popen|proc_open|pcntl_exec)" + _CALL, "shell"),
        (r"\bunlink" + _CALL, "rm"),
        (r"\brmdir" + _CALL, "rmdir"),
        (r"\bfile_put_contents" + _CALL, "write"),
        (r"\bfopen(?=\s*\(\s*[^,)]+,\s*['\"][^'\"]*[waxc+])", "write"),
        (r"\brename" + _CALL, "move"),
        (r"\bcopy" + _CALL, "copy"),
        (r"\bsymlink" + _CALL, "link"),
        (r"\bchmod" + _CALL, "chmod_path_first"),
        (r"\b(?:eval|assert|create_function)" + _CALL, "eval"),
        (r"\bpreg_replace\s*\(\s*['\"](.)[^'\"]*\1[a-zA-Z]*e[a-zA-Z]*['\"]", "dynamic"),
        (r"(?<![\w>:])\$\w+\s*\(", "dynamic"),
        (r"\bcall_user_func(?:_array)?\s*\(\s*\$", "dynamic"),
        (r"\b(?:include|require)(?:_once)?\s*\(?\s*\$", "dynamic"),
    ],
    "lua": [
        (r"\b(?:os\.execute|io\.popen)" + _CALL, "shell"),
        (r"\bos\.remove" + _CALL, "rm"),
        (r"\bos\.rename" + _CALL, "move"),
        (r"\bio\.open(?=\s*\(\s*[^,)]+,\s*['\"][^'\"]*[wa+])", "write"),
        (r"\b(?:load|loadstring|dofile|loadfile)" + _CALL, "eval"),
    ],
    "r": [
        (r"\b(?:system|system2|shell)" + _CALL, "shell"),
        (r"\bunlink" + _CALL, "rmrf"),
        (r"\bfile\.remove" + _CALL, "rm"),
        (r"\bfile\.rename" + _CALL, "move"),
        (r"\bfile\.copy" + _CALL, "copy"),
        (r"\beval\s*\(\s*parse" + _CALL, "dynamic"),
    ],
}
