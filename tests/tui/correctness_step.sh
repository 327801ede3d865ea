#!/usr/bin/env bash
# The Correctness step lists the recorded checks, newest first, with their
# verdicts; Enter shows one: a tensor comparison as a table worst first with
# the selected tensor's failure in assert_close's words and (H) the error
# histogram by decade with the tolerance's decade marked; a curve
# comparison as the two curves overlaid with the first step outside the
# band marked. `c` runs a tensor comparison from prompts (paths, then rtol
# and atol; empty takes trial.yaml's) with the result recorded and shown;
# `L` compares two curves. Bad paths and files say so and record nothing.
. "$(dirname "$0")/lib/harness.bash"

for tool in git sqlite3; do
	command -v "$tool" >/dev/null ||
		{ echo "$tool is needed" >&2; echo "0 passed, 1 failed"; exit 1; }
done
CURVES=$MT_SOURCE_DIR/tests/data/curves

# --- the fixture: tensors written by hand (safetensors: an 8-byte header
# length, a JSON header, the data). In cand, layer.0.weight is off by 0.5
# at (0, 2): it fails; head.out is off by 1e-7 and layer.0.bias not at all.
cat >"$T/tensors.py" <<'EOF'
import json, struct, sys

def write(path, tensors):
    header, blobs, off = {}, [], 0
    for name, (dtype, shape, vals) in tensors.items():
        b = struct.pack("<%d%s" % (len(vals), {"F32": "f", "F64": "d"}[dtype]), *vals)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))

out = sys.argv[1]
ref = {"layer.0.weight": ("F32", [2, 3], [1, 2, 3, 4, 5, 6]),
       "layer.0.bias": ("F32", [3], [0.5, 0.25, 0.125]),
       "head.out": ("F64", [4], [1, 2, 3, 4])}
cand = dict(ref)
cand["layer.0.weight"] = ("F32", [2, 3], [1, 2, 3.5, 4, 5, 6])
cand["head.out"] = ("F64", [4], [1, 2, 3, 4.0000001])
write(out + "/ref.safetensors", ref)
write(out + "/cand.safetensors", cand)
EOF
/usr/bin/python3 "$T/tensors.py" "$T" || { echo "cannot write the tensors" >&2; finish; }
printf 'not a tensor file\n' >"$T/junk.safetensors"

checks() { sqlite3 "$REPO/.mtrial/journal.db" "select count(*) from checks"; }
# source ID: where check ID's worst tensor's tolerance came from.
source_of() {
	sqlite3 "$REPO/.mtrial/journal.db" \
		"select json_extract(result, '\$.tensors[0].tolerance_source') from checks where id = $1"
}
new_trial correctness-trial
start_shell 80 24
start_wizard
keys j j
check "with no check, the step says so" wait_for '│   Nothing recorded yet\.$'
check "... and which keys compare" wait_for 'Press c to compare'

# recorded by an author whose name (text from another machine) holds an
# escape sequence a terminal would obey
GIT_AUTHOR_NAME=$(printf 'Cy \033[2JC') mt check compare "$T/ref.safetensors" "$T/cand.safetensors" >/dev/null
mt check curves "$CURVES/ref.csv" "$CURVES/diverged.jsonl" >/dev/null
check "two checks recorded by the CLI" test "$(checks)" = 2

# --- the list ----------------------------------------------------------------
check "the checks recorded in another terminal show, newest first" \
	wait_for '│   #2   curves  FAIL loss: diverged from step 30$'
check "... the tensor comparison after it, with its verdict and summary" \
	wait_for '│   #1   compare FAIL 1 of 3 tensors failed$'
order=$(screen | grep -nE '#[12] +(curves|compare) ' | cut -d: -f1 | tr '\n' ' ')
check "... #2 above #1" test "$(echo $order | cut -d' ' -f1)" -lt "$(echo $order | cut -d' ' -f2)"
check "the selected check's files under the list" \
	wait_for '│   candidate  .*curves/diverged\.jsonl$'
check "the heading says the step is done" wait_for '│ Correctness \(done\)'

# --- a tensor comparison in full ----------------------------------------------
keys Enter j
check "j selects the comparison" wait_for '│ ── #1 compare, '
check "... its rule says who recorded it, sanitised" wait_for '│ ── #1 compare, .* by Cy .\[2JC ─+$'
keys Enter
check "Enter shows it: its header" wait_for '│ Check #1 compare FAIL '
check "... who recorded it, on the heading's line" \
	wait_for '│ Check #1 compare FAIL  .* by Cy .\[2JC$'
check "... the tensors, worst first" wait_for '│ 3 tensors, worst first: 1 failed  H histogram$'
check "... a table with its columns" wait_for '│      tensor +mismatch max \|diff\|  min atol$'
first=$(screen | grep -A1 -E '│      tensor ' | tail -1)
check "... the failing tensor first: its mismatches, greatest difference, min atol" \
	grep -qE '│ FAIL layer\.0\.weight +1/6 +0\.5 +0\.5$' <<<"$first"
check "... then the passing ones" wait_for '│ ok   head\.out +0/4 +1e-07 +1e-07$'
check "the selected tensor's failure in assert_close's words" \
	wait_for '│   Tensor-likes are not close!$'
check "... the mismatched elements" wait_for '│   Mismatched elements: 1 / 6 \(16\.7%\)$'
check "... the greatest absolute difference and where" \
	wait_for '│   Greatest absolute difference: 0\.5 at index \(0, 2\)$'
check "... the tolerance and where it came from" \
	wait_for '│   Tolerance rtol 1\.3e-06, atol 1e-05 from default'
keys j
check "j selects the next tensor: it passes" wait_for '│ ── head\.out ─'
check "... and says so" wait_for '│   Close: every element within atol \+ rtol \* \|ref\|$'

keys H
check "H shows the error histogram" \
	wait_for '│ Error histogram: tensors by greatest \|cand - ref\|$'
check "... a bar for the tensor off by 0.5" wait_for '│   1e-1\.\.1    █+ 1$'
check "... for the one off by 1e-7" wait_for '│   1e-7\.\.1e-6 █+ 1( |$)'
check "... for the equal one" wait_for '│   0          █+ 1$'
check "... an empty decade" wait_for '│   1e-3\.\.1e-2 0$'
check "... the float32 tolerance's decade marked" wait_for '│   1e-5\.\.1e-4 0  ◂ atol 1e-05$'
check "... and float64's" wait_for '│   1e-7\.\.1e-6 █+ 1  ◂ atol 1e-07$'
keys H
check "H again: the table" wait_for '│ 3 tensors, worst first'

# --- two curves overlaid -------------------------------------------------------
keys Escape
check "Esc: back to the list" wait_for '│ 2 checks, newest first'
keys k Enter
check "the curve comparison in full" wait_for '│ Check #2 curves FAIL '
check "... its verdict and band" wait_for '│   FAIL: 20 of 50 points outside rtol 0\.05, atol 0$'
check "... where it diverged" wait_for '│   first outside at step 30; diverged from step 30'
check "... the reference drawn with *" wait_for '│ +[0-9.]+ │ .*\*\*\*'
check "... the candidate with o" wait_for '│ .*│ +o+$'
check "... both together with #" wait_for '│ +│#####'
check "... the first divergent step marked under the axis" wait_for '│ +step 0 +\^ 30 +49$'
check "... a line up the plot at that step" \
	test "$(screen | grep -cE '│ +([0-9.]+ )?│ {24}│')" -ge 3
check "... and a legend" wait_for '│   \* reference  o candidate  # both  │ first outside$'
keys Escape

# --- a comparison run from the wizard ----------------------------------------
keys c
check "c asks for the reference, starting from the last one compared" \
	wait_for '^reference tensors \(file or directory\): .*ref\.safetensors$'
keys Enter
check "... then the candidate" wait_for '^candidate tensors: .*cand\.safetensors$'
keys Enter
check "... then rtol" wait_for '^rtol \(empty: trial.yaml.s, else the dtype.s default\):'
text "0.2"
keys Enter
check "... then atol" wait_for '^atol \(empty: '
text "0.6"
keys Enter
check "the comparison is recorded and the message says so" \
	wait_for '^Check #3 recorded: compare, pass$'
check "... in the journal" test "$(checks)" = 3
check "... and shown" wait_for '│ Check #3 compare pass '
check "... with the tolerances typed" wait_for '│   Tolerance rtol 0\.2, atol 0\.6 from typed in the'
check "... recorded as typed in the wizard" test "$(source_of 3)" = "typed in the wizard"

keys Escape c C-u
text "$T/missing.safetensors"
keys Enter Enter Enter Enter
check "a reference that does not exist: the message line says so" \
	wait_for '^comparison not run: .*missing\.safetensors'
check "... nothing is recorded" test "$(checks)" = 3
check "... and the step still lists every check" wait_for '│   #3   compare pass '

keys c Enter C-u
text "$T/junk.safetensors"
keys Enter Enter Enter
check "a file that is not a tensor file: the message line says so" \
	wait_for '^comparison not run: .*junk\.safetensors'
check "... nothing is recorded" test "$(checks)" = 3

keys c Enter Enter
text "abc"
keys Enter Enter
check "an rtol that is not a number: the message line says so" \
	wait_for "^rtol 'abc' is not a number >= 0: nothing compared$"
keys c Escape
check "Esc cancels the prompts" wait_for '^Cancelled: nothing compared$'
check "... nothing is recorded" test "$(checks)" = 3

# trial.yaml's tolerances apply when none is typed.
sed -i -e '0,/^    atol:$/s//    atol: 0.7/' -e '0,/^    rtol:$/s//    rtol: 0.01/' \
	"$REPO/.mtrial/trial.yaml"
check "trial.yaml reloaded" wait_for '^trial.yaml reloaded$'
keys c Enter Enter Enter Enter
check "empty tolerances take trial.yaml's" wait_for '^Check #4 recorded: compare, pass$'
check "... and say so" wait_for '│   Tolerance rtol 0\.01, atol 0\.7 from trial\.yaml'
check "... as the CLI names them" test "$(source_of 4)" = "trial.yaml tolerances.default"

# --- curves from the wizard ----------------------------------------------------
keys L
check "L asks for the reference curve, starting from the last one" \
	wait_for '^reference loss curve \(a CSV, JSONL or MLPerf file, or run:N\): .*ref\.csv$'
keys Enter C-u
text "$CURVES/cand.jsonl"
keys Enter
check "the curves are compared and recorded" wait_for '^Check #5 recorded: curves, '
check "... in the journal" test "$(checks)" = 5
check "... and drawn" wait_for '│ Check #5 curves '
keys L C-u
text "$T/missing.csv"
keys Enter Enter
check "a curve that does not exist: the message line says so" \
	wait_for '^curves not compared: .*missing\.csv'
check "... nothing is recorded" test "$(checks)" = 5

# --- a rehearsal check, recorded in another terminal ------------------------------
keys Escape
mt check curves --rehearsal "$CURVES/ref.csv" "$CURVES/ref.csv" >/dev/null
check "a rehearsal check is recorded by the CLI" test "$(checks)" = 6
check "the title counts the rehearsals" wait_for '│ 6 checks, 1 rehearsal \(R\)'
check "... the rehearsal is marked R in the list" wait_for '│   #6 R curves  pass loss: [0-9]+ points in the band$'
check "... and the others are not" wait_for '│   #5   curves  '
keys g
check "its preview says it is a rehearsal" wait_for '│ ── #6 curves, a rehearsal, '
keys Enter
check "its page says it is not evidence" wait_for '│ Check #6 curves pass  rehearsal: not evidence  '
keys Escape

# --- a torch.save file whose pickle calls os.system: said beside the verdict ----
/usr/bin/python3 "$MT_SOURCE_DIR/tests/check/make_hostile.py" "$T/hostile" >/dev/null 2>&1
mt check compare "$T/hostile/plain.pt" "$T/hostile/code.pt" >/dev/null
check "the check is recorded" test "$(checks)" = 7
keys g
check "the list says the pickle calls os.system" wait_for '│   #7   compare pass pickle calls posix\.system;'

# --- two runs' curves, named by their ids -----------------------------------------
mt run -- sh -c 'echo "mtrial:step=1 loss=3"; echo "mtrial:step=2 loss=2"' >/dev/null 2>&1
mt run -- sh -c 'echo "mtrial:step=1 loss=3.05"; echo "mtrial:step=2 loss=2.5"' >/dev/null 2>&1
keys L C-u
text run:1
keys Enter C-u
text run:2
keys Enter
check "two runs compared by id" wait_for '^Check #8 recorded: curves, FAIL'
check "... the runs named in the record" test "$(sqlite3 "$REPO/.mtrial/journal.db" \
	"select json_extract(result, '\$.reference') like 'run #1 (candidate): %' from checks where id = 8")" = 1
keys Escape
tm resize-window -t "$SESSION" -x 120 -y 24
check "... the list names the runs, not their log files" wait_for '│   #8   curves  FAIL run #1 vs run #2 +loss: '
check "... the preview keeps the run's label whole, and the log's name" \
	wait_for '│   reference  run #1 \(candidate\): .*\.log$'
tm resize-window -t "$SESSION" -x 80 -y 24

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'

# --- without colours, the curves still read --------------------------------------
tm kill-session -t "$SESSION" 2>/dev/null
start_shell 80 24 NO_COLOR=1
start_wizard
keys j j Enter Enter
check "NO_COLOR: the curves are told apart by their letters" wait_for '│   \* reference  o candidate  # both'
check "NO_COLOR: no colours" \
	bash -c "! tmux -u -L '$SOCKET' capture-pane -e -p -t '$SESSION' | grep -qE $'\e\\\\[[0-9;]*(3[0-7]|4[0-7])m'"
keys q
wait_for '^wizard-exit=0$'

finish
