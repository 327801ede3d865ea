# The layers as the build shows them (docs/conventions.md): the pylex fuzzer
# links its own library and nothing of the layers beside or above it, and no
# folder includes a header of a folder it may not depend on, or a header
# whose name another folder also has.
. "$MT_SOURCE_DIR/tests/lib.sh"

P=$MT_BUILD_DIR/fuzz/fuzz_pylex
check "fuzz_pylex is built" test -x "$P"
for lib in libgit2 libsqlite3 libdeflate libcurl libncurses; do
	check "fuzz_pylex does not link $lib" sh -c "! ldd '$P' | grep -q '$lib'"
done

# What each folder may include besides its own headers.
declare -A may=(
	[common]=""
	[trial]="common"
	[shim]="common"
	[git]="common"
	[python]="common"
	[compat]="common python"
	[probes]="common trial shim git python compat"
	[checks]="common trial shim"
	[report]="common trial shim git python compat probes checks"
	[core]="common trial shim git python compat probes checks report"
	[tui]="common trial shim git python compat probes checks report core"
)
# One header name, one folder: #include "x.h" finds whichever include path
# comes first, so two folders' x.h would be a silent choice.
declare -A home
for d in "${!may[@]}" cli; do
	for h in "$MT_SOURCE_DIR/$d"/*.h; do
		[ -e "$h" ] || continue
		b=$(basename "$h")
		if [ -n "${home[$b]:-}" ]; then bad "$b is in ${home[$b]}/ and in $d/"; else ok; fi
		home[$b]=$d
	done
done
for d in "${!may[@]}"; do
	for f in "$MT_SOURCE_DIR/$d"/*.c "$MT_SOURCE_DIR/$d"/*.h "$MT_SOURCE_DIR/$d"/*.cc; do
		[ -e "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			# its own folder first, as #include "..." searches
			[ -e "$MT_SOURCE_DIR/$d/$inc" ] && continue
			to=${home[$inc]:-}
			[ -n "$to" ] || continue
			case " ${may[$d]} " in
			*" $to "*) ok ;;
			*) bad "$d/$(basename "$f") includes $to/$inc: $d may not depend on $to" ;;
			esac
		done
	done
done
finish
