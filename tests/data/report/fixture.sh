# Sourced by tests/cli/report*.sh after tests/lib.sh: builds a fixed trial in
# $T_TMP/w (a repository with a baseline on main and a port on `trial`, a
# trial.yaml, a scan and a probe, five imported runs with fixed times, one
# failed `mtrial run`, an imported rehearsal (a CPU run: padding, a compile
# cache declared warm that its log shows cold), a loss-curve check and a failed rehearsal check, effort and notes, train.py marked
# reusable in the portability track with a note) and leaves the shell in the
# repository. Commit ids are fixed (author, committer, dates);
# only the times mtrial records as "now" and the scratch path vary.
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.com GIT_AUTHOR_DATE=2026-01-02T03:04:05Z \
	GIT_COMMITTER_DATE=2026-01-02T03:04:05Z
FX=$T_TMP/w
R=$FX/repo
L=$FX/logs

# mllog_run T0 INIT_MS STEP_MS STATUS EVAL...: one run's log: init_start at
# T0, run start INIT_MS later, steps of STEP_MS with 4096 tokens, an
# evaluation every 10 steps with the given eval_loss, run_stop with STATUS.
mllog_run() {
	local t=$1 init=$2 step=$3 status=$4 s=0 e
	shift 4
	echo ":::MLLOG {\"key\": \"init_start\", \"time_ms\": $t, \"value\": null}"
	t=$((t + init))
	echo ":::MLLOG {\"key\": \"init_stop\", \"time_ms\": $t, \"value\": null}"
	echo ":::MLLOG {\"key\": \"run_start\", \"time_ms\": $t, \"value\": null}"
	for e in "$@"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			s=$((s + 1)) t=$((t + step))
			echo "mtrial:step=$s loss=$e tokens=4096 time_ms=$t"
		done
		echo "mtrial:eval step=$s eval_loss=$e time_ms=$t"
	done
	echo ":::MLLOG {\"key\": \"run_stop\", \"time_ms\": $t, \"value\": null, \"metadata\": {\"status\": \"$status\"}}"
}

fixture_trial() {
	mkdir -p "$R" "$L" && git -C "$R" -c init.defaultBranch=main init -q || return 1
	cat >"$R/train.py" <<'PY'
import torch
import torch.nn.functional as F

device = torch.device("cuda")
model = torch.nn.Linear(8, 2).to(device)
x = torch.randn(4, 8, device=device)
y = F.gelu(model(x)).double()
loss = y.sum()
loss.backward()
PY
	git -C "$R" add train.py && git -C "$R" commit -qm baseline &&
		git -C "$R" checkout -qb trial &&
		sed -i 's/"cuda"/"neuron"/; s/).double()/)/' "$R/train.py" &&
		git -C "$R" commit -qam port && git -C "$R" checkout -q main || return 1
	cd "$R" || return 1
	"$MTRIAL" init --name 'Fixture | "tiny" <linear> trial' >/dev/null || return 1
	cat >.mtrial/trial.yaml <<YAML
schema: 1
name: "Fixture | \"tiny\" <linear> trial"
systems:
  baseline:
    accelerator: NVIDIA A100
    count: 8
    hosts: 1
    price: {hourly: 32.0, currency: USD, source: "a fixed test price"}
  candidate:
    accelerator: AWS Trainium2
    count: 16
    hosts: 1
    price: {hourly: 40.0, currency: USD, source: "a fixed test price"}
workload:
  repository: "$R"
  revision: "$(git rev-parse main)"
  model: {name: linear-8x2}
  token_unit: input
  data_order: "the same seed on both systems"
precision: {weights: fp32, activations: bf16, gradients: fp32, optimizer_state: fp32, accumulation: fp32}
quality_target:
  metric: eval_loss
  threshold: 2.0
  direction: lower
  eval_set: "held-out batch"
tolerances:
  default: {atol: 0.01, rtol: 0.01}
  overrides:
    - {name: "loss", atol: 0.002, rtol: 0.001}
accounting:
  boundary: "accelerator hours of training runs to the target; not storage"
  currency: USD
  items:
    - {name: instance hours, treatment: measured, unit: instance-hour, source: "run logs x price", reason: "the main cost"}
    - {name: engineering time, treatment: omitted, unit: person-hour, reason: "reported as effort, not priced"}
tracks:
  portability: {base: main, head: trial, description: "device string only"}
  optimized: {base: main, head: trial, description: "same as portability", budget_hours: 4}
criteria:
  - {name: quality-target, kind: quality, threshold: 2.0, description: "candidate reaches eval_loss <= 2.0"}
  - {name: time-to-quality, kind: time_to_quality, threshold: 1.0, description: "candidate no slower to the target"}
  - {name: cost-to-quality, kind: cost_to_quality, threshold: 1.0, description: "candidate no dearer to the target"}
  - {name: porting-effort, kind: effort, threshold: 4, description: "within 4 hours"}
YAML
	"$MTRIAL" spec >/dev/null && "$MTRIAL" scan >/dev/null || return 1
	"$MTRIAL" override aten::gelu cpu_fallback --note "falls back in eager on the test machine" >/dev/null || return 1
	"$MTRIAL" probe --table torch-neuronx-training >/dev/null
	mllog_run 1767225600000 60000 1000 success 3.0 2.5 2.1 1.9 >"$L/base1.log"
	mllog_run 1767232800000 62000 1100 success 3.0 2.4 1.95 1.8 >"$L/base2.log"
	mllog_run 1767240000000 600000 700 success 3.1 2.6 2.2 2.0 1.9 >"$L/cand1.log"
	mllog_run 1767247200000 580000 690 success 3.1 2.5 2.05 1.98 >"$L/cand2.log"
	mllog_run 1767254400000 610000 700 aborted 3.2 2.9 >"$L/cand3.log"
	"$MTRIAL" runs import "$L/base1.log" "$L/base2.log" --system baseline --track portability >/dev/null &&
		"$MTRIAL" runs import "$L/cand1.log" "$L/cand2.log" "$L/cand3.log" --system candidate \
			--track portability >/dev/null || return 1
	"$MTRIAL" run --system candidate --track optimized --label first-try -- \
		sh -c 'echo "neuronx-cc: error: unsupported op" | cat >&2; exit 3' >/dev/null 2>&1
	# a rehearsal: the candidate's code on a CPU, its compile cache declared
	# warm while its log shows a compilation, its padding in the log
	{
		echo "2026-01-02 09:00:00.000001: INFO ||NEURON_CC_WRAPPER||: No candidate found under /var/tmp/neuron-compile-cache/neuronxcc-2.14.227.0/MODULE_1."
		for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
			echo "mtrial:step=$s loss=3.$((50 - s)) tokens=300 padded=512 time_ms=$((1767344400000 + s * 2000))"
		done
	} >"$L/cpu.log"
	"$MTRIAL" runs import --rehearsal --system candidate --track portability --label "CPU stand-in" \
		--cache warm "$L/cpu.log" >/dev/null || return 1
	printf 'step,loss\n1,3.0\n2,2.8\n3,2.6\n' >"$L/ref.csv"
	printf 'step,loss\n1,3.001\n2,2.81\n3,2.6\n' >"$L/cand.csv"
	"$MTRIAL" check curves "$L/ref.csv" "$L/cand.csv" >/dev/null || return 1
	# a rehearsal check: two CPU stand-ins' curves, one far off (not a failure)
	printf 'step,loss\n1,3.0\n2,2.9\n3,2.8\n' >"$L/cpu-b.csv"
	"$MTRIAL" check curves --rehearsal "$L/ref.csv" "$L/cpu-b.csv" >/dev/null
	[ $? = 1 ] || return 1
	"$MTRIAL" effort add --duration 1h30m --track portability --category debugging 'device strings' >/dev/null &&
		"$MTRIAL" effort add --duration 45m --track optimized --category optimization >/dev/null &&
		"$MTRIAL" effort add --duration 20m --track portability --category setup >/dev/null || return 1
	"$MTRIAL" tracks mark --track portability train.py --reusable \
		--note 'any model needs the <device> | string' >/dev/null || return 1
	"$MTRIAL" note --track portability --tag compile \
		'first compile took <b>10 min</b> | cached after <script>alert(1)</script>' >/dev/null &&
		"$MTRIAL" note 'a plain note' >/dev/null
}
