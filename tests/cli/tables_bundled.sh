# The bundled tables against the reference data they come from
# (../shared/data/neuron beside the repository, as CI lays it out): each
# committed table is exactly what scripts/derive-compat-tables makes of it,
# and importing the RST source with `tables import` agrees with the bundled
# training table. Without the reference data there is nothing to compare.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home

DATA=${MTRIAL_NEURON_DATA:-$MT_SOURCE_DIR/../shared/data/neuron}
if [ ! -f "$DATA/pytorch-neuron-supported-operators.rst" ]; then
	echo "tables_bundled: no reference data at $DATA; nothing compared"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
for n in torch-neuronx-training torch-neuron-inf1 torchneuron-2.14; do
	"${PYTHON:-python3}" "$MT_SOURCE_DIR/scripts/derive-compat-tables" "$n" "$DATA" >"$T_TMP/$n.yaml"
	check "tables/compat-$n.yaml is what the script derives" cmp -s "$T_TMP/$n.yaml" "$MT_SOURCE_DIR/tables/compat-$n.yaml"
done
run_mt 0 tables import "$DATA/pytorch-neuron-supported-operators.rst" --as from-rst --format rst --json
run_mt 0 tables show from-rst --json
printf '%s' "$OUT" | "${PYTHON:-python3}" -c 'import json,sys; print("\n".join(sorted(e["op"]+" "+e["status"] for e in json.load(sys.stdin)["entries"])))' >"$T_TMP/imported"
run_mt 0 tables show torch-neuronx-training --json
printf '%s' "$OUT" | "${PYTHON:-python3}" -c 'import json,sys; print("\n".join(sorted(e["op"]+" "+e["status"] for e in json.load(sys.stdin)["entries"])))' >"$T_TMP/bundled"
check "importing the RST source gives the bundled training table's ops" cmp -s "$T_TMP/imported" "$T_TMP/bundled"
eq "$(wc -l <"$T_TMP/imported")" 41 "41 ops"
finish
