# SPDX-License-Identifier: MIT
# One command line across the programs (README "Common options"): every
# program's --help is read for its "-X, --long" pairs; no short option may
# mean two things in two programs; each program answers -h (= --help) and
# --version ("PROG VERSION") on stdout with exit 0, and takes -q and -v.
# Prints the table of short options, as README's "Common options" has it.
set -uo pipefail
progs=(ingero ingero-record ingero-symbolize ingero-correlate ingero-merge ingero-export
	ingero-mcp ingero-demo)
version=$(sed -n 's/^#define INGERO_VERSION "\(.*\)"$/\1/p' "$INGERO_TESTS/../lib/include/ingero/ilog.h")
[[ -n $version ]] || { echo "no INGERO_VERSION in ilog.h"; exit 1; }
bad=0
fail() { echo "FAIL: $*"; bad=1; }
: >pairs.txt
for p in "${progs[@]}"; do
	rc=0
	"$p" --help >"$p.help" 2>"$p.err" || rc=$?
	[[ $rc == 0 && -s $p.help && ! -s $p.err ]] || fail "$p --help: exit $rc, stderr '$(cat "$p.err")'"
	rc=0
	"$p" -h >h.out 2>&1 || rc=$?
	[[ $rc == 0 ]] && cmp -s h.out "$p.help" || fail "$p -h: exit $rc or not --help's text"
	rc=0
	v=$("$p" --version 2>v.err) || rc=$?
	[[ $rc == 0 && ! -s v.err && $v =~ ^$p\ $version( |$) ]] ||
		fail "$p --version: exit $rc, '$v', want '$p $version'"
	# -q and -v are options (and do not stop -h from answering)
	rc=0
	"$p" -q -v -h >/dev/null 2>&1 || rc=$?
	[[ $rc == 0 ]] || fail "$p -q -v -h: exit $rc"
	# the option sections (OPTIONS and any after it, such as export's LIVE,
	# up to EXAMPLES or EXIT STATUS): "  -X, --long ..." and "      --long ..."
	sed -n '/^OPTIONS$/,/^\(EXAMPLES\|EXIT STATUS\|SEE ALSO\)/p' "$p.help" |
		sed -n 's/^  -\([A-Za-z0-9]\), --\([a-z0-9-]*\).*/\1 \2/p; s/^      --\([a-z0-9-]*\).*/- \1/p' |
		sed "s/\$/ $p/" >>pairs.txt
	for want in "h help" "q quiet" "v verbose" "- version"; do
		grep -q "^$want $p\$" pairs.txt || fail "$p --help lists no ${want/ /, --}"
	done
done
# each short letter: one long name across all programs
awk '$1 != "-" { if (!(($1, $2) in progs)) { names[$1] = names[$1] " " $2; n[$1]++ }
	progs[$1, $2] = progs[$1, $2] (progs[$1, $2] == "" ? "" : " ") $3 }
END { for (k in n) if (n[k] > 1) {
	m = split(substr(names[k], 2), l, " "); line = "CLASH -" k ":"
	for (i = 1; i <= m; i++) line = line (i > 1 ? "," : "") " --" l[i] " (" progs[k, l[i]] ")"
	print line } }' pairs.txt | sort >clashes.txt
if [[ -s clashes.txt ]]; then
	cat clashes.txt
	bad=1
fi
# the table: letter, long name, programs
awk '$1 != "-" { k = "-" $1 " --" $2; if (!(k in seen)) order[n++] = k; seen[k] = seen[k] " " $3 }
END { for (i = 0; i < n; i++) printf "%-18s%s\n", order[i], seen[order[i]] }' pairs.txt |
	sort -f
((bad)) && exit 1
echo "no short option means two things"
