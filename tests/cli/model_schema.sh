# The keys the report's templates and the wizard read from the report model
# (tests/data/model/model_keys.py), pinned against the model of the report's
# fixture trial (tests/data/report/fixture.sh): a key renamed or dropped in
# report/model.c, or mistyped in a template or a screen, reads as nothing
# without a word, and here it fails. Also: the checker itself finds a key
# that is not there, so that it cannot pass by finding nothing.
. "$MT_SOURCE_DIR/tests/lib.sh"
. "$MT_SOURCE_DIR/tests/data/report/fixture.sh"
KEYS=$MT_SOURCE_DIR/tests/data/model/model_keys.py

fixture_trial || { bad "the fixture trial could not be built"; finish; exit 1; }
run_mt 0 report --format json
printf '%s\n' "$OUT" >"$T_TMP/model.json"

python3 "$KEYS" "$T_TMP/model.json" "$MT_SOURCE_DIR" >"$T_TMP/keys" 2>&1
eq "$?" 0 "every key the templates and the wizard read is in the model or made by its code"
grep -v '^pinned' "$T_TMP/keys" >&2
grep '^pinned' "$T_TMP/keys"
# most keys are pinned by the fixture's model itself, not only by the code
read -r pinned vouched < <(sed -n 's/^pinned by the model \([0-9]*\), only made by the code \([0-9]*\)$/\1 \2/p' "$T_TMP/keys")
if [ "${pinned:-0}" -gt "${vouched:-0}" ]; then ok; else
	bad "the fixture's model pins only ${pinned:-0} keys, the code alone ${vouched:-?}"; fi

# the checker fails on a key the model does not have: a template and a
# screen that each read one, in a copy of the tree
mkdir -p "$T_TMP/src/templates" "$T_TMP/src/tui"
for d in report trial probes checks common shim; do ln -s "$MT_SOURCE_DIR/$d" "$T_TMP/src/$d"; done
cp "$MT_SOURCE_DIR/templates/summary.md" "$MT_SOURCE_DIR/templates/summary.html" "$T_TMP/src/templates/"
printf '{{#decision}}{{verdikt}}{{/decision}}\n' >>"$T_TMP/src/templates/summary.md"
printf 'x = jv_str(ctx->model, "trial.nmae", b, 1);\n' >"$T_TMP/src/tui/x.c"
printf 'y = jv_int_at(ctx->model, "steps.*.stauts", i, 0);\n' >>"$T_TMP/src/tui/x.c"
printf 'z = jv_string_at(ctx->model, "steps.*.status", i);\n' >>"$T_TMP/src/tui/x.c"
python3 "$KEYS" "$T_TMP/model.json" "$T_TMP/src" >"$T_TMP/keys2" 2>&1
eq "$?" 1 "a key the model does not have fails"
has "missing verdikt in templates/summary.md" "$(cat "$T_TMP/keys2")" "the template's key is named with its line"
has "missing trial.nmae in tui/x.c:1" "$(cat "$T_TMP/keys2")" "the screen's key is named with its line"
has "missing steps.*.stauts in tui/x.c:2" "$(cat "$T_TMP/keys2")" "a key of each item of an array is named"
hasnt "tui/x.c:3" "$(cat "$T_TMP/keys2")" "a key the model's items have passes"

finish
