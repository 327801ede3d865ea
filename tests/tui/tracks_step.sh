#!/usr/bin/env bash
# Tracks & effort: what each track changed (lines, platform-specific lines,
# lines by mark), the effort against the budget. Enter lists every changed
# file under its track with the selected one's platform-specific lines, its
# mark, its track's effort, budget, timer and notes; j/k skip the tracks'
# headings; m marks the file reusable, model-specific, then not at all, as
# `mtrial tracks` reads it; a mark made in another terminal, a timer started
# there and a revision that does not exist show; Esc goes back. On a narrow
# pane the list drops the kind column first.
. "$(dirname "$0")/lib/harness.bash"

new_trial tracks-trial
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
(
	cd "$REPO" && git symbolic-ref HEAD refs/heads/main || exit 1
	printf 'import torch\nclass Net(torch.nn.Module):\n    pass\n' >model.py
	printf 'import torch\ndevice = "cuda"\nscaler = torch.cuda.amp.GradScaler()\nprint(1)\n' >train.py
	printf 'torch\nflash-attn\n' >requirements.txt
	git add model.py train.py requirements.txt && git commit -qm baseline
	git checkout -qb port
	# train.py: 2 platform lines out, 2 in, 1 generic line in; flash-attn out
	printf 'import torch\nimport torch_neuronx\ndevice = "neuron"\nprint(1)\nprint(2)\n' >train.py
	printf 'torch\n' >requirements.txt
	git commit -qam port
	git checkout -qb fast
	printf 'def bucket(n):\n    return (n + 127) // 128 * 128\n' >>model.py
	git commit -qam buckets
	git checkout -q main
) || exit 1
cat >"$REPO/.mtrial/trial.yaml" <<'YAML'
schema: 1
name: tracks-trial
tracks:
  portability: {base: main, head: port, description: "minimal port"}
  optimized: {base: main, head: fast, budget_hours: 10}
YAML
mt effort add --duration 5h --track optimized --category optimization buckets >/dev/null
mt note "bf16 needs autocast" --track optimized >/dev/null
marks() { mt tracks --json | jq -r "[.[] | .name as \$t | .changes.files[] | \"\(\$t):\(.path)=\(.mark)\"] | join(\" \")"; }

start_shell 80 24
start_wizard
keys j j j j
# --- the overview ----------------------------------------------------------------
check "the code changes of each track" wait_for '│ Code changes  Enter lists the files$'
check "... the portability track's lines" \
	wait_for '│   portability   2 files, \+3 -3, 5 platform lines$'
check "... by kind" wait_for '│ +model 0, harness 6, other 0$'
check "... by mark" wait_for '│ +marked reusable 0, model-specific 0$'
keys Enter NPage
check "the optimized track against its budget" \
	wait_for '│   budget        50% of 10 h \(optimized\)$'
keys g

# --- the files ---------------------------------------------------------------------
keys Enter
check "Enter lists the files" wait_for '│ Changed files  m marks, Esc back$'
check "the columns" wait_for '│ kind       \+    - plat mark     path$'
check "the portability track's heading" \
	wait_for '│ portability main..port: 2 files, 5 platform lines$'
check "a file: kind, lines, platform-specific lines, mark" \
	wait_for '│ harness    0    1    1 -        requirements.txt$'
check "the optimized track's heading" wait_for '│ optimized main..fast: 3 files, 5 platform lines$'
check "the first file is selected: its platform-specific line" \
	wait_for '│   -2    cuda-package  flash-attn$'
check "... its mark" wait_for '│   mark     not marked \(m: reusable, model-specific\)$'
check "... its track's effort" wait_for '│   effort   0s, no budget in trial.yaml$'
check "... the timer" wait_for '│   timer    off \(t starts it\)$'
check "... the track's notes" wait_for '│   notes    none on this track \(n adds one\)$'
keys j
check "j: the next file" wait_for '│ ── train.py, portability ─'
check "... its platform-specific lines with their numbers and rules" \
	wait_for '│   -2    cuda-device  device = "cuda"$'
check "... added ones too" wait_for '│   \+2    neuron-device  import torch_neuronx$'

keys m
check "m marks it reusable" wait_for '│ Changed files  train.py: reusable$'
check "... the row says so" wait_for '│ harness    3    2    4 reusable train.py$'
check "... and mtrial tracks reads it" wait_cmd bash -c "[[ \"\$(cd '$REPO' && '$MTRIAL' tracks --json | jq -r '.[0].changes.files[1].mark')\" == reusable ]]"
keys m
check "m again: model-specific" wait_for '│ harness    3    2    4 specific train.py$'
check "... the detail in full" wait_for '│   mark     model-specific$'
keys m
check "m again: not marked" wait_for '│ Changed files  train.py: mark removed$'
check "... as mtrial tracks reads it" wait_cmd bash -c "[[ \"\$(cd '$REPO' && '$MTRIAL' tracks --json | jq -r '.[0].changes.files[1].mark')\" == null ]]"

keys j
check "j skips the optimized track's heading" wait_for '│ ── model.py, optimized ─'
check "... the optimized track's effort against its budget" \
	wait_for '│   effort   5h 00m of a 10 h budget \(50%\)$'
check "... its newest note" wait_for '│   notes    1; newest: bf16 needs autocast$'
check "... a file without platform-specific lines says so" \
	wait_for '│   no platform-specific line$'
keys k
check "k goes back over the heading" wait_for '│ ── train.py, portability ─'

# --- from another terminal ----------------------------------------------------------
mt tracks mark --track optimized model.py --model-specific --note "buckets for this model" >/dev/null
mt effort start --track portability --category debugging >/dev/null
check "a mark made elsewhere shows" wait_for '│ model +2 +0 +0 specific model.py$'
check "a timer started elsewhere shows, running" \
	wait_for '│   timer    on 0:00:[0-9]{2} debugging, portability$'
check "... and counts in the track's effort" wait_for '│   effort   [0-9]+s, no budget in trial.yaml$'
check "the marks as mtrial tracks has them" \
	test "$(marks)" = "portability:requirements.txt=null portability:train.py=null optimized:model.py=model-specific optimized:requirements.txt=null optimized:train.py=null"
mt effort stop >/dev/null

# --- back, and what cannot be known ---------------------------------------------------
keys Escape
check "Esc goes back to the overview" wait_for '│ Code changes  Enter lists the files$'
check "... its marks totalled" wait_for '│ +marked reusable 0, model-specific 2$'
sed -i 's/head: fast/head: nosuch/' "$REPO/.mtrial/trial.yaml"
check "a revision that does not exist is named" \
	wait_for "│   optimized     not known: revision 'nosuch' not"
keys Enter
check "... and in the list, under its heading" \
	wait_for "│     revision 'nosuch' not found in the repository$"
masked_screen | sed 's/^/  | /'

# --- a narrow pane -----------------------------------------------------------------------
tm resize-window -t "$SESSION" -x 66 -y 24
check "under 46 columns the kind column goes" wait_for '│    \+    - plat mark     path$'
check "... the rows keep the rest" wait_for '│    0    1    1 -        requirements.txt$'

keys q
check "q quits with status 0" wait_for '^wizard-exit=0$'
finish
