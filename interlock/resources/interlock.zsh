# interlock.zsh: interlock's advisory shell for people (zsh >= 5).
#
#   source /path/to/interlock.zsh [INTERLOCK-COMMAND...]   # in ~/.zshrc (interlock integrate shell --zsh)
#
# Before each command you type runs, interlock's warm daemon checks it. A discard of unsaved
# work, a masked validator or a command that would switch interlock off gets a warning, and
# a discard's unsaved targets are saved first, so `interlock undo` brings them back. Nothing
# is ever refused, and a command is never held more than a few seconds. When the daemon is
# not running you get one notice per shell, then silence. Outside a git repository nothing
# is said.
#
# How: a preexec hook sends the line as it will run (aliases expanded) to `interlock hook
# shell`, a co-process started once per shell and reached through two FIFOs, and prints its
# answer on stderr: no process starts per command.

[[ -o interactive ]] || return 0
(( ${+__interlock_sourced} )) && return 0
typeset -g __interlock_sourced=1
if (( $# )); then typeset -ga __interlock_cmd=("$@"); else typeset -ga __interlock_cmd=(interlock); fi
typeset -g __interlock_w= __interlock_r= __interlock_pid= __interlock_tries=0

__interlock_start() {
    (( __interlock_tries < 2 )) || return 1
    (( __interlock_tries++ ))
    local dir
    dir=$(mktemp -d "${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/interlock-sh.XXXXXX" 2>/dev/null) || return 1
    mkfifo -m 600 "$dir/in" "$dir/out" 2>/dev/null || { rm -rf "$dir"; return 1 }
    exec {__interlock_w}<>"$dir/in" {__interlock_r}<>"$dir/out"
    "${__interlock_cmd[@]}" hook shell "$dir/in" "$dir/out" <&- >/dev/null 2>&1 &!
    __interlock_pid=$!
}

__interlock_preexec() {
    [[ -n $__interlock_w && -n $__interlock_pid ]] || return 0
    if ! kill -0 "$__interlock_pid" 2>/dev/null; then
        exec {__interlock_w}>&- {__interlock_r}>&-
        __interlock_w= __interlock_r= __interlock_pid=
        __interlock_start || { print -u2 "interlock: note: the advisory shell stopped checking commands (its helper exited)"; return 0 }
    fi
    local id="$RANDOM$RANDOM$$" rid= reply= line="${3:-$1}"
    print -rn -u $__interlock_w -- "$id"$'\0'"$PWD"$'\0'"$line"$'\0' 2>/dev/null || return 0
    while IFS= read -r -d $'\0' -t 4 -u $__interlock_r rid && IFS= read -r -d $'\0' -t 4 -u $__interlock_r reply; do
        [[ $rid == "$id" ]] && break
        [[ -n $reply ]] && print -r -u2 -- "$reply" # a late answer to an earlier line
    done
    [[ $rid == "$id" && -n $reply ]] && print -r -u2 -- "$reply"
    return 0
}

autoload -Uz add-zsh-hook
__interlock_start
add-zsh-hook preexec __interlock_preexec
