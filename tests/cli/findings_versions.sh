# Version-aware dependency rules (tables/findings.yaml `versions:`): the
# bundled TRL 1.15 rule through every manifest the scan reads, pinned, open
# and unpinned specs told apart, other versions quiet; the finding in the
# text and JSON scan, the trial's record and the report; a team's own rule
# from $MTRIAL_FINDINGS (cached results not reused under other rules) and
# its errors at file:line:col with exit 2.
. "$MT_SOURCE_DIR/tests/lib.sh"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
unset MTRIAL_FINDINGS MTRIAL_TABLES_DIR
R=$T_TMP/repo
new_repo "$R"
printf 'torch>=2.1\ntrl==1.15.2  # the one we trained with\n' >"$R/requirements.txt"
printf 'trl>=1.10\n' >"$R/requirements-dev.txt"
printf 'trl==1.16.0\naccelerate\n' >"$R/requirements-ci.txt"
printf '[project]\nname = "x"\ndependencies = ["trl[peft] (>=1.15, <1.16)"]\n[tool.poetry.dependencies]\ntrl = { version = "^1.14", optional = true }\n' >"$R/pyproject.toml"
printf 'from setuptools import setup\nsetup(name="x", install_requires=["trl~=1.14.0", "trl>=1.15.*"])\n' >"$R/setup.py"
printf 'dependencies:\n  - conda-forge::trl=1.15=pyhd8ed1ab_0\n  - pip:\n    - trl @ git+https://github.com/huggingface/trl@main\n' >"$R/environment.yml"
git -C "$R" add -A && git -C "$R" commit -qm deps

run_mt 0 scan --repo "$R" --json --no-cache
TRL='[f for f in j["findings"] if f["rule"] == "trl-1-15-fused-kernels"]'
eq "$(json "[(f['file'], f['line']) for f in $TRL]")" \
	"[('environment.yml', 2), ('environment.yml', 4), ('pyproject.toml', 3), ('pyproject.toml', 5), ('requirements-dev.txt', 1), ('requirements.txt', 2), ('setup.py', 2)]" \
	"every manifest with trl 1.15 pinned or possible, and no other"
eq "$(json "[f['message'].split(':')[0] for f in $TRL if ' pins ' in f['message']]")" \
	"['conda-forge', 'trl[peft] (>=1.15, <1.16) pins trl ==1.15.*', 'trl==1.15.2 pins trl ==1.15.*']" \
	"pinned: conda '=1.15', a range within 1.15, an exact pin"
has "trl>=1.10 may resolve to trl ==1.15.*: it admits other versions too, so it depends on the release picked at install time and on any lock or constraints file; several TRL trainers broke on Neuron in TRL 1.15" \
	"$(json "[f['message'] for f in $TRL if f['file'] == 'requirements-dev.txt'][0]")" "an open range may resolve"
has 'trl = { version = "^1.14", optional = true } may resolve to trl ==1.15.*' \
	"$(json "[f['message'] for f in $TRL if f['file'] == 'pyproject.toml' and f['line'] == 5][0]")" "poetry's caret range may resolve"
has "may be trl ==1.15.*: a direct reference" \
	"$(json "[f['message'] for f in $TRL if f['line'] == 4][0]")" "a VCS URL may be affected"
has "may be trl ==1.15.*: its version specifier cannot be read" \
	"$(json "[f['message'] for f in $TRL if f['file'] == 'setup.py'][0]")" "a malformed specifier is not taken as safe"
has "(source: a huggingface/trl issue closed on 2026-10-14 (its number is not recorded); as of 2026-10-14)" \
	"$(json "$TRL[0]['message']")" "source and date close the message"
eq "$(json "set(f['effort'] + '/' + f['kind'] for f in $TRL)")" "{'medium/known-issue'}" "kind and effort"
# what the message says in words, as fields of their own
eq "$(json "sorted({(f['versions'], f['date'], f['source']) for f in $TRL})")" \
	"[('==1.15.*', '2026-10-14', 'a huggingface/trl issue closed on 2026-10-14 (its number is not recorded)')]" \
	"versions, date and source are fields"
eq "$(json "[(f['file'], f['line'], f['certainty'], f.get('certainty_why')) for f in $TRL]")" \
	"[('environment.yml', 2, 'pinned', None), ('environment.yml', 4, 'unknown', 'a direct reference (a VCS URL, a path or an archive) whose version mtrial cannot read'), ('pyproject.toml', 3, 'pinned', None), ('pyproject.toml', 5, 'possible', 'it admits other versions too'), ('requirements-dev.txt', 1, 'possible', 'it admits other versions too'), ('requirements.txt', 2, 'pinned', None), ('setup.py', 2, 'unknown', 'its version specifier cannot be read')]" \
	"certainty as a field, with why when it is not pinned"
eq "$(json "all((' pins ' in f['message']) == (f['certainty'] == 'pinned') for f in $TRL)")" True \
	"the field and the message agree"

# scan --help tells of the dependency rules and of MTRIAL_FINDINGS
run_mt 0 scan --help
has "for versions known to break on the target" "$OUT" "help: version rules"
has "certainty (pinned, possible,
unknown) as fields" "$OUT" "help: the JSON fields"
has "MTRIAL_FINDINGS=FILE adds a team's own rules" "$OUT" "help: MTRIAL_FINDINGS"

# the text output, then the record and the report of a trial
cd "$R" && "$MTRIAL" init --name deps >/dev/null && cd - >/dev/null
cd "$R"
run_mt 0 scan
has "medium requirements.txt:2  known-issue: trl==1.15.2 pins trl ==1.15.*: several TRL trainers" "$OUT" "text output"
run_mt 0 report --format md
cd - >/dev/null
has "trl==1.15.2 pins trl ==1.15.*" "$OUT" "the report lists the finding"
has "trl>=1.10 may resolve to trl ==1.15.*" "$OUT" "and the possible one"

# a team's own rule, read after the bundled ones; the cache is not reused
cat >"$T_TMP/team.yaml" <<'YAML'
schema: mtrial-findings/1
sources:
  - id: wiki
    url: https://wiki.example.org/trn/accelerate
rules:
  - id: accelerate-old
    kind: known-issue
    effort: low
    source: wiki
    date: 2026-11-02
    message: "our runs need accelerate 1.14 or later on trn2"
    match:
      dependency: accelerate
      versions: "<1.14"
YAML
run_mt 0 scan --repo "$R" --json
eq "$(json 'sum(f["rule"] == "accelerate-old" for f in j["findings"])')" 0 "no team rule without MTRIAL_FINDINGS"
MTRIAL_FINDINGS=$T_TMP/team.yaml run_mt 0 scan --repo "$R" --json
eq "$(json '[f["message"] for f in j["findings"] if f["rule"] == "accelerate-old"]')" \
	"['accelerate may resolve to accelerate <1.14: no version is pinned, so it depends on the release picked at install time and on any lock or constraints file; our runs need accelerate 1.14 or later on trn2 (source: https://wiki.example.org/trn/accelerate; as of 2026-11-02)']" \
	"the team's rule fires, from a cache filled under the bundled rules"
sed -i 's/versions: "<1.14"/versions: ">=1.14,<1.14"/' "$T_TMP/team.yaml"
MTRIAL_FINDINGS=$T_TMP/team.yaml run_mt 2 scan --repo "$R"
eq "$ERR" "mtrial: $T_TMP/team.yaml:14:17: versions '>=1.14,<1.14' admits no version" "a bad team rule: file:line:col"
sed -i 's/versions: ">=1.14,<1.14"/versions: "~=1"/' "$T_TMP/team.yaml"
MTRIAL_FINDINGS=$T_TMP/team.yaml run_mt 2 scan --repo "$R"
eq "$ERR" "mtrial: $T_TMP/team.yaml:14:17: versions: version specifier '~=1': ~= needs two release numbers or more" "a bad specifier: file:line:col"
finish
