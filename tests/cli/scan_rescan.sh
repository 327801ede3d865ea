# A rescan of a tree already scanned: its whole result comes from the tree
# cache, found by the revision's tree id before any tree is walked, and is
# byte for byte what the scan that stored it printed (JSON and text), with
# the header (commit, requested revision) of this run and the typed figures
# (files, calls, findings, paths with nothing there) of the stored result.
# What the result depends on keys it: the tree, the limit, the version
# (mtrial, the result format, the tables, bundled or from a directory); a
# row of a result missing or written by another version is never served.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_CACHE_HOME=$T_TMP/cache
unset MTRIAL_FINDINGS MTRIAL_TABLES_DIR
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
DB=$XDG_CACHE_HOME/mtrial/scan.db

R=$T_TMP/repo
mkdir -p "$R/pkg" && git -C "$R" -c init.defaultBranch=main init -q
cp "$MT_SOURCE_DIR"/tests/data/scan/*.py "$R/pkg/"
printf 'flash-attn==2.5.6\ntorch>=2.1\n' >"$R/requirements.txt"
git -C "$R" add -A && git -C "$R" commit -qm "corpus"

# sql STATEMENT: run on the cache, for the cases a test has to make
sql() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()' "$DB" "$1"; }
# same_but_cache FILE_A FILE_B: the two JSON results agree but for "cache"
same_but_cache() {
	python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("cache"); b.pop("cache")
sys.exit(a != b)' "$1" "$2"
}

run_mt 0 scan --repo "$R" --json --no-cache
printf '%s' "$OUT" >"$T_TMP/cold.json"
run_mt 0 scan --repo "$R" --no-cache
COLD_TEXT=$OUT

run_mt 0 scan --repo "$R" --json
eq "$(json 'j["cache"]["hit"]')" none "the first scan with the cache finds nothing"
run_mt 0 scan --repo "$R" --json
printf '%s' "$OUT" >"$T_TMP/warm.json"
eq "$(json 'j["cache"]["hit"]')" tree "a rescan is served from the tree cache"
check "the rescan's JSON is the cold scan's but for the cache member" same_but_cache "$T_TMP/cold.json" "$T_TMP/warm.json"
eq "$(python3 -c 'import json,sys; print(list(json.load(open(sys.argv[1]))))' "$T_TMP/warm.json")" \
	"$(python3 -c 'import json,sys; print(list(json.load(open(sys.argv[1]))))' "$T_TMP/cold.json")" "members in the same order"
run_mt 0 scan --repo "$R"
eq "$(printf '%s' "$OUT" | grep -v '^cache:')" "$(printf '%s' "$COLD_TEXT" | grep -v '^cache:')" "the rescan's text is the cold scan's"

# the same tree under another commit: served, under the new commit's id
git -C "$R" commit -q --allow-empty -m "nothing changed"
run_mt 0 scan --repo "$R" --json --rev main
eq "$(json 'j["cache"]["hit"]')" tree "a new commit with the same tree is served"
eq "$(json 'j["rev"]')" "$(git -C "$R" rev-parse HEAD)" "under the new commit's id"
eq "$(json 'j["requested_rev"]')" main "and the revision as asked"

# a revision that does not resolve is an error before any cache lookup
run_mt 2 scan --repo "$R" --json --rev no-such-rev
has "no-such-rev" "$ERR" "an unknown revision is named"

# the limit keys the result, and its missing paths come back with it
run_mt 0 scan --repo "$R" --json --path pkg --path no/such/dir
eq "$(json 'j["cache"]["hit"]')" blobs "a new limit is not a tree hit"
run_mt 0 scan --repo "$R" --json --path pkg --path no/such/dir
eq "$(json 'j["cache"]["hit"]')" tree "the same limit again is"
has "warning: --path 'no/such/dir': nothing there at" "$ERR" "its missing path is still named"
eq "$(json 'j["paths_missing"]')" "['no/such/dir']" "and listed"
run_mt 0 scan --repo "$R" --path pkg --path no/such/dir
has "limited to: pkg" "$OUT" "text output of the cached limited result"

run_mt 0 scan --repo "$R" --json --no-cache
printf '%s' "$OUT" >"$T_TMP/cold.json" # at the new commit

# rescanned HIT WHAT: a rescan is served from HIT (tree, blobs, none) and
# gives the cold scan's result but for the cache member
rescanned() {
	run_mt 0 scan --repo "$R" --json
	eq "$(json 'j["cache"]["hit"]')" "$1" "$2"
	printf '%s' "$OUT" >"$T_TMP/again.json"
	check "$2: the same result" same_but_cache "$T_TMP/cold.json" "$T_TMP/again.json"
}

# a result with a row missing (one an older mtrial never wrote), or written
# by another version, is scanned again (from the blob cache), then stored
sql "DELETE FROM tree WHERE key LIKE 'figures:%'"
rescanned blobs "a result without its figures is not served"
rescanned tree "then it is stored whole again"
# the whole result is a file beside the cache (trees/), checked by its CRC:
# a byte changed, a file cut short or gone is scanned again, never served
TREES=$XDG_CACHE_HOME/mtrial/trees
check "whole results are files beside the cache" test -n "$(ls "$TREES")"
for f in "$TREES"/*; do
	printf 'X' | dd of="$f" bs=1 seek=40 conv=notrunc status=none
done
rescanned blobs "a whole result with a byte changed is not served"
for f in "$TREES"/*; do
	truncate -s -3 "$f"
done
rescanned blobs "a whole result cut short is not served"
rm -f "$TREES"/*
rescanned blobs "a whole result whose file is gone is not served"
rescanned tree "then it is stored whole again"
sql "UPDATE tree SET version = 'mtrial-0.0/5/0000000000000000'"
sql "UPDATE blob SET version = 'mtrial-0.0/5/0000000000000000'"
rescanned none "rows of another version are not served"

# a changed tree is never served the old result
printf 'import torch\ny = torch.tanh(torch.ones(1))\n' >"$R/pkg/new.py"
git -C "$R" add -A && git -C "$R" commit -qm "one more file"
run_mt 0 scan --repo "$R" --json
eq "$(json 'j["cache"]["hit"]')" blobs "a changed tree is scanned"
eq "$(json 'any(c["api"]=="torch.tanh" and c["file"]=="pkg/new.py" for c in j["calls"])')" True "and the change is seen"

# tables read from $MTRIAL_TABLES_DIR key the results: every one of them,
# not only the findings (an api map changed there maps calls anew)
mkdir "$T_TMP/tables" && cp "$MT_SOURCE_DIR"/tables/* "$T_TMP/tables/"
export MTRIAL_TABLES_DIR=$T_TMP/tables
run_mt 0 scan --repo "$R" --json
run_mt 0 scan --repo "$R" --json
eq "$(json 'j["cache"]["hit"]')" tree "tables from a directory: a rescan is served"
printf '\n# changed\n' >>"$T_TMP/tables/api_map.yaml"
run_mt 0 scan --repo "$R" --json
eq "$(json 'j["cache"]["hit"]')" none "an api map changed there is another version: nothing served"
unset MTRIAL_TABLES_DIR

finish
