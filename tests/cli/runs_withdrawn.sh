# A withdrawn run (mtrial rm run ID --why) in `mtrial runs`: the list hides
# it and says how many it hid; --all lists it, marked, with when, by whom
# and why; the per-system figures leave it out either way; `runs show ID`
# says it is withdrawn; the JSON carries it on every run. What the
# withdrawal says is text from outside: sanitised before a terminal sees it.
. "$MT_SOURCE_DIR/tests/lib.sh"
export HOME=$T_TMP/home
mkdir -p "$HOME"
git config --global user.name "Ada Tester"
R=$T_TMP/repo
new_repo "$R"
cd "$R"
run_mt 0 init --name withdrawn
cat >.mtrial/trial.yaml <<'YAML'
schema: 1
name: withdrawn
systems:
  baseline: {accelerator: A100, count: 8, hosts: 1, price: {hourly: 30, currency: USD}}
  candidate: {accelerator: Trainium2, count: 16, hosts: 1, price: {hourly: 40, currency: USD}}
quality_target: {metric: eval_loss, threshold: 2.2, direction: lower}
YAML
# three candidate runs: #1 and #2 reach the target, #3 does not
t0=1700000000000
for i in 1 2 3; do
	loss=$([ "$i" = 3 ] && echo 2.5 || echo 2.1)
	{
		echo "attempt $i" # three attempts, three logs (one log is imported once)
		echo "mtrial:step=1 loss=2.9 time_ms=$((t0 + 1000))"
		echo "mtrial:step=2 loss=2.4 time_ms=$((t0 + 2000))"
		echo "mtrial:eval step=2 eval_loss=$loss time_ms=$((t0 + 2100))"
	} >"$T_TMP/r$i.log"
done
run_mt 0 runs import --system candidate "$T_TMP/r1.log" "$T_TMP/r2.log" "$T_TMP/r3.log"
run_mt 0 runs --json
eq "$(json 'j["systems"]["candidate"]["reached"]')" 2 "before: two runs reached the target"
eq "$(json '[r["withdrawn"] for r in j["runs"]]')" "[None, None, None]" "every run says it stands"

run_mt 0 rm run 2 --why "wrong config"
# --- the default list: hidden, and counted ---
run_mt 0 runs
hasnt "#2 " "$OUT" "the withdrawn run is not listed"
has "1 withdrawn run hidden: mtrial runs --all lists it" "$OUT" "the list says what it hid"
has "candidate: 2 runs: 1 reached the target" "$OUT" "the per-system figures leave it out"
run_mt 0 runs --json
eq "$(json '[r["id"] for r in j["runs"]]')" "[1, 3]" "JSON: the standing runs"
eq "$(json 'j["withdrawn_hidden"]')" 1 "JSON: how many are hidden"
eq "$(json 'j["systems"]["candidate"]["runs"], j["systems"]["candidate"]["reached"]')" "2 1" \
	"JSON: the figures leave it out"

# --- --all: listed, marked, still left out of the figures ---
run_mt 0 runs --all
has "#2    candidate withdrawn" "$OUT" "--all lists it, kind withdrawn"
has "#1    candidate evidence" "$OUT" "... beside the standing runs"
has "#2: withdrawn " "$OUT" "... with when"
has " by Ada Tester: wrong config (left out of every figure)" "$OUT" "... by whom and why"
hasnt "hidden" "$OUT" "nothing hidden with --all"
has "candidate: 2 runs: 1 reached the target" "$OUT" "--all: the figures still leave it out"
run_mt 0 runs --all --json
eq "$(json '[r["id"] for r in j["runs"]]')" "[1, 2, 3]" "--all --json: every run"
eq "$(json 'j["runs"][1]["withdrawn"]["who"], j["runs"][1]["withdrawn"]["why"]')" \
	"Ada Tester wrong config" "--all --json: who and why"
eq "$(json 'j["runs"][0]["withdrawn"]')" None "--all --json: a standing run's is null"
eq "$(json 'j["withdrawn_hidden"]')" 0 "--all --json: nothing hidden"
eq "$(json 'j["systems"]["candidate"]["runs"]')" 2 "--all --json: the figures leave it out"

# --- show ---
run_mt 0 runs show 2
has "  withdrawn " "$OUT" "show says it is withdrawn"
has "by Ada Tester: wrong config (left out of every figure)" "$OUT" "... by whom and why"
run_mt 0 runs show 2 --json
eq "$(json 'j["withdrawn"]["why"]')" "wrong config" "show --json carries it"
run_mt 0 runs show 1
hasnt "withdrawn" "$OUT" "a standing run says nothing of it"
run_mt 0 runs show 1 --json
eq "$(json 'j["withdrawn"]')" None "show --json: null for a standing run"
run_mt 2 runs show 2 --all; has "--all lists the runs" "$ERR" "--all is for the list"
run_mt 2 runs --all extra; has "unexpected argument 'extra'" "$ERR" "no argument"

# --- a hostile reason reaches no terminal as it is ---
run_mt 0 rm run 3 --why "$(printf 'typo\033]0;pwned\007\033[2J')"
run_mt 0 runs --all
hasnt "$(printf '\033')" "$OUT" "no escape byte in the list"
has "typo?]0;pwned??[2J" "$OUT" "... the controls shown as ?"
run_mt 0 runs --all --json
eq "$(json 'j["runs"][2]["withdrawn"]["why"]')" "$(printf 'typo\033]0;pwned\007\033[2J')" \
	"JSON keeps the text (escaped)"

# --- every run withdrawn ---
run_mt 0 rm run 1 --why "stand-in"
run_mt 0 runs
has "No runs listed: 3 withdrawn (mtrial runs --all lists them)." "$OUT" "none left: said, not 'no runs yet'"
hasnt "No runs recorded yet" "$OUT" "... never 'no runs recorded yet'"
finish
