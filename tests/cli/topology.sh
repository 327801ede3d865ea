# A run's topology (issue 17, part 1): --devices and --hosts on runs import
# and run; the launcher mtrial run wraps (a torchrun and an srun stand-in on
# PATH, since the options are what is read, never run); a Slurm allocation's
# environment for srun; each value with where it came from; flags win.
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_DATA_HOME=$T_TMP/data HOME=$T_TMP/home
R=$T_TMP/repo
new_repo "$R" && cd "$R"
run_mt 0 init --name topo

L=$T_TMP/run.log
for s in $(seq 1 20); do echo "mtrial:step=$s loss=2.0 time_ms=$((1764496840000 + 1000 * s))"; done >"$L"
run_mt 0 runs import "$L" --system candidate --devices 16 --hosts 2 --json
id=$(json 'j["imported"][0]')
run_mt 0 runs show "$id" --json
eq "$(json 'j["devices"], j["devices_from"], j["topology"]["hosts"], j["topology"]["from"]["hosts"]')" \
	"16.0 --devices 2 --hosts" "the flags, named as the source"
run_mt 2 runs import "$L" --devices 0
has "--devices: expected a whole number >= 1" "$ERR" "a bad device count is refused"
run_mt 2 runs import "$L" --hosts two
has "--hosts: expected a whole number >= 1" "$ERR" "and a bad host count"

# stand-ins for the launchers: they run what follows their options
mkdir -p "$T_TMP/bin"
cat >"$T_TMP/bin/torchrun" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in --*=*) shift ;; --*) shift 2 ;; *) break ;; esac; done
exec "$@"
SH
cat >"$T_TMP/bin/srun" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
exec "$@"
SH
chmod +x "$T_TMP/bin/torchrun" "$T_TMP/bin/srun"
export PATH=$T_TMP/bin:$PATH
# the latest run as runs --json lists it (a run's own output is on stdout too)
last() { run_mt 0 runs --json; }
LAST='max(j["runs"], key=lambda r: r["id"])'
run_mt 0 run --system candidate -- torchrun --nnodes 2 --nproc-per-node=8 sh -c "cat '$L'"
last
eq "$(json "$LAST['devices'], $LAST['topology']['hosts'], $LAST['devices_from']")" \
	"16.0 2 torchrun --nproc-per-node=8 x --nnodes" "torchrun's processes per node x nodes"
SLURM_NTASKS=32 SLURM_JOB_NUM_NODES=4 run_mt 0 run --system candidate -- srun sh -c "cat '$L'"
last
eq "$(json "$LAST['devices'], $LAST['topology']['hosts'], $LAST['devices_from']")" \
	"32.0 4 environment SLURM_NTASKS" "srun inside an allocation: the allocation's tasks and nodes"
run_mt 0 run --system candidate --devices 4 -- torchrun --nproc-per-node=8 sh -c "cat '$L'"
last
eq "$(json "$LAST['devices'], $LAST['devices_from']")" "4.0 --devices" "the flag wins over the launcher"
run_mt 0 run --system baseline -- sh -c "cat '$L'"
last
eq "$(json "$LAST['devices']")" "None" "no flag, no launcher, no count in trial.yaml: unknown"

run_mt 0 scaling --system candidate --json
eq "$(json "[(r['devices'], r['runs']) for r in j['systems']['candidate']['topologies']]")" \
	"[(4, 1), (16, 2), (32, 1)]" "each run at its own device count"
finish
