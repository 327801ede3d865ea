#!/usr/bin/env bash
# Summary, b: a bundle for another team (issue 20), written by the same
# core function as `mtrial bundle`: the file asked in a prompt, prefilled
# with the trial's name and -bundle.tar.gz beside the trial directory, then
# whether to redact (y/n); the wizard says what it wrote (the file, its
# size, the files counted, the core's notes, and with y what redaction
# dropped), and the bundle verifies. A file that cannot be written says
# why. A real MLPerf log is the run in it.
. "$(dirname "$0")/lib/harness.bash"

new_trial "bundle trial"
mt runs import --system baseline \
	"$MT_SOURCE_DIR/tests/data/curves/Dell_results_XE9640x4H100-SXM-80GB_resnet_result_0.txt" \
	>/dev/null 2>&1
HOST=$(hostname)
mt note --tag private "the keys are on $HOST" >/dev/null
B=$REPO/bundle-trial-bundle.tar.gz

start_shell 80 24
start_wizard
keys G
check "the Summary step" wait_for '│ Verdict: '
keys b
check "b asks where, prefilled beside the trial" \
	wait_for "bundle to \(Enter writes, Esc cancels\): .*bundle-trial-bundle\.tar\.gz"
keys Enter
check "... then whether to redact" wait_for 'Redact the bundle\?'
check "... no" wait_for 'no \(n\): everything as recorded'
check "... or yes" wait_for 'yes \(y\): drop private notes, host names and absolute paths'
keys n
check "the wizard says what it wrote" wait_for "Bundle written: $B \([0-9]+ files, "
check "the file is there" test -s "$B"
verified=$(mt bundle verify "$B" --json)
check "mtrial bundle verify accepts it" test "$(jq -r .verified <<<"$verified")" = true
files=$(jq -r .files <<<"$verified")
check "... with the run's log" test "$(jq -r .logs <<<"$verified")" = 1
check "the private note is in it, as recorded" \
	sh -c "tar xzOf '$B' --wildcards 'record/events/*' | grep -q 'the keys are on'"

keys Enter j j j j j j j j j j j
check "the page: what it wrote" wait_for "│   $B:$"
check "... the files counted, the size" \
	shows "│   $files files, $(awk -v b="$(stat -c %s "$B")" 'BEGIN { printf "%.1f KiB", b / 1024 }') ($(stat -c %s "$B") bytes); 1 run log(s), 0"
check "... the core's notes" wait_for '│   note: track portability: not carried'
check "... how to check it" wait_for '│   Check it with: mtrial bundle verify$'

# --- redacted ----------------------------------------------------------------------------
mv "$B" "$T/plain.tar.gz"
keys b Enter y
check "y: a redacted bundle" wait_for "Bundle written, redacted: $B"
check "... verified" mt bundle verify "$B"
check "... without the private note" \
	sh -c "! tar xzOf '$B' | grep -q 'the keys are on'"
# a word of its own: "vm" is the host here, and sysctl's vm.drop_caches no host
check "... nor the host name" sh -c "! tar xzOf '$B' | grep -qP '(?<![A-Za-z0-9_.-])$HOST(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])'"
check "... which the bundle without redaction has" \
	sh -c "tar xzOf '$T/plain.tar.gz' | grep -qP '(?<![A-Za-z0-9_.-])$HOST(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])'"
check "the page says what redaction dropped" \
	wait_for '│   Redacted: 1 event\(s\) of private notes dropped, [0-9]+$' &&
	check "... and replaced" wait_for '│   host name\(s\) and [0-9]+ absolute path\(s\) replaced, 1$'

# --- refused: the core's words -------------------------------------------------------------
keys b C-u
text "$T/none/b.tar.gz"
keys Enter n
check "a file that cannot be written says why" \
	wait_for "Bundle not written: $T/none/b\.tar\.gz"
check "... in the page too, naming the file" wait_for "│   Not written: $T/none/b\.tar\.gz:$"
check "... and why" wait_for "│   cannot write it: No such file or directory$"
check "... nothing written" test ! -e "$T/none"
keys b Escape
check "Esc cancels" wait_for 'Cancelled: no bundle written'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
