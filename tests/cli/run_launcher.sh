# mtrial run under a launcher (issue 19): `srun mtrial run -- CMD` starts
# one mtrial a rank; rank 0 records one attempt for the job, with its size,
# id and hosts from the launcher's environment, and the other ranks run
# the command, pass its output and exit status on, and record nothing.
. "$MT_SOURCE_DIR/tests/lib.sh"
R=$T_TMP/repo
new_repo "$R"
cd "$R" || exit 1
run_mt 0 init --name launcher-test
printf '#!/bin/sh\necho "rank says hi"\necho "mtrial:step=1 loss=2.0"\nexit "${1:-0}"\n' >"$T_TMP/train.sh"
chmod +x "$T_TMP/train.sh"

# rank RANK ARGS...: mtrial run as rank RANK of Slurm job 77, step 0, of
# four tasks on three nodes
rank() {
	local r=$1
	shift
	export SLURM_JOB_ID=77 SLURM_STEP_ID=0 SLURM_PROCID=$r SLURM_STEP_NUM_TASKS=4 \
		SLURM_STEP_NUM_NODES=3 SLURM_STEP_NODELIST='gpu[01-02],login1'
	run_mt "$@"
	unset SLURM_JOB_ID SLURM_STEP_ID SLURM_PROCID SLURM_STEP_NUM_TASKS SLURM_STEP_NUM_NODES \
		SLURM_STEP_NODELIST
}
for r in 3 1 2; do
	rank "$r" 0 run --system candidate -- "$T_TMP/train.sh"
	has "rank says hi" "$OUT" "rank $r: the command's output passed through"
	hasnt "mtrial:" "$ERR" "rank $r: mtrial says nothing of its own"
done
run_mt 0 runs --json
eq "$(json 'len(j["runs"])')" 0 "ranks other than 0 record nothing"
check "and leave no log" test ! -d .mtrial/runs -o -z "$(ls .mtrial/runs 2>/dev/null)"
rank 1 1 run --system candidate -- "$T_TMP/train.sh" 3 # exits 1, as rank 0 would
run_mt 0 runs --json
eq "$(json 'len(j["runs"])')" 0 "a rank whose command failed records nothing either"

rank 0 0 run --system candidate -- "$T_TMP/train.sh"
has "rank 0 of the job by SLURM_PROCID" "$ERR" "rank 0 says it records for the job"
run_mt 0 runs --json
eq "$(json 'len(j["runs"])')" 1 "one attempt for the job"
eq "$(json 'j["runs"][0]["metrics"]["launcher"]["hosts"]')" "['gpu01', 'gpu02', 'login1']" \
	"the hosts the job ran on, the node list expanded"
eq "$(json 'j["runs"][0]["metrics"]["launcher"]["job"]')" 77.0 "the job and step"
eq "$(json 'j["runs"][0]["metrics"]["launcher"]["ranks"]')" 4 "its size"
run_mt 0 runs show 1
has "job      slurm 77.0, 4 ranks on 3 hosts: gpu01, gpu02, login1 (SLURM_STEP_NODELIST)" "$OUT" \
	"runs show names the job"

# a node list that does not read is kept as written, never guessed
export SLURM_JOB_ID=78 SLURM_PROCID=0 SLURM_JOB_NODELIST='n[1-99999]'
run_mt 0 run --system candidate -- "$T_TMP/train.sh"
unset SLURM_JOB_ID SLURM_PROCID SLURM_JOB_NODELIST
run_mt 0 runs show 2
has "on n[1-99999] (SLURM_JOB_NODELIST, not expanded)" "$OUT" "a list too long kept as written"

# RANK alone (a shell's variable) is no launcher: the run is recorded
export RANK=5
run_mt 0 run --system baseline -- "$T_TMP/train.sh"
unset RANK
run_mt 0 runs --json
eq "$(json 'len(j["runs"])')" 3 "RANK without a launcher's other variables records the run"
finish
