# interlock.bash: interlock's advisory shell for people (bash >= 4.4).
#
#   . /path/to/interlock.bash [INTERLOCK-COMMAND...]       # in ~/.bashrc (interlock integrate shell)
#
# Before each command you type runs, interlock's warm daemon checks it. A discard of unsaved
# work, a masked validator or a command that would switch interlock off gets a warning, and
# a discard's unsaved targets are saved first, so `interlock undo` brings them back. Nothing
# is ever refused, and a command is never held more than a few seconds. When the daemon is
# not running you get one notice per shell, then silence. Outside a git repository nothing
# is said.
#
# How: PS0 (shown after a line is read, before it runs) calls __interlock_check, which sends
# the line (`history 1`) to `interlock hook shell`, a co-process started once per shell and
# reached through two FIFOs, and prints its answer on stderr: no process starts per command
# except PS0's one subshell. A HISTCONTROL with ignorespace/ignoreboth is rewritten to
# ignoredups, and lines typed with a leading space are deleted from the history after they
# ran (as bash-preexec does), so the line checked is always the line typed.

[[ $- == *i* ]] || return 0
[[ -n ${__interlock_sourced-} ]] && return 0
if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 4))); then
    return 0 # PS0 needs bash 4.4
fi
__interlock_sourced=1
if (($#)); then __interlock_cmd=("$@"); else __interlock_cmd=(interlock); fi
__interlock_w= __interlock_r= __interlock_pid= __interlock_tries=0 __interlock_dropspace=

__interlock_start() {
    ((__interlock_tries < 2)) || return 1
    ((__interlock_tries++))
    local dir
    dir=$(mktemp -d "${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/interlock-sh.XXXXXX" 2>/dev/null) || return 1
    mkfifo -m 600 "$dir/in" "$dir/out" 2>/dev/null || { rm -rf "$dir"; return 1; }
    exec {__interlock_w}<>"$dir/in" {__interlock_r}<>"$dir/out"
    __interlock_pid=$({ "${__interlock_cmd[@]}" hook shell "$dir/in" "$dir/out" --numbered \
        <&- >/dev/null 2>&1 & } 2>/dev/null; echo $!)
}

__interlock_stop() {
    [[ -n $__interlock_w ]] && exec {__interlock_w}>&- {__interlock_r}>&-
    __interlock_w= __interlock_r=
}

# Before each prompt: keep the co-process alive; honour ignorespace ourselves.
__interlock_precmd() {
    if [[ -n $__interlock_dropspace ]]; then
        local last
        last=$(HISTTIMEFORMAT= builtin history 1)
        if [[ $last =~ ^\ *([0-9]+)\*?\ \ \  ]]; then
            builtin history -d "${BASH_REMATCH[1]}" 2>/dev/null
        fi
    fi
    if [[ -n $__interlock_pid ]] && ! kill -0 "$__interlock_pid" 2>/dev/null; then
        __interlock_stop
        __interlock_start || { __interlock_pid=; printf '%s\n' "interlock: note: the advisory shell stopped checking commands (its helper exited)" >&2; }
    fi
}

# Runs in PS0's subshell: send the line, print the answer (stderr), wait a few seconds at most.
__interlock_check() {
    [[ -n $__interlock_w && -n $__interlock_pid ]] || return 0
    local id=$RANDOM$RANDOM$BASHPID rid= reply=
    { printf '%s\0%s\0' "$id" "$PWD"; HISTTIMEFORMAT= builtin history 1; printf '\0'; } >&"$__interlock_w" 2>/dev/null || return 0
    while IFS= read -r -d '' -t 4 -u "$__interlock_r" rid && IFS= read -r -d '' -t 4 -u "$__interlock_r" reply; do
        [[ $rid == "$id" ]] && break
        [[ -n $reply ]] && printf '%s\n' "$reply" >&2 # a late answer to an earlier line
    done
    [[ $rid == "$id" && -n $reply ]] && printf '%s\n' "$reply" >&2
    return 0
}

case ":${HISTCONTROL-}:" in
*:ignorespace:* | *:ignoreboth:*)
    __interlock_dropspace=1
    HISTCONTROL=$(printf '%s' "$HISTCONTROL" | sed -e 's/ignoreboth/ignoredups/g' -e 's/ignorespace//g' -e 's/::*/:/g' -e 's/^://' -e 's/:$//')
    ;;
esac
__interlock_start
PS0=${PS0-}'$(__interlock_check)'
if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
    PROMPT_COMMAND+=(__interlock_precmd)
else
    PROMPT_COMMAND="__interlock_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi
