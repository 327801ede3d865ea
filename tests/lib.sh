# Shared by the shell tests: assertions that count, a scratch directory that
# is removed on exit, and a fresh git repository. Source it, call the
# assertions, end with `finish`, which prints "N passed, N failed".
set -u
: "${MTRIAL:?MTRIAL must name the mtrial binary}"
export LANG=C.UTF-8 TZ=UTC NO_COLOR=1
unset MTRIAL_DIR MTRIAL_TEMPLATE_DIR
T_PASS=0
T_FAIL=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mtrial-test.XXXXXX")
export XDG_CACHE_HOME=$T_TMP/cache # never the real ~/.cache
trap 'rm -rf "$T_TMP"' EXIT

ok() { T_PASS=$((T_PASS + 1)); }
bad() { T_FAIL=$((T_FAIL + 1)); echo "FAIL: $*" >&2; }

# check DESCRIPTION COMMAND...: passes when the command exits 0.
check() { local d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }

# run_mt EXPECTED_STATUS ARGS...: runs mtrial, keeps stdout/stderr in
# $OUT/$ERR, and checks the exit status.
run_mt() {
	local want=$1; shift
	"$MTRIAL" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
	local got=$?
	OUT=$(cat "$T_TMP/out"); ERR=$(cat "$T_TMP/err")
	if [ "$got" -eq "$want" ]; then ok; else
		bad "mtrial $* exited $got, expected $want; stderr: $ERR"; fi
}

# has TEXT HAYSTACK DESCRIPTION
has() { case "$2" in *"$1"*) ok ;; *) bad "$3: expected '$1' in: $2" ;; esac; }
hasnt() { case "$2" in *"$1"*) bad "$3: did not expect '$1' in: $2" ;; *) ok ;; esac; }
eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: expected '$2', got '$1'"; fi; }

# json EXPR: evaluates a Python expression over the JSON in $OUT (as `j`).
json() { printf '%s' "$OUT" | python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

# another_log SRC DST: a copy of log SRC with one more empty line, which
# every log reader skips: the same figures under other bytes, for a test
# that needs a second attempt (an import of the same bytes is refused as the
# same attempt counted twice).
another_log() { cp "$1" "$2" && printf '\n' >>"$2"; }

# new_repo DIR: a git repository with one commit.
new_repo() {
	mkdir -p "$1" && git -C "$1" -c init.defaultBranch=main init -q &&
		echo "import torch" >"$1/train.py" && git -C "$1" add train.py &&
		git -C "$1" -c user.name=t -c user.email=t@example.com commit -qm init
}

# require_torch: $PY is Debian's python3 with torch (scripts/install-deps
# installs python3-torch; the python3 on PATH may have none). Without it the
# test fails, saying so.
PY=${OPTRACE_PYTHON:-/usr/bin/python3}
require_torch() {
	"$PY" -c 'import torch' 2>/dev/null && return 0
	bad "$PY cannot import torch: install python3-torch (scripts/install-deps)"
	finish
	exit 1
}

finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
