# The record's guards: a command outside a trial says so (exit 2, never
# 253); a trial made from a bundle refuses to sync before anything is
# fetched or pushed (it would push a copy of someone's record into their
# team's remote as if recorded there).
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/cli/lib/sync.bash"

# outside a trial: the words every command gives
mkdir -p "$T_TMP/none" && cd "$T_TMP/none"
run_mt 2 index --rebuild
has "no trial found" "$ERR" "index --rebuild outside a trial"
run_mt 2 index --json
eq "$(json 'j["exit"]')" 2 "index --json outside a trial says its exit status"

sync_setup
cd "$A" && run_mt 0 note "recorded by A"
run_mt 0 sync
tip=$(git -C "$REM" rev-parse refs/mtrial/trial)
run_mt 0 bundle -o "$T_TMP/a.tar.gz"
C=$T_TMP/copy
run_mt 0 init --from-bundle "$T_TMP/a.tar.gz" "$C"
before=$(cat "$C"/events/*.jsonl | sha256sum)
refs_before=$(git -C "$A" for-each-ref refs/mtrial)
run_mt 2 --trial "$C" sync
has "this trial was made from bundle a.tar.gz: read-only" "$ERR" "sync refused as note is"
run_mt 2 --trial "$C" sync --json
eq "$(json 'j["exit"]')" 2 "sync --json refused too"
run_mt 2 --trial "$C" sync origin
has "read-only" "$ERR" "naming a remote"
eq "$(git -C "$REM" rev-parse refs/mtrial/trial)" "$tip" "nothing pushed into the team's remote"
eq "$(git -C "$A" for-each-ref refs/mtrial)" "$refs_before" "nothing fetched into the trial's repository"
eq "$(cat "$C"/events/*.jsonl | sha256sum)" "$before" "nothing taken into the copy"
check "no sync recorded in the copy" test ! -e "$C/synced"

finish
