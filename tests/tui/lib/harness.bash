# Shared by tests/tui/*.sh (sourced, not a test itself: CTest only runs the
# *.sh files directly under tests/tui/). The tmux way of testing a TUI: the
# real binary runs in a detached tmux session on a private socket with a
# pinned size, locale, TZ and HOME; the test sends keys and reads the screen
# with capture-pane. Waits poll with a deadline instead of sleeping.
#
# Environment: MTRIAL (the binary, required), MT_SOURCE_DIR (the source tree).

set -u

: "${MTRIAL:?set MTRIAL to the mtrial binary}"
MT_SOURCE_DIR=${MT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EXPECTED=$HERE/expected

PASSED=0
FAILED=0
SOCKET=mt-test-$$
SESSION=wiz
WAIT_SECONDS=${MT_TUI_WAIT:-10}

# A short fixed prefix keeps the temporary paths shown on screen short, so
# that they are never cut by the 80-column layout.
T=$(mktemp -d /tmp/mtt.XXXXXX)
REPO=$T/repo
export HOME=$T/home LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
unset NO_COLOR MTRIAL_DIR
mkdir -p "$HOME"

tm() { tmux -u -L "$SOCKET" -f /dev/null "$@"; }

cleanup() {
	tm kill-server 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

if ! command -v tmux >/dev/null; then
	echo "tmux is needed for the TUI tests" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

pass() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
fail() {
	FAILED=$((FAILED + 1))
	echo "not ok - $1"
	echo "--- screen ---"
	screen | sed 's/^/| /'
	echo "--------------"
}

# check NAME COMMAND...: runs COMMAND, counts a pass or a failure.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
	exit $?
}

# The pane's text, one line per row, trailing blanks kept off.
screen() { tm capture-pane -p -t "$SESSION" 2>/dev/null; }

# wait_for REGEX [SECONDS]: until a line of the screen matches (grep -E).
wait_for() {
	local pattern=$1 deadline=$((SECONDS + ${2:-$WAIT_SECONDS}))
	while [ $SECONDS -le $deadline ]; do
		screen | grep -Eq -- "$pattern" && return 0
		sleep 0.1
	done
	return 1
}

# wait_gone REGEX [SECONDS]: until no line matches.
wait_gone() {
	local pattern=$1 deadline=$((SECONDS + ${2:-$WAIT_SECONDS}))
	while [ $SECONDS -le $deadline ]; do
		screen | grep -Eq -- "$pattern" || return 0
		sleep 0.1
	done
	return 1
}

# shows TEXT: until the screen has TEXT (fixed, not a pattern).
shows() { wait_cmd screen_has "$1"; }
screen_has() { screen | grep -qF -- "$1"; }

# wait_cmd COMMAND...: until COMMAND succeeds.
wait_cmd() {
	local deadline=$((SECONDS + WAIT_SECONDS))
	while [ $SECONDS -le $deadline ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

keys() { tm send-keys -t "$SESSION" "$@"; }
text() { tm send-keys -t "$SESSION" -l "$1"; }

# new_trial [NAME]: a fresh git repository with a trial in it.
new_trial() {
	git init -q "$REPO"
	(cd "$REPO" && "$MTRIAL" init --repo "$REPO" --name "${1:-tui-test}") >/dev/null
}

# mt ARGS...: the CLI, run in the repository (where the trial is found).
mt() { (cd "$REPO" && "$MTRIAL" "$@"); }

# start_shell [COLS ROWS] [VAR=VALUE...]: bash without rc files in a
# detached pane of the given size (80x24 by default), with a known prompt.
start_shell() {
	local cols=${1:-80} rows=${2:-24}
	shift 2 2>/dev/null
	tm new-session -d -s "$SESSION" -x "$cols" -y "$rows" \
		env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC \
		TERM=xterm-256color PS1='mt$ ' HISTFILE=/dev/null "$@" \
		bash --norc --noprofile
	tm set-option -t "$SESSION" status off >/dev/null
	wait_for '^mt\$' || { echo "the shell did not start" >&2; finish; }
}

# start_wizard: runs the wizard from the pane's shell through a script that
# records its pid, its exit status and the terminal modes before and after.
start_wizard() {
	cat >"$T/run-wizard.sh" <<EOF
cd "$REPO" || exit 99
trap : INT # Ctrl-C reaches the whole foreground group: outlive the wizard
stty -g >"$T/stty.before"
sh -c 'echo \$\$ >"\$1"; exec "\$2" tui' sh "$T/wizard.pid" "$MTRIAL"
rc=\$?
stty -g >"$T/stty.after"
echo "wizard-exit=\$rc"
EOF
	rm -f "$T/wizard.pid" "$T/stty.before" "$T/stty.after"
	keys "clear; sh $T/run-wizard.sh" Enter
	wait_for '^ Steps ' || { echo "the wizard did not start" >&2; fail "wizard starts"; finish; }
}

wizard_pid() { cat "$T/wizard.pid"; }

# The screen with what changes from run to run masked: the temporary
# directory, dates and times, running clocks and durations.
masked_screen() {
	screen | sed -e "s|$T|<tmp>|g" \
		-e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]/<date> <time>/g' \
		-e 's/[0-9]\{1,\}:[0-9][0-9]:[0-9][0-9]/<clock>/g'
}

# same_screen EXPECTED_FILE: the masked screen becomes equal to the file
# (polled: after a resize the wizard needs a moment to redraw). With
# MT_UPDATE_EXPECTED set, a differing file is overwritten with the screen.
same_screen() {
	local out=$T/screen.$RANDOM deadline=$((SECONDS + WAIT_SECONDS))
	while [ $SECONDS -le $deadline ]; do
		masked_screen >"$out"
		cmp -s "$1" "$out" && return 0
		sleep 0.1
	done
	diff -u "$1" "$out"
	if [ -n "${MT_UPDATE_EXPECTED:-}" ]; then cp "$out" "$1"; fi
	return 1
}
