# mtrial scan on damaged repositories made here: a corrupt loose object, a
# corrupt byte in a pack, a corrupt tree, a truncated pack index, and work
# trees nested deeper than libgit2 walks. An unreadable file is skipped and
# named with its object id and libgit2's words; a repository whose revision
# cannot be read is an input error (exit 2).
. "$MT_SOURCE_DIR/tests/lib.sh"
export XDG_CACHE_HOME=$T_TMP/cache
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

# three files of incompressible-ish text, so that a byte in the middle of a
# pack lands inside one of them
make_repo() {
	mkdir -p "$1/sub" && git -C "$1" -c init.defaultBranch=main init -q
	for i in 1 2 3; do
		python3 -c "
import random; random.seed($i)
print('import torch')
for k in range(300): print('x%d = torch.ones(%d)  # %s' % (k, k, ''.join(random.choice('abcdefghij') for _ in range(40))))
" >"$1/f$i.py"
	done
	printf 'import torch\ny = torch.zeros(1)\n' >"$1/sub/a.py"
	git -C "$1" add -A && git -C "$1" commit -qm files
}
skipped() { json "[s['reason'] for s in j['files_skipped'] if s['path']=='$1']"; }
scanned() { json "sorted(f['path'] for f in j['files'])"; }

# a corrupt loose blob: that file is skipped, named with its id
R=$T_TMP/loose; make_repo "$R"
id=$(git -C "$R" rev-parse HEAD:f2.py)
obj=$R/.git/objects/${id:0:2}/${id:2}
chmod u+w "$obj" && printf 'xxxxxxxxxxxxxxxxxxxx' | dd of="$obj" bs=1 seek=10 conv=notrunc 2>/dev/null
run_mt 0 scan --repo "$R" --json --no-cache
has "unreadable blob $id: " "$(skipped f2.py)" "a corrupt loose object is skipped with its id"
eq "$(scanned)" "['f1.py', 'f3.py', 'sub/a.py']" "the other files are scanned"
run_mt 0 scan --repo "$R" --no-cache
has "skipped f2.py: unreadable blob $id" "$OUT" "text output names it"

# a corrupt tree: its directory is skipped, the rest scanned
R=$T_TMP/tree; make_repo "$R"
id=$(git -C "$R" rev-parse HEAD:sub)
obj=$R/.git/objects/${id:0:2}/${id:2}
chmod u+w "$obj" && printf 'garbage!' | dd of="$obj" bs=1 seek=4 conv=notrunc 2>/dev/null
run_mt 0 scan --repo "$R" --json --no-cache
has "unreadable tree $id: " "$(skipped sub)" "a corrupt tree skips its directory, named"
eq "$(scanned)" "['f1.py', 'f2.py', 'f3.py']" "the files beside it are scanned"

# a corrupt byte in a pack: the blob it falls in is skipped
R=$T_TMP/pack; make_repo "$R"
git -C "$R" gc -q
pack=$(ls "$R"/.git/objects/pack/*.pack)
# a byte in the middle of one blob's packed data (verify-pack: id, type,
# size, packed size, offset)
set -- $(git -C "$R" verify-pack -v "${pack%.pack}.idx" | awk '$2=="blob" && $3 > 10000 {print $1, $5 + int($4 / 2)}' | sed -n 2p)
victim=$1
chmod u+w "$pack" && printf '\377\377\377\377\377\377' | dd of="$pack" bs=1 seek="$2" conv=notrunc 2>/dev/null
run_mt 0 scan --repo "$R" --json --no-cache
eq "$(json "len([s for s in j['files_skipped'] if s['reason'].startswith('unreadable blob $victim: ')])")" 1 "the blob under the corrupt pack byte is skipped, named by id"
eq "$(json 'j["files_scanned"]')" 3 "the other three are scanned"
MTRIAL_GITPACK=0 run_mt 0 scan --repo "$R" --json --no-cache
eq "$(json 'j["files_scanned"]')" 3 "the same through libgit2 alone"

# a truncated pack index: the commit cannot be read: input error, named
R=$T_TMP/idx; make_repo "$R"
git -C "$R" gc -q
idx=$(ls "$R"/.git/objects/pack/*.idx)
head=$(git -C "$R" rev-parse HEAD)
chmod u+w "$idx" && truncate -s 600 "$idx"
# libgit2 1.5 itself leaks its reference database here (a five-line program
# that opens such a repository, reads HEAD and frees everything leaks the
# same 772 bytes): under AddressSanitizer this one command skips the leak check
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" run_mt 2 scan --repo "$R" --no-cache
has "revision 'HEAD' is commit $head, which cannot be read" "$ERR" "a truncated index: the commit named, exit 2"
run_mt 2 scan --repo "$T_TMP/nowhere" --no-cache
run_mt 2 scan --repo "$T_TMP/loose" --rev nope --no-cache
has "unknown revision 'nope'" "$ERR" "a bad revision is an input error"

# a work tree 200 levels deep, untracked then committed: the deep part is
# skipped and named, the rest compared
R=$T_TMP/deep; make_repo "$R"
deep=$(python3 -c "
import os
p = '$R'
for i in range(200): p = os.path.join(p, 'd%03d' % i)
os.makedirs(p)
open(os.path.join(p, 'deep.py'), 'w').write('import torch\nz = torch.tanh(1)\n')
")
printf 'import torch\nw = torch.sigmoid(1)\n' >"$R/new.py"
run_mt 0 scan --repo "$R" --worktree --json --no-cache
eq "$(json "[s['path'].count('/') for s in j['files_skipped'] if 'nested over' in s['reason']]")" "[95]" "the directory past the depth libgit2 walks is skipped and named"
eq "$(json 'any(c["api"]=="torch.sigmoid" for c in j["calls"])')" True "the rest of the work tree is compared"
git -C "$R" add -A && git -C "$R" commit -qm deep
printf '\nv = torch.cos(1)\n' >>"$R/f1.py"
run_mt 0 scan --repo "$R" --worktree --json --no-cache
eq "$(json 'any(c["api"]=="torch.tanh" for c in j["calls"])')" True "a committed deep file is scanned as committed"
eq "$(json 'any(c["api"]=="torch.cos" for c in j["calls"])')" True "a change beside it is seen"
run_mt 0 scan --repo "$R" --json --no-cache
eq "$(json 'any(c["api"]=="torch.tanh" for c in j["calls"])')" True "without --worktree the deep committed file is scanned"

# paths longer than PATH_MAX in the work tree do not stop the scan
R=$T_TMP/long; make_repo "$R"
python3 -c "
import os
fd = os.open('$R', os.O_RDONLY)
for i in range(25):
    n = ('L%02d' % i) * 60
    os.mkdir(n, dir_fd=fd); nfd = os.open(n, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = nfd
f = os.open('long.py', os.O_WRONLY | os.O_CREAT, dir_fd=fd); os.write(f, b'import torch\n'); os.close(f)
"
run_mt 0 scan --repo "$R" --worktree --json --no-cache
eq "$(json 'j["files_scanned"]')" 4 "the committed files are scanned beside a path over PATH_MAX"
finish
