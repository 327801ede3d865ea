/* mtrial: an honest migration trial of PyTorch training code to another
 * accelerator. This file holds the command table and global options. */
#include "cli.h"
#include "error.h"

#include <string.h>
#include <unistd.h>

const struct cli_command cli_commands[] = {
	{"init", cmd_init, "create a trial (trial.yaml + journal.db) for a git repository",
	 "Usage: mtrial init [--repo PATH] [--trial DIR] [--name NAME] [--json]\n"
	 "       mtrial init --from-bundle FILE DIR [--json]\n\n"
	 "Creates the trial directory (default .mtrial/ at the repository root) with a\n"
	 "commented trial.yaml template and an empty journal.db. Refuses to overwrite\n"
	 "an existing trial. PATH must be inside a git repository (default: the\n"
	 "current directory); the template records its HEAD revision.\n\n"
	 "--from-bundle verifies the bundle FILE whole (mtrial bundle verify) and,\n"
	 "only then, makes DIR (absent or empty) a trial from it: trial.yaml, the\n"
	 "record, the run logs, and the index made from the record. It is\n"
	 "read-only: every command that records refuses, naming the bundle.\n"
	 "decide and report there derive the verdict from the record and trial.yaml\n"
	 "alone: the runs' logs and the tracks' changes are read from the bundle's\n"
	 "copies, so neither the repository nor the logs need be there.\n"},
	{"spec", cmd_spec, "validate trial.yaml and print it",
	 "Usage: mtrial spec [--trial DIR] [--json]\n\n"
	 "Validates trial.yaml against the schema. Errors name file:line:column and\n"
	 "exit 2. With --json prints the spec as typed JSON.\n"},
	{"scan", cmd_scan, "list the PyTorch calls and migration risks in a repository",
	 "Usage: mtrial scan [--repo PATH] [--rev REV] [--worktree] [--no-cache]\n"
	 "                   [--path DIR]... [--json]\n\n"
	 "Reads the repository (default: the trial's, trial.yaml workload.repository;\n"
	 "without a trial, the current directory) at REV (a branch, tag or commit;\n"
	 "default: in the trial's repository, trial.yaml workload.revision, the code\n"
	 "the baseline runs from; else HEAD; --rev HEAD scans the current commit)\n"
	 "through libgit2, without a checkout and without running its\n"
	 "code, and lists every call into the torch namespace (resolved through the\n"
	 "imports) with its aten op, tensor method calls, and findings that are not\n"
	 "ops (float64, hard-coded cuda, CUDA-only packages, custom extensions,\n"
	 "compile arguments, shapes that vary per step) with an effort level. --worktree adds uncommitted changes.\n"
	 "Results are cached by blob id in ~/.cache/mtrial (--no-cache: a cold scan\n"
	 "that neither reads nor writes it). The result is recorded in the trial when\n"
	 "one is found. Static scanning is fast but approximate: calls made through\n"
	 "variables, getattr or modules the scan cannot see are missed.\n\n"
	 "--path DIR (repeatable; a folder or file relative to the repository root)\n"
	 "limits the scan; without it, trial.yaml's scan.paths does ('--path .' scans\n"
	 "everything). A path with nothing at REV gets a warning.\n\n"
	 "A method call counts as a tensor op when its receiver can be a tensor:\n"
	 "'certain' when the file shows it comes from a torch call, 'uncertain' when it\n"
	 "does not say; on a str, a file, an object of a class or a container\n"
	 "('line.split()', 'img.split()', 'tracer.trace(m)') it is listed under\n"
	 "not_tensor and not counted. A corrupt object or tree is skipped and named.\n\n"
	 "Dependencies: requirements*.txt (and requirements/*.txt, *.in), pyproject.toml,\n"
	 "setup.py, setup.cfg and environment*.yml are read for CUDA-only packages and\n"
	 "for versions known to break on the target: a rule's versions (a PEP 440\n"
	 "specifier set, e.g. TRL ==1.15.*) with its source and date. A spec that pins\n"
	 "an affected version gets a finding saying so; one that admits it among\n"
	 "others (trl, trl>=1.10), one saying it may resolve to it; a VCS URL or an\n"
	 "unreadable spec, one saying it may be one; other versions, none. --json\n"
	 "gives each finding's source, date, versions and certainty (pinned, possible,\n"
	 "unknown) as fields beside its message.\n\n"
	 "MTRIAL_FINDINGS=FILE adds a team's own rules (the format of\n"
	 "tables/findings.yaml: schema: mtrial-findings/1, sources:, rules:), read\n"
	 "after the bundled ones; their ids must differ; an error names FILE:line:column\n"
	 "and exits 2; cached results made under other rules are not reused.\n"},
	{"probe", cmd_probe, "check each op of the repository against a compatibility table",
	 "Usage: mtrial probe [--repo PATH] [--rev REV] [--table NAME|FILE]\n"
	 "                    [--from scan|torchscript|trace [FILE]]\n"
	 "                    [--observed NAME|FILE] [--json]\n\n"
	 "Joins the op inventory (the trial's latest scan, or a scan of --repo/--rev;\n"
	 "--from torchscript|trace: an exact inventory, FILE or the trial's latest,\n"
	 "see 'mtrial ops')\n"
	 "with a compatibility table (default: probe.table in trial.yaml, else\n"
	 "torchneuron-2.14) and the team's overrides in trial.yaml (probe.overrides).\n"
	 "Every op gets a status (device, cpu_fallback, unsupported, partial, unknown)\n"
	 "and the source that decided it. Lists every unsupported op with its call\n"
	 "sites, then partial, CPU fallback and unknown ops. An op no table lists is\n"
	 "unknown, never assumed supported. --observed takes what ran on real hardware\n"
	 "(torch_neuronx.analyze() or neuron_parallel_compile analyze JSON, or an\n"
	 "imported observed table); it outranks everything else.\n"
	 "An op seen only at method calls whose receiver the scan cannot tell is a\n"
	 "tensor is marked uncertain, and so are such call sites. A scan limited by\n"
	 "--path or trial.yaml's scan.paths says so, and a fresh scan uses scan.paths.\n"
	 "A table that lists public APIs (torch.cumsum, torch.Tensor.abs) judges each\n"
	 "call the scan resolved by its API's entry first (a method call x.abs() as\n"
	 "torch.Tensor.abs, its receiver assumed a tensor), then by its aten op; the\n"
	 "output then lists APIs (--json: apis beside ops) and counts both. A CPU\n"
	 "fallback limited to some dtypes holds only when a trace or a graph saw the\n"
	 "op with one of them; a scan knows no dtypes and keeps it, with the condition.\n"
	 "Exit status 1 when an op or an API is unsupported.\n"},
	{"ops", cmd_ops, "exact op lists: TorchScript graphs, dispatch traces, differences",
	 "Usage: mtrial ops show SOURCE [--as torchscript|trace] [--json]\n"
	 "       mtrial ops diff A B [--json]\n"
	 "       mtrial ops registry [PREFIX] [--json]\n\n"
	 "A static scan cannot see inside nn.Modules or the backward pass; two exact\n"
	 "sources can. SOURCE, A and B are each a file or the trial's latest recorded\n"
	 "inventory of a kind: scan, torchscript or trace.\n"
	 "  A TorchScript archive (torch.jit.script(model).save(PATH)): the root's\n"
	 "  entry points (methods no other method calls) with their callees and\n"
	 "  submodules inlined, each aten op with its count (graph nodes: those in a\n"
	 "  branch or loop body also counted apart as conditional), the source line\n"
	 "  it came from and the dtypes the graph knows. Code nested deeper than\n"
	 "  Python accepts (200 brackets, 100 blocks) is refused unloaded.\n"
	 "  Archives hold code that libtorch compiles when loading them: mtrial loads\n"
	 "  them in-process but runs no method; open only files you trust.\n"
	 "  A dispatch trace: the JSON that optrace.py ('mtrial ops tracer -o FILE'\n"
	 "  writes it; Python and torch are all it needs) writes where the\n"
	 "  training code already runs (python3 optrace.py -o ops.json -- train.py\n"
	 "  ARGS), with counts per phase (setup, forward, backward, optimizer),\n"
	 "  dtypes, distinct input shapes in training steps, and the ops seen only in\n"
	 "  backward.\n"
	 "show prints an inventory; a file is recorded in the trial (with the\n"
	 "trace's shapes). A zip is read as TorchScript, anything else as a trace,\n"
	 "unless --as says. diff lists the ops only one side has, and, against a\n"
	 "scan, the ops the static scan missed, each op once; a composite is matched\n"
	 "to what a trace ran for it (tables/decompositions.yaml). registry lists\n"
	 "libtorch's operator schemas (the list the scan's op names are checked\n"
	 "against). tracer writes optrace.py out.\n"},
	{"check", cmd_check, "numerical correctness: tensors, a model under another recipe, loss curves",
	 "Usage: mtrial check compare REF CAND [--rtol R] [--atol A] [--stat S] [--equal-nan]\n"
	 "                            [--tol GLOB=RTOL,ATOL]... [--noise REF2] [--rehearsal]\n"
	 "                            [--json]\n"
	 "       mtrial check model FILE.pt --inputs FILE --recipe fp32|bf16|fp16|f64-as-f32\n"
	 "                            [--rehearsal] [--json]\n"
	 "       mtrial check curves A B [--rtol R] [--atol A] [--window N] [--key K]\n"
	 "                            [--target V] [--final-only] [--rehearsal] [--json]\n"
	 "       mtrial check list [--json]\n"
	 "       mtrial check mark ID --rehearsal|--evidence [--json]\n\n"
	 "compare: tensors dumped by the reference system (REF) and the trial system\n"
	 "(CAND): safetensors files, torch.save files, or directories of them matched\n"
	 "by tensor name. A tensor passes when |cand - ref| <= atol + rtol * |ref| (the\n"
	 "rule of torch.testing.assert_close, with its defaults per dtype unless\n"
	 "trial.yaml or --rtol/--atol/--tol say otherwise). Reports, per tensor, the\n"
	 "mismatched count, the greatest absolute and relative differences and where,\n"
	 "the smallest atol and rtol that would pass, and the cosine similarity.\n"
	 "model: runs a TorchScript model on the CPU in fp32 and in another numeric\n"
	 "recipe and compares the outputs: precision risk before renting hardware.\n"
	 "curves: two loss curves (CSV, JSONL or MLPerf :::MLLOG lines, or runs: run:N\n"
	 "or a .mtrial/runs log) step by step.\n"
	 "Every result is recorded in the trial ('check list' lists them). A check\n"
	 "recorded with --rehearsal compared stand-ins (two CPU runs, a smaller\n"
	 "config) to test the comparison: listed, but never evidence for decide or\n"
	 "the report's results; 'check mark ID --rehearsal|--evidence' changes it\n"
	 "afterwards. Each subcommand's --help says more. Exit status: 0 pass,\n"
	 "1 mismatch, 2 error.\n"},
	{"run", cmd_run, "run the training command and record the attempt",
	 "Usage: mtrial run [--system baseline|candidate] [--track portability|optimized]\n"
	 "                  [--label L] [--cache cold|warm] [--rehearsal]\n"
	 "                  [--devices N] [--hosts H] [--design matched|best]\n"
	 "                  [--json] -- CMD ARGS...\n\n"
	 "Runs CMD (the training command, or the launcher the team uses: torchrun,\n"
	 "srun, sbatch --wait) as a child process in its own process group, passes\n"
	 "its output through as it is, and keeps every line with its time in the trial's\n"
	 "runs/ directory (\"EPOCH_MS o|e LINE\"). The attempt is recorded when it\n"
	 "starts and again when it ends: success, failed (its exit status) or aborted.\n"
	 "Ctrl-C stops the command and still saves the attempt. Default system:\n"
	 "candidate. --rehearsal records it as a rehearsal: a run that tests the\n"
	 "pipeline, the launcher or the log format (a CPU, a smaller config), listed\n"
	 "but never evidence ('runs mark ID --evidence' counts it after all).\n"
	 "--design says which comparison the run belongs to: matched (the default:\n"
	 "trial.yaml's precision, the same recipe on both systems) or best (each\n"
	 "platform's best recipe, trial.yaml's precision.best, which must be set).\n"
	 "Runs of one design are never compared with runs of the other.\n"
	 "Exit status: 0 when the command succeeded, 1 when it failed, 128+N when\n"
	 "mtrial was stopped by signal N (130 for Ctrl-C, 143 for SIGTERM), as a\n"
	 "shell reports it, even when the command caught the signal and exited 0:\n"
	 "the attempt is recorded as aborted.\n"
	 "Its topology (mtrial scaling groups runs by it): --devices and --hosts, else\n"
	 "the launcher CMD is (torchrun --nproc-per-node x --nnodes, srun -n/-N or the\n"
	 "Slurm allocation's SLURM_NTASKS and SLURM_JOB_NUM_NODES, mpirun -np,\n"
	 "accelerate launch, deepspeed), else trial.yaml's; each value keeps its source.\n"
	 "Started by a launcher once a rank (srun mtrial run -- CMD, mpirun, torchrun\n"
	 "--no-python), rank 0 records one attempt for the job, with its size, id and\n"
	 "hosts (SLURM_PROCID with SLURM_JOB_ID, OMPI_COMM_WORLD_RANK, PMI_RANK,\n"
	 "PMIX_RANK, RANK with WORLD_SIZE; the hosts from Slurm's node list): the\n"
	 "other ranks run CMD, pass its output and exit status on, and record nothing.\n"},
	{"runs", cmd_runs, "the recorded run attempts with their clocks; import runs made elsewhere",
	 "Usage: mtrial runs [--all] [--json]\n"
	 "       mtrial runs show ID [--json]\n"
	 "       mtrial runs import FILE... [--system S] [--track T] [--label L]\n"
	 "                          [--cache cold|warm] [--rehearsal] [--devices N]\n"
	 "                          [--hosts H] [--design matched|best] [--json]\n"
	 "       mtrial runs mark ID --rehearsal|--evidence [--json]\n"
	 "       mtrial runs design ID matched|best --why TEXT [--json]\n\n"
	 "Every attempt, failed ones too, with clock 1 (submission to the first\n"
	 "training step: compilation and start-up), clock 2 (the steady-state mean\n"
	 "step time after warm-up, the same mean as the throughput), stalls, time to\n"
	 "trial.yaml's quality target as it is now (a changed threshold changes it),\n"
	 "MLPerf's minutes, devices, device-hours and cost from trial.yaml's prices,\n"
	 "counted from submission to the end of the attempt (mtrial run: the\n"
	 "process's start to its end; an import: init_start to its last event).\n"
	 "Each attempt's outcome: reached, not reached, no metric (its log never\n"
	 "evaluates the target's metric: a warning names those it does), or failed\n"
	 "or aborted; a log whose submission_benchmark is not workload.model.name is\n"
	 "warned about. --json adds each system's summary (median and olympic mean\n"
	 "time to target, MLPerf minutes, and the attempts by outcome). Logs are read through tables/run_events.yaml: MLPerf :::MLLOG\n"
	 "lines, and the line protocol mtrial:step=N loss=X tokens=T and\n"
	 "mtrial:eval step=N METRIC=V (padded=P: the padding fraction), and Neuron\n"
	 "compile-cache lines (the cache cold or warm, next to --cache). import brings\n"
	 "in runs made elsewhere: those logs, CSV or JSON Lines series (step; time in\n"
	 "seconds since the start, ISO 8601, time_ms or timestamp; loss, tokens,\n"
	 "padded, eval_* metrics; a bad row is a warning naming FILE:LINE), and an\n"
	 "MLPerf system description (systems/NAME.json) whose nodes x accelerators\n"
	 "per node count the imported runs' devices. A log is one attempt: its bytes\n"
	 "imported again, under any name, or a log mtrial run already kept, are\n"
	 "refused naming the run they are (exit 2). A rehearsal (run or import with\n"
	 "--rehearsal, or mark ID --rehearsal) tested the pipeline: it is listed with\n"
	 "its kind, but decide, the per-system figures and the costs leave it out and\n"
	 "it is not priced; mark ID --evidence counts it again. A withdrawn run\n"
	 "(mtrial rm run ID --why TEXT) is hidden from the list, which says how many\n"
	 "it hid (--json: withdrawn_hidden); --all lists them too, kind withdrawn,\n"
	 "with when, by whom and why, and the per-system figures still leave them\n"
	 "out; show ID says so, and --json carries withdrawn {who, why, when} or\n"
	 "null on every run. Each run's design (matched or best, --design) is listed;\n"
	 "design ID matched|best --why TEXT moves a run to the other comparison, and\n"
	 "show ID lists every such change with its reason (--json: design_changes).\n"},
	{"tracks", cmd_tracks, "what each track changed and what it cost in engineering time",
	 "Usage: mtrial tracks [--json]\n"
	 "       mtrial tracks mark [--track T] PATH --reusable|--model-specific [--note TEXT] [--json]\n"
	 "       mtrial tracks unmark [--track T] PATH [--json]\n\n"
	 "For the portability and optimized tracks of trial.yaml (tracks.NAME.base\n"
	 "and .head: revisions of the repository), the changes between base and\n"
	 "head through libgit2: files and lines, each line platform-specific (device\n"
	 "strings, torch_neuronx, NKI kernels, autocast and GradScaler, compile\n"
	 "backends, NeuronCore sharding, CUDA-only packages: tables/\n"
	 "platform_changes.yaml) or generic, each file model code, harness or other;\n"
	 "and the effort timed for the track against the optimized track's budget.\n\n"
	 "mark records what a track's change to a file is: reusable (any model moved\n"
	 "to the platform needs it) or model-specific; the lines of each file count\n"
	 "under its mark. PATH must be a file the track changed; without --track, the\n"
	 "one track that changed it. A new mark replaces the old one. unmark removes\n"
	 "a mark, also one whose file the track no longer changes (listed as stale).\n"},
	{"buckets", cmd_buckets, "the shape buckets that minimise a run's time: compilations against padding",
	 "Usage: mtrial buckets (--lengths FILE | --from run ID) --compile-seconds S|auto\n"
	 "                      --step-seconds A,B[,C]|auto [--multiple-of M] [--max-buckets K]\n"
	 "                      [--design matched|best] [--json]\n\n"
	 "On the target, every new input shape compiles a new graph: each sequence-length\n"
	 "bucket costs one compilation, and every step pays for the padding up to its\n"
	 "bucket. The model, exactly: total = buckets x S + the sum over steps of\n"
	 "A + B*L + C*L^2 at the step's bucket L (the smallest chosen bucket >= its\n"
	 "length). Candidates are the observed lengths rounded up to a multiple of M\n"
	 "(default 1); the largest is always chosen. The optimum is exact (dynamic\n"
	 "programming over the distinct lengths), ties going to fewer buckets, shown\n"
	 "beside padding everything to the longest and a bucket per length.\n"
	 "--lengths FILE: one positive integer per line (a step's longest sequence), or\n"
	 "LENGTH,COUNT lines; '#' starts a comment.\n"
	 "--from run ID: the run's own steps: print seq=LENGTH on each step line\n"
	 "(mtrial:step=N loss=X seq=L), or give a CSV or JSON Lines series a seq column\n"
	 "(seq_len, seqlen, sequence_length too); a line printed every k steps counts k.\n"
	 "--compile-seconds auto: the median compilation measured in the candidate's\n"
	 "runs (mtrial runs show ID: compilations), rehearsals and withdrawn runs left out,\n"
	 "of one design: --design matched or best, by default the design of the run\n"
	 "--from names (matched with --lengths); a --design that is not that run's is\n"
	 "refused. The other design's runs are another experiment, counted as left out,\n"
	 "never in the median.\n"
	 "--step-seconds auto: a least-squares fit of step time against length over the\n"
	 "run's steady steps (warm-up and stalls left out), quadratic with three or more\n"
	 "distinct lengths, else linear; needs --from run.\n"},
	{"breakeven", cmd_breakeven, "from what run length the candidate pays off, in time and cost",
	 "Usage: mtrial breakeven [--baseline CLOCK1_S,STEP_S --candidate CLOCK1_S,STEP_S]\n"
	 "                        [--design matched|best] [--json]\n\n"
	 "A system's total time is its start (clock 1 and its compilations) plus n x its\n"
	 "steady step. The break-even is the step count where the two totals are equal:\n"
	 "before it one system is faster, after it the other. Without the options it\n"
	 "uses the trial's runs that are evidence: per system, the median of clock 1\n"
	 "plus the compilations after the first step, and the median steady step.\n"
	 "With trial.yaml's hourly prices it also gives the break-even for cost. When\n"
	 "one system is faster at every length there is none, and it says why.\n"
	 "It reads the runs of one design, --design matched (the default) or best:\n"
	 "runs of the other are another experiment, never a side of this one.\n"},
	{"scaling", cmd_scaling, "each system's figures per topology: time, device-hours, efficiency",
	 "Usage: mtrial scaling [--system baseline|candidate] [--design matched|best]\n"
	 "                      [--trial DIR] [--json]\n\n"
	 "The runs of one design, --design matched (the default) or best: the other\n"
	 "design's runs are another experiment, counted as left out, never pooled.\n"
	 "The runs of each system grouped by their device count, never pooled: per\n"
	 "topology the runs and failures, the median and olympic-mean time to the\n"
	 "trial's target (MLPerf's run minutes where no run reaches it, and said so),\n"
	 "device-hours at the median, throughput in all and per device, the scaling\n"
	 "efficiency (D0 x T0) / (D x T) against the system's smallest topology (1 is\n"
	 "linear, less is sublinear), the throughput each added device brings against\n"
	 "the next smaller topology, and the share of the steady time spent waiting\n"
	 "for data and communicating (data_s= and comm_s= on the run's step lines).\n"
	 "Where the faster topology costs more device-hours it says so with both\n"
	 "numbers: turnaround and scarce devices are different goods.\n"
	 "A run's devices: mtrial run --devices N (runs import too), else an MLPerf\n"
	 "system description imported with it, else the launcher it wraps (torchrun\n"
	 "--nproc-per-node x --nnodes, srun -n, mpirun -np, accelerate, deepspeed) or\n"
	 "a Slurm step's environment, else trial.yaml: systems.X.topologies, the one\n"
	 "with that device count (or the only one), else the system's count x hosts.\n"},
	{"decide", cmd_decide, "the go/no-go verdict: each criterion met, not met or unknown",
	 "Usage: mtrial decide [--trial DIR] [--json]\n\n"
	 "Judges each criterion of trial.yaml from the record: quality (the candidate's\n"
	 "evaluations, per track), correctness (the recorded checks), ops (the latest\n"
	 "probe against the trial's table, probe.table in trial.yaml, else mtrial\n"
	 "probe's default: unsupported ops, CPU fallbacks against the threshold; a probe\n"
	 "against another table is named and left out), time and cost to\n"
	 "quality (candidate over baseline; device-hours shown apart), effort (hours\n"
	 "against the threshold or the optimized budget), custom (the team's judgement).\n"
	 "Each is met, not met or unknown, with its evidence and source; missing data is\n"
	 "unknown, never met. Verdict: NO_GO when one is not met, NOT_ENOUGH_EVIDENCE\n"
	 "when one is unknown (with what is missing and the command that records it),\n"
	 "GO_WITH_CONDITIONS when all are met under conditions, else GO.\n"
	 "Exit status: 0 for GO, 1 otherwise, 2 for a trial that cannot be read.\n"},
	{"override", cmd_override, "record what the team found out about an op or an API",
	 "Usage: mtrial override OP|API STATUS --note TEXT [--json]\n"
	 "       mtrial override [--json]\n\n"
	 "Records, in the trial's journal, how an op (aten::cumsum) or a public torch\n"
	 "API (torch.cumsum, torch.Tensor.masked_scatter) runs on the candidate as the\n"
	 "team observed it (STATUS: device, cpu_fallback, unsupported, partial), with a\n"
	 "note saying who, where and on which version. 'mtrial probe' ranks it above a\n"
	 "documented table, below ops observed by analyze on real hardware; overrides\n"
	 "written in trial.yaml (probe.overrides: op: or api:) come first. An API's\n"
	 "override decides its calls before its op's does; an op reached only by\n"
	 "overridden APIs follows the worst of them. Without arguments, lists the\n"
	 "recorded overrides, newest first.\n"},
	{"tables", cmd_tables, "list, show, import and update the compatibility tables",
	 "Usage: mtrial tables list [--json]\n"
	 "       mtrial tables show NAME|FILE [--format text|json|yaml] [--json]\n"
	 "       mtrial tables import FILE|URL [--as NAME]\n"
	 "                            [--format markdown|rst|analyze|yaml|auto]\n"
	 "                            [--map FILE] [--backend B] [--version V] [--sha256 HEX]\n"
	 "                            [--timeout SECONDS] [--json]\n"
	 "       mtrial tables update [NAME] [--url URL] [--sha256 HEX] [--timeout SECONDS] [--json]\n\n"
	 "Bundled tables come from the Neuron documentation (tables/README.md);\n"
	 "imported and updated ones are kept in $XDG_DATA_HOME/mtrial/tables (else\n"
	 "~/.local/share/mtrial/tables), where a table shadows a bundled one of the\n"
	 "same name.\n\n"
	 "import reads a Markdown table (columns found by their headers: API or op,\n"
	 "status, dtypes, fallback, notes or limitations, else by their cells; every\n"
	 "such table in the file; TorchNeuron's torch_api_compatibility.md as it is:\n"
	 "Y / CPU_FALLBACK / N, short names under a heading naming their namespace,\n"
	 "the kind, aten ops and dtypes its limitations name), an RST operator list\n"
	 "(every listed op on device), the JSON of torch_neuronx.analyze() or\n"
	 "neuron_parallel_compile --command analyze (an observed table), or a table\n"
	 "in mtrial's own YAML (schema: mtrial-compat/1; NAME defaults to its own;\n"
	 "what show NAME --format yaml writes, and imports again as the same table).\n"
	 "--map FILE names the columns and status words a Markdown file uses:\n"
	 "  columns: {op: \"Header\", status: \"Header\", notes: \"Header\"}\n"
	 "  statuses: {GA: device, Beta: partial, Planned: unsupported, \"n/a\": unknown}\n"
	 "NAME defaults to the file name; the backend to torch-neuronx, the version\n"
	 "to analyze's versions or 'unspecified'. A URL must be https (plain http only\n"
	 "to a loopback address). The table is validated before it is written, with\n"
	 "NAME.origin.json beside it (url, etag, sha256, format, map).\n\n"
	 "update downloads imported tables again (all with a URL, or NAME), with\n"
	 "If-None-Match/If-Modified-Since: a 304 is 'unchanged'. On any failure the\n"
	 "current table is kept. Exit status 1 for the network, 2 for bad input (a\n"
	 "wrong sha256, a body that does not import).\n"},
	{"note", cmd_note, "add a friction note",
	 "Usage: mtrial note TEXT... [--track portability|optimized] [--tag T]... [--json]\n\n"
	 "Adds a friction note to the journal. While an effort timer runs, the note\n"
	 "belongs to that interval and takes its track unless --track is given.\n"
	 "TEXT '-' reads the note from standard input.\n"},
	{"notes", cmd_notes, "list friction notes",
	 "Usage: mtrial notes [--track T] [--tag T] [--json]\n\n"
	 "Lists the notes, oldest first, optionally only those of one track or tag.\n"},
	{"effort", cmd_effort, "engineering effort timers: start, add, stop, status, log",
	 "Usage: mtrial effort start [--track portability|optimized] [--category C] [TEXT...]\n"
	 "       mtrial effort add --duration 1h30m|1.5h|90m [--track T] [--category C] [TEXT...]\n"
	 "       mtrial effort stop\n"
	 "       mtrial effort status [--json]\n"
	 "       mtrial effort log [--json]\n\n"
	 "One timer runs at a time for the whole trial, shared by every terminal.\n"
	 "Categories: setup, getting-a-correct-run, debugging, waiting-for-compile,\n"
	 "optimization, other (default). 'add' records an interval that ends now, for\n"
	 "time spent while the timer was off (--duration: hours, minutes, seconds,\n"
	 "decimals allowed: 45m, 1h30m, 1.5h; at most a week). 'log' lists every\n"
	 "interval and the totals by track and category.\n"},
	{"rm", cmd_rm, "withdraw a mistaken run, check, override, effort interval or note",
	 "Usage: mtrial rm run|check|override|effort|note ID --why TEXT [--json]\n"
	 "       mtrial rm --list [--json]\n\n"
	 "Withdraws a record made by mistake (the ID is the one its listing shows:\n"
	 "mtrial runs, check list, override, effort log, notes). Nothing is deleted:\n"
	 "the journal keeps the record with who withdrew it (git's user.name, else\n"
	 "$USER), when and why, and runs, decide, the report and the wizard leave it\n"
	 "out from then on. A running effort timer is stopped first. --list shows the\n"
	 "withdrawn records apart, with who, when and why.\n"},
	{"report", cmd_report, "render the summary of the trial record",
	 "Usage: mtrial report [--format md|html|json] [-o FILE] [--trial DIR]\n\n"
	 "Renders what the record holds, in the order a reader needs it: workload,\n"
	 "quality target and accounting boundary; the verdict with each criterion\n"
	 "and its evidence; compatibility, correctness, runs, tracks and effort,\n"
	 "friction notes, every assumption and omission. md and html go through\n"
	 "templates/summary.md and summary.html (a single self-contained file with\n"
	 "inline CSS and SVG charts, no script); json prints the model they are\n"
	 "rendered from. -o writes FILE atomically instead of standard output.\n"
	 "MTRIAL_TEMPLATE_DIR overrides the templates compiled into the binary.\n"},
	{"bundle", cmd_bundle, "pack the trial for another team to verify and repeat; verify a bundle",
	 "Usage: mtrial bundle -o FILE.tar.gz [--redact] [--json]\n"
	 "       mtrial bundle verify FILE [--json]\n\n"
	 "Writes one gzip-compressed tar (ustar) of the trial: trial.yaml; the record\n"
	 "(record/events/*.jsonl as they are, record/objects/ when there are any);\n"
	 "every run's log as logs/ID-SYSTEM.log, wherever it was; the checks'\n"
	 "results (checks.json); each system's software versions\n"
	 "(environment.json); where the trial was (origin.json); each track's\n"
	 "changes as tracks/NAME.patch and as mtrial counted them (NAME.json); the\n"
	 "report (report.md, report.html); FORMAT, saying what each is; and MANIFEST, the\n"
	 "first entry: \"SHA256  SIZE  NAME\" for every other entry, sorted by name.\n"
	 "A log that cannot be read, or a track whose changes are not known, is left\n"
	 "out and said.\n\n"
	 "--redact leaves out the notes tagged private (and the events naming them),\n"
	 "replaces host names by {host} and absolute paths by {path}/NAME in\n"
	 "trial.yaml (a value that would then start with '{' quoted), the record,\n"
	 "the artefacts it names (scan, probe and inventory results, run logs:\n"
	 "each named again by the sha256 of its redacted content, the events\n"
	 "naming the new one), the logs and the patches; makes the report and\n"
	 "checks.json from that record, as a trial made from the bundle makes\n"
	 "them; and says how many of each it dropped or rewrote. An artefact the\n"
	 "trial lacks is not carried, and said.\n\n"
	 "verify reads FILE whole (at most 512 MiB inflated) and checks it: gzip's\n"
	 "CRC and length, each tar header's checksum, fields and size, names (no\n"
	 "absolute path, '..', link or device), then every entry against MANIFEST\n"
	 "(missing, not listed, another size, another sha256). Exit 2 names the\n"
	 "entry and what is wrong. mtrial init --from-bundle makes a read-only\n"
	 "trial from a bundle that verifies.\n"},
	{"index", cmd_index, "the events files the journal indexes; rebuild the index",
	 "Usage: mtrial index [--rebuild] [--json]\n\n"
	 "The trial's record is the events files in .mtrial/events/ (one per writer:\n"
	 "a host and a random id); journal.db is an index of them, brought up to date\n"
	 "whenever the trial is opened. Lists the files, the events indexed and every\n"
	 "line refused (not an event, a newer version, a duplicate id with another\n"
	 "payload, a payload that does not hold) as FILE:LINE with why; a last line\n"
	 "cut short is left unread, with a warning. --rebuild makes the index again\n"
	 "from the files (the local ids are given again; rows another tool wrote into\n"
	 "journal.db alone become events first).\n"},
	{"sync", cmd_sync, "share the trial's record with a git remote: fetch, union, push",
	 "Usage: mtrial sync [REMOTE] [--json]\n\n"
	 "Exchanges the trial's events (.mtrial/events/) and artefacts (.mtrial/objects/)\n"
	 "with REMOTE (default origin: a remote's name, URL or path) through a ref of\n"
	 "their own, refs/mtrial/trial (refs/mtrial/trial-PATH for a trial directory\n"
	 "elsewhere in the repository), whose commit's tree holds those files. It\n"
	 "fetches the remote's ref into refs/mtrial/remotes/REMOTE/..., adds what the\n"
	 "remote has to the local files (a writer's file only grows: of two versions\n"
	 "the longer wins when the other is its start; an object is copied when\n"
	 "missing), commits the union over both tips when it differs and pushes it,\n"
	 "fetching again when the remote moved meanwhile (5 attempts). No branch, index\n"
	 "or work-tree file outside the trial directory is touched. Syncing again with\n"
	 "nothing new makes no commit.\n"
	 "Trees, commits and refs go through libgit2; fetch and push run the git command\n"
	 "(git ls-remote, git fetch, git push), so ssh agents, credential helpers and\n"
	 "the rest of the user's git setup apply; git's words are shown when it fails.\n"
	 "A remote file that cannot be taken (two versions of a writer's file where\n"
	 "neither is the start of the other, an object with another content, a path\n"
	 "outside events/ and objects/, a symlink) is refused and named, the local one\n"
	 "kept, the rest synced; the exit status is then 2. The time, the remote and its\n"
	 "tip are kept in .mtrial/synced (local), shown by the wizard's Summary.\n"},
	{"doctor", cmd_doctor, "show library versions and what mtrial can use here",
	 "Usage: mtrial doctor [--json]\n\n"
	 "Shows the version of every library mtrial uses and whether it was found,\n"
	 "and loads the libtorch shim (the only command so far that does) to report\n"
	 "libtorch's version and its number of registered operators. In a trial,\n"
	 "also what is wrong with its record: lines of events files refused,\n"
	 "artefacts missing, a journal.db committed to git; and it removes the\n"
	 "temporary files (objects/.../NAME.tmp.PID) of artefact writers killed\n"
	 "mid-write, never a running one's, saying how many.\n"},
	{"tui", cmd_tui, "open the wizard (also: mtrial with no command)",
	 "Usage: mtrial [--trial DIR] tui\n\n"
	 "Opens the wizard on the trial. Keys: arrows/j/k move, Tab switches focus,\n"
	 "Enter opens a step, n adds a note, t starts/stops the effort timer,\n"
	 "? help, q quits.\n"},
	{NULL, NULL, NULL, NULL},
};

static void print_help(FILE *out)
{
	fputs("mtrial " MT_VERSION " - an honest migration trial of PyTorch training code\n\n"
	      "Usage: mtrial [--trial DIR] [COMMAND] [ARGS]\n\n"
	      "With no command on a terminal, opens the wizard.\n\nCommands:\n",
	      out);
	for (const struct cli_command *c = cli_commands; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->summary);
	fputs("\nGlobal options: --trial DIR (else $MTRIAL_DIR, else .mtrial/ found from the\n"
	      "current directory upward), --version, --help. Every command takes --json.\n"
	      "Exit status: 0 ok, 1 a check failed or the verdict is negative,\n"
	      "2 usage or input error.\n",
	      out);
}

static const struct cli_command *find_command(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* A command's exit status: an MT_E* code it returned as it was (an exit
 * status of 253 and no word before) is said and mapped as cli_fail does. */
static int status_of(struct cli *cli, int rc)
{
	return rc < 0 ? cli_fail(cli, rc) : rc;
}

int main(int argc, char **argv)
{
	struct cli cli = {0};
	int i = 1;

	/* before anything is printed: argv, messages and every command's text */
	cli_output_filter();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--version") == 0) {
			printf("mtrial %s\n", MT_VERSION);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			print_help(stdout);
			return 0;
		} else if (strcmp(argv[i], "--trial") == 0 && i + 1 < argc) {
			cli.trial_dir = argv[++i];
		} else if (strncmp(argv[i], "--trial=", 8) == 0) {
			cli.trial_dir = argv[i] + 8;
		} else {
			fprintf(stderr, "mtrial: unknown option '%s'\nTry 'mtrial --help'.\n",
				argv[i]);
			return CLI_EXIT_USAGE;
		}
	}
	if (i == argc) {
		if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
			cli_output_raw(); /* curses needs the real stdout */
			cli.cmd = find_command("tui");
			return status_of(&cli, cli.cmd->run(&cli, 1, (char *[]){"tui", NULL}));
		}
		print_help(stderr);
		return CLI_EXIT_USAGE;
	}
	cli.cmd = find_command(argv[i]);
	if (!cli.cmd) {
		fprintf(stderr, "mtrial: unknown command '%s'\nTry 'mtrial --help'.\n", argv[i]);
		return CLI_EXIT_USAGE;
	}
	if (cli.cmd->run == cmd_tui)
		cli_output_raw();
	mt_error_clear();
	return status_of(&cli, cli.cmd->run(&cli, argc - i, argv + i));
}
