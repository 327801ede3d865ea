# A run's log travels with the record (issue 19): when `mtrial run` ends
# and on `runs import`, the log's bytes become an artefact named by their
# hash (gzip) that the run's event names, the path kept for display; where
# the file is not there (another machine, a clone, a log deleted) a run's
# log is read from the artefact; with neither, the error names both.
. "$MT_SOURCE_DIR/tests/lib.sh"

R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init
run_mt 0 run --label a -- sh -c 'for i in 1 2 3 4 5; do echo "mtrial:step=$i loss=$((10 - i)).0"; done'
printf 'step,loss,time\n1,9.0,0\n2,8.0,1\n3,7.0,2\n4,6.0,3\n5,5.0,4\n' >"$T_TMP/series.csv"
run_mt 0 runs import --system candidate "$T_TMP/series.csv"
LOG1=$(sqlite3 .mtrial/journal.db "select log from runs where id = 1")

ev=$(ls .mtrial/events/*.jsonl)
OUT=$(grep '"kind":"run.add"' "$ev" | head -1)
eq "$(json '"log_object" in j["data"]')" False "a running run names no artefact: its live log is its file"
OUT=$(grep '"kind":"run.end"' "$ev")
ref=$(json 'j["data"]["log_object"]["object"]')
hex=${ref#sha256:}
obj=.mtrial/objects/sha256/${hex:0:2}/${hex:2}
check "the run's end names its log's artefact, stored" test -f "$obj"
check "... the log's bytes, named by their hash" cmp <(zcat "$obj") "$LOG1"
OUT=$(grep '"kind":"run.add"' "$ev" | tail -1)
eq "$(json 'j["data"]["log"]')" "$T_TMP/series.csv" "an import keeps the path it came from, for display"
ref2=$(json 'j["data"]["log_object"]["object"]')
eq "$ref2" "sha256:$(sha256sum <"$T_TMP/series.csv" | cut -c1-64)" "... and names the file's artefact"

# the logs gone from this machine: read from the record's copies
run_mt 0 check curves run:1 run:2 --rtol 0 --json
eq "$(json 'j["points"], j["passed"]')" "5 True" "the curves of two runs from their files"
mv "$LOG1" "$T_TMP/log1" && mv "$T_TMP/series.csv" "$T_TMP/series.saved"
run_mt 0 check curves run:1 run:2 --rtol 0 --json
eq "$(json 'j["points"], j["passed"]')" "5 True" "... and from their artefacts, the files gone"
eq "$(json 'j["reference"]')" "run #1 (candidate, a): $LOG1" "the run still named by where its log was written"
check "no temporary copy left behind" sh -c "! ls '${TMPDIR:-/tmp}'/mtrial-object-* 2>/dev/null | grep -q ."

# a clone: the index made again from the events reads the same
run_mt 0 index --rebuild
run_mt 0 check curves run:1 run:2 --rtol 0 --json
eq "$(json 'j["points"]')" 5 "after a rebuild from the events alone"

# neither the file nor its artefact: named, exit 2
rm "$obj"
run_mt 2 check curves run:1 run:2
has "run #1" "$ERR" "the run named"
has "artefact $ref is missing" "$ERR" "... and its artefact"
has "$LOG1 is not on this machine" "$ERR" "... and the path it was written to"
run_mt 0 report
has "artefact missing: \`$ref\`, the run log of event" "$OUT" "the report says which"
finish
