# the package installs into the system with dpkg -i; the installed ingero
# records the demo's incident (fake CUDA libraries from /usr/libexec/ingero,
# the build tree's hidden) and man ingero-record shows its page; dpkg -r
# removes every file again.  Root only (CI runs it), and not where a
# package ingero is installed already.
[ "$(id -u)" = 0 ] || { echo "needs root for dpkg -i (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/cli/install/install.bash"
# Outside CI a package ingero installed already is the user's: leave it.
# Under CI it can only be left by an earlier run killed before its
# dpkg -r: this run replaces it and removes it at the end.
if dpkg-query -W -f='${Status}' ingero 2>/dev/null | grep -q ' installed$'; then
	case ${CI:-} in
	true | 1 | yes) ;;
	*) echo "a package ingero is installed already; not replacing it" >&2; exit 77 ;;
	esac
fi
mk deb DEBDIR="$PWD/dist" >deb.log 2>&1 || { cat deb.log >&2; exit 1; }
# killed by the runner's timeout (TERM), the package is still removed
trap 'dpkg -r ingero >/dev/null 2>&1' EXIT
trap 'exit 1' TERM INT HUP
dpkg -i dist/ingero_*.deb >dpkg.log 2>&1 || { cat dpkg.log >&2; exit 1; }
dpkg -L ingero >files
INGERO_FAKECUDA_DIR=$PWD/nowhere recorder \
	/usr/bin/ingero demo --bpf --check -q incident -o incident.ilog >out.txt 2>err.txt ||
	{ cat out.txt err.txt >&2; exit 1; }
# on a miss: the processes that preempted the job's threads, for the reason
grep -q '^demo check: staged cpu-contention; ingero ranked it first$' out.txt || {
	cat out.txt >&2
	echo "preemptions of the traced threads by process (count, off-CPU ms):" >&2
	/usr/bin/ingero export -t host incident.ilog | jq -rs '[.[] | select(.host_type == "switch"
		and .value == 0)] | group_by(.other_comm)
		| map("  \(.[0].other_comm): \(length), \(map(.dur_ns) | add / 1e6 | floor)") | .[]' >&2
	exit 1
}
MANWIDTH=80 man -P cat ingero-record 2>&1 | sed 's/.\x08//g' >man.txt
grep -q '^ *ingero-record - record CUDA' man.txt || { head man.txt >&2; exit 1; }
MANWIDTH=80 man -P cat 5 ingero-log 2>&1 | sed 's/.\x08//g' | grep -q 'ingero-log - the ingero event log format' ||
	{ echo "man 5 ingero-log: no page" >&2; exit 1; }
dpkg -r ingero >dpkg.log 2>&1 || { cat dpkg.log >&2; exit 1; }
trap - EXIT
left=$(while read -r f; do [[ -f $f ]] && echo "$f"; done <files)
[[ -z $left && ! -e /usr/share/doc/ingero && ! -e /usr/libexec/ingero ]] || { echo "left after dpkg -r: $left" >&2; exit 1; }
