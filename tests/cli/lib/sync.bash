# Sourced by tests/cli/sync*.sh after tests/lib.sh.
# sync_setup: a bare remote $REM, clone $A with the trial committed and
# pushed, clone $B of it; record WHO: a note, an effort interval, a run
# and a check; same_union WHAT: both clones list the same record;
# gen_events CLONE HOST N: N notes in a writer file of HOST's own.

# Debian's python3 starts in a tenth of the time a version manager's shim
# takes, and these tests call it often (lib.sh's json too)
if [ -x "$PY" ]; then python3() { "$PY" "$@"; }; fi

sync_setup() {
	export HOME=$T_TMP/home GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME"
	git config --global init.defaultBranch main
	REM=$T_TMP/remote.git A=$T_TMP/a B=$T_TMP/b
	git init -q --bare "$REM"
	new_repo "$A"
	cd "$A" || exit 1
	git config user.name "Ada A" && git config user.email ada@example.com
	git remote add origin "$REM"
	run_mt 0 init --name shared
	sed -i 's/^criteria:$/criteria:\n  - {name: curves-match, kind: correctness}\n  - {name: porting-effort, kind: effort, threshold: 40}/' \
		.mtrial/trial.yaml
	git add .mtrial && git commit -qm "the trial" && git push -q origin main
	git clone -q -b main "$REM" "$B"
	cd "$B" || exit 1
	git config user.name "Bo B" && git config user.email bo@example.com
	run_mt 0 init
	has "Using the trial" "$OUT" "init in a clone uses the committed trial"
	check "with an index of its own" test -s .mtrial/journal.db
	printf 'step,loss\n1,3.0\n2,2.8\n3,2.6\n' >"$T_TMP/ref.csv"
	printf 'step,loss\n1,3.0\n2,2.81\n3,2.6\n' >"$T_TMP/cand.csv"
}

record() {
	run_mt 0 note "friction from $1" --tag "$1"
	run_mt 0 effort add --duration 30m --track portability "setup by $1"
	run_mt 0 run --system candidate --label "$1" -- sh -c 'echo mtrial:step=1 loss=2.5'
	run_mt 0 check curves "$T_TMP/ref.csv" "$T_TMP/cand.csv"
}

# What a clone lists, without what is local to it: ids (given in the
# order the index took the events), where a run's log lies on this disk.
listing() {
	for c in "notes --json" "effort log --json" "runs --all --json" "check list --json"; do
		# shellcheck disable=SC2086
		"$MTRIAL" $c 2>&1 | python3 -c '
import json, sys
LOCAL = {"id", "source", "log", "interval", "interval_id", "run_id", "check_id"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in LOCAL}
    if isinstance(v, list):
        return sorted((clean(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
    return v
print(json.dumps(clean(json.load(sys.stdin)), sort_keys=True, indent=1))'
	done
}

same_union() {
	(cd "$A" && listing) >"$T_TMP/union.a"
	(cd "$B" && listing) >"$T_TMP/union.b"
	check "$1: both clones list the same record" cmp -s "$T_TMP/union.a" "$T_TMP/union.b"
	cmp -s "$T_TMP/union.a" "$T_TMP/union.b" || diff "$T_TMP/union.a" "$T_TMP/union.b" | head -20 >&2
}

# gen_lines HOST N: N note events as another machine's writer writes them
gen_lines() {
	python3 - "$1" "$2" <<'EOF'
import json, random, sys, time
host, n = sys.argv[1], int(sys.argv[2])
ms = int(time.time() * 1000)
rnd = random.Random(host)
for i in range(n):
    print(json.dumps({"v": 1, "id": "%012x%014x" % (ms, rnd.getrandbits(52)), "t": ms + i,
                      "author": {"name": "Gen " + host, "email": host + "@example.com"},
                      "host": host, "kind": "note.add",
                      "data": {"text": "%s %d" % (host, i), "track": None, "tags": [],
                               "interval": None}}, separators=(",", ":")))
    ms += 1
EOF
}

gen_events() {
	mkdir -p "$1/.mtrial/events"
	gen_lines "$2" "$3" >"$1/.mtrial/events/$2-00000000000000a1.jsonl"
}
