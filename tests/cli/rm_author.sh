# mtrial rm credits the person the withdrawal's event records: the
# repository's user.name over the global one (as git itself names an
# author), in what rm says, in rm --list and in the event.
. "$MT_SOURCE_DIR/tests/lib.sh"
export HOME=$T_TMP/home
mkdir -p "$HOME"
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
git config --global user.name "Global Person"
git config --global user.email global@example.com
R=$T_TMP/repo
new_repo "$R"
git -C "$R" config user.name "Repo Person"
git -C "$R" config user.email repo@example.com
cd "$R"
run_mt 0 init --name rm-author
run_mt 0 note "a mistaken note"
run_mt 0 rm note 1 --why "typed in the wrong trial"
hasnt "Global Person" "$OUT" "not the global user"
run_mt 0 rm --list --json
eq "$(json 'j[0]["who"] if isinstance(j, list) else j["withdrawals"][0]["who"]')" "Repo Person" "rm --list names the same person"
ev=$(cat .mtrial/events/*.jsonl | grep '"withdraw"')
eq "$(printf '%s' "$ev" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); print(e["data"]["who"], "/", e["author"]["name"] if isinstance(e.get("author"), dict) else e.get("author"))')" \
	"Repo Person / Repo Person" "the event's who and its author are one person"
finish
