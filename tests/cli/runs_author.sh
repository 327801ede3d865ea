# Who recorded a run (issue 19): `runs --json` and `runs show ID --json`
# carry the run.add event's author {name, email, host}, each run its own;
# `runs show ID` says it in a line, sanitised (the name is text from
# another machine). The report and decide read the same rows: the key
# changes neither (tests/cli/report.sh, decide*.sh pin their output).
. "$MT_SOURCE_DIR/tests/lib.sh"
export HOME=$T_TMP/home
mkdir -p "$HOME"
git config --global user.name "Ada Runs"
git config --global user.email ada@example.com
new_repo "$T_TMP/repo"
cd "$T_TMP/repo"
run_mt 0 init --name runs-author
printf 'mtrial:step=1 loss=2.9 time_ms=1700000001000\nmtrial:eval step=1 eval_loss=2.1 time_ms=1700000002000\n' >"$T_TMP/r.log"
run_mt 0 runs import --system candidate "$T_TMP/r.log"
another_log "$T_TMP/r.log" "$T_TMP/r2.log" # another attempt: one log is imported once
GIT_AUTHOR_NAME=$(printf 'Bob \033[2JEvil') GIT_AUTHOR_EMAIL=bob@example.com \
	run_mt 0 runs import --system baseline "$T_TMP/r2.log"

run_mt 0 runs --json
eq "$(json '[(r["id"], r["author"]["name"], r["author"]["email"]) for r in j["runs"]]')" \
	"[(1, 'Ada Runs', 'ada@example.com'), (2, 'Bob \x1b[2JEvil', 'bob@example.com')]" \
	"runs --json: each run says who recorded it (JSON keeps the name as it is)"
eq "$(json 'set(r["author"]["host"] for r in j["runs"]) == {"'"$(hostname)"'"}')" True \
	"and on which host"
run_mt 0 runs show 2 --json
eq "$(json 'repr(j["author"]["name"]), j["author"]["email"]')" "'Bob \x1b[2JEvil' bob@example.com" \
	"runs show ID --json: the run's author"

run_mt 0 runs show 1
has "recorded by Ada Runs <ada@example.com> on $(hostname)" "$OUT" "runs show: who recorded it, where"
run_mt 0 runs show 2
has "recorded by Bob " "$OUT" "runs show: the other run's author"
hasnt "$(printf '\033')" "$OUT" "an escape in the name never reaches the terminal"

# withdrawn, it still says who recorded it
run_mt 0 rm run 2 --why "wrong log"
run_mt 0 runs --all --json
eq "$(json '[r["author"]["email"] for r in j["runs"]]')" "['ada@example.com', 'bob@example.com']" \
	"runs --all --json: a withdrawn run keeps its author"
finish
