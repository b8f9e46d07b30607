# SPDX-License-Identifier: MIT
# Sourced by tests/cli/ingero-symbolize/*.sh (each runs in a fresh temp dir).
#
#   record DIR [symtest args]  copy symtest and its library into DIR (the
#                              recording "node") and run it there: writes
#                              DIR/run.ilog and ./paths.txt ("LABEL STACK_ID")
#   render LOG                 each recorded path's frames in the test's own
#                              files (node-a/), innermost first, up to main:
#                              "function file:line [inlined]", a line marked
#                              "@name" in tests/symbolize/ shown as @name,
#                              "module+OFF" for a frame without a name
#   render_stacks              the same for stack records as ingero-export
#                              prints them, on stdin
set -uo pipefail
symdir=$INGERO_OUT/tests/symbolize
src=$INGERO_TESTS/symbolize

record() {
	local dir=$1
	shift
	mkdir -p "$dir"
	cp "$symdir/symtest" "$symdir/libsymtest.so" "$dir/" || exit 1
	"$dir/symtest" -o "$dir/run.ilog" "$@" >paths.txt || {
		echo "symtest failed" >&2
		exit 1
	}
}

# "file.c:LINE @name" for every marker comment
markers() {
	local f
	for f in "$src"/*.c "$src"/*.cc "$src"/*.py; do
		grep -n -o '@[a-z_0-9]*' "$f" | sed "s|^\([0-9]*\):|$(basename "$f"):\1 |"
	done
}

render() {
	ingero-export -t stack "$1" | render_stacks
}

render_stacks() {
	markers >markers.txt
	jq -r --rawfile paths paths.txt '
		($paths | split("\n") | map(select(length > 0) | split(" ") | {key: .[1], value: .[0]})
		 | from_entries) as $lab
		| select($lab[.id]) | "== \($lab[.id])",
		  (.frames // [] | map(select(.module // "" | test("/node-a/")))
		   | (map(.symbol) | index("main")) as $m
		   | .[: (if $m then $m + 1 else length end)][]
		   | if .symbol then
			[.symbol, ((.file // "?") | split("/") | last), (.line // "?"), .inlined]
		     else [(.module | split("/") | last) + "+OFF", "", "", false] end
		   | map(tostring) | join("\t"))' |
		awk -F'\t' 'NR == FNR { split($0, a, " "); m[a[1]] = a[2]; next }
			/^== / { print; next }
			$2 == "" { print $1; next }
			{ k = $2 ":" $3; printf "%s %s:%s%s\n", $1, $2, (k in m) ? m[k] : $3,
			  $4 == "true" ? " [inlined]" : "" }' markers.txt -
}
