# mtrial scan judges a requirement's PEP 508 marker for the target (Linux,
# x86_64, CPython 3): a CUDA-only or known-broken package that only a
# platform the trial never runs on installs is no finding; one the marker
# keeps, or a marker the target does not settle (python_version, extra),
# is judged as before.
. "$MT_SOURCE_DIR/tests/lib.sh"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
R=$T_TMP/repo
new_repo "$R"
cat >"$R/requirements.txt" <<'REQ'
bitsandbytes==0.43.1 ; sys_platform == "darwin"
flash-attn==2.5.9 ; platform_system != "Windows" and sys_platform == 'linux'
trl==1.15.2; platform_system == "Windows" or (os_name == "nt" and platform_machine == "AMD64")
trl==1.15.2; python_version >= "3.9"
xformers; sys_platform in "win32 cygwin"
apex ; extra == "gpu"
REQ
git -C "$R" add -A && git -C "$R" commit -qm reqs
run_mt 0 scan --repo "$R" --json --no-cache
lines() { json "sorted({f['line'] for f in j['findings'] if f['file']=='requirements.txt'})"; }
eq "$(lines)" "[2, 4, 6]" "only the requirements the target installs (or may: python_version, an extra) are findings"
finish
