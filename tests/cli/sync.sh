# mtrial sync (issue 19): two clones of one repository and a bare remote
# share one trial through refs/mtrial/trial. Each records a note, an
# effort interval, a run and a check; synced in both orders both hold the
# same union, nothing duplicated, nothing lost, and syncing again makes no
# commit. 1,000 events a side; the branches, index and work tree are left
# alone; a remote that is not one is named (exit 2); a tampered remote
# file, a path outside events/ and objects/, a symlink and an object with
# another content are refused and named while the rest syncs.
# (sync_concurrent.sh: two syncs at once, and a kill -9.)
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/cli/lib/sync.bash"

sync_setup

# bad remotes: named, exit 2, nothing recorded
cd "$A"
run_mt 2 sync nosuch
has "nosuch" "$ERR" "a remote that is not there is named"
mkdir -p "$T_TMP/plain"
run_mt 2 sync "$T_TMP/plain"
has "$T_TMP/plain" "$ERR" "a directory that is not a repository is named"
check "no sync recorded" test ! -e .mtrial/synced
run_mt 2 sync origin extra
has "unexpected argument" "$ERR" "one remote at most"

cd "$A" && record A
cd "$B" && record B
head_a=$(git -C "$A" rev-parse HEAD)

# B first, then A, then B
cd "$B"
run_mt 0 sync --json
eq "$(json 'j["pushed"], j["events"]["sent"], j["events"]["received"], j["refused"]')" \
	"True 5 0 []" "B sends its 5 events (a run is two)"
eq "$(json 'j["ref"], j["remote"]')" "refs/mtrial/trial origin" "the trial's own ref"
eq "$(json 'j["tip"]')" "$(git -C "$REM" rev-parse refs/mtrial/trial)" "the remote's new tip"
cd "$A"
run_mt 0 sync --json
eq "$(json 'j["pushed"], j["events"]["sent"], j["events"]["received"]')" "True 5 5" \
	"A takes B's 5 and sends its own"
eq "$(json 'j["union"]["events"], j["union"]["writers"]')" "10 2" "the union: 10 events of 2 writers"
cd "$B"
run_mt 0 sync
has "5 events received, 0 sent" "$OUT" "B takes A's 5"
has "Nothing to push" "$OUT" "and has nothing more to send"
same_union "B, A, B"
cd "$A"
run_mt 0 notes --json
eq "$(json 'sorted(n["text"] for n in j)')" "['friction from A', 'friction from B']" \
	"each note once"

# syncing again changes nothing
tip=$(git -C "$REM" rev-parse refs/mtrial/trial)
for c in "$A" "$B"; do
	cd "$c"
	run_mt 0 sync --json
	eq "$(json 'j["pushed"], j["events"]["sent"], j["events"]["received"]')" "False 0 0" \
		"synced again: nothing moves ($c)"
done
eq "$(git -C "$REM" rev-parse refs/mtrial/trial)" "$tip" "the remote's tip is unchanged"
eq "$(git -C "$A" rev-parse refs/mtrial/trial)" "$tip" "so is A's"

# the team's branches, index and work tree are left alone
eq "$(git -C "$A" rev-parse HEAD)" "$head_a" "no commit on the branch"
eq "$(git -C "$REM" for-each-ref --format='%(refname)' refs/heads)" "refs/heads/main" "no branch pushed"
eq "$(git -C "$A" status --porcelain | grep -v ' \.mtrial/' || true)" "" "nothing outside .mtrial/ changed"
eq "$(git -C "$A" diff --cached --name-only)" "" "the index untouched"
check "the last sync is local" git -C "$A" check-ignore -q .mtrial/synced

# the other order, with new records on both sides: A, B, A
cd "$A" && record A2
cd "$B" && record B2
cd "$A" && run_mt 0 sync
cd "$B" && run_mt 0 sync
cd "$A" && run_mt 0 sync
same_union "A, B, A"
run_mt 0 runs --all --json
eq "$(json 'sorted(r["label"] for r in j["runs"])')" "['A', 'A2', 'B', 'B2']" "four runs, once each"

# decide and the report read the same on both clones
for c in "$A" "$B"; do
	cd "$c"
	"$MTRIAL" decide --json >"$c.decide" 2>/dev/null
	"$MTRIAL" report --format md 2>/dev/null | grep -v "$c" >"$c.report"
done
check "decide --json identical on both clones" cmp -s "$A.decide" "$B.decide"
check "report --format md identical on both clones" cmp -s "$A.report" "$B.report"
has '"met"' "$(cat "$A.decide")" "decide judged something"

# 1,000 events a side, in a writer of its own each (as from other machines)
gen_events "$A" gena 1000
gen_events "$B" genb 1000
cd "$A" && run_mt 0 sync --json
eq "$(json 'j["events"]["sent"]')" 1000 "A sends its 1,000"
cd "$B" && run_mt 0 sync --json
eq "$(json 'j["events"]["sent"], j["events"]["received"]')" "1000 1000" "B swaps 1,000 for 1,000"
cd "$A" && run_mt 0 sync --json
eq "$(json 'j["events"]["received"], j["union"]["events"]')" "1000 2020" "A takes B's 1,000"
same_union "1,000 a side"
for c in "$A" "$B"; do
	cd "$c"
	run_mt 0 index --json
	eq "$(json 'j["events"], j["refused"]')" "2020 []" "every event indexed, none refused ($c)"
done

# a tampered remote: a line of B's file changed, a file at the root, a
# symlink; with a new writer's file that still syncs
cd "$B" && run_mt 0 note "before the tampering" && run_mt 0 sync
wb=$(cut -d' ' -f2 "$B/.mtrial/writer").jsonl
T=$T_TMP/tamper
git clone -q --bare "$REM" "$T"
git -C "$T" config user.name Mallory && git -C "$T" config user.email m@example.com
git -C "$T" fetch -q origin refs/mtrial/trial:refs/mtrial/trial
git -C "$T" show "refs/mtrial/trial:events/$wb" | sed '1s/friction from B/friction from Mallory/' >"$T_TMP/bad"
gen_lines genc 3 >"$T_TMP/genc"
tree=$(git -C "$T" ls-tree refs/mtrial/trial:events | grep -v "$wb" |
	{ cat; printf '100644 blob %s\t%s\n' "$(git -C "$T" hash-object -w "$T_TMP/bad")" "$wb"
	  printf '100644 blob %s\tgenc-00000000000000c0.jsonl\n' "$(git -C "$T" hash-object -w "$T_TMP/genc")"
	  printf '120000 blob %s\tlink.jsonl\n' "$(printf 'x' | git -C "$T" hash-object -w --stdin)"; } |
	git -C "$T" mktree)
root=$(printf '040000 tree %s\tevents\n100644 blob %s\tnotes.txt\n' "$tree" \
	"$(printf 'hi\n' | git -C "$T" hash-object -w --stdin)" | git -C "$T" mktree)
c=$(git -C "$T" commit-tree -p refs/mtrial/trial -m tampered "$root")
git -C "$T" push -q origin "$c:refs/mtrial/trial"
cd "$A"
before=$(cksum <".mtrial/events/$wb")
run_mt 2 sync --json
has "events/$wb" "$ERR$OUT" "the tampered file is named"
eq "$(json 'sorted(r["file"] for r in j["refused"])')" \
	"['events/link.jsonl', 'events/$wb', 'notes.txt']" "each file not taken is named"
has "from line 1 on" "$(json '[r["reason"] for r in j["refused"] if r["file"] == "events/'"$wb"'"][0]')" \
	"where the copies part"
has "outside events/ and objects/" "$OUT" "a file at the root"
has "symlink" "$OUT" "a symlink"
eq "$(cksum <".mtrial/events/$wb")" "$before" "the local file is kept as it was"
check "the rest is synced: the new writer's file" test -s .mtrial/events/genc-00000000000000c0.jsonl
run_mt 0 notes --json
hasnt "Mallory" "$OUT" "the tampered line is not read"

# B's own file: its local copy is the record, and replaces the tampered one
cd "$B" && run_mt 2 sync --json
eq "$(json '[r["file"] for r in j["refused"]]')" "['events/$wb']" "B refuses the copy of its own file"
has "replaces" "$(json 'j["refused"][0]["reason"]')" "and says its own replaces it"
cd "$A" && run_mt 0 sync --json
eq "$(json 'j["refused"]')" "[]" "the remote is whole again"
run_mt 0 notes --json
eq "$(json 'sum(n["text"] == "before the tampering" for n in j)')" 1 "and B's last note reaches A"
same_union "after the tampering"

# objects: copied when missing, another content under one name refused
mkdir -p "$A/.mtrial/objects/aa" "$A/.mtrial/objects/bb" "$B/.mtrial/objects/bb"
printf 'log of A\n' >"$A/.mtrial/objects/aa/0001"
printf 'mine\n' >"$B/.mtrial/objects/bb/0002"
printf 'theirs\n' >"$T_TMP/o2"
cd "$A" && run_mt 0 sync --json
eq "$(json 'j["objects"]["sent"]')" 1 "A sends its object"
cd "$B" && run_mt 0 sync --json
eq "$(cat "$B/.mtrial/objects/aa/0001")" "log of A" "B has A's object"
cp "$T_TMP/o2" "$A/.mtrial/objects/bb/0002"
cd "$A" && run_mt 2 sync --json
has "objects/bb/0002" "$(json '[r["file"] for r in j["refused"]]')" "an object with another content is refused"
eq "$(cat "$A/.mtrial/objects/bb/0002")" "theirs" "and the local one kept"

# this host's file lost: the remote's copy brings it back as it was
wa=$(cut -d' ' -f2 "$A/.mtrial/writer").jsonl
mv "$A/.mtrial/events/$wa" "$T_TMP/lost"
run_mt 2 sync --json
check "a lost file comes back as it was" cmp -s "$A/.mtrial/events/$wa" "$T_TMP/lost"
# lost, then made anew with other events: refused, the remote's copy stays
mv "$A/.mtrial/events/$wa" "$T_TMP/lost"
run_mt 0 note "after the loss"
run_mt 2 sync --json
has "events/$wa" "$(json '[r["file"] for r in j["refused"]]')" "a file made anew is refused"
check "the remote's copy stays" cmp -s "$T_TMP/lost" <(git -C "$REM" show "refs/mtrial/trial:events/$wa")

finish
